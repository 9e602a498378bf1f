"""unu_grid_pg.py -- stand-in for `unu grid -i NRRD -pg` (Teem r6325 and
later; Debian's 2016 Teem lacks -pg), used by the dprobe case: prints the
image's own sampling grid in gprobe's -pg form, as plain text that unu reads:
a first row "dimension origin..." and then, per axis from fast to slow,
"size direction...". Only the header is read."""
import re
import sys


def main(argv):
    path = argv[argv.index("-i") + 1]
    hdr = {}
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("latin-1").rstrip("\r\n")
            if not line:
                break
            if line.startswith("#") or ":=" in line or ": " not in line:
                continue
            k, v = line.split(": ", 1)
            hdr[k.strip().lower()] = v.strip()
    sizes = hdr["sizes"].split()
    vecs = lambda t: [g.split(",") for g in re.findall(r"\(([^)]*)\)", t)]
    origin = vecs(hdr["space origin"])[0]
    dirs = vecs(hdr["space directions"])
    rows = [[str(len(sizes))] + origin]
    rows += [[s] + d for s, d in zip(sizes, dirs)]
    width = max(len(r) for r in rows)
    for r in rows:
        print(" ".join(x.strip() for x in r + ["0"] * (width - len(r))))


if __name__ == "__main__":
    main(sys.argv[1:])
