#!/usr/bin/env python3
"""device_run.py -- what the GPU machine runs (see README.md beside this).

    python3 bench/gpu/device_run.py --payload .device-carry/gpu/payload.tar.xz
                                    --out OUTDIR [--deadline SECONDS]
                                    [--force-gpu] [--quick] [--only SECTIONS]

Unpacks the payload made by prepare.py and, each step under its own timeout
and the whole under --deadline (steps that would start too late are
skipped and listed), runs:

  info    nvidia-smi, nvidia-smi -q (head), lscpu, memory, CPU flags
  ceil    bin/ceil: the card's copy bandwidth and fp32 FMA rate
  run     tests/programs/run/NAME built by nvcc (gpu, and gpu-nofma: nvcc
          -fmad=false): the oracle's checks (tests/run.py) and the outputs
          against the C target's made on the build machine: byte-identical,
          or within the suite's CUDA_GPU_RTOL (max relative difference shown)
  lib     tests/cuda/NAME: the nvcc library's client, its oracle, and its
          outputs against the C client's
  ex      conformance examples, gpu and gpu-nofma against the C target
  probe   the probe benchmark (bspln3 value+gradient+Hessian) at 1M and 16M
          points on 128^3 and 512^3 volumes: GPU (plain, and with the timing
          shim: kernel time by CUDA events), the compiler before the fix
          (gpu-before), OpenMP with 1, 4, 16 threads; GPU vs OpenMP outputs
  mip     examples/mip at 1024^2 and 4096^2 rays, same builds
  dvr     the conformance dvr example at 1024^2 and 4096^2 rays

Without a GPU (nvidia-smi fails) the GPU steps are skipped unless
--force-gpu (a payload built with prepare.py --emulate: the "gpu" binaries
are CPU emulations). --quick shrinks the benchmark sizes (local tests).
Writes OUTDIR/summary.md (the tables), OUTDIR/results.json (every number),
OUTDIR/info.txt and OUTDIR/logs.tar.gz (each step's output); prints the
summary last.
"""

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "tests"))
sys.path.insert(0, os.path.join(SRC, "tests", "oracle"))
import run as suite  # noqa: E402
import nrrd as nrrdpy  # noqa: E402

try:
    import numpy as np
except ImportError:  # the comparisons fall back to tests/oracle/nrrd.py
    np = None


class Deadline(Exception):
    pass


import threading  # noqa: E402
LOCK = threading.Lock()


class Ctx:
    def __init__(self, args):
        self.t0 = time.time()
        self.deadline = args.deadline
        self.out = os.path.abspath(args.out)
        os.makedirs(self.out, exist_ok=True)
        self.logs = {}          # name -> text
        self.results = {"skipped_steps": []}
        self.summary = []
        self.quick = args.quick
        self.work = tempfile.mkdtemp(prefix="gpu-run-")
        with tarfile.open(args.payload) as tf:
            try:
                tf.extractall(self.work, filter="data")
            except TypeError:  # Python before 3.12
                tf.extractall(self.work)
        self.pl = os.path.join(self.work, "payload")
        with open(os.path.join(self.pl, "manifest.json")) as fh:
            self.manifest = json.load(fh)
        lib = os.path.join(self.pl, "lib")
        os.environ["LD_LIBRARY_PATH"] = lib + (":" + os.environ["LD_LIBRARY_PATH"]
                                               if os.environ.get("LD_LIBRARY_PATH") else "")
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")
        try:
            self.gpu = subprocess.run(["nvidia-smi"], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, timeout=60).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            self.gpu = False
        self.force = args.force_gpu
        self.ncpu = os.cpu_count() or 1

    def left(self):
        return self.deadline - (time.time() - self.t0)

    def need(self, secs, what):
        """Raise Deadline when fewer than secs remain."""
        if self.left() < secs:
            self.results["skipped_steps"].append(what)
            say("SKIP %s: %.0f s left of the deadline" % (what, self.left()))
            raise Deadline(what)

    def log(self, name, text):
        with LOCK:
            self.logs[name] = self.logs.get(name, "") + text

    def p(self, rel):
        return os.path.join(self.pl, rel)


def say(*a):
    print(*a, flush=True)


def run(ctx, argv, cwd=None, timeout=60, env=None, logname=None):
    """(rc or None, stdout text, stderr text, wall seconds); never raises."""
    timeout = max(1, min(timeout, ctx.left() - 5))
    t0 = time.time()
    r = suite.run_killable(argv, cwd or ctx.work, timeout, env=env)
    secs = time.time() - t0
    if isinstance(r, str):
        out, err, rc = "", r, None
    else:
        out = r.stdout.decode("utf-8", "replace")
        err = r.stderr.decode("utf-8", "replace")
        rc = r.returncode
    if logname:
        ctx.log(logname, "$ %s  (cwd %s)\nrc=%s wall=%.3f s\n%s%s\n" % (
            " ".join(argv), cwd or ctx.work, rc, secs, out[-4000:], err[-4000:]))
    return rc, out, err, secs


