"""Programs, worlds and outputs: the generated library through cffi."""

import collections
import collections.abc
import json
import numbers
import os
import threading

import cffi
import numpy as np
from cffi import FFI

from . import _describe, _errors, _teem, _vtk
from ._errors import InputError, RunError, DiderotError, run_error
from ._teem import ffi as _base_ffi, teem, libc
from ._types import DType
from ._inputs import _convert, _ctype, _np_dtype

Progress = collections.namedtuple("Progress", "step active stable elapsed")
Progress.__doc__ = ("What progress= callbacks get: super-steps so far, active and "
                    "stable strands, seconds since this run began.")

_loaded = {}          # .so path -> (ffi, lib): dlopen once per process
_load_lock = threading.Lock()


def _functions(desc):
    """The names of every function of the library the package calls."""
    ns = desc["namespace"]
    names = ["%s_%s" % (ns, f) for f in _describe.CORE]
    if desc["target"] == "parallel":
        names.append(ns + "_set_num_workers")
    for i in desc["inputs"]:
        names += [i["setter"]] + ([i["getter"]] if i.get("getter") else [])
    snap = any(x.startswith("bool %s_snapshot_" % ns) for x in desc["runtime"])
    for o in desc["outputs"]:
        names.append(o["getter"])
        if snap:
            names.append(o["getter"].replace("_output_get_", "_snapshot_"))
    return names


def _load(directory, desc):
    so = os.path.join(directory, "prog.so")
    where = os.path.join(directory, "prog.json")
    with _load_lock:
        if so in _loaded:
            return _loaded[so]
        ffi = FFI()
        ffi.include(_base_ffi)  # Nrrd and the Teem types are shared
        ns = desc["namespace"]
        decls = ["typedef struct %s_world_s %s_world_t;" % (ns, ns)]
        decls += desc["runtime"]
        try:
            ffi.cdef("\n".join(decls))
        # cffi's parser (pycparser and ply under it) reports bad C not only as
        # CDefError: an unbalanced '}' fails one of pycparser's assertions
        # (found by tests/fuzz/fuzz_json.py), deep nesting is a RecursionError,
        # an enum defined twice a NotImplementedError
        except (cffi.CDefError, cffi.FFIError, AssertionError, RecursionError, ValueError,
                TypeError, IndexError, KeyError, AttributeError, NotImplementedError) as e:
            raise _errors.DescriptionError("%s: its C declarations (\"runtime\") are not what cffi "
                                           "reads: %s%s" % (where, str(e)[:300], _describe._HINT)) from None
        if desc.get("target") == "parallel" and not (os.environ.get("OMP_WAIT_POLICY")
                                                     or os.environ.get("GOMP_SPINCOUNT")):
            # as the executables do: idle OpenMP threads sleep rather than spin
            # (libgomp reads this when it is loaded, so only before the first load)
            os.environ["OMP_WAIT_POLICY"] = "passive"
        lib = ffi.dlopen(so)
        # every name the description gives must be a function of the library
        # (and declared as one), checked now rather than at the first call
        for name in _functions(desc):
            try:
                ok = ffi.typeof(getattr(lib, name)).kind == "function"
            # a function declared as a variable is read at getattr: its
            # code's first bytes may be no value of the declared type
            # (a _Bool of 65: found by tests/fuzz/fuzz_json.py)
            except ValueError:
                raise _errors.DescriptionError("%s: %s is declared as a variable, not a function%s"
                                               % (where, name, _describe._HINT)) from None
            # (cffi builds a declaration's type at the lookup: a type it
            # cannot build, such as a function type as a parameter of the
            # callback typedef, is a CDefError here)
            except (AttributeError, TypeError, cffi.FFIError, cffi.CDefError) as e:
                raise _errors.DescriptionError("%s: the function %s is not in %s or not declared: %s%s"
                                               % (where, name, so, str(e)[:200], _describe._HINT)) from None
            if not ok:
                raise _errors.DescriptionError("%s: %s is declared as a %s, not a function%s"
                                               % (where, name, ffi.typeof(getattr(lib, name)).kind,
                                                  _describe._HINT))
        _check_signatures(ffi, lib, desc, where)
        _loaded[so] = (ffi, lib)
        return ffi, lib


