"""Oracle of global_sequences.diderot: a direct simulation of the
super-step (doc/language.md §8.3). New strands join after the survivors, in
creator order, and run from the next step; a strand that stabilizes runs
its stabilize method at once, seeing the globals of the previous global
update."""

WS = [0.5, 1.5, 2.5]
KS = [3 * j for j in range(5)]
VS = [[1.0, 2.0], [3.0, 4.0]]


def strand(i):
    return {"i": i, "y": WS[i % 3], "acc": 0.0, "gen": 0, "fin": -1.0, "st": "A"}


def expected(N, K):
    strands = [strand(i) for i in range(N)]
    grow, roll, total, step = [], [0.0] * 3, 0.0, 0
    while any(s["st"] == "A" for s in strands):
        born = []
        for s in strands:
            if s["st"] != "A":
                continue
            i = s["i"]
            pick = WS if i % 2 == 0 else grow
            s["acc"] += sum(grow) + len(pick) + KS[(i + s["gen"]) % 5] + VS[i % 2][1] + roll[i % 3]
            if s["gen"] == 0 and i < 3:
                born.append(strand(i + 100))
            s["gen"] += 1
            if s["gen"] >= K:
                s["st"] = "S"
                s["fin"] = s["acc"] + len(grow) + grow[-1] + total
        strands += born
        step += 1
        grow = grow + [float(step)]
        roll = [step * w for w in WS]
        total = sum(s["acc"] * WS[s["gen"] % 3] for s in strands)
    res = {}
    for f in ("y", "acc", "gen", "fin"):
        res[f + ".nrrd"] = ([s[f] for s in strands], [len(strands)])
    return res


CASES = [([], expected(12, 4)), (["-N", "300", "-K", "3"], expected(300, 3))]
ALSO = [(["--target=omp"], ["-n", "1"]), (["--target=omp"], ["-n", "4"])]
