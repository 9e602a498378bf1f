#!/usr/bin/env python3
"""Differential test of the C layout library against the Python oracle.

Generates random CuTe layout requests (fixed seed), runs them through
tests/unit/layout_cli (built by `make tests/unit/layout_cli`), and checks each
answer against layout_oracle.py (a copy of ../shared/tools/layout_oracle.py)
and against brute-force evaluation of the defining equations:

  coalesce (and by-mode), composition (admissible families, random B, tilers),
  complement, logical/zipped/tiled/flat divide, logical/blocked/raked product,
  right_inverse and the emitted inverse expressions.

Where the oracle itself is not a specification (it returns a wrong layout for
inadmissible compositions), the brute-force semantics decide: the C library
must either return the correct function or reject with an error.

Usage: python3 tests/layout/test_oracle.py [--cli PATH] [--seed N] [--cases N]
Prints one summary line; exits 1 on any mismatch.
"""
import argparse
import ast
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import layout_oracle as O  # noqa: E402


def fmt(t):
    return O.fmt(t)


def lay(l):
    return f"{fmt(l.shape)}:{fmt(l.stride)}"


def parse_layout(text):
    s, d = text.split(":")
    return O.L(ast.literal_eval(s), ast.literal_eval(d))


def unwrap(t):
    """Replace 1-tuples by their element: "(6)" reads back as 6 in Python."""
    if O.is_tup(t):
        return unwrap(t[0]) if len(t) == 1 else tuple(unwrap(x) for x in t)
    return t


def norm(l):
    return O.L(unwrap(l.shape), unwrap(l.stride))


def func(l):
    return [l(i) for i in range(l.size())]


def oracle_try(f, *args):
    try:
        return f(*args)
    except (AssertionError, IndexError, TypeError):
        return None


# ------------------------------------------------------------ generators
def rnd_flat(rng, maxmodes=3, shapes=(1, 2, 3, 4, 6, 8), strides=(0, 1, 2, 3, 4, 6, 8, 12, 16)):
    n = rng.randint(1, maxmodes)
    return norm(O.L(tuple(rng.choice(shapes) for _ in range(n)), tuple(rng.choice(strides) for _ in range(n))))


def rnd_nested(rng, depth=2):
    """A random hierarchical layout of small size."""
    def tree(d):
        if d == 0 or rng.random() < 0.5:
            return rng.choice([1, 2, 3, 4, 6]), rng.choice([0, 1, 2, 3, 4, 6, 8, 12])
        k = rng.randint(1, 3)
        kids = [tree(d - 1) for _ in range(k)]
        return tuple(s for s, _ in kids), tuple(t for _, t in kids)
    k = rng.randint(1, 3)
    kids = [tree(depth - 1) for _ in range(k)]
    return norm(O.L(tuple(s for s, _ in kids), tuple(t for _, t in kids)))


def rnd_injective_sorted(rng, n_max=3):
    return norm(O.random_injective_sorted(rng, n_max))


def rnd_compact_perm(rng):
    """A bijective layout onto [0,size): compact strides in a random order, random nesting."""
    n = rng.randint(1, 4)
    shape = [rng.choice([2, 3, 4, 5]) for _ in range(n)]
    order = list(range(n))
    rng.shuffle(order)
    stride = [0] * n
    acc = 1
    for k in order:
        stride[k] = acc
        acc *= shape[k]
    if n >= 3 and rng.random() < 0.5:  # group the first two modes
        return O.L(((shape[0], shape[1]),) + tuple(shape[2:]), ((stride[0], stride[1]),) + tuple(stride[2:]))
    return O.L(tuple(shape), tuple(stride))


