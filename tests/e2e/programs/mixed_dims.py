"""mixed_dims: 1-D, 2-D and 3-D quadratic fields (ctmr, exact for degree 2)
in one program, probed together in single expressions (state positions and
constant positions), and their derivatives combined into one vector.
Oracle: exact polynomial values and derivatives."""

from fractions import Fraction as Q

from e2elib import check_grid
from polyfield import Grid, at, grad, variables

VARIANTS = ["float", "double"]
N = 3
(u,) = variables(1)
x, y = variables(2)
X, Y, Z = variables(3)
P1 = Q(1, 3) + u / 2 - u * u / 4
P2 = Q(-1, 2) + x + y * y / 3 - x * y / 2
P3 = Q(1, 4) + X / 3 - Y / 2 + Z * Z / 5 + X * Y / 4
G1 = Grid([11], [[Q(1, 2)]], [Q(-5, 2)])
G2 = Grid.centered([8, 9], [Q(1, 2), Q(3, 5)])
G3 = Grid.centered([8, 8, 9], [Q(1, 2), Q(3, 5), Q(1, 2)])


def run(t):
    G1.write(t.path("f1.nrrd"), P1, t.real)
    G2.write(t.path("f2.nrrd"), P2, t.real)
    G3.write(t.path("f3.nrrd"), P3, t.real)
    pts = [([Q(i, 4) - Q(1, 2)], [Q(i, 4), Q(-1, 2)], [Q(1, 2), Q(i, 4) - Q(1, 4), Q(1, 8)])
           for i in range(N)]
    for p1, p2, p3 in pts:
        assert G1.inside(p1, 2) and G2.inside(p2, 2) and G3.inside(p3, 2)
    c = P2([Q(1, 2), Q(1, 4)]) * P3([Q(1, 4), Q(1, 2), Q(-1, 4)]) * P1([Q(3, 4)])
    exp_sum = [P1(p1) + P2(p2) + P3(p3) for p1, p2, p3 in pts]
    exp_grads = [[at(grad(P1), p1)[0], at(grad(P2), p2)[1], at(grad(P3), p3)[2]]
                 for p1, p2, p3 in pts]
    t.compile()
    t.exec(["-n", N])
    check_grid(t, "sum", [N], [], exp_sum)
    check_grid(t, "prod", [N], [], [c] * N)
    check_grid(t, "grads", [N], [3], exp_grads)
