"""corpus_runs.py -- running the conformance corpus's scripts
(tests/conformance, through tools/regress/diderot-regress) with some other
compiler command, and the files the scripts wrote, for the tests that
compare two runs byte for byte (tests/mpi/conformance.py: --target=mpi
against --target=seq; tests/conformance/variants.py: schedules against the
default)."""

import os
import shlex
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REGRESS = os.path.join(TOP, "tools", "regress", "diderot-regress")
SUITE = os.path.join(TOP, "tests", "conformance")
# what the comparison leaves out: the build's own files and the tool's
SKIP_NAMES = {"log.txt", ".script.sh", ".compiles"}
SKIP_SUFFIXES = (".c", ".o", ".h", ".mpi", ".so", ".a", ".log")


def is_program(path):
    with open(path, "rb") as f:
        head = f.read(4)
    return head == b"\x7fELF" or head[:2] == b"#!"


def outputs(folder):
    """path relative to folder -> bytes, for every file the script wrote."""
    got = {}
    for d, _, files in os.walk(folder):
        for n in files:
            p = os.path.join(d, n)
            if n in SKIP_NAMES or n.endswith(SKIP_SUFFIXES) or not os.path.isfile(p) or is_program(p):
                continue
            with open(p, "rb") as f:
                # a script may write its folder's name into a file (dprobe's
                # generated programs say where they were made)
                got[os.path.relpath(p, folder)] = f.read().replace(os.path.abspath(folder).encode(),
                                                                   b"@WORK@")
    return got


def regress(diderotc, out, select, env, jobs=1):
    """The cases that passed and failed, and the tool's output; the work
    folders stay in out/work/CASE."""
    cmd = [sys.executable, REGRESS, SUITE, "--diderotc=" + diderotc, "-j%d" % jobs, "-o", out, "--keep"]
    for k in select:
        cmd += ["-k", k]
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    failed = [l.split()[1] for l in p.stdout.splitlines() if l.startswith("FAIL ")]
    passed = [l.split()[1] for l in p.stdout.splitlines() if l.startswith("PASS ")]
    return passed, failed, p.stdout


def case_problems(base, other, case, ok, whose):
    """What differs between a case's run in folder `other` (its regress
    output) and in `base`: its checks failing (not in ok), a file of base's
    run that differs from `whose` or is missing."""
    if case not in ok:
        return ["its checks fail (%s/report.txt)" % other]
    want = outputs(os.path.join(base, "work", case))
    got = outputs(os.path.join(other, "work", case))
    return (["%s differs from %s" % (f, whose) for f in sorted(want) if f in got and got[f] != want[f]]
            + ["%s is missing" % f for f in sorted(want) if f not in got])


def compare_with_base(tool, diderotc, out, select, base, variants, script, jobs=1):
    """The whole comparison of a tool (its name for messages): the corpus
    run with diderotc in out/BASE_FOLDER (base: (folder, environment,
    "the sequential run's"-like name of it)), then once per variant
    (label, folder, environment) with `script --wrap` as the compiler;
    prints PASS/FAIL per case and variant and `N passed, N failed`, and
    returns the exit status."""
    folder, env, whose = base
    base_dir = os.path.join(out, folder)
    ok_base, bad, log = regress(diderotc, base_dir, select, env, jobs)
    if bad or not ok_base:
        print(log[-3000:])
        print("%s: the %s failed: %s" % (tool, whose[len("the "):-len("'s")], bad or "no case ran"))
        print("0 passed, 1 failed")
        return 1
    wrapper = os.path.join(out, "wrapped-diderotc")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\nexec %s %s --wrap \"$@\"\n" % (shlex.quote(sys.executable),
                                                         shlex.quote(os.path.abspath(script))))
    os.chmod(wrapper, 0o755)
    npass = nfail = 0
    for label, sub, venv in variants:
        vout = os.path.join(out, sub)
        ok, bad, log = regress(wrapper, vout, select, venv, jobs)
        for case in sorted(set(ok_base) | set(ok) | set(bad)):
            problems = case_problems(base_dir, vout, case, ok, whose)
            if problems:
                nfail += 1
                print("FAIL %s %s: %s" % (case, label, "; ".join(problems[:5])))
            else:
                npass += 1
                print("PASS %s %s" % (case, label))
    print("%d passed, %d failed" % (npass, nfail))
    return 1 if nfail else 0
