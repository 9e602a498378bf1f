#!/usr/bin/env python3
"""fuzz_json.py -- a fuzz harness for the reader of a program's JSON
description (issue 34 §4), which is Python: diderot.Program reads
prog.json (diderotc --json) from its cache folder with diderot._describe,
gives its C declarations to cffi and looks its functions up in prog.so.
No C code of ours parses JSON, so this is not a libFuzzer target.

  fuzz_json.py [--seconds S | --runs N] [--seed K] [--work DIR]
               [--regressions DIR] [--crashes DIR] [--replay-only]

Seeds: real descriptions, made at start by compiling programs with the
package (DIDEROTC, else diderotc on PATH or the source tree's build/):
examples/mip (seq and omp), examples/paraview/isoparticles,
tests/fuzz/fuzz_inputs.diderot (inputs of every kind) and a program of
dynamic-sequence outputs. Each run takes one, applies 1 to 4 mutations
(bytes: flips, deletions, duplications, truncation, inserted JSON tokens;
structure: a value replaced by one of another JSON type, a key dropped or
renamed, entries duplicated or swapped, type strings and C declarations
edited, function names exchanged), writes it as prog.json in a folder
beside that program's prog.so and loads it with diderot.Program. The
oracle: the load succeeds, or raises diderot.DescriptionError whose
message begins with that prog.json's path. Any other exception is a
finding: the input goes to CRASHES/fuzz_json-N.json (its namespace
replaced by @NS@, the seed's name first: PROG--N.json) and the traceback
is printed. A crash of the interpreter leaves the input being tried in
CRASHES/fuzz_json-current.json. Regressions (tests/fuzz/regressions-json/
PROG--*.json, @NS@ put back) are replayed first.

Prints libFuzzer's stat line (stat::number_of_executed_units: N), so that
scripts/fuzz-campaign.sh reads both alike, and a summary line.
"""

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "python"))

try:
    import diderot
    from diderot import _program
except ImportError as e:
    sys.exit("fuzz_json: the package diderot needs numpy and cffi (Debian: python3-numpy "
             "python3-cffi): %s" % e)

DYN = """#version 2.0
input int n = 6;
strand S (int i) {
  output int[] divs = {};
  output vec2[] pairs = {};
  update {
    foreach (int d in 1..i) { if (i % d == 0) { divs = divs @ d; pairs = pairs @ [real(d), real(i)]; } }
    stabilize;
  }
}
create_collection { S(i) | i in 0..n-1 };
"""

TOKENS = [b"null", b"true", b"false", b"0", b"-1", b"1e999", b"-0.0", b"4294967296", b'""', b"[]",
          b"{}", b"[", b"{", b"]", b"}", b'"', b",", b":", b"\\u0000", b"\\ud800", b"\xff\xfe",
          b"9" * 5000, b"[" * 3000, b'{"a":' * 2000, b'"tensor[3,3]"', b'"image(3)[3]"',
          b'"real[]"', b'"int[][2]"', b'"string[2]"', b'"bool[]"', b'"image(0)[]"', b"\n", b"\t"]
TYPES = ["bool", "int", "real", "string", "tensor[", "tensor[]", "tensor[3]", "tensor[3,3]",
         "tensor[2,2,2]", "tensor[,]", "tensor[99999999999999999999]", "image(3)[]", "image(2)[2]",
         "image(9)[3,3]", "image(", "image(3)[]" + "[]", "real[]", "real[][]", "int[3][]", "int[][3]",
         "vec3", "", " ", "real ", "int[0]", "int[-1]", "tensor[3][2][]", "string[]", "bool[4]"]
CTYPES = ["float", "double", "int32_t", "int64_t", "uint32_t", "bool", "char *", "const char *",
          "Nrrd *", "void", "void *", "struct foo", "int[3]", "float *", "..."]
