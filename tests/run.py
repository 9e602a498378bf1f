#!/usr/bin/env python3
"""run.py -- the diderotc test suite (run by `make check`).

    python3 tests/run.py --srcdir=SRC --builddir=BUILD [--diderotc=PATH]
                         [-k SUBSTRING] [-j N] [-v]

Each of these counts as one test:
  unit/NAME            BUILD/tests/unit/test_* exits 0;
  accept/...           `diderotc --check F` exits 0 with no error and every
                       `// EXPECT:` warning of F is reported;
  roundtrip/accept/... `diderotc --dump=ast F` > A exits 0, and dumping A
                       again prints the same text;
  compile/accept/...   `diderotc --exec -o TMP/prog F` (with F's ARGS, and
                       DIDEROT_CHECK_IR=1: the IR checker runs after every pass) exits 0:
                       every accept program goes through the whole pipeline
                       to an executable (in a temporary directory, removed
                       afterwards), and the C compiler runs with
                       -Wall -Wextra -Werror added to CFLAGS_DIDEROT (generated
                       code has no warnings); the executable is not run;
  reject/...           `diderotc --check F` exits non-zero, reports exactly
                       the `// EXPECT:` errors of F (warnings: at least the
                       expected ones; exactly with `// STRICT`), and prints
                       each message as `F:L:C: severity: text`, the source
                       line indented by two spaces, and a caret line. With
                       `// STAGE: codegen` (reject/cuda/: refusals of a
                       back end) the same checks on `diderotc F -o TMP/F`
                       without --check, which must write no file;
  omp/run/NAME         the cases of run/NAME built with --target=omp and run
                       with --nworkers 1, 2 and 4: the oracle's checks, and
                       output files byte-identical to the sequential build's;
  cuda/run/NAME        the cases of run/NAME with --target=cuda --cuda-emulate
  cuda/gpu/NAME        the same built by nvcc and run on the GPU (skipped without one)
                       (CUDA device code in CPU emulation): the oracle's checks
                       and outputs byte-identical to the C target's (within
                       CUDA_RTOL of NAME.py if set); skipped when the CUDA
                       target refuses the program ("not yet supported");
  cuda/nvcc/KIND/NAME  the CUDA build (nvcc, sm_80 and sm_90) of a subset of
                       run/ and e2e programs (CUDA_NVCC_SUBSET; all with
                       DIDEROT_NVCC_ALL=1); skipped when nvcc is missing;
  cuda/lib/NAME        tests/cuda/NAME.diderot as a library (--target=cuda
                       --cuda-emulate: .o and --shared; and the C target)
                       driven by tests/cuda/NAME_client.c: its checks, the
                       oracle NAME.py, outputs byte-identical to the C
                       target's; cuda/nvcc/lib/NAME builds and links it with
                       nvcc (run only where a GPU works);
  simd/run/NAME        the cases of run/NAME built with and without
                       --simd=strands (both -ffp-contract=off): exit status,
                       stdout, stderr and output files byte-identical;
  bsp/run/NAME         the cases of run/NAME built with --force-bsp and by
                       default (strand by strand where the program allows):
                       exit status, stdout, stderr and output files
                       byte-identical;
  layouts/run/NAME     the cases of run/NAME again under --strand-layout=soa,
                       aosoa:4, aosoa:8 (and --image-layout=brick:4, brick:8,
                       halo:4, halo:8 for programs with images): every output file must be
                       byte-identical to the default layouts' run;
  run/NAME             `diderotc --exec` compiles tests/programs/run/NAME.diderot,
                       and for each case (args, expected) of CASES in NAME.py
                       (an independent Python oracle) the executable runs with
                       args and every expected output NRRD must match (values
                       within a relative 1e-5, sizes; "sorted" compares a
                       collection as a multiset; a callable check(nrrd)
                       returns a list of problems, and under the key "*"
                       check(names of the .nrrd files written)). NAME.py may
                       set FLAGS (diderotc options of every build) and ALSO,
                       a list of (more diderotc options, more run
                       arguments): each is another build whose runs must
                       pass the same checks and write byte-identical files.
  bigruns/...          memory limits, SIGINT/SIGTERM and SIGKILL at random
                       moments (tests/bigruns/bigruns.py): clear errors, the
                       old files or the complete new ones, no temporaries;
  python/NAME          pytest on python/tests/test_NAME.py: the Python package
                       `diderot` against executables and closed forms
                       (skipped without a python3 with numpy, cffi, pytest);
  viewer/...           the interactive viewer examples/viewer, built and
                       run headless under Xvfb (tests/viewer/viewer.py);
  docs/...             the documentation against the compiler: the man
                       pages' options and API, every example program and
                       marked command block of doc/language.md,
                       doc/tutorial.md, README.md and doc/user-guide.md, no
                       stale claims (tests/docs/doctest.py).
The directives are described in tests/programs/README.md. The last line of
output is always `N passed, N failed, N skipped`; the exit status is 1 when
anything failed. Python 3 standard library only.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from progress import Progress, timed_call  # noqa: E402

TIMEOUT = 10          # seconds per diderotc command
COMPILE_TIMEOUT = 120 # seconds per `diderotc --exec` (it runs the C compiler)
UNIT_TIMEOUT = 120    # unit test binaries may do brute-force checks
RUN_TIMEOUT = 60      # seconds per run of a generated program
# These guard against hangs; they are no speed assertions. The sanitize
# profile (ASan+UBSan builds, several times slower) multiplies them.
SANITIZE_SLOWDOWN = 3
WARN_CFLAGS = "-Wall -Wextra -Werror"  # compile/ tests: warning-free generated C

# One positioned diagnostic: FILE:L:C: severity: text
POS_RE = re.compile(r"^(?P<path>.*?):(?P<line>\d+):(?P<col>\d+): "
                    r"(?P<sev>error|warning|note): (?P<msg>.*)$")
# A diagnostic without position: FILE: severity: text (or diderotc: ...)
NOPOS_RE = re.compile(r"^(?P<path>\S[^:]*): (?P<sev>error|warning|note): (?P<msg>.*)$")
DIRECTIVE_RE = re.compile(
    r"//\s*EXPECT(?P<kind>-PREFIX|-RE)?:\s*"
    r"(?:(?P<line>\d+):(?P<col>\d+):\s*)?"
    r"(?P<sev>error|warning|note):\s?(?P<msg>.*?)\s*$")
CARET_RE = re.compile(r"^  (?P<pad>[ \t]*)\^~*$")
SANITIZER_RE = re.compile(r"ERROR: (Address|Leak|Memory|Thread)Sanitizer|WARNING: ThreadSanitizer|"
                          r"runtime error: ")


class Outcome:
    """The result of one test: status is 'pass', 'fail' or 'skip'."""

    def __init__(self, name, status, details=()):
        self.name = name
        self.status = status
        self.details = list(details)


class Expect:
    """One `// EXPECT...:` directive."""

    def __init__(self, kind, line, col, sev, msg, text):
        self.kind = kind          # '', '-PREFIX' or '-RE'
        self.line = line          # None for a diagnostic without position
        self.col = col
        self.sev = sev
        self.msg = msg
        self.text = text          # the directive as written, for messages

    def matches(self, d):
        if d.sev != self.sev or d.line != self.line or d.col != self.col:
            return False
        if self.kind == "-PREFIX":
            return d.msg.startswith(self.msg)
        if self.kind == "-RE":
            return re.fullmatch(self.msg, d.msg) is not None
        return d.msg == self.msg


class Diag:
    """One diagnostic parsed from stderr, with the lines that follow it."""

    def __init__(self, path, line, col, sev, msg, index):
        self.path = path
        self.line = line
        self.col = col
        self.sev = sev
        self.msg = msg
        self.index = index        # line number in stderr, to find source/caret

    def __str__(self):
        pos = "%d:%d: " % (self.line, self.col) if self.line is not None else ""
        return "%s%s: %s" % (pos, self.sev, self.msg)


class Spec:
    """The directives of a test program."""

    def __init__(self):
        self.expects = []
        self.strict = False
        self.requires = []
        self.args = []
        self.stage = "check"      # reject: "codegen" runs past --check
        self.errors = []          # malformed directives


def read_text(path):
    """Bytes decoded as UTF-8; invalid bytes survive as surrogates."""
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "surrogateescape")


def parse_spec(path):
    spec = Spec()
    sources = [path]
    if os.path.exists(path + ".expect"):
        sources.append(path + ".expect")  # for files that cannot hold comments
    for src in sources:
        for raw in read_text(src).splitlines():
            at = raw.find("//")
            if at < 0:
                continue
            comment = raw[at:]
            m = DIRECTIVE_RE.match(comment)
            if m:
                line = int(m.group("line")) if m.group("line") else None
                col = int(m.group("col")) if m.group("col") else None
                kind = m.group("kind") or ""
                if kind == "-RE":
                    try:
                        re.compile(m.group("msg"))
                    except re.error as e:
                        spec.errors.append("bad regular expression in %r: %s" % (comment, e))
                        continue
                spec.expects.append(Expect(kind, line, col, m.group("sev"),
                                           m.group("msg"), comment.strip()))
                continue
            body = comment[2:].strip()
            if body.startswith("EXPECT"):
                spec.errors.append("malformed directive: %s" % comment.strip())
            elif body == "STRICT":
                spec.strict = True
            elif body.startswith("REQUIRES:"):
                spec.requires += body[len("REQUIRES:"):].replace(",", " ").split()
            elif body.startswith("ARGS:"):
                spec.args += body[len("ARGS:"):].split()
            elif body.startswith("STAGE:"):
                spec.stage = body[len("STAGE:"):].strip()
                if spec.stage not in ("check", "codegen"):
                    spec.errors.append("unknown stage in %r" % comment.strip())
    return spec


def parse_diags(stderr):
    """All diagnostics in stderr (positioned and position-less)."""
    diags = []
    lines = stderr.splitlines()
    for i, text in enumerate(lines):
        m = POS_RE.match(text)
        if m:
            diags.append(Diag(m.group("path"), int(m.group("line")), int(m.group("col")),
                              m.group("sev"), m.group("msg"), i))
            continue
        m = NOPOS_RE.match(text)
        if m:
            diags.append(Diag(m.group("path"), None, None, m.group("sev"), m.group("msg"), i))
    return diags, lines


def match_expects(expects, diags):
    """Pair each expectation with a distinct diagnostic. Exact expectations
    are matched first so that a PREFIX/RE one cannot steal their diagnostic."""
    used = set()
    missing = []
    order = sorted(expects, key=lambda e: e.kind != "")
    for e in order:
        for i, d in enumerate(diags):
            if i not in used and e.matches(d):
                used.add(i)
                break
        else:
            missing.append(e)
    return missing, [d for i, d in enumerate(diags) if i not in used]


def check_format(d, lines, source_lines, shown_path):
    """Problems with the presentation of a positioned diagnostic."""
    problems = []
    if d.path != shown_path:
        problems.append("%s: path is %r, expected %r" % (d, d.path, shown_path))
    if d.line < 1 or d.line > len(source_lines):
        return problems  # e.g. end of file after the last line: no source to show
    want = "  " + source_lines[d.line - 1]
    src = lines[d.index + 1] if d.index + 1 < len(lines) else None
    caret = lines[d.index + 2] if d.index + 2 < len(lines) else None
    if src != want.rstrip("\r"):
        problems.append("%s: the next line should be the source line %r, found %r"
                        % (d, want, src))
        return problems
    m = CARET_RE.match(caret or "")
    if not m:
        problems.append("%s: expected a caret line after the source line, found %r" % (d, caret))
    elif len(m.group("pad")) != d.col - 1:
        problems.append("%s: caret at column %d" % (d, len(m.group("pad")) + 1))
    return problems


class Runner:
    def __init__(self, args):
        self.srcdir = os.path.abspath(args.srcdir)
        self.builddir = os.path.abspath(args.builddir)
        self.diderotc = os.path.abspath(args.diderotc or os.path.join(self.builddir, "diderotc"))
        self.timeout = args.timeout
        self.rtroot = os.path.join(self.builddir, "tests", "roundtrip")
        self._gpu = None
        self._lock = threading.Lock()
        self._oracles = {}   # NAME.py -> (lock, scope): each run once per suite
        self.profile = args.profile

    # ---- helpers ----------------------------------------------------------

    def rel(self, path):
        return os.path.relpath(path, self.srcdir)

    def run(self, argv, timeout, env=None):
        """(returncode, stdout, stderr) or a failure description string."""
        r = run_killable(argv, self.srcdir, timeout, env)
        if isinstance(r, str):
            return r
        p = r
        out = p.stdout.decode("utf-8", "surrogateescape")
        err = p.stderr.decode("utf-8", "surrogateescape")
        if p.returncode < 0:
            try:
                name = signal.Signals(-p.returncode).name
            except ValueError:
                name = "signal %d" % -p.returncode
            return "crashed with %s: %s%s" % (name, " ".join(argv), tail(err))
        if SANITIZER_RE.search(err):
            return "sanitizer report: %s%s" % (" ".join(argv), tail(err))
        return p.returncode, out, err

    def nrrd_module(self):
        """tests/oracle/nrrd.py, the NRRD reader of the oracles."""
        sys.path.insert(0, os.path.join(self.srcdir, "tests", "oracle"))
        import nrrd as nrrdpy
        return nrrdpy

    def load_oracle(self, path):
        """The globals of NAME.py beside NAME.diderot (CASES, FLAGS, ...), or
        a message saying why it cannot be loaded (a broken oracle is a
        failure, not a crash)."""
        oracle = path[:-len(".diderot")] + ".py"
        self.nrrd_module()  # tests/oracle on the path: oracles import its modules
        # every mode of a program reads the same oracle, and some compute
        # their expected values when loaded (seconds, for large cases)
        with self._lock:
            entry = self._oracles.setdefault(oracle, [threading.Lock(), None])
        with entry[0]:
            if entry[1] is None:
                scope = {}
                try:
                    exec(compile(read_text(oracle), oracle, "exec"), scope)
                except Exception as e:
                    scope = "oracle: %s" % e
                entry[1] = scope
            return entry[1]

    def fresh_dir(self, *parts):
        """An empty work directory BUILD/tests/PARTS."""
        work = os.path.join(self.builddir, "tests", *parts)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        return work

    def build_and_run(self, name, path, scope, work, variants, env, nrrdpy, problems):
        """Build NAME.diderot once per variant (label, diderotc flags, run
        environment or None) and run the oracle's cases with each; the
        outputs per variant, or an Outcome: a failed build, or a skip when
        the first variant's target refuses the program ("not yet
        supported")."""
        outs = []
        for k, (label, flags, run_env) in enumerate(variants):
            exe = os.path.join(work, "prog-" + label)
            r = run_killable([self.diderotc, "--exec"] + list(scope.get("FLAGS", [])) + flags
                             + ["-o", exe, path], self.srcdir, 600, env=env)
            if isinstance(r, str):
                return Outcome(name, "fail", [r])
            err = r.stderr.decode("utf-8", "replace")
            if r.returncode != 0:
                shutil.rmtree(work, ignore_errors=True)
                if k == 0 and re.search(r"not yet supported", err):
                    return Outcome(name, "skip", [err.strip().splitlines()[0]])
                return Outcome(name, "fail", ["%s: diderotc exit status %d" % (label, r.returncode)]
                               + stderr_excerpt(err))
            outs.append(self.run_cases(exe, work, scope.get("CASES", []), [], nrrdpy, problems,
                                       "[%s] " % label, env=run_env, with_stdout=True))
        return outs

    def have_gpu(self):
        with self._lock:
            if self._gpu is None:
                try:
                    p = subprocess.run(["nvidia-smi"], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, timeout=30)
                    self._gpu = p.returncode == 0
                except (OSError, subprocess.TimeoutExpired):
                    self._gpu = False
            return self._gpu

    def missing_requirement(self, spec):
        """A reason to skip, None to run, or raise ValueError for a typo."""
        for r in spec.requires:
            if r == "gpu":
                if not self.have_gpu():
                    return "needs a working GPU (nvidia-smi)"
            elif r in ("nvcc", "cc", "teem-unu"):
                if shutil.which(r) is None:
                    return "needs %s" % r
            else:
                raise ValueError("unknown requirement %r" % r)
        return None

    def link_data(self):
        """BUILD/tests/roundtrip/tests/data -> SRC/tests/data (once)."""
        with self._lock:
            link = os.path.join(self.rtroot, "tests", "data")
            target = os.path.join(self.srcdir, "tests", "data")
            if os.path.islink(link) and os.readlink(link) != target:
                os.unlink(link)  # left by a run on another source tree
            if not os.path.lexists(link):
                os.makedirs(os.path.dirname(link), exist_ok=True)
                os.symlink(target, link)

    # ---- the three kinds of test --------------------------------------------

    def driver_case(self, arg):
        """driver/NAME: diderotc's own command line (tests/driver/cases.py)."""
        drv, case = arg
        name = "driver/" + case["name"]
        work = tempfile.mkdtemp(prefix="diderot-driver-")
        try:
            files = {}
            for key, text in (("prog", drv["PROG"]), ("bad", drv["BAD"]), ("hdr", drv["HDR"]),
                              ("api", drv["API"])):
                files[key] = os.path.join(work, key + ".diderot")
                with open(files[key], "w") as f:
                    f.write(text)
            files["work"] = work
            for fname, text in case.get("files", {}).items():
                with open(os.path.join(work, fname), "w") as f:
                    f.write(text)
            exe = self.diderotc
            if case.get("copy"):  # the compiler alone, away from its build tree
                exe = os.path.join(work, "bin", "diderotc")
                os.makedirs(os.path.dirname(exe))
                shutil.copy(self.diderotc, exe)
            files["diderotc"] = exe
            argv = [exe] + [a.format(**files) for a in case["args"]]
            env = dict(os.environ)
            env.pop("NO_COLOR", None)
            env.update(case.get("env", {}))
            out = ""
            if case.get("tty"):
                status, err = run_with_pty_stderr(argv, work, env)
            else:
                p = run_killable(argv, work, TIMEOUT, env)
                if isinstance(p, str):
                    return Outcome(name, "fail", [p])
                status, err = p.returncode, p.stderr.decode("utf-8", "replace")
                out = p.stdout.decode("utf-8", "replace")
            problems = []
            if status != case["status"]:
                problems.append("exit status %s, expected %d" % (status, case["status"]))
            problems += ["stderr lacks %r" % h for h in case.get("has", []) if h not in err]
            problems += ["stderr has %r" % h for h in case.get("hasnt", []) if h in err]
            problems += ["stdout lacks %r" % h for h in case.get("out_has", []) if h not in out]
            if "run" in case and not problems:  # then run what was built
                renv = dict(os.environ)
                for k in case.get("run_unset", []):
                    renv.pop(k, None)
                renv.update(case.get("run_env", {}))
                p = run_killable([a.format(**files) for a in case["run"]], work, TIMEOUT, renv)
                if isinstance(p, str):
                    return Outcome(name, "fail", [p])
                rerr = p.stderr.decode("utf-8", "replace")
                if p.returncode != 0:
                    problems.append("the program exited %d" % p.returncode)
                for h in case.get("run_has", []):
                    if h not in rerr:
                        problems.append("the program's stderr lacks %r" % h)
                for h in case.get("run_hasnt", []):
                    if h in rerr:
                        problems.append("the program's stderr has %r" % h)
                for path, h in case.get("run_file_has", []):
                    path = path.format(**files)
                    if not os.path.exists(path) or h not in read_text(path):
                        problems.append("%s lacks %r" % (os.path.basename(path), h))
                err = rerr
            if problems:
                return Outcome(name, "fail", problems + last_lines(err))
            return Outcome(name, "pass")
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def docs_case(self, arg):
        """docs/...: an example, command block or claim of the documentation
        (tests/docs/doctest.py)."""
        name, fn = arg
        status, details = fn()
        return Outcome(name, status, details)

    def unit(self, path):
        name = "unit/" + os.path.basename(path)
        env = dict(os.environ, DIDEROT_SRCDIR=self.srcdir, DIDEROT_BUILDDIR=self.builddir)
        p = run_killable([path], self.srcdir, UNIT_TIMEOUT, env)
        if isinstance(p, str):
            return Outcome(name, "fail", [p])
        err = p.stderr.decode("utf-8", "replace")
        out = p.stdout.decode("utf-8", "replace")
        if p.returncode < 0:
            try:
                sig = signal.Signals(-p.returncode).name
            except ValueError:
                sig = "signal %d" % -p.returncode
            return Outcome(name, "fail", ["crashed with %s" % sig] + last_lines(out + err))
        if p.returncode != 0 or SANITIZER_RE.search(err):
            why = "exit status %d" % p.returncode if p.returncode else "sanitizer report"
            return Outcome(name, "fail", [why] + last_lines(err or out))
        return Outcome(name, "pass")

    def prepare(self, path, name):
        """The spec of a program, or an Outcome when it cannot run."""
        spec = parse_spec(path)
        if spec.errors:
            return None, Outcome(name, "fail", spec.errors)
        try:
            why = self.missing_requirement(spec)
        except ValueError as e:
            return None, Outcome(name, "fail", [str(e)])
        if why:
            return None, Outcome(name, "skip", [why])
        if not os.access(self.diderotc, os.X_OK):
            return None, Outcome(name, "fail", ["no compiler at %s" % self.diderotc])
        return spec, None

    def accept(self, path):
        rel = self.rel(path)
        name = rel[len("tests/programs/"):]
        spec, done = self.prepare(path, name)
        if done:
            return done
        r = self.run([self.diderotc, "--check"] + spec.args + [rel], self.timeout)
        if isinstance(r, str):
            return Outcome(name, "fail", [r])
        rc, _, err = r
        diags, _ = parse_diags(err)
        problems = []
        errors = [d for d in diags if d.sev == "error"]
        if rc != 0:
            problems.append("exit status %d" % rc)
        for d in errors:
            problems.append("unexpected %s" % d)
        if not errors and re.search(r"(^|\s)error: ", err):
            problems.append("error output: " + err.strip().splitlines()[0])
        for e in spec.expects:
            if e.sev == "error":
                problems.append("an accept test cannot expect an error: %s" % e.text)
        missing, _ = match_expects([e for e in spec.expects if e.sev != "error"], diags)
        for e in missing:
            problems.append("missing %s" % e.text)
        if problems:
            return Outcome(name, "fail", problems + stderr_excerpt(err))
        return Outcome(name, "pass")

    def roundtrip(self, path):
        rel = self.rel(path)
        name = "roundtrip/" + rel[len("tests/programs/"):]
        spec, done = self.prepare(path, name)
        if done:
            return done
        r = self.run([self.diderotc, "--dump=ast"] + spec.args + [rel], self.timeout)
        if isinstance(r, str):
            return Outcome(name, "fail", [r])
        rc, first, err = r
        if rc != 0:
            return Outcome(name, "fail", ["--dump=ast exit status %d" % rc] + stderr_excerpt(err))
        # Same relative place under the build tree, so that proxy paths
        # relative to the program's directory still find tests/data.
        copy = os.path.join(self.rtroot, rel)
        os.makedirs(os.path.dirname(copy), exist_ok=True)
        self.link_data()
        with open(copy, "wb") as f:
            f.write(first.encode("utf-8", "surrogateescape"))
        r = self.run([self.diderotc, "--dump=ast"] + spec.args + [copy], self.timeout)
        if isinstance(r, str):
            return Outcome(name, "fail", [r])
        rc, second, err = r
        if rc != 0:
            return Outcome(name, "fail", ["dump of the dump (%s): exit status %d"
                                          % (self.rel(copy), rc)] + stderr_excerpt(err))
        if first != second:
            return Outcome(name, "fail", ["dump of the dump (%s) differs:" % self.rel(copy)]
                           + first_difference(first, second))
        return Outcome(name, "pass")

    def reject(self, path):
        rel = self.rel(path)
        name = rel[len("tests/programs/"):]
        spec, done = self.prepare(path, name)
        if done:
            return done
        if not any(e.sev == "error" for e in spec.expects):
            return Outcome(name, "fail", ["a reject test needs at least one EXPECT error"])
        work = None
        if spec.stage == "codegen":
            # refusals after typechecking (a back end's); if the program
            # got through, the C compiler runs: a longer timeout
            work = tempfile.mkdtemp(prefix="diderot-reject-")
            r = self.run([self.diderotc] + spec.args + ["-o", os.path.join(work, "prog"), rel],
                         COMPILE_TIMEOUT, dict(os.environ, DIDEROT_RT_DIR=self.builddir))
            left = sorted(os.listdir(work))
            shutil.rmtree(work, ignore_errors=True)
        else:
            r = self.run([self.diderotc, "--check"] + spec.args + [rel], self.timeout)
        if isinstance(r, str):
            return Outcome(name, "fail", [r])
        rc, _, err = r
        diags, lines = parse_diags(err)
        problems = []
        if work and left:
            problems.append("a refused program wrote files: %s" % ", ".join(left))
        if rc == 0:
            problems.append("exit status 0, expected failure")
        missing, extra = match_expects(spec.expects, diags)
        for e in missing:
            problems.append("missing %s" % e.text)
        for d in extra:
            if d.sev == "error" or (d.sev == "warning" and spec.strict):
                problems.append("unexpected %s" % d)
        source_lines = read_text(path).split("\n")
        if source_lines and source_lines[-1] == "":
            source_lines.pop()  # the final newline does not start a line
        for d in diags:
            if d.line is not None and d.sev != "note":
                problems += check_format(d, lines, source_lines, rel)
        if problems:
            return Outcome(name, "fail", problems + stderr_excerpt(err))
        return Outcome(name, "pass")

    def strict_corpus(self, _path=None):
        """strict/corpus: --strict accepts what the original's own examples
        write (../shared/conformance/examples, outside the repository):
        every program checks with --strict exactly as without it, and no
        extension is reported (src/frontend/extensions.def names them)."""
        name = "strict/corpus"
        root = os.path.join(self.srcdir, "..", "shared", "conformance", "examples")
        if not os.path.isdir(root):
            return Outcome(name, "skip", ["no conformance corpus at %s" % root])
        progs = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
                       if f.endswith((".diderot", ".ddro")))
        problems = []
        for p in progs:
            plain = self.run([self.diderotc, "--check", p], self.timeout)
            strict = self.run([self.diderotc, "--check", "--strict", p], self.timeout)
            if isinstance(plain, str) or isinstance(strict, str):
                problems.append(plain if isinstance(plain, str) else strict)
                continue
            if "is an extension of diderotc" in strict[2] or plain[0] != strict[0]:
                problems.append("%s: exit status %d without --strict, %d with it%s"
                                % (os.path.relpath(p, root), plain[0], strict[0], tail(strict[2])))
        if not progs:
            return Outcome(name, "skip", ["no programs under %s" % root])
        return Outcome(name, "fail", problems) if problems else Outcome(name, "pass")

    def compile(self, path):
        """compile/accept/...: the whole pipeline builds an executable."""
        rel = self.rel(path)
        name = "compile/" + rel[len("tests/programs/"):]
        spec, done = self.prepare(path, name)
        if done:
            return done
        work = tempfile.mkdtemp(prefix="diderot-compile-")
        try:
            # DIDEROT_CHECK_IR: ir_check after every pass of the middle end;
            # generated code must compile without warnings (doc/backend.md).
            # Under sanitizers (the sanitize profile: the compiler is what is
            # checked, the program is never run) at -O0: gcc -O3 with ASan
            # took minutes for one 5,000-statement update
            opt = "-O0" if "-fsanitize" in os.environ.get("CFLAGS_DIDEROT_EXTRA", "") \
                else "-O3 -march=native"
            env = dict(os.environ, DIDEROT_RT_DIR=self.builddir, DIDEROT_CHECK_IR="1",
                       CFLAGS_DIDEROT=os.environ.get("CFLAGS_DIDEROT", opt) + " " + WARN_CFLAGS)
            argv = [self.diderotc, "--exec"] + spec.args + ["-o", os.path.join(work, "prog"), rel]
            r = run_killable(argv, self.srcdir, COMPILE_TIMEOUT, env)
            if isinstance(r, str):
                return Outcome(name, "fail", [r])
            err = r.stderr.decode("utf-8", "surrogateescape")
            if r.returncode < 0:
                try:
                    sig = signal.Signals(-r.returncode).name
                except ValueError:
                    sig = "signal %d" % -r.returncode
                return Outcome(name, "fail", ["crashed with %s: %s" % (sig, " ".join(argv))]
                               + stderr_excerpt(err))
            if SANITIZER_RE.search(err):
                return Outcome(name, "fail", ["sanitizer report"] + stderr_excerpt(err))
            if r.returncode != 0:
                return Outcome(name, "fail", ["diderotc --exec exit status %d" % r.returncode]
                               + stderr_excerpt(err))
            if not os.access(os.path.join(work, "prog"), os.X_OK):
                return Outcome(name, "fail", ["no executable was written"])
            return Outcome(name, "pass")
        finally:
            shutil.rmtree(work, ignore_errors=True)

    # ---- collecting -----------------------------------------------------------

    def runprog(self, path):
        """run/NAME: compile with --exec, run each case of NAME.py, compare."""
        name = "run/" + os.path.basename(path)[:-len(".diderot")]
        oracle = path[:-len(".diderot")] + ".py"
        if not os.path.exists(oracle):
            return Outcome(name, "fail", ["no oracle %s" % self.rel(oracle)])
        nrrdpy = self.nrrd_module()
        scope = self.load_oracle(path)
        if isinstance(scope, str):
            return Outcome(name, "fail", [scope])
        work = os.path.join(self.builddir, "tests", "run", os.path.basename(path)[:-8])
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        env = dict(os.environ, DIDEROT_RT_DIR=self.builddir)
        flags = list(scope.get("FLAGS", []))
        cases = scope.get("CASES", [])
        problems, base, exes = [], None, {}
        # the build of FLAGS, then each of ALSO: (more flags, more run
        # arguments), whose output files must be byte-identical to the first
        for k, (more, extra) in enumerate([([], [])] + list(scope.get("ALSO", []))):
            label = " ".join(flags + list(more)) or "default"
            exe = exes.get(tuple(more))
            if exe is None:
                exe = exes[tuple(more)] = os.path.join(work, "prog%d" % k)
                r = run_killable([self.diderotc, "--exec"] + flags + list(more) + ["-o", exe, path],
                                 self.srcdir, 120, env=env)
                if isinstance(r, str):
                    return Outcome(name, "fail", [r])
                if r.returncode != 0:
                    return Outcome(name, "fail", ["%s: diderotc exit status %d" % (label, r.returncode)]
                                   + stderr_excerpt(r.stderr.decode("utf-8", "replace")))
            outs = self.run_cases(exe, work, cases, list(extra), nrrdpy, problems,
                                  "" if k == 0 else "[%s %s] " % (label, " ".join(extra)))
            if base is None:
                base = outs
            else:
                for n, (o, b) in enumerate(zip(outs, base)):
                    if o is not None and b is not None and o != b:
                        diff = sorted(f for f in set(o) | set(b) if o.get(f) != b.get(f))
                        problems.append("[%s %s] case %d: output files differ from the first build: %s"
                                        % (label, " ".join(extra), n, ", ".join(diff)))
        shutil.rmtree(work, ignore_errors=True)
        if problems:
            return Outcome(name, "fail", problems)
        return Outcome(name, "pass")

    def run_cases(self, exe, work, cases, extra, nrrdpy, problems, label, env=None,
                  with_stdout=False):
        """Run every case of CASES with exe; compare with the oracle. A
        want entry is (values, sizes[, "sorted"]) or a callable check(nrrd)
        returning a list of problems; the key "*" gets check(list of the
        .nrrd files written), the key "<stdout>" check(the printed text).
        Returns the output files' bytes per case (with_stdout: and the
        printed bytes as file "<stdout>")."""
        outs = []
        for n, case in enumerate(cases):
            args, want = case
            for f in os.listdir(work):
                if f.endswith(".nrrd"):
                    os.remove(os.path.join(work, f))
            r = run_killable([exe] + [str(a) for a in args] + extra, work, RUN_TIMEOUT, env=env)
            if isinstance(r, str) or r.returncode != 0:
                problems.append("%scase %d %s: %s" % (label, n, args, r if isinstance(r, str) else
                                "exit status %d: %s" % (r.returncode, tail(r.stderr.decode("utf-8", "replace")))))
                outs.append(None)
                continue
            files = sorted(f for f in os.listdir(work) if f.endswith(".nrrd"))
            outs.append({f: open(os.path.join(work, f), "rb").read() for f in files})
            if with_stdout:
                outs[-1]["<stdout>"] = r.stdout
            for fname, spec in want.items():
                if callable(spec):
                    try:
                        arg = files if fname == "*" else \
                            r.stdout.decode("utf-8", "replace") if fname == "<stdout>" else \
                            nrrdpy.read(os.path.join(work, fname))
                        bad = spec(arg) or []
                    except Exception as e:
                        bad = ["%s" % e]
                    problems.extend("%scase %d: %s: %s" % (label, n, fname, b) for b in bad)
                    continue
                values, sizes = spec[0], spec[1]
                how = spec[2] if len(spec) > 2 else ""
                try:
                    got = nrrdpy.read(os.path.join(work, fname))
                except Exception as e:
                    problems.append("%scase %d: %s: %s" % (label, n, fname, e))
                    continue
                data = list(got.data)
                if sizes is not None and list(got.sizes) != list(sizes):
                    problems.append("%scase %d: %s: sizes %s, expected %s" % (label, n, fname, got.sizes, sizes))
                if how == "sorted":
                    data, values = sorted(data), sorted(values)
                if len(data) != len(values):
                    problems.append("%scase %d: %s: %d values, expected %d" % (label, n, fname, len(data), len(values)))
                    continue
                for i, (g, w) in enumerate(zip(data, values)):
                    if not abs(g - w) <= 1e-5 * max(1.0, abs(w)):
                        problems.append("%scase %d: %s[%d] = %r, expected %r" % (label, n, fname, i, g, w))
                        break
        return outs

    # layouts/run/NAME: the same cases under every strand layout (and image
    # layout when the program reads images); the output files of each case
    # must be byte-identical to those of the default layouts.
    LAYOUT_RUNS = [["--strand-layout=soa"], ["--strand-layout=aosoa:4"],
                   ["--strand-layout=aosoa:8"]]
    IMAGE_LAYOUT_RUNS = [["--image-layout=brick:4"], ["--image-layout=brick:8"],
                         ["--image-layout=halo:4"], ["--image-layout=halo:8"]]

    def runvariants(self, path, group, variants, env_extra=None, streams=False):
        """GROUP/run/NAME: the cases of run/NAME built with each flag list
        of variants (the first is the reference build); every build's
        output files must be byte-identical to the first's, and with
        streams its exit status, stdout and stderr too (the executable's
        own name in them aside)."""
        stem = os.path.basename(path)[:-len(".diderot")]
        name = group + "/run/" + stem
        scope = self.load_oracle(path)
        if isinstance(scope, str):
            return Outcome(name, "fail", [scope])
        work = self.fresh_dir(group, stem)
        env = dict(os.environ, DIDEROT_RT_DIR=self.builddir, **(env_extra or {}))
        base, problems = None, []
        for k, flags in enumerate(variants):
            label = " ".join(flags) or "default build"
            exe = os.path.join(work, "prog%d" % k)
            r = run_killable([self.diderotc, "--exec"] + list(scope.get("FLAGS", [])) + flags
                             + ["-o", exe, path], self.srcdir, COMPILE_TIMEOUT, env=env)
            if isinstance(r, str) or r.returncode != 0:
                problems.append("%s: diderotc failed: %s" % (label, r if isinstance(r, str) else
                                tail(r.stderr.decode("utf-8", "replace"))))
                continue
            outs = []
            for n, (args, _) in enumerate(scope.get("CASES", [])):
                for f in os.listdir(work):
                    if f.endswith(".nrrd"):
                        os.remove(os.path.join(work, f))
                r = run_killable([exe] + [str(a) for a in args], work, RUN_TIMEOUT)
                if isinstance(r, str) or (r.returncode != 0 and not streams):
                    problems.append("%s: case %d: %s" % (label, n, r if isinstance(r, str) else
                                    "exit status %d" % r.returncode))
                    continue
                files = {f: open(os.path.join(work, f), "rb").read()
                         for f in sorted(os.listdir(work)) if f.endswith(".nrrd")}
                who = ("prog%d" % k).encode()  # the executable names itself in messages
                outs.append((r.returncode, r.stdout.replace(who, b"prog"),
                             r.stderr.replace(who, b"prog"), files) if streams else files)
            if base is None:
                base = outs
            elif outs != base:
                problems.append("%s: %s differ from the %s's" % (
                    label, "exit status, stdout, stderr or outputs" if streams else "outputs",
                    " ".join(variants[0]) or "default build"))
        if problems:
            return Outcome(name, "fail", problems + ["(work directory %s)" % work])
        shutil.rmtree(work, ignore_errors=True)
        return Outcome(name, "pass")

    def runlayouts(self, path):
        runs = [[]] + self.LAYOUT_RUNS
        if "image(" in read_text(path):
            runs += self.IMAGE_LAYOUT_RUNS
        return self.runvariants(path, "layouts", runs)

    # simd/run/NAME: the cases of run/NAME built with --simd=strands (groups
    # of strands updated at once, emit_c_simd.c); the output files must be
    # byte-identical to the --simd=within build's (no groups), both built
    # without FMA contraction (the two forms may contract differently).
    SIMD_CFLAGS = "-O3 -march=native -ffp-contract=off"

    def runsimd(self, path):
        return self.runvariants(path, "simd", [["--simd=within"], ["--simd=strands"]],
                                {"CFLAGS_DIDEROT": self.SIMD_CFLAGS}, streams=True)

    # bsp/run/NAME: the cases of run/NAME built with --force-bsp (super-steps
    # only) against the default build, which runs strand by strand where the
    # program allows it (DrtProgram.strandwise, doc/backend.md): the same exit status,
    # stdout, stderr and output files.
    def runbsp(self, path):
        return self.runvariants(path, "bsp", [["--force-bsp"], []], streams=True)

    # omp/run/NAME: the cases of run/NAME built with --target=omp and run
    # with --nworkers 1, 2 and 4: the oracle's checks, and output files
    # byte-identical to the sequential build's (the runtime merges per-chunk
    # results in chunk order, reductions included; OMP_RTOL in NAME.py
    # allows a relative difference instead).
    OMP_THREADS = [1, 2, 4]
    # Under ThreadSanitizer (scripts/check-tsan.sh) only the races matter: the
    # comparison with the sequential build is the full profile's, and one
    # thread cannot race, so each case is built once (OpenMP) and run with 2
    # and 4 threads, the oracle's checks still applied to every run.
    TSAN_THREADS = [2, 4]

    def runomp(self, path):
        stem = os.path.basename(path)[:-len(".diderot")]
        name = "omp/run/" + stem
        nrrdpy = self.nrrd_module()
        scope = self.load_oracle(path)
        if isinstance(scope, str):
            return Outcome(name, "fail", [scope])
        work = self.fresh_dir("omp", stem)
        env = dict(os.environ, DIDEROT_RT_DIR=self.builddir)
        cases = scope.get("CASES", [])
        exes = {}
        tsan = self.profile == "tsan"
        builds = (("omp", ["--target=omp"]),) if tsan else (("seq", []), ("omp", ["--target=omp"]))
        for label, flags in builds:
            exe = exes[label] = os.path.join(work, "prog-" + label)
            r = run_killable([self.diderotc, "--exec"] + list(scope.get("FLAGS", [])) + flags
                             + ["-o", exe, path], self.srcdir, COMPILE_TIMEOUT, env=env)
            if isinstance(r, str):
                return Outcome(name, "fail", [r])
            if r.returncode != 0:
                return Outcome(name, "fail", ["%s: diderotc exit status %d" % (label, r.returncode)]
                               + stderr_excerpt(r.stderr.decode("utf-8", "replace")))
        problems = []
        base = [] if tsan else self.run_cases(exes["seq"], work, cases, [], nrrdpy, problems, "[seq] ")
        rtol = scope.get("OMP_RTOL")
        for k in self.TSAN_THREADS if tsan else self.OMP_THREADS:
            label = "[omp --nworkers %d] " % k
            outs = self.run_cases(exes["omp"], work, cases, ["--nworkers", str(k)], nrrdpy,
                                  problems, label)
            for n, (b, o) in enumerate(zip(base, outs)):
                if b is None or o is None:
                    continue
                for f in sorted(set(b) | set(o)):
                    if b.get(f) == o.get(f):
                        continue
                    bad = "missing" if f not in b or f not in o else "differs"
                    if bad == "differs" and rtol is not None:
                        x = nrrdpy.parse(b[f], f)
                        y = nrrdpy.parse(o[f], f)
                        bad = None if list(x.sizes) == list(y.sizes) and all(
                            abs(u - v) <= rtol * max(1.0, abs(u)) for u, v in zip(x.data, y.data)) \
                            else "differs beyond %g" % rtol
                    if bad:
                        problems.append("%scase %d: %s %s from the sequential build's"
                                        % (label, n, f, bad))
        if problems:
            return Outcome(name, "fail", problems + ["(work directory %s)" % work])
        shutil.rmtree(work, ignore_errors=True)
        return Outcome(name, "pass")

    # cuda/run/NAME: the cases of run/NAME with the CUDA target in host
    # emulation (--target=cuda --cuda-emulate): the oracle's checks, and
    # output files byte-identical to the C target's (both built with
    # CUDA_CFLAGS: no FMA contraction); CUDA_RTOL in NAME.py allows a
    # relative difference instead (reductions over strands sum in blocks).
    # A program the CUDA target refuses ("not yet supported") is skipped.
    # What the programs print must be the same too. Programs with sphere
    # queries, prints or dynamic sequences run a third time with brute-force
    # queries, a one-entry result pool, a one-byte print buffer and a
    # one-byte sequence arena (DIDEROT_CUDA_SPHERE_POOL,
    # DIDEROT_CUDA_PRINT_BUFFER, DIDEROT_CUDA_SEQ_ARENA), so that every step
    # that queries, prints or builds a sequence overflows and runs again
    # (dc_run.h, dc_seq.h).
    # -O1: the emulation's C++ compile is most of these tests' time (-O2 costs
    # 1.6x as much for the same IEEE results: no contraction, no reassociation)
    # -Wall -Wextra -Werror: the generated C++ (and the C build) warning-free,
    # as compile/ checks the C target's; not -Wmaybe-uninitialized, whose
    # analysis at -O1 reports phi copies that -O3 (compile/) sees through
    CUDA_CFLAGS = "-O1 -ffp-contract=off -Wall -Wextra -Werror -Wno-maybe-uninitialized"

    def cudarun(self, path):
        stem = os.path.basename(path)[:-len(".diderot")]
        name = "cuda/run/" + stem
        nrrdpy = self.nrrd_module()
        scope = self.load_oracle(path)
        if isinstance(scope, str):
            return Outcome(name, "fail", [scope])
        work = self.fresh_dir("cuda", stem)
        env = dict(os.environ, DIDEROT_RT_DIR=self.builddir, CFLAGS_DIDEROT=self.CUDA_CFLAGS)
        problems = []
        # Under the sanitizers the C build is run/NAME's, and the comparison
        # with it the full profile's: the emulation alone (its oracle checks,
        # and the rerun compared with it)
        sanitize = self.profile == "sanitize"
        variants = [("cuda", ["--target=cuda", "--cuda-emulate"], None)] + \
            ([] if sanitize else [("C", [], None)])
        if re.search(r"\b(sphere|print)\s*\(|\[\]|\{\}|@", read_text(path)):
            variants.append(("cuda-rerun", ["--target=cuda", "--cuda-emulate", "--no-space-partition"],
                             dict(os.environ, DIDEROT_CUDA_SPHERE_POOL="1",
                                  DIDEROT_CUDA_PRINT_BUFFER="1", DIDEROT_CUDA_SEQ_ARENA="1")))
        outs = self.build_and_run(name, path, scope, work, variants, env, nrrdpy, problems)
        if isinstance(outs, Outcome):
            return outs
        rtol = scope.get("CUDA_RTOL")
        if sanitize:
            if len(outs) > 1:
                compare_with_c(outs[1], outs[0], rtol, work, nrrdpy, problems, "[cuda-rerun vs cuda] ")
        else:
            compare_with_c(outs[0], outs[1], rtol, work, nrrdpy, problems, "")
            if len(outs) > 2:
                compare_with_c(outs[2], outs[1], rtol, work, nrrdpy, problems, "[cuda-rerun] ")
        if problems:
            return Outcome(name, "fail", problems + ["(work directory %s)" % work])
        shutil.rmtree(work, ignore_errors=True)
        return Outcome(name, "pass")

    # cuda/gpu/NAME: the cases of run/NAME built by nvcc (no emulation) for
    # the GPU present and run on it: the oracle's checks, and output files
    # equal to the C target's within CUDA_GPU_RTOL (relative; the GPU's
    # math library and fused multiply-adds differ from the CPU's in the last
    # bits), printed text identical. Skipped, with a visible count, where
    # no GPU works (nvidia-smi) or the program is refused.
    CUDA_GPU_RTOL = 1e-5

    def cudagpu(self, path):
        stem = os.path.basename(path)[:-len(".diderot")]
        name = "cuda/gpu/" + stem
        if not self.have_gpu():
            return Outcome(name, "skip", ["needs a working GPU (nvidia-smi)"])
        nvcc = find_nvcc()
        if not nvcc:
            return Outcome(name, "skip", ["needs nvcc (the CUDA toolkit)"])
        nrrdpy = self.nrrd_module()
        scope = self.load_oracle(path)
        if isinstance(scope, str):
            return Outcome(name, "fail", [scope])
        cap = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        arch = "sm_" + (cap.stdout.decode().split() or ["9.0"])[0].replace(".", "")
        work = self.fresh_dir("gpu", stem)
        # -fmad=false: the C build contracts nothing either (CUDA_CFLAGS), so
        # particle systems that amplify rounding (repel_sphere) compare
        # bit for bit; measured on an H200, bench/results.md
        env = dict(os.environ, DIDEROT_RT_DIR=self.builddir, CFLAGS_DIDEROT=self.CUDA_CFLAGS,
                   DIDEROT_NVCC=nvcc + " -fmad=false", DIDEROT_CUDA_ARCH=arch)
        problems = []
        outs = self.build_and_run(name, path, scope, work,
                                  [("gpu", ["--target=cuda"], None), ("C", [], None)], env, nrrdpy,
                                  problems)
        if isinstance(outs, Outcome):
            return outs
        rtol = max(scope.get("CUDA_RTOL") or 0, self.CUDA_GPU_RTOL)
        compare_with_c(outs[0], outs[1], rtol, work, nrrdpy, problems, "")
        if problems:
            return Outcome(name, "fail", problems + ["(work directory %s)" % work])
        shutil.rmtree(work, ignore_errors=True)
        return Outcome(name, "pass")

    # cuda/nvcc/NAME: the program's CUDA device half compiles with nvcc for
    # CUDA_ARCHS (sm_90 and the older sm_80) and links. By default a
    # representative subset (CUDA_NVCC_SUBSET; nvcc is slow and CI has 2
    # cores); DIDEROT_NVCC_ALL=1 compiles every run/ and e2e program. Skipped,
    # with the reason, when nvcc is missing or the program is refused.
    CUDA_ARCHS = "sm_80,sm_90"
    # (e2e programs whose images are written by their companions cannot be
    # compiled alone: image probes come from accept programs with proxies)
    CUDA_NVCC_SUBSET = ["run/collatz", "run/population", "run/repel_sphere", "run/print_strands", "run/strings_strands", "run/reduce_prints", "run/collect_strands", "run/collect_strand_refs", "run/global_sequences", "run/dynseq_strand_build", "run/dynseq_state_grow", "run/tensors_grid", "run/field_function",
                        "run/reductions", "run/reductions_every_op", "e2e/eigen", "e2e/tensor_ops", "accept/border_control",
                        "accept/jacobian_hessian", "accept/curl_2d_3d", "accept/deep_derivatives"]

    def nvcc_program(self, path):
        kind = "e2e" if os.sep + "e2e" + os.sep in path else \
            "accept" if os.sep + "accept" + os.sep in path else "run"
        stem = os.path.basename(path)[:-len(".diderot")]
        name = "cuda/nvcc/%s/%s" % (kind, stem)
        nvcc = find_nvcc()
        if not nvcc:
            return Outcome(name, "skip", ["needs nvcc (the CUDA toolkit)"])
        work = self.fresh_dir("nvcc", kind + "-" + stem)
        env = dict(os.environ, DIDEROT_RT_DIR=self.builddir, DIDEROT_NVCC=nvcc,
                   DIDEROT_CUDA_ARCH=self.CUDA_ARCHS)
        # the source in place: proxy images are looked up beside it
        r = run_killable([self.diderotc, "--exec", "--target=cuda", "-o", "prog", path], work,
                         600, env=env)
        if isinstance(r, str):
            return Outcome(name, "fail", [r])
        err = r.stderr.decode("utf-8", "replace")
        ok = r.returncode == 0 and os.access(os.path.join(work, "prog"), os.X_OK)
        shutil.rmtree(work, ignore_errors=True)
        # The runtime's headers must build warning-free (nvcc once warned
        # #173 in every int reduction, a float NaN converted to int).
        rt_warn = [l for l in err.splitlines() if re.search(r"rt/cuda/.*warning", l)]
        if ok and rt_warn:
            return Outcome(name, "fail", ["nvcc warns in the runtime:"] + rt_warn[:5])
        if not ok and re.search(r"not yet supported|proxy image .* cannot be read", err):
            return Outcome(name, "skip", [err.strip().splitlines()[0]])
        if not ok:
            return Outcome(name, "fail", ["nvcc build for %s: exit status %d" % (self.CUDA_ARCHS, r.returncode)]
                           + stderr_excerpt(err))
        return Outcome(name, "pass")

    # cuda/lib/NAME: tests/cuda/NAME.diderot built as a library (--json,
    # --namespace=Lib) for the CUDA target in emulation (lib.o, and --shared)
    # and for the C target, all with CUDA_CFLAGS; tests/cuda/NAME_client.c is
    # compiled against each header with -Wall -Wextra -Werror, linked with
    # cc (-lstdc++ for the CUDA builds, as doc/user-guide.md says) and run
    # in an empty directory: its own checks (lines "FAIL ..."), then the
    # .nrrd files it saves against EXPECTED of NAME.py (values within a
    # relative 1e-5, sizes) and byte-identical across the builds.
    def client_build(self, path, work, label, flags, libs, env, linker=None):
        """Build library `label` and its client; (exe, json) or a problem string."""
        lib = os.path.join(work, "lib_" + label)
        shared = "--shared" in flags
        r = run_killable([self.diderotc, "--namespace=Lib", "--json"] + flags
                         + ["-o", lib + (".so" if shared else ""), path], work, COMPILE_TIMEOUT, env)
        if isinstance(r, str):
            return r
        err = r.stderr.decode("utf-8", "replace")
        if r.returncode != 0:
            return "%s: diderotc exit status %d%s" % (label, r.returncode, tail(err))
        try:
            with open(lib + ".json") as fh:
                js = json.load(fh)
        except (OSError, ValueError) as e:
            return "%s: %s.json: %s" % (label, lib, e)
        cflags = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-DREAL=" + js.get("real-type", "?"),
                  '-DLIBH="%s.h"' % lib] + os.environ.get("CFLAGS_DIDEROT_EXTRA", "").split()
        objs = ["-L" + work, "-l:lib_%s.so" % label, "-Wl,-rpath," + work] if shared else [lib + ".o"]
        exe = os.path.join(work, "client_" + label)
        cc = (os.environ.get("CC") or "cc").split()
        client = path[:-len(".diderot")] + "_client.c"
        steps = [("compiling", cc + cflags + [client] + objs + libs + ["-lteem", "-lm", "-o", exe])]
        if linker:
            # Compile with cc, link with the linker driver (nvcc knows where
            # its own runtime library is; no guessing at lib64 paths).
            steps = [("compiling", cc + cflags + ["-c", client, "-o", exe + ".o"]),
                     ("linking", linker + [exe + ".o"] + objs + libs + ["-lteem", "-lm", "-o", exe])]
        for what, cmd in steps:
            r = run_killable(cmd, work, COMPILE_TIMEOUT, env)
            if isinstance(r, str):
                return r
            if r.returncode != 0:
                return "%s: %s the client: exit status %d%s" % (
                    label, what, r.returncode, tail(r.stderr.decode("utf-8", "replace")))
        return exe, js

    def client_run(self, exe, rundir, expected, nrrdpy, label, problems):
        """Run a client in rundir; its output files (bytes by name) or None."""
        os.makedirs(rundir)
        r = run_killable([exe], rundir, RUN_TIMEOUT)
        if isinstance(r, str):
            problems.append("%s: %s" % (label, r))
            return None
        out = r.stdout.decode("utf-8", "replace")
        problems += ["%s client: %s" % (label, l) for l in out.splitlines() if l.startswith("FAIL")]
        if r.returncode != 0 or SANITIZER_RE.search(r.stderr.decode("utf-8", "replace")):
            problems.append("%s client: exit status %d%s" % (label, r.returncode,
                                                             tail(r.stderr.decode("utf-8", "replace"))))
            return None
        for fname, (values, sizes) in sorted(expected.items()):
            try:
                got = nrrdpy.read(os.path.join(rundir, fname))
            except Exception as e:
                problems.append("%s: %s: %s" % (label, fname, e))
                continue
            if list(got.sizes) != list(sizes):
                problems.append("%s: %s: sizes %s, expected %s" % (label, fname, got.sizes, sizes))
            data = list(got.data)
            if len(data) != len(values):
                problems.append("%s: %s: %d values, expected %d" % (label, fname, len(data), len(values)))
                continue
            for i, (g, w) in enumerate(zip(data, values)):
                if not abs(g - w) <= 1e-5 * max(1.0, abs(w)):
                    problems.append("%s: %s[%d] = %r, expected %r" % (label, fname, i, g, w))
                    break
        return {f: open(os.path.join(rundir, f), "rb").read()
                for f in sorted(os.listdir(rundir)) if f.endswith(".nrrd")}

    def cudalib(self, path):
        stem = os.path.basename(path)[:-len(".diderot")]
        name = "cuda/lib/" + stem
        nrrdpy = self.nrrd_module()
        scope = self.load_oracle(path)
        if isinstance(scope, str):
            return Outcome(name, "fail", [scope])
        work = self.fresh_dir("cudalib", stem)
        env = dict(os.environ, DIDEROT_RT_DIR=self.builddir, CFLAGS_DIDEROT=self.CUDA_CFLAGS)
        emu = ["--target=cuda", "--cuda-emulate"]
        problems, outs, jsons = [], {}, {}
        for label, flags, libs in (("cuda", emu, ["-lstdc++"]), ("cuda_so", emu + ["--shared"], []),
                                   ("c", [], [])):
            b = self.client_build(path, work, label, flags, libs, env)
            if isinstance(b, str):
                problems.append(b)
                continue
            exe, jsons[label] = b
            outs[label] = self.client_run(exe, os.path.join(work, "run_" + label),
                                          scope.get("EXPECTED", {}), nrrdpy, label, problems)
        for label in ("cuda", "cuda_so"):
            if outs.get(label) is not None and outs.get("c") is not None:
                diff = sorted(f for f in set(outs[label]) | set(outs["c"])
                              if outs[label].get(f) != outs["c"].get(f))
                if diff:
                    problems.append("%s: output files differ from the C target's: %s"
                                    % (label, ", ".join(diff)))
        if "cuda" in jsons and "c" in jsons:
            if jsons["cuda"].get("target") != "cuda":
                problems.append("the CUDA library's JSON says target %r" % jsons["cuda"].get("target"))
            for key in ("inputs", "outputs", "real-type", "namespace"):
                if jsons["cuda"].get(key) != jsons["c"].get(key):
                    problems.append("the JSON %s of the CUDA and C libraries differ" % key)
        if problems:
            return Outcome(name, "fail", problems + ["(work directory %s)" % work])
        shutil.rmtree(work, ignore_errors=True)
        return Outcome(name, "pass")

    # cuda/nvcc/lib/NAME: the library of cuda/lib/NAME built by nvcc (no
    # emulation, CUDA_ARCHS) and its client compiled by cc and linked by nvcc;
    # run against the oracle only where a GPU works. Skipped without nvcc.
    def nvcc_lib(self, path):
        stem = os.path.basename(path)[:-len(".diderot")]
        name = "cuda/nvcc/lib/" + stem
        nvcc = find_nvcc()
        if not nvcc:
            return Outcome(name, "skip", ["needs nvcc (the CUDA toolkit)"])
        nrrdpy = self.nrrd_module()
        scope = self.load_oracle(path)
        if isinstance(scope, str):
            return Outcome(name, "fail", [scope])
        work = self.fresh_dir("nvcc", "lib-" + stem)
        env = dict(os.environ, DIDEROT_RT_DIR=self.builddir, DIDEROT_NVCC=nvcc,
                   DIDEROT_CUDA_ARCH=self.CUDA_ARCHS)
        b = self.client_build(path, work, "nvcc", ["--target=cuda"], [], env, linker=[nvcc])
        if isinstance(b, str):
            return Outcome(name, "fail", [b])
        note = ["built and linked; not run: needs a working GPU (nvidia-smi)"]
        if self.have_gpu():
            problems, note = [], []
            self.client_run(b[0], os.path.join(work, "run"), scope.get("EXPECTED", {}), nrrdpy,
                            "nvcc", problems)
            if problems:
                return Outcome(name, "fail", problems + ["(work directory %s)" % work])
        shutil.rmtree(work, ignore_errors=True)
        return Outcome(name, "pass", note)

    def collect(self):
        tests = []
        unit_dir = os.path.join(self.builddir, "tests", "unit")
        if os.path.isdir(unit_dir):
            for f in sorted(os.listdir(unit_dir)):
                p = os.path.join(unit_dir, f)
                if (f.startswith("test_") and "." not in f and os.path.isfile(p)
                        and os.access(p, os.X_OK)):
                    tests.append(("unit/" + f, self.unit, p))
        progs = os.path.join(self.srcdir, "tests", "programs")
        for kind in ("accept", "reject"):
            for p in find_programs(os.path.join(progs, kind)):
                name = self.rel(p)[len("tests/programs/"):]
                if kind == "accept":
                    tests.append((name, self.accept, p))
                    tests.append(("roundtrip/" + name, self.roundtrip, p))
                    tests.append(("compile/" + name, self.compile, p))
                else:
                    tests.append((name, self.reject, p))
        tests.append(("strict/corpus", self.strict_corpus, None))
        for p in find_programs(os.path.join(progs, "run")):
            tests.append(("run/" + os.path.basename(p)[:-len(".diderot")], self.runprog, p))
            tests.append(("cuda/run/" + os.path.basename(p)[:-len(".diderot")], self.cudarun, p))
            tests.append(("cuda/gpu/" + os.path.basename(p)[:-len(".diderot")], self.cudagpu, p))
            tests.append(("omp/run/" + os.path.basename(p)[:-len(".diderot")], self.runomp, p))
            tests.append(("layouts/run/" + os.path.basename(p)[:-len(".diderot")],
                          self.runlayouts, p))
            tests.append(("simd/run/" + os.path.basename(p)[:-len(".diderot")], self.runsimd, p))
            tests.append(("bsp/run/" + os.path.basename(p)[:-len(".diderot")], self.runbsp, p))
        drv_path = os.path.join(self.srcdir, "tests", "driver", "cases.py")
        drv = {}
        exec(compile(read_text(drv_path), drv_path, "exec"), drv)
        for case in drv["CASES"]:
            tests.append(("driver/" + case["name"], self.driver_case, (drv, case)))
        # driver/progress/... (tests/driver/progress.py) and install/...
        # (tests/install/install.py), viewer/... (tests/viewer/viewer.py): groups
        # of (name, fn) like docs/
        # layering/...: which folder may use which (tests/layering/layering.py);
        # schedule/space/...: a schedule space over map-only examples
        # bigruns/...: memory limits, interrupted and killed runs (tests/bigruns/bigruns.py)
        # mpi/...: --target=mpi under mpirun against --target=seq (tests/mpi/mpi.py)
        for rel in (("driver", "progress.py"), ("install", "install.py"),
                    ("viewer", "viewer.py"), ("layering", "layering.py"),
                    ("schedule", "space.py"), ("schedule", "tune.py"), ("bigruns", "bigruns.py"), ("mpi", "mpi.py")):
            path = os.path.join(self.srcdir, "tests", *rel)
            scope = {"__name__": "tests_" + rel[0]}
            exec(compile(read_text(path), path, "exec"), scope)
            for name, fn in scope["collect"](self.srcdir, self.builddir, self.diderotc):
                tests.append((name, self.docs_case, (name, fn)))
        # python/...: the Python package's pytest files (python/tests/group.py)
        path = os.path.join(self.srcdir, "python", "tests", "group.py")
        scope = {"__name__": "tests_python"}
        exec(compile(read_text(path), path, "exec"), scope)
        for name, fn in scope["collect"](self.srcdir, self.builddir, self.diderotc):
            tests.append((name, self.docs_case, (name, fn)))
        # docs/...: the documentation checked against the compiler (tests/docs/doctest.py)
        docs_path = os.path.join(self.srcdir, "tests", "docs", "doctest.py")
        docs = {"__name__": "doctest_docs"}
        exec(compile(read_text(docs_path), docs_path, "exec"), docs)
        for name, fn in docs["collect"](self.srcdir, self.builddir, self.diderotc):
            tests.append((name, self.docs_case, (name, fn)))
        for p in find_programs(os.path.join(self.srcdir, "tests", "cuda")):
            stem = os.path.basename(p)[:-len(".diderot")]
            tests.append(("cuda/lib/" + stem, self.cudalib, p))
            tests.append(("cuda/nvcc/lib/" + stem, self.nvcc_lib, p))
        nvcc_all = os.environ.get("DIDEROT_NVCC_ALL") == "1"
        for kind, d in (("run", os.path.join(progs, "run")),
                        ("e2e", os.path.join(self.srcdir, "tests", "e2e", "programs")),
                        ("accept", os.path.join(progs, "accept", "v2"))):
            for p in find_programs(d):
                key = kind + "/" + os.path.basename(p)[:-len(".diderot")]
                if kind == "accept" and nvcc_all:
                    continue  # accept programs: only the subset's (they are not run)
                if nvcc_all or key in self.CUDA_NVCC_SUBSET:
                    tests.append(("cuda/nvcc/" + key, self.nvcc_program, p))
        return tests


