"""Teem's nrrd library through cffi (ABI mode), and NumPy <-> Nrrd.

The generated libraries take images and sequences and give outputs as Teem
Nrrds, so this module declares the few Teem functions the package needs.
Only the first three fields of Nrrd are declared (data, type, dim): every
Nrrd here comes from nrrdNew, so only offsets matter, never sizeof(Nrrd);
everything else goes through Teem's accessor functions.
"""

import ctypes.util
import math
import os

import numpy as np
from cffi import FFI

NRRD_DIM_MAX = 16
NRRD_SPACE_DIM_MAX = 8

CDEF = """
typedef struct { void *data; int type; unsigned int dim; } Nrrd;
typedef struct airEnum airEnum;
typedef struct NrrdIoState_t NrrdIoState;
Nrrd *nrrdNew(void);
Nrrd *nrrdNix(Nrrd *nrrd);
Nrrd *nrrdNuke(Nrrd *nrrd);
int nrrdWrap_nva(Nrrd *nrrd, void *data, int type, unsigned int dim, const size_t *size);
void nrrdAxisInfoSet_nva(Nrrd *nin, int axInfo, const void *info);
void nrrdAxisInfoGet_nva(const Nrrd *nrrd, int axInfo, void *info);
int nrrdSpaceDimensionSet(Nrrd *nrrd, unsigned int spaceDim);
unsigned int nrrdSpaceOriginGet(const Nrrd *nrrd, double vector[8]);
int nrrdSpaceOriginSet(Nrrd *nrrd, const double *vector);
int nrrdLoad(Nrrd *nrrd, const char *filename, NrrdIoState *nio);
int nrrdSave(const char *filename, const Nrrd *nrrd, NrrdIoState *nio);
char *biffGetDone(const char *key);
const char *airEnumStr(const airEnum *enm, int val);
int airEnumVal(const airEnum *enm, const char *str);
extern const airEnum *nrrdType;  /* "*const" in Teem: cffi reads it as a variable */
extern const airEnum *nrrdKind;
void free(void *ptr);
"""

# nrrdAxisInfo* (teem/nrrdEnums.h): a plain C enum, not an airEnum
AXIS_SIZE, AXIS_SPACING, AXIS_SPACE_DIRECTION, AXIS_KIND = 1, 2, 6, 8

ffi = FFI()
ffi.cdef(CDEF)


def _open_teem():
    for name in (os.environ.get("DIDEROT_TEEM_LIB"), ctypes.util.find_library("teem"),
                 "libteem.so.2", "libteem.so.1", "libteem.so"):
        if not name:
            continue
        try:
            return ffi.dlopen(name)
        except OSError:
            continue
    raise ImportError("diderot: cannot load Teem's shared library libteem "
                      "(Debian package: libteem-dev or libteem2); set DIDEROT_TEEM_LIB")


teem = _open_teem()
libc = ffi.dlopen(None)

# Teem's type names (airEnumStr(nrrdType, t)) and NumPy's
_TYPE_NAMES = {
    "signed char": np.int8, "unsigned char": np.uint8, "short": np.int16,
    "unsigned short": np.uint16, "int": np.int32, "unsigned int": np.uint32,
    "long long int": np.int64, "unsigned long long int": np.uint64,
    "float": np.float32, "double": np.float64,
}
TYPE_TO_NP = {}
NP_TO_TYPE = {}
for _name, _dt in _TYPE_NAMES.items():
    _t = teem.airEnumVal(teem.nrrdType, _name.encode())
    TYPE_TO_NP[_t] = np.dtype(_dt)
    NP_TO_TYPE[np.dtype(_dt)] = _t


def kind_value(name):
    return teem.airEnumVal(teem.nrrdKind, name.encode())


def kind_name(value):
    s = teem.airEnumStr(teem.nrrdKind, value)
    return ffi.string(s).decode() if s != ffi.NULL else "???"


KIND_SPACE = kind_value("space")
KIND_LIST = kind_value("list")
KIND_UNKNOWN = 0

# the kind of a component axis holding a tensor of this shape (what the
# runtime accepts on axis 0 of an image, rt/rt_image.c)
_COMPONENT_KINDS = {(2,): "2-vector", (3,): "3-vector", (4,): "4-vector",
                    (2, 2): "2D-matrix", (3, 3): "3D-matrix"}


def component_kind(shape):
    name = _COMPONENT_KINDS.get(tuple(shape))
    return kind_value(name) if name else None


def biff_message():
    """Teem's error text for the last failed nrrd call."""
    s = teem.biffGetDone(b"nrrd")
    if s == ffi.NULL:
        return "unknown Teem error"
    try:
        return ffi.string(s).decode(errors="replace").strip()
    finally:
        libc.free(s)


