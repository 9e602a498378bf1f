"""Oracle of print_strands.diderot: the sequential scheduler's rules
(doc/language.md §8.3) simulated directly; the text is what §7.2 says each
print writes (ints in decimal, booleans true/false, tensors [a,b] with
reals in %.9g, which prints 12.0 as 12)."""

from textcheck import text_check  # tests/oracle (on the oracles' path)

def expected_text(G, M):
    strands = [{"id": i, "g": 0, "age": 0, "st": "active", "fresh": True} for i in range(1, M + 1)]
    lines, steps = [], 0
    while any(s["st"] == "active" for s in strands):
        na = sum(s["st"] == "active" for s in strands)
        ns = sum(s["st"] == "stable" for s in strands)
        for s in strands:
            if s["st"] == "active" and s["fresh"]:
                lines.append("start %d active=%d" % (s["id"], na))
                s["fresh"] = False
        born = []
        for s in strands:
            if s["st"] != "active":
                continue
            s["age"] += 1
            lines.append("update %d age %d stable=%d all=%d" % (s["id"], s["age"], ns, na + ns))
            if s["age"] == 1 and s["g"] < G:
                for k in (1, 2):
                    born.append({"id": 10 * s["id"] + k, "g": s["g"] + 1, "age": 0,
                                 "st": "active", "fresh": True})
            if s["age"] == 2:
                if s["id"] % 3 == 2:
                    s["st"] = "dead"
                    continue
                lines.append("stabilize %d v=[%d,0.5] ok=%s"
                             % (s["id"], s["id"], "true" if s["id"] % 2 == 0 else "false"))
                s["st"] = "stable"
        strands = [s for s in strands if s["st"] != "dead"] + born
        steps += 1
        lines.append("global %d" % steps)
    out = [s["id"] for s in strands if s["st"] == "stable"]
    return "".join(l + "\n" for l in lines), out


def case(G, M):
    text, out = expected_text(G, M)

    return {"<stdout>": text_check(text), "out.nrrd": (out, None, "sorted")}


CASES = [([], case(2, 3)), (["-G", "3", "-M", "5"], case(3, 5))]
