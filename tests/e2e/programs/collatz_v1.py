"""collatz_v1: Collatz lengths for 1..n in the 1.0 dialect, with the output
file named by -o. Oracle: a Python loop. The step limit -l is also checked:
a grid writes every strand, unfinished ones as they are (§6.4)."""

VARIANTS = ["float"]
N = 100
LIMIT = 20


def collatz(k, limit=None):
    steps = 0
    while k != 1 and (limit is None or steps < limit):
        k = k // 2 if k % 2 == 0 else 3 * k + 1
        steps += 1
    return steps


def run(t):
    exp = [collatz(k) for k in range(1, N + 1)]
    # with -l LIMIT, strands that have not reached 1 stop after LIMIT updates
    exp_lim = [collatz(k, LIMIT) for k in range(1, N + 1)]
    assert max(exp) > LIMIT
    t.compile()
    t.exec(["-n", N, "-o", "lengths.nrrd"])
    out = t.layout("lengths.nrrd", "int", [N], ["space"])
    t.equal("steps", out.data, exp)
    t.exec(["-n", N, "-o", "limited.nrrd", "-l", LIMIT])
    out = t.layout("limited.nrrd", "int", [N], ["space"])
    t.equal("steps with -l %d" % LIMIT, out.data, exp_lim)
