"""cli_inputs: the executable's command line (doc/language.md §12), parsed by
Teem's hest as the original's programs are. Every kind of input is given on
it: bool (hest's spellings), int, real, tensors as N words (a 9-word
tensor[3,3]), fixed sequences, a string with a space, image and
dynamic-sequence file names, a required input. A repeated option takes its
last value (`-r 1 -r 2`; it used to be a usage error). Bad values, unknown
options, missing values and the missing required input exit 2 with a
message that names the option (and the value); -h and --help exit 0 with
hest's usage (and glossary: value names, types, descriptions, defaults).
The oracle is the command line itself: the outputs echo the inputs (the
image through a tent-kernel probe of a linear field, exact)."""

import re
from fractions import Fraction as Q

import nrrd
from polyfield import Grid, variables, at

VARIANTS = ["float", "double+long"]

(x,) = variables(1)
LINE = Q(2) + 3 * x
LINE2 = Q(-1) + x / 2
GRID = Grid([6], [[Q(1)]], [Q(0)])
DS = [1.5, 2.5, -1.0, 4.0]
DS2 = [0.25, 8.0]

DEFAULTS = {"b": False, "k": 3, "r": 0.5, "v2": [1, 2], "v3": [1, 2, 3], "m": [1, 2, 3, 4],
            "m3": [2, 0, 0, 0, 2, 0, 0, 0, 2], "w": [1, 2, 3], "ik": [4, 5], "s": "hello",
            "img": LINE, "ds": DS, "px": Q(5, 4)}


def expect(t, vals, req, label, nums="nums.nrrd"):
    """Check the outputs and the printed line of a run with inputs vals."""
    v = dict(DEFAULTS, **vals)
    exp = [v["k"], v["r"], req, at(v["img"], [v["px"]]), len(v["ds"]), v["ds"][0],
           v["ik"][0], v["ik"][1]] + v["w"] + [1 if v["b"] else 0]
    t.close(label + " nums", t.read(nums).data, [float(e) for e in exp])
    for name in ("v2", "v3", "m", "m3"):
        t.close(label + " " + name, t.read("o%s.nrrd" % name).data, [float(e) for e in v[name]])


def run_ok(t, args, vals, req, label, nums="nums.nrrd"):
    p = t.exec(args)
    want = "%s %s\n" % (dict(DEFAULTS, **vals)["s"], "true" if vals.get("b") else "false")
    if p.out != want:
        t.fail("%s: printed %r, expected %r" % (label, p.out, want))
    expect(t, vals, req, label, nums)


def run_bad(t, args, words, label):
    """A bad command line: exit 2, a message naming words, hest's usage."""
    p = t.exec(args, expect_rc=2)
    first = p.err.strip().splitlines()[0] if p.err.strip() else ""
    for w in words:
        if w not in first:
            t.fail("%s: the message does not name %r: %r" % (label, w, first))
    if "Usage: " not in p.err or p.out:
        t.fail("%s: expected the usage on stderr only: %r / %r" % (label, p.err[:300], p.out[:100]))


