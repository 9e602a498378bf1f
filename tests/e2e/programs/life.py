"""life: the game of life with sphere() neighbours and BSP visibility.
Oracle: a plain Python simulation of the same board (same initial formula,
dead cells beyond the edges). Output: an int grid, axes i (fastest) and j."""

VARIANTS = ["float"]
W, H, GENS = 12, 10, 6


def simulate():
    board = [[1 if (i * 7 + j * 13 + i * j) % 5 < 2 else 0 for i in range(W)] for j in range(H)]
    for _ in range(GENS):
        nxt = []
        for j in range(H):
            row = []
            for i in range(W):
                n = sum(board[jj][ii] for jj in range(j - 1, j + 2) for ii in range(i - 1, i + 2)
                        if (ii, jj) != (i, j) and 0 <= ii < W and 0 <= jj < H)
                row.append(1 if (n == 3 or (board[j][i] and n == 2)) else 0)
            nxt.append(row)
        board = nxt
    return [board[j][i] for j in range(H) for i in range(W)]


def run(t):
    exp = simulate()
    assert 0 < sum(exp) < len(exp)
    t.compile()
    t.exec(["-w", W, "-h", H, "-gens", GENS])
    out = t.layout("alive.nrrd", "int", [W, H], ["space", "space"])
    t.equal("alive", out.data, exp)
