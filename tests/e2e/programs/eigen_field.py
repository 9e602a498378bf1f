"""eigen_field: evals and evecs lifted to fields (doc/language.md §6.6): a
field whose value at x is evals/evecs of the matrix field's value at x.
The matrix fields are the Hessians of a cubic 2-D and a cubic 3-D
polynomial (c4hexic reproduces cubics, so the Hessian is exact, and linear
in x), a symmetric quadratic 2x2 matrix image (ctmr reproduces quadratics)
and the Hessian of a field function; all on grids rotated and spaced
anisotropically (tests/oracle/polyfield.py), probed at dyadic points.

Oracle: the exact matrices at the points (polynomial calculus over
Fractions); eigenvalues as roots of the exact characteristic polynomial
(tests/oracle/linalg.py), largest first; eigenvectors as null vectors of
S - λI (the largest cross product of two of its rows, or (b, λ-a) in 2-D),
compared up to sign, each row of the evecs output in evals order; when
numpy is importable, numpy.linalg.eigh must agree with both. `inside` of
the evals field is that of the Hessian's image (true on the lattice, false
100 away); the square of (evecs[1] • ∇F) is sign-free."""

import math
from fractions import Fraction as Q

import linalg
from e2elib import check_grid, check_grid_exact, grid_output
from polyfield import Grid, variables, at, grad, hessian, lattice

VARIANTS = ["float", "double"]

x, y = variables(2)
CUB2 = (Q(1, 2) + x - y / 2 + x * x / 2 - x * y / 3 + Q(3, 4) * y * y + x ** 3 / 3
        - x * x * y / 2 + x * y * y / 4 - y ** 3 / 6)
SYM2 = [[Q(2) + x / 2 - y * y / 4, x * y - Q(1, 3)],
        [x * y - Q(1, 3), Q(-1, 2) - x + y / 2 + x * x / 3]]
u, v, w = variables(3)
CUB3 = (Q(1, 2) + u - v / 2 + w / 4 + u * u - v * w + u * v / 3 - Q(3, 2) * w * w
        + u ** 3 / 6 - u * v * w / 2 + v * v * w / 4 + w ** 3 / 8)
QFUN = x ** 3 + 2 * x * y - y * y + x * y * y / 2   # the field function Q of the program
GRID2 = Grid.centered([11, 10], [Q(11, 20), Q(1, 2)])
GRID3 = Grid.centered([10, 9, 10], [Q(1, 2), Q(3, 5), Q(11, 20)])
ORG2, ORG3, STEP, COUNTS = [Q(-1, 4), Q(-1, 8)], [Q(-1, 4), Q(-3, 16), Q(-1, 8)], Q(1, 4), [3, 2]


def points():
    """The program's x and x3 for strand (i, j), in NRRD order (i fastest)."""
    p2, p3 = [], []
    for j in range(COUNTS[1]):
        for i in range(COUNTS[0]):
            p2.append([ORG2[0] + STEP * i, ORG2[1] + STEP * j])
            p3.append([ORG3[0] + STEP * i, ORG3[1] + STEP * j, ORG3[2] + STEP * Q(i + j, 2)])
    return p2, p3


def null_vector(s, lam):
    """A unit vector spanning the null space of s - lam I (a simple eigenvalue)."""
    n = len(s)
    a = [[float(s[r][c] - (lam if r == c else 0)) for c in range(n)] for r in range(n)]
    if n == 2:
        cands = [(float(s[0][1]), float(lam - s[0][0])), (float(lam - s[1][1]), float(s[0][1]))]
    else:
        cands = []
        for p, q in ((0, 1), (0, 2), (1, 2)):
            r0, r1 = a[p], a[q]
            cands.append((r0[1] * r1[2] - r0[2] * r1[1], r0[2] * r1[0] - r0[0] * r1[2],
                          r0[0] * r1[1] - r0[1] * r1[0]))
    best = max(cands, key=lambda c: sum(t * t for t in c))
    norm = math.sqrt(sum(t * t for t in best))
    return [t / norm for t in best]


def eigen(mats):
    """Exact eigenvalues and reference eigenvectors of each symmetric matrix,
    with the scale (Frobenius norm) and the least gap between eigenvalues."""
    out = []
    for m in mats:
        lams = linalg.evals_sym(m)
        norm = math.sqrt(sum(float(t * t) for row in m for t in row))
        gap = min(float(lams[k] - lams[k + 1]) for k in range(len(lams) - 1))
        assert gap > norm / 50, "eigenvalues too close for a well-defined eigenvector"
        out.append((lams, [null_vector(m, lam) for lam in lams], norm, gap))
    return out


