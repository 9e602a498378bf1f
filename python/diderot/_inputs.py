"""Input conversion: a Python value for an input of a declared type,
checked, as what World._apply gives the library. Every refusal is a
TypeError or ValueError (MemoryError) whose message begins with the input
("input 'NAME' (TYPE): ..."), whatever the value (tests/fuzz/fuzz_pyinputs.py)."""

import numbers
import os

import numpy as np

from . import _teem, _vtk
from ._errors import InputError, InputFileNotFoundError
from ._image import Image, _short, _tname

_C_SCALAR = {"bool": "bool", "string": "char *"}


def _np_dtype(prog, ty):
    return {"real": prog.real_dtype, "int": prog.int_dtype, "bool": np.dtype(np.bool_)}.get(
        ty.kind, np.dtype(object))


def _ctype(prog, ty):
    if ty.kind == "real":
        return "double" if prog.real_dtype == np.float64 else "float"
    if ty.kind == "int":
        return "int64_t" if prog.int_dtype == np.int64 else "int32_t"
    return _C_SCALAR[ty.kind]


def _what(name, ty):
    return "input %r (%s)" % (name, ty)


def _scalar(prog, name, ty, v):
    """A Python value of a scalar bool/int/real input, checked."""
    if ty.kind == "bool":
        if isinstance(v, (bool, np.bool_)):
            return bool(v)
        raise TypeError("%s: expected a bool, got %s" % (_what(name, ty), _tname(v)))
    if isinstance(v, (bool, np.bool_, np.timedelta64, np.datetime64)):
        # (NumPy's timedelta64 is registered as a numbers.Integral, but int() refuses it)
        raise TypeError("%s: expected %s, got %s" % (
            _what(name, ty), "an int" if ty.kind == "int" else "a real number",
            "a bool" if isinstance(v, (bool, np.bool_)) else "a NumPy %s" % type(v).__name__))
    if ty.kind == "int":
        if not isinstance(v, numbers.Integral):
            raise TypeError("%s: expected an int, got %s" % (_what(name, ty), _tname(v)))
        info = np.iinfo(prog.int_dtype)
        if not info.min <= int(v) <= info.max:
            raise ValueError("%s: %s does not fit a %d-bit int" % (_what(name, ty), _short(str(int(v))), info.bits))
        return int(v)
    if not isinstance(v, numbers.Real):
        raise TypeError("%s: expected a real number, got %s" % (_what(name, ty), _tname(v)))
    try:
        return float(v)
    except OverflowError:  # an int (or Fraction) beyond a double's range
        raise ValueError("%s: %s does not fit a double" % (_what(name, ty), _short(repr(v)))) from None


def _is_path(v):
    return isinstance(v, (str, bytes, os.PathLike))


def _fspath(name, ty, v):
    """os.fsdecode(os.fspath(v)); an os.PathLike whose __fspath__ raises or
    returns neither str nor bytes is a TypeError naming the input."""
    try:
        return os.fsdecode(os.fspath(v))
    except Exception as e:  # the object's own __fspath__
        raise TypeError("%s: %s is not a file name (os.fspath: %s: %s)"
                        % (_what(name, ty), _tname(v), type(e).__name__, e)) from None


_IMAGE_ARGS = ("data", "spacing", "origin", "directions")
_TEEM_KEYS = ("kinds", "space directions", "space origin", "spacings")


def _as_image(name, ty, v):
    """Any accepted form of an image input's value as an Image (file names
    of NRRDs excepted); TypeError/ValueError for the others."""
    if _is_path(v):  # a .vti file
        path = _fspath(name, ty, v)
        if not os.path.exists(path):
            raise InputFileNotFoundError("%s: no such file '%s'" % (_what(name, ty), path))
        data, origin, dirs = _vtk.load_vti(path)
        return Image(data, origin=origin, directions=dirs)
    if _vtk.is_vtk_image(v):
        return Image.from_vtk(v, dim=ty.dim, comp_shape=ty.image_shape)
    if isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], dict):
        return Image.from_teem(*v)  # (data, header), as pynrrd's nrrd.read returns
    if isinstance(v, dict):
        if "data" not in v:
            raise TypeError("a dict for an image needs \"data\" (keys: %s)" % ", ".join(map(repr, v)))
        if set(_TEEM_KEYS) & set(v):
            return Image.from_teem(v["data"], v)
        other = [k for k in v if k not in _IMAGE_ARGS]
        if other:
            raise TypeError("a dict for an image holds Image's arguments (%s) or Teem's fields (%s), "
                            "not %s" % (", ".join(_IMAGE_ARGS), ", ".join(_TEEM_KEYS),
                                        ", ".join(map(repr, other))))
        return Image(**v)
    if isinstance(v, np.ndarray) or (isinstance(v, (list, tuple)) and v):
        return Image(v)
    if isinstance(v, Image):
        return v
    raise TypeError("expected a NumPy array, a diderot.Image, a vtkImageData or a "
                    "NRRD or .vti file name, got %s" % _tname(v))


def _file_value(name, ty, v):
    given = _fspath(name, ty, v)
    path = os.path.abspath(given)
    if not os.path.exists(path):
        raise InputFileNotFoundError("%s: no such file '%s'" % (_what(name, ty), _short(given)))
    return ("file", path)


