"""tensor_ops: •, ⊗, :, ×, trace, transpose, det, inv, normalize, |·|,
modulate, lerp (3 and 5 arguments), clamp (scalar and tensor bounds) and
arithmetic, on operands built from each strand's grid indices. Oracle: the
meanings of doc/language.md §5, §10 computed exactly with Fractions
(tests/oracle/linalg.py); only normalize and |·| need a square root."""

import math
from fractions import Fraction as Q

import linalg
from e2elib import check_grid

VARIANTS = ["float", "double"]
COUNTS = [4, 3]   # ni (fastest), nj


def operands(i, j):
    r, s = Q(i), Q(j)
    a = [r + 1, s - Q(1, 2), 2 - r * s]
    b = [s / 2 - 1, r * r - 2, Q(3, 2) + s]
    u = [r - Q(3, 2), Q(1, 2) + s]
    v = [2 - s, r / 4 + 1]
    A = [[r + 2, s, Q(1)], [Q(1, 2), s - r - 3, Q(2)], [r * s, Q(1), 3 + s]]
    B = [[r + 1, s / 2], [s - r, 2 + s]]
    return r, a, b, u, v, A, B


def clamp(lo, hi, x):
    return lo if x <= lo else (hi if hi <= x else x)


def expected(i, j):
    r, a, b, u, v, A, B = operands(i, j)
    At = linalg.transpose(A)
    na = math.sqrt(sum(float(x * x) for x in a))
    return {
        "dot3": sum(x * y for x, y in zip(a, b)),
        "dot2": sum(x * y for x, y in zip(u, v)),
        "matvec": linalg.matvec(A, a),
        "vecmat": linalg.matvec(At, a),
        "matmat": linalg.matmul(A, At),
        "outer": [[x * y for y in a] for x in u],
        "ddot": sum(A[p][q] * At[p][q] for p in range(3) for q in range(3)),
        "cross3": [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]],
        "cross2": u[0] * v[1] - u[1] * v[0],
        "tr": A[0][0] + A[1][1] + A[2][2],
        "trans": At,
        "det3": linalg.det(A),
        "det2": linalg.det(B),
        "inv3": linalg.inv(A),
        "inv2": linalg.inv(B),
        "nrm": [float(x) / na for x in a],
        "len": na,
        "frob": math.sqrt(sum(float(x * x) for row in A for x in row)),
        "modul": [x * y for x, y in zip(a, b)],
        "lerp3": [x + Q(1, 4) * (y - x) for x, y in zip(a, b)],
        "lerp5": [x + ((r - 1) / (5 - 1)) * (y - x) for x, y in zip(a, b)],
        "clampS": [clamp(Q(-1), Q(3, 2), x) for x in a],
        "clampT": [clamp(lo, hi, x) for lo, hi, x in zip([Q(-1), Q(3, 4)], [Q(1), Q(2)], u)],
        "arith": [2 * x - y / 4 - x for x, y in zip(a, b)],
        "outer2": [[x * y for y in v] for x in u],
    }


SHAPES = {"dot3": [], "dot2": [], "matvec": [3], "vecmat": [3], "matmat": [3, 3],
          "outer": [2, 3], "ddot": [], "cross3": [3], "cross2": [], "tr": [], "trans": [3, 3],
          "det3": [], "det2": [], "inv3": [3, 3], "inv2": [2, 2], "nrm": [3], "len": [],
          "frob": [], "modul": [3], "lerp3": [3], "lerp5": [3], "clampS": [3], "clampT": [2],
          "arith": [3], "outer2": [2, 2]}


def run(t):
    # strands in NRRD order: i (the last iterator) fastest
    exp = [expected(i, j) for j in range(COUNTS[1]) for i in range(COUNTS[0])]
    assert all(abs(e["det3"]) > Q(1, 2) and abs(e["det2"]) > Q(1, 2) for e in exp)
    t.compile()
    t.exec(["-ni", COUNTS[0], "-nj", COUNTS[1]])
    for name, shp in SHAPES.items():
        check_grid(t, name, COUNTS, shp, [e[name] for e in exp])
