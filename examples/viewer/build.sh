#!/bin/sh
# build.sh [BUILD [OUT]] -- build diderot-viewer from the build tree BUILD
# (default: build, from the repository root) into OUT (default BUILD/viewer).
#
# The viewer is built the way a user builds it against an installed
# diderotc: BUILD is installed (`make install`) into the private prefix
# OUT/prefix, and examples/viewer/Makefile uses that prefix's diderotc and
# its pkg-config files (diderot-omp.pc). Prints the viewer's path.
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
out=${2:-$build/viewer}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Build first with the configured paths (an out-of-date tree rebuilt under
# prefix=... would compile that prefix in), then install; the lock keeps
# other makes in the same tree (the suite's install test) from racing.
if ! flock "$build/.make-lock" sh -c 'make -C "$1" && make -C "$1" install prefix="$2"' sh \
     "$build" "$out/prefix" >"$out/install.log" 2>&1; then
  tail -20 "$out/install.log" >&2
  echo "build.sh: make install into $out/prefix failed (log: $out/install.log)" >&2
  exit 1
fi
PATH="$out/prefix/bin:$PATH" PKG_CONFIG_PATH="$out/prefix/lib/pkgconfig" \
  make -s -C "$here" O="$out" ${TARGET:+TARGET=$TARGET} >&2
echo "$out/diderot-viewer"
