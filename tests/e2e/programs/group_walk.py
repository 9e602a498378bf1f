"""group_walk: strands of different lifetimes in the lane groups of
--simd=strands (e2e/simd runs it with and without) and strand by strand.
Strand i runs life = 1 + i % 9 updates, probing the tent-reconstructed
linear image P = 1 + 2x at x_k = i % 8 / 4 + k / 2 (exact: P is linear and
every value dyadic), acc = sum of P(x_k); at its last update it dies when
i % 5 == 0, else it stabilizes and last = 10 life + i. A step limit -l L
kills the strands still active (life > L; a collection writes only the
stable ones, in creation order). With -which j -when s (s <= life of j) the
probe of strand j at its update s is at x = 100, outside the image: exit
status 1, one message naming strand j, the image, the line and the
position, no output. Oracle: these rules in Python (doc/language.md §8.3,
§6.4)."""

import os
import re
from fractions import Fraction as Q

from polyfield import Grid, variables

VARIANTS = ["float", "double"]
(x,) = variables(1)
P = 1 + 2 * x
G = Grid.aligned([16], [Q(1)], [0])
N = 45
LINE = 23  # the line of `acc += F(x);`


def expected(limit=None):
    acc, last = [], []
    for i in range(N):
        life = 1 + i % 9
        if (limit is not None and life > limit) or i % 5 == 0:
            continue
        acc.append(float(sum(P([Q(i % 8, 4) + Q(k, 2)]) for k in range(1, life + 1))))
        last.append(10 * life + i)
    return acc, last


def check(t, label, limit=None):
    acc, last = expected(limit)
    t.close(label + " acc", t.read("acc.nrrd").data, acc, rtol=1e-12)  # exact in practice
    t.equal(label + " last", t.read("last.nrrd").data, last)


def error_run(t, which, when, exe=None):
    for f in ("acc.nrrd", "last.nrrd"):
        if os.path.exists(t.path(f)):
            os.remove(t.path(f))
    p = t.exec(["-which", which, "-when", when], expect_rc=1, exe=exe)
    left = [f for f in ("acc.nrrd", "last.nrrd") if os.path.exists(t.path(f))]
    if left:
        t.fail("strand %d outside: outputs written: %s" % (which, left))
    want = (r"^\S+: error: strand %d: probe at line %d of a field outside its image 'img' at "
            r"position \(100\) \[index \(100\), image is 16\]" % (which, LINE))
    lines = [l for l in p.err.splitlines() if l.strip()]
    if len(lines) != 1 or not re.match(want, lines[0]):
        t.fail("strand %d outside: stderr %r does not match %r" % (which, p.err, want))


def run(t):
    G.write(t.path("lin.nrrd"), P, t.real)
    t.compile()
    t.exec([])
    check(t, "all")
    t.exec(["-l", 4])
    check(t, "-l 4", 4)
    # a strand of the first group at its first update, one of a later group
    # after several (the others of its group have run on), the last strand
    # super-steps: by update 7 the collection has lost its dead strands
    # (0, 10, 20 and 5 at update 6), and the error still names strand 26
    prog = t.exe
    bsp = t.compile(extra=["--force-bsp"], stem="bsp")
    t.exe = prog
    for which, when in ((3, 1), (26, 7), (44, 9), (17, 2)):
        assert when <= 1 + which % 9
        error_run(t, which, when)
        error_run(t, which, when, exe=bsp)
    for f in ("bsp", "bsp-nvcc"):  # not outputs: the modes compare the files left
        if os.path.exists(t.path(f)):
            os.remove(t.path(f))
