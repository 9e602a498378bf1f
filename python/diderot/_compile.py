"""Running diderotc in library mode, with a cache of its results.

A compiled program is a directory of the cache holding prog.so, prog.h,
prog.json (the API description) and the source it was built from. Its key
hashes everything the result depends on: the source text (with the file
names it loads made absolute), the contents of those files (an image proxy
fixes the sample type, dimension and shape), the options, and the
compiler's identity (diderotc and its runtime library: path, size and
modification time; CC, CFLAGS_DIDEROT and DIDEROT_RT_DIR). A directory
appears in the cache by an atomic rename once complete, so concurrent
compiles of the same program (two notebooks, two test processes) are safe.
"""

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from . import _errors

CACHE_VERSION = "1"  # bump when the cache layout or the flags change meaning

# file names the language loads at run time or at compile time (proxies)
_LOAD_CALL = re.compile(r'(\b(?:load_image|load_sequence|image|load)\s*\(\s*)"([^"\\\n]*)"')

_TARGETS = {"seq": "seq", "sequential": "seq", "omp": "omp", "openmp": "omp"}

# keyword options of compile() -> how they become diderotc flags
_BOOL_FLAGS = {"snapshot": "--snapshot", "long_int": "--long-int", "scalar": "--scalar",
               "debug": "-g", "no_space_partition": "--no-space-partition"}
_VALUE_FLAGS = {"strand_layout": "--strand-layout=", "image_layout": "--image-layout="}
OPTIONS = sorted(list(_BOOL_FLAGS) + list(_VALUE_FLAGS) + ["constants", "flags", "tune", "tune_args",
                                                           "tune_steps"])


def default_cache_dir():
    d = os.environ.get("DIDEROT_CACHE_DIR")
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "diderot")


def find_diderotc(explicit=None):
    """The compiler: the argument, $DIDEROTC, the one `make install` put
    beside this package (_config.py), PREFIX/bin/diderotc of the Python
    running (a pip install's environment), a build tree's when the package
    is used from the source tree (top/build/diderotc), then PATH."""
    cands = [explicit, os.environ.get("DIDEROTC")]
    try:
        from . import _config  # written by make install
        cands.append(getattr(_config, "DIDEROTC", None))
    except ImportError:
        pass
    # pip install ./python: a diderotc installed in the same prefix (a
    # virtual environment's bin/) is the one beside the package
    cands.append(os.path.join(sys.prefix, "bin", "diderotc"))
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cands.append(os.path.join(top, "build", "diderotc"))
    cands.append(shutil.which("diderotc"))
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.abspath(c)
    if explicit or os.environ.get("DIDEROTC"):
        raise FileNotFoundError("diderotc not found at %r" % (explicit or os.environ["DIDEROTC"]))
    raise FileNotFoundError("diderotc not found: build it (README.md), put it on PATH, "
                            "or set DIDEROTC to its path")


def _stat_id(path):
    try:
        st = os.stat(path)
        return [os.path.realpath(path), st.st_size, st.st_mtime_ns]
    except OSError:
        return None


def compiler_identity(diderotc):
    d = os.path.dirname(os.path.realpath(diderotc))
    rt_dirs = [os.environ.get("DIDEROT_RT_DIR") or "", d, os.path.join(os.path.dirname(d), "lib")]
    return {
        "diderotc": _stat_id(diderotc),
        "runtime": [_stat_id(os.path.join(r, "libdiderot-rt.a")) for r in rt_dirs if r],
        "env": [os.environ.get(k, "") for k in ("CC", "CFLAGS_DIDEROT", "CFLAGS_DIDEROT_EXTRA",
                                                 "DIDEROT_RT_DIR")],
    }


def _const_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return '"%s"' % v.replace("\\", "\\\\").replace('"', '\\"')
    if isinstance(v, dict):
        raise TypeError("a constant cannot be a dict")
    try:
        items = list(v)
    except TypeError:
        items = None
    if items is not None:
        return "[" + ",".join(_const_text(x.item() if hasattr(x, "item") else x) for x in items) + "]"
    if hasattr(v, "item"):
        return _const_text(v.item())
    raise TypeError("cannot write %r as a Diderot constant" % (v,))


def flags_for(double, target, options):
    t = _TARGETS.get(target)
    if t is None:
        raise ValueError("target must be 'seq' or 'omp', not %r" % (target,))
    flags = ["--target=" + t]
    if double:
        flags.append("--double")
    opts = dict(options)
    opts.setdefault("snapshot", True)
    for k in sorted(opts):
        v = opts[k]
        if k in _BOOL_FLAGS:
            if v:
                flags.append(_BOOL_FLAGS[k])
        elif k in _VALUE_FLAGS:
            if v is not None:
                flags.append(_VALUE_FLAGS[k] + str(v))
        elif k == "constants":
            for name in sorted(v or {}):
                flags.append("--C%s=%s" % (name, _const_text(v[name])))
        elif k == "flags":
            flags.extend(str(f) for f in (v or []))
        elif k == "tune":
            if v is True:
                v = "quick"
            if v not in (None, False, "quick", "full"):
                raise ValueError("tune must be 'quick' or 'full' (or True: 'quick'), not %r" % (v,))
            if v:
                if opts.get("tune_args") is None:
                    raise ValueError("tune= needs tune_args= (the program's command line, its inputs)")
                flags.append("--tune=" + v)
        elif k == "tune_args":
            if v is not None:
                flags += ["--tune-args", _tune_args_text(v)]
        elif k == "tune_steps":
            if v is not None:
                if not opts.get("tune"):
                    raise ValueError("tune_steps= is for tune= (the tuning runs)")
                if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                    raise ValueError("tune_steps must be a number of super-steps (an int >= 1), not %r"
                                     % (v,))
                flags += ["--tune-steps", str(v)]
        else:
            raise TypeError("compile() got an unexpected option %r (options: %s)"
                            % (k, ", ".join(["double", "target"] + OPTIONS)))
    return flags