def _check_signatures(ffi, lib, desc, where):
    """The C declarations of the setters and getters must be what the
    inputs' and outputs' types and the real and int types say, as the
    package calls them so (cffi would refuse such a call later, with a
    TypeError far from the cause). Whether the declarations are those of
    the library itself nobody can check: a shared library has no types."""
    world = "%s_world_t *" % desc["namespace"]
    real = "double" if desc["real-type"] == "double" else "float"
    integer = "int64_t" if desc["int-type"] == "int64_t" else "int32_t"

    def want(fn, result, args, what):
        t = ffi.typeof(getattr(lib, fn))
        got = (t.result.cname, [a.cname for a in t.args])
        if got != (result, args):
            raise _errors.DescriptionError(
                "%s: %s: %s is declared as %s(%s), not %s(%s)%s"
                % (where, what, fn, got[0], ", ".join(got[1]), result, ", ".join(args), _describe._HINT))

    for k, i in enumerate(desc["inputs"]):
        ty = DType(i["type"])
        what = "inputs[%d] (%s %s)" % (k, ty, i["name"])
        if ty.kind == "image" or ty.dynamic:
            want(i["setter"], "_Bool", [world, "Nrrd *"], what)
            continue
        if ty.kind == "string" and ty.shape:
            continue  # the package does not set these
        c = {"real": real, "int": integer, "bool": "_Bool", "string": "char *"}[ty.kind]
        want(i["setter"], "_Bool", [world, c + " *" if ty.shape else c], what)
        if i.get("getter"):
            want(i["getter"], "void", [world, c + " *"], what)
    for k, o in enumerate(desc["outputs"]):
        ty = DType(o["type"])
        want(o["getter"], "_Bool", [world, "Nrrd *"] + (["Nrrd *"] if ty.dynamic else []),
             "outputs[%d] (%s %s)" % (k, ty, o["name"]))


class Sequences:
    """A dynamic-sequence output: one sequence per strand. offsets and
    lengths have the output's grid shape (or one axis for a collection);
    data holds all elements in strand order; seqs[i] is strand i's
    sequence (i an index or index tuple of the grid)."""

    def __init__(self, pairs, data, len_kinds, data_kinds):
        self.offsets = pairs[..., 0]
        self.lengths = pairs[..., 1]
        self.data = data
        self._pairs = pairs
        self._kinds = (len_kinds, data_kinds)

    def __len__(self):
        return self.lengths.size

    def __getitem__(self, i):
        o, n = int(self.offsets[i]), int(self.lengths[i])
        return self.data[o:o + n]

    def tolist(self):
        return [self.data[o:o + n] for o, n in zip(self.offsets.ravel(), self.lengths.ravel())]

    def save_nrrd(self, prefix):
        """PREFIX-len.nrrd and PREFIX-data.nrrd, as an executable writes them
        (no data file when every sequence is empty)."""
        _teem.save_array(prefix + "-len.nrrd", self._pairs.astype(np.int32), self._kinds[0])
        if self.data.size:
            _teem.save_array(prefix + "-data.nrrd", self.data, self._kinds[1])


