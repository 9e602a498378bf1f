"""inside_2d: inside(x, F) (§8.5: (s-1) < p_a < N_a - s, strict) on a
lattice crossing the domain of an axis-aligned image (where the index
positions are exact, so points exactly on a bound must be outside) and of a
rotated one, for tent (s=1), ctmr (2), c4hexic (3), for a sum of fields of
two images (both tests) and of one image with two kernels (largest s), and
for fields the normaliser proves constant (det(∇F ⊗ ∇F), F - F, G + (F - F)):
their domain is still their images' (differential seed 16035).
Oracle: exact rational index positions. On the rotated grid, points within
1e-4 of a bound are not judged (float rounding of the transform)."""

from fractions import Fraction as Q

from e2elib import grid_output
from polyfield import Grid, lattice, variables

VARIANTS = ["float", "double"]

ROT = Grid.centered([8, 9], [Q(1, 2), Q(3, 5)])
ALIGNED = Grid.aligned([7, 8], [1, Q(1, 2)], [-3, -2])
ORG, STEP, COUNTS = [Q(-7, 2), Q(-5, 2)], Q(1, 4), [29, 19]
x, y = variables(2)


def margin(grid, pt, s):
    """Distance of the index position from the nearest bound of support s."""
    p = grid.index(pt)
    return min(min(abs(pa - (s - 1)), abs(pa - (n - s))) for pa, n in zip(p, grid.sizes))


def run(t):
    ROT.write(t.path("rot.nrrd"), 1 + x * y, t.real)
    ALIGNED.write(t.path("aligned.nrrd"), x - y, t.real)
    pts = lattice(ORG, STEP, COUNTS)
    on_bound = sum(1 for pt in pts if margin(ALIGNED, pt, 1) == 0)
    assert on_bound > 0  # the strictness of the test is exercised
    cases = {
        "rt": [(ROT, 1)], "rc": [(ROT, 2)], "rh": [(ROT, 3)],
        "at": [(ALIGNED, 1)], "ac": [(ALIGNED, 2)], "ah": [(ALIGNED, 3)],
        "mixed": [(ALIGNED, 1), (ROT, 3)], "same": [(ALIGNED, 2)],
        "outer": [(ALIGNED, 2)], "cancel": [(ROT, 3)], "zeroed": [(ALIGNED, 1), (ROT, 3)],
    }
    expected = {}
    for name, conds in cases.items():
        judged = {}   # strand index -> expected answer
        for k, pt in enumerate(pts):
            if any(g is ROT and margin(g, pt, s) < Q(1, 10000) for g, s in conds):
                continue
            judged[k] = int(all(g.inside(pt, s) for g, s in conds))
        assert 0 < sum(judged.values()) < len(judged), name  # both answers occur
        expected[name] = judged
    t.compile()
    t.exec(["-org", ORG[0], ORG[1], "-step", STEP, "-nx", COUNTS[0], "-ny", COUNTS[1]])
    for name, judged in expected.items():
        n = grid_output(t, name, COUNTS, [], "uchar")
        t.equal(name, [n.data[k] for k in judged], list(judged.values()))
