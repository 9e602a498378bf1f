#!/bin/sh
# run.sh [DIDEROTC] [LINES] -- time lex+parse+typecheck of a generated
# program (diderotc --check), best and median of 11 runs. Goal: < 0.2 s for
# 10,000 lines.
dc=${1:-build/diderotc}
lines=${2:-10000}
tmp=$(mktemp -d)
python3 "$(dirname "$0")/gen_program.py" "$lines" > "$tmp/big.diderot"
echo "program: $(wc -l < "$tmp/big.diderot") lines, $(wc -c < "$tmp/big.diderot") bytes"
python3 - "$dc" "$tmp/big.diderot" <<'PY'
import subprocess, sys, time
dc, prog = sys.argv[1], sys.argv[2]
times = []
for _ in range(11):
    t = time.perf_counter()
    r = subprocess.run([dc, "-w", "--check", prog], capture_output=True, text=True)
    times.append(time.perf_counter() - t)
    if r.returncode != 0:
        sys.exit("diderotc failed:\n" + r.stderr[:2000])
times.sort()
print(f"diderotc --check: best {times[0]*1000:.1f} ms, median {times[5]*1000:.1f} ms")
PY
rm -rf "$tmp"
