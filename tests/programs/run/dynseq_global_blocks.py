"""Oracle of dynseq_global_blocks.diderot, from its rules: in super-step
t (t = 0 .. L-1; the global `step` is t during the strands' update) strand
i appends 10 i + t, so after the update of step t it holds t + 1 elements
and the global update sets lens = N (t + 2); after step L-1 the global
stabilize turns each w into [x + 0.5 for x in w] + [N (L + 1), firsts],
where firsts sums, over the global updates after steps 0 .. L-1, w[0] +
w[t] = 20 i + t over the strands (integers below 2^24: exact in float)."""


def expected(N, L):
    lens = N * (L + 1)
    firsts = sum(20 * i + t for t in range(L) for i in range(N))
    ws = [[10 * i + t + 0.5 for t in range(L)] + [float(lens), float(firsts)] for i in range(N)]
    data, off, lenpairs = [], 0, []
    for w in ws:
        data += w
        lenpairs += [off, len(w)]
        off += len(w)
    return {"w-data.nrrd": (data, [off]), "w-len.nrrd": (lenpairs, [2, N])}


CASES = [
    ([], expected(5, 3)),
    (["-N", "200", "-L", "6"], expected(200, 6)),
]
