"""Oracle of strings_exchange.diderot: the sequential scheduler's rules
(doc/language.md §8.3) simulated directly. A step runs the update of every
active strand in creation order (new strands join at its end, from the
next step), then the global update; strand-set comprehensions list the
strands in creation order (doc/differences.md, Q15). Prints as §7.2 says:
strings verbatim, a sequence as {a,b}."""

from textcheck import text_check  # tests/oracle (on the oracles' path)

NAMES = ["ant", "bee", "cat", "dog", "elk"]


def seq(xs):
    return "{" + ",".join(xs) + "}"


def expected(N):
    def strand(i):
        tag = NAMES[i % 5]
        return {"i": i, "tag": tag, "pair": [NAMES[(i + 1) % 5], tag], "hist": [tag],
                "rows": [[i, -1]], "st": "active"}

    strands = [strand(i) for i in range(N)]
    step = 0
    lines = []
    while any(s["st"] == "active" for s in strands):
        born = []
        for s in strands:
            if s["st"] != "active":
                continue
            i = s["i"]
            s["hist"].append(NAMES[(i + step) % 5])
            s["rows"].append([i, step])
            lines.append("S %d %s %s %s %s" % (i, s["tag"], seq(s["pair"]), seq(s["hist"]),
                                             seq(seq(str(v) for v in r) for r in s["rows"])))
            if step == 0 and i < 3:
                born.append(strand(i + 10))
            if step == 2 and i % 3 == 1:
                s["st"] = "dead"
                continue
            if step == 4:
                s["st"] = "stable"
        strands = [s for s in strands if s["st"] != "dead"] + born
        step += 1
        tags = [s["tag"] for s in strands if s["st"] == "active"]
        lasts = [s["hist"][-1] for s in strands]
        seconds = [s["pair"][0] for s in strands if s["st"] == "stable"]
        rowsum = [str(s["rows"][-1][0] + len(s["rows"])) for s in strands]
        lines.append("G %d %s %s %s %s" % (step, seq(tags), seq(lasts), seq(seconds), seq(rowsum)))
    text = "".join(l + "\n" for l in lines)
    ids = [s["i"] for s in strands if s["st"] == "stable"]

    return {"<stdout>": text_check(text), "id.nrrd": (ids, [len(ids)])}


CASES = [
    ([], expected(7)),
    (["-N", "2"], expected(2)),
    (["-N", "12"], expected(12)),
]
