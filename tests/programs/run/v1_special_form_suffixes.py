"""Oracle of v1_special_form_suffixes.diderot: zeros[2,3][1,2] = 0,
identity[3][1,1] + identity[3][0,2] = 1, identity[3][2,:] = [0,0,1]."""


def expected(a, n=4):
    return {"o.nrrd": ([1.0 + i * a for i in range(n)], [n]),
            "r.nrrd": ([0.0, 0.0, 1.0] * n, [3, n])}


CASES = [
    ([], expected(2.5)),
    (["-a", "-1"], expected(-1.0)),
]
