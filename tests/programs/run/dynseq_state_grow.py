"""Oracle of dynseq_state_grow.diderot, by hand from its rules. The
output lists the stable strands in creation order: 0 .. N-1 (but those
with i % 5 == 3 and i >= 1, which die in their second update; i = 3 needs
4 updates), then -1, -2, -3 (created by 0, 1, 2 in their first update).
A dynamic-sequence output is NAME-data.nrrd (the elements of every strand
in turn) and NAME-len.nrrd ((offset, length) per strand; doc/user-guide.md, outputs)."""


def seq_files(name, seqs, comps):
    data, lens, off = [], [], 0
    for s in seqs:
        for x in s:
            data += list(x) if comps > 1 else [x]
        lens += [off, len(s)]
        off += len(s)
    return {name + "-data.nrrd": (data, ([comps] if comps > 1 else []) + [off]),
            name + "-len.nrrd": (lens, [2, len(seqs)])}


def expected(N):
    alive = [i for i in range(N) if not (i % 5 == 3 and i + 1 >= 2)]
    kids = [-1 - i for i in range(min(N, 3))]
    sq = [[k * k for k in range(1, i + 2)] for i in alive] + [[-1, -2] for _ in kids]
    path = [[(float(i), float(k)) for k in range(1, i + 2)] for i in alive] + \
        [[(float(-1 - c), 1.0)] for c in kids]
    w = [[float(i), 0.5] for i in alive] + [[float(-1 - c), 0.5, 9.0] for c in kids]
    tagn = [10 + 1 + (i + 1) for i in alive] + [0 for _ in kids]
    out = {"tagn.nrrd": (tagn, [len(tagn)])}
    out.update(seq_files("sq", sq, 1))
    out.update(seq_files("path", path, 2))
    out.update(seq_files("w", w, 1))
    return out


CASES = [
    ([], expected(8)),
    (["-N", "300"], expected(300)),
]