def find_nvcc():
    """The nvcc to use ($DIDEROT_NVCC, PATH, /usr/local/cuda), or None."""
    return os.environ.get("DIDEROT_NVCC") or shutil.which("nvcc") or \
        ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else None)


def compare_with_c(got, want, rtol, work, nrrdpy, problems, tag):
    """Compare per-case outputs (run_cases results) of a CUDA build with the
    C target's: equal bytes, or NRRD values within the relative tolerance
    rtol (None: bytes only; printed text is always compared exactly)."""
    for n, (g, c) in enumerate(zip(got, want)):
        if g is None or c is None:
            continue
        for f in sorted(set(g) | set(c)):
            if g.get(f) == c.get(f):
                continue
            bad = "missing" if f not in g or f not in c else "differs"
            if bad == "differs" and rtol is not None and f != "<stdout>":
                for t, data in (("c", c[f]), ("g", g[f])):
                    with open(os.path.join(work, "%s-%s" % (t, f)), "wb") as fh:
                        fh.write(data)
                a = nrrdpy.read(os.path.join(work, "c-" + f))
                b = nrrdpy.read(os.path.join(work, "g-" + f))
                # NaN matches NaN: the GPU's NaN has other bits (0x7fffffff)
                bad = None if list(a.sizes) == list(b.sizes) and all(
                    (x != x and y != y) or abs(x - y) <= rtol * max(1.0, abs(x))
                    for x, y in zip(a.data, b.data)) \
                    else "differs beyond %g" % rtol
            if bad:
                problems.append("%scase %d: %s %s from the C target's" % (tag, n, f, bad))


