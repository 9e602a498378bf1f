#!/usr/bin/env python3
"""fuzz_pyinputs.py -- a fuzz harness for the Python package's input
conversion (issue 34 §4): World(...)/World.set (diderot._inputs'
_convert, _scalar, _file_value), diderot.Image (the constructor,
from_teem, from_vtk where VTK imports, _nrrd), then the inputs applied to
the C world (_apply), create_strands, a step or two and the outputs.
Python, not libFuzzer: the code under test is Python over cffi.

  fuzz_pyinputs.py [--seconds S | --runs N] [--seed K] [--work DIR]
                   [--regressions DIR] [--crashes DIR] [--replay-only]
                   [--selftest] [RECIPE ...]

Programs, compiled at start with the package (DIDEROTC, else diderotc on
PATH or the source tree's build/), each for seq and omp:
tests/fuzz/fuzz_inputs.diderot (a 2-D image, a real[] sequence, an int,
a vec2, a real, a bool, a string) and tests/fuzz/fuzz_pyinputs.diderot
(an image(3)[3], an int[], a vec3[], a tensor[3,3], an int[2]: the kinds
the first lacks, kept apart so that fuzz_inputs.c's setter script is
unchanged). Every input has a default, so any subset may be set.

Each run (its own random.Random(f"{seed}:{run}"), so any run can be made
again) picks a program and 1 to 4 of its inputs (rarely a name it does
not have), gives each a value from tests/fuzz/pyinputs_values.py: valid,
valid then mutated 1 to 3 times, or hostile; sets them through
prog.world(threads=..., **some) and then w.set(name=value) for the
others, and, when all were accepted, runs w.step(1 or 2) and
w.outputs(). A run is a recipe: text, one line per value (a one-line
Python expression), saved when it is a finding and replayed as a
regression (tests/fuzz/regressions-pyinputs/*.txt).

The oracle, exactly:
  * world()/set() succeed, or raise TypeError, ValueError (InputError and
    InputFileNotFoundError are ValueErrors) or MemoryError whose message
    contains "input 'NAME'" for NAME one of the inputs of that call (as
    the package writes them: "input 'n' (int): ...", and the runtime:
    "input 'img' (file '...'): ...", "unknown input 'zz'; ...");
  * step()/outputs() succeed, with one value of output v per stable
    strand and every value input the recipe set (int, real, bool, string,
    tensor, int[2]) reading back through the library's getter as NumPy
    converts the value to the program's type (np.asarray(v).astype(T)),
    or raise TypeError/ValueError/MemoryError naming one of the
    inputs set, or diderot.RunError (OutOfMemoryError included) with a
    non-empty message (the runtime's, which names the probe or limit);
  * an Image()/Image.from_teem() a recipe calls itself raises, if
    anything, TypeError/ValueError/MemoryError (there is no input yet to
    name);
  * anything else is a finding: another exception type (AttributeError,
    KeyError, IndexError, OverflowError, numpy's own errors, RecursionError
    ...), a message not naming the input, a wrong output size, the
    interpreter dying (signal, sanitizer, abort) or a run hanging for more
    than --hang seconds (default 10; faulthandler prints the stacks and
    ends the worker).
The int input n of fuzz_inputs.diderot is its strand count: a run whose
n is set beyond +-4096 is converted and set but not stepped (a count as
large as memory is the memory planner's case, tests/bigruns).

Runs go in batches to a worker process (this script with --worker), so
that a crash or hang ends only that batch: the parent saves the recipe
being run as CRASHES/fuzz_pyinputs-crash-N.txt and goes on with the next
run. Other findings go to CRASHES/fuzz_pyinputs-N.txt (at most 3 files
per distinct exception and place; the count of each is printed).
Regressions are replayed first; --selftest checks that the oracle flags a
message not naming its input, a KeyError, an int read back off by one,
an abort and a hang (in workers with the package patched to misbehave). --asan runs the workers
with gcc's libasan preloaded (PYTHONMALLOC=malloc): an invalid or double
free, or an overflow in instrumented code, ends the batch as a crash
(scripts/fuzz-campaign.sh uses it). Prints libFuzzer's stat
line (stat::number_of_executed_units: N), so that
scripts/fuzz-campaign.sh reads it as the others', and a summary.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
PKG = os.path.join(TOP, "python")
sys.path.insert(0, PKG)
sys.path.insert(0, HERE)

try:
    import numpy as np
    import diderot
    from diderot import _inputs
    from diderot._errors import RunError
except ImportError as e:
    sys.exit("fuzz_pyinputs: the package diderot needs numpy and cffi (Debian: python3-numpy "
             "python3-cffi): %s" % e)
import pyinputs_values as pv  # noqa: E402

PROGRAMS = [("inputs", "fuzz_inputs.diderot", "seq"), ("inputs_omp", "fuzz_inputs.diderot", "omp"),
            ("more", "fuzz_pyinputs.diderot", "seq"), ("more_omp", "fuzz_pyinputs.diderot", "omp")]
N_LIMIT = 4096
ALLOWED = (TypeError, ValueError, MemoryError)


def write_proxies(inputs):
    """The proxies (and defaults) of both programs, beside them."""
    os.makedirs(inputs, exist_ok=True)
    files = {
        "fuzz_img.nrrd": "NRRD0004\ntype: float\ndimension: 2\nsizes: 4 4\nencoding: ascii\n\n%s\n"
                         % " ".join(str(i) for i in range(16)),
        "fuzz_xs.nrrd": "NRRD0004\ntype: float\ndimension: 1\nsizes: 3\nencoding: ascii\n\n1 2 3\n",
        "fuzz_vf.nrrd": "NRRD0004\ntype: float\ndimension: 4\nsizes: 3 2 2 2\n"
                        "kinds: 3-vector space space space\nencoding: ascii\n\n%s\n"
                        % " ".join(str(i % 5) for i in range(24)),
        "fuzz_ks.nrrd": "NRRD0004\ntype: int\ndimension: 1\nsizes: 3\nencoding: ascii\n\n1 2 3\n",
        "fuzz_ps.nrrd": "NRRD0004\ntype: float\ndimension: 2\nsizes: 3 2\nkinds: 3-vector list\n"
                        "encoding: ascii\n\n0.5 0.5 0.5 1 1 1\n",
    }
    for name, text in files.items():
        with open(os.path.join(inputs, name), "w") as f:
            f.write(text)
    for src in ("fuzz_inputs.diderot", "fuzz_pyinputs.diderot"):
        shutil.copy(os.path.join(HERE, src), inputs)


def load_programs(work, cache):
    inputs = os.path.join(work, "inputs")
    if not os.path.exists(os.path.join(inputs, "fuzz_pyinputs.diderot")):
        write_proxies(inputs)
    return {name: diderot.compile(os.path.join(inputs, src), target=target, cache_dir=cache)
            for name, src, target in PROGRAMS}


# ---- a recipe -----------------------------------------------------------------

def make_recipe(rng, progs):
    name = rng.choice(sorted(progs))
    p = progs[name]
    names = list(p.inputs)
    chosen = rng.sample(names, rng.randrange(1, min(4, len(names)) + 1))
    if rng.random() < 0.03:
        chosen.append(rng.choice(["zz", "N", "img ", "", "\u00e9"]))
    lines = ["program: %s" % name]
    if rng.random() < 0.3:
        lines.append("threads: %d" % (rng.choice([1, 2]) if p.target == "omp" else 1))
    split = rng.randrange(len(chosen) + 1)
    for k, n in enumerate(chosen):
        ty = p.inputs.get(n) or p.inputs[rng.choice(names)]
        lines.append("%s %s = %s" % ("world" if k < split else "set", n, pv.gen(rng, ty)))
    if rng.random() < 0.1:  # a value set after the run: the world starts again with it
        n = rng.choice(names)
        lines.append("later %s = %s" % (n, pv.gen(rng, p.inputs[n])))
    lines.append("steps: %d" % rng.choice([0, 1, 1, 2]))
    return "\n".join(lines) + "\n"


def parse_recipe(text):
    prog, threads, steps, items = None, None, 0, []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("program: "):
            prog = line[9:].strip()
        elif line.startswith("threads: "):
            threads = int(line[9:])
        elif line.startswith("steps: "):
            steps = int(line[7:])
        else:
            how, rest = line.split(" ", 1)
            name, expr = rest.split(" = ", 1)
            if how not in ("world", "set", "later"):
                raise ValueError("bad recipe line %r" % line)
            items.append((how, name, expr))
    return prog, threads, steps, items


def _from_package(tb):
    return any(os.path.abspath(f.filename).startswith(os.path.join(PKG, "diderot"))
               for f in traceback.extract_tb(tb))


def _judge(e, names, phase):
    """None when exception e is what the oracle allows, else the finding."""
    msg = str(e)
    if isinstance(e, ALLOWED) and not isinstance(e, RunError):
        if any("input %r" % n in msg for n in names):
            return None
        return "%s in %s not naming its input (one of %s): %s" % (type(e).__name__, phase, names, msg[:300])
    if phase == "step" and isinstance(e, RunError) and msg.strip():
        return None
    return "%s in %s: %s" % (type(e).__name__, phase, msg[:300])


def _expected(prog, ty, v):
    """What an accepted value of a value input must read back as through the
    library's getter: NumPy's conversion of it to the program's type, not
    the package's; None where NumPy cannot say."""
    if ty.kind == "string":
        return v
    dt = {"int": prog.int_dtype, "real": prog.real_dtype, "bool": np.dtype(np.bool_)}[ty.kind]
    try:
        a = np.asarray(v)
        if ty.kind == "real" and a.dtype.kind not in "f":
            a = a.astype(np.float64)
        return a.astype(dt).reshape(ty.shape or ())
    except Exception:
        return None


