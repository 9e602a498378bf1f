"""layout_collection: a collection whose strands k with k % 3 == 0 die and
the others stabilize after k % 4 steps. Outputs: a `list` axis of the
stable strands (int id, 3-vector, 2D-matrix) and a dynamic sequence
(xs-len: 2-vector × list; xs-data: list). The strand order is unspecified
(§6.5), but all outputs of one run use the same order, so the ids say which
strand each element belongs to; the ids must be the expected set."""

from layout_grid import check_dynseq

VARIANTS = ["float", "double+long"]
N = 20


def run(t):
    ks = [k for k in range(N) if k % 3 != 0]
    t.compile()
    t.exec(["-n", N])
    itype = "long long int" if t.long_int else "int"
    ids = t.layout("id.nrrd", itype, [len(ks)], ["list"])
    t.same_multiset("id", ids.data, ks)
    order = list(ids.data)
    if sorted(order) != ks:
        return   # already reported; the other checks need the order
    n = t.layout("v.nrrd", t.real, [3, len(ks)], ["3-vector", "list"])
    t.close("v", n.data, [[k, 2 * k, -k] for k in order])
    n = t.layout("m.nrrd", t.real, [4, len(ks)], ["2D-matrix", "list"])
    t.close("m", n.data, [[k, 1, 0.5, -k] for k in order])
    check_dynseq(t, "xs", [[k + 0.25 * m for m in range(k % 3 + 1)] for k in order],
                 [len(ks)], ["list"], t.real, [], None)
