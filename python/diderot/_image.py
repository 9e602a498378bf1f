"""diderot.Image: a NumPy array with its world geometry, and its NRRD,
Teem-layout and VTK forms."""

import collections.abc
import math
import numbers
import os

import numpy as np

from . import _teem, _vtk
from ._teem import teem


def _short(text, n=80):
    return text if len(text) <= n else text[:n] + "... (%d characters)" % len(text)


def _tname(v):
    if isinstance(v, np.ndarray):
        return "an array of shape %s" % (v.shape,)
    return "%s %s" % (type(v).__name__, _short(repr(v))) if isinstance(v, (str, numbers.Number)) \
        else "a %s" % type(v).__name__


def _array_of(v, what):
    """np.asarray(v), its failures (a ragged list; an object whose __array__
    or __len__ raises or lies) as TypeError/ValueError saying what it is."""
    try:
        return np.asarray(v)
    except (TypeError, ValueError) as e:
        raise type(e)("%s: not an array (%s)" % (what, e)) from None
    except MemoryError:
        raise
    except Exception as e:  # the value's own code raised (its __array__, __len__ ...)
        raise TypeError("%s: not an array (converting it raised %s: %s)"
                        % (what, type(e).__name__, e)) from None


def _reals(v, what, flat=True):
    """v as real numbers (a list, or a float array when flat is False)."""
    a = _array_of(v, what)
    if a.dtype.kind not in "biuf" and a.dtype != object:
        raise TypeError("%s: expected real numbers, got %s" % (what, _tname(v)))
    try:
        r = a.astype(float)
    except (TypeError, ValueError, OverflowError) as e:
        raise (TypeError if isinstance(e, TypeError) else ValueError)(
            "%s: expected real numbers, got %s (%s)" % (what, _tname(v), e)) from None
    return [float(x) for x in np.ravel(r)] if flat else r


