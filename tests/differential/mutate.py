"""mutate.py -- type-level differential testing (placeholder, filled below)."""


def test_mutant(n, g, pdir, ours, ref):
    return "skip", "", None, None
