"""Oracle of collect_strand_refs.diderot: a direct simulation of the rules
(doc/language.md §8.3). Slot order is creation order (doc/differences.md, Q15):
the survivors in order, then the strands created in the step, by creator
(one child each). A strand that stabilizes in its update copies the
globals of the previous global update (`when` is the step value it saw).
The global `die` of step L kills the active strands; the block's earlier
collection `cs` still holds them (their last state), the new collection
only the stable strands."""


def mix(h, v):
    return (h * 31 + v) % 1000003


def fold(vals):
    h = 0
    for v in vals:
        h = mix(h, v)
    return h


def expected(M, K, L):
    strands = [{"id": i, "x": (i % 7) / 2.0, "age": 0, "st": "A", "out": None}
               for i in range(M)]
    g = {"hAll": 0, "hAct": 0, "hIds": 0, "xSum": 0.0, "counts": 0,
         "hStart": fold(s["id"] for s in strands)}  # the global start: age 0
    text = ""
    step = 0
    while any(s["st"] == "A" for s in strands):
        born = []
        for s in strands:
            if s["st"] != "A":
                continue
            s["age"] += 1
            s["x"] += 1.0
            if step < K and s["id"] % 2 == 0:
                c = M + 10 * s["id"] + step
                born.append({"id": c, "x": (c % 7) / 2.0, "age": 0, "st": "A", "out": None})
            if step == 1 and s["id"] % 5 == 4:
                s["st"] = "D"
            elif s["age"] >= 2 and s["id"] % 3 == 1:
                s["st"] = "S"
                s["out"] = dict(g, when=step)
        strands = [s for s in strands if s["st"] != "D"] + born
        step += 1
        cs = [s for s in strands if s["st"] in "AS"]
        act = [s for s in strands if s["st"] == "A"]
        stb = [s for s in strands if s["st"] == "S"]
        g["hAll"] = fold(s["id"] for s in cs)
        g["hAct"] = fold(2 * s["id"] + s["age"] for s in act)
        g["hIds"] = fold(s["id"] for s in stb)
        g["xSum"] = sum(s["x"] * step for s in act)
        g["counts"] = 1000000 * len(cs) + 1000 * len(act) + len(stb)
        if step == L:
            for s in act:
                s["st"] = "D"
            rest = [s for s in strands if s["st"] == "S"]
            text += "after die: %d %d %d\n" % (fold(s["id"] + 1000 * s["age"] for s in cs),
                                               len(rest), fold(s["id"] for s in rest))
            strands = rest
    out = [s for s in strands if s["st"] == "S"]
    want = {"id.nrrd": [s["id"] for s in out],
            "x.nrrd": [s["x"] for s in out],
            "age.nrrd": [s["age"] for s in out]}
    for name, key in (("sAll", "hAll"), ("sAct", "hAct"), ("sIds", "hIds"), ("sX", "xSum"),
                      ("sCounts", "counts"), ("sStart", "hStart"), ("when", "when")):
        want[name + ".nrrd"] = [s["out"][key] for s in out]
    res = {f: (v, [len(out)]) for f, v in want.items()}

    def check_text(got):
        return [] if got == text else ["printed %r, expected %r" % (got, text)]
    res["<stdout>"] = check_text
    return res


# the second case: more strands, and a die after the last creations
CASES = [([], expected(6, 3, 6)), (["-M", "40", "-K", "3", "-L", "5"], expected(40, 3, 5))]
ALSO = [(["--target=omp"], ["-n", "1"]), (["--target=omp"], ["-n", "4"])]
