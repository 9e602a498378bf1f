#!/usr/bin/python3
"""summary.py -- tabulate campaign logs (run.py --log) for doc/testing.md.

    /usr/bin/python3 tests/differential/summary.py LOG.jsonl...

Prints the number of distinct programs, comparisons by kind and verdict,
and the explanations (D1..., Q6, ...) with their counts.  A (program, kind)
seen in several logs counts once, with its verdict from the last log given
(a rerun, or the record of an investigation's verdict).
"""

import collections
import json
import re
import sys


def main(paths):
    # One result per (program, kind): a later log (a rerun, or a record of
    # the verdict given after an investigation) replaces an earlier one.
    last = {}
    for p in paths:
        with open(p) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    last[(r["n"], r["kind"])] = r
    recs = list(last.values())
    progs = {r["n"] for r in recs if r["kind"] == "exec"}
    by = collections.Counter((r["kind"], r["verdict"]) for r in recs)
    verdicts = ["agree", "ours-wrong", "original-wrong", "open", "unexplained"]
    print("programs %d, comparisons %d" % (len(progs), len(recs)))
    print("%-8s " % "kind" + " ".join("%15s" % v for v in verdicts))
    for kind in ("exec", "double", "long", "mutant"):
        print("%-8s " % kind + " ".join("%15d" % by[(kind, v)] for v in verdicts))
    print("%-8s " % "total" + " ".join("%15d" % sum(by[(k, v)] for k in ("exec", "double", "long", "mutant"))
                                       for v in verdicts))
    why = collections.Counter()
    for r in recs:
        if r["verdict"] in ("agree",):
            continue
        m = re.search(r"\[(D\d+|Q\d+|original: [^\]]*|a missing[^\]]*)", r["why"])
        key = m.group(1) if m else r["verdict"] + ": " + r["why"][:80]
        why[(r["verdict"], key)] += 1
    for (v, k), c in sorted(why.items()):
        print("%4d  %-15s %s" % (c, v, k))


if __name__ == "__main__":
    main(sys.argv[1:])
