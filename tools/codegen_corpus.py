#!/usr/bin/env python3
"""codegen_corpus.py -- the generated code of a whole corpus, for proving a
refactor of the back end: write every file one diderotc generates for every
program of the corpus under a set of option variants, then compare two such
trees byte for byte.

    python3 tools/codegen_corpus.py gen --compiler build/diderotc --out DIR [-j 2]
    python3 tools/codegen_corpus.py diff DIR_A DIR_B

The corpus: every accepted program under tests/ (tests/programs/accept,
tests/programs/run, tests/e2e/programs, ...; nothing under a reject/
folder), examples/, the conformance examples in ../shared/conformance (when
present) and the differential CI sample (the programs gen.py makes for
seeds 1..134, as `make differential SEED=1` does; --diff-count N).

Nothing is compiled to machine code: the C and C++ compilers and nvcc are
`true` (CC, CXX, DIDEROT_NVCC, OBJCOPY), so each run only writes NAME.c, NAME.cu,
NAME.h and NAME.json; --log keeps them. A variant that fails (a program
the CUDA target refuses, say) records its exit status and messages, which
are compared like the files. DIDEROT_RT_DIR must let both compilers find a
runtime (by default the build tree of --compiler).

`diff` prints one line per file that differs or exists on one side only,
then a summary line `codegen: N files compared, N differ, N only on one
side`, and exits 1 when anything differs.
"""
import argparse
import concurrent.futures
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED_CONF = os.path.join(os.path.dirname(TOP), "shared", "conformance", "examples")

# name -> diderotc options (besides -o and --log). The default schedule on
# every target, plus the non-default data layouts and SIMD modes.
VARIANTS = {
    "exec": ["--exec"],
    "lib": ["--json"],
    "omp": ["--exec", "--target=omp"],
    "cuda": ["--exec", "--target=cuda"],
    "double": ["--exec", "--double"],
    "snapshot": ["--exec", "--snapshot"],
    "strands": ["--exec", "--simd=strands", "--strand-layout=aosoa:8"],
    "within": ["--exec", "--simd=within", "--strand-layout=soa", "--image-layout=brick:8"],
    "halo": ["--exec", "--image-layout=halo:4"],
    "scalar": ["--exec", "--scalar", "--no-loop-lanes", "--force-bsp"],
}

GENERATED = (".c", ".cu", ".h", ".json")


def corpus(diff_count, workdir):
    """(id, path, extra options) of every program."""
    progs = []
    for root in ("tests", "examples"):
        for d, dirs, files in os.walk(os.path.join(TOP, root)):
            dirs[:] = sorted(x for x in dirs if x not in ("reject", "__pycache__"))
            for f in sorted(files):
                if f.endswith((".diderot", ".ddro")):
                    p = os.path.join(d, f)
                    progs.append((os.path.relpath(p, TOP), p, args_of(p)))
    if os.path.isdir(SHARED_CONF):
        for d, dirs, files in os.walk(SHARED_CONF):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(".diderot"):
                    p = os.path.join(d, f)
                    progs.append(("conformance/" + os.path.relpath(p, SHARED_CONF), p, []))
    if diff_count:
        sys.path.insert(0, os.path.join(TOP, "tests", "differential"))
        import gen  # noqa: E402 (the differential generator)
        for n in range(1, diff_count + 1):
            d = os.path.join(workdir, "differential", str(n))
            os.makedirs(d, exist_ok=True)
            try:
                gen.generate(n, d)
            except gen.Reject:
                continue
            p = os.path.join(d, "prog.diderot")
            if not os.path.exists(p):
                cands = [f for f in os.listdir(d) if f.endswith(".diderot")]
                if not cands:
                    continue
                p = os.path.join(d, cands[0])
            progs.append(("differential/%d" % n, p, []))
    return progs


