"""probe_3d: value, gradient and Hessian of 3-D polynomial fields (tent and
the B-splines on degree 1, ctmr/c2ctmr on degree 2, c4hexic on degree 3) on
a grid rotated by the quaternion (4,2,2,1)/5 with anisotropic spacing.
Oracle: exact derivatives (tests/oracle/polyfield.py)."""

from fractions import Fraction as Q

from e2elib import check_grid
from polyfield import Grid, variables, at, grad, hessian, lattice

VARIANTS = ["float", "double"]

x, y, z = variables(3)
LIN = Q(1, 2) + x - Q(3, 4) * y + Q(5, 4) * z
QUAD = Q(1, 4) + x / 2 - z + x * x / 2 - y * z + Q(3, 4) * x * y - Q(1, 3) * z * z
CUB = (Q(1, 2) + x - y / 2 + z / 4 + x * x / 2 - y * z + x * y / 3 + x ** 3 / 6
       - x * y * z / 2 + y * y * z / 4 + z ** 3 / 8)
GRID = Grid.centered([10, 9, 10], [Q(1, 2), Q(3, 5), Q(11, 20)])
ORG, STEP, COUNTS = [Q(-1, 4), Q(-3, 16), Q(-1, 8)], Q(1, 4), [3, 2, 2]


def run(t):
    for name, p in (("lin3", LIN), ("quad3", QUAD), ("cub3", CUB)):
        GRID.write(t.path(name + ".nrrd"), p, t.real)
    pts = lattice(ORG, STEP, COUNTS)
    assert all(GRID.inside(pt, 3) for pt in pts)

    def ev(f):
        return [at(f, pt) for pt in pts]

    exp = {"tentV": ([], ev(LIN)), "ctmrV": ([], ev(QUAD)), "ctmrG": ([3], ev(grad(QUAD))),
           "c2ctmrH": ([3, 3], ev(hessian(QUAD))), "b3G": ([3], ev(grad(LIN))),
           "b3H": ([3, 3], ev(hessian(LIN))), "b5V": ([], ev(LIN)), "b5G": ([3], ev(grad(LIN))),
           "c4V": ([], ev(CUB)), "c4G": ([3], ev(grad(CUB))), "c4H": ([3, 3], ev(hessian(CUB)))}
    t.compile()
    t.exec(["-org"] + ORG + ["-step", STEP, "-nx", COUNTS[0], "-ny", COUNTS[1],
                             "-nz", COUNTS[2]])
    for name, (shp, vals) in exp.items():
        check_grid(t, name, COUNTS, shp, vals)
