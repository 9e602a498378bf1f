"""group_loops: loops in the across-strand groups of --simd=strands
(e2e/simd builds it with and without them and compares the outputs byte
for byte). 40 strands on a lattice of step 1/8 around the domain of a 5x4
image of the plane P = 1 + 2x + 3y (spacing 1/8, origin 0): with tent and
clamp() the field is P at the position clamped to the domain, axis by axis.
tri sums F(pos + (b/4, a/2)) over 0 <= b <= a <= i % 4 (hops counts the
terms); acc sums F at the midpoints with the strands q != self with
|q - pos|^2 < rad^2 (doc/language.md §9.2: all strands, start-of-step
positions), cnt counts them; a strand with i % 7 == 0 dies at its sixth
neighbour. Every value is dyadic and small, so the real sums are exact.
Oracle: these rules in exact rationals."""

from fractions import Fraction as Q

from polyfield import Grid, variables

VARIANTS = ["float", "double"]
x, y = variables(2)
G = Grid.aligned([5, 4], [Q(1, 8), Q(1, 8)], [0, 0])
N = 40
RAD = Q(3, 10)   # the ties nearest to it: d^2 = 5/64 and 6/64, far from 0.09


def field(p):
    """tent ⊛ clamp(img) of the plane: P at p clamped to the domain."""
    cx = min(max(p[0], Q(0)), Q(4, 8))
    cy = min(max(p[1], Q(0)), Q(3, 8))
    return 1 + 2 * cx + 3 * cy


def expected():
    pos = [(Q(i % 8, 8) - Q(1, 4), Q(i // 8, 8) - Q(1, 4)) for i in range(N)]
    out = {"pos": [], "tri": [], "acc": [], "cnt": [], "hops": []}
    for i, p in enumerate(pos):
        tri, hops = Q(0), 0
        for a in range(i % 4 + 1):
            for b in range(a + 1):
                tri += field((p[0] + Q(b, 4), p[1] + Q(a, 2)))
                hops += 1
        acc, cnt, dead = Q(0), 0, False
        for j, q in enumerate(pos):
            if j == i or (q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2 >= RAD * RAD:
                continue
            acc += field(((p[0] + q[0]) / 2, (p[1] + q[1]) / 2))
            cnt += 1
            if cnt > 5 and i % 7 == 0:
                dead = True
                break
        if dead:
            continue
        out["pos"] += [float(p[0]), float(p[1])]
        out["tri"].append(float(tri))
        out["acc"].append(float(acc))
        out["cnt"].append(cnt)
        out["hops"].append(hops)
    return out


def run(t):
    G.write(t.path("plane.nrrd"), 1 + 2 * x + 3 * y, t.real)
    want = expected()
    assert 0 < len(want["cnt"]) < N and len(set(want["cnt"])) > 3   # deaths; counts differ
    t.compile()
    t.exec([])
    for name in ("pos", "tri", "acc"):
        t.close(name, t.read(name + ".nrrd").data, want[name], rtol=1e-12)  # exact
    for name in ("cnt", "hops"):
        t.equal(name, t.read(name + ".nrrd").data, want[name])