def _readback(p, w, accepted):
    """A finding when a value input set from the recipe reads back otherwise."""
    for n, v in accepted.items():
        ty = p.inputs.get(n)
        if ty is None or not p._getters.get(n) or ty.kind == "image" or ty.dynamic:
            continue
        want = _expected(p, ty, v)
        if want is None:
            continue
        got = w._get_input(n)
        if ty.kind == "string":
            ok = got == want
        else:
            g = np.asarray(got)
            ok = g.shape == want.shape and np.array_equal(g, want, equal_nan=ty.kind == "real")
        if not ok:
            return "input %r (%s) reads back as %r, not %r" % (n, ty, got, want)
    return None


def _run_steps(w, steps, refused):
    """Step world w and check its output count: None when it ran, else the
    (finding or None, label) its caller returns (refused: the label's
    prefix when the run is refused with a message naming an input)."""
    try:
        w.step(steps)
        out = w.outputs()
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # noqa: B902
        bad = _judge(e, list(w._values), "step")
        if bad:
            return bad + "\n" + traceback.format_exc(), "finding"
        return None, refused + type(e).__name__
    if "v" in out and len(out.v) != out.stable:
        return "output v has %d values for %d stable strands" % (len(out.v), out.stable), "finding"
    return None


def execute(progs, text):
    """(finding text or None, outcome) of one recipe."""
    prog_name, threads, steps, items = parse_recipe(text)
    p = progs[prog_name]
    vals = []
    refused = []
    for how, name, expr in items:
        try:
            vals.append((how, name, pv.evaluate(expr)))
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # noqa: B902
            if not _from_package(sys.exc_info()[2]):
                return None, "recipe error: %s" % type(e).__name__
            if isinstance(e, ALLOWED):
                refused.append("Image() %s" % type(e).__name__)
                continue
            return "%s in Image() of %s:\n%s" % (type(e).__name__, name, traceback.format_exc()), "finding"
    kw = {n: v for how, n, v in vals if how == "world"}
    accepted = {}
    w = None
    try:
        calls = [("world()", kw)] + [("set(%s)" % n, {n: v}) for how, n, v in vals if how == "set"]
        for phase, given in calls:
            names = list(given)
            before = dict(w._values) if w is not None else None
            try:
                if w is None:
                    w = p.world(threads=threads, **given)
                else:
                    w.set(**given)
                accepted.update(given)
            except KeyboardInterrupt:
                raise
            except BaseException as e:  # noqa: B902 - the finding is anything else
                bad = _judge(e, names, phase)
                if bad:
                    return bad + "\n" + traceback.format_exc(), "finding"
                refused.append("%s %s" % (phase.split("(")[0], type(e).__name__))
                if w is None:  # world() refused: go on without those inputs
                    w = p.world(threads=threads)
                elif w._values != before:
                    return "a refused %s changed the world's inputs" % phase, "finding"
        tag = "some refused, then " if refused else ""
        nv = w._values.get("n") if "n" in p.inputs and p.inputs["n"].kind == "int" else None
        if not steps:
            return None, tag + "accepted"
        if nv is not None and abs(nv[1]) > N_LIMIT:
            return None, tag + "accepted (n too large to run)"
        r = _run_steps(w, steps, tag + "run refused: ")
        if r:
            return r
        bad = _readback(p, w, accepted)
        if bad:
            return bad, "finding"
        for how, n, v in vals:
            if how != "later":
                continue
            before = dict(w._values)
            try:
                w.set(**{n: v})
            except KeyboardInterrupt:
                raise
            except BaseException as e:  # noqa: B902
                bad = _judge(e, [n], "later set(%s)" % n)
                if bad:
                    return bad + "\n" + traceback.format_exc(), "finding"
                if w._values != before:
                    return "a refused later set(%s) changed the world's inputs" % n, "finding"
                return None, tag + "ran, later refused"
            nv = w._values.get("n") if "n" in p.inputs and p.inputs["n"].kind == "int" else None
            if nv is not None and abs(nv[1]) > N_LIMIT:
                return None, tag + "ran, later accepted (n too large to run)"
            r = _run_steps(w, steps, tag + "ran, later run refused: ")
            if r:
                return r
            return None, tag + "ran, later ran"
        return None, tag + "ran"
    finally:
        if w is not None:
            w.close()


