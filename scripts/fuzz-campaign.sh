#!/bin/sh
# fuzz-campaign.sh SRCDIR SECONDS [BUILDDIR] [TARGETS] -- libFuzzer (clang,
# ASan+UBSan) on every fuzz target, one after the other (one job: the
# machine is shared), SECONDS each, niced:
#   fuzz_frontend  lexer, parser, typechecker (tests/fuzz/fuzz_frontend.c)
#   fuzz_nrrd      the runtime's NRRD readers and their checks (fuzz_nrrd.c)
#   fuzz_cli       a generated executable's command line (fuzz_cli.c)
#   fuzz_inputs    a generated library's input setters (fuzz_inputs.c over
#                  fuzz_inputs.diderot)
#   fuzz_json      the Python package's reader of a program's JSON
#                  description (tests/fuzz/fuzz_json.py: Python, not
#                  libFuzzer, as the reader is; run by $PYTHON3, default
#                  python3, which needs numpy and cffi)
#   fuzz_pyinputs  the Python package's input conversion: World(...)/set,
#                  diderot.Image, the inputs applied to the C world
#                  (tests/fuzz/fuzz_pyinputs.py: Python too, by $PYTHON3,
#                  its workers with gcc's libasan preloaded)
# Seeds: tests/fuzz/seeds/TARGET/ (committed, small), the frontend's from
# the test programs as scripts/fuzz.sh takes them; each target's corpus
# grows in BUILDDIR/corpus-TARGET. Regressions (tests/fuzz/regressions-
# TARGET/, and tests/fuzz/regressions/ for the frontend) are replayed
# first. Crashing inputs go to tests/fuzz/crashes-new/. Prints a table:
# target, executions, seconds, findings. BUILDDIR defaults to
# SRCDIR/build-fuzz (scripts/fuzz.sh's). `make fuzz-campaign FUZZ_SECONDS=N`.
set -e
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
secs=${2:-60}
out=${3:-$src/build-fuzz}
targets=${4:-fuzz_frontend fuzz_nrrd fuzz_cli fuzz_inputs fuzz_json fuzz_pyinputs}
py=${PYTHON3:-python3}
san="-fsanitize=address,undefined"
mkdir -p "$out" "$src/tests/fuzz/crashes-new"
cd "$out"
# the clang build only for the libFuzzer targets (the Python ones need none)
case " $targets " in *" fuzz_frontend "* | *" fuzz_nrrd "* | *" fuzz_cli "* | *" fuzz_inputs "*) clang=1 ;; *) clang= ;; esac
[ -z "$clang" ] || [ -f Makefile ] || "$src/configure" -q CC=clang \
  CFLAGS="-g -O1 $san,fuzzer-no-link -fno-omit-frame-pointer"
# the library of fuzz_inputs is compiled by DIDEROTC (default: the main
# build's, else one built here), against this build's runtime; fuzz_json
# and fuzz_pyinputs compile their programs with it
dc=${DIDEROTC:-$src/build/diderotc}
[ -x "$dc" ] || { [ -n "$clang" ] || { echo "fuzz-campaign: $targets: needs DIDEROTC or $src/build/diderotc"; exit 2; }
  nice -n 10 make -j1 diderotc >/dev/null; dc=$out/diderotc; }
[ -z "$clang" ] || nice -n 10 make -j1 libdiderotc.a libdiderot-rt.a >/dev/null
cc="clang -g -O1 $san,fuzzer -fno-omit-frame-pointer -std=gnu11"
for t in $targets; do
  case $t in
  fuzz_frontend)
    nice -n 10 $cc -I"$src/src" -I"$out/src" -I"$out" "$src/tests/fuzz/fuzz_frontend.c" \
      libdiderotc.a -lteem -lm -o fuzz_frontend ;;
  fuzz_nrrd | fuzz_cli)
    nice -n 10 $cc -I"$src/rt" "$src/tests/fuzz/$t.c" libdiderot-rt.a -lteem -lm -lpthread -o "$t" ;;
  fuzz_inputs)
    mkdir -p inputs
    # the proxies the program is compiled against (4x4 image, 3 weights)
    printf 'NRRD0004\ntype: float\ndimension: 2\nsizes: 4 4\nencoding: ascii\n\n%s\n' \
      "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15" > inputs/fuzz_img.nrrd
    printf 'NRRD0004\ntype: float\ndimension: 1\nsizes: 3\nencoding: ascii\n\n1 2 3\n' \
      > inputs/fuzz_xs.nrrd
    cp "$src/tests/fuzz/fuzz_inputs.diderot" inputs/
    (cd inputs && CC=clang DIDEROT_RT_DIR="$out" CFLAGS_DIDEROT="-g -O1" \
      CFLAGS_DIDEROT_EXTRA="$san,fuzzer-no-link -fno-omit-frame-pointer" \
      nice -n 10 "$dc" --namespace=F -o fuzz_inputs fuzz_inputs.diderot)
    nice -n 10 $cc -Iinputs -I"$src/rt" "$src/tests/fuzz/fuzz_inputs.c" inputs/fuzz_inputs.o \
      -lteem -lm -lpthread -o fuzz_inputs ;;
  fuzz_json | fuzz_pyinputs) ;;  # Python: nothing to build
  *) echo "fuzz-campaign: unknown target $t"; exit 2 ;;
  esac
