"""nrrd.py -- a small dependency-free NRRD reader and writer for the tests.

Pure Python 3 (struct, zlib): the CI image's /usr/bin/python3 may have no
numpy. It covers what the end-to-end tests need:

  * read: magic NRRD0001..NRRD0005, comments, key:=value lines, the ten
    scalar types with their aliases, encodings raw / ascii (text, txt) /
    gzip, either endianness, `line skip` / `byte skip` (attached data);
  * write: raw little-endian or ascii, attached header, with sizes, kinds,
    space dimension / directions / origin when given.

Data are a flat Python list in NRRD order (axis 0 fastest): ints for the
integer types, floats for float/double. Detached headers are not supported.
"""

import gzip
import struct
import sys

# canonical name -> (struct code, size, is_float); names as Teem writes them
TYPES = {
    "signed char": ("b", 1, False),
    "unsigned char": ("B", 1, False),
    "short": ("h", 2, False),
    "unsigned short": ("H", 2, False),
    "int": ("i", 4, False),
    "unsigned int": ("I", 4, False),
    "long long int": ("q", 8, False),
    "unsigned long long int": ("Q", 8, False),
    "float": ("f", 4, True),
    "double": ("d", 8, True),
}

_ALIASES = {
    "signed char": ["int8", "int8_t"],
    "unsigned char": ["uchar", "uint8", "uint8_t"],
    "short": ["short int", "signed short", "signed short int", "int16", "int16_t"],
    "unsigned short": ["ushort", "unsigned short int", "uint16", "uint16_t"],
    "int": ["signed int", "int32", "int32_t"],
    "unsigned int": ["uint", "uint32", "uint32_t"],
    "long long int": ["longlong", "long long", "signed long long",
                      "signed long long int", "int64", "int64_t"],
    "unsigned long long int": ["ulonglong", "unsigned long long", "uint64", "uint64_t"],
    "float": [],
    "double": [],
}
TYPE_NAMES = {}
for _canon, _names in _ALIASES.items():
    TYPE_NAMES[_canon] = _canon
    for _n in _names:
        TYPE_NAMES[_n] = _canon


class NrrdError(Exception):
    pass


class Nrrd:
    """A NRRD in memory. `fields` keeps every header field as text (keys in
    lower case, e.g. fields["kinds"]); the common ones are also parsed."""

    def __init__(self, type, sizes, data, kinds=None, space_dim=0,
                 space_directions=None, space_origin=None):
        self.type = TYPE_NAMES.get(type, type)
        if self.type not in TYPES:
            raise NrrdError("unknown type %r" % type)
        self.sizes = list(sizes)
        self.dimension = len(self.sizes)
        self.data = data
        self.kinds = list(kinds) if kinds is not None else None
        self.space_dim = space_dim
        self.space_directions = space_directions   # per axis: tuple or None
        self.space_origin = space_origin
        self.fields = {}
        self.keyvalues = {}
        self.comments = []

    def count(self):
        n = 1
        for s in self.sizes:
            n *= s
        return n

    def __getitem__(self, idx):
        """Sample at index tuple (i0, i1, ...), axis 0 fastest."""
        off, stride = 0, 1
        for i, s in zip(idx, self.sizes):
            if not 0 <= i < s:
                raise IndexError(idx)
            off += i * stride
            stride *= s
        return self.data[off]


# ---------------------------------------------------------------- reading

def _parse_vector(text):
    """'(1,2.5,3)' -> (1.0, 2.5, 3.0); 'none' -> None."""
    text = text.strip()
    if text == "none":
        return None
    if not (text.startswith("(") and text.endswith(")")):
        raise NrrdError("bad vector %r" % text)
    return tuple(float(x) for x in text[1:-1].split(","))


def _split_vectors(text):
    """'(1,0) (0,1) none' -> ['(1,0)', '(0,1)', 'none']."""
    out, cur, depth = [], "", 0
    for ch in text.strip():
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch.isspace() and depth == 0:
            if cur:
                out.append(cur)
                cur = ""
        else:
            cur += ch
    if cur:
        out.append(cur)
    return out


