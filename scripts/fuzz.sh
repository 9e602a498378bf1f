#!/bin/sh
# fuzz.sh SRCDIR SECONDS -- fuzz lexer+parser+typechecker with libFuzzer
# (clang, ASan+UBSan) for SECONDS, seeded with every test program.
# Crashing inputs are left in tests/fuzz/crashes-new/; turn each into a
# regression test under tests/fuzz/regressions/.
set -e
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
secs=${2:-60}
out="$src/build-fuzz"
mkdir -p "$out" "$src/tests/fuzz/crashes-new"
cd "$out"
[ -f Makefile ] || "$src/configure" -q CC=clang \
  CFLAGS="-g -O1 -fsanitize=address,undefined,fuzzer-no-link -fno-omit-frame-pointer"
make -j2 libdiderotc.a >/dev/null
clang -g -O1 -fsanitize=address,undefined,fuzzer -fno-omit-frame-pointer -std=c11 \
  -I"$src/src" -I"$out/src" -I"$out" "$src/tests/fuzz/fuzz_frontend.c" libdiderotc.a \
  -lteem -lm -o fuzz_frontend
corpus="$out/corpus"
mkdir -p "$corpus"
find "$src/tests/programs" "$src/tests/fuzz/regressions" -name '*.diderot' -o -name '*.ddro' 2>/dev/null |
  while read -r f; do cp "$f" "$corpus/"; done
./fuzz_frontend -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$src/tests/fuzz/crashes-new/" -print_final_stats=1 "$corpus" 2>&1 | tail -15
# Regressions must still pass (the fuzzer exits non-zero on a crash above).
for f in "$src"/tests/fuzz/regressions/*; do [ -f "$f" ] && ./fuzz_frontend "$f" >/dev/null 2>&1; done
echo "fuzz: ${secs}s, no crashes"
