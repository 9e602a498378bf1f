"""A compiled program's description, prog.json, read back by the package
(issue 34 §4): damaged descriptions give diderot.DescriptionError naming
the file and what is wrong, never another exception; the fuzz harness
tests/fuzz/fuzz_json.py replays its regressions and runs a short,
deterministic campaign."""

import json
import os
import shutil
import subprocess
import sys

import pytest

import diderot
from diderot import _program
from conftest import EXAMPLES, TOP

MIP = os.path.join(EXAMPLES, "mip", "mip.diderot")


@pytest.fixture
def entry(compile, tmp_path):
    """A copy of mip's cache folder (prog.so a link) and its description."""
    prog = compile(MIP)
    d = tmp_path / "entry"
    d.mkdir()
    os.symlink(os.path.join(prog.directory, "prog.so"), str(d / "prog.so"))
    shutil.copy(os.path.join(prog.directory, "done.json"), str(d))
    with open(os.path.join(prog.directory, "prog.json"), encoding="utf-8") as f:
        text = f.read()

    def load(new_text):
        (d / "prog.json").write_bytes(new_text if isinstance(new_text, bytes) else new_text.encode())
        _program._loaded.pop(str(d / "prog.so"), None)
        return diderot.Program(str(d), True)
    return str(d / "prog.json"), text, load


def _bad(entry, text, *want):
    path, _, load = entry
    with pytest.raises(diderot.DescriptionError) as e:
        load(text)
    msg = str(e.value)
    assert msg.startswith(path), msg
    for w in want:
        assert w in msg, msg
    assert "remove its folder, or compile again with force=True" in msg


def test_intact_description_loads(entry):
    _, text, load = entry
    p = load(text)
    assert list(p.inputs)[:2] == ["vol", "camEye"] and list(p.outputs) == ["mip"]


def test_truncated(entry):
    _, text, _ = entry
    cut = text[:len(text) // 2]
    line = cut.count("\n") + 1
    _bad(entry, cut, ":%d:" % line, "not JSON")


def test_not_utf8(entry):
    _bad(entry, b"\xff\xfe{}", "not UTF-8 text (byte 0)")


def test_not_an_object(entry):
    _bad(entry, "[1, 2]", "not a JSON object but list")


def test_missing_and_wrong_fields(entry):
    _, text, _ = entry
    d = json.loads(text)
    del d["outputs"]
    _bad(entry, json.dumps(d), '"outputs" is missing, not a list')
    d = json.loads(text)
    d["inputs"][1]["has-default"] = "yes"
    _bad(entry, json.dumps(d), 'inputs[1] (camEye): "has-default" is not true or false')
    d = json.loads(text)
    d["inputs"][0]["setter"] = None
    _bad(entry, json.dumps(d), 'inputs[0]: "setter" is null, not a string')
    d = json.loads(text)
    d["target"] = "gpu"
    _bad(entry, json.dumps(d), '"target" is \'gpu\', not one of sequential, parallel, cuda')
    d = json.loads(text)
    d["inputs"].append(dict(d["inputs"][1]))
    _bad(entry, json.dumps(d), "a second input named 'camEye'")


def test_bad_type(entry):
    _, text, _ = entry
    d = json.loads(text)
    d["inputs"][1]["type"] = "tensor[3"
    _bad(entry, json.dumps(d), "inputs[1] (camEye): unknown Diderot type 'tensor[3'")


def test_function_not_in_library(entry):
    _, text, _ = entry
    d = json.loads(text)
    d["outputs"][0]["getter"] = d["namespace"] + "_output_get_nothing"
    _bad(entry, json.dumps(d), "the function %s_output_get_nothing is not in" % d["namespace"])
    d = json.loads(text)
    d["runtime"] = [x for x in d["runtime"] if "_run(" not in x]
    _bad(entry, json.dumps(d), "the function %s_run is not in" % d["namespace"])
    d = json.loads(text)
    d["inputs"][1]["getter"] = d["namespace"] + "_input_desc_camEye"  # a variable
    _bad(entry, json.dumps(d), "_input_desc_camEye is declared as a pointer, not a function")


def test_declarations_disagree_with_types(entry):
    _, text, _ = entry
    d = json.loads(text)
    d["real-type"] = "double"
    _bad(entry, json.dumps(d), "inputs[1] (tensor[3] camEye): %s_input_set_camEye is declared as "
         "_Bool(%s_world_t *, float *), not _Bool(%s_world_t *, double *)" % ((d["namespace"],) * 3))
    d = json.loads(text)
    d["inputs"][5]["type"] = "real"  # imgResU, an int
    _bad(entry, json.dumps(d), "inputs[5] (real imgResU)", "int32_t), not _Bool(")


def test_bad_declarations(entry):
    _, text, _ = entry
    d = json.loads(text)
    d["runtime"].append("}")  # pycparser: an AssertionError before the fix
    _bad(entry, json.dumps(d), 'its C declarations ("runtime") are not what cffi reads')
    d = json.loads(text)
    d["runtime"].append("int f(")
    _bad(entry, json.dumps(d), "C declarations", "parse error")


def test_done_json_of_another_shape(entry, tmp_path):
    """done.json gives only the source's name, for show: a damaged one is no error."""
    _, text, load = entry
    (tmp_path / "entry" / "done.json").unlink()
    (tmp_path / "entry" / "done.json").write_text("[1]")
    assert load(text).source is None


def test_fuzz_harness(diderotc, cache, tmp_path):
    """The regressions, then 300 mutations with a fixed seed."""
    p = subprocess.run([sys.executable, "-W", "ignore", os.path.join(TOP, "tests", "fuzz", "fuzz_json.py"),
                        "--runs", "300", "--seed", "34", "--work", str(tmp_path / "work"),
                        "--cache", cache, "--crashes", str(tmp_path / "crashes")],
                       env=dict(os.environ, DIDEROTC=diderotc), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    out = p.stdout.decode(errors="replace")
    assert p.returncode == 0, out[-4000:]
    assert "stat::number_of_executed_units: 300" in out and ", 0 findings" in out, out[-2000:]
    assert "regressions replayed" in out and not out.startswith("fuzz_json: 0 regressions"), out[:500]


def test_descriptions_beyond_ascii(compile):
    """An input's description with UTF-8 (an extension), a quote, a
    backslash and a tab: diderotc --json writes them as JSON (it wrote C's
    octal escapes, which no JSON reader takes, and the package refused its
    own cache entry), and the package reads them back as written."""
    desc = 'Größe \\"σ\\" \\\\ und\\tTab'  # as written in the Diderot literal
    src = ("#version 2.0\ninput real s (\"%s\") = 1.0;\n"
           "strand S (int i) { output real y = s; update { stabilize; } }\n"
           "create_array { S(i) | i in 0..1 };\n" % desc)
    p = compile(src)
    assert p.input_descriptions["s"] == 'Größe "σ" \\ und\tTab'
    with open(os.path.join(p.directory, "prog.json"), "rb") as f:
        raw = f.read()
    assert json.loads(raw.decode("utf-8"))["inputs"][0]["description"] == p.input_descriptions["s"]
    assert list(p.run(s=2.5).y) == [2.5, 2.5]
