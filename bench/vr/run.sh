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
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-build}" && pwd)
runs=${2:-5}
res=${3:-512}
work=${BENCH_WORK:-$build/bench-vr}
cc=${CC:-cc}
mkdir -p "$work"
cd "$work"
export DIDEROT_RT_DIR="$build"
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); diderotc C flags: ${CFLAGS_DIDEROT:--O3 -march=native}"

$cc -O2 -o compare "$root/bench/probe/compare.c" -lm
t0=$(date +%s.%N)
"$build/diderotc" --exec "$root/examples/mip/mip.diderot" -o mip
t1=$(date +%s.%N)
"$build/diderotc" --exec --target=omp "$root/examples/mip/mip.diderot" -o mip_omp
t2=$(date +%s.%N)
printf "compile (diderotc + cc): seq %.2f s, omp %.2f s\n" "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"

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
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