class Outputs(collections.abc.Mapping):
    """The outputs of a run: name -> NumPy array (or Sequences for a T[]
    output). Arrays have the grid axes in the order of the program's
    create_array iterators (the last iterator is the last axis), or one axis
    of stable strands in creation order for a collection, then the axes of
    the value (tensor[3,3]: two more axes, m[..., i, j]; int[2]: one). bool
    outputs are NumPy bool arrays. Also attributes: outputs.NAME."""

    def __init__(self, arrays, kinds, steps, counts):
        self._arrays = arrays
        self._kinds = kinds
        self.steps = steps
        self.strands, self.active, self.stable = counts

    def __getitem__(self, name):
        return self._arrays[name]

    def __iter__(self):
        return iter(self._arrays)

    def __len__(self):
        return len(self._arrays)

    def __getattr__(self, name):
        try:
            return self.__dict__["_arrays"][name]
        except KeyError:
            raise AttributeError(name) from None

    def nrrd_kinds(self, name):
        """The NRRD kinds of the output's axes, in file order (axis 0 first)."""
        return [_teem.kind_name(k) for k in self._kinds[name]]

    def save_nrrd(self, path, name=None):
        """Write an output as the executable writes it with -o: same type,
        axes and kinds, raw encoding. name may be left out when there is one
        output. A T[] output writes PATH-len.nrrd and PATH-data.nrrd (PATH
        without its .nrrd)."""
        if name is None:
            if len(self._arrays) != 1:
                raise TypeError("save_nrrd: name the output (one of %s)" % ", ".join(self._arrays))
            name = next(iter(self._arrays))
        v = self._arrays[name]
        path = os.fspath(path)
        if isinstance(v, Sequences):
            v.save_nrrd(path[:-5] if path.endswith(".nrrd") else path)
            return
        kinds = self._kinds[name]
        arr = np.asarray(v)
        nk = len(kinds)
        if arr.ndim != nk:  # tensor components were unflattened: flatten them back
            arr = arr.reshape(arr.shape[:nk - 1] + (-1,))
        _teem.save_array(path, arr, kinds)

    def to_vtk(self, names=None, points=None, origin=None, spacing=None):
        """The outputs as VTK data, every output (or those in names) a
        point-data array named after it: a vtkImageData for a grid
        (dimensions from the grid axes, the last axis VTK's x; unit spacing
        and origin 0 unless given, per NumPy grid axis like Image's), a
        vtkPolyData of one vertex per stable strand for a collection (or
        whenever points is given), placed at the vec3/vec2 output `points`
        (by default the first such output). T[] outputs are left out.
        C-contiguous arrays are shared with VTK, not copied."""
        return _vtk.outputs_to_vtk(self._arrays, {n: self.nrrd_kinds(n) for n in self._kinds},
                                   names=names, points=points, origin=origin, spacing=spacing)

    def save_vti(self, path, names=None, origin=None, spacing=None):
        """Write a grid's outputs as a VTK XML image file (.vti), atomically."""
        data = self.to_vtk(names=names, origin=origin, spacing=spacing)
        if not data.IsA("vtkImageData"):
            raise TypeError("save_vti: the outputs are points (a collection): use save_vtp")
        _vtk.save_vtk_data(data, path)

    def save_vtp(self, path, names=None, points=None):
        """Write the outputs as VTK XML poly data (.vtp) points, atomically."""
        data = self.to_vtk(names=names, points=points)
        if not data.IsA("vtkPolyData"):
            raise TypeError("save_vtp: the outputs are a grid: use save_vti, or name points=")
        _vtk.save_vtk_data(data, path)

    def __repr__(self):
        return "Outputs(%s; %d steps)" % (", ".join(
            "%s: %s" % (k, ("Sequences(%d)" % len(v)) if isinstance(v, Sequences)
                        else "%s %s" % (v.dtype, v.shape)) for k, v in self._arrays.items()),
            self.steps)


