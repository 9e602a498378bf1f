#!/usr/bin/python3
"""conformance.py -- the conformance corpus (tests/conformance, the public
Diderot examples) under --target=mpi: every case's script run by
tools/regress/diderot-regress once as it is and once for each number of
ranks R, with every `diderotc --exec` build made for --target=mpi and its
executable run as `mpirun --oversubscribe -np R`; the cases must pass their
checks, and every file the scripts write (outputs, text, pictures) must be
byte-identical to the sequential run's.

    conformance.py --diderotc PATH --out DIR [--ranks 2,3] [--chunk 64] [-k CASE]...

Both runs get DIDEROT_SCHED_CHUNK=CHUNK (default 64), so that the strands of
every example are spread over the ranks, and the sequential run has the
same chunks (a reduction's order follows them). Prints `N passed, N failed`
(a case at one R is one test) and exits 1 on a failure.

As the compiler (diderot-regress --diderotc) this file is its own wrapper:
`conformance.py --wrap ...diderotc arguments...` (with CONF_MPI_REAL and
CONF_MPI_NP in the environment) builds an --exec program as OUT.mpi for
--target=mpi (any --target= of the script replaced) and writes OUT as a
shell script that runs it under mpirun; other builds pass through.
"""

import argparse
import os
import shlex
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "conformance"))
from corpus_runs import compare_with_base  # noqa: E402


def wrap(argv):
    real, np = os.environ["CONF_MPI_REAL"], os.environ["CONF_MPI_NP"]
    if "--exec" not in argv:
        os.execv(real, [real] + argv)
    args = [a for a in argv if not a.startswith("--target=")]
    out, src = None, None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-o" and i + 1 < len(args):
            out = args[i + 1]
            i += 2
            continue
        if a.endswith(".diderot"):
            src = a
        i += 1
    if out is None:
        if src is None:
            os.execv(real, [real] + argv)
        out = os.path.splitext(os.path.basename(src))[0]
    rest, i = [], 0
    while i < len(args):
        if args[i] == "-o":
            i += 2
            continue
        rest.append(args[i])
        i += 1
    rc = subprocess.call([real, "--target=mpi"] + rest + ["-o", out + ".mpi"])
    if rc:
        return rc
    exe = os.path.abspath(out + ".mpi")
    # the environment Open MPI needs as root (CI) and on a machine with
    # fewer cores than ranks
    with open(out, "w") as f:
        f.write("#!/bin/sh\nOMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                "OMPI_MCA_rmaps_base_oversubscribe=1 exec mpirun --oversubscribe -np %s %s \"$@\"\n"
                % (np, shlex.quote(exe)))
    os.chmod(out, os.stat(out).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return 0


def main(argv):
    if argv[:1] == ["--wrap"]:
        return wrap(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--diderotc", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ranks", default="2,3")
    ap.add_argument("--chunk", type=int, default=64)
    ap.add_argument("-k", dest="select", action="append", default=[])
    a = ap.parse_args(argv)
    dc = os.path.abspath(a.diderotc)
    env = dict(os.environ, DIDEROT_SCHED_CHUNK=str(a.chunk))
    variants = [("-np %d" % r, "np%d" % r, dict(env, CONF_MPI_REAL=dc, CONF_MPI_NP=str(r)))
                for r in [int(x) for x in a.ranks.split(",") if x.strip()]]
    return compare_with_base("conformance.py", dc, a.out, a.select, ("seq", env, "the sequential run's"),
                             variants, __file__)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
