"""pyinputs_values.py -- the values fuzz_pyinputs.py gives a program's
inputs, as one-line Python expressions (a recipe is text, so that a
finding can be saved, read and replayed), and the namespace they are
evaluated in: NumPy, diderot.Image, and helpers that never raise (a
mutation that does not apply leaves its value as it was), so that what
raises is the package, not the recipe.

gen(rng, ty) gives an expression for an input of DType ty: a valid value
of the type (then 0 to 3 mutations), or one of the pool of hostile
values (Python ints near 2^31/2^63/huge, bools, inf/nan/-0.0/subnormal
floats, NumPy scalars and arrays of every dtype, strings with NUL,
surrogates or 10^6 characters, bytes, paths to missing, empty, garbage,
huge-header NRRD files and .vti names, dicts and (data, header) pairs in
Teem's layout, Images of wrong geometry, vtkImageData where VTK imports,
objects whose __array__ or __len__ raises or lies).
"""

import hashlib
import math
import os
import pathlib

import numpy as np

import diderot

try:
    from vtkmodules import vtkCommonDataModel
    from vtkmodules.util import numpy_support
except ImportError:  # from_vtk is fuzzed only where VTK imports
    vtkCommonDataModel = None

# ---- the helpers a recipe calls --------------------------------------------

_FILES = {"dir": None}


def set_files_dir(d):
    os.makedirs(d, exist_ok=True)
    _FILES["dir"] = d


def _nrrd_text(typ, sizes, kinds=None, extra="", values=None, encoding="ascii"):
    n = 1
    for s in sizes:
        n *= s
    vals = values if values is not None else [str(i % 7) for i in range(n)]
    head = "NRRD0004\ntype: %s\ndimension: %d\nsizes: %s\n" % (typ, len(sizes), " ".join(map(str, sizes)))
    if kinds:
        head += "kinds: %s\n" % " ".join(kinds)
    return (head + extra + "encoding: %s\n\n" % encoding + " ".join(vals) + "\n").encode()


# name -> file contents (None: the file does not exist)
FILE_KINDS = {
    "missing": None,
    "empty": b"",
    "garbage": bytes((i * 73 + 11) % 256 for i in range(300)),
    "text": b"1 2 3\n4 5 x\n",
    "nrrd2": _nrrd_text("float", [4, 4]),
    "nrrd2d": _nrrd_text("double", [3, 5], extra="spacings: 0 -1\n"),
    "nrrd2ll": _nrrd_text("long long", [4, 4]),
    "nrrd3": _nrrd_text("float", [2, 2, 2]),
    "nrrd3v": _nrrd_text("float", [3, 2, 2, 2], kinds=["3-vector", "space", "space", "space"]),
    "nrrd3vnan": _nrrd_text("float", [3, 2, 2, 2], kinds=["3-vector", "space", "space", "space"],
                            extra="space dimension: 3\nspace directions: none (nan,nan,nan) (0,1,0) (0,0,1)\n"
                                  "space origin: (0,0,0)\n"),
    "nrrd1i": _nrrd_text("int", [5]),
    "nrrd1f": _nrrd_text("float", [3]),
    "nrrd3x2": _nrrd_text("float", [3, 2], kinds=["3-vector", "list"]),
    "nrrd0": _nrrd_text("float", [0], values=[]),
    "hugesizes": b"NRRD0004\ntype: float\ndimension: 2\nsizes: 100000000000 100000000000\nencoding: raw\n\n",
    "hugeheader": b"NRRD0004\n" + b"# " + b"x" * 200000 + b"\n" + b"#c\n" * 20000
    + b"type: float\ndimension: 1\nsizes: 2\nencoding: ascii\n\n1 2\n",
    "truncated": b"NRRD0004\ntype: float\ndimension: 2\nsizes: 64 64\nencoding: raw\n\n\0\0\0",
    "dir": "dir",
}


