"""Oracle of collect_strands.diderot: a direct simulation of the rules
(doc/language.md §8.3). The global start block sees the initial strands.
Slot order is creation order (doc/differences.md, Q15): the survivors in
order, then the strands created in the step, by creator (only update
methods create, one child each). Strands that stabilize in their update
copy the globals of the previous global update (`when` is the step value
they saw); the global stabilize of step K+3 runs after that update's
assignments."""


def mix(h, v):
    return (h * 31 + v) % 1000003


def expected(M, K):
    strands = [{"id": i, "age": 0, "st": "A", "out": None} for i in range(M)]
    g = {"hA": 0, "hAct": 0, "hOdd": 0, "hStb": 0, "bad": 0, "ageSum": 0.0, "counts": 0,
         "hStart": 0, "qMax": -1.0}
    step = 0
    for s in strands:  # the global start block: every strand, age 0
        g["hStart"] = mix(g["hStart"], 2 * s["id"])

    def snap(s):
        s["out"] = dict(g, when=step)

    while any(s["st"] == "A" for s in strands):
        born = []
        for s in strands:
            if s["st"] != "A":
                continue
            s["age"] += 1
            if step < K and s["id"] % 2 == 0:
                born.append({"id": 3 * s["id"] + step + 1, "age": 0, "st": "A", "out": None})
            if step == 1 and s["id"] % 5 == 4:
                s["st"] = "D"
            elif step >= 2 and s["id"] % 3 == 1:
                s["st"] = "S"
                snap(s)
        strands = [s for s in strands if s["st"] != "D"] + born
        step += 1
        w = 7 * step
        alive = [s for s in strands if s["st"] in "AS"]
        act = [s for s in strands if s["st"] == "A"]
        stb = [s for s in strands if s["st"] == "S"]
        h = 0
        for s in alive:
            h = mix(h, s["id"])
        g["hA"] = h
        h = 0
        for s in act:
            h = mix(h, 3 * s["id"] + s["age"] + w)
        g["hAct"] = h
        h = 0
        for s in alive:
            h = mix(h, s["id"] % 2)
        g["hOdd"] = h
        h = 0
        for s in stb:
            h = mix(h, s["id"])
        g["hStb"] = h
        g["bad"] = 0
        g["ageSum"] = float(sum(s["age"] for s in stb))
        g["counts"] = 1000000 * len(alive) + 1000 * len(act) + len(stb)
        g["qMax"] = float(max([step * (s["id"] + s["age"]) + 2 for s in act], default=-1))
        if step == K + 3:
            for s in act:
                s["st"] = "S"
                snap(s)
    out = [s for s in strands if s["st"] == "S"]
    want = {"id.nrrd": [s["id"] for s in out],
            "x.nrrd": [float(s["id"] + s["age"]) for s in out],
            "age.nrrd": [s["age"] for s in out]}
    for name, key in (("sA", "hA"), ("sAct", "hAct"), ("sOdd", "hOdd"), ("sStb", "hStb"),
                      ("sBad", "bad"), ("sAge", "ageSum"), ("sCounts", "counts"),
                      ("when", "when"), ("sStart", "hStart"), ("sQ", "qMax")):
        want[name + ".nrrd"] = [s["out"][key] for s in out]
    return {f: (v, [len(out)]) for f, v in want.items()}


# the second case: about 1500 strands, so the device's compactions span
# several blocks
CASES = [([], expected(5, 6)), (["-M", "200", "-K", "5"], expected(200, 5))]
ALSO = [(["--target=omp"], ["-n", "1"]), (["--target=omp"], ["-n", "4"])]
