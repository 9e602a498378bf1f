"""matrix_2d: a quadratic 2x2-matrix field (image kind 2D-matrix, component
[i,j] at 2i+j) reconstructed with c2ctmr: value, ∇⊗ (shape [2,2,2]),
divergence over the last index, and the lifted trace / transpose / det,
with the gradients of trace and det. Oracle: exact polynomial calculus."""

from fractions import Fraction as Q

from e2elib import check_grid
from polyfield import Grid, variables, at, D, divergence, lattice

VARIANTS = ["float", "double"]

x, y = variables(2)
M = [[Q(2) + x / 2 - y * y / 4, x * y - Q(1, 3)],
     [Q(1, 4) + x * x / 2 - y, Q(3, 2) - x + y / 2 + x * y / 3]]
TR = M[0][0] + M[1][1]
DET = M[0][0] * M[1][1] - M[0][1] * M[1][0]
GRID = Grid.centered([9, 9], [Q(11, 20), Q(1, 2)])
ORG, STEP, COUNTS = [Q(-1, 4), Q(-1, 4)], Q(1, 4), [3, 3]


def run(t):
    GRID.write(t.path("mat2.nrrd"), M, t.real)
    pts = lattice(ORG, STEP, COUNTS)
    assert all(GRID.inside(pt, 2) for pt in pts)
    checks = []

    def ev(f):
        return [at(f, pt) for pt in pts]

    checks.append(("val", COUNTS, [2, 2], ev(M)))
    checks.append(("jac", COUNTS, [2, 2, 2], ev(D(M))))
    checks.append(("div", COUNTS, [2], ev(divergence(M))))
    checks.append(("tr", COUNTS, [], ev(TR)))
    checks.append(("gradTr", COUNTS, [2], ev(D(TR))))
    checks.append(("trans", COUNTS, [2, 2], ev([[M[0][0], M[1][0]], [M[0][1], M[1][1]]])))
    checks.append(("dt", COUNTS, [], ev(DET)))
    checks.append(("gradDet", COUNTS, [2], ev(D(DET))))
    t.compile()
    t.exec(["-org", ORG[0], ORG[1], "-step", STEP, "-nx", COUNTS[0], "-ny", COUNTS[1]])
    for c in checks:
        check_grid(t, *c)
