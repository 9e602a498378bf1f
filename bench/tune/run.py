#!/usr/bin/env python3
"""bench/tune/run.py -- default against tuned run-time schedules (diderotc
--tune=quick), measured in ONE interleaved run.

For every workload (examples/ programs on their example data): build the
OpenMP executable with the default schedule (an empty cache directory, so no
cached entry is taken) and with --tune=quick on the same arguments (a fresh
cache directory under the work folder: the tuning really runs), then time
both in rounds: every round runs every workload's default and tuned builds
back to back, alternating which goes first, so that load changes hit both
alike. Times are the programs' own --timing (the run, not loading inputs).
The outputs of the two builds are compared byte for byte on every run.

The machine is shared: the load average is sampled before, during (every
round) and after, and printed with the numbers; report them as loaded
figures.

Usage: python3 bench/tune/run.py [--build build] [--rounds 7] [--only mip,lic] [--mode quick|full]

--mode full tunes with --tune=full (more values, and the structural keys
strand-layout and simd, each a build of its own).
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
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "examples", "data")

# name -> (source under examples/, arguments)
WORKLOADS = {
    "mip": ("mip/mip.diderot", ["-vol", DATA + "/blobs.nrrd", "-imgResU", "320", "-imgResV", "240"]),
    "lic": ("lic/lic.diderot", ["-flow", DATA + "/sqflow2D-1608.nrrd", "-noise", DATA + "/noise.nrrd"]),
    "dvr": ("paraview/dvr.diderot", ["-vol", DATA + "/blobs.nrrd"]),
}


def load():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def env_with(cache):
    env = dict(os.environ)
    env["XDG_CACHE_HOME"] = cache
    env["DIDEROT_RT_DIR"] = env.get("DIDEROT_RT_DIR", "")
    if not env["DIDEROT_RT_DIR"]:
        del env["DIDEROT_RT_DIR"]
    for k in list(env):
        if k.startswith("DIDEROT_SCHED_"):
            del env[k]
    return env


def run_timed(exe, args, d, env):
    os.makedirs(d, exist_ok=True)
    p = subprocess.run([exe] + args + ["--timing", "--quiet"], cwd=d, capture_output=True,
                       text=True, env=env)
    if p.returncode:
        sys.exit("%s failed: %s" % (exe, p.stderr[-500:]))
    m = re.search(r"^usr=([0-9.]+)", p.stdout, re.M)
    outs = {}
    for f in sorted(os.listdir(d)):
        with open(os.path.join(d, f), "rb") as fh:
            outs[f] = fh.read()
    shutil.rmtree(d)
    return float(m.group(1)), outs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", default="")
    ap.add_argument("--mode", choices=["quick", "full"], default="quick")
    o = ap.parse_args()
    build = os.path.abspath(o.build)
    diderotc = os.path.join(build, "diderotc")
    work = os.path.join(build, "bench-tune")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    names = [n for n in WORKLOADS if not o.only or n in o.only.split(",")]
    no_cache, cache = os.path.join(work, "no-cache"), os.path.join(work, "cache")
    loads = [load()]
    print("machine: %d CPUs, %s; load average before: %.2f" % (
        os.cpu_count(), open("/proc/cpuinfo").read().split("model name")[1].split(":")[1].split("\n")[0].strip(),
        loads[0]))
    print("date: %s" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    info = {}
    for n in names:
        src, args = WORKLOADS[n]
        src = os.path.join(ROOT, "examples", src)
        t0 = time.time()
        p = subprocess.run([diderotc, "--exec", "--target=omp", "-o", os.path.join(work, n + "-default"),
                            src], capture_output=True, text=True, env=env_with(no_cache))
        t1 = time.time()
        if p.returncode:
            sys.exit("build %s: %s" % (n, p.stderr))
        q = subprocess.run([diderotc, "--exec", "--target=omp", "--tune=" + o.mode, "--tune-args",
                            " ".join(args), "-o", os.path.join(work, n + "-tuned"), src],
                           capture_output=True, text=True, env=env_with(cache))
        t2 = time.time()
        if q.returncode:
            sys.exit("tune %s: %s" % (n, q.stderr))
        m = re.search(r"^diderotc: tuned in ([0-9.]+) s \((.*)\): (\S.*?)(; cached in .*)?$", q.stderr, re.M)
        info[n] = {"build": t1 - t0, "tune_compile": t2 - t1, "tuned_in": float(m.group(1)) if m else None,
                   "choice": m.group(3) if m else "?", "line": m.group(2) if m else q.stderr[-300:]}
        print("%s: default build %.1f s; --tune=%s build %.1f s (tuning %.1f s): %s" % (
            n, t1 - t0, o.mode, t2 - t1, info[n]["tuned_in"] or -1, info[n]["choice"]))
    times = {n: {"default": [], "tuned": []} for n in names}
    for r in range(o.rounds):
        for n in names:
            _, args = WORKLOADS[n]
            order = ("default", "tuned") if r % 2 == 0 else ("tuned", "default")
            outs = {}
            for kind in order:
                t, outs[kind] = run_timed(os.path.join(work, "%s-%s" % (n, kind)), args,
                                          os.path.join(work, "run"), env_with(no_cache))
                times[n][kind].append(t)
            if outs["default"] != outs["tuned"]:
                sys.exit("%s: the tuned build's outputs differ from the default's" % n)
        loads.append(load())
    print("load average: before %.2f, during %.2f-%.2f (mean %.2f), after %.2f" % (
        loads[0], min(loads[1:]), max(loads[1:]), statistics.mean(loads[1:]), load()))
    print("%d interleaved rounds; seconds of each run's --timing; outputs equal on every run" % o.rounds)
    print("| workload | tuned schedule | tuning (s) | default min / median | tuned min / median | median ratio | min ratio |")
    print("|---|---|---|---|---|---|---|")
    for n in names:
        d, t = times[n]["default"], times[n]["tuned"]
        print("| %s | %s | %.1f | %.3f / %.3f | %.3f / %.3f | %.2fx | %.2fx |" % (
            n, info[n]["choice"], info[n]["tuned_in"] or -1, min(d), statistics.median(d), min(t),
            statistics.median(t), statistics.median(d) / statistics.median(t), min(d) / min(t)))


if __name__ == "__main__":
    main()
