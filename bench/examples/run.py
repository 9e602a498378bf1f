#!/usr/bin/env python3
"""run.py -- the conformance examples built and run by diderotc and by the
original Diderot compiler, side by side (issue 15's whole-program benchmark).

    python3 bench/examples/run.py --ours BUILD/diderotc [--reference DIDEROTC]
        [-k NAME]... [--reps N] [--omp N] [--work DIR] [--list] [--save FILE]
    python3 bench/examples/run.py --report FILE

For every selected example the inputs are prepared once (as
tests/conformance/suite.toml prepares them), then each repetition compiles
the program with both compilers and runs it with its options, the two
compilers interleaved (ours first on even repetitions, the original first on
odd ones). Times are wall seconds and user+system CPU seconds of the
compiler or the program (children included); the table gives the median
over the repetitions and the ratio ours / original (below 1: ours faster).

--reference defaults to $REFERENCE, else the original built under
build*/diderot-ref; it runs with tests/differential/pch first on PATH (its
g++ with precompiled runtime headers) and DIDEROT_PCH_CACHE set (default
/var/tmp/campaign/pch when that exists). Sequential target by default;
--omp N builds ours with --target=omp and the original with
--target=parallel and runs both with -n N.

Wrap the run in /var/tmp/quiet.sh on a shared machine; -k selects examples
by substring (repeatable) so that each quiet call stays short. --save FILE
appends each example's medians to FILE (JSON lines); --report FILE prints
the table of all the examples saved there (the last entry of each), so
runs of one example at a time make one table.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
EX = os.environ.get("DIDEROT_EXAMPLES") or os.path.join(os.path.dirname(SRC), "shared",
                                                        "conformance", "examples")
UNU = shutil.which("unu") or shutil.which("teem-unu") or "unu"

# name, corpus files (copied with their corpus-relative paths; the example's
# own directory is the first), source, compile flags, preparation (shell, in
# the example's directory; $T: the fs2d/fs3d tools, $UNU), runs (argument
# lists; the example's run time is their sum). Sizes and options are the
# conformance suite's (doc/conformance.md), which follow each README.
EXAMPLES = [
    {"name": "life", "copy": ["life"], "src": "life.diderot", "flags": ["--snapshot"],
     "runs": [["-s", "1", "-l", "200", "-NN", "80", "-init", "patterns/gosperglidergun.nrrd"]]},
    {"name": "vimg", "copy": ["vimg/vimg.diderot", "data/sscand.nrrd", "cmap/spiral.nrrd"],
     "src": "vimg.diderot",
     "prep": ["$UNU resample -i ../data/sscand.nrrd -s /2 /2 -o img.nrrd",
              "cp ../cmap/spiral.nrrd cmap.nrrd"],
     "runs": [["-which", str(i), "-cent", "290", "414", "-fov", "80"] + p.split() + ["-o", "rgb.nrrd"]
              for i, p in enumerate(["", "", "",
                                     "-cmin -500 -cmax 1900 -iso 1210 -th 20",
                                     "-cmin -500 -cmax 1900 -iso 1210 -th 0.2",
                                     "-cmin -500 -cmax 1900 -th 0.3 -sthr 2",
                                     "-cmin -500 -cmax 1900 -th 0.3 -sthr 2",
                                     "-cmin -500 -cmax 1900 -th 0.4 -sthr 25 -fcol 0 0 0.8",
                                     "-cmin -500 -cmax 1900 -th 0.4 -fcol 0 1 0",
                                     "-cmin -500 -cmax 1900 -th 0.4 -sthr 25 -fcol 0 1 1"])]},
    {"name": "mip", "copy": ["mip/mip.diderot"], "src": "mip.diderot",
     "prep": ["$T/fs3d-scl -which cube -width 3 -sz0 73 -sz1 73 -sz2 73 | $UNU save -f nrrd -o vol.nrrd"],
     "runs": [o.split() for o in [
         "-out0 0 -camFOV 20 -rayStep 0.03 -iresU 300 -iresV 300",
         "-out0 0 -camFOV 20 -rayStep 0.03 -iresU 300 -iresV 300 -camOrtho true",
         "-out0 0 -camFOV 20 -rayStep 0.03 -iresU 300 -iresV 300 -camAt 1 1 1",
         "-out0 0 -camFOV 30 -rayStep 0.03 -iresU 300 -iresV 300",
         "-out0 0 -camFOV 20 -rayStep 0.3 -iresU 300 -iresV 300",
         "-out0 0 -camFOV 20 -rayStep 0.03 -iresU 300 -iresV 300 -camFar 0",
         "-out0 0 -camFOV 20 -rayStep 0.03 -iresU 300 -iresV 300 -camEye 7 7 7"]]},
    {"name": "dvr", "copy": ["dvr/dvr.diderot", "cmap/isobow.nrrd"], "src": "dvr.diderot",
     "prep": ["$UNU 3op lerp 0.5 ../cmap/isobow.nrrd 1 -o cmap.nrrd",
              "$T/fs3d-scl -which dparab -width 5 -sz0 30 -sz1 32 -sz2 35 | $UNU save -f nrrd -o vol.nrrd"],
     "runs": [("-camEye 10 20 5 -camAt 0 0 0 -camUp 0 0 1 -camNear -2 -camFar 2 -camFOV 8 -iresU 400 "
               "-iresV 400 -thick 0.1 -refStep 0.1 -rayStep 0.01 -isoval 0.0 -cmin -1 -cmax 1").split()]},
    {"name": "lic", "copy": ["lic/lic.diderot", "data/sqflow2D.nrrd"], "src": "lic.diderot",
     "prep": ["ln -sf ../data/sqflow2D.nrrd flow.nrrd",
              "$UNU slice -i flow.nrrd -a 0 -p 0 | $UNU resample -s x4.167 x3.125 | "
              "$UNU 1op nrand -s 42 -o rand.nrrd",
              "echo '0 1 0   1 1 1   1 0 1' | $UNU reshape -s 3 3 | "
              "$UNU resample -s = 300 -k tent -c node | $UNU 2op pow - 1.5 | $UNU axinfo -a 0 -k rgb | "
              "$UNU axinfo -a 1 -mm -1 1 | $UNU dnorm -i - -o cmap.nrrd"],
     "runs": [[]]},
    {"name": "circle", "copy": ["circle/circle.diderot"], "src": "circle.diderot",
     "flags": ["--snapshot", "--double"],
     "prep": ["eval echo {1..120} | $UNU reshape -s 2 60 | $UNU 1op nrand -s 42 -o vec2.nrrd",
              "$UNU project -i vec2.nrrd -a 0 -m l2 | $UNU axinsert -a 0 -s 2 | "
              "$UNU 2op / vec2.nrrd - -o vec2.nrrd"],
     "runs": [["-s", "1", "-l", "500"]]},
    {"name": "sphere", "copy": ["sphere/sphere.diderot"], "src": "sphere.diderot",
     "flags": ["--snapshot", "--double"],
     "prep": ["echo 0 0 0 | $UNU pad -min 0 0 -max M 1 | $UNU 1op nrand -s 1 -o vec3.nrrd",
              "$UNU project -i vec3.nrrd -a 0 -m l2 | $UNU axinsert -a 0 -s 3 | "
              "$UNU 2op / vec3.nrrd - -o vec3.nrrd"],
     "runs": [["-s", "1", "-l", "400", "-rad", "0.15", "-eps", "0.033", "-pcp", "2"]]},
    {"name": "halftone", "copy": ["halftone/halftone.diderot"], "src": "halftone.diderot",
     "flags": ["--snapshot"],
     "prep": ["$T/fs2d-scl -which x -width 2 -size0 401 -size1 401 | $UNU crop -min 0 100 -max M M-100 | "
              "$UNU affine -1 - 1 0 1 | $UNU pad -min -2 -2 -max M+2 M+2 -o img.nrrd",
              "echo 0 0 | $UNU pad -min 0 0 -max M 299 | $UNU 1op rand -s 5 | "
              "$UNU affine 0 - 1 -1 1 -o vec2.nrrd",
              "echo 1 0.5 | $UNU 2op x vec2.nrrd - -o vec2.nrrd"],
     "runs": [["-s", "0", "-l", "800", "-radmm", "0.04", "1", "-eps", "0.0001", "-pcp", "2"]]},
    # dprobe generates its program (bsp5.diderot: bspln5 resampling of
    # ddro-100) and would compile and run it itself; the preparation keeps
    # only the generated source (its diderotc is a stand-in that compiles
    # nothing), so the two compilers are timed like the other examples.
    {"name": "dprobe", "copy": ["dprobe/dprobe", "data/ddro-100.nrrd"], "src": "bsp5.diderot",
     "flags": ["--double"],
     "prep": ["mkdir -p vshim && printf '#!/bin/sh\\ncase \"$1\" in --version) echo vis15;; esac\\nexit 0\\n'"
              " > vshim/diderotc && chmod +x vshim/diderotc && cp $BENCH/dprobe-unu vshim/unu",
              "PATH=$PWD/vshim:$PATH DPROBE_GRID_PG=$SRC/tests/conformance/unu_grid_pg.py python3 ./dprobe -op bsp5 -i ../data/ddro-100.nrrd -k real -kern bspln5 "
              "-bc clamp -q real F 0 -d -o ddro-bsp5.nrrd >/dev/null 2>&1; test -s bsp5.diderot"],
     "runs": [["-o", "ddro-bsp5.nrrd"]]},
]


def sh(cmd, cwd, env=None):
    r = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s (in %s): exit %d\n%s" % (cmd, cwd, r.returncode, r.stdout[-2000:]))


def timed(argv, cwd, env, log):
    """(wall s, user+sys CPU s of the process and its children, exit status)"""
    with open(log, "ab") as out:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_utime + ru.ru_stime, p.returncode


class Compiler:
    def __init__(self, tag, path, env, target, flags_omp):
        self.tag, self.path, self.env, self.target = tag, path, env, target
        self.flags_omp = flags_omp


def default_reference():
    if os.environ.get("REFERENCE"):
        return os.environ["REFERENCE"]
    for d in sorted(os.listdir(SRC)):
        p = os.path.join(SRC, d, "diderot-ref", "diderot", "bin", "diderotc")
        if d.startswith("build") and os.access(p, os.X_OK):
            return p
    p = "/var/tmp/ref-pch/diderot/bin/diderotc"
    return p if os.access(p, os.X_OK) else None


def reference_env(env, reference):
    """The original's environment: its precompiled-header g++ and its Teem
    (beside its install, as build.sh lays them out) first on PATH."""
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(reference))))
    renv = dict(env, PATH=os.path.join(SRC, "tests", "differential", "pch") + ":" +
                os.path.join(top, "teem", "bin") + ":" + env["PATH"])
    if "DIDEROT_PCH_CACHE" not in renv and os.path.isdir("/var/tmp/campaign/pch"):
        renv["DIDEROT_PCH_CACHE"] = "/var/tmp/campaign/pch"
    return renv


def build_tools(ours, work):
    """fs2d-scl and fs3d-scl (the corpus's field generators), built by ours."""
    tools = os.path.join(work, "tools")
    os.makedirs(tools, exist_ok=True)
    for d, stem in (("fs2d", "fs2d-scl"), ("fs3d", "fs3d-scl")):
        if not os.access(os.path.join(tools, stem), os.X_OK):
            shutil.copy(os.path.join(EX, d, stem + ".diderot"), tools)
            sh("'%s' --exec %s.diderot" % (ours, stem), tools)
    return tools


def prepare(ex, work, tools):
    base = os.path.join(work, ex["name"])
    shutil.rmtree(base, ignore_errors=True)
    exdir = ex["copy"][0].split("/")[0]
    for c in ex["copy"]:
        s = os.path.join(EX, c)
        d = os.path.join(base, "prep" if c.split("/")[0] == exdir else c.split("/")[0],
                         *c.split("/")[1:])
        if os.path.isdir(s):
            shutil.copytree(s, d, symlinks=True)
        else:
            os.makedirs(os.path.dirname(d), exist_ok=True)
            shutil.copy(s, d)
    prep = os.path.join(base, "prep")
    env = dict(os.environ, T=tools, UNU=UNU, BENCH=HERE, SRC=SRC)
    for cmd in ex.get("prep", []):
        sh(cmd, prep, env)
    for tag in ("ours", "orig"):
        shutil.copytree(prep, os.path.join(base, tag), symlinks=True)
    return base


def one(ex, comp, base, omp, log):
    """compile and run ex with comp: (compile wall, compile CPU, run wall, run CPU, error)"""
    d = os.path.join(base, comp.tag)
    stem = ex["src"][:-len(".diderot")]
    if os.path.exists(os.path.join(d, stem)):
        os.remove(os.path.join(d, stem))
    argv = [comp.path, "--exec"] + ex.get("flags", []) + ([comp.flags_omp] if omp else [])
    cw, cc, rc = timed(argv + [ex["src"]], d, comp.env, log)
    if rc != 0 or not os.access(os.path.join(d, stem), os.X_OK):
        return cw, cc, None, None, "compile failed (exit %d)" % rc
    rw = rcpu = 0.0
    for args in ex["runs"]:
        extra = ["-n", str(omp)] if omp else []
        w, c, rc = timed(["./" + stem] + extra + args, d, comp.env, log)
        # a run stopped by -l exits 1 in the original (and ours, alike)
        if rc != 0 and not (rc == 1 and "-l" in args):
            return cw, cc, None, None, "run failed (exit %d): %s" % (rc, " ".join(args))
        rw += w
        rcpu += c
    return cw, cc, rw, rcpu, None


def fmt(x, digits=3):
    return "—" if x is None else ("%.*f" % (digits, x))


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ours", help="our diderotc")
    ap.add_argument("--reference", default=default_reference(), help="the original's diderotc")
    ap.add_argument("--baseline", help="another build of our diderotc in the original's place "
                    "(a change measured before/after: the 'orig' columns are this build)")
    ap.add_argument("-k", action="append", help="only examples whose name contains this (repeatable)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--omp", type=int, default=0, metavar="N",
                    help="parallel targets (ours: omp, the original: parallel), run with -n N")
    ap.add_argument("--work", default=os.path.join("/var/tmp", "diderot-bench-examples-%d" % os.getuid()))
    ap.add_argument("--list", action="store_true", help="list the examples and exit")
    ap.add_argument("--save", metavar="FILE", help="append each example's medians to FILE")
    ap.add_argument("--report", metavar="FILE", help="print the table of the examples saved in FILE")
    args = ap.parse_args()
    if args.report:
        last = {}
        with open(args.report) as f:
            for line in f:
                r = json.loads(line)
                last[r["name"]] = r
        order = [e["name"] for e in EXAMPLES]
        print_table(sorted(last.values(), key=lambda r: order.index(r["name"]) if r["name"] in order else 99))
        return 0
    exs = [e for e in EXAMPLES if not args.k or any(k in e["name"] for k in args.k)]
    if args.list:
        for e in EXAMPLES:
            print(e["name"], " ".join(e.get("flags", [])), "|", len(e["runs"]), "run(s)")
        return 0
    if not exs:
        sys.exit("no example matches %s" % args.k)
    if not args.ours:
        sys.exit("--ours is required")
    if args.baseline:
        args.reference = os.path.abspath(args.baseline)
    if not args.reference:
        sys.exit("no original compiler: give --reference or REFERENCE=")
    ours = os.path.abspath(args.ours)
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, NRRD_STATE_VERBOSE_IO="0")
    comps = [Compiler("ours", ours, env, "seq", "--target=omp")]
    if args.baseline:
        comps.append(Compiler("orig", args.reference, env, "seq", "--target=omp"))
    else:
        comps.append(Compiler("orig", args.reference, reference_env(env, args.reference),
                              "sequential", "--target=parallel"))
    tools = build_tools(ours, work)
    log = os.path.join(work, "log.txt")
    print("ours: %s\noriginal: %s\ntarget: %s, %d repetitions, log %s" %
          (ours, args.reference, "parallel -n %d" % args.omp if args.omp else "sequential",
           args.reps, log), flush=True)
    bases = {e["name"]: prepare(e, work, tools) for e in exs}
    res = {(e["name"], c.tag): [] for e in exs for c in comps}
    errors = {}
    for rep in range(args.reps):
        for e in exs:
            for c in (comps if rep % 2 == 0 else comps[::-1]):
                r = one(e, c, bases[e["name"]], args.omp, log)
                if r[4]:
                    errors[(e["name"], c.tag)] = r[4]
                else:
                    res[(e["name"], c.tag)].append(r)
            print("  rep %d %s done" % (rep + 1, e["name"]), file=sys.stderr, flush=True)
    rows = []
    for e in exs:
        med = {}
        for c in comps:
            rs = res[(e["name"], c.tag)]
            med[c.tag] = [statistics.median(r[i] for r in rs) if rs and (e["name"], c.tag) not in errors
                          else None for i in range(4)]
        rows.append({"name": e["name"], "ours": med["ours"], "orig": med["orig"], "reps": args.reps,
                     "target": "omp -n %d" % args.omp if args.omp else "seq",
                     "errors": {t: m for (n, t), m in errors.items() if n == e["name"]}})
    if args.save:
        with open(args.save, "a") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    print_table(rows)
    return 0


