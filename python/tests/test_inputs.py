"""Inputs of every kind, and outputs of every kind, against closed forms
(and the executable for dynamic-sequence outputs)."""

import os

import numpy as np
import pytest

import diderot
import nrrd as oracle
from conftest import DATA, run_exe, write

KINDS = """#version 2.0
input bool flag ("a flag") = false;
input int n ("strands") = 3;
input real scale = 1.5;
input vec3 v = [1.0, 2.0, 3.0];
input tensor[2,2] m = [[1.0, 2.0], [3.0, 4.0]];
input int[2] q = {10, 20};
input string label = "abc";
input real[] xs;
input vec2[] ps;
strand S (int i) {
  output real a = scale * real(i) + xs[i % length(xs)];
  output vec3 b = real(i) * v;
  output tensor[2,2] c = m * real(i + 1);
  output int k = q[0] * i + q[1] + length(ps);
  output bool f = flag && label == "abc";
  output vec2 p = ps[i % length(ps)];
  update { stabilize; }
}
create_collection { S(i) | i in 0..n-1 };
"""


@pytest.fixture(scope="module")
def kinds(compile, tmp_path_factory):
    return compile(write(tmp_path_factory.mktemp("kinds"), "kinds.diderot", KINDS))


def expected_kinds(flag=False, n=3, scale=1.5, v=(1, 2, 3), m=((1, 2), (3, 4)), q=(10, 20),
                   label="abc", xs=(), ps=()):
    i = np.arange(n)
    xs, ps = np.asarray(xs, float), np.asarray(ps, float)
    return {
        "a": scale * i + xs[i % len(xs)],
        "b": i[:, None] * np.asarray(v, float)[None, :],
        "c": np.asarray(m, float)[None] * (i + 1)[:, None, None],
        "k": q[0] * i + q[1] + len(ps),
        "f": np.full(n, flag and label == "abc"),
        "p": ps[i % len(ps)],
    }


def check(out, want, dtype=np.float32):
    assert list(out) == ["a", "b", "c", "k", "f", "p"]
    for name, w in want.items():
        got = out[name]
        assert got.shape == np.shape(w), name
        if name == "f":
            assert got.dtype == np.bool_
        elif name == "k":
            assert got.dtype.kind == "i"
        else:
            assert got.dtype == dtype, name
        np.testing.assert_allclose(got, w, rtol=1e-6, err_msg=name)


def test_every_input_kind(kinds):
    vals = dict(flag=True, n=5, scale=-0.5, v=[0.5, -1, 2], m=[[0, 1], [-1, 0]], q=[3, -4],
                label="abc", xs=[1.0, 2.0, 4.0], ps=[[1, 2], [3, 4], [5, 6], [7, 8]])
    check(kinds.run(**vals), expected_kinds(**vals))
    vals.update(label="abd")  # the string reaches the program
    check(kinds.run(**vals), expected_kinds(**vals))


def test_numpy_scalars_and_arrays(kinds):
    vals = dict(flag=np.bool_(True), n=np.int64(4), scale=np.float32(2.0),
                v=np.array([1, 2, 3], dtype=np.int16), m=np.eye(2), q=np.array([1, 2], np.int64),
                xs=np.linspace(0, 1, 7), ps=np.ones((2, 2), np.float32))
    check(kinds.run(**vals), expected_kinds(**{k: (v.tolist() if hasattr(v, "tolist") else v)
                                               for k, v in vals.items()}))


def test_defaults(kinds):
    d = kinds.defaults()
    assert d["flag"] is False and d["n"] == 3 and d["scale"] == 1.5 and d["label"] == "abc"
    np.testing.assert_array_equal(d["v"], [1, 2, 3])
    np.testing.assert_array_equal(d["m"], [[1, 2], [3, 4]])
    np.testing.assert_array_equal(d["q"], [10, 20])
    assert set(d) == {"flag", "n", "scale", "v", "m", "q", "label"}
    check(kinds.run(xs=[2.0], ps=[[0.0, 1.0]]), expected_kinds(xs=[2.0], ps=[[0.0, 1.0]]))


