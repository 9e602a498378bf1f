"""e2elib.py -- what the end-to-end test companions (tests/e2e/programs/NAME.py)
use: a test context that compiles the program with `diderotc --exec`, runs
the executable, reads its NRRD outputs and compares them with oracle values.

A companion module defines

    VARIANTS = ["float", "double"]   # optional, default ["float"]; a name is a
                                     # '+'-joined list of: float, double
                                     # (--double), long (--long-int)
    REQUIRES = ["teem-gprobe"]       # optional: executables it needs
    def run(t): ...                  # generate inputs, t.compile(), t.exec(),
                                     # read outputs, compare

The test fails if run() records a failure (t.fail / t.close / t.equal / ...)
or raises; it is skipped when t.compile() finds "not yet supported", or on
raise Skip(reason).
"""

import math
import os
import re
import shutil
import signal
import subprocess
import sys
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "oracle"))
import nrrd  # noqa: E402
from polyfield import qdec  # noqa: E402

SANITIZER_RE = re.compile(r"ERROR: (Address|Leak|Memory|Thread)Sanitizer|runtime error: ")
# valgrind -q prints nothing but errors and leaks, each line as ==PID== ...
VALGRIND_RE = re.compile(r"^==\d+== \S", re.M)
COMPILE_TIMEOUT = 300
# the architectures of the cuda mode's nvcc builds (sm_90 and an older one)
NVCC_ARCHS = "sm_80,sm_90"
RUN_TIMEOUT = 120
RTOL = {"float": 1e-5, "double": 1e-12}
MAX_REPORTED = 6      # mismatches reported per comparison


# The compiler's answer for a feature that is not built yet: the test is
# skipped with that line as the reason.
NOT_YET_RE = re.compile(r"not yet supported|not supported\b.*\byet\b")


def arg_text(a):
    """Command-line text of a value: Fractions as exact decimals."""
    if isinstance(a, Fraction):
        try:
            return qdec(a)
        except ValueError:
            return repr(float(a))
    return str(a)


class Skip(Exception):
    pass


class Abort(Exception):
    """Stop this test now; the message is one more failure."""


def run_killable(argv, cwd, timeout, env=None, stdin=None):
    """(returncode, stdout, stderr) as text, or a string saying why not.
    On timeout the whole process group is killed."""
    try:
        p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL if stdin is None else stdin,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                             start_new_session=True)
    except OSError as e:
        return "cannot run %s: %s" % (argv[0], e)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.communicate()
        return "timed out after %d s: %s" % (timeout, " ".join(argv))
    return (p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))


def excerpt(text, n=12, label="stderr"):
    lines = text.rstrip().splitlines()
    if not lines:
        return []
    out = [label + ":"] + ["  | " + l for l in lines[:n]]
    if len(lines) > n:
        out.append("  | ... (%d more lines)" % (len(lines) - n))
    return out


def flat(x):
    """Nested lists/tuples to a flat list (row-major)."""
    if isinstance(x, (list, tuple)):
        return [y for u in x for y in flat(u)]
    return [x]


class Proc:
    def __init__(self, argv, rc, out, err):
        self.argv, self.rc, self.out, self.err = argv, rc, out, err