class Program:
    """A compiled Diderot program. inputs/outputs: name -> DType, in
    declaration order; input_descriptions: name -> text; has_default: name ->
    bool."""

    def __init__(self, directory, from_cache):
        self.directory = directory
        self.from_cache = from_cache
        self.description = _describe.read(os.path.join(directory, "prog.json"))
        d = self.description
        self.namespace = d["namespace"]
        self.target = "omp" if d["target"] == "parallel" else "seq"
        self.real_dtype = np.dtype(np.float64 if d["real-type"] == "double" else np.float32)
        self.int_dtype = np.dtype(np.int64 if d["int-type"] == "int64_t" else np.int32)
        self.inputs = collections.OrderedDict((i["name"], DType(i["type"])) for i in d["inputs"])
        self.input_descriptions = {i["name"]: i.get("description") for i in d["inputs"]}
        self.has_default = {i["name"]: i["has-default"] for i in d["inputs"]}
        self._setters = {i["name"]: i["setter"] for i in d["inputs"]}
        self._getters = {i["name"]: i.get("getter") for i in d["inputs"]}
        # inputs whose default the program computes when the strands are
        # created (doc/language.md §3): name -> the default's source
        self.computed_defaults = {i["name"]: i["computed-default"] for i in d["inputs"]
                                  if isinstance(i.get("computed-default"), str)}
        self.outputs = collections.OrderedDict((o["name"], DType(o["type"])) for o in d["outputs"])
        self._out_getters = {o["name"]: o["getter"] for o in d["outputs"]}
        self.ffi, self.lib = _load(directory, d)
        try:
            with open(os.path.join(directory, "done.json"), encoding="utf-8") as f:
                done = json.load(f)
        except (OSError, ValueError, RecursionError):  # only for show: no source then
            done = None
        self.source = done.get("source") if isinstance(done, dict) else None
        if not isinstance(self.source, str):
            self.source = None
        # diderotc's messages of the build (warnings, --tune's summary)
        self.messages = done.get("messages") if isinstance(done, dict) else None
        if not isinstance(self.messages, str):
            self.messages = ""
        self.has_snapshot = any(
            decl.startswith("bool %s_snapshot_" % self.namespace) for decl in d["runtime"])

    def _fn(self, suffix):
        return getattr(self.lib, "%s_%s" % (self.namespace, suffix))

    def world(self, threads=None, **inputs):
        """A world of the program with these inputs; strands are created at
        the first step (or outputs())."""
        return World(self, threads, inputs)

    def run(self, steps=None, threads=None, progress=None, progress_interval=0.2,
            isolate=False, **inputs):
        """Run the program to the end (or for at most `steps` super-steps)
        and return its Outputs. isolate=True runs it in a child process, so
        that a program that crashes (a probe where inside() is false, or a
        sequence index out of range, are undefined in Diderot and may read
        outside memory) raises RunError instead of taking the interpreter
        down; inputs are checked here first, and progress is not reported."""
        if isolate:
            if progress is not None:
                raise ValueError("progress= is not available with isolate=True")
            self.world(threads=threads, **inputs)  # type errors here, not in the child
            return _run_isolated(self.directory, dict(steps=steps, threads=threads, **inputs))
        with self.world(threads=threads, **inputs) as w:
            w.run(steps, progress=progress, progress_interval=progress_interval)
            return w.outputs()

    def defaults(self):
        """name -> default value of the value inputs that have one (a
        default the program computes is its source text, computed_defaults:
        its value exists only once the strands are created)."""
        with self.world() as w:
            w._ensure_world()
            return {n: self.computed_defaults[n] if n in self.computed_defaults else w._get_input(n)
                    for n in self.inputs if self._getters.get(n)}

    def __repr__(self):
        ins = ", ".join("%s %s%s" % (t, n, "" if self.has_default[n] else " (required)")
                        for n, t in self.inputs.items())
        outs = ", ".join("%s %s" % (t, n) for n, t in self.outputs.items())
        return "<diderot.Program %s (%s): inputs %s; outputs %s>" % (
            self.source, self.target, ins or "none", outs)


def _child_main(fd):
    """The child of _run_isolated: the request on stdin, the answer on fd."""
    import pickle
    import sys
    directory, kwargs = pickle.load(sys.stdin.buffer)
    try:
        msg = ("ok", Program(directory, True).run(**kwargs))
    except BaseException as e:
        msg = ("error", type(e).__name__, str(e))
    with os.fdopen(fd, "wb") as f:
        pickle.dump(msg, f)


