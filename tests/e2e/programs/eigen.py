"""eigen: evals and evecs of symmetric 2x2 and 3x3 matrices (upper triangle
only; descending order, §4.4). Oracle for evals: roots of the exact
characteristic polynomial to ~30 digits (tests/oracle/linalg.py). evecs are
checked without a reference solver: each must be a unit vector with
|S v - λ v| small for the matching exact eigenvalue, which fixes it up to
sign since the eigenvalues are well separated. Outputs: real[n] and vecn[n]
fixed sequences (a `list` data axis of n and n·n values, §8.8)."""

import math
from fractions import Fraction as Q

import linalg
from e2elib import grid_output

VARIANTS = ["float", "double"]
COUNTS = [4, 3]


def matrices(i, j):
    r, s = Q(i), Q(j)
    S3 = [[2 + r, s / 2, 1 - r / 4], [Q(99), 1 - s + r / 2, Q(3, 4)], [Q(-7), Q(42), r * s / 2 - 1]]
    S2 = [[1 + r / 2, Q(3, 4) - s / 4], [Q(13), s - 1]]
    return linalg.sym(S3), linalg.sym(S2)


def check_evecs(t, name, mats, evals, data, n):
    tol = 10 * t.rtol
    for k, (m, lams) in enumerate(zip(mats, evals)):
        norm = math.sqrt(sum(float(x * x) for row in m for x in row))
        vecs = [data[(k * n + e) * n:(k * n + e + 1) * n] for e in range(n)]
        for e, (vec, lam) in enumerate(zip(vecs, lams)):
            length = math.sqrt(sum(c * c for c in vec))
            res = [sum(float(m[p][q]) * vec[q] for q in range(n)) - float(lam) * vec[p]
                   for p in range(n)]
            rn = math.sqrt(sum(c * c for c in res))
            if t.perturb:
                rn += 1.0
            if abs(length - 1) > tol or rn > tol * norm:
                t.fail("%s: strand %d, eigenvector %d = %s: length %.3g, |Sv - λv| = %.3g "
                       "(λ = %.9g)" % (name, k, e, vec, length, rn, float(lam)))


def run(t):
    mats = [matrices(i, j) for j in range(COUNTS[1]) for i in range(COUNTS[0])]
    ev3 = [linalg.evals_sym(m3) for m3, _ in mats]
    ev2 = [linalg.evals_sym(m2) for _, m2 in mats]
    for ev, (m3, m2) in zip(ev3, mats):   # well separated, so evecs are defined
        norm = math.sqrt(sum(float(x * x) for row in m3 for x in row))
        assert min(ev[0] - ev[1], ev[1] - ev[2]) > norm / 50
    t.compile()
    t.exec(["-ni", COUNTS[0], "-nj", COUNTS[1]])
    n = grid_output(t, "ev3", COUNTS, [3], seq=True)
    t.close("ev3", n.data, ev3)
    n = grid_output(t, "ev2", COUNTS, [2], seq=True)
    t.close("ev2", n.data, ev2)
    n = grid_output(t, "evec3", COUNTS, [3, 3], seq=True)
    if len(n.data) == 9 * len(mats):
        check_evecs(t, "evec3", [m for m, _ in mats], ev3, n.data, 3)
    n = grid_output(t, "evec2", COUNTS, [2, 2], seq=True)
    if len(n.data) == 4 * len(mats):
        check_evecs(t, "evec2", [m for _, m in mats], ev2, n.data, 2)
