"""Oracle of reductions_every_op.diderot: six strands, k = 1..6,
x = i/2 - 5/4 = -1.25 .. 1.25 (exact binary fractions), even = i even; the
global block after step 1 reduces over S.all (S.active the same), and over
S.stable, which is empty then.  Values from the definitions
(language.md §10.4): the empty min of ints is the largest int (32-bit), the
empty product 1, the empty sum 0, the empty exists false."""
from fractions import Fraction

N = 6
ks = [i + 1 for i in range(N)]
xs = [Fraction(i, 2) - Fraction(5, 4) for i in range(N)]
prod_k = 1
for k in ks:
    prod_k *= k
prod_x = Fraction(1)
for x in xs:
    prod_x *= x
ints = [sum(ks), prod_k, min(ks), max(ks), 2**31 - 1, 0]
reals = [float(sum(xs)), float(prod_x), float(min(xs)), float(max(xs)),
         float(sum(x + 1 for x in xs) / N), 1.0]
bools = [0, 1, 1, 0]   # all even, exists even, all k > 0, exists over none

CASES = [
    ([], {"ir.nrrd": (ints * N, [6, N]),
          "rr.nrrd": (reals * N, [6, N]),
          "br.nrrd": (bools * N, [4, N])}),
]