def test_description(kinds):
    assert str(kinds.inputs["v"]) == "tensor[3]" and kinds.inputs["q"].shape == (2,)
    assert kinds.input_descriptions["flag"] == "a flag"
    assert not kinds.has_default["xs"] and kinds.has_default["n"]
    assert kinds.outputs["c"].shape == (2, 2)


def test_double_and_long_int(compile, tmp_path):
    prog = compile(write(tmp_path, "k.diderot", KINDS), double=True, long_int=True)
    vals = dict(n=2, q=[2**40, 1], xs=[0.1], ps=[[0.25, 0.5]])
    out = prog.run(**vals)
    check(out, expected_kinds(**vals), dtype=np.float64)
    assert out.k.dtype == np.int64 and out.k[1] == 2**40 + 1 + 1


def test_source_text_and_constants(compile):
    src = """#version 2.0
const int K = 2;
input real x = 1.0;
strand S (int i) { output real y = x * real(K + i); update { stabilize; } }
create_array { S(i) | i in 0..3 };
"""
    np.testing.assert_array_equal(compile(src).run(x=0.5).y, 0.5 * (2 + np.arange(4)))
    np.testing.assert_array_equal(compile(src, constants={"K": 10}).run().y, 10 + np.arange(4))


PROBE = """#version 2.0
input image(2)[] img;
input vec2[] pts;
field#1(2)[] F = img ⊛ ctmr;
strand P (int i) {
  vec2 x = pts[i];
  output bool ins = false;
  output real val = 0.0;
  output vec2 grad = [0.0, 0.0];
  update {
    if (inside(x, F)) { ins = true; val = F(x); grad = ∇F(x); }
    stabilize;
  }
}
create_collection { P(i) | i in 0..length(pts)-1 };
"""


@pytest.fixture(scope="module")
def probe(compile, tmp_path_factory):
    return compile(write(tmp_path_factory.mktemp("probe"), "probe.diderot", PROBE), double=True)


def linear_image(shape, a, b, c):
    """arr[j, i] = a*i + b*j + c: a linear function of the index (i, j),
    which Catmull-Rom reconstruction reproduces exactly."""
    j, i = np.mgrid[0:shape[0], 0:shape[1]]
    return a * i + b * j + c


@pytest.mark.parametrize("shape", [(7, 9), (12, 5), (30, 41)])
def test_linear_image_with_geometry(probe, shape):
    """World position of index (i, j): origin + i*d_i + j*d_j, where d_i is
    the direction of NumPy axis 1 and d_j of axis 0 (sheared, scaled).
    Images of several sizes run through one compiled program."""
    a, b, c = 2.0, -3.0, 0.5
    M = np.array([[0.5, 0.1], [0.0, 0.25]])  # columns: d_i, d_j
    origin = np.array([1.0, -2.0])
    img = diderot.Image(linear_image(shape, a, b, c), origin=origin, directions=[M[:, 1], M[:, 0]])
    ny, nx = shape
    idx = np.array([[1.5, 2.25], [nx - 2.1, ny - 2.5], [1.25, 1.75], [0.5, 2.0], [nx + 3.0, 2.0]])
    pts = origin + idx @ M.T
    out = probe.run(img=img, pts=pts)
    # ctmr has support [-2, 2]: inside means 1 <= index < n-2 on each axis
    ins = np.all((idx >= 1) & (idx < np.array([nx - 2, ny - 2])), axis=1)
    np.testing.assert_array_equal(out.ins, ins)
    want = np.where(ins, a * idx[:, 0] + b * idx[:, 1] + c, 0.0)
    np.testing.assert_allclose(out.val, want, rtol=1e-12, atol=1e-12)
    g = np.linalg.solve(M.T, [a, b])  # world gradient: M^-T times the index gradient
    np.testing.assert_allclose(out.grad, np.where(ins[:, None], g, 0.0), rtol=1e-12, atol=1e-12)


