"""composite_2d: the composites of composite_3d.py in 2-D, with quadratic
F and G reconstructed exactly by c2ctmr, plus ∇×∇F = 0."""

from fractions import Fraction as Q

from composite_3d import oracle
from e2elib import check_grid
from polyfield import Grid, variables, grad, hessian, lattice

VARIANTS = ["float", "double"]

x, y = variables(2)
F = Q(1, 4) + x - y / 2 + Q(3, 4) * x * x - x * y / 3 + y * y / 2
G = Q(3, 2) - x / 4 + y / 3 + x * x / 5 + x * y / 4 - y * y / 6
GRID = Grid.centered([9, 10], [Q(1, 2), Q(11, 20)])
ORG, STEP, COUNTS = [Q(-3, 8), Q(-1, 4)], Q(1, 4), [4, 3]
SHAPES = {"gmag": [], "ngrad": [2], "prod": [], "sum": [], "diff": [], "quot": [],
          "sinF": [], "gradProd": [2], "gradSin": [2], "curv": []}


def run(t):
    GRID.write(t.path("f2.nrrd"), F, t.real)
    GRID.write(t.path("g2.nrrd"), G, t.real)
    pts = lattice(ORG, STEP, COUNTS)
    assert all(GRID.inside(pt, 2) for pt in pts)
    exp = oracle(pts, (F, grad(F), hessian(F)), (G, grad(G), hessian(G)))
    t.compile()
    t.exec(["-org", ORG[0], ORG[1], "-step", STEP, "-nx", COUNTS[0], "-ny", COUNTS[1]])
    for name, shp in SHAPES.items():
        check_grid(t, name, COUNTS, shp, [e[name] for e in exp])
    # exact zero: judged on the scale of the gradient
    check_grid(t, "curlGrad", COUNTS, [], [0.0] * len(pts),
               scale=max(abs(v) for e in exp for v in e["gradProd"] + [1.0]))
