"""Oracle of output_parts.diderot: strand i dies in its first update when
i % 5 == 0; the others stabilize in update i % 3 + 1, adding that count to
v[0]. Outputs list the stable strands in creation order (language.md §13)."""


def expected(N):
    live = [i for i in range(N) if i % 5 != 0]
    v = [c for i in live for c in (float(i + i % 3 + 1), 0.5 * i, -float(i))]
    # a tensor[2,2] is one axis of 4 (kind 2D-matrix), row-major
    m = [c for i in live for c in (float(i), 1.0, 2.0, float(i % 7))]
    return {"v.nrrd": (v, [3, len(live)]), "k.nrrd": (live, [len(live)]),
            "m.nrrd": (m, [4, len(live)])}


# 9,600 stable strands: v is 115,200 bytes and m 153,600 (three parts)
CASES = [([], expected(12000)), (["-N", "7"], expected(7)), (["-N", "2"], expected(2))]
ALSO = [(["--target=omp"], ["-n", "2"])]
