#!/bin/sh
# run-examples.sh [DIDEROTC [OUTDIR]] -- compile and run every example program
# end to end and write its picture.
#
#   DIDEROTC  the compiler (default: build/diderotc)
#   OUTDIR    scratch directory (default: build/examples-out); each example
#             gets OUTDIR/NAME/ with its executable, NRRD output and NAME.png
#
# Environment: DIDEROTC_FLAGS (extra compiler flags, e.g. "--target=omp"),
# DIDEROT_RT_DIR (the runtime; default: the compiler's own build directory).
# Needs Teem's unu (Debian: teem-apps, installed as teem-unu) and python3.
# Exits non-zero if any example fails to compile, run or make its picture,
# or if an output contains NaN/inf. An example folder with no recipe below
# is a failure too, so a new example cannot be silently skipped.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
dc=${1:-$top/build/diderotc}
out=${2:-$top/build/examples-out}
case $dc in /*) ;; *) dc=$(pwd)/$dc ;; esac
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
data=$top/examples/data
flags=${DIDEROTC_FLAGS:-}

if [ ! -x "$dc" ]; then
  echo "run-examples: no compiler at $dc (build it first)" >&2
  exit 2
fi
if [ -z "${DIDEROT_RT_DIR:-}" ] && [ -f "$(dirname "$dc")/libdiderot-rt.a" ]; then
  DIDEROT_RT_DIR=$(dirname "$dc")
  export DIDEROT_RT_DIR
fi
unu=$(command -v teem-unu || command -v unu || true)
if [ -z "$unu" ]; then
  echo "run-examples: Teem's unu not found (apt-get install teem-apps)" >&2
  exit 2
fi
mkdir -p "$out" || exit 2

# Teem's unu. The recipes write files rather than piping, so that set -e
# sees every command's exit status.
u() { "$unu" "$@"; }

# compile SRC EXE: diderotc --exec, with DIDEROTC_FLAGS split into words.
compile() {
  # shellcheck disable=SC2086
  "$dc" $flags --exec "$1" -o "$2"
}

# nonan FILE: fail if the NRRD holds NaN or infinities.
nonan() {
  if u minmax "$1" | grep -q "non-existent"; then
    echo "$1 contains NaN or inf values" >&2
    return 1
  fi
}

# One function per example: compile, run (data paths given explicitly,
# since the defaults in the programs are relative to the example folder),
# make NAME.png. They run in a subshell with set -e, in OUTDIR/NAME.
ex_mip() {
  compile "$top/examples/mip/mip.diderot" mip
  ./mip -vol "$data/blobs.nrrd" -o mip.nrrd
  nonan mip.nrrd
  u quantize -b 8 -min 0 -i mip.nrrd -o mip.png
}

ex_isocontour() {
  compile "$top/examples/isocontour/isocontour.diderot" isocontour
  ./isocontour -img "$data/ddro-100.nrrd" -o pos.nrrd
  nonan pos.nrrd
  python3 "$top/examples/isocontour/splat.py" pos.nrrd isocontour.png -bg "$data/ddro-100.nrrd"
}

ex_lic() {
  compile "$top/examples/lic/lic.diderot" lic
  ./lic -flow "$data/sqflow2D-1608.nrrd" -noise "$data/noise.nrrd" -o lic.nrrd
  nonan lic.nrrd
  u quantize -b 8 -min 0.5% -max 0.5% -i lic.nrrd -o lic.png
}

ex_dprobe() {
  compile "$top/examples/dprobe/dprobe.diderot" dprobe
  ./dprobe -img "$data/ddro-100.nrrd" -kern bspln5 -bc mirror -o dprobe.nrrd
  nonan dprobe.nrrd
  u quantize -b 8 -i dprobe.nrrd -o dprobe.png
}

ex_canny() {
  compile "$top/examples/canny/canny.diderot" canny
  ./canny -img "$data/ddro-100.nrrd" -o canny.nrrd
  nonan canny.nrrd
  u quantize -b 8 -min 0 -max 10 -i canny.nrrd -o canny.png
}

ex_vorticity() {
  compile "$top/examples/vorticity/vorticity.diderot" vorticity
  ./vorticity -flow "$data/sqflow2D-1608.nrrd" -o vort.nrrd
  nonan vort.nrrd
  u rmap -r -m "$data/diverge.nrrd" -min -2 -max 2 -i vort.nrrd -o vort-rgb.nrrd
  u quantize -b 8 -min 0 -max 1 -i vort-rgb.nrrd -o vorticity.png
}

ex_ridges() {
  compile "$top/examples/ridges/ridges.diderot" ridges
  ./ridges -elev "$data/sscand-crop.nrrd" -o lam.nrrd
  nonan lam.nrrd
  u rmap -r -m "$data/diverge.nrrd" -min -100 -max 100 -i lam.nrrd -o lam-rgb.nrrd
  u quantize -b 8 -min 0 -max 1 -i lam-rgb.nrrd -o ridges.png
}

# The renderer of the interactive viewer (examples/viewer), run as an
# executable: its default view, shaded volume rendering.
ex_viewer() {
  compile "$top/examples/viewer/viewer.diderot" viewer
  ./viewer -vol "$data/blobs.nrrd" -o rgb.nrrd
  nonan rgb.nrrd
  u quantize -b 8 -min 0 -max 1 -i rgb.nrrd -o viewer.png
}

# The two programs of the ParaView example (examples/paraview), run here as
# executables. dvr: a grey volume rendering.
ex_dvr() {
  compile "$top/examples/paraview/dvr.diderot" dvr
  ./dvr -vol "$data/blobs.nrrd" -o gray.nrrd
  nonan gray.nrrd
  u quantize -b 8 -min 0 -max 1 -i gray.nrrd -o dvr.png
}

# isoparticles: the particles on the isosurface, seen down the z axis (a 2-D
# histogram of their x and y over the world square [-1,1]^2, +y up).
ex_isoparticles() {
  compile "$top/examples/paraview/isoparticles.diderot" isoparticles
  ./isoparticles -vol "$data/blobs.nrrd" -o-pos pos.nrrd -o-normal normal.nrrd
  nonan pos.nrrd
  u slice -i pos.nrrd -a 0 -p 0 -o x.nrrd
  u slice -i pos.nrrd -a 0 -p 1 -o y.nrrd
  u jhisto -i x.nrrd y.nrrd -b 256 256 -min -1 -1 -max 1 1 -t float -o hist.nrrd
  u flip -i hist.nrrd -a 1 -o up.nrrd
  u quantize -b 8 -min 0 -max 2 -i up.nrrd -o isoparticles.png
}

ex_life() {
  compile "$top/examples/life/life.diderot" life
  ./life -init "$data/gosperglidergun.nrrd" -gens 300 -o cell.nrrd
  nonan cell.nrrd
  # one pixel per cell of [-20, 79]^2, y down as the pattern is drawn
  u slice -i cell.nrrd -a 0 -p 0 -o x.nrrd
  u slice -i cell.nrrd -a 0 -p 1 -o y.nrrd
  u jhisto -i x.nrrd y.nrrd -b 100 100 -min -20.5 -20.5 -max 79.5 79.5 -t float -o board.nrrd
  u resample -i board.nrrd -s x3 x3 -k box -c cell -o big.nrrd
  u quantize -b 8 -min 0 -max 1 -i big.nrrd -o life.png
}

now() { date +%s.%N; }
n=0
failed=""
for src in "$top"/examples/*/*.diderot; do
  [ -f "$src" ] || continue
  name=$(basename "$src" .diderot)
  n=$((n + 1))
  t0=$(now)
  if ! command -v "ex_$name" >/dev/null 2>&1; then
    echo "FAIL $name: no recipe in scripts/run-examples.sh" >&2
    failed="$failed $name"
    continue
  fi
  rm -rf "${out:?}/$name"
  mkdir -p "$out/$name"
  # Not inside an `if`: there set -e would be ignored in the subshell too.
  (set -e; cd "$out/$name"; "ex_$name") >"$out/$name/log.txt" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then
    t1=$(now)
    awk -v n="$name" -v t0="$t0" -v t1="$t1" -v p="$out/$name/$name.png" \
      'BEGIN { printf "ok   %-12s %5.1f s  %s\n", n, t1 - t0, p }'
  else
    echo "FAIL $name (log: $out/$name/log.txt):" >&2
    tail -n 20 "$out/$name/log.txt" >&2
    failed="$failed $name"
  fi
done

if [ -n "$failed" ]; then
  echo "run-examples: failed:$failed" >&2
  exit 1
fi
if [ "$n" -eq 0 ]; then
  echo "run-examples: no examples found under $top/examples" >&2
  exit 1
fi
echo "run-examples: all $n examples ran; pictures in $out/*/"