class T:
    """The context of one test (one program in one variant)."""

    def __init__(self, name, program, workdir, variant, srcdir, builddir, diderotc,
                 perturb=False, fake=False, layout_flags=(), env=None, run_args=(), wrap=()):
        self.name = name
        self.program = program            # path of the .diderot source
        self.dir = workdir
        self.variant = variant
        parts = variant.split("+")
        self.double = "double" in parts
        self.long_int = "long" in parts
        self.real = "double" if self.double else "float"
        self.rtol = RTOL[self.real]
        self.srcdir = srcdir
        self.builddir = builddir
        self.diderotc = diderotc
        self.perturb = perturb
        self.fake = fake      # harness check: no compiler; outputs are zeros
        # --strand-layout / --image-layout of run_e2e.py's layout mode
        self.layout_flags = list(layout_flags)
        # extra environment of diderotc (run_e2e.py's cuda mode: CFLAGS_DIDEROT)
        self.env = dict(env or {})
        # run_e2e.py's omp mode: more arguments of the program's executable
        # (-n K); its valgrind mode: a command that runs every executable
        self.run_args = list(run_args)
        self.wrap = list(wrap)
        self.failures = []
        self.exe = None

    # ---- files -------------------------------------------------------------

    def path(self, f):
        return os.path.join(self.dir, f)

    def data(self, f):
        """A file of the source tree's tests/data or examples/data."""
        for d in ("tests/data", "examples/data"):
            p = os.path.join(self.srcdir, d, f)
            if os.path.exists(p):
                return p
        raise Abort("no data file %s" % f)

    def write_nrrd(self, f, n, encoding="raw"):
        nrrd.write(self.path(f), n, encoding)

    def write_text(self, f, text):
        with open(self.path(f), "w") as fh:
            fh.write(text)

    def files(self):
        return sorted(os.listdir(self.dir))

    # ---- compiling and running ----------------------------------------------

    def flags(self):
        f = []
        if self.double:
            f.append("--double")
        if self.long_int:
            f.append("--long-int")
        return f + self.layout_flags

    def compile(self, extra=(), source=None, stem="prog"):
        """Compile SOURCE (default: this test's program, copied into the work
        directory so that proxy paths are relative to it) with
        `diderotc --exec`; returns the executable's path. Skips the test when
        the compiler answers "not yet supported"."""
        src = source or self.program
        if self.fake:
            self.exe = self.path(stem)
            return self.exe
        local = os.path.join(self.dir, os.path.basename(src))
        if os.path.abspath(src) != os.path.abspath(local):
            shutil.copyfile(src, local)
        argv = [self.diderotc, "--exec"] + self.flags() + list(extra) + \
            ["-o", stem, os.path.basename(local)]
        env = dict(os.environ, DIDEROT_RT_DIR=self.builddir)
        env.update(self.env)
        r = run_killable(argv, self.dir, COMPILE_TIMEOUT, env)
        if isinstance(r, str):
            raise Abort(r)
        rc, out, err = r
        if rc != 0:
            for line in (err + out).splitlines():
                if NOT_YET_RE.search(line):
                    raise Skip(line.strip())
            if rc < 0:
                raise Abort("diderotc crashed with signal %d" % -rc)
            self.failures += ["compilation failed (exit %d): %s" % (rc, " ".join(argv))] \
                + excerpt(err or out)
            raise Abort(None)
        if SANITIZER_RE.search(err):
            self.failures += ["sanitizer report from diderotc"] + excerpt(err)
        exe = self.path(stem)
        if not os.access(exe, os.X_OK):
            raise Abort("diderotc exited 0 but wrote no executable %s" % exe)
        self.exe = exe
        if "--cuda-emulate" in argv:
            self.nvcc_build(argv, env, stem)
        return exe

    def nvcc_build(self, argv, env, stem):
        """The cuda mode's emulated build also builds with nvcc (no
        emulation) for NVCC_ARCHS, in the same directory (proxy images are
        there): every e2e program the CUDA target supports must compile for
        sm_90 and an older architecture. Not run (that needs a GPU: tests/
        run.py cuda/gpu). Left out where no nvcc is installed."""
        nvcc = os.environ.get("DIDEROT_NVCC") or shutil.which("nvcc") or \
            ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else None)
        if not nvcc:
            return
        nv = [a for a in argv if a != "--cuda-emulate"]
        nv[nv.index("-o") + 1] = stem + "-nvcc"
        r = run_killable(nv, self.dir, COMPILE_TIMEOUT,
                         dict(env, DIDEROT_NVCC=nvcc, DIDEROT_CUDA_ARCH=NVCC_ARCHS))
        if isinstance(r, str):
            self.failures.append("nvcc build: %s" % r)
        elif r[0] != 0:
            self.failures += ["nvcc build for %s failed (exit %d): %s" % (NVCC_ARCHS, r[0], " ".join(nv))] \
                + excerpt(r[2] or r[1])

    def exec(self, args=(), expect_rc=0, exe=None, timeout=RUN_TIMEOUT):
        """Run the executable in the work directory. expect_rc: an exit status,
        'nonzero', or None (anything that is not a crash)."""
        argv = [exe or self.exe or self.path("prog")] + [arg_text(a) for a in args]
        if exe is None:
            argv += self.run_args   # (the program's own executable only)
        if self.fake:
            return Proc(argv, 0 if expect_rc in (0, None) else 1, "", "")
        r = run_killable(self.wrap + argv, self.dir, timeout * (10 if self.wrap else 1))
        if isinstance(r, str):
            raise Abort(r)
        rc, out, err = r
        shown = " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(argv))
        if rc < 0:
            try:
                sig = signal.Signals(-rc).name
            except ValueError:
                sig = "signal %d" % -rc
            self.failures += ["%s: crashed with %s" % (shown, sig)] + excerpt(err)
            raise Abort(None)
        if SANITIZER_RE.search(err):
            self.failures += ["%s: sanitizer report" % shown] + excerpt(err)
        if self.wrap and VALGRIND_RE.search(err):
            self.failures += ["%s: valgrind report" % shown] + excerpt(err, 30)
        if expect_rc == "nonzero":
            if rc == 0:
                self.fail("%s: exit status 0, expected failure" % shown)
        elif expect_rc is not None and rc != expect_rc:
            self.failures += ["%s: exit status %d, expected %d" % (shown, rc, expect_rc)] \
                + excerpt(err) + excerpt(out, label="stdout")
            raise Abort(None)
        return Proc(argv, rc, out, err)

    # ---- outputs -------------------------------------------------------------

    def read(self, f):
        p = self.path(f)
        if not os.path.exists(p):
            raise Abort("output %s was not written (files: %s)" % (f, ", ".join(self.files())))
        try:
            return nrrd.read(p)
        except (nrrd.NrrdError, ValueError, OSError) as e:
            raise Abort("cannot read output %s: %s" % (f, e))

    def unu_head(self, f):
        """Header fields as printed by `teem-unu head` (lower-case keys), or
        None when teem-unu is not installed."""
        unu = shutil.which("teem-unu") or shutil.which("unu")
        if unu is None:
            return None
        r = run_killable([unu, "head", self.path(f)], self.dir, 30)
        if isinstance(r, str) or r[0] != 0:
            why = r if isinstance(r, str) else r[2].strip()
            self.fail("teem-unu head %s failed: %s" % (f, why))
            return {}
        fields = {}
        for line in r[1].splitlines():
            if ": " in line and not line.startswith("#") and ":=" not in line:
                k, v = line.split(": ", 1)
                fields[k.strip().lower()] = v.strip()
        return fields

    def layout(self, f, type, sizes, kinds):
        """Read output F and check its sample type, sizes and kinds (kinds:
        None entries are not checked; the whole list None: no kinds check),
        both with nrrd.py and with `teem-unu head`. Returns the Nrrd."""
        canon = nrrd.TYPE_NAMES[type]
        sizes = list(sizes)
        if self.fake:
            return nrrd.Nrrd(canon, sizes, [0] * math.prod(sizes), kinds=kinds)
        n = self.read(f)
        if self.perturb:
            sizes[-1] += 1
        if n.type != canon:
            self.fail("%s: sample type %r, expected %r" % (f, n.type, canon))
        if n.sizes != sizes:
            self.fail("%s: sizes %s, expected %s" % (f, n.sizes, sizes))
        if kinds is not None:
            got = n.kinds or []
            if len(got) != len(kinds) or any(k is not None and g != k for g, k in zip(got, kinds)):
                self.fail("%s: kinds %s, expected %s" % (f, got, kinds))
        if n.space_dim or n.space_directions or n.space_origin:
            self.fail("%s: an output must have no space directions or origin" % f)
        head = self.unu_head(f)
        if head:
            if nrrd.TYPE_NAMES.get(head.get("type")) != canon:
                self.fail("%s: unu head says type %r, expected %r" % (f, head.get("type"), canon))
            if head.get("sizes", "").split() != [str(s) for s in sizes]:
                self.fail("%s: unu head says sizes %r, expected %s" % (f, head.get("sizes"), sizes))
            if kinds is not None:
                hk = head.get("kinds", "").split()
                if len(hk) != len(kinds) or \
                        any(k is not None and g != k for g, k in zip(hk, kinds)):
                    self.fail("%s: unu head says kinds %r, expected %s"
                              % (f, head.get("kinds"), kinds))
        return n

    # ---- comparisons -----------------------------------------------------------

    def fail(self, msg):
        self.failures.append(msg)

    def close(self, label, got, exp, rtol=None, scale=None, atol=0.0):
        """Compare flat lists of numbers: |got - exp| <= rtol*scale + atol per
        element, where scale defaults to max(1, max |exp|) (the size of the
        quantity, so that components near zero are not judged relatively).
        NaN in exp must be matched by NaN. Returns True when all match."""
        got, exp = flat(got), [float(v) for v in flat(exp)]
        if rtol is None:
            rtol = self.rtol
        if scale is None:
            finite = [abs(v) for v in exp if math.isfinite(v)]
            scale = max([1.0] + finite)
        if self.perturb:
            exp = [v * (1 + 1e-3) + 1e-3 * scale for v in exp]
        if len(got) != len(exp):
            self.fail("%s: %d values, expected %d" % (label, len(got), len(exp)))
            return False
        bad = []
        worst = 0.0
        for i, (g, e) in enumerate(zip(got, exp)):
            if isinstance(g, (int, float)) and math.isfinite(g) and math.isfinite(e):
                worst = max(worst, abs(g - e) / (rtol * scale + atol))
            if math.isnan(e):
                ok = isinstance(g, float) and math.isnan(g)
            elif math.isinf(e):
                ok = g == e
            else:
                ok = isinstance(g, (int, float)) and math.isfinite(g) and \
                    abs(g - e) <= rtol * scale + atol
            if not ok:
                bad.append(i)
        if os.environ.get("E2E_MARGINS"):   # calibration aid: worst diff / allowed
            sys.stderr.write("%s %s: %.3g\n" % (self.name, label, worst))
        for i in bad[:MAX_REPORTED]:
            g = got[i]
            diff = abs(g - exp[i]) if isinstance(g, (int, float)) else float("nan")
            self.fail("%s[%d]: got %r, expected %r (diff %.3g, allowed %.3g)"
                      % (label, i, g, exp[i], diff, rtol * scale + atol))
        if len(bad) > MAX_REPORTED:
            self.fail("%s: ... %d mismatches in all (of %d values)" % (label, len(bad), len(got)))
        return not bad

    def equal(self, label, got, exp, convert=int):
        """Exact comparison of flat lists (ints, bools as 0/1; reals with
        convert=float)."""
        got, exp = flat(got), [convert(v) for v in flat(exp)]
        if self.perturb:
            exp = [v + 1 for v in exp]
        if len(got) != len(exp):
            self.fail("%s: %d values, expected %d" % (label, len(got), len(exp)))
            return False
        bad = [i for i, (g, e) in enumerate(zip(got, exp)) if g != e]
        for i in bad[:MAX_REPORTED]:
            self.fail("%s[%d]: got %r, expected %r" % (label, i, got[i], exp[i]))
        if len(bad) > MAX_REPORTED:
            self.fail("%s: ... %d mismatches in all (of %d values)" % (label, len(bad), len(got)))
        return not bad

    def same_multiset(self, label, got, exp):
        """Collections have no defined order (§6.5): compare sorted."""
        return self.equal(label + " (sorted)", sorted(flat(got)), sorted(flat(exp)))


