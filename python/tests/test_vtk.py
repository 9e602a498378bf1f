"""VTK data in and out (issue 33 §1): vtkImageData inputs of every voxel
shape with oblique direction matrices, Outputs.to_vtk, .vti files, and the
memory shared with VTK.

Oracles: VTK's own index-to-world transform (TransformContinuousIndexToPhysicalPoint),
linear functions of the index that Catmull-Rom reconstruction reproduces
exactly, the executables' NRRD files (read with tests/oracle/nrrd.py), and
VTK's component order of tensors (element (r, c) at component r + 3c).
"""
# needs: vtkmodules  (python/tests/group.py picks a python3 that has it)

import os

import numpy as np
import pytest

from conftest import run_exe, write

pytest.importorskip("vtkmodules", reason="VTK's Python modules are not installed "
                    "(Debian package python3-paraview)")
from vtkmodules.util import numpy_support as ns  # noqa: E402
from vtkmodules.vtkCommonDataModel import vtkImageData  # noqa: E402
from vtkmodules.vtkIOXML import vtkXMLImageDataReader, vtkXMLPolyDataReader  # noqa: E402

import diderot  # noqa: E402
import nrrd as oracle  # noqa: E402

PROBE3 = """#version 2.0
input image(3)[%s] img;
input vec3[] pts;
field#1(3)[%s] F = img ⊛ ctmr;
strand P (int i) {
  vec3 x = pts[i];
  output bool ins = false;
  output %s val = %s;
  update { if (inside(x, F)) { ins = true; val = F(x); } stabilize; }
}
create_collection { P(i) | i in 0..length(pts)-1 };
"""
SHAPES = {"": ("real", "0.0"), "3": ("vec3", "[0.0,0.0,0.0]"),
          "2": ("vec2", "[0.0,0.0]"), "3,3": ("tensor[3,3]", "identity[3]")}

# an oblique direction matrix (a rotation about (1, 2, 3), rows as VTK's
# SetDirectionMatrix takes them) and a mirrored one (determinant -1)
def _rot(axis, ang):
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(ang) * K + (1 - np.cos(ang)) * K @ K


DIRECTIONS = {"identity": np.eye(3), "oblique": _rot([1, 2, 3], 0.7),
              "mirrored": _rot([0, 1, 1], -0.4) @ np.diag([1, -1, 1])}


def vtk_image(values, spacing, origin, direction, extent0=(0, 0, 0), name="f"):
    """A vtkImageData of values[k, j, i, ...] (components flattened in VTK's
    order by the caller) with this geometry."""
    nz, ny, nx = values.shape[:3]
    img = vtkImageData()
    e = extent0
    img.SetExtent(e[0], e[0] + nx - 1, e[1], e[1] + ny - 1, e[2], e[2] + nz - 1)
    img.SetSpacing(*spacing)
    img.SetOrigin(*origin)
    img.SetDirectionMatrix(*[float(x) for x in np.ravel(direction)])
    nc = int(np.prod(values.shape[3:])) if values.ndim > 3 else 1
    flat = np.ascontiguousarray(values.reshape(nx * ny * nz, nc) if nc > 1 else values.ravel())
    arr = ns.numpy_to_vtk(flat, deep=True)
    arr.SetName(name)
    img.GetPointData().AddArray(arr)
    img.GetPointData().SetActiveScalars(name)
    return img


def world(img, idx):
    """World positions of continuous indices (i, j, k) of img, by VTK."""
    out = []
    for p in idx:
        w = [0.0, 0.0, 0.0]
        img.TransformContinuousIndexToPhysicalPoint(*[float(x) for x in p], w)
        out.append(w)
    return np.array(out)


@pytest.fixture(scope="module")
def probes(compile, tmp_path_factory):
    d = tmp_path_factory.mktemp("vtkprobe")
    progs = {}
    for shape, (ty, zero) in SHAPES.items():
        src = PROBE3 % (shape, shape, ty, zero)
        progs[shape] = compile(write(d, "p%s.diderot" % shape.replace(",", "x"), src), double=True)
    return progs


