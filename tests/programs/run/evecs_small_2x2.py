"""Oracle of evecs_small_2x2.diderot (the original's defect D20): the
eigenvalues of M = [[a, b], [b, c]] = [[-0.75, 0.875], [0.875, 1.5]] are
m +- r with m = (a + c)/2, r = sqrt(((a - c)/2)^2 + b^2), in decreasing
order; the projector onto the eigenvector of m + r is
u u^T with u = (b, l - a) normalised. Each
strand solves s*M and outputs evals/s and the two projectors, which do
not depend on s."""
import math

a, b, c = -0.75, 0.875, 1.5
m = (a + c) / 2
r = math.sqrt(((a - c) / 2) ** 2 + b * b)
lams = [m + r, m - r]


def projector(lam):
    v = (b, lam - a)
    n = math.hypot(*v)
    u = (v[0] / n, v[1] / n)
    return [u[0] * u[0], u[0] * u[1], u[1] * u[0], u[1] * u[1]]


CASES = [([], {"e.nrrd": (lams * 3, [2, 3]),
               "p0.nrrd": (projector(lams[0]) * 3, [4, 3]),
               "p1.nrrd": (projector(lams[1]) * 3, [4, 3])})]
