"""Oracle of real_is_double.diderot built without --double: the constant
is false, so d is 0, the type line says float and the tolerance is 1e-5
(compared in float32 by run.py's relative 1e-5)."""
DOUBLE = False


def expected(double):
    eps = 1.0e-12 if double else 1.0e-5
    return {"d.nrrd": ([1 if double else 0] * 3, [3]),
            "tol.nrrd": ([eps * (i + 1) for i in range(3)], [3]),
            "<stdout>": lambda got: [] if got == "type: %s\n" % ("double" if double else "float")
            else ["printed %r" % got]}


CASES = [([], expected(DOUBLE))]
