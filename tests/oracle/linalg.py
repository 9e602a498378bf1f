"""linalg.py -- exact and high-precision small linear algebra for the tests.

Independent of LAPACK and of the compiler: matrices are lists of rows of
Fractions (or ints); det and inv are exact; the eigenvalues of symmetric
2x2/3x3 matrices are roots of the exact characteristic polynomial, found by
bisection between its critical points (computed with 60-digit decimals),
so they are accurate far beyond double precision.
"""

from decimal import Decimal, localcontext
from fractions import Fraction as Q


def det(m):
    n = len(m)
    if n == 1:
        return Q(m[0][0])
    if n == 2:
        return Q(m[0][0]) * m[1][1] - Q(m[0][1]) * m[1][0]
    return sum(((-1) ** c) * Q(m[0][c]) * det([row[:c] + row[c + 1:] for row in m[1:]])
               for c in range(n))


def inv(m):
    """Exact inverse by the adjugate (cofactor) formula."""
    n = len(m)
    d = det(m)
    if d == 0:
        raise ZeroDivisionError("singular matrix")
    if n == 1:
        return [[1 / d]]

    def minor(i, j):
        return [row[:j] + row[j + 1:] for k, row in enumerate(m) if k != i]
    return [[((-1) ** (i + j)) * det(minor(j, i)) / d for j in range(n)] for i in range(n)]


def transpose(m):
    return [list(r) for r in zip(*m)]


def matmul(a, b):
    return [[sum((Q(a[i][k]) * b[k][j] for k in range(len(b))), Q(0)) for j in range(len(b[0]))]
            for i in range(len(a))]


def matvec(a, v):
    return [sum((Q(x) * y for x, y in zip(row, v)), Q(0)) for row in a]


def charpoly(m):
    """Coefficients [c0, c1, ..., 1] of det(λI − m), constant term first."""
    n = len(m)
    tr = sum(Q(m[i][i]) for i in range(n))
    if n == 2:
        return [det(m), -tr, Q(1)]
    minors = sum(det([[m[i][i], m[i][j]], [m[j][i], m[j][j]]])
                 for i in range(3) for j in range(i + 1, 3))
    return [-det(m), minors, -tr, Q(1)]


def _peval(c, x):
    v = Q(0)
    for a in reversed(c):
        v = v * x + a
    return v


def _bisect(c, lo, hi, iters=200):
    flo = _peval(c, lo)
    for _ in range(iters):
        mid = (lo + hi) / 2
        fm = _peval(c, mid)
        if fm == 0:
            return mid
        if (fm < 0) == (flo < 0):
            lo, flo = mid, fm
        else:
            hi = mid
        if hi - lo < Q(1, 10 ** 30):
            break
    return (lo + hi) / 2


def _dsqrt(q):
    with localcontext() as ctx:
        ctx.prec = 60
        r = (Decimal(q.numerator) / Decimal(q.denominator)).sqrt()
        return Q(r)


def evals_sym(m):
    """Eigenvalues of a symmetric 2x2 or 3x3 matrix (only the upper triangle
    is read, like Diderot's evals), in descending order, as Fractions
    accurate to ~1e-30 (relative to the matrix norm)."""
    n = len(m)
    s = [[Q(m[min(i, j)][max(i, j)]) for j in range(n)] for i in range(n)]
    c = charpoly(s)
    if n == 2:
        a, b, d = s[0][0], s[0][1], s[1][1]
        r = _dsqrt(((a - d) / 2) ** 2 + b * b)
        return [(a + d) / 2 + r, (a + d) / 2 - r]
    bound = max(sum(abs(x) for x in row) for row in s) + 1
    # critical points of λ³ + c2 λ² + c1 λ + c0: 3λ² + 2 c2 λ + c1 = 0
    disc = c[2] * c[2] - 3 * c[1]
    if disc <= 0:
        raise ValueError("repeated eigenvalue")
    r = _dsqrt(disc)
    lo_c, hi_c = (-c[2] - r) / 3, (-c[2] + r) / 3
    roots = [_bisect(c, hi_c, bound), _bisect(c, lo_c, hi_c), _bisect(c, -bound, lo_c)]
    return roots


def sym(m):
    """The symmetric matrix of m's upper triangle."""
    n = len(m)
    return [[Q(m[min(i, j)][max(i, j)]) for j in range(n)] for i in range(n)]
