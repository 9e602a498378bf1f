"""bad_input: the executable given a missing file, files that are not NRRD,
a corrupt header, truncated data, the wrong dimension, shape (components)
or sample type (double samples for a float proxy: float does not hold them
exactly, §8.2), for an image with a proxy (-img) and one without (-vol); and a dynamic sequence of
2-vectors (-seq, §8.7) given a file of the wrong shape (3 components, a
1-D file, 3 axes), a missing, a non-NRRD or a truncated file. Each run must
exit non-zero without crashing, print a short message (no usage dump) that names the
input or the file, and leave no output file (not even a partial or
temporary one). A good run first shows that the same command line works
(and computes ctmr-exact values of linear images), also with an image of
other sizes than the proxy's (sizes are not fixed by the proxy)."""

from fractions import Fraction as Q

import nrrd
from polyfield import Grid, variables

VARIANTS = ["float"]
x, y = variables(2)
X, Y, Z = variables(3)
P2 = Q(1, 2) + x - y / 4
PV = Q(-1, 4) + x / 2 + y   # the image without a proxy (its sizes are free)
P3 = Q(-1, 4) + X / 2 + Y + Z / 8
G2 = Grid.centered([8, 9], [Q(1, 2), Q(1, 2)])
GV = Grid.centered([7, 6], [Q(1, 2), Q(1, 2)])
G3 = Grid.centered([6, 6, 7], [Q(1, 2), Q(1, 2), Q(1, 2)])


def good_files(t):
    G2.write(t.path("good.nrrd"), P2, "float")
    GV.write(t.path("vol.nrrd"), PV, "float")
    t.write_nrrd("seq.nrrd", nrrd.Nrrd("float", [2, 2], [1, 2, 3, 4]))


def bad_files(t):
    """name -> (which input it replaces, file name); files are created here."""
    raw = nrrd.dumps(G2.sample(P2, "float"))
    cases = {}

    def add(name, which, blob=None):
        f = "bad-%s.nrrd" % name
        if blob is not None:
            with open(t.path(f), "wb") as fh:
                fh.write(blob)
        cases[name] = (which, f)

    add("missing", "img")                                       # never created
    add("not-nrrd", "img", b"hello, world\n")
    add("bad-magic", "img", b"NRRD9999\n" + raw.split(b"\n", 1)[1])
    add("bad-type-field", "img", raw.replace(b"type: float", b"type: flaot"))
    add("truncated", "img", raw[:len(raw) - 40])
    add("empty", "img", b"")
    add("dim3", "img", nrrd.dumps(G3.sample(P3, "float")))
    add("vector", "img", nrrd.dumps(G2.sample([P2, P2], "float")))
    add("double", "img", nrrd.dumps(G2.sample(P2, "double")))
    add("vol-dim3", "vol", nrrd.dumps(G3.sample(P3, "float")))
    add("vol-vector", "vol", nrrd.dumps(GV.sample([PV, PV, PV], "float")))
    add("vol-missing", "vol")
    add("vol-truncated", "vol", nrrd.dumps(GV.sample(PV, "float"))[:-100])
    # a vec2[] sequence must be 2-D with axis 0 of size 2 (§8.7)
    add("seq-3comp", "seq", nrrd.dumps(nrrd.Nrrd("float", [3, 2], [1, 2, 3, 4, 5, 6])))
    add("seq-1d", "seq", nrrd.dumps(nrrd.Nrrd("float", [4], [1, 2, 3, 4])))
    add("seq-3d", "seq", nrrd.dumps(nrrd.Nrrd("float", [2, 2, 2], list(range(8)))))
    add("seq-missing", "seq")
    # (plain text of numbers is a valid NRRD to Teem, words are not)
    add("seq-not-nrrd", "seq", b"one two\nthree\n")
    add("seq-truncated", "seq", nrrd.dumps(nrrd.Nrrd("float", [2, 40], list(range(80))))[:-60])
    # what would overrun Teem 1.12's 1 KB message and sample buffers (a
    # crash, "stack smashing detected", in a bare nrrdLoad): a long line of
    # no field, a long bad field value, a long ascii sample, a long word
    # among ascii samples, a detached data file of a long name
    head = b"NRRD0004\ntype: float\ndimension: 2\nsizes: 2 2\n"
    add("long-line", "img", b"NRRD0004\n" + b"F" * 3000 + b"\n\n")
    add("long-field", "img", head + b"encoding: raw\nspace directions: (" + b"1," * 1000 + b")\n\n")
    add("long-sample", "img", head + b"encoding: ascii\n\n1 2 3 " + b"4" * 3000 + b"\n")
    add("long-word", "img", head + b"encoding: ascii\n\n1 2 " + b"y" * 1000 + b" 4\n")
    add("long-data-file", "img", head + b"encoding: raw\ndata file: " + b"q" * 600 + b".raw\n\n")
    # sizes beyond memory in a header that Teem's checks refuse (a 3-vector
    # axis of 3.3e17): Teem allocates them before it checks (fuzz_nrrd)
    add("huge-bad-kinds", "img", b"NRRD0004\ntype: float\ndimension: 3\nsizes: 333333333333333333 2 2\n"
        b"kinds: 3-vector space space\nendian: little\nencoding: raw\n\n" + b"\0" * 64)
    return cases


