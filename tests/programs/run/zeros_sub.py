"""Oracle of zeros_sub.diderot (the original's defect D19): strand i has
v = (-0.75, -(0.25 + i)), w = (0.75, 0.25 + i) and o = -M[1][1] = -0.25."""

CASES = [([], {"v.nrrd": ([-0.75, -0.25, -0.75, -1.25], [2, 2]),
               "w.nrrd": ([0.75, 0.25, 0.75, 1.25], [2, 2]),
               "o.nrrd": ([-0.25, -0.25], [2])})]
