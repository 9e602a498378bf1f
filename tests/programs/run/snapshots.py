"""Oracle of snapshots.diderot, by hand from the rules: after t steps strand
i is alive unless i % 4 == 0 and t >= 2; it has run k = min(t, i) updates,
so x = i + k i and trail = [1 .. k]; it is stable when t >= i. A snapshot
after t steps lists every alive strand in creation order (no strand is
created later, so that is ascending i); the final outputs list the stable
ones. Snapshot steps: 0, then every S steps, and the step where the run
ends (all stable at step max{i <= N, i % 4 != 0}, or the -l limit)."""

FLAGS = ["--snapshot"]


def state(N, t, snap):
    xs, trails = [], []
    for i in range(1, N + 1):
        if i % 4 == 0 and t >= 2:
            continue
        if not snap and t < i:
            continue
        k = min(t, i)
        xs.append(float(i + k * i))
        trails.append(list(range(1, k + 1)))
    return xs, trails


def files(want, N, t, xname, tname, snap):
    xs, trails = state(N, t, snap)
    lens, off = [], 0
    for tr in trails:
        lens += [off, len(tr)]
        off += len(tr)
    want[xname] = (xs, [len(xs)])
    want[tname % "len"] = (lens, [2, len(trails)])
    data = [v for tr in trails for v in tr]
    if data:
        want[tname % "data"] = (data, [len(data)])
    return want


def expected(N=10, S=3, limit=0, px="x", pt="trail"):
    end = max(i for i in range(1, N + 1) if i % 4)
    if limit:
        end = min(end, limit)
    steps = sorted(set([0] + list(range(S, end + 1, S)) + [end])) if S else []
    want = files({}, N, end, "x.nrrd", "trail-%s.nrrd", False)
    for t in steps:
        files(want, N, t, "%s-%04d.nrrd" % (px, t), pt + "-%%s-%04d.nrrd" % t, True)
    names = sorted(want)

    def exactly(got):
        return [] if got == names else ["files %s, expected %s" % (got, names)]
    want["*"] = exactly
    return want


CASES = [
    (["-s", "3"], expected()),
    (["-s", "4", "-l", "6", "-sp-x", "px", "-sp-trail", "pt"], expected(S=4, limit=6, px="px", pt="pt")),
    ([], expected(S=0)),                       # the default period is 0 (doc/differences.md, Q13)
    (["-s", "1", "-N", "3"], expected(N=3, S=1)),
]
ALSO = [(["--target=omp"], ["-n", "2"])]
