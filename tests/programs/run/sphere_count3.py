"""Oracle of sphere_count3.diderot: points recomputed with Python integers
(coordinates in 1/64 units) and neighbour sets from the exact integer test
|q - c|^2 < R^2 over all candidates with |dx| < R in an x-sorted sweep
(brute force). Outputs in creation order (doc/differences.md, Q15)."""
import bisect


def mix(h, k):
    return ((h % 44488) * 48271 + k) % 2147483647


def points(N, span):
    pts = []
    for i in range(N):
        h1 = mix(i + 1, 7)
        h2 = mix(h1, 11)
        h3 = mix(h2, 13)
        h4 = mix(h3, 17)
        pts.append((h2 % span, h3 % span, h4 % span))
    return pts


def expected(N=4000, span=384, R=32):
    pts = points(N, span)
    order = sorted(range(N), key=lambda q: pts[q][0])
    xs = [pts[q][0] for q in order]

    def near(c, R, exclude):
        out = []
        for k in range(bisect.bisect_left(xs, c[0] - R), N):
            if xs[k] >= c[0] + R:
                break
            q = order[k]
            d2 = sum((a - b) ** 2 for a, b in zip(pts[q], c))
            if q != exclude and d2 < R * R:
                out.append(q)
        return out

    pos, n, s, m = [], [], [], []
    for i, p in enumerate(pts):
        nb = near(p, R, i)
        pos += [x / 64.0 for x in p]
        n.append(len(nb))
        s.append(sum(nb))
        m.append(len(near((p[0] + 16, p[1] - 8, p[2] + 32), R * 3 // 4, i)))
    return {"pos.nrrd": (pos, [3, N]), "id.nrrd": (list(range(N)), [N]), "n.nrrd": (n, [N]),
            "ids.nrrd": (s, [N]), "m.nrrd": (m, [N])}


CASES = [
    ([], expected()),
    # dense: coincident points and many pairs exactly at distance r
    (["-N", "700", "-span", "48"], expected(700, 48)),
]
ALSO = [(["--no-space-partition"], []), (["--target=omp"], ["-n", "3"])]
