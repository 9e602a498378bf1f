"""Oracle of strandwise.diderot, from the rules of doc/language.md §8.3:
strand n runs 1 + n % 7 updates (acc = n, then acc = acc/2 + k at update
k, exact in binary); at the last it dies when n % 5 == 0, else stabilizes
and its stabilize method sets last = 10 k + n. With a step limit, the
strands still active when it expires are killed (a collection) and not
written; the outputs list the stable strands in creation order."""


def expected(N, limit=None):
    acc, last = [], []
    for n in range(N):
        life = 1 + n % 7
        if limit is not None and life > limit:
            continue           # still active at the limit: killed
        if n % 5 == 0:
            continue           # died
        a = float(n)
        for k in range(1, life + 1):
            a = a / 2 + k
        acc.append(a)
        last.append(10 * life + n)
    return {"acc.nrrd": (acc, [len(acc)]), "last.nrrd": (last, [len(last)])}


CASES = [([], expected(40)), (["-N", "100", "-l", "3"], expected(100, 3))]
