#!/usr/bin/python3
"""scaling.py -- how compile time grows with the program (issue 37): program
families that grow in one direction each, compiled with --exec --stats at
N = 32 .. 1024, the seconds of each phase, the size of the C text and the
exponent of each curve.

    python3 bench/compile/scaling.py --compiler build/diderotc [--family calls]
        [--sizes 32,64,128,256,512,1024] [--reps 1] [--no-cc] [--markdown]

Families (each program is valid Diderot 2.0 and runs):
  calls     N calls of a 31-branch else-if function in one update
            (`out += g(j + c)`, c = 1..N; the issue's family)
  ifdepth   N nested ifs (N <= 512: the parser's nesting limit)
  orchain   one condition of N `||` / `&&` terms
  state     N strand-state variables (outputs), each updated
  globals   N inputs and N globals computed from them
  straight  a straight-line update of N statements

Per program: the CPU seconds of each phase from `stats: phase` (frontend,
high, mid, low, emit: diderotc's own; cc: the C compiler's), their sum, and
the generated C's lines. The exponent of a curve is the least-squares slope
of log(seconds) against log(N) over the sizes from 128 up (below, fixed costs
dominate), and `x4` is the ratio of the times at 4*128 and 128 (the issue's
bound: 4.9, exponent 1.15). CPU seconds rather than wall: the machine is
shared. --no-cc sets CC=true (diderotc's phases only)."""

import argparse
import math
import os
import subprocess
import sys
import tempfile

PHASES = ["frontend", "high", "mid", "low", "emit", "cc"]


def g_function(k=31):
    lines = ["function real g(int i) {", "  real x = 0.5;", "  if (i == 0) { x = 1.0; }"]
    for b in range(1, k):
        lines.append("  else if (i < %d) { x = %d.0 + x; }" % (b, b))
    lines += ["  return x;", "}"]
    return lines


def program(family, n):
    """The text of the family's program of size n."""
    head = ["#version 2.0"]
    if family == "calls":
        body = ["    out += g(j + %d);" % c for c in range(1, n + 1)]
        return "\n".join(head + g_function() + [
            "strand S (int j) {", "  output real out = 0.0;", "  update {"] + body +
            ["    stabilize;", "  }", "}", "create_array { S(j) | j in 0..99 };"]) + "\n"
    if family == "ifdepth":
        body = []
        for d in range(n):
            body.append("    " + " " * d + "if (x > %d.0) { x = x - 0.5;" % (d % 7))
        body.append("    " + " " * n + "x = x * 2.0;")
        body.append("    " + "}" * n)
        return "\n".join(head + [
            "strand S (int j) {", "  output real x = real(j);", "  update {"] + body +
            ["    stabilize;", "  }", "}", "create_array { S(j) | j in 0..99 };"]) + "\n"
    if family == "orchain":
        terms = ["(j %% %d == %d %s j > %d)" % (t + 2, t % (t + 2), "&&" if t % 2 else "||", t)
                 for t in range(n)]
        cond = " || ".join(terms)
        return "\n".join(head + [
            "strand S (int j) {", "  output int c = 0;", "  update {",
            "    if (%s) { c = 1; } else { c = 2; }" % cond,
            "    stabilize;", "  }", "}", "create_array { S(j) | j in 0..99 };"]) + "\n"
    if family == "state":
        decl = ["  output real s%d = real(j + %d);" % (i, i) for i in range(n)]
        upd = ["    s%d = s%d * 0.5 + s%d;" % (i, i, (i + 1) % n) for i in range(n)]
        return "\n".join(head + ["strand S (int j) {"] + decl + ["  update {"] + upd +
                         ["    stabilize;", "  }", "}", "create_array { S(j) | j in 0..99 };"]) + "\n"
    if family == "globals":
        inp = ["input real a%d = %d.5;" % (i, i) for i in range(n)]
        glo = ["real b%d = a%d * 2.0 + a%d;" % (i, i, (i + 1) % n) for i in range(n)]
        sums = " + ".join("b%d" % i for i in range(n))
        return "\n".join(head + inp + glo + [
            "strand S (int j) {", "  output real out = 0.0;", "  update {",
            "    out = real(j) + %s;" % sums, "    stabilize;", "  }", "}",
            "create_array { S(j) | j in 0..99 };"]) + "\n"
    if family == "straight":
        body = ["    x = x * 0.999 + %d.0 / (x + 1.0);" % (i % 10) for i in range(n)]
        return "\n".join(head + [
            "strand S (int j) {", "  output real x = real(j);", "  update {"] + body +
            ["    stabilize;", "  }", "}", "create_array { S(j) | j in 0..99 };"]) + "\n"
    raise ValueError(family)