CDECLS = ["typedef int Nrrd;", "struct X { int a; };", "#define X 1", "int f(int (*g)(int));",
          "void " + "(" * 400 + "f" + ")" * 400 + "(void);", "extern int v;", "int f(void)",
          "static int g(void);", "int f(...);", "enum e { A = 1 << 40 };", "typedef struct Q Q; Q f(void);",
          "int a[1][2][3][4];", "__attribute__((x)) int h(void);", "int f(int x = 1);"]


def compile_seeds(work, cache=None):
    """(name, directory, description text) of each seed program."""
    os.makedirs(work, exist_ok=True)
    inputs = os.path.join(work, "inputs")
    os.makedirs(inputs, exist_ok=True)
    with open(os.path.join(inputs, "fuzz_img.nrrd"), "w") as f:
        f.write("NRRD0004\ntype: float\ndimension: 2\nsizes: 4 4\nencoding: ascii\n\n%s\n"
                % " ".join(str(i) for i in range(16)))
    with open(os.path.join(inputs, "fuzz_xs.nrrd"), "w") as f:
        f.write("NRRD0004\ntype: float\ndimension: 1\nsizes: 3\nencoding: ascii\n\n1 2 3\n")
    shutil.copy(os.path.join(HERE, "fuzz_inputs.diderot"), inputs)
    cache = cache or os.path.join(work, "cache")
    progs = [("mip", os.path.join(TOP, "examples", "mip", "mip.diderot"), {}),
             ("mip_omp", os.path.join(TOP, "examples", "mip", "mip.diderot"), {"target": "omp"}),
             ("isoparticles", os.path.join(TOP, "examples", "paraview", "isoparticles.diderot"), {}),
             ("inputs", os.path.join(inputs, "fuzz_inputs.diderot"), {}),
             ("dyn", DYN, {"base_dir": work})]
    seeds = []
    for name, src, kw in progs:
        p = diderot.compile(src, cache_dir=cache, **kw)
        with open(os.path.join(p.directory, "prog.json"), encoding="utf-8") as f:
            seeds.append((name, p.directory, f.read()))
    return seeds


# ---- mutations ------------------------------------------------------------

def _nodes(obj, path=()):
    yield path, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _nodes(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _nodes(v, path + (i,))


def _rand_value(rng, names):
    c = rng.randrange(12)
    if c == 0:
        return None
    if c == 1:
        return rng.choice([True, False])
    if c == 2:
        return rng.choice([0, -1, 1, 2 ** 31, 2 ** 64, 10 ** 30])
    if c == 3:
        return rng.choice([0.5, -1e308, float("inf")])  # json.dumps writes Infinity: not JSON
    if c == 4:
        return rng.choice(TYPES)
    if c == 5:
        return rng.choice(names) if names else "x"
    if c == 6:
        return "".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randrange(8)))
    if c == 7:
        return []
    if c == 8:
        return {}
    if c == 9:
        return [rng.choice(TYPES)]
    if c == 10:
        return {"name": "x", "type": rng.choice(TYPES)}
    return rng.choice(CDECLS)


def _edit_string(rng, s, names):
    c = rng.randrange(6)
    if c == 0 and s:
        i = rng.randrange(len(s))
        return s[:i] + s[i + 1:]
    if c == 1:
        i = rng.randrange(len(s) + 1)
        return s[:i] + rng.choice("[](),;*_0123 \"\\{}xX") + s[i:]
    if c == 2:
        for t in CTYPES:
            if t in s:
                return s.replace(t, rng.choice(CTYPES), 1)
        return s + ";"
    if c == 3 and names:
        n = rng.choice(names)
        return s.replace(n, rng.choice(names), 1) if n in s else n
    if c == 4:
        return s[:rng.randrange(len(s) + 1)]
    return s * 2