def finding_key(bad):
    """The exception's type, whether it was a message not naming the input,
    and the last frame in the package: one key per bug, near enough."""
    first = bad.splitlines()[0]
    where = ""
    for line in bad.splitlines():
        if "python/diderot/" in line and line.strip().startswith("File"):
            where = line.strip().split("python/diderot/")[1]
    return "%s%s at %s" % (first.split(" ")[0], " not naming" if "not naming" in first else "", where)


# ---- the worker -----------------------------------------------------------------

def worker(a):
    import faulthandler
    faulthandler.enable()
    pv.set_files_dir(os.path.join(a.work, "files"))
    progs = load_programs(a.work, a.cache)
    if a.patch == "message":  # the self-test: a message that names no input
        _inputs._what = lambda name, ty: "that input (%s)" % ty
    elif a.patch == "exception":  # the self-test: a KeyError out of the conversion
        def bad(prog, name, ty, v):
            raise KeyError(name)
        _inputs._scalar = bad
    elif a.patch == "value":  # the self-test: an int set off by one
        right = _inputs._scalar

        def off(prog, name, ty, v):
            r = right(prog, name, ty, v)
            return r + 1 if ty.kind == "int" else r
        _inputs._scalar = off

    def emit(obj):
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    # the recipe being run, for the parent to save if this process dies:
    # one descriptor, rewritten in place (an open and truncation per run
    # costs more than the run on this disk), its length first
    cur = os.open(a.current, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)

    def one(label, text):
        body = ("# %s\n%s" % (label, text)).encode("utf-8", "surrogateescape")
        os.pwrite(cur, b"%12d\n" % len(body) + body, 0)
        faulthandler.dump_traceback_later(a.hang, exit=True)
        try:
            return execute(progs, text)
        finally:
            faulthandler.cancel_dump_traceback_later()

    outcomes = {}
    done = 0
    if a.replay:
        for path in a.replay:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
            bad, what = one("replay %s" % path, text)
            outcomes[what] = outcomes.get(what, 0) + 1
            done += 1
            if bad:
                emit({"finding": bad, "recipe": text, "file": path})
    else:
        until = a.until or float("inf")
        run = a.first
        while run < a.first + a.count and time.time() < until:
            try:
                text = make_recipe(random.Random("%d:%d" % (a.seed, run)), progs)
            except Exception:  # the harness's own bug: not a finding, stop
                traceback.print_exc()
                return 3
            bad, what = one("run %d" % run, text)
            outcomes[what] = outcomes.get(what, 0) + 1
            done += 1
            if bad:
                emit({"finding": bad, "recipe": text, "run": run})
            run += 1
    emit({"done": done, "outcomes": outcomes})
    return 0


