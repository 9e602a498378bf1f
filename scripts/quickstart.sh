#!/bin/sh
# quickstart.sh -- install dependencies, build diderotc in ./build, and run
# an example end to end. Used by the README's first quick-start command.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh scripts/install-deps.sh
[ -x configure ] || autoreconf -fi
mkdir -p build
cd build
[ -f Makefile ] || ../configure -q
make -j"$(nproc)"
cd "$top"
sh scripts/run-examples.sh build/diderotc