# ------------------------------------------------------------ checking
class Checker:
    def __init__(self):
        self.cases = []      # (request line, checker function)
        self.fail = []
        self.counts = {}

    def add(self, kind, line, check):
        self.cases.append((kind, line, check))

    def count(self, key):
        self.counts[key] = self.counts.get(key, 0) + 1

    def run(self, cli):
        text = "".join(line + "\n" for _, line, _ in self.cases)
        out = subprocess.run([cli], input=text, capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            self.fail.append(f"layout_cli exited with {out.returncode}: {out.stderr[-500:]}")
            return
        lines = out.stdout.splitlines()
        if len(lines) != len(self.cases):
            self.fail.append(f"layout_cli answered {len(lines)} lines for {len(self.cases)} requests")
            return
        for (kind, line, check), ans in zip(self.cases, lines):
            self.count(kind)
            res = parse_answer(ans)
            if not res["ok"]:
                self.count(kind + ":rejected")
            try:
                msg = check(res)
            except Exception as e:  # a checker crash is a failure, never a pass
                msg = f"checker raised {type(e).__name__}: {e}"
            if msg:
                self.fail.append(f"{kind}: `{line}` -> `{ans[:200]}`: {msg}")


def parse_answer(ans):
    parts = ans.split(" ")
    if parts[0] == "err":
        return {"ok": False, "status": parts[1] if len(parts) > 1 else "?", "text": ans}
    r = {"ok": True, "layout_text": parts[1]}
    for p in parts[2:]:
        k, v = p.split("=", 1)
        r[k] = [int(x) for x in v.split(",")] if k == "f" else int(v)
    r["layout"] = parse_layout(parts[1])
    return r


def same_function(res, want_vals, want_layout=None, strict_repr=False):
    """res must be ok, its printed layout must evaluate to its f list, and f == want_vals."""
    if not res["ok"]:
        return f"rejected ({res['status']}) but the oracle/brute force has a result"
    if func(res["layout"]) != res["f"]:
        return "printed layout and evaluated function disagree"
    if res["f"] != want_vals:
        return f"function differs: got {res['f'][:12]}..., want {want_vals[:12]}..."
    if res["size"] != len(want_vals):
        return "size differs"
    if want_layout is not None and strict_repr and res["layout_text"] != lay(want_layout):
        return f"form differs from oracle {lay(want_layout)}"
    return None


def brute_compose(A, B):
    """A(B(i)) with A's last mode unbounded (CuTe composition's semantics beyond
    size(A)); coalescing A gives exactly that extension."""
    Ac = O.coalesce(A)
    return [Ac(B(i)) for i in range(B.size())]


def build(ck, rng, n):
    # --- coalesce (full and by-mode), strict form equality with the oracle
    for _ in range(n):
        A = rnd_nested(rng) if rng.random() < 0.6 else rnd_flat(rng)
        if A.size() > 4096:
            continue
        want = O.coalesce(A)
        ck.add("coalesce", f"coalesce {lay(A)}",
               lambda r, A=A, want=want: same_function(r, func(A), want, True)
               or (None if O.depth(r["layout"].shape) <= 1 else "depth > 1"))
        if O.is_tup(A.shape):
            prof = tuple([1] * len(A))
            wantm = O.coalesce(A, prof)
            ck.add("coalesce_modes", f"coalesce_modes {lay(A)} {len(A)}",
                   lambda r, A=A, w=wantm: same_function(r, func(A), w, True)
                   or (None if len(r["layout"]) == len(A) else "rank changed"))

    # --- composition: admissible family B = (T, complement(T, size A))
    for _ in range(n):
        A = rnd_flat(rng)
        T = rnd_injective_sorted(rng, 2)
        if T.cosize() > A.size():
            continue
        B = O.make_layout(T, O.complement(T, A.size()))
        want = oracle_try(O.composition, A, B)
        bf = brute_compose(A, B)
        ck.add("compose_admissible", f"compose {lay(A)} {lay(B)}",
               lambda r, want=want, bf=bf: compose_check(r, want, bf, must_accept=want is not None and func(want) == bf))

    # --- composition: random B (may be inadmissible: must be right or rejected)
    for _ in range(4 * n):
        A = rnd_flat(rng)
        B = rnd_nested(rng) if rng.random() < 0.3 else rnd_flat(rng, 3)
        if B.size() > 512:
            continue
        want = oracle_try(O.composition, A, B)
        bf = brute_compose(A, B)
        ck.add("compose_random", f"compose {lay(A)} {lay(B)}",
               lambda r, want=want, bf=bf, B=B: compose_check(r, want, bf, must_accept=False, B=B))

    # --- by-mode composition with a tiler
    for _ in range(n):
        A = O.L((rng.choice([4, 6, 8, 12]), (rng.choice([2, 4]), rng.choice([2, 4, 8]))),
                (rng.choice([1, 3, 59]), (rng.choice([1, 13]), rng.choice([1, 2, 5]))))
        T = (O.L(rng.choice([2, 3, 4]), rng.choice([1, 2, 4])), O.L(rng.choice([2, 4, 8]), rng.choice([1, 2])))
        want = oracle_try(O.composition, A, T)
        bf = [O.coalesce(A[0])(T[0](i)) + O.coalesce(A[1])(T[1](j))
              for j in range(T[1].size()) for i in range(T[0].size())]
        ck.add("compose_tiler", f"compose {lay(A)} <{lay(T[0])},{lay(T[1])}>",
               lambda r, want=want, bf=bf: tiler_check(r, want, bf))

    # --- complement
    for _ in range(n):
        A = rnd_injective_sorted(rng)
        M = A.cosize() * rng.choice([1, 2, 3])
        want = O.complement(A, M)
        ck.add("complement", f"complement {lay(A)} {M}",
               lambda r, A=A, M=M, want=want: same_function(r, func(want), want, True) or complement_post(r, A, M))
    for _ in range(n):
        A = rnd_flat(rng)
        M = rng.choice([8, 12, 24, 48, 96])
        want = oracle_try(O.complement, A, M)
        ck.add("complement_any", f"complement {lay(A)} {M}",
               lambda r, A=A, M=M, want=want: (("accepted where the oracle rejects" if r["ok"] else None)
                                              if want is None else
                                              same_function(r, func(want), want, True)))

    # --- logical divide (1-D and by-mode), zipped / tiled / flat
    for _ in range(n):
        A = rnd_flat(rng, 3, shapes=(2, 3, 4, 6, 8))
        B = rnd_injective_sorted(rng, 2)
        if B.cosize() > A.size():
            continue
        want = oracle_try(O.logical_divide, A, B)
        Bs = oracle_try(O.complement, B, A.size())
        bf = brute_compose(A, O.make_layout(B, Bs)) if Bs is not None else None
        ck.add("logical_divide", f"logical_divide {lay(A)} {lay(B)}",
               lambda r, want=want, bf=bf: divide_check(r, want, bf))
    for _ in range(n):
        A = O.L((rng.choice([4, 6, 8, 9, 12]), (rng.choice([2, 4]), rng.choice([4, 8]))),
                (rng.choice([1, 59]), (rng.choice([13, 1]), rng.choice([1, 2]))))
        T = (O.L(rng.choice([2, 3]), rng.choice([1, 2, 3])), O.L((2, rng.choice([2, 4])), (1, rng.choice([2, 4, 8]))))
        tl = f"<{lay(T[0])},{lay(T[1])}>"
        for op, fn in (("logical_divide", O.logical_divide), ("zipped_divide", O.zipped_divide),
                       ("tiled_divide", O.tiled_divide), ("flat_divide", O.flat_divide)):
            want = oracle_try(fn, A, T)
            ck.add(op + "_tiler", f"{op} {lay(A)} {tl}",
                   lambda r, want=want: (None if not r["ok"] else "accepted where the oracle rejects")
                   if want is None else same_function(r, func(want), want, True))

    # --- products
    for _ in range(n):
        A = rnd_injective_sorted(rng, 2)
        B = rnd_flat(rng, 2, shapes=(1, 2, 3, 4), strides=(0, 1, 2, 3, 4))
        want = oracle_try(O.logical_product, A, B)
        ck.add("logical_product", f"logical_product {lay(A)} {lay(B)}",
               lambda r, want=want, A=A, B=B: product_check(r, want, A, B))
    for _ in range(n):
        def compact2(s0, s1):  # column- or row-major, or (rarely) arbitrary strides
            r = rng.random()
            st = (1, s0) if r < 0.45 else (s1, 1) if r < 0.9 else (rng.choice([1, 2, 5]), rng.choice([1, 3, 4]))
            return O.L((s0, s1), st)
        A = compact2(rng.choice([2, 3, 4]), rng.choice([2, 5]))
        B = compact2(rng.choice([2, 3]), rng.choice([2, 4]))
        for op, fn in (("blocked_product", O.blocked_product), ("raked_product", O.raked_product)):
            want = oracle_try(fn, A, B)
            ck.add(op, f"{op} {lay(A)} {lay(B)}",
                   lambda r, want=want: (None if not r["ok"] else "accepted where the oracle rejects")
                   if want is None else same_function(r, func(want), want, True))

    # --- right inverse and emitted inverse (no oracle function: brute force)
    for _ in range(n):
        A = rnd_compact_perm(rng) if rng.random() < 0.7 else rnd_flat(rng)
        ck.add("right_inverse", f"right_inverse {lay(A)}", lambda r, A=A: right_inverse_check(r, A))
        ck.add("inverse", f"inverse {lay(A)}", lambda r, A=A: inverse_check(r, A))


def compose_check(r, want, bf, must_accept, B=None):
    if r["ok"]:
        msg = same_function(r, bf)
        if msg:
            return msg
        if B is not None and not O.compatible(B.shape, r["layout"].shape) and len(r["layout"]) != O.rank(B.shape):
            return "result not compatible with B"
        if want is not None and func(want) == bf and r["layout_text"] != lay(want):
            return f"form differs from oracle {lay(want)}"
        return None
    if must_accept:
        return "rejected an admissible composition"
    if want is not None and func(want) == bf and r["status"] == "admissibility":
        return "rejected as inadmissible although the oracle result is correct"
    return None


def tiler_check(r, want, bf):
    if want is None or func(want) != bf:
        return None if not r["ok"] else same_function(r, bf)
    return same_function(r, bf, want, True)


def divide_check(r, want, bf):
    if bf is None:
        return None if not r["ok"] else "accepted although the complement is undefined"
    if r["ok"]:
        return same_function(r, bf, want, want is not None and func(want) == bf)
    if want is not None and func(want) == bf:
        return "rejected a divide the oracle computes correctly"
    return None


def product_check(r, want, A, B):
    if want is None:
        # The oracle's composition also asserts on steps after B is used up;
        # judge by the definition (A, complement(A, size(A)*cosize(B)) o B).
        if not r["ok"]:
            return None
        Ac = oracle_try(O.complement, A, A.size() * B.cosize())
        if Ac is None:
            return "accepted where the complement is undefined"
        mode1 = brute_compose(Ac, B)
        bf = [A(i % A.size()) + mode1[i // A.size()] for i in range(A.size() * B.size())]
        msg = same_function(r, bf)
    else:
        msg = same_function(r, func(want), want, True)
    if msg:
        return msg
    L = r["layout"]
    if len(L) != 2 or L[0].shape != A.shape or L[0].stride != A.stride:
        return "mode 0 is not A"
    if not O.compatible(B.shape, L[1].shape) and O.product(L[1].shape) != B.size():
        return "mode 1 not compatible with B"
    return None


def complement_post(r, A, M):
    R = r["layout"]
    vals = func(R)
    if any(vals[i - 1] >= vals[i] for i in range(1, len(vals))):
        return "complement not strictly increasing"
    img = set(func(A))
    if any(v in img for v in vals[1:]):
        return "complement not disjoint from A"
    AR = O.make_layout(A, R)
    if AR.cosize() < M or len(set(func(AR))) != AR.size():
        return "(A, R) not injective or too small"
    return None


def right_inverse_check(r, A):
    if not r["ok"]:
        return "right_inverse failed"
    R = r["layout"]
    if any(A(R(i)) != i for i in range(R.size())):
        return "A(R(i)) != i"
    vals = func(A)
    bij = sorted(vals) == list(range(A.size()))
    if bij and R.size() != A.size():
        return "bijective layout but right inverse is smaller"
    return None


def inverse_check(r, A):
    vals = func(A)
    bij = sorted(vals) == list(range(A.size()))
    if not bij:
        return None if not r["ok"] else "inverse accepted for a non-bijective layout"
    if not r["ok"]:
        return "inverse rejected for a bijection"
    if any(f < 0 or A(f) != x for x, f in enumerate(r["f"])):
        return "A(inv(x)) != x"
    return None


def check_generated_c(cli, rng, n, fails):
    """E4: the emitted C (raw, simplified, lowered 1-D forward maps) compiles
    warning-free and computes the oracle's function. Returns cases run."""
    import shutil
    import tempfile
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        return 0
    lays = []
    while len(lays) < n:
        A = rnd_nested(rng) if rng.random() < 0.6 else rnd_flat(rng)
        if A.size() <= 256:
            lays.append(A)
    req = "prelude\n" + "".join(f"emitc {lay(A)}\n" for A in lays)
    out = subprocess.run([cli], input=req, capture_output=True, text=True, timeout=60).stdout
    prelude, _, rest = out.partition("//end\n")
    answers = rest.splitlines()
    if len(answers) != len(lays):
        fails.append("emitc: wrong number of answers")
        return 0
    body = ["#include <stdio.h>", prelude]
    mainb = ["int main(void) {"]
    for k, (A, ans) in enumerate(zip(lays, answers)):
        if not ans.startswith("ok "):
            fails.append(f"emitc {lay(A)}: {ans}")
            continue
        for v, text in enumerate(ans[3:].split(" ;; ")):
            body.append(f"static long long f{k}_{v}(long long i) {{ (void)i; return {text}; }}")
            mainb.append(f'  for (long long i = 0; i < {A.size()}; i++) printf("%lld ", f{k}_{v}(i));\n  printf("\\n");')
    mainb.append("  return 0; }")
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "emit.c"), os.path.join(d, "emit")
        with open(src, "w") as f:
            f.write("\n".join(body + mainb) + "\n")
        cp = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-o", exe, src],
                            capture_output=True, text=True)
        if cp.returncode != 0:
            fails.append("emitted C does not compile cleanly: " + cp.stderr[:500])
            return 0
        rows = subprocess.run([exe], capture_output=True, text=True, timeout=60).stdout.splitlines()
    r = 0
    for k, A in enumerate(lays):
        want = [O.coalesce(A)(i) for i in range(A.size())]
        for v in range(3):
            got = [int(x) for x in rows[r].split()] if r < len(rows) else None
            r += 1
            if got != want:
                fails.append(f"emitted C variant {v} of {lay(A)} computes {str(got)[:60]}, want {want[:8]}")
    return len(lays)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=None, help="path of tests/unit/layout_cli")
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--cases", type=int, default=150, help="cases per family")
    args = ap.parse_args()
    cli = args.cli
    if cli is None:
        for cand in (os.path.join(os.getcwd(), "tests/unit/layout_cli"),
                     os.path.join(HERE, "../../tests/unit/layout_cli")):
            if os.path.exists(cand):
                cli = cand
                break
    if cli is None or not os.path.exists(cli):
        print("layout oracle: layout_cli not found (build it: make tests/unit/layout_cli)")
        return 2
    rng = random.Random(args.seed)
    ck = Checker()
    build(ck, rng, args.cases)
    ck.run(cli)
    nc = check_generated_c(cli, rng, 60, ck.fail)
    ck.counts["emitted_c"] = nc
    for f in ck.fail[:20]:
        print("FAIL", f)
    fams = ", ".join(f"{k} {v}" for k, v in sorted(ck.counts.items()))
    print(f"layout oracle: {len(ck.cases)} cases, {len(ck.fail)} mismatches ({fams})")
    return 1 if ck.fail else 0


if __name__ == "__main__":
    sys.exit(main())
