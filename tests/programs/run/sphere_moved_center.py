"""Oracle of sphere_moved_center.diderot, in exact integers (1/32 units): a
BSP simulation where each strand's first query is centred on its
start-of-step pos, the second on its pos after this step's move, and both
see the others at their start-of-step positions (§6.3 and the original
compiler's centring). Outputs in creation order."""


def mix(h, k):
    return ((h % 44488) * 48271 + k) % 2147483647


def expected(N=400, R=16):
    pos = [(mix(i + 1, 3) % 256, mix(i + 5, 9) % 256) for i in range(N)]
    before, after, ids = [0] * N, [0] * N, [0] * N

    def near(c, me, snap):
        return [j for j in range(N) if j != me and
                (snap[j][0] - c[0]) ** 2 + (snap[j][1] - c[1]) ** 2 < R * R]

    for steps in range(2):  # the third update stabilizes at once
        snap = list(pos)
        for i in range(N):
            before[i] += len(near(pos[i], i, snap))
            pos[i] = (pos[i][0] + mix(i + 11 * steps, 2) % 33 - 16,
                      pos[i][1] + mix(i + 7 * steps, 5) % 33 - 16)
            nb = near(pos[i], i, snap)
            after[i] += len(nb)
            ids[i] += sum(nb)
    flat = [c / 32.0 for p in pos for c in p]
    return {"pos.nrrd": (flat, [2, N]), "id.nrrd": (list(range(N)), [N]),
            "before.nrrd": (before, [N]), "after.nrrd": (after, [N]), "ids.nrrd": (ids, [N])}


CASES = [([], expected()), (["-N", "150", "-r", "0.75"], expected(150, 24))]
ALSO = [(["--no-space-partition"], []), (["--target=omp"], ["-n", "2"])]
