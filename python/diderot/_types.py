"""Diderot types as the JSON description writes them ("real", "tensor[3]",
"int[2]", "vec3[]" printed as "tensor[3][]", "image(3)[]"), parsed into what
the package needs: the kind, the value's NumPy shape, and whether it is a
dynamic sequence."""

import re

_BASE = re.compile(r"^(bool|int|real|string|tensor\[([0-9,]*)\]|image\(([0-9])\)\[([0-9,]*)\])")
_SUFFIX = re.compile(r"\[([0-9]*)\]")


def _dims(text):
    return tuple(int(x) for x in text.split(",") if x)


class DType:
    """kind: bool, int, real, string, image; shape: the NumPy shape of one
    value (sequence lengths first, then tensor axes); dynamic: a T[]
    sequence, whose elements have elem_shape; dim/image_shape for images."""

    def __init__(self, text):
        self.text = text
        m = _BASE.match(text)
        if not m:
            raise ValueError("unknown Diderot type %r" % text)
        base = m.group(1)
        rest = text[m.end():]
        self.dim = None
        self.image_shape = None
        if base.startswith("tensor"):
            self.kind = "real"
            tshape = _dims(m.group(2))
        elif base.startswith("image"):
            self.kind = "image"
            self.dim = int(m.group(3))
            self.image_shape = _dims(m.group(4))
            tshape = ()
        else:
            self.kind = base
            tshape = ()
        seqs = []
        pos = 0
        while pos < len(rest):
            s = _SUFFIX.match(rest, pos)
            if not s:
                raise ValueError("unknown Diderot type %r" % text)
            seqs.append(s.group(1))
            pos = s.end()
        self.dynamic = bool(seqs) and seqs[-1] == ""
        if any(x == "" for x in seqs[:-1]):
            raise ValueError("unsupported Diderot type %r (nested dynamic sequence)" % text)
        fixed = [int(x) for x in (seqs[:-1] if self.dynamic else seqs)]
        # T[a][b] is b elements of T[a]: the outermost length comes first
        self.elem_shape = tuple(reversed(fixed)) + tshape
        self.shape = None if self.dynamic else self.elem_shape
        if self.kind == "image" and seqs:
            raise ValueError("unsupported Diderot type %r" % text)

    @property
    def ncomp(self):
        n = 1
        for s in self.elem_shape:
            n *= s
        return n

    def __repr__(self):
        return self.text
