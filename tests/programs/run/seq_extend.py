"""Oracle of seq_extend.diderot: the sequences built with Python lists,
which are copied on every append (so each value keeps its own contents)."""


def sig(s):
    return sum((k + 1) * x for k, x in enumerate(s))


def expected(N):
    out = {k: [] for k in ("sb", "sc", "sd", "se", "sf", "sq", "sn", "len")}
    for i in range(N):
        a = [i, i + 1]
        b = a + [3]
        d = b + [5]
        e = b + [6]
        c = e + [4] + [i]
        f = e + [9]
        q = [i * j for j in range(i + 21)]
        n = [len(a + [j]) + j for j in range(i + 1)]
        for k, s in (("sb", b), ("sc", c), ("sd", d), ("se", e), ("sq", q), ("sn", n)):
            out[k].append(sig(s))
        out["sf"].append(sig(f) + sig(a))
        out["len"].append(len(b) + 10 * len(c) + 100 * len(d) + 1000 * len(e))
    return {k + ".nrrd": (v, [N]) for k, v in out.items()}


CASES = [([], expected(6)), (["-N", "100"], expected(100))]  # int32: no overflow at 100
