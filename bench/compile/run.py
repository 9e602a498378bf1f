#!/usr/bin/python3
"""run.py -- compile time on the differential generator's programs: each
seed's program (tests/differential/gen.py, with its images) compiled to an
executable by every compiler given, interleaved, wall seconds per program.

    /usr/bin/python3 bench/compile/run.py --seeds 12040-12059 \\
        --ours NAME=BUILD/diderotc [--ours NAME=DIDEROTC ...] [--reference DIDEROTC]

Prints one row per seed (the program's LowIR size from our first compiler's
--stats, then each compiler's seconds) and the totals. The original runs
with tests/differential/pch first on PATH (its precompiled-header g++, as in
the campaigns). Run it under /var/tmp/quiet.sh on a shared machine."""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "differential"))
sys.path.insert(0, os.path.join(TOP, "tests", "oracle"))
import gen  # noqa: E402


def timed(argv, cwd, env=None):
    t0 = time.perf_counter()
    r = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return time.perf_counter() - t0, r.returncode, r.stdout.decode("utf-8", "replace")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="12040-12059", help="A-B (inclusive)")
    ap.add_argument("--ours", action="append", required=True, metavar="NAME=DIDEROTC")
    ap.add_argument("--reference", help="the original's diderotc")
    a = ap.parse_args()
    lo, hi = (int(x) for x in a.seeds.split("-"))
    comps = [(n, os.path.abspath(p)) for n, p in (c.split("=", 1) for c in a.ours)]
    if a.reference:
        a.reference = os.path.abspath(a.reference)
    env_ref = dict(os.environ, PATH=os.path.join(TOP, "tests", "differential", "pch") + ":"
                   + os.environ.get("PATH", ""))
    if a.reference:
        teem = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(a.reference)))), "teem", "bin")
        if os.path.isdir(teem):
            env_ref["PATH"] = teem + ":" + env_ref["PATH"]
        if os.path.isdir("/var/tmp/campaign/pch"):
            env_ref.setdefault("DIDEROT_PCH_CACHE", "/var/tmp/campaign/pch")
    names = [n for n, _ in comps] + (["original"] if a.reference else [])
    print("| seed | LowIR statements | " + " | ".join(n + " s" for n in names) + " |")
    print("|---|---|" + "---|" * len(names))
    total = [0.0] * len(names)
    work = tempfile.mkdtemp(prefix="diderot-bench-compile-")
    try:
        for n in range(lo, hi + 1):
            pdir = os.path.join(work, "p%d" % n)
            gen.generate(n, pdir)
            stats = subprocess.run([comps[0][1], "--stats", "-o", os.path.join(pdir, "st"),
                                    "prog.diderot"], cwd=pdir, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT).stdout.decode()
            m = re.search(r"size low\.dce blocks \d+ instrs (\d+)", stats)
            row = []
            for k, name in enumerate(names):
                d = os.path.join(pdir, name)
                os.makedirs(d)
                for f in os.listdir(pdir):
                    if f.endswith(".nrrd") or f == "prog.diderot":
                        shutil.copy(os.path.join(pdir, f), d)
                dc = comps[k][1] if k < len(comps) else a.reference
                secs, rc, out = timed([dc, "--exec", "prog.diderot"], d,
                                      env_ref if name == "original" else None)
                row.append("%.2f%s" % (secs, "" if rc == 0 else " (exit %d)" % rc))
                total[k] += secs
            print("| %d | %s | %s |" % (n, m.group(1) if m else "?", " | ".join(row)), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("| **total** | | " + " | ".join("%.1f" % t for t in total) + " |")


if __name__ == "__main__":
    main()
