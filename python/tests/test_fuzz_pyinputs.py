"""The package's input conversion under hostile values (issue 34 §4): the
fuzz harness tests/fuzz/fuzz_pyinputs.py replays its regressions
(tests/fuzz/regressions-pyinputs/) and runs a short, deterministic
campaign; its oracle is checked against a package patched to misbehave;
and the refusals its findings led to are checked here directly, message
and type, as a user meets them."""

import os
import subprocess
import sys

import numpy as np
import pytest

import diderot
from conftest import TOP

HARNESS = os.path.join(TOP, "tests", "fuzz", "fuzz_pyinputs.py")

SRC = """#version 2.0
input int n = 2;
input real scale = 1.0;
input string tag = "t";
input int[] ks;
input image(2)[] img;
strand S (int i) {
  output real v = 0.0;
  update { v = scale * real(i + n + length(ks)); stabilize; }
}
create_collection { S(i) | i in 0..n-1 };
"""


def _harness(diderotc, cache, tmp_path, *args):
    p = subprocess.run([sys.executable, "-W", "ignore", HARNESS, "--work", str(tmp_path / "work"),
                        "--cache", cache, "--crashes", str(tmp_path / "crashes")] + list(args),
                       env=dict(os.environ, DIDEROTC=diderotc), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    return p.returncode, p.stdout.decode(errors="replace")


def test_fuzz_harness(diderotc, cache, tmp_path):
    """The regressions, then 300 runs with a fixed seed."""
    rc, out = _harness(diderotc, cache, tmp_path, "--runs", "300", "--seed", "34")
    assert rc == 0, out[-4000:]
    assert "stat::number_of_executed_units: 300" in out and ", 0 findings" in out, out[-2000:]
    n = len(os.listdir(os.path.join(TOP, "tests", "fuzz", "regressions-pyinputs")))
    assert n >= 20 and "fuzz_pyinputs: %d regressions replayed" % n in out, out[:500]


def test_oracle_flags_misbehaviour(diderotc, cache, tmp_path):
    """A message that does not name its input, a KeyError out of the
    conversion, an int set off by one, an abort and a hang (1 s) are each
    reported."""
    rc, out = _harness(diderotc, cache, tmp_path, "--selftest")
    assert rc == 0 and "the oracle flags 5 of 5" in out, out[-4000:]


@pytest.fixture(scope="module")
def prog(compile):
    return compile(SRC)


def _refused(prog, exc, text, **inputs):
    with pytest.raises(exc) as e:
        prog.world(img=np.zeros((2, 2), np.float32), **inputs) if "img" not in inputs else prog.world(**inputs)
    assert text in str(e.value), str(e.value)
    return str(e.value)


def test_refusals_name_the_input(prog):
    img = np.zeros((2, 2), np.float32)
    msg = _refused(prog, ValueError, "input 'scale' (real): %s" % str(2 ** 1100)[:40], scale=2 ** 1100)
    assert msg.endswith("... (332 characters) does not fit a double"), msg
    _refused(prog, ValueError, "input 'tag' (string): the string is not UTF-8: surrogates not allowed at "
             "position 1", tag="a\ud800")
    _refused(prog, TypeError, "input 'n' (int): expected an int, got a NumPy timedelta64",
             n=np.timedelta64(2, "D"))
    _refused(prog, ValueError, "input 'ks' (int[]): 18446744073709551615 does not fit a 64-bit int",
             ks=np.array([1, 2 ** 64 - 1], dtype=np.uint64))
    _refused(prog, ValueError, "input 'img' (image(2)[]): Image.from_teem: 1 space directions for 2 "
             "spatial axes", img=(img, {"kinds": ["space", "space"], "space directions": [[1.0, 0.0]]}))
    _refused(prog, TypeError, "input 'img' (image(2)[]): a dict for an image holds Image's arguments "
             "(data, spacing, origin, directions) or Teem's fields", img={"data": img, "zz": 1})
    _refused(prog, TypeError, "input 'img' (image(2)[]): a dict for an image needs \"data\"",
             img={"kinds": ["space", "space"]})
    _refused(prog, ValueError, "input 'img' (image(2)[]): Image: data: not an array",
             img=[[1.0, 2.0], [3.0]])
    _refused(prog, ValueError, "input 'img' (image(2)[]): Image: spacing: expected real numbers",
             img={"data": img, "spacing": [2 ** 1100, 1.0]})

    class BadPath:
        def __fspath__(self):
            raise KeyError("no")
    _refused(prog, TypeError, "input 'ks' (int[]): a BadPath is not a file name (os.fspath: KeyError",
             ks=BadPath())


def test_image_constructor_errors():
    with pytest.raises(ValueError, match="Image: origin: expected real numbers"):
        diderot.Image(np.zeros((2, 2)), origin=[2 ** 1100, 0])
    with pytest.raises(TypeError, match="Image: directions: expected real numbers"):
        diderot.Image(np.zeros((2, 2)), directions=[["a", "b"], ["c", "d"]])
    with pytest.raises(TypeError, match="Image.from_teem: the header must be a dict"):
        diderot.Image.from_teem(np.zeros((2, 2)), [1])


def test_accepted_forms_still_run(prog):
    """What the fixes must not refuse: a Teem pair, a dict, uint64 that fits."""
    img = np.arange(4, dtype=np.float32).reshape(2, 2)
    out = prog.run(img=(img, {"kinds": ["space", "space"], "space directions": [[1.0, 0.0], [0.0, 1.0]],
                              "space origin": [0.0, 0.0]}), ks=np.array([5], dtype=np.uint64), n=3)
    # v = scale * (i + n + length(ks)) for i = 0, 1, 2
    assert sorted(out.v.tolist()) == [4.0, 5.0, 6.0]
    out = prog.run(img={"data": img, "spacing": [0.5, 2.0]}, scale=np.float16(0.5), n=np.int8(1),
                   ks=[1, 2, 3])
    assert out.v.tolist() == [2.0]  # 0.5 * (0 + 1 + 3)
