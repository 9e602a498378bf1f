"""A compiled program's description, prog.json (what `diderotc --json` writes
beside the library, src/backend/program/emit_c_api.c), read with checks.

The package trusts nothing else about the library it loads: the names of
its functions, the C declarations cffi needs and the inputs' and outputs'
types all come from this file. A damaged or hand-edited file (a cache
entry cut short, a file of another compiler version) must give a
DescriptionError that names the file and what is wrong with it, not a
KeyError or TypeError from deep inside the package; tests/fuzz/fuzz_json.py
mutates real descriptions to check that.
"""

import json
import re

from ._errors import DescriptionError
from ._types import DType

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_TARGETS = ("sequential", "parallel", "cuda")
_REAL = ("float", "double")
_INT = ("int32_t", "int64_t")
# the runtime functions World calls, NAMESPACE_SUFFIX (set_num_workers only
# where the target is parallel)
CORE = ("new_world", "init_world", "create_strands", "run", "shutdown", "num_strands",
        "num_active_strands", "num_stable_strands", "any_errors", "get_errors", "set_progress_cb")

# what to do about it, at the end of every message
_HINT = " (a damaged cache entry: remove its folder, or compile again with force=True)"


def _fail(path, what):
    raise DescriptionError("%s: %s%s" % (path, what, _HINT))


def _str(path, obj, key, where, optional=False, ident=False):
    v = obj.get(key)
    if v is None and optional:
        return None
    if not isinstance(v, str):
        _fail(path, "%s: \"%s\" is %s, not a string" % (where, key, "missing" if key not in obj else
                                                          "null" if v is None else type(v).__name__))
    if ident and not _IDENT.match(v):
        _fail(path, "%s: \"%s\" is %r, not a C name" % (where, key, v[:80]))
    return v


def _entries(path, d, section, setter):
    if not isinstance(d.get(section), list):
        _fail(path, "\"%s\" is %s, not a list" % (section, "missing" if section not in d
                                                 else type(d[section]).__name__))
    seen = set()
    for k, e in enumerate(d[section]):
        where = "%s[%d]" % (section, k)
        if not isinstance(e, dict):
            _fail(path, "%s is %s, not an object" % (where, type(e).__name__))
        name = _str(path, e, "name", where, ident=True)
        if name in seen:
            _fail(path, "%s: a second %s named %r" % (where, section[:-1], name))
        seen.add(name)
        ty = _str(path, e, "type", where)
        try:
            DType(ty)
        except ValueError as err:
            _fail(path, "%s (%s): %s" % (where, name, err))
        if setter:
            _str(path, e, "setter", where, ident=True)
            _str(path, e, "getter", where, optional=True, ident=True)
            _str(path, e, "description", where, optional=True)
            if not isinstance(e.get("has-default"), bool):
                _fail(path, "%s (%s): \"has-default\" is not true or false" % (where, name))
        else:
            _str(path, e, "getter", where, ident=True)


def check(d, path):
    """Raise DescriptionError unless d has what Program reads, of the right
    JSON types (the C declarations are checked by cffi, the names by the
    library: Program does both)."""
    if not isinstance(d, dict):
        _fail(path, "not a JSON object but %s" % type(d).__name__)
    _str(path, d, "namespace", "the description", ident=True)
    for key, allowed in (("target", _TARGETS), ("real-type", _REAL), ("int-type", _INT)):
        v = _str(path, d, key, "the description")
        if v not in allowed:
            _fail(path, "\"%s\" is %r, not one of %s" % (key, v[:80], ", ".join(allowed)))
    _entries(path, d, "inputs", True)
    _entries(path, d, "outputs", False)
    rt = d.get("runtime")
    if not isinstance(rt, list) or not all(isinstance(x, str) for x in rt):
        _fail(path, "\"runtime\" is not a list of C declarations")


def read(path):
    """The description in the file PATH, checked (see check)."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise DescriptionError("%s: cannot read the program's description: %s%s"
                               % (path, e.strerror or e, _HINT)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        _fail(path, "not UTF-8 text (byte %d)" % e.start)
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise DescriptionError("%s:%d:%d: not JSON: %s%s" % (path, e.lineno, e.colno, e.msg, _HINT)) from None
    except (ValueError, RecursionError) as e:  # a number of 5000 digits; arrays nested 10^5 deep
        _fail(path, "not JSON that can be read: %s" % (str(e)[:120] or type(e).__name__))
    check(d, path)
    return d
