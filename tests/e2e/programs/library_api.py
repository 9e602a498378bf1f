"""library_api: the generated library (doc/language.md §14) driven by a C
program, and the toolchain around it (doc/diderotc.1).

  * `diderotc --namespace=Lib --json` writes lib.h, lib.o (the runtime
    merged in) and lib.json, and no lib.c; library_api_client.c is compiled
    against lib.h with -Wall -Wextra -Werror, linked with lib.o, and run: it
    checks the stage order, errors (a missing image file, a 2-D Nrrd for a
    real[] input, an input without default left unset), descriptions and
    defaults, sets an image by file name and a sequence from a Nrrd, runs
    2 steps and then to the end, and saves the outputs, which are checked
    here against the oracle; the same with `--shared` (libso.so, linked by
    the dynamic linker);
  * lib.json lists the inputs (names, defaults), outputs and namespace;
  * `--exec --log` writes NAME.log (passes, the C compiler command and its
    exit status) and keeps NAME.c, whose comments give source lines;
    CFLAGS_DIDEROT replaces the optimisation flags;
  * a C compiler that fails (CC=false) is an internal error, exit status
    70, naming the kept generated file.

Oracle: the image holds 2i + j at index (i, j) with identity orientation,
so the tent-reconstructed field is exactly 2x + y: F((1.5, 0.5)) = 3.5.
Strand i (i < 5) stabilizes in step i + 1 with v = 3.5 * xs[i % 4] + i and
ws = xs[0 .. i % 4]. The collection is compared as a multiset of strands."""

import json
import os
import re
import shutil

import e2elib
import nrrd

VARIANTS = ["float", "double+long"]
XS2 = [0.5, 1.0, 2.0, 4.0]
N = 5


def oracle():
    strands = []
    for i in range(N):
        v = 3.5 * XS2[i % 4] + i
        strands.append((v, XS2[:i % 4 + 1]))
    return sorted(strands)


def image(f):
    """2-D float image: value f(i, j) at index (i, j), 4 x 3, index = world."""
    return nrrd.Nrrd("float", [4, 3], [float(f(i, j)) for j in range(3) for i in range(4)],
                     kinds=["space", "space"], space_dim=2,
                     space_directions=[(1, 0), (0, 1)], space_origin=(0, 0))


def run_tool(t, argv, env=None, what=None):
    """Run a build tool in the work directory; (rc, out, err) or Abort."""
    e = dict(os.environ, DIDEROT_RT_DIR=t.builddir)
    e.update(t.env)   # (run_e2e.py's modes: CFLAGS_DIDEROT)
    e.update(env or {})
    r = e2elib.run_killable(argv, t.dir, e2elib.COMPILE_TIMEOUT, e)
    if isinstance(r, str):
        raise e2elib.Abort(r)
    rc, out, err = r
    if rc < 0:
        raise e2elib.Abort("%s crashed with signal %d" % (what or argv[0], -rc))
    if e2elib.SANITIZER_RE.search(err):
        t.failures += ["sanitizer report from %s" % (what or argv[0])] + e2elib.excerpt(err)
    return rc, out, err


def build(t, argv, what):
    rc, out, err = run_tool(t, argv, what=what)
    if rc != 0:
        for line in err.splitlines():
            if e2elib.NOT_YET_RE.search(line):
                raise e2elib.Skip(line.strip())
        t.failures += ["%s failed (exit %d): %s" % (what, rc, " ".join(argv))] + e2elib.excerpt(err)
        raise e2elib.Abort(None)


def check_outputs(t, tag):
    """The client's saved outputs against the oracle (a multiset of strands)."""
    exp = oracle()
    v = t.layout("v.nrrd", t.real, [N], ["list"])
    lens = t.layout("ws-len.nrrd", "int", [2, N], ["2-vector", "list"])
    total = sum(len(w) for _, w in exp)
    data = t.layout("ws-data.nrrd", t.real, [total], ["list"])
    got = []
    for k in range(N):
        off, n = lens.data[2 * k], lens.data[2 * k + 1]
        got.append((v.data[k], list(data.data[off:off + n])))
    got.sort(key=lambda s: s[0])
    t.close(tag + " v", [g[0] for g in got], [e[0] for e in exp])
    t.equal(tag + " ws lengths", [len(g[1]) for g in got], [len(e[1]) for e in exp])
    t.close(tag + " ws", [x for g in got for x in g[1]], [x for e in exp for x in e[1]])


def run_client(t, exe, tag):
    for f in ("v.nrrd", "ws-len.nrrd", "ws-data.nrrd"):
        if os.path.exists(t.path(f)):
            os.remove(t.path(f))
    p = t.exec(["img2.nrrd", "xs2.nrrd"], expect_rc=None, exe=exe)
    for line in p.out.splitlines():
        if line.startswith("FAIL"):
            t.fail("%s client: %s" % (tag, line))
    if p.rc != 0:
        t.fail("%s client: exit status %d" % (tag, p.rc))
        raise e2elib.Abort(None)
    check_outputs(t, tag)


