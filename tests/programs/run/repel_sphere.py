"""Checker of repel_sphere.diderot: the N output points lie on the unit
sphere and their spacing is nearly uniform. The spacing of point i is the
distance s_i to its nearest neighbour (brute force over all pairs).

Bounds:
 * no N points on the unit sphere can all be farther apart than the
   Fejes Toth bound d_FT = sqrt(4 - csc^2(pi N / (6 (N - 2)))) (the
   chord of the optimal packing's bound), so min s_i <= d_FT must hold;
   we require min s_i >= 0.8 d_FT: within 20% of the best possible packing
   (for N uniformly random points min s_i is about 0.1 d_FT at N = 200);
 * the spacing variance: the coefficient of variation of s_i must be at
   most 0.05, a tenth of its value for random points (for a Poisson
   process the nearest-neighbour distance is Rayleigh distributed, with
   CV = sqrt(4/pi - 1) = 0.523)."""
import math


def check(N):
    dft = math.sqrt(4 - 1 / math.sin(math.pi * N / (6 * (N - 2))) ** 2)

    def run(got):
        if list(got.sizes) != [3, N]:
            return ["sizes %s, expected [3, %d]" % (got.sizes, N)]
        P = [got.data[3 * k:3 * k + 3] for k in range(N)]
        bad = ["point %d off the sphere" % k for k in range(N)
               if abs(math.sqrt(sum(x * x for x in P[k])) - 1) > 1e-5][:3]
        s = [min(math.dist(P[i], P[j]) for j in range(N) if j != i) for i in range(N)]
        mean = sum(s) / N
        cv = math.sqrt(sum((x - mean) ** 2 for x in s) / N) / mean
        if min(s) > dft * (1 + 1e-5):
            bad.append("min spacing %.4g above the Fejes Toth bound %.4g" % (min(s), dft))
        if min(s) < 0.8 * dft:
            bad.append("min spacing %.4g < 0.8 d_FT = %.4g" % (min(s), 0.8 * dft))
        if cv > 0.05:
            bad.append("spacing CV %.4g > 0.05" % cv)
        return bad
    return run


CASES = [
    ([], {"pos.nrrd": check(200)}),
    (["-N", "400", "-eta", "0.000177"], {"pos.nrrd": check(400)}),
]
ALSO = [(["--target=omp"], ["-n", "3"]), (["--no-loop-lanes"], [])]  # its loop scalar (emit_c_loops.c)
