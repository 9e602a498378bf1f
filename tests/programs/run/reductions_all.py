"""Oracle of reductions_all.diderot: the super-steps simulated directly
(doc/language.md §8.3): in step t (0-based) every active strand copies the
globals of the previous global update and stabilizes when i % 4 == t; the
global update then reduces over the new sets. Empty sets: sum 0, product 1,
min +inf, max -inf, mean NaN (0/0), all true, exists false (the
identities); with N >= 4 the sets used here are never empty when read."""

import math


def expected(N):
    v = [float(i % 3 + 1) for i in range(N)]
    g = {"s": 0.0, "p": 1.0, "lo": 0.0, "hi": 0.0, "m": 0.0, "al": 0, "ex": 0,
         "counts": (0, 0, 0)}
    out = [None] * N
    active, stable = list(range(N)), []
    t = 0
    while active:
        still = []
        for i in active:
            out[i] = dict(g)
            if i % 4 == t:
                stable.append(i)
            else:
                still.append(i)
        active = still
        t += 1
        alive = active + stable
        g = {"s": sum(v[i] for i in stable),
             "p": math.prod(v[i] for i in active),
             "lo": min(v[i] for i in alive),
             "hi": max((v[i] for i in active), default=-math.inf),
             "m": sum(v[i] for i in alive) / len(alive),
             "al": int(all(v[i] > 1.0 for i in stable)),
             "ex": int(any(v[i] > 2.5 for i in active)),
             "counts": (len(active), len(stable), len(alive))}
    want = {}
    for k in ("s", "p", "lo", "hi", "m", "al", "ex"):
        want[k + ".nrrd"] = ([out[i][k] for i in range(N)], [N])
    want["counts.nrrd"] = ([c for i in range(N) for c in out[i]["counts"]], [3, N])
    return want


CASES = [([], expected(12)), (["-N", "30"], expected(30))]
