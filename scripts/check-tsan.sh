#!/bin/sh
# check-tsan.sh SRCDIR [FILTER] -- the OpenMP target's tests under
# ThreadSanitizer: build in build-tsan/ with clang (the runtime library and
# its unit tests with -fsanitize=thread), then run tests/run.py --profile=tsan:
# every omp/run/NAME case (each program built with --target=omp by clang,
# whose -fopenmp is LLVM's libomp, and run with 2 and 4 threads) and the
# runtime's unit tests (the snapshot writer's thread, the world's chunks).
# TSan understands libomp's barriers and tasks through its tool interface:
# libarcher (OMP_TOOL_LIBRARIES), shipped with libomp-14-dev. Any report
# ("WARNING: ThreadSanitizer: ...", exit status 66) fails the test.
# Suppressions: scripts/tsan.supp, each with its reason.
set -e
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
filter=${2:-}
mkdir -p "$src/build-tsan"
cd "$src/build-tsan"
tsan="-g -O1 -fsanitize=thread -fno-omit-frame-pointer"
[ -f Makefile ] || "$src/configure" -q CC=clang CFLAGS="-g -O1 -fno-omit-frame-pointer"
# Only the runtime (what generated programs and the runtime's unit tests
# link) is built with TSan, first: the compiler has no threads (it forks the
# C compiler), and an instrumented compiler only makes every case's build
# slower. Make does not track flags, so the later plain `make` keeps these.
make -j2 libdiderot-rt.a CFLAGS="$tsan" >/dev/null
make -j2 >/dev/null
ncheck=$(sed -n 's/^check_PROGRAMS += //p' "$src/Makefile.am" | tr -d '\\' | tr ' ' '\n' | grep test_rt_ | tr '\n' ' ')
make -j2 $ncheck CFLAGS="$tsan" LDFLAGS="-fsanitize=thread" >/dev/null
archer=$(clang -print-file-name=libarcher.so)
[ -f "$archer" ] || archer=/usr/lib/llvm-14/lib/libarcher.so
[ -f "$archer" ] || { echo "check-tsan: libarcher.so not found (apt-get install libomp-14-dev)"; exit 1; }
export CC=clang
export CFLAGS_DIDEROT_EXTRA="-g -fsanitize=thread -fno-omit-frame-pointer"
export OMP_TOOL_LIBRARIES="$archer"
# ignore_noninstrumented_modules: libomp itself is not instrumented; its
# own locks (a pthread_mutex_init in one thread, the lock in another, both
# inside libomp) are reported otherwise, as archer's startup note says.
# Races between our code's accesses are still reported.
export TSAN_OPTIONS="exitcode=66:halt_on_error=0:ignore_noninstrumented_modules=1:suppressions=$src/scripts/tsan.supp"
python3 "$src/tests/run.py" --srcdir="$src" --builddir="$src/build-tsan" --profile=tsan \
  ${filter:+-k "$filter"}
