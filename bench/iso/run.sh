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
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-build}" && pwd)
runs=${2:-5}
res=${3:-1000}
work=${BENCH_WORK:-$build/bench-iso}
cc=${CC:-cc}
mkdir -p "$work"
cd "$work"
export DIDEROT_RT_DIR="$build"
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); diderotc C flags: ${CFLAGS_DIDEROT:--O3 -march=native}"

$cc -O2 -o compare "$root/bench/probe/compare.c" -lm
t0=$(date +%s.%N)
"$build/diderotc" --exec "$root/examples/isocontour/isocontour.diderot" -o iso
t1=$(date +%s.%N)
"$build/diderotc" --exec --target=omp "$root/examples/isocontour/isocontour.diderot" -o iso_omp
t2=$(date +%s.%N)
printf "compile (diderotc + cc): seq %.2f s, omp %.2f s\n" "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"

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
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