def linear_components(grid, ncomp, seed):
    """values[k, j, i, c] = a_c . (i, j, k) + b_c for random a_c, b_c."""
    rng = np.random.default_rng(seed)
    A = rng.uniform(-2, 2, size=(ncomp, 3))
    b = rng.uniform(-1, 1, size=ncomp)
    k, j, i = np.mgrid[0:grid[0], 0:grid[1], 0:grid[2]]
    ijk = np.stack([i, j, k], axis=-1).astype(float)
    return ijk @ A.T + b, A, b


@pytest.mark.parametrize("dname", sorted(DIRECTIONS))
@pytest.mark.parametrize("shape", ["", "3", "2", "3,3"])
def test_vtk_image_input(probes, dname, shape):
    """A vtkImageData (oblique directions, anisotropic spacing, an extent not
    starting at 0) probed at VTK's own world positions of continuous
    indices gives the linear function of those indices."""
    comp = tuple(int(x) for x in shape.split(",") if x)
    ncomp = int(np.prod(comp)) if comp else 1
    grid = (7, 8, 9)  # nz, ny, nx
    vals, A, b = linear_components(grid, ncomp, seed=len(shape) + len(dname))
    img = vtk_image(vals.reshape(grid + ((ncomp,) if comp else ())), (0.3, 0.5, 0.2),
                    (1.0, -2.0, 0.5), DIRECTIONS[dname], extent0=(2, -3, 1))
    e = img.GetExtent()
    local = np.array([[2.5, 3.25, 2.75], [1.2, 5.6, 3.3], [6.5, 1.5, 4.9], [-4.0, 2.0, 2.0]])
    idx = local + [e[0], e[2], e[4]]  # VTK's indices count from the extent's start
    pts = world(img, idx)
    out = probes[shape].run(img=img, pts=pts)
    inside = np.all((local >= 1) & (local < np.array([9, 8, 7]) - 2), axis=1)
    np.testing.assert_array_equal(out.ins, inside)
    want = local @ A.T + b  # values are linear in the local index
    if comp == (3, 3):
        want = want.reshape(-1, 3, 3).swapaxes(1, 2)  # VTK: element (r, c) is component r + 3c
    elif not comp:
        want = want[:, 0]
    got = np.asarray(out.val)[inside]
    np.testing.assert_allclose(got, want[inside], rtol=1e-9, atol=1e-9)


def test_vtk_2d_image_and_its_plane(compile, tmp_path):
    """A 2-D vtkImageData (dims (nx, ny, 1)) is an image(2): its direction
    matrix's upper 2x2 block is the geometry; one that leaves the xy plane
    is refused with the reason."""
    src = """#version 2.0
input image(2)[] img;
input vec2 x = [0.0, 0.0];
field#1(2)[] F = img ⊛ ctmr;
strand S (int i) { output real v = F(x); update { stabilize; } }
create_array { S(i) | i in 0..0 };
"""
    prog = compile(write(tmp_path, "two.diderot", src), double=True)
    j, i = np.mgrid[0:6, 0:10]
    vals = (2.0 * i - 3.0 * j + 1.0)[None]
    ang = 0.3
    R = np.array([[np.cos(ang), -np.sin(ang), 0], [np.sin(ang), np.cos(ang), 0], [0, 0, 1]])
    img = vtk_image(vals, (0.5, 0.25, 1.0), (1.0, 2.0, 7.0), R)
    x = world(img, [[3.5, 2.25, 0]])[0]
    out = prog.run(img=img, x=x[:2])
    np.testing.assert_allclose(out.v, [2.0 * 3.5 - 3.0 * 2.25 + 1.0], rtol=1e-10)
    tilted = vtk_image(vals, (0.5, 0.25, 1.0), (0, 0, 0), _rot([1, 0, 0], 0.5))
    with pytest.raises(ValueError, match="not parallel to the world's first 2 axes"):
        prog.run(img=tilted, x=[0.0, 0.0])


