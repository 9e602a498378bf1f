"""textcheck.py -- the check of a program's printed text for the run/
oracles: text_check(text) is a check for "<stdout>" (CASES), which says
nothing when the output equals text and else names the first line that
differs (or the line counts)."""


def text_check(text):
    def check(got):
        if got == text:
            return []
        g, w = got.splitlines(), text.splitlines()
        for n, (a, b) in enumerate(zip(g, w)):
            if a != b:
                return ["line %d: %r, expected %r" % (n + 1, a, b)]
        return ["%d lines, expected %d" % (len(g), len(w))]
    return check
