"""image_expr_2d: a 1.0 program whose fields convolve `image("f")` directly
(no image variable), once inside clamp(), and one file used twice. The
proxies type the images (2-vectors and scalars); the oracle is exact
polynomial calculus, as in vector_2d (c2ctmr and ctmr reproduce degree 2)."""

from fractions import Fraction as Q

from e2elib import check_grid
from polyfield import Grid, variables, at, D, lattice

VARIANTS = ["float", "double"]

x, y = variables(2)
V = [Q(1, 2) + x - y / 3 + x * x / 4 - x * y,
     -Q(1, 4) + 2 * y + x * x / 2 + Q(3, 4) * y * y - x * y / 5]
S = Q(3, 2) - x / 2 + y * y / 3 + x * y
GRID = Grid.centered([9, 10], [Q(3, 5), Q(1, 2)])
ORG, STEP, COUNTS = [Q(-1, 2), Q(-1, 4)], Q(1, 4), [4, 3]


def run(t):
    GRID.write(t.path("vec2.nrrd"), V, t.real)
    GRID.write(t.path("scal.nrrd"), S, t.real)
    pts = lattice(ORG, STEP, COUNTS)
    assert all(GRID.inside(pt, 2) for pt in pts)

    def ev(f):
        return [at(f, pt) for pt in pts]

    checks = [("val", COUNTS, [2], ev(V)),
              ("jac", COUNTS, [2, 2], ev(D(V))),
              ("s", COUNTS, [], [3 * v for v in ev(S)]),
              ("gs", COUNTS, [2], ev(D(S)))]
    t.compile()
    t.exec(["-org", ORG[0], ORG[1], "-step", STEP, "-nx", COUNTS[0], "-ny", COUNTS[1]])
    for c in checks:
        check_grid(t, *c)
