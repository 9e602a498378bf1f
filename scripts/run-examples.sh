#!/bin/sh
# run-examples.sh DIDEROTC -- check every shipped example program.
# (Until the back end lands this typechecks the examples; it will compile
# and run them, writing their pictures, once code generation exists.)
set -e
dc=${1:-build/diderotc}
top=$(cd "$(dirname "$0")/.." && pwd)
n=0
for f in "$top"/examples/*/*.diderot; do
  [ -f "$f" ] || continue
  "$dc" --check "$f"
  echo "checked: ${f#$top/}"
  n=$((n + 1))
done
echo "$n example programs typecheck"
