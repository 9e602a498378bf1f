"""probe_1d: 1-D polynomial fields (value, first and second derivative)
with the kernels that reproduce their degree; a non-unit spacing and a
non-zero origin. Oracle: exact derivatives (tests/oracle/polyfield.py)."""

from fractions import Fraction as Q

from e2elib import check_grid
from polyfield import Grid, variables, at, D, lattice

VARIANTS = ["float", "double"]

(x,) = variables(1)
LIN = Q(-1, 3) + Q(5, 4) * x
QUAD = Q(1, 2) - x / 3 + Q(3, 4) * x * x
CUB = Q(1, 5) + x - Q(1, 2) * x * x + Q(2, 3) * x ** 3
GRID = Grid([13], [[Q(7, 10)]], [Q(-43, 10)])
ORG, STEP, COUNTS = [Q(-5, 8)], Q(5, 16), [5]


def run(t):
    for name, p in (("lin1", LIN), ("quad1", QUAD), ("cub1", CUB)):
        GRID.write(t.path(name + ".nrrd"), p, t.real)
    pts = lattice(ORG, STEP, COUNTS)
    assert all(GRID.inside(pt, 3) for pt in pts)

    def d(p, k):
        for _ in range(k):
            p = D(p)[0]
        return [at(p, pt) for pt in pts]

    exp = {"tentV": d(LIN, 0), "c1tentD": d(LIN, 1), "ctmrV": d(QUAD, 0),
           "ctmrD": d(QUAD, 1), "ctmrDD": d(QUAD, 2), "b3V": d(LIN, 0), "b3D": d(LIN, 1),
           "b5V": d(LIN, 0), "b5D": d(LIN, 1), "c4V": d(CUB, 0), "c4D": d(CUB, 1),
           "c4DD": d(CUB, 2)}
    t.compile()
    t.exec(["-org", ORG[0], "-step", STEP, "-n", COUNTS[0]])
    for name, vals in exp.items():
        check_grid(t, name, COUNTS, [], vals)