class WrappedNrrd:
    """A Nrrd that points into a NumPy array (kept alive here); nrrdNix on
    close frees the struct, never the array."""

    def __init__(self, array, sizes, kinds=None, space=None):
        arr = np.asarray(array)
        if arr.dtype.byteorder not in "=|":  # Teem wraps native-order samples
            arr = arr.astype(arr.dtype.newbyteorder("="))
        self.array = np.ascontiguousarray(arr)
        t = NP_TO_TYPE.get(self.array.dtype)
        if t is None:
            raise TypeError("NumPy type %s has no NRRD equivalent" % self.array.dtype)
        self.ptr = teem.nrrdNew()
        if self.ptr == ffi.NULL:
            raise MemoryError("nrrdNew")
        csizes = ffi.new("size_t[]", [int(s) for s in sizes])
        data = ffi.from_buffer(self.array) if self.array.size else ffi.NULL
        if teem.nrrdWrap_nva(self.ptr, ffi.cast("void *", data), t, len(sizes), csizes):
            msg = biff_message()
            self.close()
            raise ValueError("cannot make a NRRD of sizes %s: %s" % (list(sizes), msg))
        if kinds is not None:
            teem.nrrdAxisInfoSet_nva(self.ptr, AXIS_KIND, ffi.new("int[]", list(kinds)))
        if space is not None:
            origin, dirs = space  # dirs: per NRRD axis, a vector or None
            sd = len(origin)
            teem.nrrdSpaceDimensionSet(self.ptr, sd)
            teem.nrrdSpaceOriginSet(self.ptr, ffi.new("double[]", [float(x) for x in origin]))
            sdir = ffi.new("double[%d][%d]" % (NRRD_DIM_MAX, NRRD_SPACE_DIM_MAX))
            for ax in range(NRRD_DIM_MAX):
                for i in range(NRRD_SPACE_DIM_MAX):
                    sdir[ax][i] = math.nan
            for ax, v in enumerate(dirs):
                if v is not None:
                    for i in range(sd):
                        sdir[ax][i] = float(v[i])
            teem.nrrdAxisInfoSet_nva(self.ptr, AXIS_SPACE_DIRECTION, sdir)

    def save(self, path):
        if teem.nrrdSave(os.fsencode(path), self.ptr, ffi.NULL):
            raise OSError("cannot write '%s': %s" % (os.fsdecode(path), biff_message()))

    def close(self):
        if self.ptr is not None and self.ptr != ffi.NULL:
            teem.nrrdNix(self.ptr)
        self.ptr = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def nrrd_info(n):
    """(NumPy dtype, sizes, kinds) of a Nrrd, axis 0 first."""
    dim = n.dim
    sizes = ffi.new("size_t[%d]" % NRRD_DIM_MAX)
    kinds = ffi.new("int[%d]" % NRRD_DIM_MAX)
    teem.nrrdAxisInfoGet_nva(n, AXIS_SIZE, sizes)
    teem.nrrdAxisInfoGet_nva(n, AXIS_KIND, kinds)
    dt = TYPE_TO_NP.get(n.type)
    if dt is None:
        raise TypeError("a NRRD of unsupported sample type %d" % n.type)
    return dt, [int(sizes[i]) for i in range(dim)], [int(kinds[i]) for i in range(dim)]


def nrrd_to_numpy(n):
    """A copy of a Nrrd's samples as a C-order array of the reversed sizes
    (NRRD axis 0, the fastest, becomes the last NumPy axis)."""
    dt, sizes, kinds = nrrd_info(n)
    count = 1
    for s in sizes:
        count *= s
    if n.data == ffi.NULL or count == 0:
        arr = np.zeros(tuple(reversed(sizes)), dtype=dt)
    else:
        buf = ffi.buffer(n.data, count * dt.itemsize)
        arr = np.frombuffer(buf, dtype=dt).copy().reshape(tuple(reversed(sizes)))
    return arr, sizes, kinds


def nrrd_space(n):
    """(origin, directions per NRRD axis or None) of a Nrrd with a space,
    else (None, spacings per axis)."""
    origin = ffi.new("double[%d]" % NRRD_SPACE_DIM_MAX)
    sd = teem.nrrdSpaceOriginGet(n, origin)
    if sd:
        sdir = ffi.new("double[%d][%d]" % (NRRD_DIM_MAX, NRRD_SPACE_DIM_MAX))
        teem.nrrdAxisInfoGet_nva(n, AXIS_SPACE_DIRECTION, sdir)
        dirs = []
        for ax in range(n.dim):
            v = [sdir[ax][i] for i in range(sd)]
            dirs.append(None if any(math.isnan(x) for x in v) else v)
        org = [origin[i] for i in range(sd)]
        if any(math.isnan(x) for x in org):
            org = [0.0] * sd
        return org, dirs
    sp = ffi.new("double[%d]" % NRRD_DIM_MAX)
    teem.nrrdAxisInfoGet_nva(n, AXIS_SPACING, sp)
    return None, [sp[i] for i in range(n.dim)]


def load_nrrd(path):
    """Load a NRRD file with Teem: an owned Nrrd pointer (nrrdNuke it)."""
    n = teem.nrrdNew()
    if teem.nrrdLoad(n, os.fsencode(path), ffi.NULL):
        msg = biff_message()
        teem.nrrdNuke(n)
        raise OSError("cannot read '%s': %s" % (os.fsdecode(path), msg))
    return n


def save_array(path, array, kinds_nrrd_order):
    """Write array (NumPy axes = NRRD axes reversed) as a raw NRRD with the
    given kinds, as the generated executables write their outputs."""
    arr = np.asarray(array)
    if arr.dtype == np.bool_:
        arr = arr.astype(np.uint8)
    sizes = list(reversed(arr.shape))
    with WrappedNrrd(arr, sizes, kinds_nrrd_order) as w:
        w.save(path)