def FILE(kind, form="str", suffix=".nrrd"):
    """A path (str, pathlib.Path or bytes) to a file of the given kind under
    the work folder, written on first use."""
    body = FILE_KINDS.get(kind, b"?")
    name = "f-%s%s" % (kind, suffix)
    path = os.path.join(_FILES["dir"], name)
    if body == "dir":
        os.makedirs(path, exist_ok=True)
    elif body is not None and not os.path.exists(path):
        tmp = path + ".tmp%d" % os.getpid()
        with open(tmp, "wb") as f:
            f.write(body)
        os.replace(tmp, path)
    if form == "path":
        return pathlib.Path(path)
    if form == "bytes":
        return os.fsencode(path)
    return path


def arr(shape, dtype="f4", start=0):
    """A small array of the shape, values start, start+1, ... (mod 11)."""
    shape = tuple(shape)
    n = int(np.prod(shape)) if shape else 1
    a = (np.arange(n) + start) % 11
    try:
        return a.astype(dtype).reshape(shape)
    except (TypeError, ValueError):
        return a.reshape(shape)


def cast(x, dt):
    """x as an array of dtype dt (datetime, str, object, complex, structured
    ...), else x unchanged."""
    try:
        a = np.asarray(x)
        if a.dtype.kind in "mM" and dt[:1] in "SU":
            # NumPy 1.24 (Debian 12) writes past its buffer casting timedelta64
            # to a short string ('S2': ASan sees a memset of 15 bytes into 8);
            # the package casts nothing to strings, so leave NumPy's bug out
            return x
        if dt.startswith("M8") or dt.startswith("m8"):
            return a.astype("int64").astype(dt)
        if dt == "struct":
            s = np.zeros(a.shape, dtype=[("a", "f4"), ("b", "i2")])
            s["a"] = a
            return s
        return a.astype(dt)
    except Exception:
        return x


def bswap(x):
    try:
        a = np.asarray(x)
        return a.astype(a.dtype.newbyteorder())
    except Exception:
        return x


def fortran(x):
    try:
        return np.asfortranarray(x)
    except Exception:
        return x


def noncontig(x):
    try:
        a = np.asarray(x)
        if a.ndim == 0:
            return x
        return np.repeat(a, 2, axis=-1)[..., ::2]
    except Exception:
        return x


def zerod(x):
    try:
        a = np.asarray(x).reshape(-1)
        return a[:1].reshape(()) if a.size else np.asarray(0.0)
    except Exception:
        return x


def empty(x, axis=-1):
    try:
        a = np.asarray(x)
        if a.ndim == 0:
            return a.reshape(0)
        return np.take(a, [], axis=axis % a.ndim)
    except Exception:
        return x


def manydims(x, n=32):
    try:
        a = np.asarray(x)
        return a.reshape(a.shape + (1,) * max(0, n - a.ndim))
    except Exception:
        return x


def drop(x):
    try:
        a = np.asarray(x)
        return a[0] if a.ndim and a.shape[0] else x
    except Exception:
        return x


def grow(x, axis=0):
    try:
        a = np.asarray(x)
        if a.ndim == 0:
            return a.reshape(1)
        return np.concatenate([a, np.take(a, [0], axis=axis % a.ndim)], axis=axis % a.ndim) \
            if a.shape[axis % a.ndim] else a
    except Exception:
        return x


def poke(x, v, i=0):
    """x with its element i (flat) set to v (nan, inf, -0.0, 5e-324, 1e308 ...)."""
    try:
        a = np.array(x)
        if a.size == 0:
            return x
        f = a.reshape(-1)
        f[i % a.size] = v
        return a
    except Exception:
        return x


def tolist(x):
    try:
        return np.asarray(x).tolist()
    except Exception:
        return x


def totuple(x):
    def t(v):
        return tuple(t(e) for e in v) if isinstance(v, list) else v
    return t(tolist(x))


def ragged(x):
    """Nested lists of x with the last row of the innermost level shortened."""
    v = tolist(x)
    if isinstance(v, list) and v and isinstance(v[-1], list) and v[-1]:
        v[-1] = v[-1][:-1]
    elif isinstance(v, list) and v:
        v[-1] = [v[-1], v[-1]]
    return v