def run(t):
    t.write_nrrd("img.nrrd", image(lambda i, j: i + 10 * j))   # the proxy
    t.write_nrrd("img2.nrrd", image(lambda i, j: 2 * i + j))
    t.write_nrrd("xs.nrrd", nrrd.Nrrd("float", [3], [1.0, 2.0, 3.0]))
    t.write_nrrd("xs2.nrrd", nrrd.Nrrd("double", [4], XS2))
    src = os.path.basename(t.program)
    shutil.copyfile(t.program, t.path(src))
    shutil.copyfile(os.path.join(os.path.dirname(t.program), "library_api_client.c"),
                    t.path("client.c"))
    if t.fake:   # the harness check: no compiler, zero outputs must fail
        for f, n in (("v.nrrd", nrrd.Nrrd(t.real, [N], [0.0] * N)),
                     ("ws-len.nrrd", nrrd.Nrrd("int", [2, N], [0] * 2 * N)),
                     ("ws-data.nrrd", nrrd.Nrrd(t.real, [1], [0.0]))):
            t.write_nrrd(f, n)
        check_outputs(t, "fake")
        return
    dc = t.diderotc
    cc = os.environ.get("CC") or "cc"
    cflags = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-DREAL=" + t.real,
              "-I" + t.dir]
    # (scripts/check-asan.sh: the runtime has the sanitizers, so the client too)
    cflags += os.environ.get("CFLAGS_DIDEROT_EXTRA", "").split()
    libs = ["-lteem", "-lm"]

    # 1. the default library: lib.h + lib.o (+ lib.json)
    build(t, [dc, "--namespace=Lib", "--json"] + t.flags() + ["-o", "lib", src], "diderotc")
    for f in ("lib.h", "lib.o", "lib.json"):
        if not os.path.exists(t.path(f)):
            t.fail("the library build wrote no %s (files: %s)" % (f, ", ".join(t.files())))
    if os.path.exists(t.path("lib.c")):
        t.fail("the library build left lib.c behind (only --debug and --log keep it)")
    build(t, cc.split() + cflags + ['-DLIBH="lib.h"', "client.c", "lib.o"] + libs
          + ["-o", "client"], "compiling the client with lib.o")
    run_client(t, t.path("client"), "lib.o")
    first = {f: open(t.path(f), "rb").read() for f in ("v.nrrd", "ws-len.nrrd", "ws-data.nrrd")}

    # 2. lib.json
    try:
        with open(t.path("lib.json")) as fh:
            js = json.load(fh)
        ins = [(i.get("name"), i.get("has-default")) for i in js.get("inputs", [])]
        if ins != [("img", True), ("xs", True), ("n", False), ("pos", True)]:
            t.fail("lib.json inputs %s" % ins)
        if [o.get("name") for o in js.get("outputs", [])] != ["v", "ws"]:
            t.fail("lib.json outputs %s" % js.get("outputs"))
        if js.get("namespace") != "Lib" or js.get("real-type") != t.real:
            t.fail("lib.json namespace %r, real-type %r" % (js.get("namespace"), js.get("real-type")))
        if not any("Lib_run(" in f for f in js.get("runtime", [])):
            t.fail("lib.json runtime functions lack Lib_run")
    except (OSError, ValueError) as e:
        t.fail("lib.json: %s" % e)

    # 3. the shared library
    build(t, [dc, "--namespace=Lib", "--shared"] + t.flags() + ["-o", "libso.so", src],
          "diderotc --shared")
    build(t, cc.split() + cflags + ['-DLIBH="libso.h"', "client.c", "-L" + t.dir, "-l:libso.so",
                                    "-Wl,-rpath," + t.dir] + libs + ["-o", "client_so"],
          "compiling the client with libso.so")
    run_client(t, t.path("client_so"), "libso.so")
    for f, b in first.items():
        if open(t.path(f), "rb").read() != b:
            t.fail("%s differs between the .o and the .so builds" % f)

    # 4. --log, kept NAME.c with source-line comments, CFLAGS_DIDEROT
    rc, _, err = run_tool(t, [dc, "--exec", "--log"] + t.flags() + ["-o", "prog", src],
                          env={"CFLAGS_DIDEROT": "-O1"}, what="diderotc --exec --log")
    if rc != 0:
        t.failures += ["diderotc --exec --log: exit status %d" % rc] + e2elib.excerpt(err)
        raise e2elib.Abort(None)
    try:
        log = open(t.path("prog.log")).read()
        for want in ("stats: size low.dce", "exit status 0\n"):
            if want not in log:
                t.fail("prog.log has no %r" % want)
        ccl = [l for l in log.splitlines() if l.startswith("cc: ") and " prog.c" in l]
        if not ccl or " -O1" not in ccl[0] or "-march=native" in ccl[0]:
            t.fail("prog.log: the C compiler command %r does not use CFLAGS_DIDEROT=-O1" % ccl[:1])
    except OSError as e:
        t.fail("--log: %s" % e)
    try:
        gen = open(t.path("prog.c")).read()
        lines = open(t.path(src)).read().splitlines()
        k = next(i for i, l in enumerate(lines) if "v = F(pos)" in l) + 1
        if not re.search(r"/\* line %d: v = F\(pos\)" % k, gen):
            t.fail("prog.c has no comment mapping to source line %d (%r)" % (k, lines[k - 1].strip()))
    except (OSError, StopIteration) as e:
        t.fail("--log keeps prog.c: %s" % e)

    # 5. a C compiler that fails: an internal error, the generated file kept
    rc, _, err = run_tool(t, [dc, "--exec"] + t.flags() + ["-o", "broken", src],
                          env={"CC": "false"}, what="diderotc with CC=false")
    if rc != 70 or "internal error" not in err or "broken.c" not in err:
        t.fail("CC=false: exit status %d, expected 70 with an internal error naming broken.c: %r"
               % (rc, err.strip()[:300]))
    if not os.path.exists(t.path("broken.c")):
        t.fail("CC=false: the generated broken.c was not kept")
    if "--target=cuda" in t.flags() and not os.path.exists(t.path("broken.cu")):
        t.fail("CC=false: the generated device half broken.cu was not kept")

    # the compiler's products differ between targets (the harness compares
    # what the runs wrote: the .nrrd files)
    for f in ("broken.cu", "client", "client_so", "lib.o", "libso.so", "lib.json", "lib.h",
              "libso.h"):
        if os.path.exists(t.path(f)):
            os.remove(t.path(f))
