#!/bin/sh
# bench/scale/run.sh -- strands per second and bytes per strand of a 2-D
# grid (a few bytes of state) from 10^5 to 10^9 strands (issue 34).
#
#   sh bench/scale/run.sh BUILD [MAX_N]     (MAX_N: the largest side, default 31623)
#
# One program (tests/bigruns' GRID: create_array of S(i, j), one float
# output v = i + j, one update), compiled once with BUILD/diderotc --exec;
# each size run once under /usr/bin/time: wall seconds, user and system
# CPU seconds, peak resident memory (ru_maxrss); strands/s = n^2 / wall,
# user ns/strand = user CPU / n^2 (the program's own work), sys ns/strand
# (the kernel's: page faults and zeroing of fresh memory), bytes/strand =
# maxrss / n^2.
# The output goes to /dev/null (written through in place: every value is
# still produced and copied; the disk is not measured). Prints a Markdown
# table with the machine's load before and after (uptime). Not a test.
set -e
build=$(cd "${1:?usage: run.sh BUILD [MAX_N]}" && pwd)
max=${2:-31623}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/grid.diderot" <<'DIDEROT'
#version 2.0
input int n = 10;
strand S (int i, int j) {
  output real v = 0.0;
  update { v = real(i + j); stabilize; }
}
create_array { S(i, j) | i in 0..n-1, j in 0..n-1 }
DIDEROT
DIDEROT_RT_DIR="$build" "$build/diderotc" --exec -o "$work/grid" "$work/grid.diderot"
echo "load before: $(uptime)"
echo
echo "| strands | n | wall s | strands/s | user ns/strand | sys ns/strand | peak RSS | bytes/strand |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in 316 1000 3162 10000 31623; do
  [ "$n" -le "$max" ] || continue
  /usr/bin/time -f "%e %U %S %M" -o "$work/t" "$work/grid" -n "$n" -o /dev/null
  read -r wall usr sys kb < "$work/t"
  awk -v n="$n" -v w="$wall" -v u="$usr" -v y="$sys" -v kb="$kb" 'BEGIN {
    s = n * n; if (w < 0.01) w = 0.01
    printf "| %.3g | %d | %.2f | %.3g | %.1f | %.1f | %.3g GB | %.1f |\n", s, n, w, s / w,
      u * 1e9 / s, y * 1e9 / s, kb * 1024 / 1e9, kb * 1024 / s }'
done
echo
echo "load after: $(uptime)"