def objarr(x):
    try:
        a = np.asarray(x)
        o = np.empty(a.shape, dtype=object)
        o[...] = a
        return o
    except Exception:
        return x


def nested(x):
    try:
        o = np.empty(1, dtype=object)
        o[0] = np.asarray(x)
        return o
    except Exception:
        return x


class ArrayLike:
    """__array__ gives x's array (honest)."""

    def __init__(self, x):
        self.x = x

    def __array__(self, dtype=None):
        a = np.asarray(self.x)
        return a if dtype is None else a.astype(dtype)


class RaisesArray:
    """__array__ raises exc (KeyError, ZeroDivisionError, MemoryError ...)."""

    def __init__(self, exc):
        self.exc = exc

    def __array__(self, dtype=None):
        raise self.exc("__array__ raised")


class LiesArray:
    """__array__ returns something that is not an array."""

    def __init__(self, what):
        self.what = what

    def __array__(self, dtype=None):
        return self.what


class LiesLen:
    """A sequence whose __len__ lies (or raises) about its items."""

    def __init__(self, items, n):
        self.items = list(items) if isinstance(items, (list, tuple)) else [items]
        self.n = n

    def __len__(self):
        if isinstance(self.n, type):
            raise self.n("__len__ raised")
        return self.n

    def __getitem__(self, i):
        return self.items[i]


class RaisesFspath:
    def __fspath__(self):
        raise KeyError("__fspath__ raised")


class FakePath:
    """An os.PathLike whose __fspath__ returns v (not a str, maybe)."""

    def __init__(self, v):
        self.v = v

    def __fspath__(self):
        return self.v


def Img(*args, **kw):
    """diderot.Image(*args, **kw), or, when the constructor refuses, the
    exception (the recipe's evaluation checks it)."""
    return diderot.Image(*args, **kw)


