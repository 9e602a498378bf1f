"""Oracle of multi_iter.diderot: {e | a in A, b in B, ...} is the sequence
of e over Python's nested loops, the first iterator outermost (doc/language.md
§5.6), and a reduction reduces that sequence. Every value is computed here
from the definitions with Python's own comprehensions (no value comes from
diderotc); the order-sensitive sums (ord, pord) weight the k-th element by
k + 1, so a different nesting order gives a different number."""

N = 8


def rng(lo, hi):  # lo..hi, both ends included (empty when hi < lo)
    return range(lo, hi + 1)


def expected(n):
    pairs = [10 * a + b for a in rng(1, n) for b in (4, 5)]
    pord = sum(p * (k + 1) for k, p in enumerate(pairs))
    want = {k: [] for k in ["ord", "cnt", "tri", "g", "v", "three", "avg", "lo", "hi",
                            "every", "some", "prod", "pord"]}
    for i in range(N):
        ps = [10 * a + b for a in rng(0, i) for b in rng(0, a)]
        want["ord"].append(sum(p * (k + 1) for k, p in enumerate(ps)))
        want["cnt"].append(len(ps))
        want["tri"].append(sum(a * b for a in rng(0, i) for b in rng(0, a)))
        want["g"].append(float(sum(a * b for a in rng(0, i) for b in rng(0, i))))
        vs = [(a, b) for a in rng(0, i) for b in (1, 2, 3)]
        want["v"] += [vs[0][0] + 10.0 * vs[-1][0] + len(vs), vs[0][1] + 10.0 * vs[-1][1]]
        want["three"].append(sum(a * 100 + b * 10 + c
                                 for a in rng(0, i) for b in (2, 7) for c in rng(a, i)))
        d = [a - b for a in rng(0, i) for b in rng(0, n)]
        want["avg"].append(sum(d) / len(d))
        want["lo"].append(min(a * b - n for a in pairs for b in rng(-1, i)))
        want["hi"].append(max(a - b for a in pairs for b in rng(0, i)))
        want["every"].append(int(all(a + b <= i + n for a in rng(0, i) for b in rng(0, n))))
        want["some"].append(int(any(a * b == 6 for a in rng(0, i) for b in rng(0, i))))
        p = 1
        for a in rng(1, 2):
            for b in rng(0, i % 3):
                p *= a + b
        want["prod"].append(p)
        want["pord"].append(pord)
    # closed forms, as a check of the loops above
    assert want["g"] == [float((i * (i + 1) // 2) ** 2) for i in range(N)]
    assert want["cnt"] == [(i + 1) * (i + 2) // 2 for i in range(N)]
    return {k + ".nrrd": (vals, [2, N] if k == "v" else [N]) for k, vals in want.items()}


# n = 0: one pair per a (a in 1..0 is empty: pairs is empty only then, so
# min and max over it are their identities, which is not wanted here)
CASES = [([], expected(3)), (["-n", "5"], expected(5)), (["-n", "1"], expected(1))]
