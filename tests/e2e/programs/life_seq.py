"""life_seq: the game of life of life.py, with neighbours read from a
global sequence rebuilt by the global update from a strand-set
comprehension, and a global stabilize after `gens` steps. Oracle: the
Python simulation of life.py."""

from life import GENS, H, W, simulate

VARIANTS = ["float"]


def run(t):
    exp = simulate()
    t.compile()
    t.exec(["-w", W, "-h", H, "-gens", GENS])
    out = t.layout("alive.nrrd", "int", [W, H], ["space", "space"])
    t.equal("alive", out.data, exp)
