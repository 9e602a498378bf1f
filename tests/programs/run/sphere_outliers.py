"""Oracle of sphere_outliers.diderot: brute force over all pairs, with
every operation rounded to float32 as the program's reals are (a product
or sum of two floats computed in double and rounded once is the float
operation's result). The counts are those of the third update, whose
queries are centred at the positions after two moves; the output
positions have moved three times."""
import math
import struct


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def positions(N):
    pts = []
    for i in range(N):
        scale = 1.0 if i % 97 != 5 else 1000.0
        p = []
        for k in (1, 2, 3):
            h = f32(f32(float((i * 7919 + k * 104729) % 10007)) / f32(10007.0))
            p.append(f32(h * scale))
        if i % 211 == 7:
            p[0] = math.nan
        pts.append(p)
    return pts


def move(p):
    return [f32(p[0] + f32(0.01)), p[1], f32(p[2] + f32(-0.005))]


def expected(N, r):
    pts = positions(N)
    for _ in range(2):
        pts = [move(p) for p in pts]
    r = f32(r)
    rr = f32(r * r)
    cnt = []
    for i, c in enumerate(pts):
        n = 0
        for j, q in enumerate(pts):
            if j == i or any(math.isnan(x) for x in q):
                continue
            s = 0.0
            for k in range(3):
                t = f32(q[k] - c[k])
                s = f32(s + f32(t * t))
            n += s < rr
        cnt.append(n)
    final = [move(p) for p in pts]

    def check_pos(got):
        data = list(got.data)
        if list(got.sizes) != [3, N]:
            return ["sizes %s, expected [3, %d]" % (list(got.sizes), N)]
        for i, p in enumerate(final):
            for k in range(3):
                g, w = data[3 * i + k], p[k]
                if not (g == w or (math.isnan(g) and math.isnan(w))):
                    return ["pos[%d][%d] = %r, expected %r" % (i, k, g, w)]
        return []
    return {"cnt.nrrd": (cnt, [N]), "pos.nrrd": check_pos}


CASES = [(["-N", "400"], expected(400, 0.08)), (["-N", "300", "-r", "0.3"], expected(300, 0.3))]