def _run_isolated(directory, kwargs):
    """Program.run in a fresh interpreter (not a fork: no inherited threads,
    and not multiprocessing, which would run the caller's __main__ again)."""
    import pickle
    import signal
    import subprocess
    import sys
    from . import _errors
    rfd, wfd = os.pipe()
    env = dict(os.environ)
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", "import sys, diderot._program as p; p._child_main(int(sys.argv[1]))",
             str(wfd)], stdin=subprocess.PIPE, pass_fds=(wfd,), env=env)
    finally:
        os.close(wfd)
    with os.fdopen(rfd, "rb") as answer:
        proc.stdin.write(pickle.dumps((directory, kwargs)))
        proc.stdin.close()
        try:
            msg = pickle.load(answer)
        except EOFError:
            msg = None
    code = proc.wait()
    if msg is None:
        if code < 0:
            try:
                why = "signal %s" % signal.Signals(-code).name
            except ValueError:
                why = "signal %d" % -code
        else:
            why = "exit status %d" % code
        raise RunError("the program crashed (%s); a probe where inside() is false or a "
                       "sequence index out of range is undefined in Diderot" % why)
    if msg[0] == "ok":
        return msg[1]
    cls = getattr(_errors, msg[1], None) or {"TypeError": TypeError, "ValueError": ValueError,
                                              "KeyboardInterrupt": KeyboardInterrupt,
                                              "MemoryError": MemoryError}.get(msg[1], RunError)
    raise cls(msg[2])