done
# The suppressions name functions, so a report must be symbolized for them
# to apply: without llvm-symbolizer a known Teem leak reads as a finding.
if ! command -v llvm-symbolizer >/dev/null 2>&1 && ! command -v llvm-symbolizer-14 >/dev/null 2>&1; then
  echo "fuzz-campaign: llvm-symbolizer not found (Debian package llvm-14; scripts/install-deps.sh installs it)" >&2
  exit 2
fi
command -v llvm-symbolizer >/dev/null 2>&1 || ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer-14)
export ASAN_SYMBOLIZER_PATH
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# (tests/fuzz/lsan.supp: a leak of Teem's text reader, with its reason)
LSAN_OPTIONS=suppressions=$src/tests/fuzz/lsan.supp
export UBSAN_OPTIONS LSAN_OPTIONS
rows="" bad=0
for t in $targets; do
  if [ "$t" = fuzz_json ] || [ "$t" = fuzz_pyinputs ]; then
    # replays tests/fuzz/regressions-json (-pyinputs) itself, then fuzzes
    # for $secs s; a finding is a file in crashes-new (fuzz_json-current.json
    # where the interpreter itself died; fuzz_pyinputs-crash-N.txt for a
    # worker that died or hung)
    before=$(ls "$src/tests/fuzz/crashes-new" | wc -l)
    t0=$(date +%s)
    # (fuzz_pyinputs' workers under ASan: gcc's libasan preloaded)
    asan=; [ "$t" = fuzz_pyinputs ] && asan=--asan
    DIDEROTC=$dc nice -n 10 "$py" -W ignore "$src/tests/fuzz/$t.py" --seconds "$secs" $asan \
      --work "$out/$t" --crashes "$src/tests/fuzz/crashes-new" >"$out/campaign-$t.log" 2>&1 || true
    t1=$(date +%s)
    if grep -q "^$t: regression .* fails" "$out/campaign-$t.log"; then
      cat "$out/campaign-$t.log"; echo "fuzz-campaign: a regression of $t fails"; exit 1
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/campaign-$t.log" | tail -1)
    [ -n "$execs" ] || { tail -5 "$out/campaign-$t.log"; bad=1; }
    found=$(($(ls "$src/tests/fuzz/crashes-new" | wc -l) - before))
    if [ "$found" -ne 0 ]; then
      # the log's tail holds the finding's traceback: CI keeps nothing else
      bad=1; echo "== $t: $found finding(s); its seed and the end of its log:"
      grep -m1 "seed" "$out/campaign-$t.log"; tail -60 "$out/campaign-$t.log"
      for f in "$src"/tests/fuzz/crashes-new/"$t"-*; do
        [ -f "$f" ] && [ "$(wc -c <"$f")" -le 4096 ] && { echo "-- $f:"; cat "$f"; echo; }
      done
    fi
    rows="$rows| $t | ${execs:-?} | $((t1 - t0)) | $found |
"
    continue
  fi
  reg="$src/tests/fuzz/regressions-${t#fuzz_}"
  [ "$t" = fuzz_frontend ] && reg="$src/tests/fuzz/regressions"
  for f in "$reg"/*; do
    [ -f "$f" ] || continue
    (cd inputs 2>/dev/null || true; "$out/$t" -timeout=10 "$f") >"$out/replay-$t.log" 2>&1 || {
      cat "$out/replay-$t.log"
      echo "fuzz-campaign: regression $f of $t fails"
      exit 1
    }
  done
  corpus="$out/corpus-$t"
  mkdir -p "$corpus"
  if [ "$t" = fuzz_frontend ]; then
    (cd "$src" && find tests/programs tests/fuzz/regressions examples \
      \( -name '*.diderot' -o -name '*.ddro' \) 2>/dev/null) |
      while read -r f; do cp "$src/$f" "$corpus/$(echo "$f" | tr / _)"; done
    extra="-dict=$src/tests/fuzz/diderot.dict -max_len=4096"
  else
    extra="-max_len=2048"
  fi
  seeds="$src/tests/fuzz/seeds/${t#fuzz_}"
  [ -d "$seeds" ] || seeds=
  before=$(ls "$src/tests/fuzz/crashes-new" | wc -l)
  t0=$(date +%s)
  # (fuzz_inputs reads nothing from its directory but runs there, so that
  # a default's relative path names the proxies)
  (cd "$out/inputs" 2>/dev/null || cd "$out"
   nice -n 10 "$out/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 $extra \
     -artifact_prefix="$src/tests/fuzz/crashes-new/$t-" -print_final_stats=1 \
     "$corpus" $seeds >"$out/campaign-$t.log" 2>&1) || true
  t1=$(date +%s)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/campaign-$t.log" | tail -1)
  found=$(($(ls "$src/tests/fuzz/crashes-new" | wc -l) - before))
  [ "$found" -eq 0 ] || bad=1
  rows="$rows| $t | ${execs:-?} | $((t1 - t0)) | $found |
"
done
echo "| target | executions | seconds | findings |"
echo "|---|---:|---:|---:|"
printf '%s' "$rows"
if [ "$bad" -ne 0 ]; then
  echo "fuzz-campaign: new crashing inputs in tests/fuzz/crashes-new/ (logs: $out/campaign-*.log)"
  exit 1
fi
echo "fuzz-campaign: no findings"
