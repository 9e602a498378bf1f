"""life_unbounded: the Game of Life on an unbounded board, one strand per
live cell placed by a state variable declared 'position' (doc/language.md
§9.3, an extension), births by new and deaths by die; patterns that grow
(the Gosper glider gun: a glider every 30 generations) and travel (gliders
leave the initial window and never meet an edge). Runs this 1.0 program
and the 2.0 example examples/life/life.diderot (its pattern an image the
test writes). Oracle: the Life rules on a Python set of cells (no board);
the collection's output is compared as a set (no duplicates)."""
import os

import nrrd
from conway import life_steps  # tests/oracle
from e2elib import HERE

VARIANTS = ["float", "double"]

# Gosper's glider gun, 36 cells in a 36 x 9 box (x right, y down as usually drawn)
GUN = [(24, 0), (22, 1), (24, 1), (12, 2), (13, 2), (20, 2), (21, 2), (34, 2), (35, 2),
       (11, 3), (15, 3), (20, 3), (21, 3), (34, 3), (35, 3), (0, 4), (1, 4), (10, 4),
       (16, 4), (20, 4), (21, 4), (0, 5), (1, 5), (10, 5), (14, 5), (16, 5), (17, 5),
       (22, 5), (24, 5), (10, 6), (16, 6), (24, 6), (11, 7), (15, 7), (12, 8), (13, 8)]
# four gliders flying apart (each towards its corner) around the origin
GLIDER = [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)]   # moves +x +y
FLEET = [(sx * x + 8 * sx, sy * y + 8 * sy) for sx in (1, -1) for sy in (1, -1) for x, y in GLIDER]


def life(cells, gens):
    return life_steps(cells, gens)


def cmod(a, b):
    """Diderot's int %, C's: the remainder takes the sign of a."""
    return a - b * int(a / b)


def v1_initial(NN, seed):
    lo = -(NN // 2)   # Diderot's -NN/2 truncates toward zero
    return {(i, j) for j in range(lo, lo + NN) for i in range(lo, lo + NN)
            if cmod(i * 7 + j * 13 + i * j * seed, 5) < 2}


def check(t, label, out, exp):
    if out.type not in ("float", "double") or out.sizes[:1] != [2]:
        t.fail("%s: type %s sizes %s, expected a list of vec2" % (label, out.type, out.sizes))
        return
    d = out.data
    got = [(d[2 * k], d[2 * k + 1]) for k in range(len(d) // 2)]
    if len(set(got)) != len(got):
        t.fail("%s: a cell is listed twice" % label)
    # perturbation (e2elib's --perturb) is applied by equal() to exp
    t.equal(label + " cells", sorted(x for c in got for x in c),
            sorted(x for c in exp for x in c))
    t.equal(label + " count", [len(got)], [len(exp)])


def pattern_image(cells, pad):
    xs, ys = [c[0] for c in cells], [c[1] for c in cells]
    x0, y0 = min(xs) - pad, min(ys) - pad
    sx, sy = max(xs) - x0 + 1 + pad, max(ys) - y0 + 1 + pad
    data = [0.0] * (sx * sy)
    for (x, y) in cells:
        data[(y - y0) * sx + (x - x0)] = 1.0
    return nrrd.Nrrd("float", [sx, sy], data, kinds=["space", "space"], space_dim=2,
                     space_directions=[(1.0, 0.0), (0.0, 1.0)],
                     space_origin=(float(x0), float(y0)))


def run(t):
    t.compile()
    for NN, gens, seed in ((12, 40, 3), (9, 120, 1), (16, 0, 2)):
        exp = life(v1_initial(NN, seed), gens)
        t.exec(["-NN", NN, "-gens", gens, "-seed", seed])
        check(t, "1.0 NN=%d gens=%d seed=%d" % (NN, gens, seed), t.read("at.nrrd"), exp)
    example = os.path.join(os.path.dirname(os.path.dirname(HERE)),
                           "examples", "life", "life.diderot")
    t.compile(source=example, stem="prog-example")  # prog*: not an output (run_e2e.output_files)
    for name, cells, gens in (("gun", GUN, 100), ("fleet", FLEET, 160)):
        nrrd.write(t.path(name + ".nrrd"), pattern_image(cells, 2))
        exp = life(cells, gens)
        t.exec(["-init", name + ".nrrd", "-gens", gens], exe=t.path("prog-example"))
        far = max(max(abs(x), abs(y)) for x, y in exp)
        if name == "fleet" and far < 40:
            t.fail("fleet: the gliders should have travelled beyond 40 (got %g)" % far)
        check(t, "example %s gens=%d" % (name, gens), t.read("cell.nrrd"), exp)
