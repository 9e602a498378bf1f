"""composite_3d: composite fields of two cubic 3-D scalar fields F and G
(c4hexic reconstructs both exactly). Oracle: exact values, gradients and
Hessians of F and G at the probe points, combined in closed form:
|∇F| = |g|, normalize(∇F) = g/|g|, ∇(FG) = F∇G + G∇F (computed as the
gradient of the product polynomial), ∇sin F = cos(F) g, and
-∇|∇F|•∇F/|∇F| = -gᵀHg/|g|²."""

import math
from fractions import Fraction as Q

from e2elib import check_grid
from polyfield import Grid, variables, at, grad, hessian, lattice, to_float

VARIANTS = ["float", "double"]

x, y, z = variables(3)
F = Q(1, 2) + x - y / 3 + z / 2 + x * y / 2 - z * z / 4 + x ** 3 / 6 + x * y * z / 3 - y ** 3 / 8
G = Q(2) + x / 4 + y / 2 - z / 3 + x * x / 8 + y * z / 5 - x * x * z / 6
GRID = Grid.centered([10, 10, 10], [Q(1, 2), Q(3, 5), Q(11, 20)])
ORG, STEP, COUNTS = [Q(-1, 4), Q(-1, 8), Q(-1, 8)], Q(1, 4), [3, 2, 2]


def oracle(pts, dim_f, dim_g):
    """Per point: dict of expected outputs (floats) from exact F, G data."""
    out = []
    for pt in pts:
        f, g = float(dim_f[0](pt)), float(dim_g[0](pt))
        gf = to_float(at(dim_f[1], pt))
        hf = to_float(at(dim_f[2], pt))
        n = math.sqrt(sum(v * v for v in gf))
        ghg = sum(gf[i] * hf[i][j] * gf[j] for i in range(len(gf)) for j in range(len(gf)))
        out.append({
            "gmag": n, "ngrad": [v / n for v in gf], "prod": f * g, "sum": f + g,
            "diff": f - 2 * g, "quot": f / g, "sinF": math.sin(f),
            "gradProd": to_float(at(grad(dim_f[0] * dim_g[0]), pt)),
            "gradSin": [math.cos(f) * v for v in gf], "curv": -ghg / (n * n)})
    return out


SHAPES = {"gmag": [], "ngrad": [3], "prod": [], "sum": [], "diff": [], "quot": [],
          "sinF": [], "gradProd": [3], "gradSin": [3], "curv": []}


def run(t):
    GRID.write(t.path("f3.nrrd"), F, t.real)
    GRID.write(t.path("g3.nrrd"), G, t.real)
    pts = lattice(ORG, STEP, COUNTS)
    assert all(GRID.inside(pt, 3) for pt in pts)
    exp = oracle(pts, (F, grad(F), hessian(F)), (G, grad(G), hessian(G)))
    t.compile()
    t.exec(["-org"] + ORG + ["-step", STEP, "-nx", COUNTS[0], "-ny", COUNTS[1],
                             "-nz", COUNTS[2]])
    for name, shp in SHAPES.items():
        check_grid(t, name, COUNTS, shp, [e[name] for e in exp])