# ---- reading and comparing NRRD files ----------------------------------------------------------

NP_TYPES = {"float": "f4", "double": "f8", "int": "i4", "int32": "i4", "uchar": "u1",
            "unsigned char": "u1", "short": "i2", "ushort": "u2", "unsigned int": "u4",
            "uint": "u4", "long long": "i8", "int64": "i8", "unsigned short": "u2", "signed char": "i1"}


def nrrd_values(data, name):
    """(sizes, flat list or numpy array of values) of NRRD bytes."""
    if np is not None:
        head, sep, body = data.partition(b"\n\n")
        fields = {}
        for line in head.decode("latin-1").splitlines()[1:]:
            if ":" in line and not line.startswith("#"):
                k, v = line.split(":", 1)
                fields[k.strip()] = v.strip().lstrip("=").strip()
        t = NP_TYPES.get(fields.get("type"))
        if sep and t and fields.get("encoding") == "raw":
            end = "<" if fields.get("endian", "little") == "little" else ">"
            sizes = [int(s) for s in fields.get("sizes", "").split()]
            arr = np.frombuffer(body, dtype=end + t)
            return sizes, arr.astype(np.float64)
    n = nrrdpy.parse(data, name)
    vals = list(n.data)
    return list(n.sizes), (np.array(vals, dtype=np.float64) if np is not None else vals)


def compare_bytes(got, ref, name):
    """'identical', or a dict of differences (values)."""
    if got == ref:
        return "identical"
    try:
        gs, g = nrrd_values(got, name)
        rs, r = nrrd_values(ref, name)
    except Exception as e:  # not a NRRD we can read
        return {"error": "unreadable: %s" % e}
    if gs != rs or len(g) != len(r):
        return {"error": "sizes %s, C target %s" % (gs, rs)}
    if np is not None:
        g, r = np.asarray(g), np.asarray(r)
        nan = np.isnan(g) != np.isnan(r)
        ok = ~(np.isnan(g) | np.isnan(r))
        d = np.abs(g[ok] - r[ok])
        rel = d / np.maximum(1.0, np.abs(r[ok]))
        scale = float(np.max(np.abs(r[ok]))) if ok.any() else 0.0
        return {"n": int(len(g)), "ndiff": int(np.count_nonzero(d) + np.count_nonzero(nan)),
                "nan_mismatch": int(np.count_nonzero(nan)),
                "max_abs": float(d.max()) if d.size else 0.0,
                "max_rel": float(rel.max()) if rel.size else 0.0,
                "max_abs_over_range": float(d.max() / scale) if d.size and scale else 0.0}
    diffs = [abs(a - b) for a, b in zip(g, r)]
    return {"n": len(g), "ndiff": sum(1 for x in diffs if x), "nan_mismatch": 0,
            "max_abs": max(diffs), "max_rel": max(x / max(1.0, abs(b)) for x, b in zip(diffs, r)),
            "max_abs_over_range": 0.0}


def verdict(cmps, rtol):
    """PASS kind or FAIL from a list of compare_bytes results."""
    if all(c == "identical" for c in cmps):
        return "identical"
    worst = 0.0
    for c in cmps:
        if c == "identical":
            continue
        if "error" in c or c["nan_mismatch"]:
            return "FAIL"
        worst = max(worst, c["max_rel"])
    return "within %g (max rel %.2g)" % (rtol, worst) if worst <= rtol else "FAIL (max rel %.3g)" % worst


def first_error(text):
    lines = text.strip().splitlines() or [""]
    for l in lines:
        if "error" in l.lower():
            return l.strip()[:200]
    return lines[0].strip()[:200]


def pmap(fn, items, workers=6):
    """fn over items on a few threads (GPU processes overlap their start-up);
    the results in order; an exception becomes that item's row."""
    import concurrent.futures

    def safe(e):
        try:
            return fn(e)
        except Exception as x:  # one broken entry must not stop the others
            return "| %s | ERROR %r | | |" % (e.get("name"), x)
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(safe, items))


# ---- sections ---------------------------------------------------------------------------------

