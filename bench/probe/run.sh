#!/bin/sh
# run.sh [BUILD] [RUNS] [RES] -- the probe benchmark: value, gradient and
# Hessian (bspln3) / value and gradient (ctmr) of a synthetic 128^3 float
# volume at RES^3 points (default 100^3 = 1M), by the diderotc-generated code
# (seq and omp; executables and library), a hand-written C loop (hand.c),
# Teem's gage (gage_probe.c) and teem-gprobe. Verifies that all agree, then
# prints best-of-RUNS (default 5) times as Markdown tables.
# BUILD is a configured build directory with diderotc and libdiderot-rt.a
# (default: build). Work files (about 400 MB) go to $BENCH_WORK (default:
# BUILD/bench-probe). Needs cc, python3, libteem-dev and teem-apps.
set -e
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_setup probe 5 100 "$@"

bench_machine "$(uname -sr); $($cc --version | head -1)"
echo "date: $(bench_date)"
echo "diderotc C flags: $(bench_cflags)"

$cc -O2 -o gen_vol "$here/gen_vol.c" -lm
$cc -O2 -o compare "$here/compare.c" -lm
$cc -O3 -march=native -o hand "$here/hand.c" -lm
$cc -O3 -march=native -fopenmp -o hand_omp "$here/hand.c" -lm
$cc -O3 -march=native -o gage_probe "$here/gage_probe.c" -lteem -lm
[ -f vol.nrrd ] || ./gen_vol vol.nrrd 128

# gprobe's -pg grid: row 0 = (grid dimension, origin), then (size, step)
printf '3 -0.96875 -0.96875 -0.96875\n%s 0.01953125 0 0\n%s 0 0.01953125 0\n%s 0 0 0.01953125\n' \
  "$res" "$res" "$res" > grid.txt
teem-unu make -i grid.txt -t double -s 4 4 -e ascii -o grid.nrrd 2>/dev/null

dc="$build/diderotc"
for k in bspln3 ctmr; do
  cp "$here/probe_$k.diderot" .
  "$dc" --exec probe_$k.diderot -o probe_$k
  "$dc" --exec --target=omp probe_$k.diderot -o probe_${k}_omp
  "$dc" probe_$k.diderot -o lib_$k
  "$dc" --target=omp probe_$k.diderot -o libomp_$k
  hess=""
  [ $k = bspln3 ] && hess=-DHESS
  # the library object already contains the runtime
  $cc -O2 -I. -DLIB_H="\"lib_$k.h\"" $hess -o drv_$k "$here/lib_driver.c" lib_$k.o -lteem -lm
  $cc -O2 -I. -DLIB_H="\"libomp_$k.h\"" $hess -DOMP -fopenmp -o drvomp_$k "$here/lib_driver.c" \
    libomp_$k.o -lteem -lm
done

python3 "$here/bench.py" "$runs" "$res"
