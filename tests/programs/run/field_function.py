"""Oracle of field_function.diderot: the closed forms and their derivatives
worked out by hand (no Diderot code involved)."""
import math


def expected(s=0.5, n=5):
    out = {k: [] for k in ("q", "gq", "hq", "jr", "u", "v", "jv", "k")}
    for i in range(n):
        x0, x1 = 0.25 * i, 1.0 - 0.5 * i
        # Q = x0^2 + x1^2 + s x0 x1
        out["q"].append(x0 * x0 + x1 * x1 + s * x0 * x1)
        out["gq"] += [2 * x0 + s * x1, 2 * x1 + s * x0]
        out["hq"] += [2.0, s, s, 2.0]
        # R = (x1^2 + s, 2 x0): (∇⊗R)[r][c] = ∂R_r/∂x_c
        out["jr"] += [0.0, 2 * x1, 2.0, 0.0]
        t = 0.1 * i - 0.2
        # U = sin t + t^3
        out["u"] += [math.sin(t) + t ** 3, math.cos(t) + 3 * t * t, -math.sin(t) + 6 * t]
        y = [float(i), -1.0, 0.5 * i]
        out["v"] += [2 * y[0] + 1.0, 2 * y[1], 2 * y[2] - 1.0]
        out["jv"] += [2.0 if r == c else 0.0 for r in range(3) for c in range(3)]
        out["k"].append(1.5)
    # a tensor output is one axis of its components (row-major), then the strands
    shape = {"q": [], "gq": [2], "hq": [4], "jr": [4], "u": [3], "v": [3],
             "jv": [9], "k": []}
    return {name + ".nrrd": (vals, shape[name] + [n]) for name, vals in out.items()}


CASES = [
    ([], expected()),
    (["-s", "-1.75"], expected(-1.75)),
]
