"""diderot_build -- the PEP 517 build backend of python/pyproject.toml.

`pip install ./python` needs no network: this backend requires no other
package (setuptools included) and builds nothing; the wheel holds the
pure-Python package diderot/ (not _config.py, which only `make install`
writes) and its metadata from pyproject.toml.
"""

import base64
import hashlib
import io
import os
import tarfile
import zipfile

try:
    import tomllib
except ImportError:  # Python < 3.11: the few fields read by hand
    tomllib = None

HERE = os.path.dirname(os.path.abspath(__file__))


def _project():
    path = os.path.join(HERE, "pyproject.toml")
    if tomllib is not None:
        with open(path, "rb") as f:
            return tomllib.load(f)["project"]
    proj, section = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("["):
                section = line.strip("[]")
            elif section == "project" and "=" in line:
                k, v = (x.strip() for x in line.split("=", 1))
                proj[k] = eval(v, {})  # strings and lists of strings only
    return proj


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", "Name: " + p["name"], "Version: " + p["version"],
             "Summary: " + p.get("description", "")]
    if p.get("requires-python"):
        lines.append("Requires-Python: " + p["requires-python"])
    lines += ["Requires-Dist: " + d for d in p.get("dependencies", [])]
    for extra, deps in sorted(p.get("optional-dependencies", {}).items()):
        lines.append("Provides-Extra: " + extra)
        lines += ['Requires-Dist: %s; extra == "%s"' % (d, extra) for d in deps]
    return p, "\n".join(lines) + "\n"


def _files():
    pkg = os.path.join(HERE, "diderot")
    return sorted(f for f in os.listdir(pkg) if f.endswith(".py") and f != "_config.py")


def _digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    p, meta = _metadata()
    name = "%s-%s-py3-none-any.whl" % (p["name"], p["version"])
    info = "%s-%s.dist-info" % (p["name"], p["version"])
    entries = []
    for f in _files():
        with open(os.path.join(HERE, "diderot", f), "rb") as fh:
            entries.append(("diderot/" + f, fh.read()))
    entries.append((info + "/METADATA", meta.encode()))
    entries.append((info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: diderot_build\n"
                                     b"Root-Is-Purelib: true\nTag: py3-none-any\n"))
    record = "".join("%s,%s,%d\n" % (n, _digest(d), len(d)) for n, d in entries)
    entries.append((info + "/RECORD", (record + info + "/RECORD,,\n").encode()))
    path = os.path.join(wheel_directory, name)
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in entries:
            z.writestr(zipfile.ZipInfo(n, date_time=(1980, 1, 1, 0, 0, 0)), d,
                       compress_type=zipfile.ZIP_DEFLATED)
    os.replace(tmp, path)
    return name


def build_sdist(sdist_directory, config_settings=None):
    p, meta = _metadata()
    base = "%s-%s" % (p["name"], p["version"])
    name = base + ".tar.gz"
    path = os.path.join(sdist_directory, name)
    tmp = path + ".tmp"
    with tarfile.open(tmp, "w:gz") as t:
        for rel in ["pyproject.toml", "diderot_build.py", "README.md"] + ["diderot/" + f for f in _files()]:
            t.add(os.path.join(HERE, rel), arcname=base + "/" + rel)
        data = meta.encode()
        ti = tarfile.TarInfo(base + "/PKG-INFO")
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
    os.replace(tmp, path)
    return name
