"""Oracle of utf8_string.diderot: a string literal's characters beyond
ASCII are printed as their UTF-8 bytes (doc/language.md §2). The expected
text is built here from code points (chr) and encoded by Python's UTF-8
codec, independently of the compiler's lexer."""

CAFE = "caf" + chr(0xE9)
MU = chr(0xB5) + "m"
LINE0 = (CAFE + " %d " + MU + " " + chr(0x2248) + " " + chr(0x3C0) + chr(0xB7) + "r" + chr(0xB2)
         + " " + chr(0x1F600) + "\t\"q\"\n")
MARK = {0: chr(0x2713), 1: chr(0x2717)}


def text(n):
    # the strand of index 0 prints its first line before the strands' own lines
    out = LINE0 % n + "".join("%d %s\n" % (i, MARK[i % 2]) for i in range(n))
    return out.encode("utf-8")


def check(n):
    want = text(n)

    def chk(got):
        got_b = got.encode("utf-8", "surrogateescape") if isinstance(got, str) else got
        return [] if got_b == want else ["printed %r, expected %r" % (got_b, want)]
    return chk


CASES = [([], {"<stdout>": check(2), "k.nrrd": ([0, 1], [2])}),
         (["-n", 3], {"<stdout>": check(3), "k.nrrd": ([0, 1, 2], [3])})]
