"""Tables for doc/ir-sizes.md (see run.sh): diderotc --check --stats on each
higher-order program, once per configuration; sizes from the
"stats: size PASS ..." lines, time from "stats: time low" (best of RUNS)."""
import os
import re
import subprocess
import sys

CONFIGS = [("all passes", []), ("no split", ["--disable-split"]),
           ("no slice", ["--disable-slice"]), ("no sum binding", ["--disable-sum-binding"])]
SIZE = re.compile(r"^stats: size (\S+) blocks (\d+) instrs (\d+) phis (\d+) ein-ops (\d+) "
                  r"ein-nodes (\d+)(?: expanded (\d+))?$")
TIME = re.compile(r"^stats: time low wall [0-9.]+ cpu ([0-9.]+)$")


def run(diderotc, prog, flags):
    r = subprocess.run([diderotc, "--check", "--stats", "-w"] + flags + [prog],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("%s %s: exit status %d\n%s" % (prog, " ".join(flags), r.returncode, r.stderr))
    sizes, t = {}, None
    for line in r.stderr.splitlines():
        m = SIZE.match(line)
        if m:
            sizes[m.group(1)] = (int(m.group(3)), int(m.group(6)), m.group(7))
        m = TIME.match(line)
        if m:
            t = float(m.group(1))
    return sizes, t


def cell(s):
    instrs, nodes, expanded = s
    return "%d / %d%s" % (instrs, nodes, " / %s" % expanded if expanded is not None else "")


def main():
    diderotc, runs, src = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    progs = sorted(f for f in os.listdir(src) if f.endswith(".diderot"))
    summary = []
    for f in progs:
        path = os.path.join(src, f)
        results = []
        for label, flags in CONFIGS:
            best, sizes = None, None
            for _ in range(runs):
                sizes, t = run(diderotc, path, flags)
                best = t if best is None or t < best else best
            results.append((label, sizes, best))
        phases = list(results[0][1])
        print("### %s\n" % f[:-len(".diderot")])
        print("Cells: instructions / EIN nodes (MidIR: / expanded-size estimate).\n")
        print("| phase | " + " | ".join(l for l, _, _ in results) + " |")
        print("|---|" + "---|" * len(results))
        for p in phases:
            print("| %s | " % p + " | ".join(cell(s[p]) if p in s else "(off)"
                                             for _, s, _ in results) + " |")
        print("| diderotc time (s) | " + " | ".join("%.3f" % t for _, _, t in results) + " |\n")
        low = [s["low.dce"][0] for _, s, _ in results]
        summary.append((f[:-len(".diderot")], low, [t for _, _, t in results]))
    print("### Summary: LowIR instructions after DCE, and diderotc time (s)\n")
    print("| program | " + " | ".join(l for l, _ in CONFIGS) + " |")
    print("|---|" + "---|" * len(CONFIGS))
    for name, low, ts in summary:
        print("| %s | " % name + " | ".join("%d (%.3f s)" % (n, t) for n, t in zip(low, ts)) + " |")


main()
