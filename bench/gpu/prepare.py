#!/usr/bin/env python3
"""prepare.py -- build here everything the GPU run needs, so that the device
machine (no Teem, no diderotc, maybe another CPU) only runs and compares.

    python3 bench/gpu/prepare.py --build BUILD [--before BUILD0] [--carry DIR]
                                 [--emulate] [-k SUBSTRING]

BUILD is a configured build tree (diderotc, libdiderot-rt.a, its rt/);
BUILD0 (optional) an older one whose probe/mip binaries are timed beside
BUILD's ("before" rows). Writes DIR/payload.tar.xz (default DIR:
.device-carry/gpu, ignored by git) holding:

  manifest.json         what to run (see device_run.py)
  lib/                  the shared libraries the binaries need that a bare
                        CUDA image lacks (Teem, libpng, ..., libgomp)
  run/NAME/gpu          tests/programs/run/NAME built by nvcc for sm_90
  run/NAME/gpu-nofma    the same with nvcc -fmad=false (no FMA contraction)
  ref/run/NAME/caseK/   the C target's outputs of case K (files, _stdout, _rc)
  libs/NAME/client-gpu  tests/cuda/NAME: the nvcc library's C client; ref/libs/NAME
                        the C build's outputs
  ex/NAME/              conformance examples: inputs, gpu, gpu-nofma;
                        ref/ex/NAME/caseK/ the C target's outputs
  bench/                probe (128^3 and 512^3 proxies), MIP and DVR binaries (GPU: plain and
                        with the timing shim bench/probe-gpu/timing; OpenMP
                        for x86-64-v3 and -v4), bin/ceil, bin/gen_vol

All device halves are built for sm_90 with the CUDA runtime linked
statically (nvcc's default), host halves and references with
CFLAGS_DIDEROT="-O2 -ffp-contract=off" (the test suite's CUDA_CFLAGS), the
benchmark binaries with "-O3 -march=x86-64-v3" (AVX2; the device CPU is not
known in advance) and "-O3 -march=x86-64-v4" (AVX-512, used only if the
device CPU has it).

--emulate builds the "gpu" binaries with --cuda-emulate instead (CPU
executables): a payload for testing the whole pipeline on a machine without
a GPU (device_run.py --force-gpu).
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "tests"))
import run as suite  # noqa: E402  tests/run.py: oracles, cases, client builds

NVCC = os.environ.get("DIDEROT_NVCC") or "/usr/local/cuda/bin/nvcc"
EX = os.environ.get("DIDEROT_EXAMPLES") or os.path.join(os.path.dirname(SRC), "shared",
                                                        "conformance", "examples")
REF_CFLAGS = "-O2 -ffp-contract=off"
BENCH_CFLAGS = {"v3": "-O3 -march=x86-64-v3", "v4": "-O3 -march=x86-64-v4"}
SYSTEM_LIBS = ("libc.so", "libm.so", "libpthread.so", "libdl.so", "librt.so", "ld-linux",
               "libstdc++.so", "libgcc_s.so", "linux-vdso")


def log(*a):
    print(*a, flush=True)


class Prep:
    def __init__(self, args):
        self.build = os.path.abspath(args.build)
        self.before = os.path.abspath(args.before) if args.before else None
        self.emulate = args.emulate
        self.filter = args.k or ""
        self.manifest = {"run": [], "lib": [], "ex": [], "bench": {}, "emulate": self.emulate}
        self.bins = []
        if args.stage:  # add to (or redo parts of) an earlier staging directory
            self.stage = os.path.abspath(args.stage)
            old = os.path.join(self.stage, "manifest.json")
            if os.path.exists(old):
                with open(old) as fh:
                    self.manifest = json.load(fh)
                for part in ("run", "lib", "ex"):
                    if self.filter and self.filter.startswith(part + "/"):
                        self.manifest[part] = [e for e in self.manifest[part]
                                               if self.filter not in part + "/" + e["name"]]
                if self.filter == "bench":
                    self.manifest["bench"] = {}
            for dp, _, files in os.walk(self.stage):
                for f in files:
                    q = os.path.join(dp, f)
                    if os.access(q, os.X_OK) and "/lib/" not in q and not f.endswith(".diderot"):
                        self.bins.append(q)
        else:
            self.stage = tempfile.mkdtemp(prefix="gpu-stage-")
        self.failures = []
        # `unu` for the examples' recipes (Debian installs it as teem-unu)
        self.tools = os.path.join(self.stage, "..", os.path.basename(self.stage) + "-tools")
        os.makedirs(self.tools, exist_ok=True)
        for t in ("unu", "overrgb"):
            real = shutil.which("teem-" + t) or shutil.which(t)
            if real and not os.path.exists(os.path.join(self.tools, t)):
                os.symlink(real, os.path.join(self.tools, t))

    def p(self, *parts):
        path = os.path.join(self.stage, *parts)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return path

    def env(self, kind, build=None, cflags=REF_CFLAGS):
        e = dict(os.environ, DIDEROT_RT_DIR=build or self.build, CFLAGS_DIDEROT=cflags,
                 DIDEROT_CUDA_ARCH="sm_90", PATH=self.tools + ":" + os.environ["PATH"])
        if kind == "gpu-nofma":
            e["DIDEROT_NVCC"] = NVCC + " -fmad=false"
        elif kind == "gpu-t":
            e["DIDEROT_NVCC"] = NVCC + " -I" + os.path.join(SRC, "bench", "probe-gpu", "timing")
        else:
            e["DIDEROT_NVCC"] = NVCC
        return e

    def flags(self, kind):
        if kind == "c":
            return []
        if kind == "omp":
            return ["--target=omp"]
        if self.emulate:
            return ["--target=cuda", "--cuda-emulate"]
        return ["--target=cuda"]

    def compile(self, src, out, kind, cwd=None, extra=(), build=None, cflags=REF_CFLAGS):
        """diderotc --exec; returns None or the reason it failed."""
        build = build or self.build
        argv = [os.path.join(build, "diderotc"), "--exec"] + list(extra) + self.flags(
            "omp" if kind.startswith("omp") else "c" if kind == "c" else "gpu") + ["-o", out, src]
        r = subprocess.run(argv, cwd=cwd or os.path.dirname(src), env=self.env(kind, build, cflags),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
        if r.returncode != 0 or not os.path.exists(out):
            return r.stdout.decode("utf-8", "replace").strip()
        if kind != "c":
            self.bins.append(out)
        return None

    def sh(self, cmd, cwd):
        r = subprocess.run(["bash", "-c", "set -e -o pipefail; " + cmd], cwd=cwd,
                           env=self.env("c"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=600)
        if r.returncode != 0:
            raise RuntimeError("%s: %s" % (cmd, r.stdout.decode("utf-8", "replace")[-800:]))

    # ---- tests/programs/run ------------------------------------------------------------------

    def run_programs(self):
        runner = suite.Runner(argparse.Namespace(srcdir=SRC, builddir=self.build, diderotc=None,
                                                 timeout=10))
        nrrdpy = runner.nrrd_module()
        for path in suite.find_programs(os.path.join(SRC, "tests", "programs", "run")):
            stem = os.path.basename(path)[:-len(".diderot")]
            if self.filter not in "run/" + stem:
                continue
            scope = runner.load_oracle(path)
            entry = {"name": stem, "src": os.path.relpath(path, SRC),
                     "rtol": max(scope.get("CUDA_RTOL") or 0, suite.Runner.CUDA_GPU_RTOL),
                     "bins": {}}
            self.manifest["run"].append(entry)
            fl = list(scope.get("FLAGS", []))
            for kind in ("gpu", "gpu-nofma"):
                why = self.compile(path, self.p("run", stem, kind), kind, cwd=SRC, extra=fl)
                if why:
                    entry["skip" if "not yet supported" in why else "build_error"] = why
                    log("run/%s: %s: %s" % (stem, kind, why.splitlines()[0] if why else ""))
                    break
                entry["bins"][kind] = "run/%s/%s" % (stem, kind)
            if "skip" in entry or "build_error" in entry:
                continue
            work = tempfile.mkdtemp(prefix="ref-")
            exe = os.path.join(work, "prog-c")
            why = self.compile(path, exe, "c", cwd=SRC, extra=fl)
            if why:
                entry["build_error"] = "C target: " + why
                continue
            problems = []
            outs = runner.run_cases(exe, work, scope.get("CASES", []), [], nrrdpy, problems, "[C] ",
                                    with_stdout=True)
            entry["ref_problems"] = problems
            for n, o in enumerate(outs):
                d = self.p("ref", "run", stem, "case%d" % n, "x")[:-2]
                if o is None:
                    open(os.path.join(d, "_failed"), "w").close()
                    continue
                for f, data in o.items():
                    with open(os.path.join(d, "_stdout" if f == "<stdout>" else f), "wb") as fh:
                        fh.write(data)
            shutil.rmtree(work, ignore_errors=True)
            log("run/%s: ready (%d cases)" % (stem, len(outs)))

    # ---- tests/cuda/NAME: libraries with a C client -----------------------------------------

    def libs(self):
        runner = suite.Runner(argparse.Namespace(srcdir=SRC, builddir=self.build, diderotc=None,
                                                 timeout=10))
        nrrdpy = runner.nrrd_module()
        for path in suite.find_programs(os.path.join(SRC, "tests", "cuda")):
            stem = os.path.basename(path)[:-len(".diderot")]
            if self.filter not in "lib/" + stem:
                continue
            scope = runner.load_oracle(path)
            work = tempfile.mkdtemp(prefix="lib-")
            env = self.env("gpu")
            entry = {"name": stem, "src": os.path.relpath(path, SRC)}
            self.manifest["lib"].append(entry)
            if self.emulate:
                b = runner.client_build(path, work, "gpu", ["--target=cuda", "--cuda-emulate"],
                                        ["-lstdc++"], env)
            else:
                b = runner.client_build(path, work, "gpu", ["--target=cuda"], [], env, linker=[NVCC])
            c = runner.client_build(path, work, "c", [], [], dict(env))
            if isinstance(b, str) or isinstance(c, str):
                entry["build_error"] = b if isinstance(b, str) else c
                log("lib/%s: %s" % (stem, entry["build_error"]))
                continue
            shutil.copy(b[0], self.p("libs", stem, "client-gpu"))
            self.bins.append(self.p("libs", stem, "client-gpu"))
            entry["bin"] = "libs/%s/client-gpu" % stem
            problems = []
            outs = runner.client_run(c[0], os.path.join(work, "run_c"), scope.get("EXPECTED", {}),
                                     nrrdpy, "c", problems)
            entry["ref_problems"] = problems
            d = self.p("ref", "libs", stem, "x")[:-2]
            for f, data in (outs or {}).items():
                with open(os.path.join(d, f), "wb") as fh:
                    fh.write(data)
            shutil.rmtree(work, ignore_errors=True)
            log("lib/%s: ready" % stem)

    # ---- conformance examples -----------------------------------------------------------------

    def examples(self):
        for ex in EXAMPLES:
            name = ex["name"]
            if self.filter not in "ex/" + name:
                continue
            entry = {"name": name, "cases": [], "bins": {}, "compare": ex.get("compare", "float")}
            self.manifest["ex"].append(entry)
            src_dir = os.path.join(EX, ex["dir"]) if not ex["dir"].startswith("/") else ex["dir"]
            work = self.p("ex", name, "x")[:-2]
            try:
                for f in ex.get("copy", []):
                    for g in glob.glob(os.path.join(src_dir, f)):
                        (shutil.copytree if os.path.isdir(g) else shutil.copy)(
                            g, os.path.join(work, os.path.basename(g)))
                shutil.copy(os.path.join(src_dir, ex["src"]), os.path.join(work, "prog.diderot"))
                for cmd in ex.get("prep", []):
                    self.sh(cmd.replace("$EX", EX).replace("$STAGE", self.stage), work)
            except Exception as e:
                entry["build_error"] = "preparing the inputs: %s" % e
                log("ex/%s: %s" % (name, entry["build_error"]))
                continue
            flags = ex.get("flags", [])
            for kind in ("gpu", "gpu-nofma", "c"):
                why = self.compile("prog.diderot", os.path.join(work, kind), kind, cwd=work,
                                   extra=flags)
                if why:
                    entry["skip" if "not yet supported" in why else "build_error"] = \
                        "%s: %s" % (kind, why)
                    log("ex/%s: %s: %s" % (name, kind, why.splitlines()[0]))
                    break
                if kind != "c":
                    entry["bins"][kind] = "ex/%s/%s" % (name, kind)
            if "skip" in entry or "build_error" in entry:
                continue
            for f in os.listdir(work):  # what the compiler left beside the source
                if f.startswith("prog.") and f != "prog.diderot" or f.endswith((".c", ".cu", ".h", ".o")):
                    os.remove(os.path.join(work, f))
            for n, (args, outs) in enumerate(ex["cases"]):
                entry["cases"].append({"args": args, "outputs": outs})
                res = run_case(os.path.join(work, "c"), work, args, outs, None, 600)
                save_case(res, self.p("ref", "ex", name, "case%d" % n, "x")[:-2])
                log("ex/%s case %d: C rc=%s, %d output files, %.2f s" % (
                    name, n, res["rc"], len(res["files"]), res["secs"]))
            os.remove(os.path.join(work, "c"))

    # ---- benchmarks ---------------------------------------------------------------------------

    def benches(self):
        b = self.manifest["bench"]
        if self.filter not in "bench":
            return
        d = self.p("bench", "x")[:-2]
        shutil.copy(os.path.join(SRC, "bench", "probe", "probe_bspln3.diderot"), d)
        shutil.copy(os.path.join(SRC, "examples", "mip", "mip.diderot"), d)
        shutil.copy(os.path.join(SRC, "examples", "data", "blobs.nrrd"), d)
        self.sh("cc -O2 -o vol-gen %s -lm && ./vol-gen vol.nrrd 128 && rm vol-gen"
                % os.path.join(SRC, "bench", "probe", "gen_vol.c"), d)
        # mip.diderot reads ../data/blobs.nrrd: a copy of the data beside it
        os.makedirs(os.path.join(self.stage, "data"), exist_ok=True)
        shutil.copy(os.path.join(d, "blobs.nrrd"), os.path.join(self.stage, "data", "blobs.nrrd"))
        # dvr (conformance): the sphere volume and colour map of its README
        dvr = os.path.join(EX, "dvr", "dvr.diderot")
        try:
            self.sh("cp %s/dvr/dvr.diderot . && %s/fs3d-scl -which dparab -width 5 -sz0 30 -sz1 32 "
                    "-sz2 35 | unu save -f nrrd -o vol-dvr.nrrd && unu 3op lerp 0.5 %s/cmap/isobow.nrrd "
                    "1 -o cmap.nrrd" % (EX, self.fs3d(), EX), d)
        except Exception as e:
            log("bench: dvr inputs: %s" % e)
            dvr = None
        # the probe program compiled against a big volume: the proxy image
        # fixes the sizes, and a header with a sparse data file is enough
        big = b["probe_big_n"] = 64 if self.emulate else 512
        bigdir = os.path.join(self.stage + "-tools", "big")
        os.makedirs(bigdir, exist_ok=True)
        h = 2.0 / (big - 1)
        with open(os.path.join(bigdir, "vol.nrrd"), "w") as fh:
            fh.write("NRRD0004\ntype: float\ndimension: 3\nspace dimension: 3\nsizes: %d %d %d\n"
                     "space directions: (%.17g,0,0) (0,%.17g,0) (0,0,%.17g)\nkinds: space space space\n"
                     "endian: little\nencoding: raw\nspace origin: (-1,-1,-1)\ndata file: vol.raw\n"
                     % (big, big, big, h, h, h))
        with open(os.path.join(bigdir, "vol.raw"), "wb") as fh:
            fh.truncate(4 * big ** 3)
        targets = [("probe", "probe_bspln3.diderot", None), ("probe_big", "probe_bspln3.diderot", bigdir),
                   ("mip", "mip.diderot", None)]
        if dvr:
            targets.append(("dvr", "dvr.diderot", "vol-dvr.nrrd"))
        for name, src, proxy in targets:
            b[name] = {}
            for kind, build, cflags, label in (
                    ("gpu", self.build, BENCH_CFLAGS["v3"], "gpu"),
                    ("gpu-t", self.build, BENCH_CFLAGS["v3"], "gpu-t"),
                    ("gpu", self.before, BENCH_CFLAGS["v3"], "gpu-before"),
                    ("gpu-t", self.before, BENCH_CFLAGS["v3"], "gpu-before-t"),
                    ("omp", self.build, BENCH_CFLAGS["v3"], "omp-v3"),
                    ("omp", self.build, BENCH_CFLAGS["v4"], "omp-v4")):
                if not build or (name == "dvr" and label.startswith("gpu-before")) or \
                        (name == "probe_big" and label == "gpu-before"):
                    continue
                if kind.startswith("gpu") and self.emulate and label.endswith("-t"):
                    continue
                pdir = d
                if name == "probe_big":
                    pdir = proxy
                    shutil.copy(os.path.join(d, src), pdir)
                elif proxy:  # dvr names image("vol.nrrd"): the proxy it compiles against
                    pdir = tempfile.mkdtemp(prefix="dvr-")
                    shutil.copy(os.path.join(d, src), pdir)
                    shutil.copy(os.path.join(d, proxy), os.path.join(pdir, "vol.nrrd"))
                    shutil.copy(os.path.join(d, "cmap.nrrd"), pdir)
                why = self.compile(os.path.join(pdir, src), os.path.join(d, "%s-%s" % (name, label)),
                                   kind, cwd=pdir, build=build, cflags=cflags)
                if why:
                    log("bench/%s %s: %s" % (name, label, why[-400:]))
                    b[name][label] = {"build_error": why[-2000:]}
                else:
                    b[name][label] = {"bin": "bench/%s-%s" % (name, label)}
                    log("bench/%s %s: built" % (name, label))
        os.remove(os.path.join(d, "vol.nrrd"))  # 8 MB: the device makes its own
        for f in os.listdir(d):
            if f.endswith((".c", ".cu", ".h", ".o", ".log")):
                os.remove(os.path.join(d, f))
        bindir = self.p("bin", "x")[:-2]
        self.sh("cc -O2 -o %s/gen_vol %s -lm" % (bindir, os.path.join(SRC, "bench", "probe", "gen_vol.c")),
                bindir)
        self.bins.append(os.path.join(bindir, "gen_vol"))
        if not self.emulate:
            self.sh("%s -O3 -arch=sm_90 -o %s/ceil %s" % (NVCC, bindir,
                                                          os.path.join(SRC, "bench", "probe-gpu", "ceil.cu")),
                    bindir)
            self.bins.append(os.path.join(bindir, "ceil"))

    def fs3d(self):
        """fs3d-scl built for the C target (examples' volume generator)."""
        d = os.path.join(self.stage + "-tools", "fs3d")
        exe = os.path.join(d, "fs3d-scl")
        if not os.path.exists(exe):
            os.makedirs(d, exist_ok=True)
            shutil.copy(os.path.join(EX, "fs3d", "fs3d-scl.diderot"), d)
            why = self.compile(os.path.join(d, "fs3d-scl.diderot"), exe, "c", cwd=d)
            if why:
                raise RuntimeError("fs3d-scl: " + why)
        return d

    def fs2d(self):
        d = os.path.join(self.stage + "-tools", "fs2d")
        exe = os.path.join(d, "fs2d-scl")
        if not os.path.exists(exe):
            os.makedirs(d, exist_ok=True)
            shutil.copy(os.path.join(EX, "fs2d", "fs2d-scl.diderot"), d)
            why = self.compile(os.path.join(d, "fs2d-scl.diderot"), exe, "c", cwd=d)
            if why:
                raise RuntimeError("fs2d-scl: " + why)
        return d

    # ---- shared libraries, packing ------------------------------------------------------------

    def libraries(self):
        libs = set()
        for b in self.bins:
            r = subprocess.run(["ldd", b], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            for line in r.stdout.decode().splitlines():
                parts = line.split("=>")
                if len(parts) == 2 and parts[1].strip().startswith("/"):
                    path = parts[1].split()[0]
                    if not any(s in os.path.basename(path) for s in SYSTEM_LIBS):
                        libs.add(path)
        d = self.p("lib", "x")[:-2]
        for path in sorted(libs):
            shutil.copy(os.path.realpath(path), os.path.join(d, os.path.basename(path)))
        self.manifest["libs"] = sorted(os.path.basename(p) for p in libs)
        for b in self.bins:
            subprocess.run(["strip", b], stderr=subprocess.DEVNULL)

    def pack(self, carry):
        with open(os.path.join(self.stage, "manifest.json"), "w") as fh:
            json.dump(self.manifest, fh, indent=1)
        os.makedirs(carry, exist_ok=True)
        out = os.path.join(carry, "payload.tar.xz")
        with tarfile.open(out, "w:xz", preset=9) as tf:
            tf.add(self.stage, arcname="payload")
        log("wrote %s (%.1f MB)" % (out, os.path.getsize(out) / 1e6))


def run_case(exe, work, args, outs, env, timeout):
    """Run exe with args in a scratch copy of work; the output files matching
    the globs outs (bytes), stdout, rc and seconds."""
    import time
    tmp = tempfile.mkdtemp(prefix="case-")
    for f in os.listdir(work):
        src = os.path.join(work, f)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(tmp, f))
        elif not f.startswith(("gpu", "c")) or "." in f:
            shutil.copy(src, tmp)
    before = set(os.listdir(tmp))
    t0 = time.time()
    r = suite.run_killable([exe] + args, tmp, timeout, env=env)
    secs = time.time() - t0
    res = {"rc": None, "stdout": b"", "stderr": b"", "files": {}, "secs": secs}
    if isinstance(r, str):
        res["error"] = r
    else:
        res.update(rc=r.returncode, stdout=r.stdout, stderr=r.stderr)
    for pat in outs:
        for g in sorted(glob.glob(os.path.join(tmp, pat))):
            if os.path.basename(g) not in before or os.path.basename(g) in outs:
                with open(g, "rb") as fh:
                    res["files"][os.path.basename(g)] = fh.read()
    shutil.rmtree(tmp, ignore_errors=True)
    return res


def save_case(res, d):
    os.makedirs(d, exist_ok=True)
    for f, data in res["files"].items():
        with open(os.path.join(d, f), "wb") as fh:
            fh.write(data)
    with open(os.path.join(d, "_stdout"), "wb") as fh:
        fh.write(res["stdout"])
    with open(os.path.join(d, "_rc"), "w") as fh:
        fh.write("%s\n" % res["rc"])


# The conformance examples with their inputs (prepared here with the recipes of
# their READMEs/.test.sh) and cases: (arguments, output files or globs).
# compare: "float" (values within a relative tolerance), "info" (particle
# systems, chaotic under any rounding change: report the differences only).
EXAMPLES = [
    {"name": "hello", "dir": "hello", "src": "hello.diderot", "cases": [([], ["out.nrrd"])]},
    {"name": "heron", "dir": "heron", "src": "heron.diderot",
     "cases": [([], ["vrie.nrrd"]), (["-eps", "1e-8", "-l", "20", "-o", "vrie-lim.nrrd"], ["vrie-lim.nrrd"])]},
    {"name": "heron-2.0", "dir": "heron-2.0", "src": "heron.diderot",
     "cases": [([], ["vrie.nrrd"]), (["-eps", "1e-8", "-l", "20", "-o", "vrie-lim.nrrd"], ["vrie-lim.nrrd"])]},
    {"name": "heron-double", "dir": "heron", "src": "heron.diderot", "flags": ["--double"],
     "cases": [([], ["vrie.nrrd"])]},
    {"name": "sieve", "dir": "sieve", "src": "sieve.diderot", "cases": [(["-NN", "1000"], ["pp.nrrd"])]},
    {"name": "sieve-2.0", "dir": "sieve-2.0", "src": "sieve.diderot",
     "cases": [(["-NN", "1000"], ["pp.nrrd"]), (["-NN", "100000"], ["pp.nrrd"])]},
    {"name": "life", "dir": "life", "src": "life.diderot", "flags": ["--snapshot"], "copy": ["patterns"],
     "cases": [(["-s", "1", "-l", "200", "-NN", "80", "-init", "patterns/gosperglidergun.nrrd"],
                ["state*.nrrd"])]},
    {"name": "life-2.0", "dir": "life-2.0", "src": "life.diderot", "flags": ["--snapshot"],
     "copy": ["../life/patterns"],
     "cases": [(["-s", "10", "-l", "200", "-NN", "80", "-init", "patterns/gosperglidergun.nrrd"],
                ["state*.nrrd"])]},
    {"name": "plot1d", "dir": "plot1d", "src": "plot1d.diderot",
     "prep": ["echo '0 0 1 0 0' | unu axdelete -a -1 | unu dnorm -o data.nrrd",
              "echo '0.1 0.5 1 0 0' | unu axdelete -a -1 | unu dnorm -o data5.nrrd"],
     "cases": [(["-img", "data.nrrd", "-ymm", "-0.3", "1.3"], ["rgb.nrrd"]),
               (["-img", "data5.nrrd", "-ymm", "-0.15", "1.15", "-xmm", "-20", "20", "-xsize", "1000",
                 "-ysize", "200"], ["rgb.nrrd"])]},
    {"name": "plot1d-2.0", "dir": "plot1d-2.0", "src": "plot1d.diderot",
     "prep": ["echo '0 0 1 0 0' | unu axdelete -a -1 | unu dnorm -o data.nrrd"],
     "cases": [(["-img", "data.nrrd", "-ymm", "-0.3", "1.3"], ["rgb.nrrd"])]},
    {"name": "tensor", "dir": "tensor", "src": "tensor.diderot", "cases": [([], ["out.nrrd"])]},
    {"name": "iso2d", "dir": "iso2d", "src": "iso2d.diderot",
     "prep": ["$STAGE-tools/fs2d/fs2d-scl -size0 50 -size1 50 -which tcubic -width 8 | "
              "unu save -f nrrd -o cubic.nrrd"],
     "cases": [(["-cmin", "-4", "-4", "-cmax", "4", "4", "-size", "100"], ["pos.nrrd"])]},
    {"name": "vimg", "dir": "vimg", "src": "vimg.diderot",
     "prep": ["unu resample -i $EX/data/sscand.nrrd -s /2 /2 -o img.nrrd",
              "cp $EX/cmap/spiral.nrrd cmap.nrrd"],
     "cases": [(["-which", str(i), "-cent", "290", "414", "-fov", "80"] + p + ["-o", "rgb.nrrd"], ["rgb.nrrd"])
               for i, p in [(i, p) for i, p in enumerate([[], [], [],
                                      "-cmin -500 -cmax 1900 -iso 1210 -th 20".split(),
                                      "-cmin -500 -cmax 1900 -iso 1210 -th 0.2".split(),
                                      "-cmin -500 -cmax 1900 -th 0.3 -sthr 2".split(),
                                      "-cmin -500 -cmax 1900 -th 0.3 -sthr 2".split(),
                                      "-cmin -500 -cmax 1900 -th 0.4 -sthr 25 -fcol 0 0 0.8".split(),
                                      "-cmin -500 -cmax 1900 -th 0.4 -fcol 0 1 0".split(),
                                      "-cmin -500 -cmax 1900 -th 0.4 -sthr 25 -fcol 0 1 1".split()])
                                   if i in (0, 3, 5, 9)]]},
    {"name": "mip-cube", "dir": "mip", "src": "mip.diderot",
     "prep": ["$STAGE-tools/fs3d/fs3d-scl -which cube -width 3 -sz0 73 -sz1 73 -sz2 73 | "
              "unu save -f nrrd -o vol.nrrd"],
     "cases": [(["-out0", "0", "-camFOV", "20", "-rayStep", "0.03", "-iresU", "300", "-iresV", "300"],
                ["out.nrrd"]),
               (["-out0", "0", "-camFOV", "20", "-rayStep", "0.03", "-iresU", "300", "-iresV", "300",
                 "-camOrtho", "true"], ["out.nrrd"])]},
    {"name": "dvr", "dir": "dvr", "src": "dvr.diderot",
     "prep": ["$STAGE-tools/fs3d/fs3d-scl -which dparab -width 5 -sz0 30 -sz1 32 -sz2 35 | "
              "unu save -f nrrd -o vol.nrrd",
              "unu 3op lerp 0.5 $EX/cmap/isobow.nrrd 1 -o cmap.nrrd"],
     "cases": [("-camEye 10 20 5 -camAt 0 0 0 -camUp 0 0 1 -camNear -2 -camFar 2 -camFOV 8 -iresU 400 "
                "-iresV 400 -thick 0.1 -refStep 0.1 -rayStep 0.01 -isoval 0.0 -cmin -1 -cmax 1".split(),
                ["rgba.nrrd"])]},
    {"name": "circle", "dir": "circle", "src": "circle.diderot", "flags": ["--double"],
     "compare": "info",
     "prep": ["eval echo {1..240} | unu reshape -s 2 120 | unu 1op nrand -s 42 -o vec2.nrrd",
              "unu project -i vec2.nrrd -a 0 -m l2 | unu axinsert -a 0 -s 2 | "
              "unu 2op / vec2.nrrd - -o vec2.nrrd"],
     "cases": [(["-l", "900"], ["pos.nrrd"])]},
    {"name": "sphere", "dir": "sphere", "src": "sphere.diderot", "flags": ["--double"],
     "compare": "info",
     "prep": ["echo 0 0 0 | unu pad -min 0 0 -max M 1 | unu 1op nrand -s 1 -o vec3.nrrd",
              "unu project -i vec3.nrrd -a 0 -m l2 | unu axinsert -a 0 -s 3 | "
              "unu 2op / vec3.nrrd - -o vec3.nrrd"],
     "cases": [(["-l", "400", "-rad", "0.15", "-eps", "0.033", "-pcp", "2"], ["pos.nrrd"])]},
    {"name": "halftone", "dir": "halftone", "src": "halftone.diderot", "compare": "info",
     "prep": ["$STAGE-tools/fs2d/fs2d-scl -which x -width 2 -size0 401 -size1 401 | "
              "unu crop -min 0 100 -max M M-100 | unu affine -1 - 1 0 1 | "
              "unu pad -min -2 -2 -max M+2 M+2 -o img.nrrd",
              "echo 0 0 | unu pad -min 0 0 -max M 299 | unu 1op rand -s 5 | "
              "unu affine 0 - 1 -1 1 -o vec2.nrrd",
              "echo 1 0.5 | unu 2op x vec2.nrrd - -o vec2.nrrd"],
     "cases": [(["-l", "800", "-radmm", "0.04", "1", "-eps", "0.0001", "-pcp", "2"], ["pos.nrrd"])]},
    # the repository's own examples (examples/, data in examples/data)
    {"name": "repo-mip", "dir": "/REPO/examples/mip", "src": "mip.diderot",
     "prep": ["mkdir -p ../data && cp $SRC/examples/data/blobs.nrrd ../data/ && cp ../data/blobs.nrrd ."],
     "cases": [(["-vol", "blobs.nrrd", "-o", "mip.nrrd"], ["mip.nrrd"])]},
    {"name": "repo-isocontour", "dir": "/REPO/examples/isocontour", "src": "isocontour.diderot",
     "prep": ["mkdir -p ../data && cp $SRC/examples/data/ddro-100.nrrd ../data/ && cp ../data/ddro-100.nrrd ."], "compare": "info",
     "cases": [(["-img", "ddro-100.nrrd", "-o", "pos.nrrd"], ["pos.nrrd"])]},
    {"name": "repo-lic", "dir": "/REPO/examples/lic", "src": "lic.diderot",
     "prep": ["mkdir -p ../data && cp $SRC/examples/data/sqflow2D-1608.nrrd $SRC/examples/data/noise.nrrd ../data/ && cp ../data/sqflow2D-1608.nrrd ../data/noise.nrrd ."],
     "cases": [(["-flow", "sqflow2D-1608.nrrd", "-noise", "noise.nrrd", "-o", "lic.nrrd"], ["lic.nrrd"])]},
    {"name": "repo-canny", "dir": "/REPO/examples/canny", "src": "canny.diderot",
     "prep": ["mkdir -p ../data && cp $SRC/examples/data/ddro-100.nrrd ../data/ && cp ../data/ddro-100.nrrd ."],
     "cases": [(["-img", "ddro-100.nrrd", "-o", "canny.nrrd"], ["canny.nrrd"])]},
    {"name": "repo-vorticity", "dir": "/REPO/examples/vorticity", "src": "vorticity.diderot",
     "prep": ["mkdir -p ../data && cp $SRC/examples/data/sqflow2D-1608.nrrd ../data/ && cp ../data/sqflow2D-1608.nrrd ."],
     "cases": [(["-flow", "sqflow2D-1608.nrrd", "-o", "vort.nrrd"], ["vort.nrrd"])]},
    {"name": "repo-ridges", "dir": "/REPO/examples/ridges", "src": "ridges.diderot",
     "prep": ["mkdir -p ../data && cp $SRC/examples/data/sscand-crop.nrrd ../data/ && cp ../data/sscand-crop.nrrd ."],
     "cases": [(["-elev", "sscand-crop.nrrd", "-o", "lam.nrrd"], ["lam.nrrd"])]},
]
for _ex in EXAMPLES:
    if _ex["dir"].startswith("/REPO/"):
        _ex["dir"] = os.path.join(SRC, _ex["dir"][len("/REPO/"):])
    _ex["prep"] = [c.replace("$SRC", SRC) for c in _ex.get("prep", [])]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--before")
    ap.add_argument("--carry", default=os.path.join(SRC, ".device-carry", "gpu"))
    ap.add_argument("--emulate", action="store_true")
    ap.add_argument("-k", help="only the parts whose name contains this")
    ap.add_argument("--stage", help="an earlier staging directory to add to (with -k: redo that part)")
    args = ap.parse_args()
    prep = Prep(args)
    log("staging in %s" % prep.stage)
    if any(e["name"] in ("iso2d", "halftone") for e in EXAMPLES):
        try:
            prep.fs2d()
        except Exception as e:
            log("fs2d-scl: %s" % e)
    try:
        prep.fs3d()
    except Exception as e:
        log("fs3d-scl: %s" % e)
    prep.run_programs()
    prep.libs()
    prep.examples()
    prep.benches()
    prep.libraries()
    prep.pack(args.carry)


if __name__ == "__main__":
    main()
