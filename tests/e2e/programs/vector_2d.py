"""vector_2d: a quadratic 2-vector field on a rotated grid, reconstructed
with c2ctmr (exact for degree 2): value, Jacobian (rows are component
gradients, §4.3), divergence, 2-D curl dF1/dx0 - dF0/dx1, the second
derivative tensor [2,2,2] (a `list` output axis) and the gradient of the
sliced component V[1]. Oracle: exact polynomial calculus."""

from fractions import Fraction as Q

from e2elib import check_grid
from polyfield import Grid, variables, at, D, divergence, curl, lattice

VARIANTS = ["float", "double"]

x, y = variables(2)
V = [Q(1, 2) + x - y / 3 + x * x / 4 - x * y,
     -Q(1, 4) + 2 * y + x * x / 2 + Q(3, 4) * y * y - x * y / 5]
GRID = Grid.centered([9, 10], [Q(3, 5), Q(1, 2)])
ORG, STEP, COUNTS = [Q(-1, 2), Q(-1, 4)], Q(1, 4), [4, 3]


def run(t):
    GRID.write(t.path("vec2.nrrd"), V, t.real)
    pts = lattice(ORG, STEP, COUNTS)
    assert all(GRID.inside(pt, 2) for pt in pts)
    checks = []

    def ev(f):
        return [at(f, pt) for pt in pts]

    checks.append(("val", COUNTS, [2], ev(V)))
    checks.append(("jac", COUNTS, [2, 2], ev(D(V))))
    checks.append(("div", COUNTS, [], ev(divergence(V))))
    checks.append(("curl", COUNTS, [], ev(curl(V))))
    checks.append(("dd", COUNTS, [2, 2, 2], ev(D(D(V)))))
    checks.append(("grad1", COUNTS, [2], ev(D(V[1]))))
    t.compile()
    t.exec(["-org", ORG[0], ORG[1], "-step", STEP, "-nx", COUNTS[0], "-ny", COUNTS[1]])
    for c in checks:
        check_grid(t, *c)
