"""ab.py -- the probe benchmark's executables built by two compilers, run
interleaved: does a compiler change cost probe speed?

usage: python3 bench/probe/ab.py BUILD_A BUILD_B [RUNS=15] [RES=100]

BUILD_A and BUILD_B are configured build directories (diderotc and
libdiderot-rt.a). Each builds probe_bspln3 and probe_ctmr (--exec, seq
target) in $BENCH_WORK (default /tmp/bench-probe-ab); then RUNS rounds run
the four executables once each, in turn, on the same 128^3 float volume at
RES^3 points. Prints, per kernel and build, the best and median of the
probing loop's CPU and wall seconds as the executables report them (-t), and
checks that A and B wrote the same outputs (max abs difference). Interleaving
spreads the load of other jobs over both builds; on a shared machine compare
the best times. (Used for the "One build, any image" measurement of
bench/results.md: compile-time proxy sizes vs sizes read at run time.)
"""

import os
import re
import statistics
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def sh(argv, env=None, cwd=None):
    return subprocess.run(argv, env=env, cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def floats(path):
    """The samples of a raw little-endian float NRRD (our outputs)."""
    blob = open(path, "rb").read()
    data = blob[blob.index(b"\n\n") + 2:]
    return struct.unpack("<%df" % (len(data) // 4), data)


def main():
    a, b = (os.path.abspath(p) for p in sys.argv[1:3])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    res = sys.argv[4] if len(sys.argv) > 4 else "100"
    work = os.environ.get("BENCH_WORK", "/tmp/bench-probe-ab")
    os.makedirs(work, exist_ok=True)
    cc = os.environ.get("CC", "cc")
    sh([cc, "-O2", "-o", os.path.join(work, "gen_vol"), os.path.join(HERE, "gen_vol.c"), "-lm"])
    if not os.path.exists(os.path.join(work, "vol.nrrd")):
        sh(["./gen_vol", "vol.nrrd", "128"], cwd=work)
    kernels = ["bspln3", "ctmr"]
    builds = {"A": a, "B": b}
    for k in kernels:
        src = "probe_%s.diderot" % k
        with open(os.path.join(HERE, src)) as fi, open(os.path.join(work, src), "w") as fo:
            fo.write(fi.read())
        for tag, bd in builds.items():
            env = dict(os.environ, DIDEROT_RT_DIR=bd)
            sh([os.path.join(bd, "diderotc"), "--exec", src, "-o", "p_%s_%s" % (k, tag)],
               env=env, cwd=work)
    times = {(k, t): [] for k in kernels for t in builds}
    for _ in range(runs):
        for k in kernels:
            for tag in builds:
                out = sh(["./p_%s_%s" % (k, tag), "-t", "-vol", "vol.nrrd", "-res", res,
                          "-o-v", "v_%s_%s.nrrd" % (k, tag), "-o-g", "g_%s_%s.nrrd" % (k, tag)]
                         + (["-o-h", "h_%s_%s.nrrd" % (k, tag)] if k == "bspln3" else []),
                         cwd=work)
                m = re.search(r"usr=([0-9.]+) cpu=([0-9.]+)", out)
                times[(k, tag)].append((float(m.group(2)), float(m.group(1))))
    print("machine: %d CPUs; load average %s" % (os.cpu_count(),
                                                 open("/proc/loadavg").read().split()[:3]))
    print("A = %s\nB = %s\n%d rounds, %s^3 points\n" % (a, b, runs, res))
    print("| kernel | build | CPU best s | CPU median s | wall best s | wall median s |")
    print("|---|---|---|---|---|---|")
    for k in kernels:
        for tag in builds:
            cpu = [c for c, _ in times[(k, tag)]]
            wall = [w for _, w in times[(k, tag)]]
            print("| %s | %s | %.4f | %.4f | %.4f | %.4f |" % (
                k, tag, min(cpu), statistics.median(cpu), min(wall), statistics.median(wall)))
        ca = min(c for c, _ in times[(k, "A")])
        cb = min(c for c, _ in times[(k, "B")])
        outs = ["v", "g"] + (["h"] if k == "bspln3" else [])
        diff = max(max(abs(x - y) for x, y in zip(floats(os.path.join(work, "%s_%s_A.nrrd" % (o, k))),
                                                  floats(os.path.join(work, "%s_%s_B.nrrd" % (o, k)))))
                   for o in outs)
        print("| %s | B/A (best CPU) | %.3f | | | |" % (k, cb / ca))
        print("| %s | max abs difference of the outputs, A vs B | %.3g | | | |" % (k, diff))


if __name__ == "__main__":
    main()
