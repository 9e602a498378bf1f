"""Oracle of population_control.diderot, in closed form. After step t
(1 <= t <= K) the alive ids are 0 .. n-1 with n = M 2^t, all active; after
step K+1 the multiples of 16 below M 2^K remain (c1 = M 2^K / 16 strands),
all active; after steps K+2 and K+3 (recorded before the global
stabilize) the multiples of 32 (c2 = c1 / 2) are stable and the other c1 - c2
active. The output (stable strands) is every multiple of 16 in creation
order, which is ascending id (doc/differences.md, Q15), not the order in which
they stabilized."""


def history(M, K):
    hs, ms = [], []
    for t in range(1, K + 4):
        if t <= K:
            ids = range(M * 2 ** t)
            counts = (len(ids), len(ids), 0)
        else:
            ids = range(0, M * 2 ** K, 16)
            c1 = len(ids)
            c2 = len(range(0, M * 2 ** K, 32))
            counts = (c1, c1, 0) if t == K + 1 else (c1, c1 - c2, c2)
        hs += list(counts) + [sum(ids)]
        ms.append(sum(ids) / len(ids))
    return hs, ms


def close(want, rel):
    """The means are float sums of n ids in storage order: recursive
    summation of n non-negative terms has a relative error of at most
    (n - 1) u / (1 - (n - 1) u), u = 2^-24, plus one rounding for the
    division; rel is that bound for the largest n."""
    def check(got):
        if len(got.data) != len(want):
            return ["%d values, expected %d" % (len(got.data), len(want))]
        return ["[%d] = %r, expected %r" % (k, g, w) for k, (g, w) in enumerate(zip(got.data, want))
                if abs(g - w) > rel * abs(w)][:3]
    return check


def expected(M=3, K=12):
    hs, ms = history(M, K)
    u = 2.0 ** -24
    n = M * 2 ** K
    rel = (n - 1) * u / (1 - (n - 1) * u) + u
    ids = list(range(0, M * 2 ** K, 16))
    lens = [0 if i != 16 else len(hs) for i in ids]
    return {"id.nrrd": (ids, [len(ids)]),
            "hist-data.nrrd": (hs, [len(hs)]),
            "means-data.nrrd": close(ms, rel),
            # (offset, length) per strand: strand 16 is the second
            "hist-len.nrrd": ([x for k, n in enumerate(lens) for x in (sum(lens[:k]), n)],
                              [2, len(ids)])}


CASES = [
    ([], expected()),
    (["-M", "1", "-K", "15"], expected(1, 15)),   # 1 -> 32768 -> 2048 strands
]
ALSO = [(["--target=omp"], ["-n", "1"]), (["--target=omp"], ["-n", "4"])]
# The CUDA target's means are sums by block trees, not in storage order:
# both that and the C target's are within the bound of close() (the
# largest case, n = 2^15) of the exact mean.
CUDA_RTOL = 2 * ((2 ** 15 - 1) * 2.0 ** -24 / (1 - (2 ** 15 - 1) * 2.0 ** -24) + 2.0 ** -24)