# ---- the parent -----------------------------------------------------------------

class Campaign:
    def __init__(self, a, work):
        self.a = a
        self.env = dict(os.environ)
        if a.asan:
            # ASan's allocator and interceptors under the interpreter: an
            # invalid free, a double free or an overflow in instrumented code
            # ends the worker with a report (Python and NumPy themselves are
            # not instrumented)
            lib = subprocess.run(["gcc", "-print-file-name=libasan.so"], stdout=subprocess.PIPE,
                                 universal_newlines=True).stdout.strip()
            if not os.path.isabs(lib):
                sys.exit("fuzz_pyinputs: --asan: gcc -print-file-name=libasan.so finds no libasan")
            self.env.update(LD_PRELOAD=lib, PYTHONMALLOC="malloc",
                            ASAN_OPTIONS="detect_leaks=0:handle_segv=1:allocator_may_return_null=1")
        self.work = work
        self.current = os.path.join(work, "current.txt")
        self.findings = 0
        self.kinds = {}
        self.outcomes = {}
        self.crashes = a.crashes

    def spawn(self, extra, hang=None):
        """Run a worker; (its JSON messages, how it ended or None when it
        ended well, its stderr's tail)."""
        cmd = [sys.executable, "-W", "ignore", os.path.abspath(__file__), "--worker", "--work", self.work,
               "--cache", self.a.cache, "--current", self.current, "--hang", str(hang or self.a.hang),
               "--seed", str(self.seed)] + extra
        if os.path.exists(self.current):
            os.unlink(self.current)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env)
        msgs = []
        for line in p.stdout.decode("utf-8", "replace").splitlines():
            try:
                msgs.append(json.loads(line))
            except ValueError:
                pass
        err = p.stderr.decode("utf-8", "replace")
        if "ERROR: AddressSanitizer" in err:  # the report's head, not VTK's chatter before it
            err = err[err.index("ERROR: AddressSanitizer") - 20:][:6000]
        ended = None
        if p.returncode != 0 or not msgs or "done" not in msgs[-1]:
            ended = ("signal %d" % -p.returncode if p.returncode < 0 else "exit status %d" % p.returncode)
            if "Timeout (" in err:
                ended = "a hang (> %s s; faulthandler's stacks above)" % (hang or self.a.hang)
        return msgs, ended, err if "ERROR: AddressSanitizer" in err else err[-3000:]

    def save(self, text, bad, crash=False):
        key = "crash: " + bad.splitlines()[0] if crash else finding_key(bad)
        self.kinds[key] = self.kinds.get(key, 0) + 1
        self.findings += 1
        if self.kinds[key] > 3:
            return None
        os.makedirs(self.crashes, exist_ok=True)
        out = os.path.join(self.crashes, "fuzz_pyinputs-%s%d.txt" % ("crash-" if crash else "", self.findings))
        with open(out, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write("".join("# %s\n" % line for line in bad.strip().splitlines()[-6:]) + text)
        return out

    def account(self, msgs):
        n = 0
        for m in msgs:
            if "finding" in m:
                out = self.save(m["recipe"], m["finding"])
                if out:
                    print("fuzz_pyinputs: finding %s:\n%s\n%s" % (out, m["recipe"], m["finding"]))
            elif "done" in m:
                n = m["done"]
                for k, v in m["outcomes"].items():
                    self.outcomes[k] = self.outcomes.get(k, 0) + v
        return n

    def dead_recipe(self):
        """(the recipe a dead worker was running, its label) or None."""
        try:
            with open(self.current, "rb") as f:
                n = int(f.readline())
                body = f.read(n).decode("utf-8", "surrogateescape")
            label, text = body[2:].split("\n", 1)
            return text, label
        except (OSError, ValueError):
            return None

    def crashed(self, ended, err):
        """The recipe a dead worker was running, saved; the run's number."""
        text, label = self.dead_recipe() or ("", "")
        out = self.save(text, "the worker died: %s\n%s" % (ended, err), crash=True)
        print("fuzz_pyinputs: the interpreter died (%s) on %s, saved as %s:\n%s\n%s"
              % (ended, label, out, text, err))
        return int(label.split()[1]) if label.startswith("run ") else None


def selftest(camp):
    """The oracle must flag each of these."""
    cases = [("message", "program: inputs\nworld n = 'x'\nsteps: 0\n", None),
             ("exception", "program: inputs\nworld scale = 2.0\nsteps: 0\n", None),
             ("value", "program: inputs_omp\nset n = 2\nsteps: 1\n", None),
             ("", "program: inputs\nworld n = __import__('os').abort()\nsteps: 0\n", None),
             ("", "program: inputs\nworld n = __import__('time').sleep(60)\nsteps: 0\n", 1)]
    flagged = 0
    d = tempfile.mkdtemp(prefix="selftest-", dir=camp.work)
    for k, (patch, text, hang) in enumerate(cases):
        f = os.path.join(d, "case%d.txt" % k)
        with open(f, "w") as fh:
            fh.write(text)
        msgs, ended, err = camp.spawn(["--replay", f] + (["--patch", patch] if patch else []), hang=hang)
        got = [m for m in msgs if "finding" in m]
        ok = bool(got) if not ended else (not patch and (hang is None or "hang" in ended))
        if ended and ok:  # the recipe the worker died on must be the one saved
            camp.crashes = d
            saved = camp.save(*camp.dead_recipe(), crash=True) if camp.dead_recipe() else None
            with open(saved or os.devnull, encoding="utf-8") as fh:
                ok = fh.read().endswith(text)
        print("fuzz_pyinputs: selftest %d (%s): %s" % (k, patch or ("hang" if hang else "abort"),
                                                      "flagged: " + (got[0]["finding"].splitlines()[0]
                                                                     if got else ended) if ok else
                                                      "NOT flagged (%s)" % (ended or msgs)))
        flagged += ok
    print("fuzz_pyinputs: selftest: the oracle flags %d of %d" % (flagged, len(cases)))
    return 0 if flagged == len(cases) else 1


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("recipes", nargs="*", help="recipes to run (and nothing else)")
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--runs", type=int, default=None)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--work", default=None, help="folder for the programs, files and cache")
    ap.add_argument("--cache", default=None, help="the package's cache for the programs")
    ap.add_argument("--regressions", default=os.path.join(HERE, "regressions-pyinputs"))
    ap.add_argument("--crashes", default=os.path.join(HERE, "crashes-new"))
    ap.add_argument("--replay-only", action="store_true")
    ap.add_argument("--selftest", action="store_true", help="check that the oracle flags bad behaviour")
    ap.add_argument("--batch", type=int, default=5000, help="runs per worker process")
    ap.add_argument("--hang", type=float, default=10.0, help="seconds after which a run is a hang")
    ap.add_argument("--asan", action="store_true",
                    help="workers under AddressSanitizer (LD_PRELOAD of gcc's libasan)")
    # the worker's own
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--current", help=argparse.SUPPRESS)
    ap.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--until", type=float, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--replay", nargs="*", help=argparse.SUPPRESS)
    ap.add_argument("--patch", default="", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        return worker(a)
    if a.seconds is None and a.runs is None:
        a.runs = 1000
    seed = a.seed if a.seed is not None else int(time.time())
    work = os.path.abspath(a.work or tempfile.mkdtemp(prefix="fuzz_pyinputs-"))
    os.makedirs(work, exist_ok=True)
    a.cache = os.path.abspath(a.cache or os.path.join(work, "cache"))
    write_proxies(os.path.join(work, "inputs"))
    load_programs(work, a.cache)  # compiled once here; the workers find them in the cache
    camp = Campaign(a, work)
    camp.seed = seed
    if a.selftest:
        return selftest(camp)
    if a.recipes:
        msgs, ended, err = camp.spawn(["--replay"] + [os.path.abspath(r) for r in a.recipes])
        camp.account(msgs)
        if ended:
            camp.crashed(ended, err)
        print("fuzz_pyinputs: %d recipes, %d findings; outcomes: %s" % (len(a.recipes), camp.findings,
                                                                       camp.outcomes))
        return 1 if camp.findings else 0
    regs = sorted(os.path.join(a.regressions, f) for f in os.listdir(a.regressions)) \
        if os.path.isdir(a.regressions) else []
    if regs:
        msgs, ended, err = camp.spawn(["--replay"] + regs)
        for m in msgs:
            if "finding" in m:
                print("fuzz_pyinputs: regression %s fails:\n%s" % (m["file"], m["finding"]))
                return 1
        if ended:
            print("fuzz_pyinputs: regression fails: the worker died (%s):\n%s" % (ended, err))
            return 1
    print("fuzz_pyinputs: %d regressions replayed; seed %d; work %s" % (len(regs), seed, work))
    if a.replay_only:
        return 0
    t0 = time.time()
    until = t0 + a.seconds if a.seconds is not None else None
    run = 0
    runs = 0
    while (a.runs is None or runs < a.runs) and (until is None or time.time() < until):
        count = a.batch if a.runs is None else min(a.batch, a.runs - runs)
        extra = ["--first", str(run), "--count", str(count)] + (["--until", str(until)] if until else [])
        msgs, ended, err = camp.spawn(extra)
        if ended == "exit status 3":
            print("fuzz_pyinputs: the harness failed to make a recipe:\n%s" % err)
            return 2
        n = camp.account(msgs)
        if ended:
            dead = camp.crashed(ended, err)
            n = (dead - run + 1) if dead is not None else count
        runs += n
        run += n
    secs = time.time() - t0
    print("stat::number_of_executed_units: %d" % runs)
    print("fuzz_pyinputs: %d executions in %.0f s (%.0f/s), %d findings%s" % (
        runs, secs, runs / secs if secs else 0, camp.findings,
        "".join("\n  %d x %s" % (n, k) for k, n in sorted(camp.kinds.items(), key=lambda x: -x[1]))))
    print("fuzz_pyinputs: outcomes: " + "; ".join("%s %d" % kv for kv in
                                                   sorted(camp.outcomes.items(), key=lambda x: -x[1])))
    if a.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if camp.findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
