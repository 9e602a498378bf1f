"""Round trips: each program of examples/ compiled as an executable
(diderotc --exec) and through the package must give the same outputs.

The executable's NRRD file is the oracle. Checked for each example: the
file Outputs.save_nrrd writes has the executable's bytes; the NumPy array
equals the file's samples as tests/oracle/nrrd.py reads them, in the
documented axis order (NRRD axes reversed, components last); and the same
run with the input images given as NumPy arrays (read by the oracle reader
and turned into diderot.Image by the documented convention) instead of file
names gives the same arrays.
"""

import os

import numpy as np
import pytest

import diderot
import nrrd as oracle  # tests/oracle/nrrd.py
from conftest import DATA, EXAMPLES, run_exe

NP_TYPES = {"signed char": np.int8, "unsigned char": np.uint8, "short": np.int16,
            "unsigned short": np.uint16, "int": np.int32, "unsigned int": np.uint32,
            "long long int": np.int64, "unsigned long long int": np.uint64,
            "float": np.float32, "double": np.float64}

# name: (image inputs -> data file, other inputs (small runs), output)
CASES = {
    "mip": ({"vol": "blobs.nrrd"}, {"imgResU": 40, "imgResV": 30}, "mip"),
    "canny": ({"img": "ddro-100.nrrd"}, {"res": 60}, "strength"),
    "isocontour": ({"img": "ddro-100.nrrd"}, {"res": 20}, "pos"),
    "lic": ({"flow": "sqflow2D-1608.nrrd", "noise": "noise.nrrd"},
            {"sizeX": 96, "sizeY": 32, "stepNum": 10}, "sum"),
    "ridges": ({"elev": "sscand-crop.nrrd"}, {"sizeX": 40, "sizeY": 42}, "lam"),
    "vorticity": ({"flow": "sqflow2D-1608.nrrd"}, {"sizeX": 96, "sizeY": 32}, "vort"),
}


def oracle_array(n):
    """A NRRD read by the oracle reader as a NumPy array: NRRD axes
    reversed (axis 0, the fastest, last)."""
    return np.array(n.data, dtype=NP_TYPES[n.type]).reshape(tuple(reversed(n.sizes)))


def oracle_image(path):
    """diderot.Image of a NRRD file, by the documented convention: NumPy
    grid axis a is NRRD spatial axis d-1-a, and its direction is that
    axis's space direction; a component axis (axis 0) comes last."""
    n = oracle.read(path)
    arr = oracle_array(n)
    comp = 1 if n.kinds and n.kinds[0] not in ("space", "domain") else 0
    d = n.dimension - comp
    dirs = [n.space_directions[comp + d - 1 - a] for a in range(d)]
    return diderot.Image(arr, origin=n.space_origin, directions=dirs)


def cli(values):
    args = []
    for k, v in values.items():
        args += ["-" + k, str(v)]
    return args


@pytest.mark.parametrize("name", sorted(CASES))
def test_example_round_trip(name, compile, exe, tmp_path):
    images, values, out = CASES[name]
    src = os.path.join(EXAMPLES, name, name + ".diderot")
    files = {k: os.path.join(DATA, f) for k, f in images.items()}
    want_file = str(tmp_path / "exe.nrrd")
    run_exe(exe(src), cli(files) + cli(values) + ["-o", want_file], str(tmp_path))
    want = oracle.read(want_file)

    prog = compile(src)
    got = prog.run(**files, **values)
    assert list(got) == [out]
    got_file = str(tmp_path / "py.nrrd")
    got.save_nrrd(got_file)
    with open(want_file, "rb") as a, open(got_file, "rb") as b:
        assert a.read() == b.read(), "save_nrrd differs from the executable's file"

    arr = got[out]
    ty = prog.outputs[out]
    expected = oracle_array(want)
    # the executable's components come first in the file: last in NumPy
    assert arr.shape == expected.shape[:expected.ndim - (1 if ty.shape else 0)] + ty.shape
    np.testing.assert_array_equal(arr.reshape(expected.shape), expected)

    # the same inputs as NumPy arrays with their geometry
    arrays = {k: oracle_image(p) for k, p in files.items()}
    again = prog.run(**arrays, **values)
    np.testing.assert_array_equal(again[out], arr)


def test_example_defaults_found_from_any_directory(compile, exe, tmp_path, monkeypatch):
    """The examples' default images are relative to the program's file;
    the package finds them whatever the current directory (the executable
    does when run in the example's directory)."""
    src = os.path.join(EXAMPLES, "vorticity", "vorticity.diderot")
    run_exe(exe(src), ["-sizeX", "48", "-sizeY", "16", "-o", str(tmp_path / "exe.nrrd")],
            os.path.join(EXAMPLES, "vorticity"))
    monkeypatch.chdir(str(tmp_path))
    got = compile(src).run(sizeX=48, sizeY=16)
    np.testing.assert_array_equal(got.vort, oracle_array(oracle.read(str(tmp_path / "exe.nrrd"))))
