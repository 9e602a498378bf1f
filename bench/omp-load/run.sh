#!/bin/sh
# run.sh [BUILD] [RUNS] [RES] [LOAD] -- OpenMP under load: times
# examples/mip/mip.diderot at RES x RES rays (default 300), sequential and
# --target=omp with 2 threads, while LOAD (default 2) busy processes compete
# for the cores, with the generated program's default wait policy (passive,
# rt/rt_omp.c) and with OMP_WAIT_POLICY=active (libgomp's spinning). Wall
# seconds, best of RUNS (default 3). The busy processes are this script's
# own children and are stopped when it ends.
set -e
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_setup omp-load 3 300 "$@"
nload=${4:-2}
bench_machine "load average before $(bench_load)"
echo "date: $(bench_date); diderotc C flags: $(bench_cflags)"
bench_seq_omp "$root/examples/mip/mip.diderot" mip
vol="$root/examples/data/blobs.nrrd"
args="-vol $vol -imgResU $res -imgResV $res"
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null; done' EXIT INT TERM
i=0
while [ "$i" -lt "$nload" ]; do
  sh -c 'while :; do :; done' &
  pids="$pids $!"
  i=$((i + 1))
done
echo "$nload busy processes running"
env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT python3 "$root/bench/timeit.py" "$runs" \
  "mip seq ${res}x${res}" -- ./mip $args -o seq.nrrd --- \
  "mip omp 2 threads, default (passive)" -- ./mip_omp -n 2 $args -o omp.nrrd --- \
  "mip omp 2 threads, OMP_WAIT_POLICY=active" -- env OMP_WAIT_POLICY=active ./mip_omp -n 2 $args -o omp.nrrd
echo "load average after: $(bench_load)"
