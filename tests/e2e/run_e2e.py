#!/usr/bin/env python3
"""run_e2e.py -- the end-to-end test suite of diderotc.

    python3 tests/e2e/run_e2e.py --srcdir=SRC --builddir=BUILD [-k FILTER]
                                 [-j N] [-v] [--keep] [--perturb]

Tests (all names start with e2e/, so that tests/run.py -k can select them):
  e2e/oracle/NAME    self-checks of the oracles (tests/e2e/selftest.py):
                     they need no compiler and show that the oracles agree
                     with closed forms, with Teem and can tell right from wrong;
  e2e/NAME[VARIANT]  tests/e2e/programs/NAME.diderot with its companion
                     NAME.py (see e2elib.py): inputs are generated, the program
                     is compiled with BUILD/diderotc --exec (DIDEROT_RT_DIR=BUILD),
                     run in BUILD/tests/e2e/NAME-VARIANT/, and its outputs are
                     checked against oracle values computed in Python.

A program whose compilation fails with "not yet supported" is skipped with
that reason. --perturb shifts every expected value (and the last expected
size of every layout check) so that every program test that runs must fail:
a check on the checks. --keep keeps the work directories of passing tests
(those of failing tests are always kept).

One line per failure (details indented), a line per test with -v, and the
last line `N passed, N failed, N skipped`; exit status 1 when anything failed.
Python 3 standard library only.
"""

import argparse
import concurrent.futures
import importlib.util
import os
import shutil
import sys
import traceback

sys.dont_write_bytecode = True   # leave no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.join(HERE, "programs"))  # companions may share code
import e2elib  # noqa: E402
from e2elib import Abort, Skip  # noqa: E402


class Outcome:
    def __init__(self, name, status, details=()):
        self.name, self.status, self.details = name, status, list(details)


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def collect(args):
    """(test name, callable returning an Outcome) for every test."""
    tests = []
    selftest = load_module(os.path.join(HERE, "selftest.py"), "e2e_selftest")
    for name, fn in selftest.TESTS:
        n = "e2e/oracle/" + name
        tests.append((n, lambda n=n, f=fn: run_selftest(n, f, args)))
    progdir = os.path.join(HERE, "programs")
    for f in sorted(os.listdir(progdir)):
        if not f.endswith(".diderot"):
            continue
        stem = f[:-len(".diderot")]
        companion = os.path.join(progdir, stem + ".py")
        if not os.path.exists(companion):
            tests.append(("e2e/" + stem, lambda n="e2e/" + stem:
                          Outcome(n, "fail", ["no companion .py"])))
            continue
        try:
            mod = load_module(companion, "e2e_prog_" + stem)
        except Exception as e:  # a broken companion is one failure, not a crash
            tests.append(("e2e/" + stem, lambda n="e2e/" + stem, e=e:
                          Outcome(n, "fail", ["cannot load companion: %r" % e])))
            continue
        for variant in getattr(mod, "VARIANTS", ["float"]):
            name = "e2e/%s[%s]" % (stem, variant)
            tests.append((name, lambda n=name, m=mod, v=variant, s=stem:
                          run_program(n, m, v, os.path.join(progdir, s + ".diderot"), args)))
    return tests


def run_selftest(name, fn, args):
    try:
        problems = fn()
    except Skip as e:
        return Outcome(name, "skip", [str(e)])
    except Exception:
        return Outcome(name, "fail", ["harness error:"] + traceback.format_exc().splitlines())
    return Outcome(name, "fail", problems) if problems else Outcome(name, "pass")


def run_program(name, mod, variant, program, args):
    for exe in getattr(mod, "REQUIRES", []):
        if shutil.which(exe) is None:
            return Outcome(name, "skip", ["needs %s" % exe])
    diderotc = os.path.abspath(args.diderotc or os.path.join(args.builddir, "diderotc"))
    if not os.access(diderotc, os.X_OK):
        return Outcome(name, "fail", ["no compiler at %s" % diderotc])
    workdir = os.path.join(args.builddir, "tests", "e2e", name[len("e2e/"):].replace(
        "[", "-").replace("]", "").replace("+", "-"))
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    t = e2elib.T(name, program, workdir, variant, args.srcdir, args.builddir, diderotc,
                 perturb=args.perturb, fake=args.fake)
    status, details = "pass", []
    try:
        mod.run(t)
    except Skip as e:
        status, details = "skip", [str(e)]
    except Abort as e:
        if e.args and e.args[0]:
            t.failures.append(str(e.args[0]))
        if not t.failures:
            t.failures.append("aborted")
    except Exception:
        t.failures += ["harness error:"] + traceback.format_exc().splitlines()
    if status == "pass" and t.failures:
        status, details = "fail", t.failures + ["(work directory %s)" % workdir]
    if status != "fail" and not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return Outcome(name, status, details)


def main(argv):
    ap = argparse.ArgumentParser(description="Run the diderotc end-to-end tests.")
    ap.add_argument("--srcdir", required=True)
    ap.add_argument("--builddir", required=True)
    ap.add_argument("--diderotc", help="the compiler (default BUILD/diderotc)")
    ap.add_argument("-k", dest="filter", default="", help="run tests whose name contains this")
    ap.add_argument("-j", dest="jobs", type=int, default=1, help="parallel tests (default 1)")
    ap.add_argument("-v", dest="verbose", action="store_true", help="a line per test")
    ap.add_argument("--keep", action="store_true", help="keep all work directories")
    ap.add_argument("--perturb", action="store_true",
                    help="perturb every expected value: every program test that runs must fail")
    ap.add_argument("--fake", action="store_true",
                    help="check the harness: no compiler, every output is zeros of the "
                    "expected layout; every program test must fail without a harness error")
    args = ap.parse_args(argv)
    args.srcdir = os.path.abspath(args.srcdir)
    args.builddir = os.path.abspath(args.builddir)

    tests = [t for t in collect(args) if args.filter in t[0]]
    counts = {"pass": 0, "fail": 0, "skip": 0}

    def one(test):
        name, fn = test
        try:
            return fn()
        except Exception as e:  # a harness bug must not hide the other results
            return Outcome(name, "fail", ["harness error: %r" % e])

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
            sys.stdout.flush()
    print("%d passed, %d failed, %d skipped" % (counts["pass"], counts["fail"], counts["skip"]))
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