class Image:
    """An image for an image input: a NumPy array with its world geometry.

    data: the samples, NumPy axes in C order, slowest first: a 3-D volume
    is data[z, y, x] (data[k, j, i]: the last axis is the image's first,
    fastest, index axis, which Diderot's world x runs along by default), with
    the components of a non-scalar image last (data[k, j, i, c]; a matrix
    image data[..., r, c]).

    spacing, directions: per NumPy grid axis, in the same order as data's
    axes: directions[a] is the world-space vector (x, y, z) of one step
    along grid axis a; spacing[a] alone means directions[a] =
    spacing[a] times the unit vector of world axis d-1-a. origin: the world
    position (x, y, z) of data[0, 0, 0]. Defaults: unit spacing, origin 0.
    """

    def __init__(self, data, spacing=None, origin=None, directions=None):
        self.data = _array_of(data, "Image: data")
        if spacing is not None and directions is not None:
            raise ValueError("Image: give spacing or directions, not both")
        self.spacing = None if spacing is None else _reals(spacing, "Image: spacing")
        self.origin = None if origin is None else _reals(origin, "Image: origin")
        self.directions = None if directions is None else _reals(directions, "Image: directions", flat=False)

    @classmethod
    def load(cls, path):
        """Read a NRRD file (with Teem) into an Image in this class's axis
        order; a component axis (axis 0 of the file, when it has a
        non-spatial kind) becomes the last NumPy axis, reshaped to (r, c) for
        a matrix kind. A .vti file is read with VTK (Image.from_vtk)."""
        if os.fspath(path).endswith(".vti"):
            data, origin, dirs = _vtk.load_vti(path)
            return cls(data, origin=origin, directions=dirs)
        n = _teem.load_nrrd(path)
        try:
            arr, sizes, kinds = _teem.nrrd_to_numpy(n)
            origin, dirs = _teem.nrrd_space(n)
        finally:
            teem.nrrdNuke(n)
        comp = 1 if kinds and kinds[0] not in (_teem.KIND_SPACE, _teem.KIND_UNKNOWN,
                                               _teem.kind_value("domain")) else 0
        if comp:
            name = _teem.kind_name(kinds[0])
            if name in ("2D-matrix", "3D-matrix"):
                m = 2 if name.startswith("2") else 3
                arr = arr.reshape(arr.shape[:-1] + (m, m))
        d = len(sizes) - comp
        if origin is None:  # spacings only
            sp = [1.0 if math.isnan(x) else x for x in dirs[comp:]]
            return cls(arr, spacing=list(reversed(sp)))
        vecs = []
        for a in range(d):  # NumPy grid axis a is NRRD axis comp + d-1-a
            v = dirs[comp + d - 1 - a]
            vecs.append(v if v is not None else [1.0 if i == d - 1 - a else 0.0
                                                  for i in range(len(origin))])
        return cls(arr, origin=origin, directions=vecs)

    @classmethod
    def from_teem(cls, data, header):
        """An Image from an array in Teem's axis order (NRRD axis 0 first:
        data[i, j, k], as pynrrd's nrrd.read gives it by default) and a
        dict of NRRD header fields: "kinds", "space directions" (one row
        per axis; None or NaN for a component axis), "space origin", or
        "spacings" without a space."""
        if not isinstance(header, collections.abc.Mapping):
            raise TypeError("Image.from_teem: the header must be a dict of NRRD fields, not %s"
                            % _tname(header))
        arr = _array_of(data, "Image.from_teem: data")
        kinds = header.get("kinds")
        if kinds is not None and (isinstance(kinds, (str, bytes)) or not isinstance(
                kinds, (list, tuple, np.ndarray)) or not all(isinstance(k, str) for k in kinds)):
            raise TypeError("Image.from_teem: \"kinds\" must be a list of NRRD kind names (str), "
                            "not %s" % _tname(kinds))
        comp = 1 if kinds is not None and len(kinds) and str(kinds[0]) not in (
            "space", "domain", "none", "???") else 0
        d = arr.ndim - comp
        if d < 1:
            raise ValueError("Image.from_teem: an array of %d axes%s has no spatial axis"
                             % (arr.ndim, " (the first a component axis)" if comp else ""))
        c = np.transpose(arr)  # C order: NRRD axis 0 (components, if any) last
        if comp:
            name = str(kinds[0])
            if name in ("2D-matrix", "3D-matrix"):
                m = 2 if name.startswith("2") else 3
                if c.shape[-1] != m * m:
                    raise ValueError("Image.from_teem: a %s axis of %d samples, not %d"
                                     % (name, c.shape[-1], m * m))
                c = c.reshape(c.shape[:-1] + (m, m))
        if header.get("space directions") is not None:
            sd = header["space directions"]
            if isinstance(sd, (str, bytes)) or not isinstance(sd, (list, tuple, np.ndarray)):
                raise TypeError("Image.from_teem: \"space directions\" must be a list of rows, "
                                "not %s" % _tname(sd))
            rows = list(sd)[comp:]
            if len(rows) != d:
                raise ValueError("Image.from_teem: %d space directions for %d spatial axes"
                                 % (len(rows), d))
            dirs = [_reals(rows[d - 1 - a], "Image.from_teem: space direction %d" % (d - 1 - a + comp))
                    for a in range(d)]
            if len({len(r) for r in dirs}) != 1:
                raise ValueError("Image.from_teem: space directions of different lengths: %s" % dirs)
            origin = header.get("space origin")
            return cls(c, origin=None if origin is None else _reals(origin, "Image.from_teem: space origin"),
                       directions=dirs)
        sp = header.get("spacings")
        if sp is not None:
            if isinstance(sp, (str, bytes)) or not isinstance(sp, (list, tuple, np.ndarray)):
                raise TypeError("Image.from_teem: \"spacings\" must be a list, not %s" % _tname(sp))
            sp = [1.0 if x is None else x for x in list(sp)[comp:]]
            sp = [1.0 if math.isnan(x) else x for x in _reals(sp, "Image.from_teem: spacings")]
        return cls(c, spacing=None if sp is None else list(reversed(sp)))

    def geometry(self, d):
        """(origin, NumPy-axis directions) for a d-dimensional image."""
        origin = self.origin if self.origin is not None else [0.0] * d
        if len(origin) != d:
            raise ValueError("origin has %d coordinates, expected %d" % (len(origin), d))
        if self.directions is not None:
            dirs = self.directions
            if dirs.shape != (d, d):
                raise ValueError("directions has shape %s, expected (%d, %d)"
                                 % (dirs.shape, d, d))
            if not np.all(np.isfinite(dirs)):
                raise ValueError("directions are not all finite")
            return origin, [list(v) for v in dirs]
        sp = self.spacing if self.spacing is not None else [1.0] * d
        if len(sp) != d:
            raise ValueError("spacing has %d values, expected %d" % (len(sp), d))
        vecs = []
        for a in range(d):
            v = [0.0] * d
            v[d - 1 - a] = sp[a]
            vecs.append(v)
        return origin, vecs

    def _nrrd(self, dim, comp_shape):
        """A WrappedNrrd for an image(dim)[comp_shape] input."""
        a = self.data
        ncomp_axes = len(comp_shape)
        want = "%d grid axes%s" % (dim, " then components %s" % (tuple(comp_shape),)
                                   if comp_shape else "")
        if a.ndim != dim + ncomp_axes or tuple(a.shape[dim:]) != tuple(comp_shape):
            raise ValueError("expected an array of %s, got shape %s" % (want, a.shape))
        if a.dtype == np.bool_:
            a = a.astype(np.uint8)
        if a.dtype.kind not in "iuf" or a.dtype.itemsize > 8:
            raise TypeError("expected an array of integers or reals, got dtype %s" % a.dtype)
        if a.size == 0:
            raise ValueError("the image is empty (shape %s)" % (a.shape,))
        origin, vecs = self.geometry(dim)
        if not all(np.isfinite(origin)):
            raise ValueError("origin is not finite")
        grid = list(reversed(a.shape[:dim]))
        kinds = [_teem.KIND_SPACE] * dim
        dirs = [vecs[dim - 1 - k] for k in range(dim)]  # NRRD axis k = NumPy axis dim-1-k
        if comp_shape:
            ck = _teem.component_kind(comp_shape)
            if ck is None:
                raise ValueError("no NRRD kind for image components of shape %s"
                                 % (tuple(comp_shape),))
            ncomp = int(np.prod(comp_shape))
            a = a.reshape(a.shape[:dim] + (ncomp,))
            sizes = [ncomp] + grid
            kinds = [ck] + kinds
            dirs = [None] + dirs
        else:
            sizes = grid
        return _teem.WrappedNrrd(a, sizes, kinds, space=(origin, dirs))

    def save_nrrd(self, path, dim=None):
        """Write the image as a NRRD file (space directions and origin).
        dim: the number of grid axes, needed for a non-scalar image given
        without spacing or directions (otherwise every axis is a grid axis)."""
        if dim is None:
            dim = self.data.ndim if self.spacing is None and self.directions is None else \
                len(self.spacing if self.spacing is not None else self.directions)
        comp = tuple(self.data.shape[dim:])
        with self._nrrd(dim, comp) as n:
            n.save(path)

    @classmethod
    def from_vtk(cls, img, array=None, dim=None, comp_shape=None):
        """An Image from a vtkImageData: its origin, spacing and direction
        matrix become the world geometry, and one point-data array the
        samples (array: its name; by default the only one or the active
        scalars/vectors/tensors). 1 component: a scalar image; 2 or 3: vectors;
        9 (4 in 2-D): a matrix, VTK's component r + 3c being m[r, c]. The
        samples are a view of VTK's array, not a copy."""
        data, origin, dirs = _vtk.image_from_vtk(img, array=array, dim=dim, comp_shape=comp_shape)
        return cls(data, origin=origin, directions=dirs)

    def to_vtk(self, name="values"):
        """A vtkImageData with this image's geometry and its samples as
        point-data array `name` (sharing this image's memory when the array
        is C-contiguous and not a matrix image)."""
        return _vtk.image_to_vtk(self, name)

    def save_vti(self, path, name="values"):
        """Write the image as a VTK XML image file (.vti), atomically."""
        _vtk.save_vtk_data(self.to_vtk(name), path)

    def __repr__(self):
        return "Image(shape=%s, dtype=%s)" % (self.data.shape, self.data.dtype)
