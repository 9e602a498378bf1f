"""vector_3d: a cubic 3-vector field on a rotated anisotropic grid,
reconstructed with c4hexic (exact for degree 3): value, Jacobian,
divergence, curl (Σ ε_ijk ∂_j F_k) and the Jacobian of the curl.
Oracle: exact polynomial calculus."""

from fractions import Fraction as Q

from e2elib import check_grid
from polyfield import Grid, variables, at, D, divergence, curl, lattice

VARIANTS = ["float", "double"]

x, y, z = variables(3)
V = [x * y - z / 2 + x ** 3 / 3 - y * z * z / 4 + Q(1, 3),
     Q(1, 2) * y * y - x * z + x * x * y / 2 - Q(2, 5),
     z + x * y * z / 3 - y ** 3 / 6 + x * x / 4 + Q(3, 4)]
GRID = Grid.centered([10, 10, 9], [Q(1, 2), Q(11, 20), Q(3, 5)])
ORG, STEP, COUNTS = [Q(-1, 4), Q(-1, 8), Q(-3, 16)], Q(1, 4), [3, 2, 2]


def run(t):
    GRID.write(t.path("vec3.nrrd"), V, t.real)
    pts = lattice(ORG, STEP, COUNTS)
    assert all(GRID.inside(pt, 3) for pt in pts)
    checks = []

    def ev(f):
        return [at(f, pt) for pt in pts]

    checks.append(("val", COUNTS, [3], ev(V)))
    checks.append(("jac", COUNTS, [3, 3], ev(D(V))))
    checks.append(("div", COUNTS, [], ev(divergence(V))))
    checks.append(("curl", COUNTS, [3], ev(curl(V))))
    checks.append(("dcurl", COUNTS, [3, 3], ev(D(curl(V)))))
    t.compile()
    t.exec(["-org"] + ORG + ["-step", STEP, "-nx", COUNTS[0], "-ny", COUNTS[1],
                             "-nz", COUNTS[2]])
    for c in checks:
        check_grid(t, *c)
