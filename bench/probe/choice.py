"""choice.py -- does a kernel (and border control) chosen at run time cost
probe speed? (doc/language.md §6.9: kernel and border inputs.)

usage: python3 bench/probe/choice.py BUILD [RUNS=10] [RES=100]

From probe_bspln3.diderot it makes four programs and builds them with
BUILD/diderotc --exec (seq target) in $BENCH_WORK (default
/tmp/bench-probe-choice):
  fixed      vol ⊛ bspln3                      (the benchmark as it is)
  kernel     vol ⊛ k, input kernel#2 k = bspln3
  fixed_bc   clamp(vol) ⊛ bspln3
  kernel_bc  bc(vol) ⊛ k, input border bc = clamp
and runs RUNS rounds of the four, in turn (interleaved, so the load of
other jobs falls on all of them), on the same 128^3 float volume at RES^3
points, the choice programs with -k bspln3 (-bc clamp). Prints the best
and median of the probing loop's CPU and wall seconds (-t), the ratios of
the best CPU times, the load average, and checks that each choice program
wrote the same outputs as its fixed twin (max abs difference, 0 expected).
"""

import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


sys.path.insert(0, HERE)
from ab import floats, sh  # noqa: E402  (the probe benchmark's helpers)


VARIANTS = {
    "fixed": ("", "vol ⊛ bspln3", []),
    "kernel": ("input kernel#2 k = bspln3;\n", "vol ⊛ k", ["-k", "bspln3"]),
    "fixed_bc": ("", "clamp(vol) ⊛ bspln3", []),
    "kernel_bc": ("input kernel#2 k = bspln3;\ninput border bc = clamp;\n", "bc(vol) ⊛ k",
                  ["-k", "bspln3", "-bc", "clamp"]),
}
PAIRS = [("kernel", "fixed"), ("kernel_bc", "fixed_bc")]


def main():
    bd = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    res = sys.argv[3] if len(sys.argv) > 3 else "100"
    work = os.environ.get("BENCH_WORK", "/tmp/bench-probe-choice")
    os.makedirs(work, exist_ok=True)
    cc = os.environ.get("CC", "cc")
    sh([cc, "-O2", "-o", os.path.join(work, "gen_vol"), os.path.join(HERE, "gen_vol.c"), "-lm"])
    if not os.path.exists(os.path.join(work, "vol.nrrd")):
        sh(["./gen_vol", "vol.nrrd", "128"], cwd=work)
    base = open(os.path.join(HERE, "probe_bspln3.diderot")).read()
    env = dict(os.environ, DIDEROT_RT_DIR=bd)
    for name, (decls, field, _) in VARIANTS.items():
        src = base.replace("field#2(3)[] F = vol ⊛ bspln3;", decls + "field#2(3)[] F = %s;" % field)
        assert src != base or name == "fixed"
        with open(os.path.join(work, name + ".diderot"), "w") as f:
            f.write(src)
        sh([os.path.join(bd, "diderotc"), "--exec", name + ".diderot", "-o", name], env=env, cwd=work)
    times = {n: [] for n in VARIANTS}
    loads = []
    for _ in range(runs):
        loads.append(open("/proc/loadavg").read().split()[0])
        for name, (_, _, args) in VARIANTS.items():
            out = sh(["./" + name, "-t", "-vol", "vol.nrrd", "-res", res] + args +
                     ["-o-v", "v_%s.nrrd" % name, "-o-g", "g_%s.nrrd" % name, "-o-h", "h_%s.nrrd" % name],
                     cwd=work)
            m = re.search(r"usr=([0-9.]+) cpu=([0-9.]+)", out)
            times[name].append((float(m.group(2)), float(m.group(1))))
    print("machine: %d CPUs; load average (1 min) at each round: %s" % (os.cpu_count(), " ".join(loads)))
    print("build = %s\n%d rounds, %s^3 points\n" % (bd, runs, res))
    print("| program | CPU best s | CPU median s | wall best s | wall median s |")
    print("|---|---|---|---|---|")
    for name in VARIANTS:
        cpu = [c for c, _ in times[name]]
        wall = [w for _, w in times[name]]
        print("| %s | %.4f | %.4f | %.4f | %.4f |" % (name, min(cpu), statistics.median(cpu), min(wall),
                                                      statistics.median(wall)))
    for a, b in PAIRS:
        ca, cb = min(c for c, _ in times[a]), min(c for c, _ in times[b])
        ma = statistics.median(c for c, _ in times[a])
        mb = statistics.median(c for c, _ in times[b])
        diff = max(max(abs(x - y) for x, y in zip(floats(os.path.join(work, "%s_%s.nrrd" % (o, a))),
                                                  floats(os.path.join(work, "%s_%s.nrrd" % (o, b)))))
                   for o in ("v", "g", "h"))
        print("%s / %s: best CPU %.3f, median CPU %.3f; max abs difference of the outputs %.3g"
              % (a, b, ca / cb, ma / mb, diff))


if __name__ == "__main__":
    main()
