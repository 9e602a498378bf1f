"""`make install` as a user meets it (issue 14 §3; tests/run.py: install/NAME).

install/make-install, in the build tree under test (skipped when it has no
Makefile):
  1. `make install DESTDIR=STAGE`, STAGE inside the build tree (an installed
     compiler there must still use its installed runtime, not the build
     tree's); every file a user needs is there: diderotc, diderot-regress,
     libdiderot-rt.a, the runtime headers and rt/cuda's headers, both man
     pages, diderot.pc and diderot-omp.pc;
  2. the installed diderotc, without DIDEROT_RT_DIR, builds and runs an
     executable, and its --verbose commands name the installed runtime
     (-I and -L under STAGE), never the source or build tree's; with
     --target=cuda --cuda-emulate (when c++ is there) the installed CUDA
     headers build one that writes the same bytes;
  3. a C client of a library built by it (sequential and OpenMP), compiled
     with `cc client.c lib.o $(pkg-config --cflags --libs diderot[-omp])`
     (PKG_CONFIG_SYSROOT_DIR=STAGE, as for any staged install), prints
     sum_i i(i+1)/2 over i < 10 = 165;
  4. the Python package (python/diderot) is installed with a _config.py
     that names the installed diderotc; with a Python that has numpy and
     cffi (this one, else /usr/bin/python3), `diderot.compile(...).run()`
     from the install (PYTHONPATH) uses that diderotc and returns the sum;
     the ParaView plugin is in LIBDIR/diderot/paraview, naming that package;
  5. the installed tree moved elsewhere as a whole (as an install with
     another --prefix): its diderotc uses the moved runtime, and its Python
     package the moved diderotc;
  6. `make uninstall DESTDIR=STAGE` leaves no file under STAGE.

collect() returns (name, fn) pairs; fn() returns (status, details).
"""

import os
import re
import shutil
import subprocess
import sys

TIMEOUT = 600

PROG = """#version 2.0
input int n = 10;
strand S (int i) {
  output real out = 0.0;
  int k = 0;
  update {
    out += real(k);
    k += 1;
    if (k > i) stabilize;
  }
}
create_collection { S(i) | i in 0..n-1 };
"""

CLIENT = r"""#include <stdio.h>
#include <diderot_rt.h> /* found through pkg-config's Cflags */
#include "lib.h"
int main(void) {
  Diderot_world_t *w = Diderot_new_world();
  if (!w || Diderot_init_world(w) || Diderot_create_strands(w)) return 10;
  Diderot_run(w, 0);
  Nrrd *nd = nrrdNew();
  if (Diderot_output_get_out(w, nd)) return 11;
  const float *v = nd->data;
  double sum = 0;
  for (size_t i = 0; i < nd->axis[0].size; i++) sum += v[i];
  printf("strands %u sum %g\n", (unsigned)nd->axis[0].size, sum);
  nrrdNuke(nd);
  Diderot_shutdown(w);
  return 0;
}
"""


PY = """import sys, diderot
print("diderotc", diderot.find_diderotc())
if sys.argv[1:] == ["run"]:
    out = diderot.compile("prog.diderot").run(n=10)
    print("strands %d sum %g" % (out.out.shape[0], float(out.out.sum())))
"""


def _python_with_numpy():
    """A Python 3 that can import numpy and cffi (the package needs them)."""
    for py in (sys.executable, "/usr/bin/python3", shutil.which("python3")):
        if py and os.path.exists(py) and subprocess.run(
                [py, "-c", "import numpy, cffi"], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL).returncode == 0:
            return py
    return None


def _run(argv, cwd, env=None):
    p = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def _find(root, name):
    for d, _, files in os.walk(root):
        if name in files:
            return os.path.join(d, name)
    return None


def _files(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, files in os.walk(root) for f in files)


def _tail(text, n=15):
    return ["  | " + l for l in text.rstrip().splitlines()[-n:]]