@pytest.mark.parametrize("dname", sorted(DIRECTIONS))
@pytest.mark.parametrize("comp", [(), (2,), (3,), (3, 3)])
def test_image_round_trip(dname, comp, tmp_path):
    """Image -> vtkImageData -> Image and through a .vti file: the same
    samples, origin and directions; the world positions VTK computes equal
    origin + sum of index times direction."""
    rng = np.random.default_rng(3)
    data = rng.random((4, 5, 6) + comp)
    D = DIRECTIONS[dname] * [0.5, 0.25, 2.0]  # columns: steps of VTK's i, j, k
    dirs = [D[:, 2], D[:, 1], D[:, 0]]  # NumPy axes k, j, i
    img = diderot.Image(data, origin=[0.5, -1.0, 3.0], directions=dirs)
    v = img.to_vtk()
    assert v.GetDimensions() == (6, 5, 4)
    np.testing.assert_allclose(world(v, [[1, 2, 3]])[0],
                               np.array([0.5, -1.0, 3.0]) + 3 * dirs[0] + 2 * dirs[1] + 1 * dirs[2],
                               atol=1e-12)
    path = str(tmp_path / "r.vti")
    img.save_vti(path)
    for back in (diderot.Image.from_vtk(v, comp_shape=comp), diderot.Image.load(path)):
        np.testing.assert_array_equal(back.data, data)
        np.testing.assert_allclose(back.origin, img.origin, atol=1e-12)
        np.testing.assert_allclose(back.directions, np.array(dirs), atol=1e-12)
    if len(comp) == 2:  # VTK's component order, read back by VTK's reader
        r = vtkXMLImageDataReader()
        r.SetFileName(path)
        r.Update()
        flat = ns.vtk_to_numpy(r.GetOutput().GetPointData().GetArray("values"))
        np.testing.assert_array_equal(flat[:, 1], data.reshape(-1, 3, 3)[:, 1, 0])


def test_shared_memory():
    """No copies: an input read from VTK is a view of VTK's buffer, and an
    output wrapped for VTK is VTK's array over the NumPy buffer."""
    vals = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
    v = vtk_image(vals, (1, 1, 1), (0, 0, 0), np.eye(3))
    img = diderot.Image.from_vtk(v)
    vtk_view = ns.vtk_to_numpy(v.GetPointData().GetArray("f"))
    assert np.shares_memory(img.data, vtk_view)
    v.GetPointData().GetArray("f").SetValue(7, -1.0)  # written through VTK ...
    assert img.data.ravel()[7] == -1.0                 # ... seen by the Image
    back = img.to_vtk()
    arr = back.GetPointData().GetArray("values")
    assert np.shares_memory(ns.vtk_to_numpy(arr), img.data)


GRID = """#version 2.0
input int nx = 5;
input int ny = 3;
strand S (int i, int j) {
  output real s = real(i) + 10.0*real(j);
  output vec3 v = [real(i), real(j), 1.0];
  output tensor[3,3] m = [[1.0, real(i), 0.0], [real(j), 2.0, 0.0], [0.0, 0.0, 3.0]];
  output int n = i*j;
  output bool b = i > j;
  update { stabilize; }
}
create_array { S(i, j) | j in 0..ny-1, i in 0..nx-1 };
"""