def parse(blob, name="<nrrd>"):
    """Parse the bytes of an attached-header NRRD file."""
    pos = 0
    lines = []
    while True:
        nl = blob.find(b"\n", pos)
        if nl < 0:
            raise NrrdError("%s: header does not end (no blank line)" % name)
        line = blob[pos:nl].decode("latin-1").rstrip("\r")
        pos = nl + 1
        if line == "":
            break
        lines.append(line)
    if not lines or not lines[0].startswith("NRRD000") or len(lines[0]) != 8 \
            or lines[0][7] not in "12345":
        raise NrrdError("%s: bad magic %r" % (name, lines[0] if lines else ""))
    fields, keyvalues, comments = {}, {}, []
    for line in lines[1:]:
        if line.startswith("#"):
            comments.append(line[1:].strip())
            continue
        if ":=" in line:
            k, v = line.split(":=", 1)
            keyvalues[k] = v
            continue
        if ": " not in line:
            raise NrrdError("%s: bad header line %r" % (name, line))
        k, v = line.split(": ", 1)
        fields[k.strip().lower()] = v.strip()
    for req in ("type", "dimension", "sizes", "encoding"):
        if req not in fields:
            raise NrrdError("%s: missing field %r" % (name, req))
    if "data file" in fields or "datafile" in fields:
        raise NrrdError("%s: detached data is not supported" % name)
    tname = TYPE_NAMES.get(fields["type"])
    if tname is None:
        raise NrrdError("%s: unknown type %r" % (name, fields["type"]))
    dim = int(fields["dimension"])
    sizes = [int(x) for x in fields["sizes"].split()]
    if len(sizes) != dim:
        raise NrrdError("%s: %d sizes for dimension %d" % (name, len(sizes), dim))
    count = 1
    for s in sizes:
        count *= s
    code, size, isfloat = TYPES[tname]
    enc = fields["encoding"].lower()
    endian = fields.get("endian", "little").lower()
    for _ in range(int(fields.get("line skip", "0"))):
        nl = blob.find(b"\n", pos)
        pos = len(blob) if nl < 0 else nl + 1
    body = blob[pos:]
    if enc in ("raw", "gzip", "gz"):
        if enc != "raw":
            body = gzip.decompress(body)
        skip = int(fields.get("byte skip", "0"))
        if skip == -1:
            body = body[len(body) - count * size:]
        else:
            body = body[skip:]
        if len(body) < count * size:
            raise NrrdError("%s: %d data bytes, expected %d" % (name, len(body), count * size))
        fmt = ("<" if endian == "little" else ">") + code * count
        data = list(struct.unpack(fmt, body[:count * size]))
    elif enc in ("ascii", "text", "txt"):
        words = body.decode("latin-1").replace(",", " ").split()
        if len(words) < count:
            raise NrrdError("%s: %d ascii values, expected %d" % (name, len(words), count))
        conv = float if isfloat else int
        data = [conv(w) for w in words[:count]]
    else:
        raise NrrdError("%s: unsupported encoding %r" % (name, enc))
    n = Nrrd(tname, sizes, data)
    if "kinds" in fields:
        n.kinds = fields["kinds"].split()
    sd = fields.get("space dimension")
    if sd is not None:
        n.space_dim = int(sd)
    if "space directions" in fields:
        n.space_directions = [_parse_vector(v) for v in _split_vectors(fields["space directions"])]
    if "space origin" in fields:
        n.space_origin = _parse_vector(fields["space origin"])
    n.fields, n.keyvalues, n.comments = fields, keyvalues, comments
    return n


def read(path):
    with open(path, "rb") as f:
        return parse(f.read(), path)


# ---------------------------------------------------------------- writing

def f32(x):
    """x rounded to the nearest float32 (as a Python float)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _fmt_num(x):
    if isinstance(x, str):
        return x               # exact decimal text supplied by the caller
    return repr(float(x)) if not isinstance(x, int) else str(x)


def _fmt_vec(v):
    return "none" if v is None else "(" + ",".join(_fmt_num(x) for x in v) + ")"


def header(n, encoding):
    """The header text of n (ending with the blank line)."""
    h = ["NRRD0004", "# written by tests/oracle/nrrd.py",
         "type: " + n.type, "dimension: %d" % n.dimension,
         "sizes: " + " ".join(str(s) for s in n.sizes)]
    if n.kinds is not None:
        h.append("kinds: " + " ".join(n.kinds))
    if n.space_dim:
        h.append("space dimension: %d" % n.space_dim)
        if n.space_directions is not None:
            h.append("space directions: " + " ".join(_fmt_vec(v) for v in n.space_directions))
        if n.space_origin is not None:
            h.append("space origin: " + _fmt_vec(n.space_origin))
    for k, v in n.fields.items():
        h.append("%s: %s" % (k, v))   # extra fields supplied by the caller
    if TYPES[n.type][1] > 1 and encoding == "raw":
        h.append("endian: little")
    h.append("encoding: " + encoding)
    return "\n".join(h) + "\n\n"


def dumps(n, encoding="raw"):
    if len(n.data) != n.count():
        raise NrrdError("%d values for sizes %s" % (len(n.data), n.sizes))
    code, size, isfloat = TYPES[n.type]
    if encoding == "raw":
        vals = n.data if isfloat else [int(v) for v in n.data]
        body = struct.pack("<" + code * len(vals), *vals)
    elif encoding == "ascii":
        if isfloat:
            vals = [f32(v) if n.type == "float" else float(v) for v in n.data]
            body = "\n".join(repr(v) for v in vals).encode() + b"\n"
        else:
            body = "\n".join(str(int(v)) for v in n.data).encode() + b"\n"
    else:
        raise NrrdError("cannot write encoding %r" % encoding)
    return header(n, encoding).encode("latin-1") + body


def write(path, n, encoding="raw"):
    with open(path, "wb") as f:
        f.write(dumps(n, encoding))


def main(argv):
    """`python3 nrrd.py FILE...` prints each header as parsed (debugging)."""
    for p in argv:
        n = read(p)
        print("%s: type %s sizes %s kinds %s space %d dirs %s origin %s"
              % (p, n.type, n.sizes, n.kinds, n.space_dim, n.space_directions, n.space_origin))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