def test_spacing_only(probe):
    """spacing[a] belongs to NumPy axis a; the last axis runs along world x."""
    arr = linear_image((10, 20), 1.0, 100.0, 0.0)  # value = i + 100 j
    out = probe.run(img=diderot.Image(arr, spacing=(0.5, 0.25)),
                    pts=[[0.25 * 3, 0.5 * 4], [0.25 * 10.5, 0.5 * 2.5]])
    np.testing.assert_allclose(out.val, [3 + 400, 10.5 + 250], rtol=1e-12)
    np.testing.assert_allclose(out.grad, [[4, 200], [4, 200]], rtol=1e-12)


def test_image_from_array_file_dict_and_load(probe, tmp_path):
    arr = linear_image((8, 8), 1.5, 0.5, -1.0)
    img = diderot.Image(arr, origin=[0.5, 0.25], spacing=[2.0, 1.0])
    pts = [[3.0, 4.0], [5.5, 9.0]]
    base = probe.run(img=img, pts=pts)
    path = str(tmp_path / "img.nrrd")
    img.save_nrrd(path)
    hdr = oracle.read(path)  # what was written, read independently
    assert hdr.sizes == [8, 8] and hdr.space_origin == (0.5, 0.25)
    assert hdr.space_directions == [(1.0, 0.0), (0.0, 2.0)]
    for form in (path, diderot.Image.load(path),
                 dict(data=arr, origin=[0.5, 0.25], spacing=[2.0, 1.0])):
        out = probe.run(img=form, pts=pts)
        np.testing.assert_array_equal(out.val, base.val)
    np.testing.assert_array_equal(diderot.Image.load(path).data, arr)


def test_vector_image(compile, tmp_path):
    src = """#version 2.0
input image(2)[2] img;
input vec2 x = [0.0, 0.0];
field#1(2)[2] F = img ⊛ ctmr;
strand S (int i) { output vec2 v = F(x); output tensor[2,2] J = ∇⊗F(x); update { stabilize; } }
create_array { S(i) | i in 0..0 };
"""
    prog = compile(write(tmp_path, "vec.diderot", src), double=True)
    j, i = np.mgrid[0:6, 0:9]
    arr = np.stack([i + 2.0 * j, 3.0 * i], axis=-1)  # components last: arr[j, i, c]
    out = prog.run(img=arr, x=[2.5, 3.0])
    np.testing.assert_allclose(out.v, [[2.5 + 6.0, 7.5]])
    np.testing.assert_allclose(out.J, [[[1.0, 2.0], [3.0, 0.0]]])


DYN = """#version 2.0
input int n = 6;
strand S (int i) {
  output int[] divs = {};
  output vec2[] pairs = {};
  update {
    foreach (int d in 1..i) { if (i % d == 0) { divs = divs @ d; pairs = pairs @ [real(d), real(i)]; } }
    stabilize;
  }
}
create_collection { S(i) | i in 0..n-1 };
"""


def test_dynamic_sequence_outputs(compile, exe, tmp_path):
    src = write(tmp_path, "dyn.diderot", DYN)
    out = compile(src).run(n=7)
    for i in range(7):
        want = [d for d in range(1, i + 1) if i % d == 0]
        np.testing.assert_array_equal(out.divs[i], want)
        np.testing.assert_array_equal(out.pairs[i], np.reshape([[d, i] for d in want], (-1, 2)))
    assert len(out.divs) == 7 and out.pairs.data.shape[1:] == (2,)
    # the executable's -len/-data files
    run_exe(exe(src), ["-n", "7", "-o-divs", "divs", "-o-pairs", "pairs"], str(tmp_path))
    out.save_nrrd(str(tmp_path / "py-divs"), "divs")
    out.save_nrrd(str(tmp_path / "py-pairs.nrrd"), "pairs")
    for stem in ("divs", "pairs"):
        for part in ("len", "data"):
            with open(str(tmp_path / ("%s-%s.nrrd" % (stem, part))), "rb") as a, \
                    open(str(tmp_path / ("py-%s-%s.nrrd" % (stem, part))), "rb") as b:
                assert a.read() == b.read(), (stem, part)


