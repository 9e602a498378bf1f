#!/bin/sh
# run.sh [BUILD] [RUNS] [RES] -- the layout benchmark (bench/layouts/README.md):
# the probe program (value, gradient and Hessian of a 128^3 float volume with
# bspln3 at RES^3 points, default 64^3; bench/probe/probe_bspln3.diderot) and
# the MIP volume rendering (examples/mip, 256x256 rays through the 40^3
# blobs volume) under every strand layout (aos, soa, aosoa:4, aosoa:8) and
# image layout (linear, brick:4, brick:8, halo:4, halo:8), sequential target
# (STRANDS="aos soa" and IMAGES="linear halo:8": only those). For each it
# prints the index operations the compiler counted (--stats: strand state
# and voxel loads), checks that every output is byte-identical to the
# aos/linear one, then prints best-of-RUNS (default 3) times as a Markdown
# table (bench/timeit.py). BUILD: a configured build directory with diderotc
# and libdiderot-rt.a (default: build). Work files go to $BENCH_WORK
# (default: BUILD/bench-layouts).
set -e
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_setup layouts 3 64 "$@"

bench_machine "$(uname -sr); $($cc --version | head -1)"
echo "date: $(bench_date)"

$cc -O2 -o gen_vol "$root/bench/probe/gen_vol.c" -lm
[ -f vol.nrrd ] || ./gen_vol vol.nrrd 128
cp "$root/bench/probe/probe_bspln3.diderot" probe.diderot
# mip.diderot names its proxy image ../data/blobs.nrrd
mkdir -p mip data
cp "$root/examples/mip/mip.diderot" mip/mip.diderot
cp "$root/examples/data/blobs.nrrd" data/blobs.nrrd

dc="$build/diderotc"
timing=""
echo
echo "| program | strand | image | state exprs | state ops | voxel loads | voxel index ops | voxel div/mod | fast-path loads | fast-path index ops | fast-path div/mod |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for prog in probe mip; do
  for s in ${STRANDS:-aos soa aosoa:4 aosoa:8}; do
    for i in ${IMAGES:-linear brick:4 brick:8 halo:4 halo:8}; do
      tag="${prog}_$(echo "$s-$i" | tr ':' '_')"
      src=$prog.diderot
      [ $prog = mip ] && src=mip/mip.diderot
      "$dc" --exec --stats --strand-layout=$s --image-layout=$i $src -o "$tag" 2> "$tag.stats" ||
        { cat "$tag.stats"; exit 1; }
      # the counts: "strand state ... N exprs, M ops: ..." and "voxel loads ... N loads, M ops: ... div/mod K"
      st=$(sed -n 's/^  strand state .* \([0-9]*\) exprs, *\([0-9]*\) ops.*/\1 | \2/p' "$tag.stats")
      vx=$(sed -n 's/^  voxel loads .* \([0-9]*\) loads, *\([0-9]*\) ops:.*div\/mod \([0-9]*\).*/\1 | \2 | \3/p' "$tag.stats")
      fx=$(sed -n 's/^    of which fast .* \([0-9]*\) loads, *\([0-9]*\) ops:.*div\/mod \([0-9]*\).*/\1 | \2 | \3/p' "$tag.stats")
      echo "| $prog | $s | $i | $st | $vx | ${fx:-— | — | —} |"
      mkdir -p "out_$tag"
      if [ $prog = probe ]; then
        args="-vol ../vol.nrrd -res $res"
      else
        args="-vol ../data/blobs.nrrd"
      fi
      (cd "out_$tag" && "../$tag" $args > /dev/null)
      for f in "out_${prog}_aos-linear"/*; do
        cmp -s "$f" "out_$tag/$(basename "$f")" || { echo "MISMATCH: $tag $(basename "$f")"; exit 1; }
      done
      timing="$timing $prog:$s:$i -- sh -c 'cd out_$tag && exec ../$tag $args -t' ---"
    done
  done
done
echo
echo "all outputs byte-identical to aos/linear"
echo
eval "python3 \"$root/bench/timeit.py\" $runs ${timing%---}"
