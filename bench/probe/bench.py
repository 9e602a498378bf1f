"""bench.py -- the probe benchmark's verification and timing (run by run.sh,
in its work directory, after the programs are built).

1. Verify: every variant probes the same 100^3 points once; its value,
   gradient (and Hessian) outputs are compared with hand.c's (max abs
   difference, relative to max(max |ref|, vmax w^k / 2) for a derivative of
   order k; tolerance 1e-5, as in tests/e2e/programs/gage_3d.py).
2. Time: RUNS rounds; in each round every variant runs once (interleaved,
   so that load from other jobs spreads over all of them); the best of the
   rounds is reported: the probing loop's wall and CPU time as each program
   reports it, and the whole process's wall time.

usage: python3 bench.py RUNS RES   (prints Markdown tables)
"""

import os
import re
import resource
import subprocess
import sys
import time

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
RES = int(sys.argv[2]) if len(sys.argv) > 2 else 100
NPTS = RES ** 3
VOL = "vol.nrrd"
VMAX = 1.75  # bound on |f| of gen_vol.c's function
W = (128 - 1) / 2.0  # world-to-index scale of the 128^3 volume on [-1,1]^3
GRID = ["-res", str(RES)]


def outs(kernel):
    return ["v", "g", "h"] if kernel == "bspln3" else ["v", "g"]


def variants(kernel):
    """(name, argv, env, output dir, how the loop time is reported)."""
    v = []
    k = kernel

    def exe(name, prog, extra):
        d = "out/%s-%s" % (k, name)
        argv = ["./" + prog, "-t", "-vol", VOL] + GRID + extra
        for q in outs(k):
            argv += ["-o-" + q, "%s/%s.nrrd" % (d, q)]
        v.append((name, argv, {}, d, "usr"))

    exe("diderotc seq (executable)", "probe_" + k, [])
    exe("diderotc omp 2 threads (executable)", "probe_%s_omp" % k, ["-n", "2"])
    d = "out/%s-lib" % k
    v.append(("diderotc seq (library)", ["./drv_" + k, VOL, d, str(RES)], {}, d, "phases"))
    d = "out/%s-libomp" % k
    v.append(("diderotc omp 2 threads (library)", ["./drvomp_" + k, VOL, d, str(RES), "2"], {}, d,
              "phases"))
    pts = [str(RES), "-0.96875", "0.01953125"]
    d = "out/%s-hand" % k
    v.append(("hand.c seq", ["./hand", k, VOL, d] + pts, {}, d, "probe"))
    d = "out/%s-handomp" % k
    v.append(("hand.c omp 2 threads", ["./hand_omp", k, VOL, d] + pts,
              {"OMP_NUM_THREADS": "2"}, d, "probe"))
    d = "out/%s-gage" % k
    v.append(("gage_probe.c (libteem gage)", ["./gage_probe", k, VOL, d] + pts, {}, d, "probe"))
    return v


def gprobe_argv(kernel, query, out):
    ks = ["-k00", kernel, "-k11", kernel + "d"]
    if kernel == "bspln3":
        ks += ["-k22", kernel + "dd"]
    return (["teem-gprobe", "-i", VOL, "-k", "scalar", "-q", query] + ks +
            ["-pg", "grid.nrrd", "-t", "float", "-o", out, "-v", "0"])


GPROBE_Q = {"v": "v", "g": "gv", "h": "hess"}


def run(argv, env):
    e = dict(os.environ)
    e.update(env)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, env=e, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(argv), p.stdout, p.stderr))
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return p.stdout, wall, cpu


def loop_times(how, out):
    """{phase: (wall, cpu)} from a program's report; wall None if unknown."""
    if how == "usr":  # the executables' -t: usr= wall time of the run, cpu= its CPU time
        m = re.search(r"usr=([0-9.]+)(?: cpu=([0-9.]+))?", out)
        if m.group(2) is None:  # executables built before -t printed cpu=: usr= was clock()
            return {"run": (None, float(m.group(1)))}
        return {"run": (float(m.group(1)), float(m.group(2)))}
    nums = dict()
    for name, w, c in re.findall(r"(\w+) wall=([0-9.]+) cpu=([0-9.]+)", out):
        nums[name] = (float(w), float(c))
    return nums