def run_with_pty_stderr(argv, cwd, env):
    """Run argv with stderr on a pseudo-terminal; (status, stderr text)."""
    import pty
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        slave = -1
        chunks = []
        while True:
            try:
                b = os.read(master, 4096)
            except OSError:  # EIO: the child closed its side
                break
            if not b:
                break
            chunks.append(b)
        status = p.wait(timeout=TIMEOUT)
        return status, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)


def run_killable(argv, cwd, timeout, env=None):
    """A CompletedProcess, or a string saying why there is none. On timeout
    the whole process group is killed, so that no grandchild keeps the
    pipes open."""
    try:
        p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env, start_new_session=True)
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
    return subprocess.CompletedProcess(argv, p.returncode, out, err)


def find_programs(root):
    found = []
    for dirpath, dirnames, files in os.walk(root):
        dirnames.sort()
        for f in sorted(files):
            if f.endswith(".diderot") or f.endswith(".ddro"):
                found.append(os.path.join(dirpath, f))
    return found


def tail(text, n=8):
    lines = last_lines(text, n)
    return ("\n" + "\n".join(lines)) if lines else ""


def last_lines(text, n=30):
    lines = text.rstrip().splitlines()
    return ["  | " + l for l in lines[-n:]]


def stderr_excerpt(err, n=30):
    lines = err.rstrip().splitlines()
    if not lines:
        return []
    out = ["stderr:"] + ["  | " + l for l in lines[:n]]
    if len(lines) > n:
        out.append("  | ... (%d more lines)" % (len(lines) - n))
    return out


