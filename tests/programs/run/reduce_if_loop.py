"""Oracle of reduce_if_loop.diderot (the original's defect D15): g =
-(0*6 + 1*6) = -6, so strand i sets o = 1 exactly when the product 2i * 3i
= 6 i^2 exceeds 7 + g = 1, i.e. for i >= 1; n counts the loop's three
iterations."""

CASES = [([], {"o.nrrd": ([0.0, 1.0, 1.0, 1.0], [4]), "n.nrrd": ([3, 3, 3, 3], [4])})]
