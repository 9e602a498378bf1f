"""lanes.py -- across-strand groups against the scalar update, and loops
with their iterations in lanes against the same loops one iteration at a
time, on random programs (issue 15: "outputs identical to the scalar code
with FMA contraction off").

    /usr/bin/python3 tests/differential/lanes.py --ours BUILD/diderotc \\
        [--seed S] [--count N | --seconds T] [--workdir DIR] [--double-every K]

For each seed, gen.py writes a program (both dialects, the campaign's
generator); ours compiles it twice, with --simd=strands and with
--simd=within, both with CFLAGS_DIDEROT_EXTRA=-ffp-contract=off; a program
whose update has no lane form (the `simd:` line of --stats says so) is
skipped. A program with loops in lanes (the `loops:` line of --stats,
emit_c_loops.c) is also built with --simd=within --no-loop-lanes and
compared with the --simd=within build. Both executables run in the program's directory; their exit
status, stdout, stderr and every output file must be the same, byte for
byte (doc/backend.md §4: each lane computes what the scalar code computes
for its strand). Every --double-every-th program is also built with
--double --long-int (groups need int and real of one size) and, for its
loops only, with --double alone (lane ints 64 bits wide, wrapped to 32
after every operation: emit_c_lanes.c). No oracle is
needed: the two builds must agree exactly. Ends with the line
`lanes: P programs, G in groups, L with loops in lanes, S same, D different`
(a generator failure counts as a difference); a difference keeps its
directory and exits 1."""

import argparse
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def sh(cmd, cwd, env=None, timeout=600):
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, timeout=timeout,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, b"", b"timeout"


def outputs(d):
    return {f: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))
            if f.endswith(".nrrd") and not f.startswith("img")}


def build_run(ours, src, d, flags, mode, need=None):
    """Compile src in d with flags; None when --stats lacks `need`, else
    (rc, stdout, stderr, outputs)."""
    if os.path.exists(d):
        shutil.rmtree(d)
    shutil.copytree(src, d)
    env = dict(os.environ, CFLAGS_DIDEROT_EXTRA="-ffp-contract=off")
    rc, so, se = sh([ours, "--exec", "--stats"] + flags + mode + ["prog.diderot"], d, env)
    if rc != 0:
        return ("compile", rc, se)
    if need and need not in se:
        return None
    return sh(["./prog"], d, env, 300)[:3] + (outputs(d),)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ours", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--double-every", type=int, default=4)
    ap.add_argument("--workdir", default="lanes-work")
    a = ap.parse_args()
    ours = os.path.abspath(a.ours)
    a.workdir = os.path.abspath(a.workdir)  # gen.py runs in this directory
    os.makedirs(a.workdir, exist_ok=True)
    t0 = time.time()
    n = grouped = looped = same = diff = 0
    seed = a.seed
    while (a.seconds and time.time() - t0 < a.seconds) or (not a.seconds and n < a.count):
        base = os.path.join(a.workdir, "s%d" % seed)
        src = os.path.join(base, "src")
        rc, _, se = sh([sys.executable, os.path.join(HERE, "gen.py"), str(seed), src], HERE)
        modes = [[]] + ([["--double", "--long-int"], ["--double"]]
                        if a.double_every and seed % a.double_every == 0 else [])
        n += 1
        bad = rc != 0
        if bad:
            diff += 1
            print("seed %d: gen.py failed: %s" % (seed, se.decode("utf-8", "replace")[-300:]))
            modes = []
        for mode in modes:
            # loops in lanes (the default) against the same loops scalar
            w = build_run(ours, src, os.path.join(base, "within"), ["--simd=within"], mode, b"loops: ")
            pairs = []
            if w is not None:
                looped += 1
                pairs.append(("loops", w, build_run(ours, src, os.path.join(base, "scalar-loops"),
                                                    ["--simd=within", "--no-loop-lanes"], mode)))
            # groups need int and real of one size: not under --double alone
            g = None if mode == ["--double"] else \
                build_run(ours, src, os.path.join(base, "strands"), ["--simd=strands"], mode,
                          b"simd: the update also runs in groups")
            if g is not None:
                grouped += 1
                if w is None:
                    w = build_run(ours, src, os.path.join(base, "within"), ["--simd=within"], mode)
                pairs.append(("groups", g, w))
            for what, x, y in pairs:
                if x == y:
                    same += 1
                else:
                    diff += 1
                    bad = True
                    print("seed %d %s: the builds differ (%s; kept in %s)"
                          % (seed, " ".join(mode) or "float", what, base))
        if not bad:
            shutil.rmtree(base, ignore_errors=True)
        seed += 1
    print("lanes: %d programs, %d in groups, %d with loops in lanes, %d same, %d different"
          % (n, grouped, looped, same, diff))
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
