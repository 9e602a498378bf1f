#!/usr/bin/env python3
"""splat.py -- draw the isocontour example's points as a PNG (no numpy).

usage: splat.py POINTS.nrrd OUT.png [-size N] [-bg IMAGE.nrrd]

POINTS.nrrd is the program's output: a 2 x N list of world positions. The
picture covers the world square [-1,1]^2 of the portrait, with image rows
running down the +y axis like the portrait's own sample rows (so it comes out
upright). With -bg, the (dimmed) 2-D image is drawn underneath, sampled at
the nearest sample; points are red.
"""
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tests", "oracle"))
import nrrd  # noqa: E402  (tests/oracle/nrrd.py, pure Python)


def write_png(path, w, h, rgb_rows):
    def chunk(tag, data):
        c = struct.pack(">I", len(data)) + tag + data
        return c + struct.pack(">I", zlib.crc32(tag + data) & 0xffffffff)
    raw = b"".join(b"\x00" + bytes(row) for row in rgb_rows)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
        f.write(chunk(b"IEND", b""))


def world_to_index(img, x, y):
    """Inverse of the image's (diagonal) index-to-world map."""
    (dx, _), (_, dy) = img.space_directions
    ox, oy = img.space_origin
    return (x - ox) / dx, (y - oy) / dy


def main(argv):
    args = list(argv)
    size, bg = 400, None
    if "-size" in args:
        i = args.index("-size")
        size = int(args[i + 1])
        del args[i:i + 2]
    if "-bg" in args:
        i = args.index("-bg")
        bg = nrrd.read(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    pts = nrrd.read(args[0])
    if pts.dimension != 2 or pts.sizes[0] != 2:
        sys.stderr.write("splat.py: %s is not a 2 x N list of points\n" % args[0])
        return 1

    def to_pix(v):            # world [-1,1] -> pixel [0,size)
        return (v + 1.0) * 0.5 * size

    rows = [[0] * (3 * size) for _ in range(size)]
    if bg is not None:
        nx, ny = bg.sizes
        for r in range(size):
            y = -1.0 + (r + 0.5) * 2.0 / size
            for c in range(size):
                x = -1.0 + (c + 0.5) * 2.0 / size
                fi, fj = world_to_index(bg, x, y)
                i, j = int(round(fi)), int(round(fj))
                if 0 <= i < nx and 0 <= j < ny:
                    g = int(max(0.0, min(1.0, bg[(i, j)])) * 140)
                    rows[r][3 * c:3 * c + 3] = [g, g, g]
    n = pts.sizes[1]
    for k in range(n):
        x, y = pts.data[2 * k], pts.data[2 * k + 1]
        if x != x or y != y:
            continue
        c, r = int(to_pix(x)), int(to_pix(y))
        for rr in (r, r + 1):           # 2x2 dot
            for cc in (c, c + 1):
                if 0 <= rr < size and 0 <= cc < size:
                    rows[rr][3 * cc:3 * cc + 3] = [255, 40, 40]
    write_png(args[1], size, size, rows)
    print("splat.py: %d points -> %s" % (n, args[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