def info(ctx):
    text = []
    for argv in (["nvidia-smi"], ["bash", "-c", "nvidia-smi -q | head -60"],
                 ["nvidia-smi", "--query-gpu=name,compute_cap,clocks.sm,clocks.max.sm,clocks.mem,"
                  "power.limit,memory.total,driver_version", "--format=csv"],
                 ["lscpu"], ["bash", "-c", "free -g; uname -a; cat /etc/os-release | head -3; "
                             "nproc; ldd --version | head -1"],
                 ["bash", "-c", "grep -o -w 'avx2\\|avx512f\\|avx512bw\\|avx512vl\\|avx512dq\\|avx512cd"
                  "\\|fma' /proc/cpuinfo | sort | uniq -c"]):
        rc, out, err, _ = run(ctx, argv, timeout=30)
        text.append("$ %s\n%s%s\n" % (" ".join(argv), out, err))
    with open(os.path.join(ctx.out, "info.txt"), "w") as fh:
        fh.write("".join(text))
    flags = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""
    ctx.avx512 = all(re.search(r"\b%s\b" % f, flags)
                     for f in ("avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"))
    m = re.search(r"model name\s*:\s*(.*)", flags)
    ctx.results["cpu"] = m.group(1) if m else "?"
    ctx.results["cpu_avx512"] = ctx.avx512
    ctx.results["ncpu"] = ctx.ncpu
    rc, out, _, _ = run(ctx, ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], timeout=30)
    ctx.results["gpu"] = out.strip() if rc == 0 else None
    say("gpu: %s; cpu: %s (%d threads, avx512 %s)" % (ctx.results["gpu"], ctx.results["cpu"],
                                                     ctx.ncpu, ctx.avx512))


def ceil(ctx):
    exe = ctx.p("bin/ceil")
    if not os.path.exists(exe):
        return
    rc, out, err, secs = run(ctx, [exe], timeout=60, logname="ceil")
    vals = dict(l.split("=", 1) for l in out.splitlines() if "=" in l)
    ctx.results["ceil"] = vals
    say("ceil: rc=%s %s" % (rc, " ".join("%s=%s" % kv for kv in vals.items())))
    ctx.summary.append("## Ceilings (bin/ceil)\n\n" + "\n".join("* %s = %s" % kv for kv in vals.items())
                       + ("\n* rc = %s: %s" % (rc, err[-300:]) if rc else "") + "\n")


def run_programs(ctx):
    rows = []
    res = ctx.results.setdefault("run", {})
    runner = suite.Runner(argparse.Namespace(srcdir=SRC, builddir=ctx.work, diderotc=None,
                                             timeout=10))
    def one(e):
        name = e["name"]
        if "skip" in e or "build_error" in e:
            why = e.get("skip") or e.get("build_error")
            res[name] = {"skip": why}
            return "| %s | %s | | |" % (name, ("skip: " if "skip" in e else "BUILD FAIL: ") + first_error(why))
        try:
            ctx.need(20, "run/" + name)
        except Deadline:
            return "| %s | not run (deadline) | | |" % name
        scope = runner.load_oracle(os.path.join(SRC, e["src"]))
        cases = scope.get("CASES", [])
        row = {}
        for kind in ("gpu", "gpu-nofma"):
            work = tempfile.mkdtemp(prefix="run-")
            problems = []
            t0 = time.time()
            outs = runner.run_cases(ctx.p(e["bins"][kind]), work, cases, [], nrrdpy, problems,
                                    "[%s] " % kind, with_stdout=True)
            secs = time.time() - t0
            cmps = []
            for n, o in enumerate(outs):
                refdir = ctx.p("ref/run/%s/case%d" % (name, n))
                if o is None or not os.path.isdir(refdir) or os.path.exists(refdir + "/_failed"):
                    continue
                ref = {}
                for f in os.listdir(refdir):
                    ref["<stdout>" if f == "_stdout" else f] = open(os.path.join(refdir, f), "rb").read()
                for f in sorted(set(o) | set(ref)):
                    if f not in o or f not in ref:
                        problems.append("[%s] case %d: %s missing on the %s side" % (
                            kind, n, f, "GPU" if f not in o else "C"))
                        continue
                    if f == "<stdout>":
                        if o[f] != ref[f]:
                            problems.append("[%s] case %d: printed text differs from the C target's"
                                            % (kind, n))
                        continue
                    c = compare_bytes(o[f], ref[f], f)
                    cmps.append(c)
                    if c != "identical":
                        ctx.log("run", "%s [%s] case %d %s: %s\n" % (name, kind, n, f, c))
            v = verdict(cmps, e["rtol"])
            if v.startswith("FAIL"):
                problems.append("[%s] outputs differ from the C target's beyond %g" % (kind, e["rtol"]))
            status = "FAIL" if problems else "PASS"
            row[kind] = {"status": status, "compare": v, "problems": problems, "secs": secs}
            ctx.log("run", "%s [%s]: %s %s (%.2f s)\n%s\n" % (name, kind, status, v, secs,
                                                             "\n".join(problems)))
            shutil.rmtree(work, ignore_errors=True)
        res[name] = row
        cell = lambda k: "%s, %s%s" % (row[k]["status"], row[k]["compare"],
                                      ("; " + row[k]["problems"][0][:150]) if row[k]["problems"] else "")
        say("run/%s: gpu %s; gpu-nofma %s" % (name, cell("gpu"), cell("gpu-nofma")))
        return "| %s | %s | %s | %.1f |" % (name, cell("gpu"), cell("gpu-nofma"),
                                            row["gpu"]["secs"] + row["gpu-nofma"]["secs"])

    rows = pmap(one, ctx.manifest["run"])
    ctx.summary.append("## tests/programs/run on the GPU (vs the C target)\n\n"
                       "| program | gpu (nvcc -O3, FMA contraction) | gpu-nofma (-fmad=false) | s |\n"
                       "|---|---|---|---|\n" + "\n".join(rows) + "\n")