def _convert(prog, name, ty, v):
    """Check v against the input's type and turn it into what _apply sets."""
    if ty.kind == "image":
        if _is_path(v) and not _fspath(name, ty, v).endswith(".vti"):
            return _file_value(name, ty, v)
        try:
            img = _as_image(name, ty, v)
            # built now, so shape and geometry errors come at once
            img._nrrd(ty.dim, ty.image_shape).close()
        except InputError:
            raise  # the runtime's or ours, naming the input already
        except (ValueError, TypeError, OverflowError) as e:
            raise (TypeError if isinstance(e, TypeError) else ValueError)(
                "%s: %s" % (_what(name, ty), e)) from None
        except MemoryError as e:
            raise MemoryError("%s: %s" % (_what(name, ty), e)) from None
        return ("nrrd", lambda: img._nrrd(ty.dim, ty.image_shape))
    if ty.dynamic:
        if _is_path(v):
            return _file_value(name, ty, v)
        if ty.kind == "string":
            raise TypeError("%s: sequences of strings cannot be set" % _what(name, ty))
        try:
            a = np.asarray(v)
        except Exception:
            raise TypeError("%s: expected an array, got %s" % (_what(name, ty), _tname(v))) from None
        if a.size == 0 and a.ndim == 1:
            a = a.reshape((0,) + ty.elem_shape)
        if a.dtype.kind not in "biuf":
            raise TypeError("%s: expected an array of numbers, got dtype %s"
                            % (_what(name, ty), a.dtype))
        if a.ndim != 1 + len(ty.elem_shape) or tuple(a.shape[1:]) != ty.elem_shape:
            raise ValueError("%s: expected an array of shape (n,)%s, got shape %s" % (
                _what(name, ty), "" if not ty.elem_shape else " + %s" % (ty.elem_shape,), a.shape))
        if ty.kind == "bool":
            if a.dtype != np.bool_:
                raise TypeError("%s: expected an array of bools, got dtype %s" % (_what(name, ty), a.dtype))
            a = a.astype(np.uint8)
        elif ty.kind == "int":
            if a.dtype.kind not in "iu":
                raise TypeError("%s: expected an array of ints, got dtype %s" % (_what(name, ty), a.dtype))
            if a.dtype == np.uint64 and a.size and int(a.max()) > np.iinfo(np.int64).max:
                raise ValueError("%s: %d does not fit a 64-bit int" % (_what(name, ty), int(a.max())))
            a = a.astype(np.int64)
        else:
            if a.dtype.kind == "b":
                raise TypeError("%s: expected an array of reals, got bools" % _what(name, ty))
            a = a.astype(prog.real_dtype)
        if a.shape[0] == 0:
            raise ValueError("%s: an empty sequence cannot be passed as a NRRD" % _what(name, ty))
        nc = ty.ncomp
        flat = a.reshape(a.shape[0], nc)
        sizes = [a.shape[0]] if nc == 1 else [nc, a.shape[0]]
        kinds = None
        arr = flat if nc > 1 else flat.reshape(-1)
        return ("nrrd", lambda: _teem.WrappedNrrd(arr, sizes, kinds))
    if ty.kind == "string" and not ty.shape:
        if not isinstance(v, str):
            raise TypeError("%s: expected a str, got %s" % (_what(name, ty), _tname(v)))
        try:
            b = v.encode("utf-8")
        except UnicodeEncodeError as e:  # a lone surrogate ('\ud800')
            raise ValueError("%s: the string is not UTF-8: %s at position %d"
                             % (_what(name, ty), e.reason, e.start)) from None
        if b"\0" in b:
            raise ValueError("%s: a string cannot hold NUL characters" % _what(name, ty))
        return ("string", b)
    if not ty.shape:
        return ("scalar", _scalar(prog, name, ty, v))
    # tensors and fixed sequences: an array of exactly the declared shape
    if ty.kind == "string":
        raise TypeError("%s: sequences of strings cannot be set" % _what(name, ty))
    if isinstance(v, (str, bytes)) or isinstance(v, numbers.Number):
        raise TypeError("%s: expected an array of shape %s, got %s" % (_what(name, ty), ty.shape, _tname(v)))
    try:
        a = np.asarray(v)
    except Exception:
        raise TypeError("%s: expected an array of shape %s, got %s"
                        % (_what(name, ty), ty.shape, _tname(v))) from None
    if a.dtype.kind not in "biuf":
        raise TypeError("%s: expected numbers, got %s" % (_what(name, ty), _tname(v)))
    if a.shape != ty.shape:
        raise ValueError("%s: expected shape %s, got shape %s" % (_what(name, ty), ty.shape, a.shape))
    if ty.kind == "bool":
        if a.dtype.kind != "b":
            raise TypeError("%s: expected bools, got dtype %s" % (_what(name, ty), a.dtype))
        vals = [bool(x) for x in a.ravel()]
    elif ty.kind == "int":
        if a.dtype.kind not in "iu":
            raise TypeError("%s: expected ints, got dtype %s" % (_what(name, ty), a.dtype))
        vals = [_scalar(prog, name, ty, int(x)) for x in a.ravel()]
    else:
        if a.dtype.kind == "b":
            raise TypeError("%s: expected reals, got bools" % _what(name, ty))
        vals = [float(x) for x in a.ravel()]
    return ("array", (_ctype(prog, ty), vals))
