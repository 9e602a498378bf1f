"""Oracle of life_sphere.diderot: the game of life on an unbounded board,
as a set of live (x, y) cells, from the same seed formula; the program's
collection output (the stable strands) must be exactly that set after
`gens` generations, every cell once."""

from conway import life_steps  # tests/oracle



def life(W, H, gens):
    return life_steps({(i, j) for i in range(W) for j in range(H) if (i * i + 3 * j + i * j * j) % 7 < 3},
                      gens)


def check_set(want):
    def check(got):
        pts = [(round(got.data[2 * k]), round(got.data[2 * k + 1])) for k in range(len(got.data) // 2)]
        bad = []
        if any(abs(v - round(v)) > 0 for v in got.data):
            bad.append("positions off the integer grid")
        if len(set(pts)) != len(pts):
            bad.append("%d duplicate cells" % (len(pts) - len(set(pts))))
        if set(pts) != want:
            bad.append("%d cells, expected %d; %d missing, %d extra" % (
                len(set(pts)), len(want), len(want - set(pts)), len(set(pts) - want)))
        return bad
    return check


def expected(W=14, H=11, gens=24):
    want = life(W, H, gens)
    assert len(want) > 10
    return {"pos.nrrd": check_set(want)}


CASES = [
    ([], expected()),
    (["-gens", "0"], expected(gens=0)),
    (["-W", "30", "-H", "20", "-gens", "40"], expected(30, 20, 40)),
]
ALSO = [(["--target=omp"], ["-n", "1"]), (["--target=omp"], ["-n", "2"]),
        (["--target=omp"], ["-n", "4"])]