def libs(ctx):
    rows = []
    runner = suite.Runner(argparse.Namespace(srcdir=SRC, builddir=ctx.work, diderotc=None,
                                             timeout=10))
    for e in ctx.manifest["lib"]:
        name = e["name"]
        if "build_error" in e:
            rows.append("| %s | BUILD FAIL: %s |" % (name, e["build_error"].splitlines()[0][:150]))
            continue
        ctx.need(15, "lib/" + name)
        scope = runner.load_oracle(os.path.join(SRC, e["src"]))
        problems = []
        rundir = tempfile.mkdtemp(prefix="lib-")
        shutil.rmtree(rundir)
        outs = runner.client_run(ctx.p(e["bin"]), rundir, scope.get("EXPECTED", {}), nrrdpy, "gpu",
                                 problems)
        cmps = []
        refdir = ctx.p("ref/libs/" + name)
        for f in sorted(os.listdir(refdir)) if os.path.isdir(refdir) else []:
            if outs is None or f not in outs:
                problems.append("%s missing" % f)
                continue
            cmps.append(compare_bytes(outs[f], open(os.path.join(refdir, f), "rb").read(), f))
        v = verdict(cmps, 1e-5)
        status = "FAIL" if problems or v.startswith("FAIL") else "PASS"
        ctx.results.setdefault("lib", {})[name] = {"status": status, "compare": v, "problems": problems}
        rows.append("| %s | %s, %s%s |" % (name, status, v, ("; " + problems[0][:150]) if problems else ""))
        say("lib/%s: %s %s %s" % (name, status, v, problems[:2]))
    ctx.summary.append("## tests/cuda libraries (nvcc, client linked by nvcc)\n\n| library | result |\n"
                       "|---|---|\n" + "\n".join(rows) + "\n")


