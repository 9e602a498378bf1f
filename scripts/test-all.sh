#!/bin/sh
# test-all.sh -- the whole test suite: the normal build's suite, the same
# suite under ASan+UBSan, FUZZ_SECONDS (default 60) of frontend fuzzing, and
# a fixed-seed differential sample against the original compiler
# (DIFFERENTIAL_COUNT comparisons, default 134; 0 skips it; doc/testing.md), and
# the conformance suite of example programs (make conformance, then make
# conformance-variants: the same under other image layouts).
# Needs the build from scripts/quickstart.sh (./build). The last line is
# "N passed, N failed, N skipped" over everything.
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
secs=${FUZZ_SECONDS:-60}
logdir=$(mktemp -d)
status=0
# seconds per part, printed at the end (CI keeps only the tail)
t_start=$(date +%s)
t_last=$t_start
lap() { t_now=$(date +%s); echo "$1 $((t_now - t_last)) s" >>"$logdir/laps"; t_last=$t_now; }

echo "== test suite (build/)"
make -C build check 2>&1 | tee "$logdir/normal.log" || status=1
lap "suite"
echo "== test suite under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/)"
sh scripts/check-asan.sh "$top" 2>&1 | tee "$logdir/asan.log" || status=1
lap "asan (build and suite)"
echo "== fuzzing the frontend for ${secs}s (build-fuzz/)"
fuzz_pass=0 fuzz_fail=0
if sh scripts/fuzz.sh "$top" "$secs" >"$logdir/fuzz.log" 2>&1; then
  fuzz_pass=1
else
  fuzz_fail=1
  status=1
fi
tail -5 "$logdir/fuzz.log"
lap "fuzz (build and run)"
# the runtime's fuzz targets, a short run each (the campaign's table is in
# doc/testing.md): FUZZ_RT_SECONDS (default 20) per target, in build-fuzz/
rsecs=${FUZZ_RT_SECONDS:-20}
echo "== fuzzing the runtime (NRRD readers, command line, library inputs), the package's JSON reader and its input conversion for ${rsecs}s each"
if sh scripts/fuzz-campaign.sh "$top" "$rsecs" "$top/build-fuzz" "fuzz_nrrd fuzz_cli fuzz_inputs fuzz_json fuzz_pyinputs" \
    >"$logdir/fuzz-rt.log" 2>&1; then
  fuzz_pass=$((fuzz_pass + 1))
else
  fuzz_fail=$((fuzz_fail + 1))
  status=1
fi
tail -8 "$logdir/fuzz-rt.log"
lap "fuzz the runtime (build and run)"
echo "== the OpenMP target under ThreadSanitizer (build-tsan/)"
tsan_pass=0 tsan_fail=0
if sh scripts/check-tsan.sh "$top" >"$logdir/tsan.log" 2>&1; then
  tsan_pass=1
else
  tsan_fail=1
  status=1
fi
tail -3 "$logdir/tsan.log"
lap "tsan (build and omp/ + runtime unit tests)"

# One pass/fail unit: zero unexplained disagreements on the fixed sample.
# The original is built into build/diderot-ref from ../shared/reference
# (apt-get installs SML/NJ) unless REFERENCE names a built one.
dcount=${DIFFERENTIAL_COUNT:-134}   # seed 1: 96 programs, 134 comparisons (doc/testing.md)
dj=$(nproc 2>/dev/null || echo 1); [ "$dj" -gt 4 ] && dj=4   # parallel compiles
diff_pass=0 diff_fail=0 diff_skip=0
if [ "$dcount" -eq 0 ]; then
  diff_skip=1
elif [ -z "${REFERENCE:-}" ] && [ ! -f "$top/../shared/reference/build.sh" ]; then
  echo "== differential testing: skipped (no ../shared/reference to build the original from)"
  diff_skip=1
else
  echo "== differential testing against the original compiler ($dcount programs, seed 1)"
  if make -C build differential SECONDS=0 SEED=1 REFERENCE="${REFERENCE:-}" \
       DIFFERENTIAL_FLAGS="--count $dcount --double-every 5 --mutate-every 5 --long-every 0 -j $dj" >"$logdir/diff.log" 2>&1; then
    diff_pass=1
  else
    diff_fail=1
    status=1
  fi
  grep -v '^make' "$logdir/diff.log" | tail -25
  lap "differential (original's build and sample)"