# What the message must say, by case (the checks of doc/language.md §6.1; the sizes are
# those of the files bad_files writes: an 8x9 float image is 288 bytes of
# data, and 40 bytes are cut; a 7x6 float image is 168 bytes, 100 cut; a
# 2x40 float sequence is 320 bytes, 60 cut).
USER_TERMS = {
    "missing": ["the file cannot be opened: No such file or directory"],
    "vol-missing": ["the file cannot be opened: No such file or directory"],
    "seq-missing": ["the file cannot be opened: No such file or directory"],
    "not-nrrd": ["the file is not a NRRD file (it starts with \"hello, world\""],
    "empty": ["the file is empty (0 bytes), not a NRRD file"],
    "double": ["the samples are double, but the program was compiled for float samples",
               "recompile"],
    "dim3": ["the image is 3-D, but the program declares a 2-D image"],
    "vector": ["nrrd has 2 components per sample", "expected 1"],
    "truncated": ["the file is truncated", "72 float samples (288 bytes of data)",
                  "only 248 bytes follow the header"],
    "vol-truncated": ["the file is truncated", "42 float samples (168 bytes of data)",
                      "only 68 bytes follow the header"],
    "seq-truncated": ["the file is truncated", "80 float samples (320 bytes of data)",
                      "only 260 bytes follow the header"],
    "long-line": ["header line 2 is 3000 bytes long", "more than 512 bytes"],
    "long-field": ["header line 6 is 2020 bytes long"],
    "long-sample": ["the data: ascii value 4 is more than 512 characters long"],
    "long-word": ["the data: ascii value 3 is more than 512 characters long"],
    "long-data-file": ["header line 6 is 615 bytes long"],
    "huge-bad-kinds": ["1.33e18 samples of 4 bytes need 5.33 EB; this process may use"],
}


def run(t):
    good_files(t)
    cases = bad_files(t)
    exp = [float(P2([0, 0]) + i * PV([Q(1, 4), Q(1, 2)])) for i in range(3)]
    t.compile()
    t.exec(["-img", "good.nrrd", "-vol", "vol.nrrd", "-seq", "seq.nrrd", "-o", "out.nrrd"])
    n = t.layout("out.nrrd", "float", [3], ["space"])
    t.close("v", n.data, exp)
    G2b = Grid.centered([9, 13], [Q(1, 4), Q(1, 2)])
    G2b.write(t.path("other-size.nrrd"), P2, "float")
    t.exec(["-img", "other-size.nrrd", "-vol", "vol.nrrd", "-seq", "seq.nrrd", "-o", "out.nrrd"])
    t.close("v (other sizes)", t.layout("out.nrrd", "float", [3], ["space"]).data, exp)
    for name, (which, f) in cases.items():
        files = {"img": "good.nrrd", "vol": "vol.nrrd", "seq": "seq.nrrd"}
        files[which] = f
        before = t.files()
        p = t.exec(["-img", files["img"], "-vol", files["vol"], "-seq", files["seq"],
                    "-o", "bad-out.nrrd"],
                   expect_rc="nonzero")
        what = "%s (-%s %s)" % (name, which, f)
        after = t.files()
        if after != before:
            t.fail("%s: files appeared: %s" % (what, sorted(set(after) - set(before))))
        lines = [l for l in p.err.splitlines() if l.strip()]
        if not lines:
            t.fail("%s: no message on stderr" % what)
        elif f not in p.err and ("'%s'" % which) not in p.err and ("-" + which) not in p.err:
            t.fail("%s: the message names neither the input %s nor the file %s: %r"
                   % (what, which, f, p.err.strip()[:300]))
        # the reason in the user's terms (issue 13), not Teem's internals
        for part in USER_TERMS.get(name, []):
            if part not in p.err:
                t.fail("%s: the message lacks %r: %r" % (what, part, p.err.strip()[:300]))
        if "_nrrd" in p.err or "fread got only" in p.err:
            t.fail("%s: Teem's internal function chain leaks into the message: %r"
                   % (what, p.err.strip()[:300]))
        if len(lines) > 10 or "usage" in p.err.lower():
            t.fail("%s: %d lines of stderr, expected a short message: %r"
                   % (what, len(lines), p.err.strip()[:300]))