def examples(ctx):
    sys.path.insert(0, HERE)
    import prepare  # run_case
    rows = []
    res = ctx.results.setdefault("ex", {})
    def one(e):
        name = e["name"]
        if "skip" in e or "build_error" in e:
            why = e.get("skip") or e.get("build_error")
            res[name] = {"skip": why}
            return "| %s | %s | |" % (name, ("skip: " if "skip" in e else "BUILD FAIL: ") + first_error(why))
        try:
            ctx.need(20, "ex/" + name)
        except Deadline:
            return "| %s | not run (deadline) | |" % name
        row = {}
        work = ctx.p("ex/" + name)
        for kind in ("gpu", "gpu-nofma"):
            cmps, problems, secs = [], [], 0.0
            for n, case in enumerate(e["cases"]):
                r = prepare.run_case(ctx.p(e["bins"][kind]), work, case["args"], case["outputs"], None,
                                     max(5, min(120, ctx.left() - 10)))
                secs += r["secs"]
                refdir = ctx.p("ref/ex/%s/case%d" % (name, n))
                ref_rc = open(os.path.join(refdir, "_rc")).read().strip()
                if "error" in r:
                    problems.append("case %d: %s" % (n, r["error"]))
                    continue
                if str(r["rc"]) != ref_rc:
                    problems.append("case %d: exit status %s, C target %s: %s" % (
                        n, r["rc"], ref_rc, r["stderr"].decode("utf-8", "replace")[-300:]))
                ref_stdout = open(os.path.join(refdir, "_stdout"), "rb").read()
                if r["stdout"] != ref_stdout and e["compare"] != "info":
                    problems.append("case %d: printed text differs" % n)
                reff = sorted(f for f in os.listdir(refdir) if not f.startswith("_"))
                if sorted(r["files"]) != reff:
                    problems.append("case %d: output files %s, C target %s" % (
                        n, sorted(r["files"])[:5], reff[:5]))
                for f in reff:
                    if f in r["files"]:
                        c = compare_bytes(r["files"][f], open(os.path.join(refdir, f), "rb").read(), f)
                        cmps.append(c)
                        if c != "identical":
                            ctx.log("ex", "%s [%s] case %d %s: %s\n" % (name, kind, n, f, c))
                ctx.log("ex", "%s [%s] case %d: rc=%s %.2f s %s\n" % (
                    name, kind, n, r["rc"], r["secs"], r["stderr"].decode("utf-8", "replace")[-500:]))
            if e["compare"] == "info":
                worst = max([c["max_abs"] for c in cmps if isinstance(c, dict) and "max_abs" in c] or [0])
                v = "identical" if all(c == "identical" for c in cmps) else \
                    "differs (chaotic; max abs %.3g)" % worst
                status = "FAIL" if problems else "ran"
            else:
                v = verdict(cmps, 1e-4)
                status = "FAIL" if problems or v.startswith("FAIL") else "PASS"
            row[kind] = {"status": status, "compare": v, "problems": problems, "secs": secs}
        res[name] = row
        cell = lambda k: "%s, %s%s" % (row[k]["status"], row[k]["compare"],
                                      ("; " + row[k]["problems"][0][:150]) if row[k]["problems"] else "")
        say("ex/%s: gpu %s; gpu-nofma %s" % (name, cell("gpu"), cell("gpu-nofma")))
        return "| %s | %s | %s |" % (name, cell("gpu"), cell("gpu-nofma"))

    rows = pmap(one, ctx.manifest["ex"])
    ctx.summary.append("## Conformance examples on the GPU (vs the C target; float tolerance 1e-4 relative)\n\n"
                       "| example | gpu | gpu-nofma |\n|---|---|---|\n" + "\n".join(rows) + "\n")


# ---- benchmarks -------------------------------------------------------------------------------

def timing(out, err):
    """usr= of -t, and the shim's kernel/copy lines."""
    t = {}
    m = re.search(r"usr=([0-9.]+)", out)
    if m:
        t["usr"] = float(m.group(1))
    for m in re.finditer(r"dc_timing: kernel (\S+) launches=(\d+) ms=([0-9.]+)", err):
        t["k:" + m.group(1)] = float(m.group(3))
        t["n:" + m.group(1)] = int(m.group(2))
    for m in re.finditer(r"dc_timing: copy (\S+) calls=(\d+) bytes=(\d+) ms=([0-9.]+)", err):
        t["c:" + m.group(1)] = float(m.group(4))
        t["b:" + m.group(1)] = int(m.group(3))
    return t


def bench_runs(ctx, label, exe, args, reps, cwd, timeout, env=None):
    """Run reps times; the best of each measure, and all runs."""
    runs = []
    for _ in range(reps):
        ctx.need(timeout * 0.5 + 10, "%s %s" % (label, " ".join(args)))
        rc, out, err, secs = run(ctx, [exe] + args, cwd=cwd, timeout=timeout, env=env,
                                 logname="bench")
        for a in args:
            if os.path.basename(a).startswith("scratch-") and os.path.exists(a):
                os.remove(a)
        t = timing(out, err)
        t.update(rc=rc, wall=secs)
        runs.append(t)
        if rc != 0:
            say("  %s: rc=%s %s" % (label, rc, err[-300:]))
            break
    best = {}
    for t in runs:
        if t.get("rc") != 0:
            continue
        for k, v in t.items():
            if isinstance(v, float) and (k not in best or v < best[k]):
                best[k] = v
    best["rc"] = runs[-1].get("rc") if runs else None
    best["reps"] = len(runs)
    return best


def omp_env(n):
    return dict(os.environ, OMP_NUM_THREADS=str(n))


