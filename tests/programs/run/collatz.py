"""Oracle of collatz.diderot."""


def stopping(n, limit=None):
    steps, x = 0, n
    # super-step t runs update once; x == 1 stabilizes before counting
    while x != 1 and (limit is None or steps < limit):
        x = x // 2 if x % 2 == 0 else 3 * x + 1
        steps += 1
    return steps


def expected(N, limit=None):
    return {"steps.nrrd": ([stopping(n, limit) for n in range(1, N + 1)], [N])}


CASES = [
    ([], expected(30)),
    (["-N", "100", "-l", "20"], expected(100, 20)),
]
