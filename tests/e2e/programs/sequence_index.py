"""sequence_index: s[i] outside 0..length(s)-1 is a run-time error (exit
status 1, one message naming the strand, the line, the index and the
length, no output file), never a read outside the sequence.

Oracle: the definition of indexing. table = {1, 2, 4, 8} (a dynamic
sequence), fixed = {16, 32, 64}; strand i computes a = table[gi] + table[i]
and b = fixed[i % 3], exactly (powers of two). The bad runs move one index
just past either end or far away, in the global initialisation (no strand
in the message), in the strand's update and in a function's body (the
function's line).
"""

import os
import re

VARIANTS = ["float", "double"]
NS = 4
TABLE = [1.0, 2.0, 4.0, 8.0]
FIXED = [16.0, 32.0, 64.0]
LINE_G, LINE_A, LINE_PICK = 15, 25, 16   # `real g = table[gi];`, `a = g + table[j];`, pick
OUTS = ("a.nrrd", "b.nrrd")

import e2elib




def good_run(t, gi):
    e2elib.remove_outputs(t, OUTS)
    t.exec(["-gi", gi])
    a = e2elib.grid_output(t, "a", [NS], [])
    t.equal("a with gi=%d" % gi, a.data, [TABLE[gi] + TABLE[i] for i in range(NS)], convert=float)
    b = e2elib.grid_output(t, "b", [NS], [])
    t.equal("b", b.data, [FIXED[i % 3] for i in range(NS)], convert=float)


def bad_run(t, args, strand, line, index, length):
    e2elib.remove_outputs(t, OUTS)
    p = t.exec(args, expect_rc=1)
    left = [f for f in OUTS if os.path.exists(t.path(f))]
    if left:
        t.fail("%s: outputs written: %s" % (args, left))
    who = "strand %d: " % strand if strand is not None else ""
    want = (r"^\S+: error: %ssequence index %d at line %d is out of range for a sequence of "
            r"length %d$" % (who, index, line, length))
    lines = [l for l in p.err.splitlines() if l.strip()]
    if len(lines) != 1 or not re.match(want, lines[0]):
        t.fail("%s: stderr %r does not match %r" % (args, p.err, want))


def run(t):
    t.compile()
    for gi in range(4):
        good_run(t, gi)
    bad_run(t, ["-gi", 4], None, LINE_G, 4, 4)
    bad_run(t, ["-gi", -1], None, LINE_G, -1, 4)
    bad_run(t, ["-which", 3, "-sa", 1], 3, LINE_A, 4, 4)
    bad_run(t, ["-which", 0, "-sa", -1], 0, LINE_A, -1, 4)
    bad_run(t, ["-which", 2, "-sa", 2000000000], 2, LINE_A, 2000000002, 4)
    bad_run(t, ["-which", 2, "-sb", 1], 2, LINE_PICK, 3, 3)
    bad_run(t, ["-which", 1, "-sb", -2], 1, LINE_PICK, -1, 3)