def make_vol512(ctx, path, n):
    """The probe volume (bench/probe/gen_vol.c's function) at n^3 with numpy:
    separable products, float32, slab by slab."""
    h = 2.0 / (n - 1)
    x = -1 + np.arange(n) * h
    hdr = ("NRRD0004\n# bench/gpu/device_run.py (gen_vol.c's function)\ntype: float\ndimension: 3\n"
           "space dimension: 3\nsizes: %d %d %d\nspace directions: (%.17g,0,0) (0,%.17g,0) (0,0,%.17g)\n"
           "kinds: space space space\nendian: little\nencoding: raw\nspace origin: (-1,-1,-1)\n\n"
           % (n, n, n, h, h, h))
    ax, ay = np.exp(-6 * (x - 0.2) ** 2), np.exp(-6 * (x + 0.1) ** 2)
    bx, by = np.exp(-10 * (x + 0.4) ** 2), np.exp(-10 * (x - 0.3) ** 2)
    sx, cy = np.sin(4 * x + 1), np.cos(3 * x)
    with open(path, "wb") as fh:
        fh.write(hdr.encode())
        for k in range(n):
            z = x[k]
            az, bz, sz = np.exp(-6 * (z - 0.3) ** 2), np.exp(-10 * z * z), np.sin(5 * z + 0.5)
            slab = (az * np.outer(ay, ax) + 0.5 * bz * np.outer(by, bx) + 0.25 * sz * np.outer(cy, sx))
            fh.write(slab.astype("<f4").tobytes())


def probe(ctx):
    b = ctx.manifest["bench"].get("probe", {})
    if not b:
        return
    d = tempfile.mkdtemp(prefix="probe-")
    res = ctx.results.setdefault("probe", {})
    ctx.need(30, "probe: volumes")
    n512 = ctx.manifest["bench"].get("probe_big_n", 512)
    rc, _, err, secs = run(ctx, [ctx.p("bin/gen_vol"), os.path.join(d, "vol128.nrrd"), "128"], timeout=60,
                           logname="bench")
    t0 = time.time()
    vols = [("128", os.path.join(d, "vol128.nrrd"))]
    if np is not None and not getattr(ctx, "no_big", False):
        make_vol512(ctx, os.path.join(d, "vol512.nrrd"), n512)
        vols.append(("%d" % n512, os.path.join(d, "vol512.nrrd")))
    say("probe: volumes made (gen_vol %.1f s, numpy %.1f s)" % (secs, time.time() - t0))
    sizes = [(100, "0.01953125"), (256, "0.00762939453125")] if not ctx.quick else [(40, "0.048828125")]
    gpu_ok = ctx.gpu or ctx.force
    omp = "omp-v3"
    rows = []
    for vname, vpath in vols:
        small_vol = vname == "128"
        b = ctx.manifest["bench"]["probe" if small_vol else "probe_big"]
        for resn, step in sizes:
            key = "%s^3 vol, %d^3 points" % (vname, resn)
            r = res.setdefault(key, {})
            big = resn > 200
            outd = os.path.join(d, "o-" + key.replace(" ", "_").replace("^", "").replace(",", ""))
            os.makedirs(outd, exist_ok=True)
            save = ["-o-v", os.path.join(outd, "%s-v.nrrd"), "-o-g", os.path.join(outd, "%s-g.nrrd"),
                    "-o-h", os.path.join(outd, "%s-h.nrrd")]
            # outputs to scratch files, removed after each run: the runtime of
            # the compiler these binaries come from (2f44044) saves through a
            # temporary file and rename(2), which would replace /dev/null
            null = ["-o-v", os.path.join(d, "scratch-v.nrrd"), "-o-g", os.path.join(d, "scratch-g.nrrd"),
                    "-o-h", os.path.join(d, "scratch-h.nrrd")]
            base = ["-vol", vpath, "-res", str(resn), "-step", step, "-t"]
            plan = []
            if gpu_ok:
                plan += [("gpu-t", 3 if small_vol else 2), ("gpu", 3 if small_vol else 1)]
                if "gpu-before-t" in b:
                    plan += [("gpu-before-t", 2 if small_vol else 1)]
                if "gpu-before" in b and small_vol:
                    plan += [("gpu-before", 2)]
            for label, reps in plan:
                if label not in b or "bin" not in b[label]:
                    continue
                try:
                    r[label] = bench_runs(ctx, "probe %s %s" % (key, label), ctx.p(b[label]["bin"]),
                                          base + null, reps, d, 120)
                except Deadline:
                    break
                say("probe %s %s: %s" % (key, label, fmt(r[label])))
            threads = [1, 4, 16] if small_vol else [16]
            if "bin" not in b.get(omp, {}):
                threads = []
            if ctx.ncpu < 16:
                threads = sorted(set(min(t, ctx.ncpu) for t in threads))
            for n in threads:
                lab = "%s-%d" % (omp, n)
                try:
                    r[lab] = bench_runs(ctx, "probe %s %s" % (key, lab), ctx.p(b[omp]["bin"]),
                                        base + null + ["--nworkers", str(n)],
                                        2 if (n >= 4 or not big) else 1, d, 120 if n > 1 else 200,
                                        env=omp_env(n))
                except Deadline:
                    break
                say("probe %s %s: %s" % (key, lab, fmt(r[lab])))
            if getattr(ctx, "avx512", False) and "omp-v4" in b and "bin" in b["omp-v4"]:
                n = min(16, ctx.ncpu)
                try:
                    r["omp-v4-%d" % n] = bench_runs(ctx, "probe %s omp-v4" % key, ctx.p(b["omp-v4"]["bin"]),
                                                    base + null + ["--nworkers", str(n)], 2, d, 120,
                                                    env=omp_env(n))
                    say("probe %s omp-v4-%d: %s" % (key, n, fmt(r["omp-v4-%d" % n])))
                except Deadline:
                    pass
            # outputs: GPU vs OpenMP (16 threads), at the 1M size
            if not big and gpu_ok and "bin" in b.get("gpu", {}) and "bin" in b.get(omp, {}):
                try:
                    ctx.need(30, "probe compare %s" % key)
                    outs = {}
                    for label, exe, extra in (("gpu", b["gpu"]["bin"], []),
                                              ("omp", b[omp]["bin"], ["--nworkers", str(min(16, ctx.ncpu))])):
                        argv = [ctx.p(exe)] + base + [a % label if "%s" in a else a for a in save] + extra
                        rc, _, err, _ = run(ctx, argv, cwd=d, timeout=120, logname="bench")
                        outs[label] = {f: v for f, v in ((f[len(label) + 1:], v) for f, v in
                                                         probe_outputs_l(outd, label).items())}
                    r["compare"] = {}
                    for f in ("v.nrrd", "g.nrrd", "h.nrrd"):
                        if f in outs["gpu"] and f in outs["omp"] and np is not None:
                            g, c = outs["gpu"][f], outs["omp"][f]
                            diff = np.abs(g - c)
                            scale = float(np.max(np.abs(c))) or 1.0
                            r["compare"][f] = {"max_abs": float(diff.max()), "max_abs_over_max": float(diff.max() / scale),
                                               "identical": bool((g == c).all())}
                    say("probe %s GPU vs OpenMP: %s" % (key, r["compare"]))
                except Deadline:
                    pass
            shutil.rmtree(outd, ignore_errors=True)
            rows.append(key)
    shutil.rmtree(d, ignore_errors=True)
    ctx.summary.append(bench_table("Probe benchmark (bspln3 value+gradient+Hessian)", res))


