"""Oracle of sphere_order_sum.diderot: lattice positions (1/8 units)
recomputed with Python integers; the neighbours of a point are the other
points with dx^2 + dy^2 < (8r)^2 exactly (found through 8x8 buckets); the
sum 1/(1 + |q - p|) in double (the program sums in float: about 1e-6
relative). Outputs in creation order (Q15)."""
import math


def mix(h, k):
    return ((h % 44488) * 48271 + k) % 2147483647


def expected(N=2000, span=64, R=8):
    pts = [(mix(mix(i + 1, 7), 11) % span, mix(mix(i + 1, 5), 13) % span) for i in range(N)]
    cells = {}
    for i, (x, y) in enumerate(pts):
        cells.setdefault((x // R, y // R), []).append(i)
    n, s = [], []
    for i, (x, y) in enumerate(pts):
        cnt, tot = 0, 0.0
        for cx in (x // R - 1, x // R, x // R + 1):
            for cy in (y // R - 1, y // R, y // R + 1):
                for j in cells.get((cx, cy), ()):
                    dx, dy = pts[j][0] - x, pts[j][1] - y
                    if j != i and dx * dx + dy * dy < R * R:
                        cnt += 1
                        tot += 1.0 / (1.0 + math.sqrt(dx * dx + dy * dy) / 8.0)
        n.append(cnt)
        s.append(tot)
    pos = [c / 8.0 for p in pts for c in p]
    return {"pos.nrrd": (pos, [2, N]), "n.nrrd": (n, [N]), "s.nrrd": (s, [N])}


CASES = [([], expected()), (["-N", "20000", "-span", "256"], expected(20000, 256))]
ALSO = [(["--no-space-partition"], []), (["--target=omp"], ["-n", "2"]),
        # its loop scalar (emit_c_loops.c prints it in lanes by default)
        (["--no-loop-lanes"], [])]
