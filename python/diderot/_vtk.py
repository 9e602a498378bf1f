"""VTK data in and out (issue 33 §1): vtkImageData <-> diderot.Image, and
Outputs as vtkImageData (grids) or vtkPolyData (collections).

VTK is imported only when one of these functions is called, so the package
works without it. The modules are VTK's own `vtkmodules` (Debian: they come
with python3-paraview, or python3-vtk9; pvpython has them).

Conventions (VTK's, then ours):
  * a vtkImageData point (i, j, k) of extent e is at world
    origin + D . (spacing * (i, j, k)), D the direction matrix (identity
    when VTK has none), with i the fastest index in memory. Our NumPy
    layout is data[k, j, i], so NumPy grid axis 0 (k) has the world step
    D[:, 2] * spacing[2], and so on.
  * point-data arrays of 1 component are scalar images, of 2 or 3 vectors,
    of 9 (or 4 for a 2-D image) tensors. VTK stores a tensor's element
    (r, c) at component r + 3c (vtkTensor: column after column), which we
    turn into m[..., r, c].
  * arrays are wrapped, not copied, where VTK and NumPy can share the
    memory (numpy_support with deep=False): a scalar or vector array read
    from VTK is a view of VTK's buffer, and a C-contiguous output array
    becomes a VTK array over the NumPy buffer (VTK keeps a reference to
    it). Tensors (transposed), bools (as unsigned char) and non-contiguous
    arrays are copied.
"""

import os
import re
import tempfile

import numpy as np


def _modules():
    try:
        from vtkmodules import vtkCommonCore, vtkCommonDataModel
        from vtkmodules.util import numpy_support
    except ImportError as e:
        raise ImportError("diderot: VTK's Python modules (vtkmodules) are not importable (%s); "
                          "on Debian they come with python3-paraview (or python3-vtk9), "
                          "or run under pvpython" % e) from None
    return vtkCommonCore, vtkCommonDataModel, numpy_support


def is_vtk_image(v):
    """True when v is a vtkImageData (without importing VTK)."""
    return hasattr(v, "IsA") and hasattr(v, "GetDimensions") and v.IsA("vtkImageData")


def _pick_array(img, array, ncomp):
    """The point-data array to read: the one named, else the only one, else
    the active scalars/vectors/tensors, else the only one with ncomp
    components."""
    pd = img.GetPointData()
    names = [pd.GetArrayName(i) for i in range(pd.GetNumberOfArrays())]
    if array is not None:
        a = pd.GetArray(array)
        if a is None:
            raise ValueError("the vtkImageData has no point-data array %r (it has: %s)"
                             % (array, ", ".join(map(str, names)) or "none"))
        return a
    if not names:
        raise ValueError("the vtkImageData has no point-data array")
    if len(names) == 1:
        return pd.GetArray(0)
    for act in (pd.GetScalars(), pd.GetVectors(), pd.GetTensors()):
        if act is not None and (ncomp is None or act.GetNumberOfComponents() == ncomp):
            return act
    fits = [pd.GetArray(i) for i in range(len(names))
            if ncomp is not None and pd.GetArray(i).GetNumberOfComponents() == ncomp]
    if len(fits) == 1:
        return fits[0]
    raise ValueError("the vtkImageData has several point-data arrays (%s): name one "
                     "(Image.from_vtk(img, array=NAME))" % ", ".join(map(str, names)))


def _direction(img):
    if hasattr(img, "GetDirectionMatrix"):
        m = img.GetDirectionMatrix()
        return np.array([[m.GetElement(r, c) for c in range(3)] for r in range(3)])
    return np.eye(3)


def image_from_vtk(img, array=None, dim=None, comp_shape=None):
    """(data, origin, directions) of an Image (see Image.from_vtk) from a
    vtkImageData."""
    _, _, ns = _modules()
    dims = list(img.GetDimensions())
    if dim is None:
        dim = 3 if dims[2] > 1 else (2 if dims[1] > 1 else 1)
    if any(n != 1 for n in dims[dim:]):
        raise ValueError("the vtkImageData has dimensions %s: not a %d-D image" % (tuple(dims), dim))
    want = None if comp_shape is None else int(np.prod(comp_shape)) if comp_shape else 1
    arr = _pick_array(img, array, want)
    nc = arr.GetNumberOfComponents()
    data = ns.vtk_to_numpy(arr)  # a view of VTK's buffer
    grid = tuple(reversed(dims[:dim]))
    if comp_shape is None:
        comp_shape = () if nc == 1 else (dim, dim) if nc == dim * dim and nc > 3 else (nc,)
    if int(np.prod(comp_shape)) != nc:
        raise ValueError("point-data array %r has %d components, expected %d for voxels of "
                         "shape %s" % (arr.GetName(), nc, int(np.prod(comp_shape)), tuple(comp_shape)))
    if len(comp_shape) == 2:
        m = comp_shape[0]
        # VTK's tensor element (r, c) is component r + m c
        data = data.reshape(grid + (m, m)).swapaxes(-1, -2)
    else:
        data = data.reshape(grid + tuple(comp_shape))
    sp = np.array(img.GetSpacing(), dtype=float)
    d3 = _direction(img)
    ext = img.GetExtent()
    first = np.array([ext[0], ext[2], ext[4]], dtype=float)
    origin = np.array(img.GetOrigin(), dtype=float) + d3 @ (sp * first)
    step = d3 * sp  # column a: the world step of VTK index a
    if dim < 3:
        if np.any(step[dim:, :dim] != 0):
            raise ValueError("the %d-D vtkImageData is not parallel to the world's first %d axes "
                             "(direction matrix %s)" % (dim, dim, d3.tolist()))
        step = step[:dim, :dim]
        origin = origin[:dim]
    dirs = [list(step[:, dim - 1 - a]) for a in range(dim)]  # NumPy axis a = VTK index dim-1-a
    return data, list(origin), dirs