def probe_outputs_l(outd, label):
    vals = {}
    for f in os.listdir(outd):
        if f.startswith(label + "-"):
            vals[f] = nrrd_values(open(os.path.join(outd, f), "rb").read(), f)[1]
    return vals


def fmt(t):
    keys = ["usr", "wall", "k:d_k_step", "c:H2D", "c:D2H", "rc", "reps"]
    return " ".join("%s=%s" % (k, ("%.4f" % t[k]) if isinstance(t.get(k), float) else t.get(k))
                    for k in keys if k in t)


def bench_table(title, res):
    lines = ["## %s\n" % title, "| case | build | run (-t) s | process s | step kernel ms | "
             "H2D ms | D2H ms (incl. compaction) | reps |", "|---|---|---|---|---|---|---|---|"]
    for key, r in res.items():
        for label, t in r.items():
            if label == "compare" or not isinstance(t, dict):
                continue
            g = lambda k, f="%.4f": (f % t[k]) if k in t else ""
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                key, label, g("usr"), g("wall", "%.3f"), g("k:d_k_step", "%.3f"), g("c:H2D", "%.2f"),
                g("c:D2H", "%.2f"), t.get("reps")))
        if "compare" in r:
            lines.append("| %s | GPU vs OpenMP outputs | %s | | | | | |" % (
                key, "; ".join("%s max|Δ|/max|v| %.2g" % (f, c["max_abs_over_max"])
                               for f, c in r["compare"].items())))
    return "\n".join(lines) + "\n"


def render(ctx, name, argsf, sizes, omp_threads):
    """mip / dvr: GPU builds and OpenMP at the given image sizes."""
    b = ctx.manifest["bench"].get(name, {})
    if not b:
        return
    res = ctx.results.setdefault(name, {})
    d = ctx.p("bench")
    gpu_ok = ctx.gpu or ctx.force
    for size in sizes:
        key = "%d^2 rays" % size
        r = res.setdefault(key, {})
        args = argsf(size) + ["-t"]
        plan = []
        if gpu_ok:
            plan = [("gpu", 2 if size <= 1024 else 1), ("gpu-t", 1), ("gpu-before", 1)]
        for label, reps in plan:
            if "bin" not in b.get(label, {}):
                continue
            try:
                r[label] = bench_runs(ctx, "%s %s %s" % (name, key, label), ctx.p(b[label]["bin"]), args,
                                      reps, d, 150)
            except Deadline:
                break
            say("%s %s %s: %s" % (name, key, label, fmt(r[label])))
        threads = omp_threads(size)
        if ctx.quick:
            threads = [1, 2]
        for n in sorted(set(min(t, ctx.ncpu) for t in threads), reverse=True):
            lab = "omp-v3-%d" % n
            try:
                r[lab] = bench_runs(ctx, "%s %s %s" % (name, key, lab), ctx.p(b["omp-v3"]["bin"]),
                                    args + ["--nworkers", str(n)], 1, d, 150, env=omp_env(n))
            except Deadline:
                break
            say("%s %s %s: %s" % (name, key, lab, fmt(r[lab])))
    ctx.summary.append(bench_table("%s" % name, res))


