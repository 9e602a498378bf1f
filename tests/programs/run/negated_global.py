"""Oracle of negated_global.diderot (the original's defect D18): g = -8,
h = -6 and k = -in1, so strand i has o = i - 8, p = -(i - 6) = 6 - i and
q = i + in1 (in1 = 5 by default, 3 with -in1 3)."""

CASES = [([], {"o.nrrd": ([i - 8 for i in range(4)], [4]),
               "p.nrrd": ([6 - i for i in range(4)], [4]),
               "q.nrrd": ([i + 5 for i in range(4)], [4])}),
         (["-in1", "3"], {"q.nrrd": ([i + 3 for i in range(4)], [4])})]