def numpy_agrees(mats, eig):
    """numpy.linalg.eigh, when numpy is there, as a check of the oracle."""
    try:
        import numpy
    except ImportError:
        return
    for m, (lams, vecs, norm, _) in zip(mats, eig):
        wv, vv = numpy.linalg.eigh(numpy.array([[float(t) for t in row] for row in m]))
        for k, lam in enumerate(lams):
            assert abs(wv[len(lams) - 1 - k] - float(lam)) <= 1e-12 * max(1.0, norm)
            col = vv[:, len(lams) - 1 - k]
            dot = abs(sum(col[r] * vecs[k][r] for r in range(len(lams))))
            assert abs(dot - 1.0) <= 1e-10


def check_evecs(t, name, eig, counts, n):
    """Each row k of the output is the unit eigenvector of eigenvalue k, up to sign."""
    out = grid_output(t, name, counts, [n, n])
    if len(out.data) != n * n * len(eig):
        return
    for s, (lams, refs, norm, gap) in enumerate(eig):
        tol = 20 * t.rtol * max(1.0, norm / gap)
        for k, ref in enumerate(refs):
            got = out.data[(s * n + k) * n:(s * n + k + 1) * n]
            if t.perturb:
                got = [g + 1.0 for g in got]
            err = min(math.sqrt(sum((g - r) ** 2 for g, r in zip(got, ref))),
                      math.sqrt(sum((g + r) ** 2 for g, r in zip(got, ref))))
            if err > tol:
                t.fail("%s: strand %d, eigenvector %d = %s, expected ±%s (λ = %.9g): "
                       "distance %.3g > %.3g" % (name, s, k, got, ref, float(lams[k]), err, tol))


def run(t):
    GRID2.write(t.path("cub2.nrrd"), CUB2, t.real)
    GRID3.write(t.path("cub3.nrrd"), CUB3, t.real)
    GRID2.write(t.path("sym2.nrrd"), SYM2, t.real)
    p2, p3 = points()
    assert all(GRID2.inside(p, 3) for p in p2) and all(GRID3.inside(p, 3) for p in p3)
    assert not any(GRID2.inside([p[0] + 100, p[1]], 3) for p in p2)
    h2 = [at(hessian(CUB2), p) for p in p2]
    h3 = [at(hessian(CUB3), p) for p in p3]
    ms = [at(SYM2, p) for p in p2]
    hq = [at(hessian(QFUN), p) for p in p2]
    e2, e3, em, eq = eigen(h2), eigen(h3), eigen(ms), eigen(hq)
    for mats, eig in ((h2, e2), (h3, e3), (ms, em), (hq, eq)):
        numpy_agrees(mats, eig)
    g2 = [at(grad(CUB2), p) for p in p2]
    dot2 = [sum(float(a) * b for a, b in zip(g, vecs[1])) ** 2 for g, (_, vecs, _, _) in zip(g2, e2)]
    t.compile()
    t.exec(["-org2"] + ORG2 + ["-org3"] + ORG3 + ["-step", STEP, "-nx", COUNTS[0],
                                                  "-ny", COUNTS[1]])
    check_grid(t, "ev2", COUNTS, [2], [lams for lams, _, _, _ in e2])
    check_grid(t, "lo2", COUNTS, [], [lams[1] for lams, _, _, _ in e2])
    check_grid(t, "comp", COUNTS, [], [lams[0] for lams, _, _, _ in e2])
    check_grid(t, "dot2", COUNTS, [], dot2)
    check_grid(t, "ev3", COUNTS, [3], [lams for lams, _, _, _ in e3])
    check_grid(t, "evm", COUNTS, [2], [lams for lams, _, _, _ in em])
    check_grid(t, "evq", COUNTS, [2], [lams for lams, _, _, _ in eq])
    check_evecs(t, "vec2s", e2, COUNTS, 2)
    check_evecs(t, "vec3s", e3, COUNTS, 3)
    check_evecs(t, "vecm", em, COUNTS, 2)
    n = len(p2)
    check_grid_exact(t, "ins", COUNTS, [], [1] * n, "uchar")
    check_grid_exact(t, "insfar", COUNTS, [], [0] * n, "uchar")