class World:
    """One instance of a program: its inputs, strands and outputs. Use
    step(n)/run() and outputs()/snapshot(); set(name=value) changes inputs
    (a world whose strands exist starts again from its initial strands, as
    the library cannot change inputs of a running program). close() (or a
    with block) frees it."""

    def __init__(self, prog, threads, inputs):
        self.program = prog
        if threads is not None:
            if not isinstance(threads, numbers.Integral) or isinstance(threads, bool) or threads < 0:
                raise TypeError("threads must be a non-negative int, not %r" % (threads,))
            if prog.target != "omp" and threads != 1:
                raise ValueError("threads=%d needs a program compiled with target='omp'" % threads)
        self.threads = threads
        self._values = {}     # name -> converted value, applied to each new C world
        self._w = None        # the C world
        self._created = False
        self._keep = []       # C data the world points to (strings)
        self.steps = 0
        self.set(**inputs)

    # ---- inputs
    def set(self, **inputs):
        """Set inputs by name (checked against their declared types now)."""
        conv = {}
        for name, value in inputs.items():
            ty = self.program.inputs.get(name)
            if ty is None:
                raise TypeError("unknown input %r; the program's inputs are: %s"
                                % (name, ", ".join(self.program.inputs) or "none"))
            conv[name] = _convert(self.program, name, ty, value)
        self._values.update(conv)
        if self._w is not None and conv:
            self._free()  # start again with the new inputs
        return self

    @property
    def inputs(self):
        """The values set so far (as converted), by name."""
        return dict(self._values)

    def _get_input(self, name):
        ty = self.program.inputs[name]
        getter = self.program._getters.get(name)
        if not getter:
            raise TypeError("input %r (%s) has no getter" % (name, ty))
        ffi, lib = self.program.ffi, self.program.lib
        n = int(np.prod(ty.shape)) if ty.shape else 1
        if ty.kind == "string":
            buf = ffi.new("char *[1]")
            getattr(lib, getter)(self._w, buf)
            return ffi.string(buf[0]).decode() if buf[0] != ffi.NULL else None
        ctype = _ctype(self.program, ty)
        buf = ffi.new("%s[%d]" % (ctype, n))
        getattr(lib, getter)(self._w, buf)
        vals = [buf[i] for i in range(n)]
        if not ty.shape:
            return vals[0]
        return np.array(vals, dtype=_np_dtype(self.program, ty)).reshape(ty.shape)

    # ---- the C world
    def _errors(self):
        if self._w is None:
            return ""
        s = self.program._fn("get_errors")(self._w)
        if s == self.program.ffi.NULL:
            return ""
        try:
            return self.program.ffi.string(s).decode(errors="replace").strip()
        finally:
            libc.free(s)

    def _ensure_world(self):
        if self._w is not None:
            return
        p = self.program
        w = p._fn("new_world")()
        if w == p.ffi.NULL:
            raise MemoryError("cannot allocate a world")
        self._w = w
        if p._fn("init_world")(w):
            msg = self._errors()
            self._free()
            raise run_error(msg or "init_world failed")
        if self.threads is not None and p.target == "omp":
            if p._fn("set_num_workers")(w, self.threads):
                msg = self._errors()
                self._free()
                raise RunError(msg or "cannot set %d threads" % self.threads)

    def _ensure_strands(self):
        if self._created:
            return
        p = self.program
        missing = [n for n in p.inputs if not p.has_default[n] and n not in self._values]
        if missing:
            raise TypeError("missing required input%s: %s" % (
                "s" if len(missing) > 1 else "",
                ", ".join("%s (%s)" % (n, p.inputs[n]) for n in missing)))
        self._ensure_world()
        try:
            for name, v in self._values.items():
                self._apply(name, v)
        except BaseException:
            self._free()
            raise
        if p._fn("create_strands")(self._w):
            msg = self._errors()
            self._free()
            raise run_error(msg or "create_strands failed")
        self._created = True
        self.steps = 0

    def _apply(self, name, v):
        p = self.program
        ffi, lib = p.ffi, p.lib
        setter = p._setters[name]
        kind, value = v
        if kind == "file":
            failed = getattr(lib, setter.replace("_input_set_", "_input_set_by_name_"))(
                self._w, os.fsencode(value))
        elif kind == "nrrd":
            with value() as n:
                failed = getattr(lib, setter)(self._w, n.ptr)
        elif kind == "string":
            buf = ffi.new("char[]", value)
            self._keep.append(buf)  # the library keeps the pointer, not a copy
            failed = getattr(lib, setter)(self._w, buf)
        elif kind == "array":
            ctype, vals = value
            failed = getattr(lib, setter)(self._w, ffi.new("%s[]" % ctype, vals))
        else:
            failed = getattr(lib, setter)(self._w, value)
        if failed:
            # the runtime's messages name the input and the file
            raise InputError(self._errors() or "input %r: rejected by the runtime" % name)

    def _free(self):
        if self._w is not None:
            self.program._fn("shutdown")(self._w)
        self._w = None
        self._created = False
        self._keep = []

    def close(self):
        """Free the C world (the World may be used again: it starts afresh)."""
        self._free()

    def reset(self):
        """Start again from the initial strands with the current inputs."""
        self._free()
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self._free()
        except Exception:
            pass

    # ---- running
    def step(self, n=1):
        """Run at most n super-steps; returns the number taken (0 when the
        program has finished)."""
        if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < 1:
            raise ValueError("step(n) needs an int n >= 1, not %r" % (n,))
        return self._run(int(n), None, 0.2)

    def run(self, steps=None, progress=None, progress_interval=0.2):
        """Run until no strand is active, or at most `steps` super-steps.
        progress(Progress) is called at most every progress_interval seconds
        and as the run returns; returning True stops the run (a later run
        continues it). Returns the number of steps taken."""
        if steps is not None and (not isinstance(steps, numbers.Integral)
                                  or isinstance(steps, bool) or steps < 0):
            raise ValueError("steps must be None or an int >= 0, not %r" % (steps,))
        return self._run(int(steps or 0), progress, progress_interval)

    def _run(self, n, progress, interval):
        self._ensure_strands()
        p = self.program
        exc = []
        if progress is not None and not callable(progress):
            raise TypeError("progress must be callable")
        if progress is None:
            interval = 0.1

        # Always installed: the callback is where Python code runs during a
        # long run, so Ctrl-C (KeyboardInterrupt) stops it between steps.
        def call(data, step, nactive, nstable, elapsed):
            if exc:
                return True
            try:
                if progress is None:
                    return False
                return bool(progress(Progress(step, nactive, nstable, elapsed)))
            except BaseException as e:  # re-raised after the run stops
                exc.append(e)
                return True

        def onerror(etype, value, tb):  # an exception outside call's try (a signal)
            exc.append(value)
            return True

        # error=True: a callback that raised stops the run
        cb = p.ffi.callback("%s_progress_cb_t" % p.namespace, call, error=True, onerror=onerror)
        p._fn("set_progress_cb")(self._w, cb, p.ffi.NULL, float(interval))
        try:
            taken = p._fn("run")(self._w, n)
        finally:
            p._fn("set_progress_cb")(self._w, p.ffi.NULL, p.ffi.NULL, 0.0)
        self.steps += taken
        if p._fn("any_errors")(self._w):
            raise run_error(self._errors() or "the run failed")
        if exc:
            raise exc[0]
        return taken

    @property
    def done(self):
        """True when no strand is active (after the strands exist)."""
        return self._created and self.active == 0

    @property
    def strands(self):
        self._ensure_strands()
        return int(self.program._fn("num_strands")(self._w))

    @property
    def active(self):
        self._ensure_strands()
        return int(self.program._fn("num_active_strands")(self._w))

    @property
    def stable(self):
        self._ensure_strands()
        return int(self.program._fn("num_stable_strands")(self._w))

    def outputs(self):
        """The outputs now (a grid: every strand; a collection: the stable
        strands)."""
        return self._collect("output_get_")

    def snapshot(self):
        """Every output over all alive strands (active and stable): a picture
        of a run in progress. Needs snapshot=True at compile time (the
        default)."""
        if not self.program.has_snapshot:
            raise DiderotError("the program was compiled without snapshot support "
                               "(compile(..., snapshot=True))")
        return self._collect("snapshot_")

    def _collect(self, prefix):
        self._ensure_strands()
        p = self.program
        arrays, kinds = {}, {}
        for name, ty in p.outputs.items():
            fn = getattr(p.lib, p._out_getters[name].replace("_output_get_", "_" + prefix))
            if ty.dynamic:
                nl, nd = teem.nrrdNew(), teem.nrrdNew()
                try:
                    if fn(self._w, nl, nd):
                        self._no_strands(name)
                        data = np.zeros((0,) + ty.elem_shape, dtype=_np_dtype(p, ty))
                        arrays[name] = Sequences(np.zeros((0, 2), np.int32), data,
                                                 [_teem.kind_value("2-vector"), _teem.KIND_LIST], [])
                        kinds[name] = [[], []]
                        continue
                    pairs, _, lk = _teem.nrrd_to_numpy(nl)
                    if nd.data != p.ffi.NULL:
                        data, _, dk = _teem.nrrd_to_numpy(nd)
                    else:
                        data, dk = np.zeros((0,) + ty.elem_shape, dtype=_np_dtype(p, ty)), []
                finally:
                    teem.nrrdNuke(nl)
                    teem.nrrdNuke(nd)
                if ty.elem_shape:
                    data = data.reshape(data.shape[:1] + ty.elem_shape)
                if ty.kind == "bool":
                    data = data.astype(bool)
                arrays[name] = Sequences(pairs, data, lk, dk)
                kinds[name] = [lk, dk]
                continue
            n = teem.nrrdNew()
            try:
                if fn(self._w, n):
                    self._no_strands(name)
                    arrays[name] = np.zeros((0,) + (ty.shape or ()), dtype=_np_dtype(p, ty))
                    kinds[name] = [_teem.KIND_LIST] + ([_teem.KIND_LIST] if ty.shape else [])
                    continue
                arr, sizes, k = _teem.nrrd_to_numpy(n)
            finally:
                teem.nrrdNuke(n)
            if ty.shape:  # NRRD axis 0 holds the components: unflatten them
                arr = arr.reshape(arr.shape[:-1] + ty.shape)
            if ty.kind == "bool":
                arr = arr.astype(bool)
            arrays[name] = arr
            kinds[name] = k
        counts = (int(p._fn("num_strands")(self._w)), int(p._fn("num_active_strands")(self._w)),
                  int(p._fn("num_stable_strands")(self._w)))
        return Outputs(arrays, kinds, self.steps, counts)

    def _no_strands(self, name):
        """After a failed output: an empty collection (no stable strands
        yet) is an empty array; any other error is raised."""
        msg = self._errors()
        if "no strands" not in msg:
            raise run_error(msg or "output %r failed" % name)

    def __repr__(self):
        state = "not started" if not self._created else "%d steps" % self.steps
        return "<diderot.World of %s, %s>" % (self.program.source, state)
