#!/usr/bin/env python3
"""run.py -- the particle benchmark (bench/particles/README.md).

    python3 bench/particles/run.py BUILD [--runs R] [--omp N] [--dims 2,3] [--sizes S,...]

Compiles particles2/3.diderot with BUILD/diderotc --exec (sequential, or
--target=omp run with -n N), then for every size runs the program for S0 = 2
and S1 = 12 super-steps, R times each (round-robin), and reports the best
times: per super-step = (T(S1) - T(S0)) / (S1 - S0), which cancels start-up,
strand creation and output. T is the CPU time (user + system, os.wait4) of
the sequential program, which a loaded machine disturbs much less than the
wall time; with --omp it is the wall time. Memory: the peak RSS of the S1 run
(os.wait4); bytes per strand = the RSS growth between the smallest and the
largest size divided by the growth in strands. Prints a Markdown table.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
S0, S1 = 2, 12
# particles per row: m^2 (2-D) or m^3 (3-D) strands
SIZES = {2: [316, 548, 1000], 3: [46, 67, 100]}


def run(cmd, wall_clock):
    """(seconds, peak RSS in bytes) of one run: wall or CPU time."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    err = p.stderr.read().decode()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), err))
    return (wall if wall_clock else ru.ru_utime + ru.ru_stime), ru.ru_maxrss * 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--omp", type=int, default=0, help="OpenMP target with -n N")
    ap.add_argument("--dims", default="2,3")
    ap.add_argument("--sizes", default="", help="particles per row, e.g. 316,1000")
    a = ap.parse_args()
    diderotc = os.path.join(os.path.abspath(a.build), "diderotc")
    env = dict(os.environ, DIDEROT_RT_DIR=os.path.abspath(a.build))
    work = tempfile.mkdtemp(prefix="particles-")
    print("| dim | n | steps/s | ms / super-step | ns / strand-step | growth vs n | peak RSS MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for d in [int(x) for x in a.dims.split(",")]:
        exe = os.path.join(work, "p%d" % d)
        flags = ["--target=omp"] if a.omp else []
        subprocess.run([diderotc, "-w", "--exec"] + flags + ["-o", exe,
                        os.path.join(HERE, "particles%d.diderot" % d)], env=env, check=True)
        sizes = [int(x) for x in a.sizes.split(",")] if a.sizes else SIZES[d]
        best = {}
        for _ in range(a.runs):
            for m in sizes:
                for s in (S0, S1):
                    cmd = [exe, "-m", str(m), "-steps", str(s), "-o", os.path.join(work, "pos.nrrd")]
                    if a.omp:
                        cmd += ["-n", str(a.omp)]
                    w, rss = run(cmd, bool(a.omp))
                    b = best.get((m, s))
                    best[(m, s)] = (min(w, b[0]), max(rss, b[1])) if b else (w, rss)
        first = None
        rows = []
        for m in sizes:
            n = m ** d
            per = (best[(m, S1)][0] - best[(m, S0)][0]) / (S1 - S0)
            ns = per / n * 1e9
            if first is None:
                first = (n, ns, best[(m, S1)][1])
            rows.append((n, per, ns, best[(m, S1)][1]))
            print("| %d | %d | %.1f | %.1f | %.0f | %.2f | %.1f |" % (
                d, n, 1 / per if per > 0 else float("inf"), per * 1e3, ns, ns / first[1],
                best[(m, S1)][1] / 2 ** 20))
        (n0, _, r0), (n1, _, _, r1) = first, rows[-1]
        if n1 > n0:
            print("| %d | bytes/strand (RSS growth %d → %d) | | | | | %.0f |" % (
                d, n0, n1, (r1 - r0) / (n1 - n0)))
    print("\n(best of %d runs; %s; S0 = %d, S1 = %d)" % (
        a.runs, "--target=omp -n %d, wall time" % a.omp if a.omp else "sequential, CPU time",
        S0, S1))


if __name__ == "__main__":
    main()
