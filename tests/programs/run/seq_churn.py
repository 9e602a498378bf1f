"""Oracle of seq_churn.diderot: in super-step t (t = 0 .. S-1 counted from
0, the global `step` is t during the strands' update), strand i appends
i + t + (t mod 21) to w and keeps the last 8; total sums i + t; at t = S-1
the global hist is {0 .. S-2}."""


def expected(N, S):
    ws, totals = [], []
    for i in range(N):
        w = [i + t + t % 21 for t in range(S)][-8:]
        ws.append(w)
        totals.append(sum(i + t for t in range(S)))
    lens = []
    off = 0
    for w in ws:
        lens += [off, len(w)]
        off += len(w)
    return {"w-data.nrrd": ([x for w in ws for x in w], [off]),
            "w-len.nrrd": (lens, [2, N]),
            "total.nrrd": (totals, [N]),
            "h.nrrd": ([(S - 1) + (S - 2)] * N, [N])}


CASES = [
    ([], expected(50, 400)),
    (["-N", "300", "-S", "150"], expected(300, 150)),
]
