#!/bin/sh
# run.sh [BUILD] [RUNS] [RES] -- times examples/isocontour/isocontour.diderot
# (Newton particles onto the 0.5 isocontour of examples/data/ddro-100.nrrd,
# Catmull-Rom, a create_collection of RES^2 strands; default RES 1000, i.e.
# 1M strands, plus the example's own 80^2), seq and omp (1 and 2 threads;
# 2 also with passive OpenMP waiting),
# best of RUNS (default 5), after checking that seq and omp agree.
# BUILD: configured build directory with diderotc and libdiderot-rt.a
# (default: build); work files go to $BENCH_WORK (default: BUILD/bench-iso).
set -e
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_setup iso 5 1000 "$@"
bench_machine "load average $(bench_load)"
echo "date: $(bench_date); diderotc C flags: $(bench_cflags)"

$cc -O2 -o compare "$root/bench/probe/compare.c" -lm
bench_seq_omp "$root/examples/isocontour/isocontour.diderot" iso

img="-img $root/examples/data/ddro-100.nrrd"
for r in 80 "$res"; do
  ./iso $img -res "$r" -o seq$r.nrrd
  ./iso_omp -n 2 $img -res "$r" -o omp$r.nrrd
  printf 'res %s: %s stable strands; seq vs omp: ' "$r" "$(sed -n 's/^sizes: 2 //p' seq$r.nrrd | head -1)"
  ./compare seq$r.nrrd omp$r.nrrd 0
done
python3 "$root/bench/timeit.py" "$runs" \
  "iso seq 80x80" -- ./iso $img -res 80 -t -o seq80.nrrd --- \
  "iso omp 2 threads 80x80" -- ./iso_omp -n 2 $img -res 80 -t -o omp80.nrrd --- \
  "iso seq ${res}x${res}" -- ./iso $img -res "$res" -t -o seq$res.nrrd --- \
  "iso omp 1 thread ${res}x${res}" -- ./iso_omp -n 1 $img -res "$res" -t -o omp$res.nrrd --- \
  "iso omp 2 threads ${res}x${res}" -- ./iso_omp -n 2 $img -res "$res" -t -o omp$res.nrrd --- \
  "iso omp 2 threads ${res}x${res}, OMP_WAIT_POLICY=passive" -- OMP_WAIT_POLICY=passive ./iso_omp -n 2 $img -res "$res" -t -o omp$res.nrrd
echo "load average after: $(bench_load)"
