"""Oracle of cuda/lib/lib_probe (tests/run.py): the outputs that
lib_probe_client.c saves after running lib_probe.diderot to the end.

The client's image holds 2x + y at index (x, y) with identity orientation,
so the tent-reconstructed field is exactly F(x, y) = 2x + y inside the
image. The client sets n = 3 and h = 0.5 (org keeps its default [1, 1]), so
strand (i, j) probes p = (1 + i/2, 1 + j/2); ws = {1, 2} @ 4 sums to 7 on
the host. Strand (i, j) stabilizes in step i + j + 1 with v = 7 F(p),
g = [F(p), F(p + [1, 0])] and steps = i + j + 1. Output grids list the
last iterator (j) fastest; g has its 2 components first (doc/language.md §13).
"""

REAL = "float"      # the -DREAL of the client: the default --target builds
N, H, ORG, WSUM = 3, 0.5, (1.0, 1.0), 1.0 + 2.0 + 4.0


def _field(x, y):
    return 2.0 * x + y


def _strands():
    for i in range(N):
        for j in range(N):
            yield i, j, ORG[0] + H * i, ORG[1] + H * j


EXPECTED = {
    "v.nrrd": ([WSUM * _field(x, y) for _, _, x, y in _strands()], [N, N]),
    "g.nrrd": ([c for _, _, x, y in _strands() for c in (_field(x, y), _field(x + 1.0, y))],
               [2, N, N]),
    "steps.nrrd": ([i + j + 1 for i, j, _, _ in _strands()], [N, N]),
}