def first_difference(a, b):
    al, bl = a.splitlines(), b.splitlines()
    for i in range(max(len(al), len(bl))):
        x = al[i] if i < len(al) else "<end>"
        y = bl[i] if i < len(bl) else "<end>"
        if x != y:
            return ["  line %d, first dump:  %r" % (i + 1, x),
                    "  line %d, second dump: %r" % (i + 1, y)]
    return ["  (they differ only in line endings)"]


# ---- end-to-end tests ----------------------------------------------------
# tests/e2e/run_e2e.py (its own owner and docs) runs the compiled programs;
# its output is shown as is and its counts are added to the totals.
def run_e2e(args, counts):
    script = os.path.join(os.path.abspath(args.srcdir), "tests", "e2e", "run_e2e.py")
    if not os.path.exists(script):
        return
    argv = [sys.executable, script, "--srcdir=" + args.srcdir, "--builddir=" + args.builddir,
            "-k", args.filter, "-j", str(args.jobs)] \
        + (["--diderotc=" + args.diderotc] if args.diderotc else []) \
        + (["-v"] if args.verbose else []) \
        + (["--times", os.path.abspath(args.times)] if args.times else [])
    # streamed, so that a long e2e run shows its progress; its own summary
    # line is held back and added to ours
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    last = None
    for raw in p.stdout:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        if last is not None:
            print(last)
            sys.stdout.flush()
        last = line
    p.wait()
    m = re.match(r"^(\d+) passed, (\d+) failed, (\d+) skipped$", last or "")
    if last is not None and not m:
        print(last)
    if m:
        for key, n in zip(("pass", "fail", "skip"), m.groups()):
            counts[key] += int(n)
    else:
        print("FAIL e2e: run_e2e.py exited %d without a summary line" % p.returncode)
        counts["fail"] += 1