def _flat_components(a, grid_ndim):
    """a (grid shape + value shape) as (npoints, ncomp) in VTK's component
    order; a view when possible."""
    vshape = a.shape[grid_ndim:]
    n = int(np.prod(a.shape[:grid_ndim])) if grid_ndim else a.shape[0]
    if a.dtype == np.bool_:
        a = a.astype(np.uint8)
    if len(vshape) == 2:  # tensors: element (r, c) at r + m c
        a = np.ascontiguousarray(a.swapaxes(-1, -2))
    nc = int(np.prod(vshape)) if vshape else 1
    a = np.ascontiguousarray(a)  # no copy when it is already contiguous
    return a.reshape(n, nc) if nc > 1 else a.reshape(n)


def numpy_to_vtk_array(a, name, grid_ndim):
    """A vtkDataArray named name over a's samples (shared when possible)."""
    _, _, ns = _modules()
    flat = _flat_components(np.asarray(a), grid_ndim)
    v = ns.numpy_to_vtk(flat, deep=False)
    v._diderot_numpy = flat  # keep the buffer alive as long as the VTK array
    v.SetName(name)
    return v


def _set_geometry(img, dims3, origin, dirs):
    """Set origin, spacing and direction of a vtkImageData from world steps
    per VTK index axis (columns of the 3x3 `dirs`)."""
    sp = np.linalg.norm(dirs, axis=0)
    sp[sp == 0] = 1.0
    img.SetDimensions(*dims3)
    img.SetOrigin(*origin)
    img.SetSpacing(*sp)
    d = dirs / sp
    if hasattr(img, "SetDirectionMatrix"):
        img.SetDirectionMatrix(*[float(x) for x in d.ravel()])
    elif not np.allclose(d, np.eye(3)):
        raise ValueError("this VTK has no direction matrix for an oblique image")


def image_to_vtk(image, name="values"):
    """A vtkImageData of an Image (its data as point-data array `name`)."""
    _, dm, _ = _modules()
    a = image.data
    dim = _image_dim(image)
    origin, vecs = image.geometry(dim)
    step = np.eye(3)
    o3 = np.zeros(3)
    o3[:dim] = origin
    for a_ in range(dim):
        col = np.zeros(3)
        col[:dim] = vecs[a_]
        step[:, dim - 1 - a_] = col
    dims3 = list(reversed(a.shape[:dim])) + [1] * (3 - dim)
    img = dm.vtkImageData()
    _set_geometry(img, dims3, o3, step)
    arr = numpy_to_vtk_array(a, name, dim)
    img.GetPointData().AddArray(arr)
    _make_active(img.GetPointData(), arr)
    return img


def _image_dim(image):
    if image.directions is not None:
        return len(image.directions)
    if image.spacing is not None:
        return len(image.spacing)
    if image.origin is not None:
        return len(image.origin)
    return image.data.ndim


def _make_active(pd, arr):
    nc = arr.GetNumberOfComponents()
    if nc == 1:
        pd.SetActiveScalars(arr.GetName())
    elif nc == 3:
        pd.SetActiveVectors(arr.GetName())
    elif nc == 9:
        pd.SetActiveTensors(arr.GetName())


