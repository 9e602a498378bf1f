#!/usr/bin/env python3
"""interleave.py -- time builds of one program against each other.

    python3 bench/examples/interleave.py N EXE... -- ARG...

Runs every EXE with the arguments ARG, N times each, interleaved (the order
rotating each round), each EXE in its own directory d_NAME beside it (made
once and kept, so that later runs replace the files earlier runs wrote, as
a user's repeated runs do; inputs are best named with absolute paths).
Prints per EXE the minimum and median wall and user+system CPU seconds and
the median number of voluntary context switches (os.wait4). Used for the
snapshot writer's A/B (bench/results.md, thirteenth session)."""
import os
import statistics
import subprocess
import sys
import time


def main(argv):
    if len(argv) < 4 or "--" not in argv:
        sys.exit(__doc__)
    n = int(argv[1])
    cut = argv.index("--")
    exes = [os.path.abspath(e) for e in argv[2:cut]]
    args = argv[cut + 1:]
    res = {e: [] for e in exes}
    for e in exes:
        os.makedirs(os.path.join(os.path.dirname(e), "d_" + os.path.basename(e)), exist_ok=True)
    for i in range(n):
        k = i % len(exes)
        for e in exes[k:] + exes[:k]:
            d = os.path.join(os.path.dirname(e), "d_" + os.path.basename(e))
            t = time.time()
            p = subprocess.Popen([e] + args, cwd=d, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            _, status, ru = os.wait4(p.pid, 0)
            if status != 0:
                sys.exit("%s exited with status %d" % (e, status))
            res[e].append((time.time() - t, ru.ru_utime + ru.ru_stime, ru.ru_nvcsw))
    for e in exes:
        w = [x[0] for x in res[e]]
        c = [x[1] for x in res[e]]
        s = [x[2] for x in res[e]]
        print("%-24s wall min %.3f med %.3f  CPU min %.3f med %.3f  voluntary switches med %d"
              % (os.path.basename(e), min(w), statistics.median(w), min(c),
                 statistics.median(c), statistics.median(s)))


if __name__ == "__main__":
    main(sys.argv)