def print_table(rows):
    tot = {k: [0.0, 0.0] for k in ("cw", "rw", "rc")}  # ours, orig, over examples both ran
    for r in rows:
        o, g = r["ours"], r["orig"]
        if None not in o + g:
            for i, k in ((0, "cw"), (2, "rw"), (3, "rc")):
                tot[k][0] += o[i]
                tot[k][1] += g[i]
    print()
    print("| example | compile ours s | compile orig s | ratio | run ours s | run orig s | ratio "
          "| run CPU ours s | run CPU orig s | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        name, o, g = r["name"], r["ours"], r["orig"]
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, fmt(o[0], 2), fmt(g[0], 2), fmt(ratio(o[0], g[0]), 2),
            fmt(o[2]), fmt(g[2]), fmt(ratio(o[2], g[2]), 2),
            fmt(o[3]), fmt(g[3]), fmt(ratio(o[3], g[3]), 2)))
    print("| **total** (both ran) | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        fmt(tot["cw"][0], 2), fmt(tot["cw"][1], 2), fmt(ratio(*tot["cw"]), 2),
        fmt(tot["rw"][0]), fmt(tot["rw"][1]), fmt(ratio(*tot["rw"]), 2),
        fmt(tot["rc"][0]), fmt(tot["rc"][1]), fmt(ratio(*tot["rc"]), 2)))
    for r in rows:
        for tag, msg in sorted(r["errors"].items()):
            print("%s (%s): %s" % (r["name"], "original" if tag == "orig" else tag, msg))
    print("\nmedian of %s repetitions, target %s; ratio = ours / original (below 1: ours faster)" %
          ("/".join(sorted({str(r["reps"]) for r in rows})), "/".join(sorted({r["target"] for r in rows}))))


if __name__ == "__main__":
    sys.exit(main())
