"""Errors become Python exceptions that name the input, what was expected
and what was given, or carry the compiler's or the runtime's message; none
takes the interpreter down."""

import os
import re

import numpy as np
import pytest

import diderot
from conftest import DATA, EXAMPLES, write

MIP = os.path.join(EXAMPLES, "mip", "mip.diderot")


@pytest.fixture(scope="module")
def mip(compile):
    return compile(MIP)


def test_compile_error(compile, tmp_path):
    src = write(tmp_path, "bad.diderot", "#version 2.0\ninput real radius = 1.0;\n"
                "strand S (int i) { output real o = radiuss; update { stabilize; } }\n"
                "create_collection { S(i) | i in 0..1 };\n")
    with pytest.raises(diderot.CompileError) as e:
        compile(src)
    assert "bad.diderot:3:" in str(e.value)
    assert "undeclared variable 'radiuss'; did you mean 'radius'?" in str(e.value)
    with pytest.raises(FileNotFoundError):
        compile(str(tmp_path / "missing.diderot"))


def test_unknown_and_missing_inputs(compile, mip, tmp_path):
    with pytest.raises(TypeError, match="unknown input 'camEy'; the program's inputs are: vol, camEye"):
        mip.run(camEy=[1, 2, 3])
    prog = compile(write(tmp_path, "req.diderot", "#version 2.0\ninput int k;\ninput real[] xs;\n"
                         "strand S (int i) { output int o = k; update { stabilize; } }\n"
                         "create_collection { S(i) | i in 0..1 };\n"))
    with pytest.raises(TypeError, match=r"missing required inputs: k \(int\), xs \(real\[\]\)"):
        prog.run()
    with pytest.raises(ValueError, match=r"input 'xs' \(real\[\]\): an empty sequence"):
        prog.run(k=1, xs=[])


@pytest.mark.parametrize("kw, exc, text", [
    (dict(camEye=[1, 2]), ValueError, r"input 'camEye' \(tensor\[3\]\): expected shape \(3,\), got shape \(2,\)"),
    (dict(camEye="up"), TypeError, r"input 'camEye' \(tensor\[3\]\): expected an array of shape \(3,\), got str 'up'"),
    (dict(camEye=[[1, 2, 3]]), ValueError, r"expected shape \(3,\), got shape \(1, 3\)"),
    (dict(imgResU=2.5), TypeError, r"input 'imgResU' \(int\): expected an int, got float 2.5"),
    (dict(imgResU=True), TypeError, r"input 'imgResU' \(int\): expected an int, got a bool"),
    (dict(imgResU=2 ** 40), ValueError, r"input 'imgResU' \(int\): 1099511627776 does not fit a 32-bit int"),
    (dict(camFOV="18"), TypeError, r"input 'camFOV' \(real\): expected a real number, got str '18'"),
    (dict(vol=np.zeros((10, 10), np.float32)), ValueError,
     r"input 'vol' \(image\(3\)\[\]\): expected an array of 3 grid axes, got shape \(10, 10\)"),
    (dict(vol=np.zeros((4, 4, 4), complex)), TypeError, r"input 'vol' \(image\(3\)\[\]\): expected an array of integers or reals"),
    (dict(vol=diderot.Image(np.zeros((4, 4, 4), np.float32), spacing=[1, 1])), ValueError,
     r"input 'vol' \(image\(3\)\[\]\): spacing has 2 values, expected 3"),
    (dict(vol=42), TypeError, r"input 'vol' \(image\(3\)\[\]\): expected a NumPy array, a diderot.Image, a vtkImageData or a NRRD or .vti file name, got int 42"),
])
def test_type_errors(mip, kw, exc, text):
    with pytest.raises(exc, match=text):
        mip.run(**kw)


def test_missing_file(mip):
    with pytest.raises(diderot.InputFileNotFoundError, match="input 'vol' .*no such file 'no-such.nrrd'"):
        mip.run(vol="no-such.nrrd")
    with pytest.raises(FileNotFoundError):
        mip.world(vol="no-such.nrrd")