def vtkimg(x, dims=None, spacing=(1.0, 1.0, 1.0), origin=(0.0, 0.0, 0.0), direction=None,
           narrays=1, name="values", ncomp=None):
    """A vtkImageData over x's samples (where VTK imports; else x)."""
    if vtkCommonDataModel is None:
        return x
    try:
        a = np.ascontiguousarray(np.asarray(x))
        if a.dtype.kind not in "biuf" or a.dtype.itemsize > 8:
            a = a.astype("f4")
        img = vtkCommonDataModel.vtkImageData()
        nc = ncomp or 1
        npts = max(1, a.size // nc)
        d = list(dims) if dims else [npts, 1, 1]
        img.SetDimensions(*[int(v) for v in d])
        img.SetSpacing(*spacing)
        img.SetOrigin(*origin)
        if direction is not None and hasattr(img, "SetDirectionMatrix"):
            img.SetDirectionMatrix(*[float(v) for v in np.ravel(direction)[:9]])
        flat = a.reshape(-1)[:npts * nc]
        for k in range(narrays):
            va = numpy_support.numpy_to_vtk(flat.reshape(-1, nc) if nc > 1 else flat, deep=True)
            va.SetName(name if k == 0 else "%s%d" % (name, k))
            img.GetPointData().AddArray(va)
        return img
    except Exception:
        return x


def vti(kind):
    """A .vti name: missing, garbage, or a real file of a 2x2x2 image."""
    if kind != "good" or vtkCommonDataModel is None:
        return FILE(kind, suffix=".vti")
    path = os.path.join(_FILES["dir"], "good.vti")
    if not os.path.exists(path):
        diderot.Image(arr((2, 2, 2, 3)), spacing=[1, 1, 1]).save_vti(path)
    return path


NS = {"np": np, "nan": math.nan, "inf": math.inf, "pathlib": pathlib, "Image": diderot.Image,
      "Img": Img, "FILE": FILE, "arr": arr, "cast": cast, "bswap": bswap, "fortran": fortran,
      "noncontig": noncontig, "zerod": zerod, "empty": empty, "manydims": manydims, "drop": drop,
      "grow": grow, "poke": poke, "tolist": tolist, "totuple": totuple, "ragged": ragged,
      "objarr": objarr, "nested": nested, "ArrayLike": ArrayLike, "RaisesArray": RaisesArray,
      "LiesArray": LiesArray, "LiesLen": LiesLen, "RaisesFspath": RaisesFspath, "FakePath": FakePath,
      "vtkimg": vtkimg, "vti": vti, "__builtins__": __builtins__}


def evaluate(expr):
    return eval(expr, NS)  # noqa: S307 - recipes are ours (generated or committed)


# ---- generation --------------------------------------------------------------

DTYPES = ["f4", "f8", "f2", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "?", "c8", "c16",
          "U3", "S2", "O", "M8[s]", "m8[D]", "struct", ">f4", "<f8", ">i8", "V4", "g"]
SPECIAL = ["nan", "inf", "-inf", "-0.0", "5e-324", "1e308", "1e-310", "2**31", "2**63", "-2**63-1",
           "10**30", "True", "np.float16(65504)", "np.uint64(2**64-1)"]
INTS = ["0", "-1", "3", "2**31-1", "2**31", "-2**31", "-2**31-1", "2**63-1", "2**63", "-2**63-1",
        "10**30", "-10**400", "np.int8(-128)", "np.int32(7)", "np.int64(2**62)", "np.uint64(2**64-1)",
        "np.uint32(2**32-1)", "np.int64(-2**63)", "True", "np.bool_(True)", "3.0", "np.float64(2.0)"]
REALS = ["0.5", "-0.0", "nan", "inf", "-inf", "5e-324", "1e308", "-1e-310", "np.float16(0.1)",
         "np.float32(3.5)", "np.float64(1e300)", "np.longdouble(2.5)", "2**1100", "-2**63",
         "complex(1, 2)", "np.complex64(1)", "False", "np.bool_(False)", "1", "np.int64(2**62)",
         "float(10**308)", "__import__('fractions').Fraction(1, 3)", "__import__('decimal').Decimal('1.5')"]
STRS = ["'t'", "''", "'a\\x00b'", "'\\ud800'", "'\\udcff\\ud800x'", "'x' * 1000000", "'\\u00e9\\U0001f600'",
        "b'abc'", "bytearray(b'x')", "np.str_('np')", "np.bytes_(b'nb')", "'\\n\\t\\r'", "'%s%n%d'",
        "memoryview(b'mv')"]
OTHERS = ["None", "[]", "()", "{}", "set()", "[[]]", "[[], []]", "[1, [2, 3]]", "object()", "print",
          "Ellipsis", "range(3)", "iter([1, 2])", "slice(1)", "{'data': arr((2, 2))}", "{'zz': 1}",
          "{'data': 1, 'kinds': 5}", "({},)", "(arr((2, 2)), {})", "(arr((2, 2)), {}, 1)",
          "RaisesArray(KeyError)", "RaisesArray(ZeroDivisionError)", "RaisesArray(MemoryError)",
          "RaisesArray(RecursionError)", "LiesArray([1, 2])", "LiesArray(None)", "LiesArray('x')",
          "LiesLen([1.0], 5)", "LiesLen([1.0, 2.0], -1)", "LiesLen([], TypeError)", "LiesLen([1], 2**70)",
          "RaisesFspath()", "FakePath(3)", "FakePath(b'\\x00')", "FakePath('/nonexistent/x.nrrd')",
          "np.ma.masked_array([1.0, 2.0], mask=[0, 1])", "np.matrix([[1.0, 2.0]])",
          "np.recarray((2,), dtype=[('a', 'f4')])", "np.array([None, 1.0])",
          "np.array(['a', 'b'])", "np.datetime64('2020-01-01')", "np.void(b'ab')",
          "np.zeros((0, 0))", "np.zeros((1,) * 32)", "np.float64(nan)", "float", "np.float32",
          "__import__('array').array('d', [1.0, 2.0])", "memoryview(b'\\x00' * 8).cast('d')"]
PATHS = ["FILE('%s', '%s')" % (k, f) for k in FILE_KINDS for f in ("str", "path", "bytes")] + \
    ["vti('missing')", "vti('garbage')", "vti('empty')", "vti('good')", "'/nonexistent/dir/x.nrrd'",
     "'relative-missing.nrrd'", "''", "b''", "'\\x00.nrrd'", "'x' * 5000 + '.nrrd'",
     "pathlib.Path('\\udcff.nrrd')", "b'\\xff\\xfe.nrrd'", "'.vti'", "b'x.vti'", "pathlib.Path('missing.vti')",
     "FILE('nrrd2', 'str', '.vti')", "FILE('dir', 'path', '')"]
KINDS = ["'space'", "'domain'", "'3-vector'", "'2-vector'", "'3D-matrix'", "'2D-matrix'", "'list'",
         "'none'", "'???'", "None", "5", "'scalar'", "'RGB-color'", "b'space'"]
DIRROWS = ["[1.0, 0.0, 0.0]", "[0.0, 1.0, 0.0]", "[0.0, 0.0, 1.0]", "[1.0, 0.0]", "[0.0, 1.0]", "None",
           "[nan, nan, nan]", "[nan, nan]", "[0.0, 0.0, 0.0]", "[inf, 0.0, 0.0]", "'none'", "[]",
           "[1.0]", "[1.0, 2.0, 3.0, 4.0]", "np.array([1.0, 0.0, 0.0])", "[[1.0]]", "['a', 0, 0]"]
SPACINGS = ["1.0", "0.0", "-1.0", "nan", "inf", "None", "'2'", "1e-320", "np.float32(2)", "[1.0]", "2**1100"]


def _vec(rng, n, pool):
    return "[%s]" % ", ".join(rng.choice(pool) for _ in range(n))


def _good_image(rng, ty):
    """A valid value of an image input (several forms)."""
    d = ty.dim
    comp = tuple(ty.image_shape)
    grid = tuple(rng.randrange(1, 5) for _ in range(d))
    data = "arr(%r, %r)" % (grid + comp, rng.choice(["f4", "f4", "f8", "u1", "i2", "u2", "i4"]))
    c = rng.randrange(7)
    if c == 0:
        return data
    if c == 1:
        return "Img(%s, spacing=%s)" % (data, _vec(rng, d, ["0.5", "1.0", "2.0"]))
    if c == 2:
        dirs = "[%s]" % ", ".join("[%s]" % ", ".join("1.0" if i == j else "0.0" for j in range(d))
                                  for i in range(d))
        return "Img(%s, origin=%s, directions=%s)" % (data, _vec(rng, d, ["0.0", "1.5"]), dirs)
    if c == 3:
        return "{'data': %s, 'spacing': %s}" % (data, _vec(rng, d, ["1.0", "3.0"]))
    if c == 4:  # Teem's layout: axes reversed, components first
        teem = "arr(%r, 'f4')" % ((tuple(reversed(comp)) + tuple(reversed(grid))),)
        kinds = ["'%s'" % _COMP_KIND.get(comp, "???")] if comp else []
        kinds += ["'space'"] * d
        rows = (["None"] if comp else []) + \
            ["[%s]" % ", ".join("1.0" if i == j else "0.0" for j in range(d)) for i in range(d)]
        hdr = "{'kinds': [%s], 'space directions': [%s], 'space origin': %s}" % (
            ", ".join(kinds), ", ".join(rows), _vec(rng, d, ["0.0"]))
        return "(%s, %s)" % (teem, hdr) if rng.random() < 0.5 else \
            "dict(%s, data=%s)" % (hdr, teem)
    if c == 5:
        return rng.choice({2: ["FILE('nrrd2', 'path')", "FILE('nrrd2d')"],
                           3: ["FILE('nrrd3v')", "FILE('nrrd3v', 'bytes')", "vti('good')"]}.get(d, ["FILE('nrrd2')"]))
    return "vtkimg(%s, dims=%r, ncomp=%d)" % (data, list(reversed(grid)) + [1] * (3 - d), int(np.prod(comp)) if comp else 1)


_COMP_KIND = {(2,): "2-vector", (3,): "3-vector", (4,): "4-vector", (2, 2): "2D-matrix", (3, 3): "3D-matrix"}


def good(rng, ty):
    """An expression for a valid value of DType ty."""
    if ty.kind == "image":
        return _good_image(rng, ty)
    dt = {"real": "f8", "int": "i4", "bool": "?"}.get(ty.kind, "f8")
    if ty.dynamic:
        n = rng.randrange(1, 5)
        if rng.random() < 0.15:
            return rng.choice(["FILE('nrrd1i')", "FILE('nrrd1f', 'path')", "FILE('nrrd3x2')"])
        e = "arr(%r, %r)" % ((n,) + tuple(ty.elem_shape), dt)
        return e if rng.random() < 0.7 else "tolist(%s)" % e
    if ty.shape:
        e = "arr(%r, %r)" % (tuple(ty.shape), dt)
        return rng.choice([e, "tolist(%s)" % e, "totuple(%s)" % e])
    if ty.kind == "bool":
        return rng.choice(["True", "False", "np.bool_(True)"])
    if ty.kind == "int":
        return rng.choice(["0", "2", "5", "np.int32(3)", "np.int64(4)", "-1"])
    if ty.kind == "real":
        return rng.choice(["0.5", "2", "np.float32(1.5)", "-3.25", "np.int16(2)"])
    return rng.choice(["'t'", "'hello'", "''"])


def _mutate_image(rng, e, ty):
    d = ty.dim
    c = rng.randrange(9)
    if c == 0:
        return "Img(%s, origin=%s)" % (e, _vec(rng, rng.choice([d, d - 1, d + 1, 0]),
                                                 ["0.0", "nan", "inf", "1.0"]))
    if c == 1:
        rows = rng.choice([d, d - 1, d + 1])
        return "Img(%s, directions=[%s])" % (e, ", ".join(rng.choice(DIRROWS) for _ in range(rows)))
    if c == 2:
        return "Img(%s, spacing=%s)" % (e, _vec(rng, rng.choice([d, d - 1, d + 2]), SPACINGS))
    if c == 3:
        return "Img(%s, spacing=%s, directions=%s)" % (e, _vec(rng, d, SPACINGS), "[[1.0]]")
    if c == 4:  # a Teem header of random rows and kinds
        nax = rng.randrange(0, d + 3)
        hdr = []
        if rng.random() < 0.8:
            hdr.append("'kinds': [%s]" % ", ".join(rng.choice(KINDS) for _ in range(nax)))
        if rng.random() < 0.6:
            hdr.append("'space directions': [%s]" % ", ".join(rng.choice(DIRROWS) for _ in range(nax)))
        elif rng.random() < 0.7:
            hdr.append("'spacings': %s" % _vec(rng, nax, SPACINGS))
        if rng.random() < 0.5:
            hdr.append("'space origin': %s" % _vec(rng, rng.randrange(0, 4), ["0.0", "nan", "1.0", "None"]))
        return "(%s, {%s})" % (e, ", ".join(hdr)) if rng.random() < 0.5 else \
            "{'data': %s, %s}" % (e, ", ".join(hdr) or "'kinds': []")
    if c == 5:
        return "{'data': %s, %s}" % (e, rng.choice(["'spacing': [1, 2]", "'zz': 1", "'origin': 'ab'",
                                                   "'directions': [[1, 2], [3]]", "'spacing': None"]))
    if c == 6:
        return "vtkimg(%s, dims=%s, spacing=%s, direction=%s, narrays=%d, ncomp=%d)" % (
            e, _vec(rng, 3, ["1", "2", "3", "0", "4"]), _vec(rng, 3, ["1.0", "0.0", "-1.0", "nan"]),
            rng.choice(["None", "np.eye(3)", "np.eye(3)[::-1]", "[[1, 0, 0], [0, 0, 1], [0, 1, 0]]",
                        "np.full((3, 3), nan)", "np.zeros((3, 3))"]),
            rng.randrange(0, 3), rng.choice([1, 2, 3, 4, 9]))
    if c == 7:
        return "Image.from_teem(%s, {'kinds': [%s]})" % (e, ", ".join(rng.choice(KINDS) for _ in range(d)))
    return _mutate_array(rng, e)


def _mutate_array(rng, e):
    c = rng.randrange(20)
    if c == 0:
        return "cast(%s, %r)" % (e, rng.choice(DTYPES))
    if c == 1:
        return "bswap(%s)" % e
    if c == 2:
        return "fortran(%s)" % e
    if c == 3:
        return "noncontig(%s)" % e
    if c == 4:
        return "zerod(%s)" % e
    if c == 5:
        return "empty(%s, %d)" % (e, rng.randrange(-2, 2))
    if c == 6:
        return "manydims(%s, %d)" % (e, rng.choice([4, 16, 32]))
    if c == 7:
        return "drop(%s)" % e
    if c == 8:
        return "grow(%s, %d)" % (e, rng.randrange(-2, 2))
    if c == 9:
        return "poke(%s, %s, %d)" % (e, rng.choice(SPECIAL), rng.randrange(8))
    if c == 10:
        return "tolist(%s)" % e
    if c == 11:
        return "ragged(%s)" % e
    if c == 12:
        return "objarr(%s)" % e
    if c == 13:
        return "nested(%s)" % e
    if c == 14:
        return "ArrayLike(%s)" % e
    if c == 15:
        return "LiesLen(tolist(%s), %s)" % (e, rng.choice(["0", "7", "-1", "TypeError", "KeyError"]))
    if c == 16:
        return "np.asarray(%s)[None]" % e
    if c == 17:
        return "totuple(%s)" % e
    if c == 18:
        return "[%s]" % e
    return "np.transpose(%s)" % e


def _mutate(rng, e, ty):
    if ty.kind == "image" and rng.random() < 0.6:
        return _mutate_image(rng, e, ty)
    if not ty.shape and not ty.dynamic and ty.kind != "image" and rng.random() < 0.5:
        return rng.choice(["np.asarray(%s)", "[%s]", "np.array([%s])", "ArrayLike(%s)",
                           "cast(%s, %r)" % ("%s", rng.choice(DTYPES)), "zerod(%s)"]) % e
    return _mutate_array(rng, e)


def hostile(rng, ty):
    """An expression from the pool of hostile values (any type)."""
    c = rng.randrange(8)
    if c == 0:
        return rng.choice(INTS)
    if c == 1:
        return rng.choice(REALS)
    if c == 2:
        return rng.choice(STRS)
    if c == 3:
        return rng.choice(PATHS)
    if c == 4:
        return rng.choice(OTHERS)
    if c == 5:
        shape = tuple(rng.randrange(0, 4) for _ in range(rng.randrange(0, 5)))
        return "arr(%r, %r)" % (shape, rng.choice(DTYPES))
    if c == 6:
        other = rng.choice(["real", "int", "bool", "string", "tensor[3]", "tensor[3,3]", "int[2]",
                            "real[]", "tensor[3][]", "image(2)[]", "image(3)[3]", "image(1)[]"])
        from diderot._types import DType
        return good(rng, DType(other))
    return rng.choice(SPECIAL)


def gen(rng, ty):
    """An expression for a value of an input of DType ty: valid, mutated or hostile."""
    r = rng.random()
    if r < 0.25:
        return good(rng, ty)
    if r < 0.75:
        e = good(rng, ty)
        for _ in range(rng.randrange(1, 4)):
            e = _mutate(rng, e, ty)
        return e
    e = hostile(rng, ty)
    return e if rng.random() < 0.7 else _mutate(rng, e, ty)


def digest(text):
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]
