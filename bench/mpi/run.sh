#!/bin/sh
# bench/mpi/run.sh [BUILD] [RUNS] [RES] -- --target=mpi on this machine
# (issue 31): examples/mip/mip.diderot and examples/paraview/dvr.diderot on
# examples/data/blobs.nrrd at RES x RES rays (default 600), best and median
# of RUNS (default 5) interleaved runs of
#   seq                     --target=seq
#   omp 2 threads           --target=omp -n 2
#   mpi 1 rank x 1 thread   mpirun -np 1 ... -n 1
#   mpi 1 rank x 2 threads  mpirun -np 1 ... -n 2
#   mpi 2 ranks x 1 thread  mpirun -np 2 ... -n 1 (default placement: cyclic)
#   mpi 2 ranks, block      the same built with mpi-placement = block
#   ..., pml ob1            the 1x1 and 2x1 rows again with OMPI_MCA_pml=ob1:
#                           on one machine Open MPI's default start tries its
#                           network transports (cm/ofi, psm2, ucx) first, which
#                           costs about 0.2 s of MPI_Init here (measured:
#                           0.36 s against 0.15 s for a run of 64 rays)
# mpirun runs with --bind-to none (Open MPI would bind the one rank of
# -np 1 to one core, and its two threads with it). The wall times include
# mpirun's start (launching the ranks, MPI_Init: about half a second here);
# `-t` makes rank 0 print the run's own time (usr=, the world's run without
# start-up and outputs), which timeit.py shows in its last column as cpu=
# for the other targets. Every MPI output is compared with the sequential
# one (cmp): byte-identical, or the script stops. Then a 10^6-particle
# system (bench/particles/particles2.diderot) at 2 and 12 super-steps.
# Not a test.
set -e
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_setup mpi 5 600 "$@"
command -v mpirun >/dev/null || { echo "bench/mpi: mpirun not found (openmpi-bin)"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bench_machine "load average before $(bench_load)"
echo "date: $(bench_date); diderotc C flags: $(bench_cflags); $(mpirun --version | head -1)"
printf 'mpi-placement = block\n' > block.sched
vol="$root/examples/data/blobs.nrrd"
for p in mip:examples/mip/mip.diderot dvr:examples/paraview/dvr.diderot; do
  name=${p%%:*} src="$root/${p#*:}"
  "$build/diderotc" --exec "$src" -o "$name"
  "$build/diderotc" --exec --target=omp "$src" -o "${name}_omp"
  "$build/diderotc" --exec --target=mpi "$src" -o "${name}_mpi"
  "$build/diderotc" --exec --target=mpi --schedule=block.sched "$src" -o "${name}_mpib"
  args="-vol $vol -imgResU $res -imgResV $res -t"
  mpi="mpirun --oversubscribe --bind-to none"
  # the same bytes first
  ./"$name" $args -o seq.nrrd >/dev/null
  $mpi -np 2 ./"${name}_mpi" -n 1 $args -o mpi.nrrd >/dev/null
  $mpi -np 2 ./"${name}_mpib" -n 1 $args -o mpib.nrrd >/dev/null
  cmp seq.nrrd mpi.nrrd && cmp seq.nrrd mpib.nrrd
  echo "$name ${res}x${res}: outputs of mpi (cyclic, block; 2 ranks) byte-identical to seq"
  python3 "$root/bench/timeit.py" "$runs" \
    "$name seq" -- ./"$name" $args -o seq.nrrd --- \
    "$name omp 2 threads" -- ./"${name}_omp" -n 2 $args -o omp.nrrd --- \
    "$name mpi 1 rank x 1 thread" -- $mpi -np 1 ./"${name}_mpi" -n 1 $args -o mpi.nrrd --- \
    "$name mpi 1 rank x 2 threads" -- $mpi -np 1 ./"${name}_mpi" -n 2 $args -o mpi.nrrd --- \
    "$name mpi 2 ranks x 1 thread (cyclic)" -- $mpi -np 2 ./"${name}_mpi" -n 1 $args -o mpi.nrrd --- \
    "$name mpi 2 ranks x 1 thread (block)" -- $mpi -np 2 ./"${name}_mpib" -n 1 $args -o mpib.nrrd --- \
    "$name mpi 1 rank x 1 thread, pml ob1" -- env OMPI_MCA_pml=ob1 $mpi -np 1 ./"${name}_mpi" -n 1 $args -o mpi.nrrd --- \
    "$name mpi 2 ranks x 1 thread, pml ob1" -- env OMPI_MCA_pml=ob1 $mpi -np 2 ./"${name}_mpi" -n 1 $args -o mpi.nrrd
done
# A particle system whose strands read each other (sphere queries): 10^6
# particles of bench/particles/particles2.diderot, S0 = 2 and S1 = 12
# super-steps, so that (T(S1) - T(S0)) / 10 is one super-step without the
# start, the creation and the output. Every step exchanges every state
# between the ranks (doc/user-guide.md "The MPI target").
src="$root/bench/particles/particles2.diderot"
"$build/diderotc" --exec "$src" -o part
"$build/diderotc" --exec --target=omp "$src" -o part_omp
"$build/diderotc" --exec --target=mpi "$src" -o part_mpi
pm="env OMPI_MCA_pml=ob1 mpirun --oversubscribe --bind-to none"
./part -m 1000 -steps 12 -o seq.nrrd >/dev/null
$pm -np 2 ./part_mpi -n 1 -m 1000 -steps 12 -o mpi.nrrd >/dev/null
cmp seq.nrrd mpi.nrrd
echo "particles 10^6: outputs of mpi (2 ranks) byte-identical to seq"
set --
for n in 2 12; do
  set -- "$@" "particles $n steps seq" -- ./part -m 1000 -steps $n -t -o seq.nrrd --- \
    "particles $n steps omp 2 threads" -- ./part_omp -n 2 -m 1000 -steps $n -t -o omp.nrrd --- \
    "particles $n steps mpi 1 rank x 1 thread, pml ob1" -- $pm -np 1 ./part_mpi -n 1 -m 1000 -steps $n -t -o mpi.nrrd --- \
    "particles $n steps mpi 2 ranks x 1 thread, pml ob1" -- $pm -np 2 ./part_mpi -n 1 -m 1000 -steps $n -t -o mpi.nrrd ---
done
python3 "$root/bench/timeit.py" "$runs" "$@"
echo "load average after: $(bench_load)"
