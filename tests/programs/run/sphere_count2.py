"""Oracle of sphere_count2.diderot: the points are recomputed from the hash
with Python integers, coordinates kept as integer multiples of 1/64, and
every neighbour set comes from an exact integer distance test
(dx^2 + dy^2 < (64 r)^2, strictly) over all candidates with |dx| < 64 r in
an x-sorted sweep (brute force; the sort only skips pairs that cannot
qualify). Outputs are in creation order (doc/differences.md, Q15): all strands
stabilize in the first step."""
import bisect
import math


def mix(h, k):
    return ((h % 44488) * 48271 + k) % 2147483647


def points(N, span):
    pts = []
    for i in range(N):
        h1 = mix(i + 1, 7)
        h2 = mix(h1, 11)
        h3 = mix(h2, 13)
        pts.append((h2 % span, h3 % span))
    return pts


def neighbours(pts, c, R, exclude):
    """indices q != exclude with |pts[q] - c|^2 < R^2 (all in 1/64 units)."""
    order = neighbours.order
    xs = neighbours.xs
    lo = bisect.bisect_left(xs, c[0] - R)
    out = []
    for k in range(lo, len(xs)):
        if xs[k] >= c[0] + R:
            break
        q = order[k]
        if q == exclude:
            continue
        dx, dy = pts[q][0] - c[0], pts[q][1] - c[1]
        if dx * dx + dy * dy < R * R:
            out.append(q)
    return out


def expected(N=10000, span=2048, R=32):
    """R: the radius in 1/64 units (r = 0.5 -> 32); 0.75 r -> 24."""
    pts = points(N, span)
    neighbours.order = sorted(range(N), key=lambda q: pts[q][0])
    neighbours.xs = [pts[q][0] for q in neighbours.order]
    pos, ids, n, s, m, far = [], [], [], [], [], []
    for i, p in enumerate(pts):
        nb = neighbours(pts, p, R, i)
        pos += [p[0] / 64.0, p[1] / 64.0]
        ids.append(i)
        n.append(len(nb))
        s.append(sum(nb))
        # the centre p + (0.25, -0.125) is (16, -8) in 1/64 units
        m.append(len(neighbours(pts, (p[0] + 16, p[1] - 8), R * 3 // 4, i)))
        far.append(max((math.hypot(pts[q][0] - p[0], pts[q][1] - p[1]) / 64.0 for q in nb),
                       default=0.0))
    return {"pos.nrrd": (pos, [2, N]), "id.nrrd": (ids, [N]), "n.nrrd": (n, [N]),
            "ids.nrrd": (s, [N]), "m.nrrd": (m, [N]), "far.nrrd": (far, [N])}


CASES = [
    ([], expected()),
    (["-N", "3000", "-span", "1024"], expected(3000, 1024)),
    # dense: 1099 coincident pairs and 8928 pairs exactly at distance r
    (["-N", "2000", "-span", "96"], expected(2000, 96)),
    (["-N", "20"], expected(20)),   # few points: the index answers by brute force
]
# the brute-force index of --no-space-partition and the OpenMP target at
# 1, 2 and 4 threads must write byte-identical files
ALSO = [(["--no-space-partition"], []),
        (["--target=omp"], ["-n", "1"]), (["--target=omp"], ["-n", "2"]),
        (["--target=omp"], ["-n", "4"])]
