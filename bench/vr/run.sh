#!/bin/sh
# run.sh [BUILD] [RUNS] [RES] -- times examples/mip/mip.diderot (maximum-
# intensity projection of examples/data/blobs.nrrd, cubic B-spline, one strand
# per pixel) at RES x RES pixels (default 512), seq and omp (1 and 2 threads;
# 2 also with passive OpenMP waiting),
# best of RUNS (default 5), after checking that seq and omp images agree.
# BUILD: configured build directory with diderotc and libdiderot-rt.a
# (default: build); work files go to $BENCH_WORK (default: BUILD/bench-vr).
set -e
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_setup vr 5 512 "$@"
bench_machine "load average $(bench_load)"
echo "date: $(bench_date); diderotc C flags: $(bench_cflags)"

$cc -O2 -o compare "$root/bench/probe/compare.c" -lm
bench_seq_omp "$root/examples/mip/mip.diderot" mip

vol="$root/examples/data/blobs.nrrd"
args="-vol $vol -imgResU $res -imgResV $res"
./mip $args -o seq.nrrd
./mip_omp -n 2 $args -o omp.nrrd
printf 'seq vs omp image: '
./compare seq.nrrd omp.nrrd 0
echo "$res x $res rays, $(echo "3.6 / 0.01 + 1" | bc) samples each"
python3 "$root/bench/timeit.py" "$runs" \
  "mip seq ${res}x${res}" -- ./mip $args -t -o seq.nrrd --- \
  "mip omp 1 thread" -- ./mip_omp -n 1 $args -t -o omp.nrrd --- \
  "mip omp 2 threads" -- ./mip_omp -n 2 $args -t -o omp.nrrd --- \
  "mip omp 2 threads, OMP_WAIT_POLICY=passive" -- OMP_WAIT_POLICY=passive ./mip_omp -n 2 $args -t -o omp.nrrd
echo "load average after: $(bench_load)"
