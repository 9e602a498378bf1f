"""Oracle of negated_global.diderot (the original's defect D18): g = -8 and
h = -6, so strand i has o = i - 8 and p = -(i - 6) = 6 - i."""

CASES = [([], {"o.nrrd": ([i - 8 for i in range(4)], [4]),
               "p.nrrd": ([6 - i for i in range(4)], [4])})]