FAMILIES = ["calls", "ifdepth", "orchain", "state", "globals", "straight"]
# The largest N of a family: 1,024 nested ifs pass the parser's nesting
# limit (PARSER_MAX_DEPTH: a clear error, "program nested too deeply").
LIMIT = {"ifdepth": 512}


def compile_one(compiler, family, n, no_cc, tmp):
    src = os.path.join(tmp, "%s%d.diderot" % (family, n))
    with open(src, "w") as f:
        f.write(program(family, n))
    env = dict(os.environ)
    if no_cc:
        env["CC"] = "true"
    r = subprocess.run([compiler, "--exec", "--stats", "--log", "-o", src[:-8], src], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode:
        sys.exit("%s %d: diderotc failed:\n%s" % (family, n, r.stderr.decode()[-2000:]))
    secs = {}
    for line in r.stderr.decode().splitlines():
        p = line.split()
        if len(p) == 7 and p[:2] == ["stats:", "phase"]:
            secs[p[2]] = float(p[6])
    cfile = src[:-8] + ".c"
    lines = sum(1 for _ in open(cfile)) if os.path.exists(cfile) else 0
    return secs, lines


def slope(xs, ys):
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x >= 128 and y > 0]
    if len(pts) < 2:
        return float("nan")
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    den = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / den if den else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--compiler", required=True)
    ap.add_argument("--family", action="append", choices=FAMILIES)
    ap.add_argument("--sizes", default="32,64,128,256,512,1024")
    ap.add_argument("--reps", type=int, default=1, help="the minimum of REPS compiles")
    ap.add_argument("--no-cc", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    compiler = os.path.abspath(a.compiler)
    cols = PHASES[:-1] + ([] if a.no_cc else ["cc"]) + ["total"]
    with tempfile.TemporaryDirectory(prefix="dscale") as tmp:
        for fam in a.family or FAMILIES:
            rows = []
            for n in sizes:
                if n > LIMIT.get(fam, n):
                    continue
                best = None
                for _ in range(a.reps):
                    secs, lines = compile_one(compiler, fam, n, a.no_cc, tmp)
                    secs["total"] = sum(secs.get(p, 0.0) for p in cols if p != "total")
                    if best is None or secs["total"] < best[0]["total"]:
                        best = (secs, lines)
                rows.append((n, best[0], best[1]))
                print("  %s N=%d: %.2f s, %d lines" % (fam, n, best[0]["total"], best[1]),
                      file=sys.stderr, flush=True)
            hdr = ["N"] + cols + ["C lines"]
            if a.markdown:
                print("\n**%s**\n" % fam)
                print("| " + " | ".join(hdr) + " |")
                print("|" + "---|" * len(hdr))
            else:
                print("\n== %s" % fam)
                print("  ".join("%9s" % h for h in hdr))
            for n, secs, lines in rows:
                cells = ["%d" % n] + ["%.3f" % secs.get(c, 0.0) for c in cols] + ["%d" % lines]
                print(("| " + " | ".join(cells) + " |") if a.markdown else "  ".join("%9s" % c for c in cells))
            ns = [r[0] for r in rows]
            ex = ["exp"] + ["%.2f" % slope(ns, [r[1].get(c, 0.0) for r in rows]) for c in cols] + \
                 ["%.2f" % slope(ns, [r[2] for r in rows])]
            ratio = ["x4"]
            for c in cols + ["lines"]:
                v = {r[0]: (r[2] if c == "lines" else r[1].get(c, 0.0)) for r in rows}
                ratio.append("%.2f" % (v[512] / v[128]) if v.get(128) and 512 in v else "-")
            for r in (ex, ratio):
                print(("| " + " | ".join(r) + " |") if a.markdown else "  ".join("%9s" % c for c in r))


if __name__ == "__main__":
    main()