def verify(kernel, vs):
    ok = True
    ref = "out/%s-hand" % kernel
    print("\n#### %s: verification against hand.c (max abs difference)\n" % kernel)
    print("| variant | output | max abs diff | relative | |")
    print("|---|---|---|---|---|")
    cands = [(n, d) for n, _, _, d, _ in vs if d != ref]
    cands.append(("teem-gprobe", "out/%s-gprobe" % kernel))
    for name, d in cands:
        for order, q in enumerate(outs(kernel)):
            scale = VMAX * W ** order / 2 if order else 0
            p = subprocess.run(["./compare", "%s/%s.nrrd" % (ref, q), "%s/%s.nrrd" % (d, q), "1e-5",
                                str(scale)], capture_output=True, text=True)
            m = re.search(r"max\|a-b\| (\S+), relative to \S+: (\S+) (\w+)", p.stdout)
            if not m:
                sys.exit("compare failed: %s %s" % (p.stdout, p.stderr))
            ok = ok and p.returncode == 0
            print("| %s | %s | %s | %s | %s |" % (name, q, m.group(1), m.group(2), m.group(3)))
    return ok


def fmt(x, nd=3):
    return "—" if x is None else ("%.*f" % (nd, x))


def main():
    loadavg = open("/proc/loadavg").read().split()[:3]
    print("load average before: %s" % " ".join(loadavg))
    allok = True
    results = {}
    for kernel in ["bspln3", "ctmr"]:
        vs = variants(kernel)
        for name, argv, env, d, how in vs:
            os.makedirs(d, exist_ok=True)
            run(argv, env)
        gd = "out/%s-gprobe" % kernel
        os.makedirs(gd, exist_ok=True)
        for q in outs(kernel):
            run(gprobe_argv(kernel, GPROBE_Q[q], "%s/%s.nrrd" % (gd, q)), {})
        allok = verify(kernel, vs) and allok
        best = {}
        for _ in range(RUNS):
            for name, argv, env, d, how in vs:
                out, wall, cpu = run(argv, env)
                b = best.setdefault(name, {"e2e": (1e9, 1e9)})
                b["e2e"] = (min(b["e2e"][0], wall), min(b["e2e"][1], cpu))
                for ph, (w, c) in loop_times(how, out).items():
                    ow, oc = b.get(ph, (None, 1e9))
                    b[ph] = (w if ow is None else (ow if w is None else min(ow, w)), min(oc, c))
            for q in outs(kernel):
                _, wall, cpu = run(gprobe_argv(kernel, GPROBE_Q[q], "%s/%s.nrrd" % (gd, q)), {})
                b = best.setdefault("teem-gprobe -q " + GPROBE_Q[q], {"e2e": (1e9, 1e9)})
                b["e2e"] = (min(b["e2e"][0], wall), min(b["e2e"][1], cpu))
        results[kernel] = best
        report(kernel, best)
    loadavg = open("/proc/loadavg").read().split()[:3]
    print("\nload average after: %s" % " ".join(loadavg))
    if not allok:
        sys.exit("VERIFICATION FAILED")


def report(kernel, best):
    what = "value, gradient, Hessian" if kernel == "bspln3" else "value, gradient"
    print("\n#### %s (%s) at %d points: best of %d\n" % (kernel, what, NPTS, RUNS))
    print("Probing: the loop over the points (positions, probes, stores), as each program "
          "times it; diderotc's library rows: strand creation + run + copying the outputs out, "
          "and the run alone. Ratios are to hand.c seq (CPU) and hand.c of the same thread count "
          "(wall). Process: the whole command (load, probe, save).\n")
    print("| variant | probing wall s | probing CPU s | M probes/s (wall) | ratio wall | ratio CPU | "
          "process wall s | process CPU s |")
    print("|---|---|---|---|---|---|---|---|")
    hs = best["hand.c seq"]["probe"]
    ho = best["hand.c omp 2 threads"]["probe"]
    for name, b in best.items():
        rows = []
        if "phases" in name or "library" in name:
            rows.append((name + ": create+run+outputs", b.get("probe")))
            rows.append((name + ": run only", b.get("run")))
        elif "run" in b:
            rows.append((name + ": run (-t)", b.get("run")))
        elif "probe" in b:
            rows.append((name, b.get("probe")))
        else:
            rows.append((name, None))
        for i, (label, t) in enumerate(rows):
            ref = ho if "omp" in name else hs
            w, c = t if t else (None, None)
            mps = NPTS / w / 1e6 if w else None
            rw = w / ref[0] if w else None
            rc = c / hs[1] if (c is not None and "omp" not in name) else None
            e2e = b["e2e"] if i == 0 else (None, None)
            print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                label, fmt(w), fmt(c), fmt(mps, 2), fmt(rw, 2), fmt(rc, 2), fmt(e2e[0]), fmt(e2e[1])))


main()
