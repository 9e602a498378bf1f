#!/bin/sh
# check-asan.sh SRCDIR -- build in build-asan/ with AddressSanitizer and
# UndefinedBehaviorSanitizer (leak checking on) and run the whole suite:
# the compiler, the runtime and every generated program the suite runs.
# tests/run.py fails any test whose output carries a sanitizer report.
set -e
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
mkdir -p "$src/build-asan"
cd "$src/build-asan"
[ -f Makefile ] || "$src/configure" -q \
  CFLAGS="-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
  LDFLAGS="-fsanitize=address,undefined"
make -j2 >/dev/null
# the runtime library is built with the sanitizers, so generated programs
# (and the test clients linked with generated libraries) must be too;
# CFLAGS_DIDEROT_EXTRA survives the test modes that set CFLAGS_DIDEROT
export CFLAGS_DIDEROT_EXTRA="-g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
export ASAN_OPTIONS=detect_leaks=1:exitcode=99
# Teem's own leaks on malformed inputs, each with its reason (tests/fuzz/lsan.supp)
export LSAN_OPTIONS=suppressions=$src/tests/fuzz/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99
make -j2 check TEST_PROFILE=sanitize
