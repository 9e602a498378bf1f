"""Oracle of sphere_stabilizing_neighbour.diderot (language.md: sphere()
reads state as of the start of the step).  Strand 0 (pos 0) stabilizes in
step 1 with v = 10; strand 1 (pos 1) runs steps 1-3 and ends with
v = 3*10 + 1; each sees the other (distance 1 < 1.5)."""

CASES = [
    ([], {"v.nrrd": ([10.0, 31.0], [2]),
          "s1.nrrd": ([0.0, 0.0], [2]),
          "s2.nrrd": ([-1.0, 10.0], [2]),
          "s3.nrrd": ([-1.0, 10.0], [2])}),
]