def _tune_args_text(v):
    """tune_args (a string as on a command line, or a list of words) as
    diderotc's --tune-args text, each word that names an existing file
    relative to the current directory made absolute (diderotc runs in a
    folder of the cache)."""
    if isinstance(v, str):
        words = shlex.split(v)
    elif isinstance(v, (list, tuple)) and all(isinstance(w, (str, int, float)) for w in v):
        words = [str(w) for w in v]
    else:
        raise TypeError("tune_args must be a string or a list of words, not %r" % (v,))
    words = [os.path.abspath(w) if not w.startswith("-") and not os.path.isabs(w) and os.path.exists(w)
             else w for w in words]
    return " ".join(shlex.quote(w) for w in words)


def _absolutize(text, base):
    """Relative file names in load calls made absolute against base, so that
    the compiled program finds its proxies and defaults from any directory;
    returns (text, [absolute paths])."""
    paths = []

    def fix(m):
        name = m.group(2)
        full = name if os.path.isabs(name) else os.path.normpath(os.path.join(base, name))
        paths.append(full)
        if '"' in full or "\\" in full:
            return m.group(0)
        return m.group(1) + '"' + full + '"'

    return _LOAD_CALL.sub(fix, text), paths


def _file_hash(path):
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def read_source(path_or_source, base_dir):
    """(text, display name, directory relative names are resolved against)."""
    if isinstance(path_or_source, bytes):
        path_or_source = os.fsdecode(path_or_source)
    if isinstance(path_or_source, os.PathLike):
        path_or_source = os.fspath(path_or_source)
    if not isinstance(path_or_source, str):
        raise TypeError("compile() needs a file name or Diderot source text, not %s"
                        % type(path_or_source).__name__)
    s = path_or_source
    looks_like_source = "\n" in s or s.lstrip().startswith("#version") or ";" in s
    if not looks_like_source:
        if not os.path.isfile(s):
            raise FileNotFoundError("no Diderot program '%s'" % s)
        with open(s, encoding="utf-8") as f:
            text = f.read()
        path = os.path.abspath(s)
        return text, s, base_dir or os.path.dirname(path)
    return s, "<source>", base_dir or os.getcwd()


def build(path_or_source, double, target, options, cache_dir=None, diderotc=None,
          base_dir=None, force=False):
    """Compile (or find in the cache); returns (directory, from_cache)."""
    text, shown, base = read_source(path_or_source, base_dir)
    flags = flags_for(double, target, options)
    dc = find_diderotc(diderotc)
    fixed, paths = _absolutize(text, base)
    key_doc = {
        "version": CACHE_VERSION,
        "source": fixed,
        "files": [[p, _file_hash(p)] for p in paths],
        "flags": flags,
        "compiler": compiler_identity(dc),
    }
    key = hashlib.sha256(json.dumps(key_doc, sort_keys=True).encode()).hexdigest()
    cache = os.path.abspath(cache_dir or default_cache_dir())
    final = os.path.join(cache, key[:2], key[2:])
    if not force and os.path.isfile(os.path.join(final, "done.json")):
        return final, True
    os.makedirs(os.path.dirname(final), exist_ok=True)
    work = tempfile.mkdtemp(prefix="build-", dir=cache)
    try:
        src = os.path.join(work, "prog.diderot")
        with open(src, "w", encoding="utf-8") as f:
            f.write(fixed)
        # a namespace of its own, so that no two programs share symbol names
        ns = "D" + key[:12]
        cmd = [dc, "--shared", "--json", "--namespace=" + ns] + flags + [src, "-o",
                                                                         os.path.join(work, "prog")]
        p = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out = (p.stdout + p.stderr).decode("utf-8", errors="replace").replace(src, shown)
        if p.returncode != 0:
            raise _errors.CompileError(out.strip() or "diderotc failed with status %d"
                                       % p.returncode, status=p.returncode, command=cmd)
        with open(os.path.join(work, "done.json"), "w") as f:
            json.dump({"key": key, "source": shown, "command": cmd, "messages": out}, f)
        if force and os.path.isdir(final):
            shutil.rmtree(final, ignore_errors=True)
        try:
            os.rename(work, final)
        except OSError:
            # another process finished the same program first: use its copy
            if not os.path.isfile(os.path.join(final, "done.json")):
                raise
            shutil.rmtree(work, ignore_errors=True)
        return final, False
    except BaseException:
        if os.path.isdir(work):
            shutil.rmtree(work, ignore_errors=True)
        raise
