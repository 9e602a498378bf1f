"""probe_2d: value, gradient and Hessian of 2-D polynomial fields, for each
kernel on a polynomial of a degree it reproduces (tests/unit/test_kernel.c):
tent/c1tent and the B-splines on degree 1, ctmr/c2ctmr on degree 2, c4hexic
on degree 3. The images live on a rotated, anisotropic grid; the probes on a
dyadic lattice strictly inside every field's domain. Oracle: the exact
derivatives of the polynomials (tests/oracle/polyfield.py)."""

from fractions import Fraction as Q

from e2elib import check_grid
from polyfield import Grid, variables, at, grad, hessian, lattice

VARIANTS = ["float", "double", "long"]

x, y = variables(2)
LIN = Q(3, 4) + Q(3, 2) * x - Q(5, 8) * y
QUAD = Q(1, 2) - x + Q(3, 4) * y + Q(1, 2) * x * x - Q(5, 4) * x * y + Q(1, 3) * y * y
CUB = (Q(1, 4) + x / 2 - y + Q(3, 4) * x * x + x * y / 2 - y * y / 4
       + x ** 3 / 2 - Q(3, 4) * x * x * y + x * y * y / 3 + y ** 3 / 8)
GRID = Grid.centered([10, 11], [Q(1, 2), Q(3, 5)])
ORG, STEP, COUNTS = [Q(-3, 8), Q(-1, 4)], Q(1, 4), [4, 3]


def run(t):
    for name, p in (("lin2", LIN), ("quad2", QUAD), ("cub2", CUB)):
        GRID.write(t.path(name + ".nrrd"), p, t.real)
    pts = lattice(ORG, STEP, COUNTS)
    assert all(GRID.inside(pt, 3) for pt in pts)

    def ev(f):
        return [at(f, pt) for pt in pts]

    # output name -> (shape, expected values); Hessians of degree-1 fields
    # are zero and judged on scale 1
    exp = {"tentV": ([], ev(LIN)), "c1tentG": ([2], ev(grad(LIN))),
           "ctmrV": ([], ev(QUAD)), "ctmrG": ([2], ev(grad(QUAD))),
           "c2ctmrH": ([2, 2], ev(hessian(QUAD))),
           "c4V": ([], ev(CUB)), "c4G": ([2], ev(grad(CUB))), "c4H": ([2, 2], ev(hessian(CUB)))}
    for k in ("b3", "b5"):
        exp[k + "V"] = ([], ev(LIN))
        exp[k + "G"] = ([2], ev(grad(LIN)))
        exp[k + "H"] = ([2, 2], ev(hessian(LIN)))
    t.compile()
    t.exec(["-org", ORG[0], ORG[1], "-step", STEP, "-nx", COUNTS[0], "-ny", COUNTS[1]])
    for name, (shp, vals) in exp.items():
        check_grid(t, name, COUNTS, shp, vals)