def test_grid_outputs_to_vtk(compile, exe, tmp_path):
    """Grid outputs as one vtkImageData: dimensions (nx, ny, 1), x along the
    last iterator, every output a point-data array equal to the
    executable's NRRD file (tensors in VTK's order)."""
    src = write(tmp_path, "grid.diderot", GRID)
    out = compile(src).run(nx=5, ny=3)
    img = out.to_vtk(spacing=(0.5, 2.0), origin=(1.0, 2.0))
    assert img.GetDimensions() == (5, 3, 1)
    assert img.GetSpacing() == (2.0, 0.5, 1.0) and img.GetOrigin() == (1.0, 2.0, 0.0)
    pd = img.GetPointData()
    run_exe(exe(src), ["-nx", "5", "-ny", "3"], str(tmp_path))
    for name, nc in (("s", 1), ("v", 3), ("m", 9), ("n", 1), ("b", 1)):
        a = ns.vtk_to_numpy(pd.GetArray(name))
        assert pd.GetArray(name).GetNumberOfComponents() == nc
        f = oracle.read(str(tmp_path / ("%s.nrrd" % name)))
        want = np.asarray(f.data, dtype=float).reshape(-1, nc)  # NRRD: components fastest, then x, y
        if name == "m":
            want = want.reshape(-1, 3, 3).swapaxes(1, 2).reshape(-1, 9)  # row-major -> VTK's
        np.testing.assert_array_equal(a.reshape(-1, nc).astype(float), want)
    # point (i, j) of the VTK image holds strand S(i, j)
    s = ns.vtk_to_numpy(pd.GetArray("s"))
    assert s[2 + 5 * 1] == 2 + 10 * 1
    assert np.shares_memory(s, out.s)
    path = str(tmp_path / "g.vti")
    with open(path, "w") as f:
        f.write("old")
    out.save_vti(path)
    r = vtkXMLImageDataReader()
    r.SetFileName(path)
    r.Update()
    np.testing.assert_array_equal(ns.vtk_to_numpy(r.GetOutput().GetPointData().GetArray("v")),
                                  out.v.reshape(-1, 3))
    assert not [f for f in os.listdir(str(tmp_path)) if f.startswith(".g.vti")]  # no temporary left


def test_collection_to_polydata(compile, exe, tmp_path):
    """A collection (isocontour particles) as vtkPolyData: one vertex per
    stable strand at its pos, the executable's positions as a multiset."""
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..",
                       "examples", "isocontour", "isocontour.diderot")
    out = compile(src).run(res=30)
    poly = out.to_vtk()
    assert poly.IsA("vtkPolyData") and poly.GetNumberOfVerts() == out.stable > 0
    pts = ns.vtk_to_numpy(poly.GetPoints().GetData())
    np.testing.assert_array_equal(pts[:, 2], 0.0)
    run_exe(exe(src), ["-res", "30", "-o", str(tmp_path / "pos.nrrd")], os.path.dirname(src))
    want = np.asarray(oracle.read(str(tmp_path / "pos.nrrd")).data, dtype=float).reshape(-1, 2)
    key = lambda a: a[np.lexsort(a.T[::-1])]
    np.testing.assert_allclose(key(pts[:, :2]), key(want), rtol=1e-6)
    path = str(tmp_path / "p.vtp")
    out.save_vtp(path)
    r = vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    assert r.GetOutput().GetNumberOfPoints() == len(want)
    with pytest.raises(TypeError, match="save_vtp"):
        out.save_vti(str(tmp_path / "no.vti"))


def test_vtk_errors(probes):
    v = vtk_image(np.zeros((3, 3, 3)), (1, 1, 1), (0, 0, 0), np.eye(3))
    v.GetPointData().AddArray(ns.numpy_to_vtk(np.zeros(27)))
    v.GetPointData().GetArray(1).SetName("g")
    v.GetPointData().SetActiveScalars(None)
    with pytest.raises(ValueError, match="several point-data arrays"):
        diderot.Image.from_vtk(v)
    with pytest.raises(ValueError, match="no point-data array 'h'"):
        diderot.Image.from_vtk(v, array="h")
    with pytest.raises(ValueError, match=r"input 'img' \(image\(3\)\[3\]\): .*several"):
        probes["3"].run(img=v, pts=[[0.0, 0.0, 0.0]])
