"""Oracle of sphere_count1.diderot: positions recomputed with Python
integers (1/64 units); the neighbours of c are every other point with
|q - c| < R exactly, found in the x-sorted list (the points strictly between
c - R and c + R). Outputs in creation order (doc/differences.md, Q15)."""
import bisect


def mix(h, k):
    return ((h % 44488) * 48271 + k) % 2147483647


def expected(N=3000, span=2048, R=32):
    pts = [mix(mix(i + 1, 7), 11) % span for i in range(N)]
    byx = sorted(range(N), key=lambda q: pts[q])
    xs = [pts[q] for q in byx]

    def near(c, R, exclude):
        lo, hi = bisect.bisect_right(xs, c - R), bisect.bisect_left(xs, c + R)
        return [byx[k] for k in range(lo, hi) if byx[k] != exclude]

    n, s, m = [], [], []
    for i, p in enumerate(pts):
        nb = near(p, R, i)
        n.append(len(nb))
        s.append(sum(nb))
        m.append(len(near(p - 16, R * 3 // 4, i)))
    return {"pos.nrrd": ([x / 64.0 for x in pts], [N]), "id.nrrd": (list(range(N)), [N]),
            "n.nrrd": (n, [N]), "ids.nrrd": (s, [N]), "m.nrrd": (m, [N])}


CASES = [([], expected()), (["-N", "1000", "-span", "128"], expected(1000, 128))]
ALSO = [(["--no-space-partition"], []), (["--target=omp"], ["-n", "2"])]
