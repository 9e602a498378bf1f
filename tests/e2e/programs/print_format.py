"""print_format: the text that `print` writes (doc/language.md §7.2), compared
character by character with an oracle that formats the values by the spec's
rules: bool as true/false; int in decimal; real as C's %.9g of the float
value (%.17g with --double: Python's % operator is C's printf); tensors as
[a,b] nested row-major; sequences as {a,b}; strings verbatim. Checked on
stdout, then with -print FILE (the same text in FILE and nothing on
stdout), and -print into a directory that does not exist (a clear error,
exit non-zero, no output file). The grid's strands print in storage order
in the sequential target."""

import os
import struct

VARIANTS = ["float", "double+long"]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def expected(r, k, double):
    """The program's output for inputs r and k."""
    rr = (lambda x: x) if double else f32
    fmt = "%.17g" if double else "%.9g"

    def R(x):
        return fmt % rr(x)

    def ten(v):
        return "[" + ",".join(ten(x) if isinstance(x, list) else R(x) for x in v) + "]"

    r = rr(r)
    lines = [
        "b=true false",
        "i=%d %d %d" % (k, 2147483647, -k * 3),
        # real(k)/3.0: one correctly rounded division in the real type
        "r=%s %s %s %s %s %s" % (R(r), R(1.0), R(rr(float(k)) / 3.0), R(-2.5e-7), R(1.0e20), R(0.0)),
        "v=" + ten([r, 2.0, -0.5]),
        "m=" + ten([[1.0, 2.0], [3.0, r]]),
        "s={1,2,3} {%s,%s} {%s,%s} {true,false}" % (R(r), R(1.5), ten([1.0, 2.0]), ten([3.0, 4.0])),
        "t=tab\there",
    ] + ["strand %d" % i for i in range(3)]
    return "\n".join(lines) + "\n"


def same_text(t, label, got, exp):
    if t.perturb:
        exp = exp.replace("=", "= ", 1)
    if got == exp:
        return
    gl, el = got.splitlines(), exp.splitlines()
    for i in range(max(len(gl), len(el))):
        g = gl[i] if i < len(gl) else "<end>"
        e = el[i] if i < len(el) else "<end>"
        if g != e:
            t.fail("%s: line %d is %r, expected %r" % (label, i + 1, g, e))
            return
    t.fail("%s: the text differs in line endings: %r, expected %r" % (label, got, exp))


def run(t):
    defaults = expected(0.1, -7, t.double)
    other = expected(0.3, 5, t.double)
    t.compile()
    p = t.exec([])
    same_text(t, "stdout", p.out, defaults)
    p = t.exec(["-r", "0.3", "-k", "5", "-print", "printed.txt"])
    same_text(t, "stdout with -print", p.out, "")
    try:
        with open(t.path("printed.txt")) as f:
            same_text(t, "printed.txt", f.read(), other)
    except OSError as e:
        t.fail("-print printed.txt: %s" % e)
    t.exec(["-print", "-"], expect_rc=0)
    for f in t.files():
        if f.endswith(".nrrd"):
            os.remove(t.path(f))
    before = t.files()
    p = t.exec(["-print", "no-such-dir/out.txt"], expect_rc="nonzero")
    if "no-such-dir/out.txt" not in p.err:
        t.fail("-print into a missing directory: the message does not name the file: %r"
               % p.err.strip()[:200])
    if t.files() != before:
        t.fail("-print into a missing directory: files appeared: %s"
               % sorted(set(t.files()) - set(before)))
