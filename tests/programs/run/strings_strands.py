"""Oracle of strings_strands.diderot: the sequential scheduler's rules
(doc/language.md §8.3) simulated directly; each print writes its arguments as
§7.2 says (strings verbatim, ints in decimal, booleans true/false, a
sequence as {a,b}); string == and != compare the text (§5.3)."""

from textcheck import text_check  # tests/oracle (on the oracles' path)

NAMES = ["zero", "one", "two", "three"]


def expected(mode, N):
    def strand(i, who):
        tag = "even" if i % 2 == 0 else "odd"
        return {"i": i, "who": who, "tag": tag, "pair": [who, tag], "age": 0, "hits": 0,
                "st": "active", "fresh": True}

    strands = [strand(i, "w" if i == 0 else NAMES[i % 4]) for i in range(N)]
    lines = []
    while any(s["st"] == "active" for s in strands):
        for s in strands:
            if s["st"] == "active" and s["fresh"]:
                lines.append("start %d %s" % (s["i"], s["who"]))
                s["fresh"] = False
        born = []
        for s in strands:
            if s["st"] != "active":
                continue
            s["age"] += 1
            nm = NAMES[s["i"] % len(NAMES)]
            same = s["tag"] == mode
            lines.append("update %d, %s, {%s} same=%s %s"
                         % (s["i"], nm, ",".join(s["pair"]), "true" if same else "false",
                            "own" if nm == s["who"] else "other"))
            if same:
                s["hits"] += 1
            if s["age"] == 1 and s["i"] < 2:
                born.append(strand(s["i"] + 10, nm))
            if s["age"] == 2:
                if s["who"] != "zero" and s["tag"] != "odd":
                    s["st"] = "dead"
                    continue
                lines.append("stabilize %d %s %s"
                             % (s["i"], s["pair"][1], "true" if s["who"] == NAMES[0] else "false"))
                s["st"] = "stable"
        strands = [s for s in strands if s["st"] != "dead"] + born
        lines.append("global, %s" % mode)
    text = "".join(l + "\n" for l in lines)
    hits = [s["hits"] for s in strands if s["st"] == "stable"]

    return {"<stdout>": text_check(text), "hits.nrrd": (hits, [len(hits)])}


CASES = [
    ([], expected("odd", 4)),
    (["-mode", "even", "-N", "6"], expected("even", 6)),
    (["-mode", "zero", "-N", "1"], expected("zero", 1)),
]
