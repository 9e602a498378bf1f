"""Oracle of dynseq_long.diderot: 64-bit ints (--long-int)."""

FLAGS = ["--long-int"]
BIG = 100000 * 100000


def expected(N=5):
    return {"n.nrrd": ([3] * N, [N]),
            "s.nrrd": ([(BIG + i) + 2 * BIG + i for i in range(N)], [N]),
            "m.nrrd": ([9 + BIG + i for i in range(N)], [N])}


CASES = [([], expected())]