def mutate_struct(rng, obj, names):
    nodes = list(_nodes(obj))
    path, node = rng.choice(nodes)
    if not path:
        return _rand_value(rng, names) if rng.random() < 0.1 else obj
    parent = obj
    for k in path[:-1]:
        parent = parent[k]
    key = path[-1]
    c = rng.randrange(7)
    if c == 0:
        del parent[key]
    elif c == 1:
        parent[key] = _rand_value(rng, names)
    elif c == 2 and isinstance(node, str):
        parent[key] = _edit_string(rng, node, names)
    elif c == 3 and isinstance(parent, list):
        parent.insert(rng.randrange(len(parent) + 1), json.loads(json.dumps(node)))
    elif c == 4 and isinstance(parent, list) and len(parent) > 1:
        j = rng.randrange(len(parent))
        parent[key], parent[j] = parent[j], parent[key]
    elif c == 5 and isinstance(parent, dict):
        parent[_edit_string(rng, key, names)] = parent.pop(key)
    elif isinstance(parent, list) and path[0] == "runtime":
        parent.insert(rng.randrange(len(parent) + 1), rng.choice(CDECLS))
    else:
        parent[key] = _rand_value(rng, names)
    return obj


def mutate_bytes(rng, b):
    c = rng.randrange(6)
    n = len(b)
    if n == 0:
        return rng.choice(TOKENS)
    i = rng.randrange(n)
    if c == 0:
        return b[:i] + bytes([b[i] ^ (1 << rng.randrange(8))]) + b[i + 1:]
    if c == 1:
        return b[:i] + b[i + rng.randrange(1, 64):]
    if c == 2:
        j = rng.randrange(i, min(n, i + 256) + 1)
        return b[:j] + b[i:j] + b[j:]
    if c == 3:
        return b[:i]
    if c == 4:
        return b[:i] + rng.choice(TOKENS) + b[i:]
    return b[:i] + bytes([rng.randrange(256)]) + b[i + 1:]


def mutate(rng, text, names):
    data = text.encode("utf-8")
    for _ in range(rng.randrange(1, 5)):
        if rng.random() < 0.6:
            try:
                obj = json.loads(data.decode("utf-8"))
            except (ValueError, RecursionError):
                data = mutate_bytes(rng, data)
                continue
            obj = mutate_struct(rng, obj, names)
            data = json.dumps(obj, indent=rng.choice([None, 1])).encode("utf-8")
        else:
            data = mutate_bytes(rng, data)
    return data


# ---- one execution --------------------------------------------------------

