"""Oracle of function_range_reduction.diderot: f(a) = 2 + 3 + a,
g(a) = min over k in a..3 of (k + 7) times [1, 2] = (a + 7) * [1, 2];
r = trace of the initial m = 1 + 4; m ends as the last assignment."""

N = 3
CASES = [
    ([], {"o.nrrd": ([5.0 + i for i in range(N)], [N]),
          "v.nrrd": ([x for i in range(N) for x in ((i + 7.0), 2 * (i + 7.0))], [2, N]),
          "r.nrrd": ([5.0] * N, [N]),
          "m.nrrd": ([5.0, 6.0, 7.0, 8.0] * N, [4, N])}),
]
