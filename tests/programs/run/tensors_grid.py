"""Oracle of tensors_grid.diderot, computed directly in Python."""
import math


def expected(W=4, H=3, s=0.5):
    a, c, m, k = [], [], [], []
    for i in range(W):          # first iterator: slowest axis
        for j in range(H):
            v = [float(i), float(j), 1.0]
            u = [1.0, 2.0, 3.0]
            a.append(math.sqrt(sum(x * x for x in v)) + s * sum(x * y for x, y in zip(v, u)))
            cr = [v[1] * u[2] - v[2] * u[1], v[2] * u[0] - v[0] * u[2], v[0] * u[1] - v[1] * u[0]]
            c.extend(cr[q] - s * v[q] for q in range(3))
            m.extend(v[r] * u[q] + (1.0 if r == q else 0.0) for r in range(3) for q in range(3))
            k.append(i * 10 + j)
    sizes = [H, W]               # NRRD: last iterator fastest
    return {"a.nrrd": (a, sizes), "c.nrrd": (c, [3] + sizes), "m.nrrd": (m, [9] + sizes),
            "k.nrrd": (k, sizes)}


CASES = [
    ([], expected()),
    (["-W", "5", "-H", "2", "-s", "-1.25"], expected(5, 2, -1.25)),
]
