#!/usr/bin/env python3
"""wall.py -- probe-vgh, the whole program: probe_bspln3.diderot (value,
gradient and Hessian at RES^3 points, 13 floats out per point) built by
diderotc and by the original compiler, run as executables, next to hand.c.

    python3 bench/probe/wall.py --ours BUILD/diderotc [--reference DIDEROTC]
                                [--res 112] [--reps 7] [--work DIR]
                                [--base-rt DIR]

Each repetition runs, interleaved: ours, the original, hand.c (order
rotating). Per program: wall and user+system CPU of the whole run (load,
create, probe, outputs saved over the previous run's files), the probing
loop's time as the program reports it (-t: ours and the original print
"usr=S"; hand.c "probe wall=S"), and the minor page faults. Prints the
medians and the ratios to the original and to hand.c. The grid spans
[-0.96875, 0.96875]^3 of the 128^3 volume (bench/probe/gen_vol.c), inside
bspln3's support for every RES. --base-rt DIR adds ours built against
another runtime (DIDEROT_RT_DIR=DIR: a libdiderot-rt.a, its headers in
DIR/rt), for before/after rows. Run it under /var/tmp/quiet.sh.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "bench", "examples"))
import run as ex  # noqa: E402  (the reference's environment)


def timed(argv, cwd, env):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.read().decode(errors="replace")
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("%s failed (%d): %s" % (" ".join(argv), p.returncode, out[-1000:]))
    m = re.search(r"(?:usr|probe wall)=([0-9.]+)", out)
    return wall, ru.ru_utime + ru.ru_stime, float(m.group(1)) if m else None, ru.ru_minflt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ours", required=True)
    ap.add_argument("--reference", default=ex.default_reference())
    ap.add_argument("--res", type=int, default=112)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--work", default="/var/tmp/diderot-bench-probe-wall-%d" % os.getuid())
    ap.add_argument("--base-rt", help="also ours with DIDEROT_RT_DIR=this")
    ap.add_argument("--cflags", default="-O3 -march=native", help="hand.c's flags")
    a = ap.parse_args()
    w = os.path.abspath(a.work)
    os.makedirs(w, exist_ok=True)
    env = dict(os.environ, NRRD_STATE_VERBOSE_IO="0")
    renv = ex.reference_env(env, a.reference)
    if not os.path.exists(os.path.join(w, "vol.nrrd")):
        subprocess.run(["cc", "-O2", "-o", "gen_vol", os.path.join(HERE, "gen_vol.c"), "-lm"], cwd=w, check=True)
        subprocess.run(["./gen_vol", "vol.nrrd", "128"], cwd=w, check=True)
    subprocess.run("cc %s -o hand '%s/hand.c' -lm" % (a.cflags, HERE), shell=True, cwd=w, check=True)
    benv = dict(env, DIDEROT_RT_DIR=os.path.abspath(a.base_rt)) if a.base_rt else None
    builds = [("ours", os.path.abspath(a.ours), env), ("orig", a.reference, renv)]
    if benv:
        builds.append(("base", os.path.abspath(a.ours), benv))
    for tag, dc, e in builds:
        d = os.path.join(w, tag)
        os.makedirs(d, exist_ok=True)
        shutil.copy(os.path.join(HERE, "probe_bspln3.diderot"), d)
        if not os.path.exists(os.path.join(d, "vol.nrrd")):
            os.symlink("../vol.nrrd", os.path.join(d, "vol.nrrd"))
        subprocess.run([dc, "--exec", "probe_bspln3.diderot"], cwd=d, env=e, check=True,
                       stdout=subprocess.DEVNULL)
    os.makedirs(os.path.join(w, "hand-out"), exist_ok=True)
    lo, hi = -0.96875, 0.96875
    step = (hi - lo) / (a.res - 1)
    pargs = ["-res", str(a.res), "-lo", repr(lo), "-step", repr(step)]
    runs = {
        "ours": (["./probe_bspln3", "-t"] + pargs, os.path.join(w, "ours"), env),
        "orig": (["./probe_bspln3", "-t"] + pargs, os.path.join(w, "orig"), renv),
        "hand": (["./hand", "bspln3", "vol.nrrd", "hand-out", str(a.res), repr(lo), repr(step)], w, env),
    }
    if benv:
        runs["base"] = (["./probe_bspln3", "-t"] + pargs, os.path.join(w, "base"), env)
    order = list(runs)
    res = {k: [] for k in runs}
    for r in range(a.reps):
        for k in order[r % len(order):] + order[:r % len(order)]:
            res[k].append(timed(*runs[k]))
    med = {k: [statistics.median(x[i] for x in v) if None not in [x[i] for x in v] else None
               for i in range(4)] for k, v in res.items()}
    print("probe-vgh: %d^3 = %d strands, median of %d" % (a.res, a.res ** 3, a.reps))
    print("| program | wall s | best wall s | CPU s | loop (-t) s | minor faults | wall / original | loop / hand.c |")
    print("|---|---|---|---|---|---|---|---|")
    for k in order:
        m = med[k]
        print("| %s | %.3f | %.3f | %.3f | %s | %d | %.2f | %s |" % (
            {"ours": "diderotc", "orig": "original", "hand": "hand.c",
             "base": "diderotc, --base-rt"}[k], m[0], min(x[0] for x in res[k]), m[1],
            "%.3f" % m[2] if m[2] is not None else "—", m[3], m[0] / med["orig"][0],
            "%.2f" % (m[2] / med["hand"][2]) if m[2] is not None else "—"))


if __name__ == "__main__":
    main()
