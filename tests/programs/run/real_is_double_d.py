"""Oracle of real_is_double_d.diderot, built with --double: the constant
is true (doc/language.md §3), so d is 1, the type line says double and the
tolerance is 1e-12 (the same rule as real_is_double.py)."""
FLAGS = ["--double"]


def expected(double):
    eps = 1.0e-12 if double else 1.0e-5
    return {"d.nrrd": ([1 if double else 0] * 3, [3]),
            "tol.nrrd": ([eps * (i + 1) for i in range(3)], [3]),
            "<stdout>": lambda got: [] if got == "type: %s\n" % ("double" if double else "float")
            else ["printed %r" % got]}


CASES = [([], expected(True))]