def _make_install(srcdir, builddir):
    if not os.path.exists(os.path.join(builddir, "Makefile")):
        return "skip", ["the build tree has no Makefile"]
    if not shutil.which("pkg-config"):
        return "skip", ["needs pkg-config (Debian package: pkgconf)"]
    # not BUILD/tests/install: in an in-tree build that is this file's directory
    top = os.path.join(builddir, "tests", "install-work")
    stage = os.path.join(top, "stage")
    shutil.rmtree(top, ignore_errors=True)
    os.makedirs(stage)
    env = dict(os.environ)
    env.pop("DIDEROT_RT_DIR", None)
    env.pop("DESTDIR", None)
    try:
        return _check(srcdir, builddir, top, stage, env)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _check(srcdir, builddir, top, stage, env):
    # 1. the install
    rc, out, err = _run(["flock", os.path.join(builddir, ".make-lock"), "make", "-s", "install", "DESTDIR=" + stage],
               builddir, env)
    if rc != 0:
        return "fail", ["make install DESTDIR=... exit status %d" % rc] + _tail(out + err)
    want = ["diderotc", "diderot-regress", "libdiderot-rt.a", "diderot_rt.h", "diderot_world.h",
            "diderot_spatial.h", "diderot_tensor.h", "diderot_sphere.h", "diderotc.1",
            "diderot-api.3", "diderot.pc", "diderot-omp.pc"]
    found = {w: _find(stage, w) for w in want}
    problems = ["not installed: %s" % w for w in want if not found[w]]
    if problems:
        return "fail", problems + ["installed: %s" % " ".join(_files(stage))]
    inc = os.path.dirname(found["diderot_world.h"])
    for h in sorted(os.listdir(os.path.join(srcdir, "rt", "cuda"))):
        if h.endswith(".h") and not os.path.exists(os.path.join(inc, "cuda", h)):
            problems.append("rt/cuda/%s is not installed under include/diderot/cuda" % h)
    bindir = os.path.dirname(found["diderotc"])
    libdir = os.path.dirname(found["libdiderot-rt.a"])
    prefix = os.path.dirname(bindir)
    installed = os.path.join(bindir, "diderotc")
    work = os.path.join(top, "work")
    os.makedirs(work)
    with open(os.path.join(work, "prog.diderot"), "w") as f:
        f.write(PROG)
    with open(os.path.join(work, "client.c"), "w") as f:
        f.write(CLIENT)

    # 2. an executable, with the installed runtime
    def build_exec(compiler, lib_expected, inc_expected, tag):
        rc, out, err = _run([compiler, "--verbose", "--exec", "prog.diderot", "-o", "prog"],
                            work, env)
        if rc != 0:
            return ["%s: diderotc --exec exit status %d" % (tag, rc)] + _tail(err)
        bad = []
        if "-L" + lib_expected not in err and lib_expected + "/libdiderot-rt.a" not in err:
            bad.append("%s: the commands do not use the runtime in %s" % (tag, lib_expected))
        if "-I" + inc_expected not in err:
            bad.append("%s: the commands do not use the headers in %s" % (tag, inc_expected))
        for other in ("-I" + os.path.join(srcdir, "rt") + " ", "-L" + builddir + " "):
            if other in err:
                bad.append("%s: the commands use the build's runtime (%s)" % (tag, other.strip()))
        rc, out2, err2 = _run([os.path.join(work, "prog"), "-n", "4", "-o", "out.nrrd"], work, env)
        if rc != 0 or not os.path.exists(os.path.join(work, "out.nrrd")):
            bad.append("%s: the program exit status %d" % (tag, rc))
        return bad + (_tail(err) if bad else [])

    problems += build_exec(installed, libdir, inc, "staged")
    # the CUDA target's headers (include/diderot/cuda), in host emulation
    if shutil.which(env.get("CXX") or "c++"):
        rc, out, err = _run([installed, "--target=cuda", "--cuda-emulate", "--exec",
                             "prog.diderot", "-o", "progcu"], work, env)
        if rc != 0:
            problems += ["cuda: diderotc --target=cuda --cuda-emulate exit status %d" % rc] \
                + _tail(err)
        else:
            rc, out, err = _run([os.path.join(work, "progcu"), "-n", "4", "-o", "outcu.nrrd"],
                                work, env)
            try:
                with open(os.path.join(work, "out.nrrd"), "rb") as a, \
                        open(os.path.join(work, "outcu.nrrd"), "rb") as b:
                    same = a.read() == b.read()
            except OSError:
                same = False
            if rc != 0 or not same:
                problems.append("cuda: the emulated program (exit status %d) does not "
                                "write the C program's bytes" % rc)

    # 3. C clients through pkg-config
    pcenv = dict(env, PKG_CONFIG_PATH=os.path.dirname(found["diderot.pc"]),
                 PKG_CONFIG_SYSROOT_DIR=stage)
    for pc, flags in (("diderot", []), ("diderot-omp", ["--target=omp"])):
        d = os.path.join(work, pc)
        os.makedirs(d)
        shutil.copy(os.path.join(work, "prog.diderot"), d)
        shutil.copy(os.path.join(work, "client.c"), d)
        rc, out, err = _run([installed] + flags + ["prog.diderot", "-o", "lib"], d, env)
        if rc != 0:
            problems += ["%s: diderotc (library) exit status %d" % (pc, rc)] + _tail(err)
            continue
        cmd = ("cc -std=c11 -Wall -Wextra -Werror client.c lib.o "
               "$(pkg-config --cflags --libs %s) -o client && ./client" % pc)
        rc, out, err = _run(["sh", "-c", cmd], d, pcenv)
        if rc != 0 or "strands 10 sum 165\n" not in out:
            flags_ = _run(["pkg-config", "--cflags", "--libs", pc], d, pcenv)
            problems += ["%s: the client (exit status %d) does not print 'strands 10 sum 165'"
                         % (pc, rc), "  pkg-config: %s" % flags_[1].strip()] + _tail(out + err)

    # 4. the Python package
    notes = []
    cfg = _find(stage, "_config.py")
    pydir = os.path.dirname(os.path.dirname(cfg)) if cfg else None
    if not cfg or os.path.basename(os.path.dirname(cfg)) != "diderot":
        problems.append("the Python package (diderot/_config.py) is not installed")
    else:
        src = os.path.join(srcdir, "python", "diderot")
        for f in sorted(os.listdir(src)):
            if f.endswith(".py") and not os.path.exists(os.path.join(pydir, "diderot", f)):
                problems.append("python/diderot/%s is not installed" % f)
        # the ParaView plugin (run from an install by test python/paraview)
        plug = _find(stage, "DiderotPlugin.py")
        if not plug or not plug.endswith(os.path.join("lib", "diderot", "paraview", "DiderotPlugin.py")):
            problems.append("the ParaView plugin is not installed in LIBDIR/diderot/paraview")
        else:
            with open(os.path.join(os.path.dirname(plug), "DiderotPluginConfig.txt")) as f:
                rel = [l.strip() for l in f if l.strip() and not l.startswith("#")]
            if not rel or os.path.realpath(os.path.join(os.path.dirname(plug), rel[0])) != os.path.realpath(pydir):
                problems.append("DiderotPluginConfig.txt does not name the package's folder %s" % pydir)
            if not os.path.exists(os.path.join(os.path.dirname(plug), "programs", "mip", "mip.diderot")):
                problems.append("the plugin's programs/mip/mip.diderot is not installed")
            if not os.path.exists(os.path.join(pydir, "diderot-paraview-compat.pth")):
                problems.append("diderot-paraview-compat.pth is not installed beside the package")
    py = _python_with_numpy()
    with open(os.path.join(work, "use.py"), "w") as f:
        f.write(PY)

    def python_check(where, tag, run):
        if not py or not pydir:
            return []
        penv = dict(env, PYTHONPATH=where, DIDEROT_CACHE_DIR=os.path.join(work, "cache"))
        penv.pop("DIDEROTC", None)
        rc, out, err = _run([py, "use.py"] + (["run"] if run else []), work, penv)
        bad = []
        got = re.search(r"^diderotc (.*)$", out, re.M)
        if rc != 0 or not got:
            return ["%s: the installed Python package failed (exit status %d)" % (tag, rc)] \
                + _tail(out + err)
        if not os.path.samefile(got.group(1), expect_diderotc[tag]):
            bad.append("%s: the Python package uses %s, not the installed diderotc %s"
                       % (tag, got.group(1), expect_diderotc[tag]))
        if run and "strands 10 sum 165\n" not in out:
            bad.append("%s: diderot.compile(...).run() did not give the sum 165" % tag)
        return bad + (_tail(out + err) if bad else [])

    expect_diderotc = {"staged": installed}
    if not py:
        notes.append("no Python with numpy and cffi: the package was not run")
    problems += python_check(pydir, "staged", True) if pydir else []

    # 5. the installed tree moved as a whole
    moved = os.path.join(top, "moved", "elsewhere")
    os.makedirs(os.path.dirname(moved))
    os.rename(prefix, moved)
    try:
        problems += build_exec(os.path.join(moved, "bin", "diderotc"),
                               os.path.join(moved, os.path.relpath(libdir, prefix)),
                               os.path.join(moved, os.path.relpath(inc, prefix)), "moved")
        if pydir and pydir.startswith(prefix + os.sep):
            expect_diderotc["moved"] = os.path.join(moved, "bin", "diderotc")
            problems += python_check(os.path.join(moved, os.path.relpath(pydir, prefix)),
                                     "moved", False)
    finally:
        os.rename(moved, prefix)

    # 6. uninstall
    rc, out, err = _run(["flock", os.path.join(builddir, ".make-lock"), "make", "-s", "uninstall", "DESTDIR=" + stage],
               builddir, env)
    if rc != 0:
        problems += ["make uninstall exit status %d" % rc] + _tail(out + err)
    left = _files(stage)
    if left:
        problems.append("make uninstall left %d files: %s" % (len(left), " ".join(left[:20])))
    return ("fail", problems) if problems else ("pass", notes)


def collect(srcdir, builddir, diderotc):
    del diderotc  # the test installs the build tree's own
    return [("install/make-install", lambda: _make_install(srcdir, builddir))]


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--srcdir", required=True)
    ap.add_argument("--builddir", required=True)
    a = ap.parse_args()
    status, details = _make_install(os.path.abspath(a.srcdir), os.path.abspath(a.builddir))
    print(status, *details, sep="\n")
    sys.exit(status == "fail")
