"""Oracle of length_compare.diderot (the original's D6): 4 <= -11 + i holds
for i >= 15 only, so o = 2 and r = 4.640625 for i < 15, o = 1 and r = 27.5
for i = 15 (int comparison, doc/language.md §5.3)."""

CASES = [([], {"o.nrrd": ([2] * 15 + [1], [16]),
               "r.nrrd": ([4.640625] * 15 + [27.5], [16])})]
