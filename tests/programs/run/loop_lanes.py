"""Oracle of loop_lanes.diderot. Positions are quarters of integers, so
the neighbour sets are decided exactly with integers: q is in sphere(r)
of p when 25 (dX^2 + dY^2) < (12 + 5k)^2 (|x| < r, r = (12 + 5k)/20 with
k = i mod 9, dX, dY in quarters) and counts for n and w when
100 (dX^2 + dY^2) < (12 + 5k)^2; no case is within 1e-3 of a tie, far
beyond float rounding. Strands 7 and 8 share a position: both die.

The program sums in float, in result order. The values here are exact
(Python doubles for each term, summed with math.fsum), and each output
is checked against the classical bound for a recursive float sum of
m terms, each computed with a relative error below c u (u = 2^-24):
|computed - exact| <= ((m + c) u + 1e-12) sum |term| (Higham, Accuracy
and Stability, 4.2); c = 4 covers 1/(1 + d) (sqrt, add, divide) and
sqrt(d) (two square roots), c = 3 each component of x / d. Strand 3
prints a line for each neighbour nearer than 1 (dX^2 + dY^2 < 16), in
result order, with its count n so far."""
import math

U = 2.0 ** -24


def place(i):
    return ((i * 37) % 41, (i * 11) % 23)


def expected(N=600):
    pos = [place(8 if i == 7 else i) for i in range(N)]
    rows, printed = [], []
    for i in range(N):
        if i in (7, 8):
            continue
        k = i % 9
        lim = (12 + 5 * k) ** 2
        s, w, fx, fy, n, c = [], [], [], [], 0, 100.0
        for j in range(N):
            if j == i:
                continue
            dx, dy = pos[j][0] - pos[i][0], pos[j][1] - pos[i][1]
            q = dx * dx + dy * dy
            if 25 * q >= lim:
                continue
            assert q > 0
            d = math.sqrt(q) / 4
            s.append(1 / (1 + d))
            if 100 * q < lim:
                n += 1
                w.append(math.sqrt(d))
            c = min(c, d)
            fx.append(dx / 4 / d)
            fy.append(dy / 4 / d)
            if i == 3 and q < 16:
                printed.append("3 near %d\n" % n)
        rows.append((i, n, s, w, c, fx, fy))
    return rows, "".join(printed)


def near(name, got, terms, c):
    exact = math.fsum(terms)
    bound = ((len(terms) + c) * U + 1e-12) * math.fsum(abs(t) for t in terms)
    return [] if abs(got - exact) <= bound else \
        ["%s: got %r, exact %r (bound %.3g)" % (name, got, exact, bound)]


def checks(rows_printed):
    rows, printed = rows_printed
    def check_sums(which, c):
        def check(got):
            if len(got.data) != len(rows):
                return ["%s: %d values for %d strands" % (which, len(got.data), len(rows))]
            bad = []
            for v, (i, n, s, w, cl, fx, fy) in zip(got.data, rows):
                bad += near("%s of strand %d" % (which, i), v, {"s": s, "w": w}[which], c)
            return bad[:5]
        return check

    def check_f(got):
        if len(got.data) != 2 * len(rows):
            return ["f: %d values for %d strands" % (len(got.data), len(rows))]
        bad = []
        for k, (i, n, s, w, cl, fx, fy) in enumerate(rows):
            bad += near("f[0] of strand %d" % i, got.data[2 * k], fx, 3)
            bad += near("f[1] of strand %d" % i, got.data[2 * k + 1], fy, 3)
        return bad[:5]

    def check_c(got):
        # a min: the float distance nearest the exact one (sqrt(q)/4 rounded)
        bad = []
        for v, (i, n, s, w, cl, fx, fy) in zip(got.data, rows):
            if abs(v - cl) > 2 * U * cl:
                bad.append("c of strand %d: got %r, exact %r" % (i, v, cl))
        return bad[:5] + ([] if len(got.data) == len(rows) else ["c: %d values" % len(got.data)])

    pos = [c / 4 for i, *_ in rows for c in place(8 if i == 7 else i)]
    def check_stdout(got):
        return [] if got == printed else ["printed %r, expected %r" % (got[:200], printed[:200])]

    return {"<stdout>": check_stdout,
            "pos.nrrd": (pos, [2, len(rows)]), "n.nrrd": ([r[1] for r in rows], [len(rows)]),
            "s.nrrd": check_sums("s", 4), "w.nrrd": check_sums("w", 4), "c.nrrd": check_c, "f.nrrd": check_f}


CASES = [([], checks(expected())), (["-N", "150"], checks(expected(150)))]
# every loop scalar: the same bytes (both builds without FP contraction)
ALSO = [(["--no-loop-lanes"], [])]
