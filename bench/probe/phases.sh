#!/bin/sh
# phases.sh [BUILD] [RUNS] [RES] -- the probe benchmark's library phases
# (strand creation, run, output copying) for bspln3 and ctmr next to
# hand.c: best CPU seconds of RUNS interleaved rounds at RES^3 points
# (defaults: build 7 100). With CALLGRIND=1: instead, instruction counts
# per strand from valgrind --tool=callgrind at RES^3 points (default 40;
# generated code and hand.c built with -O3 -march=haswell, since valgrind
# does not decode AVX-512). Work files go to $BENCH_WORK (default
# BUILD/bench-phases). Needs cc, python3, libteem-dev (and valgrind).
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
runs=${2:-7}
cg=${CALLGRIND:-0}
res=${3:-$([ "$cg" = 1 ] && echo 40 || echo 100)}
work=${BENCH_WORK:-$build/bench-phases}
cc=${CC:-cc}
mkdir -p "$work/out"
cd "$work"
export DIDEROT_RT_DIR="$build"
arch=-march=native
[ "$cg" = 1 ] && arch=-march=haswell && export CFLAGS_DIDEROT="-O3 $arch"
$cc -O2 -o gen_vol "$here/gen_vol.c" -lm
[ -f vol.nrrd ] || ./gen_vol vol.nrrd 128
# no inlining of the probing loop into main: callgrind then reports it alone
$cc -O3 $arch -fno-inline-functions-called-once -o hand "$here/hand.c" -lm
for k in bspln3 ctmr; do
  cp "$here/probe_$k.diderot" .
  "$build/diderotc" probe_$k.diderot -o lib_$k
  hess=""
  [ $k = bspln3 ] && hess=-DHESS
  $cc -O2 -I. -DLIB_H="\"lib_$k.h\"" $hess -o drv_$k "$here/lib_driver.c" lib_$k.o -lteem -lm
done
python3 - "$runs" "$res" "$cg" <<'PY'
import re, subprocess, sys
runs, res, cg = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1"
pts = int(res) ** 3
def argv(who, k):
    if who == "lib":
        return ["./drv_" + k, "vol.nrrd", "out", res]
    return ["./hand", k, "vol.nrrd", "out", res, "-0.96875", "0.01953125"]
if cg:
    fns = {"create": "Diderot_create_strands", "update method": "d_strand_update",
           "outputs": "Diderot_output_get_"}
    for k in ["bspln3", "ctmr"]:
        got = {}
        for who in ["lib", "hand"]:
            f = "cg_%s_%s.out" % (who, k)
            subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + f] +
                           argv(who, k), capture_output=True, check=True)
            txt = subprocess.run(["callgrind_annotate", "--inclusive=yes", f],
                                 capture_output=True, text=True).stdout
            for line in txt.splitlines():
                m = re.match(r"\s*([\d,]+)\s.*?:(\S+) \[", line)
                if not m:
                    continue
                ir, fn = int(m.group(1).replace(",", "")), m.group(2)
                for name, pre in fns.items():
                    if who == "lib" and fn.startswith(pre) and (name, fn) not in got:
                        got[(name, fn)] = ir
                if who == "hand" and fn in ("probe_" + k, "main") and ("hand.c", fn) not in got:
                    got[("hand.c", fn)] = ir
        tot = {}
        for (name, fn), ir in got.items():
            if name == "hand.c" and ("hand.c", "probe_" + k) in got and fn == "main":
                continue
            tot[name] = tot.get(name, 0) + ir
        print("%s Ir per strand at %d points: %s" % (k, pts, ", ".join(
            "%s %.0f" % (n, tot[n] / pts) for n in ["create", "update method", "outputs", "hand.c"]
            if n in tot)))
else:
    for k in ["bspln3", "ctmr"]:
        best = {}
        for _ in range(runs):
            for who in ["lib", "hand"]:
                out = subprocess.run(argv(who, k), capture_output=True, text=True, check=True).stdout
                for ph, w, c in re.findall(r"(\w+) wall=([0-9.]+) cpu=([0-9.]+)", out):
                    key = ("hand.c " if who == "hand" else "") + ph
                    best[key] = min(best.get(key, 1e9), float(c))
        print("%s best CPU s of %d at %d points: %s" % (k, runs, pts, ", ".join(
            "%s %.3f" % (n, best[n]) for n in ["create", "run", "out", "probe", "hand.c probe"]
            if n in best)))
PY