def main(argv):
    ap = argparse.ArgumentParser(description="Run the diderotc test suite.")
    ap.add_argument("--srcdir", required=True, help="the source tree")
    ap.add_argument("--builddir", required=True, help="the build tree")
    ap.add_argument("--diderotc", help="the compiler (default BUILD/diderotc)")
    ap.add_argument("-k", dest="filter", default="", help="run tests whose name contains this")
    ap.add_argument("-j", dest="jobs", type=int, default=2, help="parallel tests (default 2)")
    ap.add_argument("-v", dest="verbose", action="store_true", help="a line per test")
    ap.add_argument("--times", metavar="FILE",
                    help="append each test's wall seconds to FILE (tab-separated), to find "
                         "what makes the suite slow")
    ap.add_argument("--timeout", type=int, default=TIMEOUT,
                    help="seconds per compiler command (default %d)" % TIMEOUT)
    ap.add_argument("--profile", choices=("full", "sanitize", "tsan"), default="full",
                    help="sanitize: for a build with ASan+UBSan (scripts/check-asan.sh) -- "
                         "the frontend corpus, unit tests, compile checks and run/ programs "
                         "(also as emulated CUDA); "
                         "the target/layout variants and the e2e suite, which exercise the "
                         "same compiler paths on more generated code, are left to the full "
                         "profile; tsan: for a ThreadSanitizer build (scripts/check-tsan.sh) -- "
                         "the omp/ programs and the runtime's unit tests")
    args = ap.parse_args(argv)
    # Started in the background by a shell (`... &`), the suite inherits SIGINT
    # ignored, and so would every program it runs (an ignored signal stays
    # ignored across exec): the tests that send SIGINT need the default back.
    # A handler of ours is reset to the default in each child at exec.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if args.profile in ("sanitize", "tsan"):
        global COMPILE_TIMEOUT, UNIT_TIMEOUT, RUN_TIMEOUT
        COMPILE_TIMEOUT *= SANITIZE_SLOWDOWN
        UNIT_TIMEOUT *= SANITIZE_SLOWDOWN
        RUN_TIMEOUT *= SANITIZE_SLOWDOWN
    # OpenMP executables: test machines are shared and oversubscribed, where
    # threads spinning at the super-step barrier slow a run down 10x
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")

    runner = Runner(args)
    tests = [t for t in runner.collect() if args.filter in t[0]]
    if args.profile == "sanitize":
        # docs/: the documentation's commands build C clients as a user
        # would, without the sanitizers the runtime then needs
        # install/: its clients too; python/: libraries loaded into python3;
        # viewer/: the viewer and its Python version, the same
        tests = [t for t in tests
                 if not t[0].startswith(("cuda/nvcc/", "omp/", "layouts/", "simd/", "bsp/", "docs/", "install/",
                                         "python/", "viewer/", "layering/",
                                         "schedule/"))]
    if args.profile == "tsan":
        # scripts/check-tsan.sh: the OpenMP target's programs and the
        # runtime's unit tests, where threads meet
        # but not branchy_inlined: a compile-scaling program (issue 37)
        # whose TSan build by clang took 210-280 s, most of the profile's
        # time, for threads that meet as every other program's do
        tests = [t for t in tests if t[0].startswith(("omp/", "unit/test_rt_"))
                 and t[0] != "omp/run/branchy_inlined"]
    counts = {"pass": 0, "fail": 0, "skip": 0}

    times = open(args.times, "a") if args.times else None

    def one(test):
        name, fn, path = test
        return timed_call(name, lambda: fn(path), lambda n, why: Outcome(n, "fail", why), times)

    progress = Progress(tests, quiet=args.verbose)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for o in pool.map(one, tests):
            counts[o.status] += 1
            if o.status == "fail":
                print("FAIL %s: %s" % (o.name, o.details[0] if o.details else ""))
                for d in o.details[1:]:
                    print("    " + d)
            elif args.verbose:
                extra = (": " + o.details[0]) if o.details else ""
                print("%s %s%s" % ("PASS" if o.status == "pass" else "SKIP", o.name, extra))
            progress.done(o)
            sys.stdout.flush()
    if times:
        times.flush()   # run_e2e.py appends its own lines
    if args.profile == "full":
        print("-- e2e: the end-to-end suite (tests/e2e) ...")
        sys.stdout.flush()
        t0 = time.monotonic()
        run_e2e(args, counts)
        if times:
            times.write("e2e (whole)\t%.2f\n" % (time.monotonic() - t0))
    if times:
        times.close()
    progress.skip_summary()
    print("%d passed, %d failed, %d skipped" % (counts["pass"], counts["fail"], counts["skip"]))
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
