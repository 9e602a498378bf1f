"""compose: F ∘ G (doc/language.md §6.6, an extension): (F ∘ G)(x) =
F(G(x)) and ∇(F ∘ G)(x) = (∇F)(G(x))·∇G(x), for image fields that
reproduce polynomials exactly (c4hexic a cubic, ctmr a quadratic, on
rotated anisotropic grids: tests/oracle/polyfield.py) and a field
function (a 1-D curve C). Oracle: exact polynomial values and derivatives
at the exact points G(x) (Fractions): F(G(x)), Σ_k ∂_k F(G(x)) ∂_j G_k(x)."""

from fractions import Fraction as Q

from e2elib import check_grid
from polyfield import Grid, variables, at, grad, D, lattice

VARIANTS = ["float", "double"]

x, y = variables(2)
(s,) = variables(1)
F = Q(1, 2) + x - y / 2 + x * x / 3 - x * y / 4 + y * y / 2 + x ** 3 / 6 - x * y * y / 3
G = [Q(1, 4) + x / 2 - y * y / 4 + x * y / 8, -Q(1, 8) + y / 3 + x * x / 4]
H = Q(1, 4) - s + s * s / 2 + s ** 3 / 3
P = Q(1, 8) + x / 4 - y / 2 + x * y / 4
GRID_F = Grid.centered([12, 11], [Q(1, 2), Q(9, 20)])
GRID_G = Grid.centered([11, 10], [Q(11, 20), Q(1, 2)])
GRID_H = Grid.centered([14], [Q(2, 5)])
ORG, STEP, COUNTS = [Q(-1, 4), Q(-1, 8)], Q(1, 4), [3, 2]


def C(t):
    return [Q(1, 2) * t * t - Q(1, 4), Q(3, 4) * t - t ** 3]


def dC(t):
    return [t, Q(3, 4) - 3 * t * t]


def run(t):
    GRID_F.write(t.path("f2.nrrd"), F, t.real)
    GRID_G.write(t.path("g2.nrrd"), G, t.real)
    GRID_H.write(t.path("h1.nrrd"), H, t.real)
    GRID_F.write(t.path("p2.nrrd"), P, t.real)
    pts = lattice(ORG, STEP, COUNTS)
    ss = [Q(i, 8) - Q(j, 4) for j in range(COUNTS[1]) for i in range(COUNTS[0])]
    gF, JG, dH, gP = grad(F), D(G), grad(H), grad(P)
    fg, gfg, hp, ghp, fc, dfc, mix = [], [], [], [], [], [], []
    for pt, sv in zip(pts, ss):
        gx = at(G, pt)
        assert GRID_G.inside(pt, 2) and GRID_F.inside(gx, 3) and GRID_F.inside(pt, 3)
        fg.append(at(F, gx))
        df, jg = at(gF, gx), at(JG, pt)
        gfg.append([sum(df[k] * jg[k][j] for k in range(2)) for j in range(2)])
        p = at(P, pt)
        assert GRID_H.inside([p], 3)
        hp.append(at(H, [p]))
        ghp.append([at(dH, [p])[0] * v for v in at(gP, pt)])
        c = C(sv)
        assert GRID_F.inside(c, 3)
        fc.append(at(F, c))
        dfc.append(sum(a * b for a, b in zip(at(gF, c), dC(sv))))
        mix.append(2 * at(F, gx) - at(F, pt))
    t.compile()
    t.exec(["-org", ORG[0], ORG[1], "-step", STEP, "-nx", COUNTS[0], "-ny", COUNTS[1]])
    for name, shp, vals in (("fg", [], fg), ("gfg", [2], gfg), ("hp", [], hp), ("ghp", [2], ghp),
                            ("fc", [], fc), ("dfc", [], dfc), ("mix", [], mix)):
        check_grid(t, name, COUNTS, shp, vals)
