#!/usr/bin/python3
"""abclock.py -- interleaved A/B timing by task-clock.

usage: python3 bench/abclock.py N 'CMD A' 'CMD B' ...

Runs the shell commands round-robin N times, each under `perf stat -e
task-clock` (the CPU time of the command and its children, to the
microsecond), and prints the minimum and the median per command in ms.
On a shared machine the minimum is the steadier figure; report both. Wrap
it in /var/tmp/quiet.sh (or run it on a quiet machine)."""

import statistics
import subprocess
import sys


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    n, cmds = int(argv[0]), argv[1:]
    res = {c: [] for c in cmds}
    for _ in range(n):
        for c in cmds:
            p = subprocess.run(["perf", "stat", "-x,", "-e", "task-clock", "sh", "-c",
                                c + " >/dev/null 2>&1"], stderr=subprocess.PIPE, text=True)
            res[c].append(float(p.stderr.strip().splitlines()[-1].split(",")[0]))
    for c in cmds:
        v = sorted(res[c])
        print("min %.2f med %.2f  %s" % (v[0], statistics.median(v), c))


if __name__ == "__main__":
    main(sys.argv[1:])
