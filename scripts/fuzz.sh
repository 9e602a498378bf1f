#!/bin/sh
# fuzz.sh SRCDIR SECONDS [BUILDDIR] -- fuzz lexer+parser+typechecker with
# libFuzzer (clang, ASan+UBSan) for SECONDS, seeded with every test program
# and example, mutating with the Diderot token dictionary
# tests/fuzz/diderot.dict. BUILDDIR defaults to SRCDIR/build-fuzz.
# Crashing inputs are left in tests/fuzz/crashes-new/; minimize each
# (fuzz_frontend -minimize_crash=1 FILE), fix it, and keep it under
# tests/fuzz/regressions/: every run replays those first.
set -e
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
secs=${2:-60}
out=${3:-$src/build-fuzz}
mkdir -p "$out" "$src/tests/fuzz/crashes-new"
cd "$out"
[ -f Makefile ] || "$src/configure" -q CC=clang \
  CFLAGS="-g -O1 -fsanitize=address,undefined,fuzzer-no-link -fno-omit-frame-pointer"
make -j2 libdiderotc.a >/dev/null
clang -g -O1 -fsanitize=address,undefined,fuzzer -fno-omit-frame-pointer -std=c11 \
  -I"$src/src" -I"$out/src" -I"$out" "$src/tests/fuzz/fuzz_frontend.c" libdiderotc.a \
  -lteem -lm -o fuzz_frontend
# UBSan only prints by default; make every report a crash libFuzzer keeps.
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export UBSAN_OPTIONS
# Regressions first: a fixed crash must stay fixed.
for f in "$src"/tests/fuzz/regressions/*; do
  [ -f "$f" ] || continue
  ./fuzz_frontend -timeout=10 "$f" >fuzz-replay.log 2>&1 || {
    cat fuzz-replay.log
    echo "fuzz: regression $f fails"
    exit 1
  }
done
corpus="$out/corpus"
mkdir -p "$corpus"
# Seeds keep their path in the name: many tests share a base name.
(cd "$src" && find tests/programs tests/fuzz/regressions examples \
  \( -name '*.diderot' -o -name '*.ddro' \) 2>/dev/null) |
  while read -r f; do cp "$src/$f" "$corpus/$(echo "$f" | tr / _)"; done
./fuzz_frontend -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -dict="$src/tests/fuzz/diderot.dict" \
  -artifact_prefix="$src/tests/fuzz/crashes-new/" -print_final_stats=1 "$corpus" 2>&1 | tail -15
# libFuzzer exits non-zero on a crash, but the pipe hides that: check.
if [ -n "$(ls "$src/tests/fuzz/crashes-new" 2>/dev/null)" ]; then
  echo "fuzz: new crashing inputs in tests/fuzz/crashes-new/"
  exit 1
fi
echo "fuzz: ${secs}s, no crashes"
