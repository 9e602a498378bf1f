"""Oracle of global_seq_heap.diderot, derived by hand. After k updates
strand i has x = i + k. The global update after step k (step = k) keeps
xs = [i + k] when k % 3 == 0, so keep holds [i + k0] for the last multiple
k0 <= k of 3 (empty before k = 3); hist[j] = (j + 1) + |keep| at that time,
i.e. j + 1 + (N if j + 1 >= 3 else 0); hs = hist[k // 2] + k. A strand
runs S + 1 updates (it stabilizes in the one that sees step == S) and
copies tot and hs of the global update after step S."""


def expected(N, S):
    k0 = S - S % 3
    tot = float(sum(i + k0 for i in range(N))) if k0 >= 3 else 0.0
    j = S // 2
    hs = (j + 1 + (N if j + 1 >= 3 else 0)) + S
    return {"x.nrrd": ([float(i + S + 1) for i in range(N)], [N]),
            "t.nrrd": ([tot] * N, [N]),
            "h.nrrd": ([hs] * N, [N])}


CASES = [([], expected(2000, 300)), (["-N", "7", "-S", "4"], expected(7, 4))]
ALSO = [(["--target=omp"], ["-n", "2"])]
