"""Oracle of state_read_before_write.diderot: one update in statement order
from a = 1, x = 1, p = true."""

N = 3
CASES = [
    ([], {"a.nrrd": ([5 + i for i in range(N)], [N]),
          "b.nrrd": ([1 + i for i in range(N)], [N]),
          "c.nrrd": ([2] * N, [N]),
          "x.nrrd": ([3.0] * N, [N]),
          "y.nrrd": ([1.0] * N, [N]),
          "p.nrrd": ([0] * N, [N]),
          "q.nrrd": ([1] * N, [N])}),
]