def remove_outputs(t, names):
    """Delete output files of an earlier run in the test's folder, so that
    a run that fails to write them cannot pass on stale ones."""
    for f in names:
        if os.path.exists(t.path(f)):
            os.remove(t.path(f))


def split(data, ncomp):
    """Flat output data -> list of per-strand tuples of ncomp values."""
    return [data[i:i + ncomp] for i in range(0, len(data), ncomp)]


# ------------------------------------------------------------ grid outputs

def out_kind(shp):
    """Data-axis kind and component count of an output tensor shape (§8.8)."""
    shp = [n for n in shp if n != 1]
    c = 1
    for n in shp:
        c *= n
    if c == 1:
        return None, 1
    kinds = {(2,): "2-vector", (3,): "3-vector", (4,): "4-vector",
             (2, 2): "2D-matrix", (3, 3): "3D-matrix"}
    return kinds.get(tuple(shp), "list"), c


def grid_output(t, name, counts, shp, type=None, seq=False):
    """Read NAME.nrrd, the output of a create_array grid whose iterator sizes
    are `counts` (fastest = last iterator first, i.e. NRRD order), with
    values of tensor shape shp (seq: of a fixed sequence of shp[0] elements
    each of shape shp[1:], whose data axis is a `list`); check its layout.
    Returns the Nrrd."""
    kind, c = out_kind(shp)
    if seq and c > 1:
        kind = "list"
    sizes = ([c] if c > 1 else []) + list(counts)
    kinds = ([kind] if c > 1 else []) + ["space"] * len(counts)
    return t.layout(name + ".nrrd", type or t.real, sizes, kinds)


def check_grid(t, name, counts, shp, expected, rtol=None, scale=None, atol=0.0):
    """Check grid output NAME against `expected`, one (nested) value per
    strand in NRRD order."""
    n = grid_output(t, name, counts, shp)
    return t.close(name, n.data, flat(expected), rtol=rtol, scale=scale, atol=atol)


def check_grid_exact(t, name, counts, shp, expected, type):
    n = grid_output(t, name, counts, shp, type)
    return t.equal(name, n.data, flat(expected))
