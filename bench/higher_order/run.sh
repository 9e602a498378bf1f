#!/bin/sh
# IR sizes and compile times of the higher-order programs
# (tests/programs/accept/higher_order/*.diderot), with all MidIR passes and
# with split, slice and summation binding each disabled. Prints the tables
# of doc/ir-sizes.md (Markdown) on stdout.
#
#   sh bench/higher_order/run.sh BUILD/diderotc [RUNS]
#
# The time is diderotc's own "stats: time low" line (front end through
# LowIR VN/DCE; no C code, no C compiler), the best of RUNS runs (default 5).
set -e
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/ir_sizes.py" "${1:-build/diderotc}" "${2:-5}" \
  "$here/../../tests/programs/accept/higher_order"
