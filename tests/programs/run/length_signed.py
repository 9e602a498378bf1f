"""Oracle of length_signed.diderot: with n = 4 and i = 0..3, C's int
division and remainder truncate toward zero: (i - 4) / 2 and (i - 4) % -3
(the sign of the dividend); d = 4 + |i - 4|."""

N = 4


def trunc_div(x, y):
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def c_rem(x, y):
    return x - trunc_div(x, y) * y


CASES = [
    ([], {"a.nrrd": ([1] * N, [N]),
          "b.nrrd": ([trunc_div(i - 4, 2) for i in range(N)], [N]),
          "c.nrrd": ([c_rem(i - 4, -3) for i in range(N)], [N]),
          "d.nrrd": ([4 + abs(i - 4) for i in range(N)], [N])}),
]