def mip(ctx):
    sizes = [64, 96] if ctx.quick else [1024, 4096]
    render(ctx, "mip", lambda s: ["-vol", ctx.p("data/blobs.nrrd"), "-imgResU", str(s), "-imgResV", str(s),
                                  "-o", os.path.join(ctx.work, "scratch-out.nrrd")], sizes, lambda s: [1, 4, 16] if s <= 1024 else [16])


def dvr(ctx):
    sizes = [64, 96] if ctx.quick else [1024, 4096]
    render(ctx, "dvr", lambda s: (
        "-camEye 10 20 5 -camAt 0 0 0 -camUp 0 0 1 -camNear -2 -camFar 2 -camFOV 8 -thick 0.1 "
        "-refStep 0.1 -rayStep 0.01 -isoval 0.0 -cmin -1 -cmax 1".split()
        + ["-vol", ctx.p("bench/vol-dvr.nrrd"), "-cmap", ctx.p("bench/cmap.nrrd"), "-iresU", str(s),
           "-iresV", str(s), "-o", os.path.join(ctx.work, "scratch-out.nrrd")]), sizes, lambda s: [4, 16] if s <= 1024 else [])


SECTIONS = [("info", info), ("ceil", ceil), ("run", run_programs), ("lib", libs), ("ex", examples),
            ("probe", probe), ("mip", mip), ("dvr", dvr)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--payload", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--deadline", type=float, default=380)
    ap.add_argument("--force-gpu", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--no-big", action="store_true", help="probe: the 128^3 volume only")
    args = ap.parse_args()
    ctx = Ctx(args)
    ctx.no_big = args.no_big
    say("payload unpacked in %s; gpu: %s; emulated payload: %s" % (ctx.work, ctx.gpu,
                                                                   ctx.manifest.get("emulate")))
    gpu_sections = ("ceil", "run", "lib", "ex")
    only = [s for s in args.only.split(",") if s]
    for name, fn in SECTIONS:
        if only and name not in only and name != "info":
            continue
        if name in gpu_sections and not (ctx.gpu or args.force_gpu):
            say("SKIP %s: no GPU (nvidia-smi)" % name)
            ctx.results["skipped_steps"].append(name + " (no GPU)")
            continue
        t0 = time.time()
        say("== %s (%.0f s elapsed)" % (name, time.time() - ctx.t0))
        try:
            fn(ctx)
        except Deadline:
            pass
        except Exception as e:  # one broken section must not stop the others
            import traceback
            tb = traceback.format_exc()
            say("ERROR in %s: %r" % (name, e))
            ctx.log("errors", "%s\n%s\n" % (name, tb))
            ctx.results.setdefault("errors", []).append("%s: %r" % (name, e))
        ctx.results.setdefault("section_secs", {})[name] = round(time.time() - t0, 1)
        write_outputs(ctx)
    ctx.results["total_secs"] = round(time.time() - ctx.t0, 1)
    write_outputs(ctx)
    say("\n".join(ctx.summary))
    say("skipped: %s" % ctx.results["skipped_steps"])
    say("sections: %s; total %.0f s" % (ctx.results.get("section_secs"), ctx.results["total_secs"]))
    shutil.rmtree(ctx.work, ignore_errors=True)


def write_outputs(ctx):
    with open(os.path.join(ctx.out, "results.json"), "w") as fh:
        json.dump(ctx.results, fh, indent=1, default=str)
    with open(os.path.join(ctx.out, "summary.md"), "w") as fh:
        fh.write("\n".join(ctx.summary))
    with tarfile.open(os.path.join(ctx.out, "logs.tar.gz"), "w:gz") as tf:
        for name, text in ctx.logs.items():
            data = text.encode("utf-8", "replace")
            ti = tarfile.TarInfo(name + ".log")
            ti.size = len(data)
            tf.addfile(ti, io.BytesIO(data))


if __name__ == "__main__":
    main()