def test_runtime_refusals(mip, tmp_path):
    """The runtime's own messages: a 2-D file for a 3-D image, samples that
    the float program cannot hold exactly, a file that is not a NRRD."""
    with pytest.raises(diderot.InputError, match="the image is 2-D, but the program declares a 3-D image"):
        mip.run(vol=os.path.join(DATA, "ddro-100.nrrd"))
    with pytest.raises(diderot.InputError, match="samples are double.*recompile with --double"):
        mip.run(vol=np.zeros((5, 6, 7)))
    junk = write(tmp_path, "junk.nrrd", "not a nrrd\n")
    with pytest.raises(diderot.InputError, match="junk.nrrd"):
        mip.run(vol=junk)
    # the world is still usable after a refusal
    w = mip.world(imgResU=4, imgResV=4)
    with pytest.raises(diderot.InputError):
        w.set(vol=np.zeros((5, 6, 7)))
        w.step()
    w.set(vol=np.zeros((5, 6, 7), np.float32))
    w.run()
    np.testing.assert_array_equal(w.outputs().mip, np.zeros((4, 4)))


def test_nan_positions(mip, compile, tmp_path):
    """NaN positions: a guarded probe is simply not inside; a program whose
    loop never ends on NaN stops at the step limit."""
    src = write(tmp_path, "p.diderot", """#version 2.0
input image(2)[] img;
input vec2[] pts;
field#1(2)[] F = img ⊛ ctmr;
strand P (int i) {
  output real val = -1.0;
  update { if (inside(pts[i], F)) { val = F(pts[i]); } stabilize; }
}
create_collection { P(i) | i in 0..length(pts)-1 };
""")
    out = compile(src).run(img=np.ones((8, 8), np.float32),
                           pts=[[np.nan, 3.0], [3.0, np.nan], [np.inf, 3.0], [3.0, 3.0]])
    np.testing.assert_array_equal(out.val, [-1, -1, -1, 1])
    w = mip.world(camEye=[np.nan, 0, 0], imgResU=8, imgResV=8)
    assert w.run(steps=20) == 20 and w.active == 64


def test_unguarded_probe_outside_is_an_error(compile, tmp_path):
    """An unguarded probe outside the image (NaN positions included) stops
    the run with the runtime's message (language.md §6), in process and
    with isolate=True (which runs the program in a child process)."""
    src = write(tmp_path, "u.diderot", """#version 2.0
input image(2)[] img;
input vec2 x = [0.0, 0.0];
field#1(2)[] F = img ⊛ ctmr;
strand S (int i) { output real v = 0.0; update { v = F(x); stabilize; } }
create_array { S(i) | i in 0..1 };
""")
    prog = compile(src)
    img = np.ones((8, 8), np.float32)
    np.testing.assert_array_equal(prog.run(img=img, x=[3.0, 3.0], isolate=True).v, [1, 1])
    with pytest.raises(diderot.RunError, match="outside its image 'img'"):
        prog.run(img=img, x=[-1e30, np.nan], isolate=True)
    with pytest.raises(diderot.RunError, match=r"outside its image 'img' at position \(100, 3\)"):
        prog.run(img=img, x=[100.0, 3.0])
    np.testing.assert_array_equal(prog.run(img=img, x=[3.0, 3.0]).v, [1, 1])
    with pytest.raises(ValueError, match="expected shape"):
        prog.run(img=img, x=[1.0], isolate=True)


# A grid whose strands hold a 4x4x4x4 tensor (about 1 KB each): 20000^2 of
# them need 417 GB, beyond the memory of any machine the tests run on.
HUGE = """#version 2.0
input int n = 3;
strand S (int i, int j) {
  output real v = 0.0;
  tensor[4,4,4,4] t = zeros[4,4,4,4];
  update { t = t + 1.0 * zeros[4,4,4,4]; v = real(i + j) + t[0,0,0,0]; stabilize; }
}
create_array { S(i, j) | i in 0..n-1, j in 0..n-1 }
"""


def test_memory_error(compile, tmp_path):
    """Strands that do not fit the memory this process may use: MemoryError
    (diderot.OutOfMemoryError, also a RunError) with the runtime's message,
    raised before anything is allocated; the world works again after."""
    prog = compile(write(tmp_path, "huge.diderot", HUGE))
    with pytest.raises(MemoryError) as e:
        prog.run(n=20000)
    assert isinstance(e.value, diderot.OutOfMemoryError) and isinstance(e.value, diderot.RunError)
    assert re.match(r"4e8 strands of \d+ bytes need [\d.]+ [kMGTPE]B; this process may use "
                    r"[\d.]+ ([kMGTPE]B|bytes) \(.+\)$", str(e.value)), str(e.value)
    with prog.world(n=20000) as w:
        with pytest.raises(diderot.OutOfMemoryError):
            w.step()
        w.set(n=3)
        w.run()
        assert w.outputs().v.tolist() == [[i + j for j in range(3)] for i in range(3)]
    # other run-time errors stay RunError (not MemoryError)
    assert not issubclass(diderot.RunError, MemoryError)
