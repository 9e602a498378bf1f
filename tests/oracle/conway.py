"""conway.py -- Conway's Game of Life on an unbounded board, for the oracles
of programs that play it (tests/programs/run/life_sphere.py,
tests/e2e/programs/life_unbounded.py): cells are (x, y) pairs; a live cell
with 2 or 3 live neighbours lives, a dead one with 3 is born."""


def life_steps(cells, gens):
    """The set of live cells after gens generations from cells."""
    cells = set(cells)
    for _ in range(gens):
        count = {}
        for (x, y) in cells:
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    if dx or dy:
                        count[(x + dx, y + dy)] = count.get((x + dx, y + dy), 0) + 1
        cells = {c for c, n in count.items() if n == 3 or (n == 2 and c in cells)}
    return cells
