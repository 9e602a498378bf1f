"""Oracle of global_stabilize_reads.diderot: a direct simulation of the
super-step (doc/language.md §8.3). Dead strands leave the slot order at the
end of the step; a strand that stabilizes runs its stabilize method at
once (seeing the globals of the previous global update); the global
stabilize runs the method of every active strand in slot order, seeing
the globals as the block has set them so far."""


def fmt(v):
    return "%.9g" % v


def expected(M, L):
    strands = [{"id": i, "x": float(i), "seen": -1.0, "st": "A"} for i in range(M)]
    step, hist, text = 0, 0.0, ""
    while any(s["st"] == "A" for s in strands):
        for s in strands:
            if s["st"] != "A":
                continue
            s["x"] += 1.0
            if step == 0 and s["id"] % 3 == 2:
                s["st"] = "D"
            elif step >= 1 and s["id"] % 4 == 0:
                s["st"] = "S"
                s["x"] *= 10.0
                s["seen"] = hist
        strands = [s for s in strands if s["st"] != "D"]
        step += 1
        h = sum(step * s["x"] for s in strands)
        hist = h
        text += "step %d: %d strands, hist %s\n" % (step, len(strands), fmt(h))
        if step == L:
            act = [s for s in strands if s["st"] == "A"]
            before = sum(s["x"] for s in act)
            for s in act:
                s["st"] = "S"
                s["x"] *= 10.0
                s["seen"] = hist
            after = sum(s["x"] for s in act)
            text += "stabilize: %d strands, %s -> %s\n" % (len(act), fmt(before), fmt(after))
    want = {"id.nrrd": [s["id"] for s in strands],
            "x.nrrd": [s["x"] for s in strands],
            "seen.nrrd": [s["seen"] for s in strands]}
    res = {f: (v, [len(strands)]) for f, v in want.items()}

    def check_text(got):
        return [] if got == text else ["printed %r, expected %r" % (got, text)]
    res["<stdout>"] = check_text
    return res


CASES = [([], expected(10, 3)), (["-M", "200", "-L", "5"], expected(200, 5))]
ALSO = [(["--target=omp"], ["-n", "1"]), (["--target=omp"], ["-n", "4"])]
