"""Oracle of branchy_inlined.diderot: the same integer arithmetic in
Python, with C's remainder (the sign of the dividend; doc/language.md)."""


def cmod(a, b):
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def band(i):
    x = 7
    if i == 0:
        return 1
    for k in range(1, 31):  # else if (i < 4k) { x = x * (k % 7 + 2) + i % (k + 2); }
        if i < 4 * k:
            return x * (k % 7 + 2) + cmod(i, k + 2)
    return cmod(i * i, 97)


def p(i):
    return band(i) + band(i + 1)


def q(i):
    return p(i) + cmod(band(i + 3), 17)


def r(i):
    return q(i) * 2 - p(i + 5)


def s(i):
    return r(i) + cmod(q(i + 7), 101)


def strand(j):
    acc = sum(s(j + c) for c in range(16))
    cls = 0
    for k in range(1, 32):
        if cmod(acc + k, k + 5) == 0 or cmod(j * k, 97) == k % 13 or j == k + 60:
            cls = k
            break
    return acc, cls


def expected(N=100):
    rows = [strand(j) for j in range(N)]
    return {"acc.nrrd": ([a for a, _ in rows], [N]), "cls.nrrd": ([c for _, c in rows], [N])}


CASES = [
    ([], expected()),
    (["-N", "7"], expected(7)),
]