fi

# The conformance suite: the example programs of ../shared/conformance run
# by diderot-regress (tests/conformance, doc/conformance.md); each case counts.
conf_skip=0
: >"$logdir/conformance.log"
: >"$logdir/variants.log"
if [ -d "$top/../shared/conformance/examples" ]; then
  echo "== conformance suite (the examples corpus; report in build/conformance/report.html)"
  make -C build conformance >"$logdir/conformance.log" 2>&1 || status=1
  grep -v '^make' "$logdir/conformance.log" | tail -40
  grep -qE '^[0-9]+ passed, [0-9]+ failed' "$logdir/conformance.log" ||
    { echo "test-all: the conformance suite did not report its summary"; status=1; }
  lap "conformance"
  # the same scripts with every program built under other image layouts
  # (tests/conformance/variants.py): every file byte-identical to the above
  echo "== the conformance corpus under --image-layout=brick:4, halo:4, halo:8"
  make -C build conformance-variants >"$logdir/variants.log" 2>&1 || status=1
  grep -E '^FAIL ' "$logdir/variants.log" | head -20
  grep -E '^[0-9]+ passed, [0-9]+ failed' "$logdir/variants.log" ||
    { echo "test-all: the layout variants did not report their summary"; status=1; }
  lap "conformance variants"
else
  echo "== conformance suite: skipped (no ../shared/conformance)"
  conf_skip=1
fi

# Sum the summaries: "N passed, N failed, N skipped".
sum() { grep -hE '^[0-9]+ passed, [0-9]+ failed' "$@" | tail -n 4 |
  awk -v p="$((fuzz_pass + diff_pass + tsan_pass))" -v f="$((fuzz_fail + diff_fail + tsan_fail))" -v s="$((diff_skip + conf_skip))" '{p += $1; f += $3; s += $5} END {printf "%d passed, %d failed, %d skipped\n", p, f, s}'; }
summaries=$(grep -cE '^[0-9]+ passed, [0-9]+ failed' "$logdir/normal.log" "$logdir/asan.log" | grep -c ':1$')
[ "$summaries" -eq 2 ] || { echo "test-all: a suite did not report its summary"; status=1; }
line=$(sum "$logdir/normal.log" "$logdir/asan.log" "$logdir/conformance.log" "$logdir/variants.log")
# Every failure again, with its first detail lines, right before the last
# line: CI keeps only the tail of this output.
{
  for part in normal asan conformance variants; do
    grep -A6 -E '^FAIL |^ *FAIL ' "$logdir/$part.log" | grep -v '^--$' | sed "s/^/[$part] /"
  done
  # (a Python target's finding: its seed, traceback and input, which
  # fuzz-campaign.sh prints between "== fuzz_X: N finding(s)" and the table)
  [ "$fuzz_fail" -eq 0 ] || { sed 's/^/[fuzz] /' "$logdir/fuzz.log" | tail -12
    sed -n '/^== fuzz_[a-z]*: [0-9]* finding/,$p' "$logdir/fuzz-rt.log" | head -120 | sed 's/^/[fuzz-rt] /'
    tail -8 "$logdir/fuzz-rt.log" | sed 's/^/[fuzz-rt] /'; }
  [ "$tsan_fail" -eq 0 ] || sed 's/^/[tsan] /' "$logdir/tsan.log" | grep -v "^\[tsan\] PASS" | tail -30
  [ "$diff_fail" -eq 0 ] || grep -E 'unexplained|ours-wrong' "$logdir/diff.log" | sed 's/^/[differential] /' | tail -20
} >"$logdir/failures"
echo "== time per part: $(tr '\n' ';' <"$logdir/laps" | sed 's/;$//; s/;/; /g'); all $(( $(date +%s) - t_start )) s"
if [ -s "$logdir/failures" ]; then
  echo "== failures (again, from the logs above)"
  head -200 "$logdir/failures"
fi
rm -rf "$logdir"
# `make ... | tee` hides make's status: judge by the counts as well
case "$line" in
  *" 0 failed,"*) ;;
  *) status=1 ;;
esac
echo "$line"
exit $status
