"""Oracle of multi_iter_v1.diderot: nested loops, the first iterator
outermost (doc/language.md §5.6), written with Python's comprehensions."""

N = 10


def rng(lo, hi):  # lo..hi, both ends included
    return range(lo, hi + 1)


def expected(ws):
    want = {"ord": [], "tot": [], "top": []}
    for i in range(N):
        ps = [10 * a + b for a in rng(1, 3) for b in rng(0, i % 4)]
        want["ord"].append(sum(p * (k + 1) for k, p in enumerate(ps)))
        want["tot"].append(float(sum(a * b for a in rng(0, i) for b in ps) + len(ps)))
        want["top"].append(max(w * a - b for w in ws for a in rng(0, i) for b in rng(a, i)))
    return {k + ".nrrd": (v, [N]) for k, v in want.items()}


CASES = [([], expected([3, 1, 4, 1])), (["-ws", "-2", "0", "5", "-7"], expected([-2, 0, 5, -7]))]
