"""Oracle of tensor_index.diderot: a[i] with an int expression i is the
component that a constant i selects (doc/language.md §5.6), computed here
by Python's list indexing over the program's literals. Every value is a
sum of a few dyadic rationals, exact in float32."""

V = [1.5, -2.25, 4.0]
M = [[0.0, 1.0, 2.0], [10.0, 11.0, 12.0], [20.0, 21.0, 22.0]]
T3 = [[[0.5, 1.5], [10.5, 11.5], [20.5, 21.5]],
      [[100.5, 101.5], [110.5, 111.5], [120.5, 121.5]]]
N = 9


def expected(k):
    g = V[k % 3] * 2.0
    a, row, col, e, s3, f, acc = [], [], [], [], [], [], []
    for i in range(N):
        a.append(V[(i + k) % 3])
        row += M[(i + 2 * k) % 3]
        col += [M[r][i % 3] for r in range(3)]
        e.append(M[i % 3][(i // 3 + k) % 3] + g)
        s3 += [T3[i % 2][b][(i + k) % 2] for b in range(3)]
        j = (i * 2) % 3
        f.append(V[j] + V[(j + 1) % 3])
        s = sum(M[j][(j + i) % 3] * V[2 - j] for j in range(3))
        s += sum(T3[(i + q) % 2][q][i % 2] for q in range(3))
        acc.append(s)
    return {"a.nrrd": (a, [N]), "row.nrrd": (row, [3, N]), "col.nrrd": (col, [3, N]),
            "e.nrrd": (e, [N]), "s3.nrrd": (s3, [3, N]), "f.nrrd": (f, [N]),
            "acc.nrrd": (acc, [N])}


CASES = [([], expected(1)), (["-k", 0], expected(0)), (["-k", 5], expected(5))]
