"""Oracle of dynseq_strand_build.diderot, by hand from the definitions:
strands 0 .. N-1, then (created by strands 0 and 1 in their first update,
which is also their last) 10 and 11, in that order (creation order)."""


def expected(N, which="a"):
    ids = list(range(N)) + [10, 11]
    tags_first = 100 if which == "a" else 0
    return {
        "lit.nrrd": ([3.0 + i for i in ids], [len(ids)]),
        "comp.nrrd": ([float(sum(j * j for j in range(i + 1))) for i in ids], [len(ids)]),
        "cnt.nrrd": ([(i + 3) + i for i in ids], [len(ids)]),
        "glob.nrrd": ([float(i) + 3.0 for i in ids], [len(ids)]),
        "strs.nrrd": ([4 + tags_first for i in ids], [len(ids)]),
        "fn.nrrd": ([2.0 * i for i in ids], [len(ids)]),
        "init.nrrd": ([float(i) for i in ids], [len(ids)]),
        "stab.nrrd": ([float(i + 1) for i in ids], [len(ids)]),
        "v.nrrd": ([x for i in ids for x in (float(i), float(i))], [2, len(ids)]),
        "<stdout>": lambda out: [] if out == "seq {0,1,4} {2,0,1,2,2}\n" else ["printed %r" % out],
    }


CASES = [
    ([], expected(6)),
    (["-N", "40", "-which", "z"], expected(40, "z")),
]