def run(t):
    GRID.write(t.path("line.nrrd"), LINE, t.real)
    GRID.write(t.path("line2.nrrd"), LINE2, t.real)
    t.write_nrrd("ds.nrrd", nrrd.Nrrd("double", [len(DS)], DS))
    t.write_nrrd("ds2.nrrd", nrrd.Nrrd("float", [len(DS2)], DS2))
    t.compile()

    # repeated options: the last one counts (hest's rule, the original's)
    m3a = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    m3b = [9, 8, 7, 6, 5, 4, 3, 2, 1]
    run_ok(t, ["-req", 1, "-k", 1, "-r", "0.25", "-v2", 0, 0, "-s", "first", "-b", "true",
               "-img", "line.nrrd", "-m3"] + m3a +
           ["-k", 9, "-r", "-2.5", "-v2", 3, -4, "-s", "second", "-b", "false", "-b", "yes",
            "-req", 8, "-img", "line2.nrrd", "-m3"] + m3b + ["-ds", "ds2.nrrd", "-ds", "ds.nrrd"],
           {"k": 9, "r": -2.5, "v2": [3, -4], "s": "second", "b": True, "img": LINE2,
            "m3": m3b}, 8, "repeated")

    # the defaults (only the required input)
    run_ok(t, ["-req", Q(-3, 4)], {}, Q(-3, 4), "defaults")

    # every value form once, and -o-NAME
    vals = {"b": True, "k": -12, "r": Q(1, 1000), "v3": [-1, Q(1, 2), 20], "m": [1, -2, 3, 4],
            "m3": [Q(i, 4) for i in range(9)], "w": [Q(1, 2), Q(-1, 2), Q(3, 2)],
            "ik": [-7, 8], "s": "two words", "img": LINE2, "ds": DS2, "px": Q(5, 2)}
    run_ok(t, ["-b", "on", "-k", "-12", "-r", "1e-3", "-req", "2.5e1", "-v3", "-1", "0.5", "2e1",
               "-m", 1, -2, 3, 4, "-m3"] + vals["m3"] +
           ["-w", "0.5", "-0.5", "1.5", "-ik", -7, 8, "-s", "two words", "-img", "line2.nrrd",
            "-ds", "ds2.nrrd", "-px", "2.5", "-o-nums", "n2.nrrd", "--output-ov2", "ov2.nrrd"],
           vals, 25, "every form", nums="n2.nrrd")
    # 64-bit ints with --long-int only
    if t.long_int:
        run_ok(t, ["-req", 0, "-k", 5000000000], {"k": 5000000000}, 0, "long int")
    else:
        run_bad(t, ["-req", 0, "-k", 5000000000], ["-k", "5000000000", "32-bit"], "int32 range")

    # bad command lines
    run_bad(t, ["-req", "abc"], ["-req", "abc"], "bad real")
    run_bad(t, ["-req", 1, "-k", "1.5"], ["-k", "1.5"], "bad int")
    run_bad(t, ["-req", 1, "-k", "3abc"], ["-k", "3abc"], "int with junk")
    run_bad(t, ["-req", 1, "-b", "maybe"], ["-b", "maybe"], "bad bool")
    run_bad(t, ["-req", 1, "-v2", "1", "x"], ["-v2", "'x'"], "bad tensor component")
    run_bad(t, ["-req", 1, "-v2", "1"], ["-v2"], "a missing component")
    run_bad(t, ["-req", 1, "-m3", 1, 2, 3, "-k", 4], ["-m3", "-k"], "a short tensor")
    run_bad(t, ["-req", 1, "-l", "-1"], ["-l", "-1"], "negative limit")
    run_bad(t, ["-req", 1, "-nosuch", "1"], ["-nosuch"], "unknown option")
    run_bad(t, ["-req", 1, "stray"], ["stray"], "stray argument")
    run_bad(t, [], ["-req"], "missing required input")

    # -h: hest's usage; --help: and the glossary; found anywhere, first
    p = t.exec(["-k", "x", "-h"])
    if not re.search(r"^Usage: \S+ \[-h,--help\] \[-l,--limit <int>\]", p.out, re.M) or " = " in p.out:
        t.fail("-h: expected hest's usage alone on stdout: %r" % p.out[:400])
    p = t.exec(["--help"])
    flat = " ".join(p.out.replace("\\\n", "\n").split())  # hest wraps at 79 columns
    real = "double" if t.double else "float"
    integer = "long int" if t.long_int else "int"
    want = ["Usage: ", "[-b <bool>]", "[-k <int>]", "[-r <x>]", " -req <x> ", "[-v2 <x y>]",
            "[-v3 <x y z>]", "[-m <x y z w>]", "[-m3 <x1 x2 x3 x4 x5 x6 x7 x8 x9>]",
            "[-w <x y z>]", "[-ik <int int>]", "[-s <str>]", "[-img <str>]", "[-ds <str>]",
            "[-o-nums,--output-nums <str>]",
            "-b <bool> = a boolean (bool); default: \"false\"",
            "-k <int> = an integer (%s); default: \"3\"" % integer,
            "-r <x> = a real (%s); default: \"0.5\"" % real,
            "-req <x> = required: no default (%s) " % real,
            "-v2 <x y> = a 2-vector (2 %ss); default: \"1 2\"" % real,
            "-m <x y z w> = a 2x2 matrix (4 %ss); default: \"1 2 3 4\"" % real,
            "-m3 <x1 x2 x3 x4 x5 x6 x7 x8 x9> = nine words (9 %ss); default: \"2 0 0 0 2 0 0 0 2\""
            % real,
            "-w <x y z> = a fixed sequence (3 %ss); default: \"1 2 3\"" % real,
            "-ik <int int> = two integers (2 %ss); default: \"4 5\"" % integer,
            "-s <str> = a word (string); default: \"hello\"",
            "-img <str> = an image file (string); default: \"line.nrrd\"",
            "-ds <str> = a dynamic-sequence file (string); default: \"ds.nrrd\"",
            "-o-nums <str> , --output-nums <str> = specify output file for nums (string); "
            "default: \"nums.nrrd\"",
            "-l <int> , --limit <int> = specify limit on number of super-steps"]
    for w in want:
        if w not in flat:
            t.fail("--help: no %r in: %s" % (w, p.out[:3000]))
    if "[-req" in flat:
        t.fail("--help: the required -req is shown as optional")
