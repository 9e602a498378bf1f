"""layout_grid: the NRRD layouts of doc/language.md §13 for a grid
`create_array { L(i,j,k) | k in 1..2, j in 0..2, i in 0..3 }`: sizes
[C,] 4 3 2 (the last iterator first), kinds space for the grid axes and
2-vector / 3-vector / 4-vector / 2D-matrix / 3D-matrix / list for the data
axes, row-major components, uchar bools, int (or long long with
--long-int) ints, float or double reals; dynamic sequences as NAME-len
(int, 2-vector of (offset, length), then the grid axes) and NAME-data
(elements of all strands in order, a list axis). Every file is checked with
tests/oracle/nrrd.py and with `teem-unu head`. Oracle: the spec's layout
rules and the value formulas."""

VARIANTS = ["float", "double+long"]
NI, NJ, NK = 4, 3, 2   # i fastest; k in 1..2


def strands():
    """(i, j, k) in storage order: k slowest, i fastest."""
    return [(i, j, k) for k in range(1, NK + 1) for j in range(NJ) for i in range(NI)]


def run(t):
    S = strands()
    grid = [NI, NJ, NK]
    sp = ["space"] * 3
    real = t.real
    exp = {
        "sc": ([], None, [i + 10 * j + 100 * k for i, j, k in S]),
        "v2": ([2], "2-vector", [[i, j] for i, j, k in S]),
        "v3": ([3], "3-vector", [[i, j, k] for i, j, k in S]),
        "v4": ([4], "4-vector", [[i, j, k, -1] for i, j, k in S]),
        "m2": ([4], "2D-matrix", [[i, j, k, 0.5] for i, j, k in S]),
        "m3": ([9], "3D-matrix", [[i, j, k, 1, 2, 3, -i, -j, -k] for i, j, k in S]),
        "t23": ([6], "list", [[i, j, k, i + .5, j + .5, k + .5] for i, j, k in S]),
        "seq": ([3], "list", [[k, j, i] for i, j, k in S]),
        "vseq": ([4], "list", [[i, 1, j, k] for i, j, k in S]),
    }
    ys = [[1000 * k + 100 * j + 10 * i + m for m in range((i + j) % 3)] for i, j, k in S]
    ps = [[[i, m] for m in range(j)] for i, j, k in S]
    t.compile()
    t.exec()
    for name, (c, kind, vals) in exp.items():
        n = t.layout(name + ".nrrd", real, c + grid, ([kind] if kind else []) + sp)
        t.close(name, n.data, vals)
    n = t.layout("flag.nrrd", "uchar", grid, sp)
    t.equal("flag", n.data, [int((i + j + k) % 2 == 0) for i, j, k in S])
    n = t.layout("id.nrrd", "long long int" if t.long_int else "int", grid, sp)
    t.equal("id", n.data, [i + 10 * j + 100 * k for i, j, k in S])
    check_dynseq(t, "ys", ys, grid, sp, "long long int" if t.long_int else "int", [], None)
    check_dynseq(t, "ps", ps, grid, sp, real, [2], "2-vector")


def check_dynseq(t, name, seqs, dom, dom_kinds, type, comp, kind):
    """NAME-len.nrrd holds (offset, length) per strand; NAME-data.nrrd the
    concatenated elements, or is absent when there are none."""
    lens = [len(s) for s in seqs]
    offs = [sum(lens[:a]) for a in range(len(lens))]
    n = t.layout(name + "-len.nrrd", "int", [2] + dom, ["2-vector"] + dom_kinds)
    t.equal(name + "-len", n.data, [[o, l] for o, l in zip(offs, lens)])
    total = sum(lens)
    flat = [x for s in seqs for x in s]
    if total == 0:
        if t.files().count(name + "-data.nrrd"):
            t.fail("%s-data.nrrd written although every sequence is empty" % name)
        return
    n = t.layout(name + "-data.nrrd", type, comp + [total], ([kind] if kind else []) + ["list"])
    if type in ("float", "double"):
        t.close(name + "-data", n.data, flat)
    else:
        t.equal(name + "-data", n.data, flat)
