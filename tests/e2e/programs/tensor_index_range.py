"""tensor_index_range: a tensor index that is not a constant, outside
0..n-1 of its dimension, is a run-time error (exit status 1, one message
naming the strand, the line and column, the index and the size, no output
file), never a read outside the tensor (doc/language.md §5.6).

Oracle: the definition of indexing. v = [1, 2, 4], m = [[8, 16, 32],
[64, 128, 256]]; strand i computes a = v[gi] + m[i % 2, i % 3] and
b = v[i % 3], exactly (powers of two). The bad runs move one index just
past either end or far away, in the global initialisation (no strand in
the message), in the strand's update and in a function's body (the
function's position).
"""

import os
import re

import e2elib

VARIANTS = ["float", "double"]
NS = 4
V = [1.0, 2.0, 4.0]
M = [[8.0, 16.0, 32.0], [64.0, 128.0, 256.0]]
# (line, column) of `v[gi]`'s gi, of `m[r, ...]`'s r and of `u[j]`'s j
POS_G, POS_A, POS_PICK = (15, 12), (25, 15), (16, 39)
OUTS = ("a.nrrd", "b.nrrd")




def good_run(t, gi):
    e2elib.remove_outputs(t, OUTS)
    t.exec(["-gi", gi])
    a = e2elib.grid_output(t, "a", [NS], [])
    t.equal("a with gi=%d" % gi, a.data, [V[gi] + M[i % 2][i % 3] for i in range(NS)], convert=float)
    b = e2elib.grid_output(t, "b", [NS], [])
    t.equal("b", b.data, [V[i % 3] for i in range(NS)], convert=float)


def bad_run(t, args, strand, pos, index, size):
    e2elib.remove_outputs(t, OUTS)
    p = t.exec(args, expect_rc=1)
    left = [f for f in OUTS if os.path.exists(t.path(f))]
    if left:
        t.fail("%s: outputs written: %s" % (args, left))
    who = "strand %d: " % strand if strand is not None else ""
    want = (r"^\S+: error: %stensor index %d at line %d, column %d is out of range for a "
            r"dimension of size %d$" % (who, index, pos[0], pos[1], size))
    lines = [ln for ln in p.err.splitlines() if ln.strip()]
    if len(lines) != 1 or not re.match(want, lines[0]):
        t.fail("%s: stderr %r does not match %r" % (args, p.err, want))


def run(t):
    t.compile()
    for gi in range(3):
        good_run(t, gi)
    bad_run(t, ["-gi", 3], None, POS_G, 3, 3)
    bad_run(t, ["-gi", -1], None, POS_G, -1, 3)
    bad_run(t, ["-which", 3, "-sa", 1], 3, POS_A, 2, 2)
    bad_run(t, ["-which", 0, "-sa", -1], 0, POS_A, -1, 2)
    bad_run(t, ["-which", 2, "-sa", 2000000000], 2, POS_A, 2000000000, 2)
    bad_run(t, ["-which", 2, "-sb", 1], 2, POS_PICK, 3, 3)
    bad_run(t, ["-which", 1, "-sb", -2], 1, POS_PICK, -1, 3)
