#!/bin/sh
# quickstart.sh -- install dependencies, build diderotc in ./build, and
# compile and run every example end to end, writing its picture to
# build/examples-out/NAME/NAME.png. The README's first quick-start command.
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
sh scripts/run-examples.sh build/diderotc build/examples-out
echo "quickstart: done; compare build/examples-out/*/*.png with examples/README.md"
