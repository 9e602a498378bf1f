"""Oracle of position_travel.diderot: brute force over all pairs, with
every operation rounded to float32 as the program's reals are (a sum or
product of two floats computed in double and rounded once is the float
operation's result). Step k's queries see the start-of-step positions and
states; the outputs are those of the fourth step's update (at: after four
moves)."""
import struct


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


VEL = [(1.0e5, 0.0, 0.0), (0.0, -3.5e6, 250.0), (0.0, 0.0, 0.0), (-1.0e7, 4.0e6, 3.0e3)]


def within(q, c, rr):
    s = 0.0
    for k in range(3):
        t = f32(q[k] - c[k])
        s = f32(s + f32(t * t))
    return s < rr


def expected(N, r):
    at = []
    for i in range(N):
        at.append([f32(f32(float((i * 7919 + k * 104729) % 10007)) / f32(10007.0)) for k in (1, 2, 3)])
    vel = [[f32(v) for v in VEL[i % 4]] for i in range(N)]
    r = f32(r)
    rr = f32(r * r)
    cnt, ids, far, steps = [0] * N, [0] * N, [0] * N, [0] * N
    for _ in range(4):
        ncnt, nids, nfar = [], [], []
        for i in range(N):
            c = at[i]
            nb = [j for j in range(N) if j != i and within(at[j], c, rr)]
            ncnt.append(len(nb))
            nids.append(sum((steps[j] + 1) * (cnt[j] % 7) for j in nb))
            # at - vel + [0.5, 0.5, 0.5], in float32, radius 0.6
            p = [f32(f32(c[k] - vel[i][k]) + f32(0.5)) for k in range(3)]
            r6 = f32(0.6)
            nf = sum(1 for j in range(N) if j != i and within(at[j], p, f32(r6 * r6)))
            # pos: every strand's is [step·1e-6, 0, 0] (the same for all), but
            # sphere(pos, 1e-3) looks among the positions 'at', near the origin
            pos = [0.0, 0.0, 0.0]
            for _ in range(steps[i]):
                pos[0] = f32(pos[0] + f32(1.0e-6))
            r3 = f32(1.0e-3)
            nf += 100 * sum(1 for j in range(N) if j != i and within(at[j], pos, f32(r3 * r3)))
            nfar.append(nf)
        at = [[f32(at[i][k] + vel[i][k]) for k in range(3)] for i in range(N)]
        cnt, ids, far = ncnt, nids, nfar
        steps = [s + 1 for s in steps]
    flat = [x for p in at for x in p]
    return {"cnt.nrrd": (cnt, [N]), "ids.nrrd": (ids, [N]), "far.nrrd": (far, [N]),
            "at.nrrd": (flat, [3, N])}


CASES = [([], expected(400, 0.3)), (["-N", "150", "-r", "0.45"], expected(150, 0.45))]