def outputs_to_vtk(outputs, kinds, names=None, points=None, origin=None, spacing=None):
    """See Outputs.to_vtk."""
    _, dm, _ = _modules()
    names = list(outputs) if names is None else list(names)
    for n in names:
        if n not in outputs:
            raise KeyError("no output %r (outputs: %s)" % (n, ", ".join(outputs)))
    names = [n for n in names if isinstance(outputs[n], np.ndarray)]  # not Sequences
    if not names:
        raise ValueError("to_vtk: no output with one value per strand (T[] outputs are left out)")
    # a collection's axis of strands has kind "list"; a grid's axes are "space"
    grid_axes = {n: sum(1 for k in kinds[n] if k == "space") for n in names}
    collection = any(kinds[n][-1:] == ["list"] for n in names) or points is not None
    if collection:
        return _polydata(outputs, names, points, dm)
    g = grid_axes[names[0]]
    shape = np.asarray(outputs[names[0]]).shape[:g]
    if g > 3:
        raise ValueError("to_vtk: a grid of %d axes does not fit a vtkImageData" % g)
    img = dm.vtkImageData()
    dims3 = list(reversed(shape)) + [1] * (3 - g)
    sp = np.ones(3)
    if spacing is not None:
        sp[:g] = list(reversed(np.ravel(spacing)))
    o3 = np.zeros(3)
    if origin is not None:
        o3[:len(np.ravel(origin))] = np.ravel(origin)
    _set_geometry(img, dims3, o3, np.diag(sp))
    pd = img.GetPointData()
    for n in names:
        arr = numpy_to_vtk_array(outputs[n], n, g)
        pd.AddArray(arr)
    _make_active(pd, pd.GetArray(names[0]))
    return img


def _polydata(outputs, names, points, dm):
    cc, _, ns = _modules()
    if points is None:
        cands = [n for n in names if np.asarray(outputs[n]).shape[1:] in ((2,), (3,))]
        if not cands:
            raise ValueError("to_vtk: no vec2 or vec3 output to place the points at; "
                             "name one with points=")
        points = cands[0]
    p = np.asarray(outputs[points], dtype=np.float64)
    if p.ndim != 2 or p.shape[1] not in (2, 3):
        raise ValueError("to_vtk: points=%r is not a vec2 or vec3 output" % points)
    if p.shape[1] == 2:
        p = np.hstack([p, np.zeros((p.shape[0], 1))])
    n = p.shape[0]
    pts = cc.vtkPoints()
    pts.SetData(ns.numpy_to_vtk(np.ascontiguousarray(p), deep=True))
    poly = dm.vtkPolyData()
    poly.SetPoints(pts)
    verts = dm.vtkCellArray()
    off = ns.numpy_to_vtkIdTypeArray(np.arange(n + 1, dtype=ns.ID_TYPE_CODE), deep=True)
    con = ns.numpy_to_vtkIdTypeArray(np.arange(n, dtype=ns.ID_TYPE_CODE), deep=True)
    verts.SetData(off, con)
    poly.SetVerts(verts)
    pd = poly.GetPointData()
    for name in names:
        v = np.asarray(outputs[name])
        if v.shape[:1] != (n,):
            raise ValueError("to_vtk: output %r has %d values for %d points" % (name, v.shape[0], n))
        pd.AddArray(numpy_to_vtk_array(v, name, 1))
    return poly


def _atomic_write(writer_cls, data, path):
    """Write with a VTK XML writer into a temporary file beside path, then
    rename it over path: a reader never sees half a file, and a failed write
    leaves the old file."""
    path = os.fspath(path)
    d = os.path.dirname(os.path.abspath(path))
    # the temporary ends in the real extension: VTK's XML writers write
    # nothing (and report success) to some names, e.g. ones ending in '_'
    ext = ".vti" if writer_cls.__name__ == "vtkXMLImageDataWriter" else ".vtp"
    fd, tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), suffix=ext, dir=d)
    os.close(fd)
    try:
        w = writer_cls()
        w.SetFileName(tmp)
        w.SetInputData(data)
        w.SetDataModeToBinary()
        if not w.Write() or os.path.getsize(tmp) == 0:
            raise OSError("could not write '%s' (VTK's %s failed)" % (path, writer_cls.__name__))
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m


def save_vtk_data(data, path):
    """data (vtkImageData or vtkPolyData) to path: .vti or .vtp (XML)."""
    try:
        from vtkmodules.vtkIOXML import vtkXMLImageDataWriter, vtkXMLPolyDataWriter
    except ImportError:
        _modules()
        raise
    if data.IsA("vtkImageData"):
        _atomic_write(vtkXMLImageDataWriter, data, path)
    else:
        _atomic_write(vtkXMLPolyDataWriter, data, path)


def load_vti(path, array=None):
    """An Image from a .vti file (VTK's XML image data)."""
    _modules()
    from vtkmodules.vtkIOXML import vtkXMLImageDataReader
    if not os.path.exists(path):
        raise FileNotFoundError("no such file '%s'" % path)
    r = vtkXMLImageDataReader()
    r.SetFileName(os.fspath(path))
    r.Update()
    img = r.GetOutput()
    if img is None or img.GetNumberOfPoints() == 0:
        raise ValueError("'%s': not a VTK XML image (.vti) file with points" % path)
    return image_from_vtk(img, array=array)  # (data, origin, directions)


_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def strands_kind(source_text):
    """'collection' when the program ends with create_collection, else
    'grid' (the JSON description does not say; the Diderot grammar has
    exactly one of create_array/create_collection)."""
    return "collection" if "create_collection" in _COMMENTS.sub(" ", source_text) else "grid"
