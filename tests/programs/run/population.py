"""Oracle of population.diderot, derived from the rules by hand:
a strand created in step t (initial strands: t = 0) runs its first update in
step t+1 and its second (stabilize or die) in step t+2; the global update
of step t+1 has already set steps = t+1 when the strand's update of step
t+2 reads it, so born = t + 1. Children of a generation-g strand (created
in step t+1) are generation g+1; even ids survive."""


def expected(G):
    out, born = [], []
    gen = [(1, 0, 0), (2, 0, 0)]  # (id, g, creation step)
    while gen:
        nxt = []
        for (i, g, t) in gen:
            if i % 2 == 0:
                out.append(i)
                born.append(t + 1)
            if g < G:
                nxt += [(2 * i, g + 1, t + 1), (2 * i + 1, g + 1, t + 1)]
        gen = nxt
    return {"out.nrrd": (out, None, "sorted"), "born.nrrd": (born, None, "sorted")}


CASES = [([], expected(3)), (["-G", "5"], expected(5))]