def args_of(path):
    """The ARGS: line of a test program (options its tests compile it with)
    that are not about the target or outputs: --C definitions."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            head = f.read(2000)
    except OSError:
        return []
    m = re.search(r"ARGS:([^\n]*)", head)
    if not m:
        return []
    return [a for a in m.group(1).split() if a.startswith("--C")]


PROXY_ERR = re.compile(r"proxy image '([^']+)' cannot be read")


def make_proxy(src, name, where):
    """An image file standing in for a missing proxy image `name`: the
    dimension and voxel shape from its declaration (an image or a field) in src, 8 samples per
    axis of float zeros (code generation reads only the header)."""
    m = re.search(r"(?:image|field\s*#\s*\d+)\s*\(\s*(\d)\s*\)\s*\[([^\]]*)\][^;]*?image\s*\(\s*\"%s\"" % re.escape(name), src)
    if not m:
        return False
    dim = int(m.group(1))
    shape = [int(x) for x in m.group(2).replace(" ", "").split(",") if x]
    sizes = shape + [8] * dim
    kinds = ["%d-vector" % shape[0] if len(shape) == 1 and shape[0] in (2, 3, 4) else "vector"
             ] * len(shape) + ["space"] * dim
    if len(shape) == 2 and shape[0] == shape[1] and shape[0] in (2, 3):
        kinds = ["%dD-matrix" % shape[0], "none"] + ["space"] * dim
        sizes = [shape[0] * shape[1]] + [8] * dim
        kinds = ["%dD-matrix" % shape[0]] + ["space"] * dim
    n = 1
    for x in sizes:
        n *= x
    path = os.path.join(where, name)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        f.write(("NRRD0004\ntype: float\ndimension: %d\nsizes: %s\nkinds: %s\n"
                 "endian: little\nencoding: raw\n\n" % (len(sizes), " ".join(map(str, sizes)),
                                                       " ".join(kinds))).encode())
        f.write(b"\0" * (4 * n))
    return True


def run_one(compiler, env, outdir, pid, path, extra, vname, vopts):
    d = os.path.join(outdir, pid.replace("/", "__"), vname)
    os.makedirs(d, exist_ok=True)
    with open(path, encoding="utf-8", errors="replace") as f:
        src = f.read()
    with tempfile.TemporaryDirectory() as tmp:
        work = os.path.join(tmp, "src")
        os.makedirs(work)
        here = os.path.dirname(path)
        for f in os.listdir(here):  # the program's neighbours (its images)
            if f.endswith((".nrrd", ".nhdr", ".raw", ".txt", ".json")):
                os.symlink(os.path.join(here, f), os.path.join(work, f))
        prog = os.path.join(work, os.path.basename(path))
        shutil.copy(path, prog)
        stem = os.path.join(tmp, "prog")
        cmd = [compiler, "--log", "-o", stem] + vopts + extra + [os.path.basename(path)]
        for _ in range(8):  # make the proxy images it asks for, one at a time
            r = subprocess.run(cmd, env=env, cwd=work, capture_output=True, text=True, timeout=600)
            m = PROXY_ERR.search(r.stderr)
            if r.returncode == 0 or not m or not make_proxy(src, m.group(1), work):
                break
        for f in sorted(os.listdir(tmp)):
            if f.endswith(GENERATED):
                shutil.copy(os.path.join(tmp, f), os.path.join(d, f))
    msgs = (r.stdout + r.stderr).replace(tmp, "TMP")
    if r.returncode != 0:
        with open(os.path.join(d, "status.txt"), "w") as f:
            f.write("exit %d\n%s" % (r.returncode, msgs))
    return r.returncode


def gen_cmd(a):
    compiler = os.path.abspath(a.compiler)
    env = dict(os.environ, CC="true", CXX="true", DIDEROT_NVCC="true", OBJCOPY="true")
    env.setdefault("DIDEROT_RT_DIR", os.path.dirname(compiler))
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    os.makedirs(a.out)
    work = tempfile.mkdtemp(prefix="codegen-corpus-")
    try:
        progs = corpus(a.diff_count, work)
        variants = {k: v for k, v in VARIANTS.items() if not a.variant or k in a.variant}
        jobs = [(pid, p, x, vn, vo) for pid, p, x in progs for vn, vo in variants.items()]
        failed = 0
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            for rc in pool.map(lambda j: run_one(compiler, env, a.out, *j), jobs):
                failed += rc != 0
        print("codegen: %d programs, %d variants, %d runs (%d refused or failed)"
              % (len(progs), len(variants), len(jobs), failed))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def tree(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            out[os.path.relpath(p, root)] = p
    return out


def digest(p):
    with open(p, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def diff_cmd(a):
    ta, tb = tree(a.a), tree(a.b)
    differ = only = 0
    for k in sorted(set(ta) | set(tb)):
        if k not in ta or k not in tb:
            only += 1
            print("only in %s: %s" % (a.a if k in ta else a.b, k))
        elif digest(ta[k]) != digest(tb[k]):
            differ += 1
            print("differs: %s" % k)
    n = len(set(ta) & set(tb))
    print("codegen: %d files compared, %d differ, %d only on one side" % (n, differ, only))
    return 1 if differ or only else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--compiler", required=True)
    g.add_argument("--out", required=True)
    g.add_argument("-j", "--jobs", type=int, default=2)
    g.add_argument("--diff-count", type=int, default=134)
    g.add_argument("--variant", action="append", help="only these variants (repeatable)")
    d = sub.add_parser("diff")
    d.add_argument("a")
    d.add_argument("b")
    a = ap.parse_args()
    return gen_cmd(a) if a.cmd == "gen" else diff_cmd(a)


if __name__ == "__main__":
    sys.exit(main())