def test_sequence_input_from_file(kinds, tmp_path):
    path = str(tmp_path / "xs.nrrd")
    oracle.write(path, oracle.Nrrd("double", [3], [1.0, 2.0, 3.0]))
    vals = dict(n=4, ps=[[0.0, 0.0]])
    check(kinds.run(xs=path, **vals), expected_kinds(xs=[1, 2, 3], **vals))


def test_array_layouts(probe):
    """Fortran-ordered, strided and big-endian arrays mean the same image."""
    arr = linear_image((9, 11), 0.5, 2.0, 1.0)
    pts = [[3.25, 4.5], [6.0, 2.5]]
    base = probe.run(img=arr, pts=pts).val
    for form in (np.asfortranarray(arr), np.vstack([arr, arr])[:9], arr.astype(">f8"),
                 np.repeat(np.repeat(arr, 2, 0), 2, 1)[::2, ::2]):
        np.testing.assert_array_equal(probe.run(img=form, pts=pts).val, base)


def test_image_load_vector_file():
    """Image.load of a 2-vector NRRD: components last, directions per NumPy
    axis (reversed NRRD spatial axes)."""
    n = oracle.read(os.path.join(DATA, "sqflow2D-1608.nrrd"))
    img = diderot.Image.load(os.path.join(DATA, "sqflow2D-1608.nrrd"))
    assert img.data.shape == (64, 192, 2) and img.data.dtype == np.float32
    np.testing.assert_array_equal(img.data.ravel(), np.array(n.data, np.float32))
    np.testing.assert_array_equal(img.directions, [n.space_directions[2], n.space_directions[1]])
    np.testing.assert_array_equal(img.origin, n.space_origin)


def test_image_in_teem_layout(compile, exe, tmp_path):
    """An image as a dict in Teem's layout (data[i, j] with NRRD axis 0
    first, and header fields), or as pynrrd's (data, header) pair: the
    executable's output on the same file is the oracle."""
    src = os.path.join(os.path.dirname(DATA), "vorticity", "vorticity.diderot")
    flow = os.path.join(DATA, "sqflow2D-1608.nrrd")
    run_exe(exe(src), ["-flow", flow, "-sizeX", "40", "-sizeY", "16", "-o", "v.nrrd"], str(tmp_path))
    want = np.array(oracle.read(str(tmp_path / "v.nrrd")).data, np.float32).reshape(16, 40)
    n = oracle.read(flow)
    data = np.array(n.data, np.float32).reshape(tuple(reversed(n.sizes))).T  # data[c, i, j]
    header = {"kinds": n.kinds, "space directions": [None] + n.space_directions[1:],
              "space origin": n.space_origin}
    prog = compile(src)
    for form in (dict(header, data=data), (data, header)):
        np.testing.assert_array_equal(prog.run(flow=form, sizeX=40, sizeY=16).vort, want)


COMPUTED = """#version 2.0
input real a = 2.0;
input real b = a * 3.0;
input int n = 2;
strand S (int i) {
  output real x = b + real(i);
  update { stabilize; }
}
create_collection { S(i) | i in 0..n-1 };
"""


def test_computed_default(compile, tmp_path_factory):
    """A default the program computes (doc/language.md §3): its source in
    defaults() and computed_defaults; its value follows the inputs given."""
    prog = compile(write(tmp_path_factory.mktemp("computed"), "computed.diderot", COMPUTED))
    assert prog.computed_defaults == {"b": "a * 3.0"} and prog.has_default["b"]
    d = prog.defaults()
    assert d["b"] == "a * 3.0" and d["a"] == 2.0 and d["n"] == 2
    np.testing.assert_array_equal(prog.run()["x"], [6.0, 7.0])
    np.testing.assert_array_equal(prog.run(a=1.5)["x"], [4.5, 5.5])
    np.testing.assert_array_equal(prog.run(a=1.5, b=-1.0)["x"], [-1.0, 0.0])
