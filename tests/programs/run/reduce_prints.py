"""Oracle of reduce_prints.diderot: the sequential scheduler (doc/language.md
§8.3) simulated directly, with the reductions of the global update
calling the map once per member of the set in strand order (§10.4); prints
as §7.2 says (ints in decimal, reals in %.9g, which prints 2.0 as 2)."""

from textcheck import text_check  # tests/oracle (on the oracles' path)

def g(x):
    return "%.9g" % x


def expected(N):
    strands = [{"id": i, "y": float(i), "age": 0, "st": "active"} for i in range(N)]
    lines, steps = [], 0
    while any(s["st"] == "active" for s in strands):
        for s in strands:
            if s["st"] != "active":
                continue
            s["age"] += 1
            s["y"] += 0.5
            if s["age"] > s["id"]:
                s["st"] = "stable"
        steps += 1
        na = sum(s["st"] == "active" for s in strands)
        ns = sum(s["st"] == "stable" for s in strands)
        lines.append("global %d" % steps)

        def show(what, s, y):
            lines.append("%s %d y=%s active=%d stable=%d" % (what, s["id"], g(y), na, ns))
            return y
        t = sum(show("sum", s, s["y"]) for s in strands if s["st"] == "active")
        m = max(show("max", s, s["y"] * (na + ns)) for s in strands)
        ys = [show("all", s, s["y"]) for s in strands if s["st"] == "stable"]
        lines.append("end %d t=%s m=%s n=%d" % (steps, g(t), g(m), len(ys)))
    text = "".join(l + "\n" for l in lines)

    return {"<stdout>": text_check(text), "y.nrrd": ([s["y"] for s in strands], [N])}


CASES = [([], expected(4)), (["-N", "7"], expected(7)), (["-N", "1"], expected(1))]
