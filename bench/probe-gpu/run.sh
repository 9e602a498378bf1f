#!/bin/sh
# run.sh [BUILD] [RES...] -- the probe benchmark (bench/probe) on an NVIDIA
# GPU: value+gradient+Hessian (bspln3) and value+gradient (ctmr) of a
# synthetic 128^3 float volume at RES^3 points (default 100 200 300), built
# with diderotc --target=cuda. Reports probes/s against the memory-bandwidth
# floor: the compulsory traffic per probe is the outputs written (4 bytes per
# float: 13 floats for bspln3, 4 for ctmr) plus, once, the volume; the
# floor is BW / (bytes per probe), with BW the GPU's peak memory bandwidth
# ($BW_GBS in GB/s, else from the GPU's name: H100 SXM 3350, H100 PCIe 2000,
# H200 4800, A100 2039). Times are wall-clock times of the executable minus
# that of a 1^3 run (process start, CUDA context, volume upload, output
# writing scale with RES^3 and stay in: the result is a lower bound).
# Where no GPU answers (nvidia-smi fails) it prints "no GPU: skipped".
set -e
here=$(cd "$(dirname "$0")" && pwd)
if ! nvidia-smi >/dev/null 2>&1; then
  echo "no GPU: skipped"
  exit 0
fi
build=$(cd "${1:-build}" && pwd)
[ $# -gt 0 ] && shift
ress=${*:-100 200 300}
work=${BENCH_WORK:-$build/bench-probe-gpu}
mkdir -p "$work"
cd "$work"
export DIDEROT_RT_DIR="$build"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
export DIDEROT_CUDA_ARCH=${DIDEROT_CUDA_ARCH:-sm_$cap}
bw=${BW_GBS:-}
if [ -z "$bw" ]; then
  case "$gpu" in
    *H200*) bw=4800 ;;
    *H100*PCIe*) bw=2000 ;;
    *H100*) bw=3350 ;;
    *A100*) bw=2039 ;;
    *) bw=1000; echo "unknown GPU '$gpu': assuming 1000 GB/s (set BW_GBS)" ;;
  esac
fi
echo "gpu: $gpu (sm_$cap), peak bandwidth $bw GB/s; $(date -u '+%Y-%m-%d %H:%M UTC')"
${CC:-cc} -O2 -o gen_vol "$here/../probe/gen_vol.c" -lm
[ -f vol.nrrd ] || ./gen_vol vol.nrrd 128
now() { python3 -c 'import time; print(time.time())'; }
wall() { t0=$(now); "$@" >/dev/null; t1=$(now); python3 -c "print($t1 - $t0)"; }
echo
echo "| kernel | points | probes/s | floor probes/s | fraction of floor |"
echo "|---|---|---|---|---|"
for k in bspln3 ctmr; do
  cp "$here/../probe/probe_$k.diderot" .
  "$build/diderotc" --exec --target=cuda probe_$k.diderot -o probe_${k}_cuda
  nout=13; [ $k = ctmr ] && nout=4
  base=$(wall ./probe_${k}_cuda -res 1)
  for r in $ress; do
    best=
    for i in 1 2 3; do
      t=$(wall ./probe_${k}_cuda -res "$r")
      best=$(python3 -c "b='$best'; print(min(float(b), $t) if b else $t)")
    done
    python3 - "$k" "$r" "$best" "$base" "$bw" "$nout" <<'PY'
import sys
k, r, t, base, bw, nout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
n = r ** 3
dt = max(t - base, 1e-9)
bytes_per_probe = 4 * nout + 128 ** 3 * 4 / n
floor = bw * 1e9 / bytes_per_probe
print("| %s | %d^3 | %.3g | %.3g | %.2f |" % (k, r, n / dt, floor, (n / dt) / floor))
PY
  done
done