class Slot:
    """A folder beside a seed's library: prog.so (a link), done.json, and
    the prog.json under test."""

    def __init__(self, root, name, directory):
        self.dir = os.path.join(root, "slot-" + name)
        os.makedirs(self.dir, exist_ok=True)
        for f in ("prog.so", "done.json"):
            dst, src = os.path.join(self.dir, f), os.path.join(directory, f)
            # a reused --work: the cache may hold the program elsewhere now
            if os.path.lexists(dst) and os.readlink(dst) != src:
                os.unlink(dst)
            if not os.path.lexists(dst):
                os.symlink(src, dst)
        self.json = os.path.join(self.dir, "prog.json")

    def load(self, data):
        """(None when the load behaves: succeeds, or raises DescriptionError
        naming the file, else the traceback of what it raised; what
        happened, for the summary)."""
        with open(self.json, "wb") as f:
            f.write(data)
        _program._loaded.pop(os.path.join(self.dir, "prog.so"), None)  # dlopen and cdef again
        try:
            p = diderot.Program(self.dir, True)
            repr(p)
            for t in list(p.inputs.values()) + list(p.outputs.values()):
                (t.kind, t.shape, t.ncomp)
        except diderot.DescriptionError as e:
            if not str(e).startswith(self.json):
                return "DescriptionError not naming %s: %s" % (self.json, e), "bad message"
            msg = str(e)[len(self.json):]
            what = ("not JSON" if msg[:1] == ":" and msg[1:2].isdigit() or "not JSON" in msg else
                    "not UTF-8" if "UTF-8" in msg else
                    "C declarations" if "C declarations" in msg else
                    "a function missing or declared otherwise" if "the function" in msg or "declared as" in msg else
                    "Diderot type" if "Diderot type" in msg else "a field missing or of a wrong type")
            return None, "error: " + what
        except BaseException:  # noqa: B902 - the finding is anything else
            if sys.exc_info()[0] is KeyboardInterrupt:
                raise
            return traceback.format_exc(), "finding"
        return None, "loaded"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--runs", type=int, default=None)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--work", default=None, help="folder for the slots (and the cache)")
    ap.add_argument("--cache", default=None, help="the package's cache for the seed programs")
    ap.add_argument("--regressions", default=os.path.join(HERE, "regressions-json"))
    ap.add_argument("--crashes", default=os.path.join(HERE, "crashes-new"))
    ap.add_argument("--replay-only", action="store_true")
    a = ap.parse_args(argv)
    if a.seconds is None and a.runs is None:
        a.runs = 1000
    seed = a.seed if a.seed is not None else int(time.time())
    rng = random.Random(seed)
    work = a.work or tempfile.mkdtemp(prefix="fuzz_json-")
    seeds = compile_seeds(work, a.cache)
    slots = {name: Slot(work, name, d) for name, d, _ in seeds}
    by_name = {name: (d, text) for name, d, text in seeds}
    names = {}
    for name, _, text in seeds:
        d = json.loads(text)
        names[name] = sorted({i["setter"] for i in d["inputs"]} | {o["getter"] for o in d["outputs"]}
                             | {i["getter"] for i in d["inputs"] if i.get("getter")})
    for name, _, text in seeds:  # unmutated, each must load: else nothing below means much
        bad, what = slots[name].load(text.encode("utf-8"))
        if what != "loaded":
            print("fuzz_json: the seed %s does not load: %s" % (name, bad or what))
            return 2
    findings = 0
    os.makedirs(a.crashes, exist_ok=True)
    current = os.path.join(a.crashes, "fuzz_json-current.json")
    # the regressions first: each must load or fail as DescriptionError
    replayed = 0
    if os.path.isdir(a.regressions):
        for f in sorted(os.listdir(a.regressions)):
            prog = f.split("--")[0]
            if prog not in slots:
                print("fuzz_json: regression %s names no seed program %r" % (f, prog))
                return 2
            ns = json.loads(by_name[prog][1])["namespace"]
            with open(os.path.join(a.regressions, f), "rb") as fh:
                data = fh.read().replace(b"@NS@", ns.encode())
            bad, _ = slots[prog].load(data)
            replayed += 1
            if bad:
                print("fuzz_json: regression %s fails:\n%s" % (f, bad))
                return 1
    print("fuzz_json: %d regressions replayed; seed %d; work %s" % (replayed, seed, work))
    if a.replay_only:
        return 0
    t0 = time.time()
    runs = 0
    kinds = {}
    outcomes = {}
    while True:
        if a.runs is not None and runs >= a.runs:
            break
        if a.seconds is not None and time.time() - t0 >= a.seconds:
            break
        name, _, text = rng.choice(seeds)
        data = mutate(rng, text, names[name])
        with open(current, "wb") as f:  # what a crash of the interpreter leaves behind
            f.write(name.encode() + b"\n" + data)
        bad, what = slots[name].load(data)
        outcomes[what] = outcomes.get(what, 0) + 1
        runs += 1
        if bad:
            findings += 1
            ns = json.loads(text)["namespace"]
            out = os.path.join(a.crashes, "fuzz_json-%s--%d.json" % (name, findings))
            with open(out, "wb") as f:
                f.write(data.replace(ns.encode(), b"@NS@"))
            print("fuzz_json: finding %s:\n%s" % (out, bad))
            key = bad.strip().splitlines()[-1][:100]
            kinds[key] = kinds.get(key, 0) + 1
    os.unlink(current)
    secs = time.time() - t0
    print("stat::number_of_executed_units: %d" % runs)
    print("fuzz_json: %d executions in %.0f s (%.0f/s), %d findings%s" % (
        runs, secs, runs / secs if secs else 0, findings,
        "".join("\n  %d x %s" % (n, k) for k, n in sorted(kinds.items(), key=lambda x: -x[1]))))
    print("fuzz_json: outcomes: " + "; ".join("%s %d" % kv for kv in
                                               sorted(outcomes.items(), key=lambda x: -x[1])))
    if a.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
