#!/bin/bash
# device_run.sh [PAYLOAD] -- the command the GPU machine runs (bench/gpu/README.md):
# device_run.py on the payload made by prepare.py, its output flushed and
# copied to $OUT/log.txt as it goes, so that a run stopped at its limit
# still returns what it did. DEADLINE (seconds, default 380) bounds the
# whole; OUT defaults to /tmp/gpu-out. Extra arguments go to device_run.py.
set -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
payload=${1:-.device-carry/gpu/payload.tar.xz}
[ $# -gt 0 ] && shift
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
python3 "$here/device_run.py" --payload "$payload" --out "$OUT" --deadline "${DEADLINE:-380}" "$@" 2>&1 |
  tee "$OUT/log.txt"
