"""The interactive viewer, examples/viewer (issue 14 §2; tests/run.py: viewer/NAME).

viewer/build     examples/viewer/build.sh builds the viewer against the build
                 tree under test (installed into a private prefix, the library
                 linked through pkg-config diderot-omp), with no warnings under
                 -Wall -Wextra; skipped without SDL2 (libsdl2-dev).
viewer/camera    the camera's closed forms (examples/viewer/test_camera.c, built
                 alone when there is no SDL):
                 a drag of N pixels turns the camera by pi*N/width, wheel
                 clicks scale the distance by 0.9 each.
viewer/xvfb      the viewer run headless under Xvfb, driven by xdotool (skipped,
                 saying so, without Xvfb, xdotool or xwd): a drag, two wheel
                 clicks, a click on the slider, M (switch to MIP), then R, Up
                 and Right, with a dump of the framebuffer (key P) after each
                 step. Checked:
                   - the camera and isovalue of each dump against the closed
                     forms of the events sent (from the initial view, which
                     is itself checked against the viewer's documented start);
                   - each dumped image against the same view rendered by the
                     executable diderotc makes from the same program
                     (viewer.diderot), given the dump's inputs, pixel by pixel
                     outside the text box (tolerance below);
                   - a screenshot of the window (xwd) against the last dump,
                     exactly: what the window shows is the framebuffer.

viewer/python    the Python version (examples/viewer/mpl_viewer.py, matplotlib on
                 python/diderot) driven through matplotlib's events with the Agg
                 backend (tests/viewer/mpl_check.py): the same camera closed
                 forms, and its images equal to the executable's floats; skipped
                 without a Python that has numpy, cffi and matplotlib.

collect() returns (name, fn) pairs; fn() returns (status, details).
"""

import math
import os
import shutil
import struct
import subprocess
import sys
import threading
import time

nrrd = None  # tests/oracle/nrrd.py, imported by collect() (run.py execs this file)

BUILD_TIMEOUT = 600
RUN_TIMEOUT = 300  # a frame takes ~1 s at 128x128 on two loaded cores; dumps wait for it
SIZE = 128

_lock = threading.Lock()
_built = {}


def _run(argv, cwd=None, env=None, timeout=BUILD_TIMEOUT):
    p = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def _tail(text, n=15):
    return ["  | " + l for l in text.rstrip().splitlines()[-n:]]


def _build(srcdir, builddir):
    """Build the viewer once per run (the tests share it): (status, details, outdir)."""
    with _lock:
        if "result" in _built:
            return _built["result"]
        out = os.path.join(builddir, "tests", "viewer-work", "build")
        if not os.path.exists(os.path.join(builddir, "Makefile")):
            res = ("skip", ["the build tree has no Makefile"], out)
        elif subprocess.run(["pkg-config", "--exists", "sdl2"]).returncode != 0:
            res = ("skip", ["needs SDL2 (Debian package libsdl2-dev)"], out)
        else:
            shutil.rmtree(out, ignore_errors=True)
            rc, so, se = _run(["sh", os.path.join(srcdir, "examples", "viewer", "build.sh"),
                               builddir, out])
            if rc != 0:
                res = ("fail", ["build.sh failed (rc %d)" % rc] + _tail(se), out)
            elif "warning" in se:
                res = ("fail", ["the viewer's build has warnings"] + _tail(se), out)
            else:
                res = ("pass", [], out)
        _built["result"] = res
        return res


def test_build(srcdir, builddir):
    status, details, _ = _build(srcdir, builddir)
    return status, details


def test_camera(srcdir, builddir):
    status, details, out = _build(srcdir, builddir)
    exe = os.path.join(out, "test-camera")
    if status == "skip":
        # no SDL: the camera needs none, build its test alone
        work = os.path.join(builddir, "tests", "viewer-work", "camera")
        os.makedirs(work, exist_ok=True)
        exe = os.path.join(work, "test-camera")
        d = os.path.join(srcdir, "examples", "viewer")
        rc, so, se = _run([os.environ.get("CC", "cc"), "-std=c11", "-Wall", "-Wextra", "-O2",
                           "-o", exe, os.path.join(d, "test_camera.c"),
                           os.path.join(d, "vw_camera.c"), "-lm"])
        if rc != 0 or "warning" in se:
            return "fail", ["building test_camera.c"] + _tail(se)
    elif status != "pass":
        return status, details or ["the viewer was not built"]
    rc, so, se = _run([exe], timeout=60)
    if rc != 0:
        return "fail", _tail(so + se)
    return "pass", [so.strip()]


# ---- the headless session -------------------------------------------------

def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    parts = data.split(maxsplit=4)  # P6 W H 255 pixels
    assert parts[0] == b"P6" and parts[3] == b"255", path
    w, h = int(parts[1]), int(parts[2])
    pix = parts[4]
    return w, h, [tuple(pix[3 * i:3 * i + 3]) for i in range(w * h)]


def read_xwd(path):
    """The pixels of a TrueColor ZPixmap XWD file (what xwd writes for a
    24-bit Xvfb screen) as (w, h, [(r, g, b)])."""
    with open(path, "rb") as f:
        data = f.read()
    hdr = struct.unpack(">25I", data[:100])
    (hsize, _version, fmt, _depth, w, h, _xoff, byte_order, _unit, _bit_order, _pad,
     bpp, bpl, _vclass, rmask, gmask, bmask, _bits, _cmap, ncolors) = hdr[:20]
    if fmt != 2 or bpp not in (24, 32):
        raise ValueError("xwd: format %d, %d bits per pixel: not a TrueColor ZPixmap" % (fmt, bpp))
    off = hsize + 12 * ncolors

    def shift(mask):
        s = 0
        while mask and not mask & 1:
            mask >>= 1
            s += 1
        return s
    rs, gs, bs = shift(rmask), shift(gmask), shift(bmask)
    nb = bpp // 8
    out = []
    for y in range(h):
        row = data[off + y * bpl: off + y * bpl + w * nb]
        for x in range(w):
            b = row[x * nb:(x + 1) * nb]
            v = int.from_bytes(b, "little" if byte_order == 0 else "big")
            out.append(((v & rmask) >> rs, (v & gmask) >> gs, (v & bmask) >> bs))
    return w, h, out


def read_dump_txt(path):
    d = {}
    with open(path) as f:
        for line in f:
            k, *v = line.split()
            d[k] = v
    return d


def to_byte(x):
    """The viewer's mapping of a channel to a byte (vw_frame.c), in float32."""
    if not x > 0.0:
        return 0
    if x >= 1.0:
        return 255
    return int(nrrd.f32(nrrd.f32(255.0 * x) + 0.5))


class Session:
    def __init__(self, work, env):
        self.work, self.env = work, env
        self.procs = []
        self.lines = []
        self.cond = threading.Condition()

    def start_xvfb(self):
        r, w = os.pipe()
        p = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "640x480x24",
                              "-nolisten", "tcp"], pass_fds=(w,), stdout=subprocess.DEVNULL,
                             stderr=open(os.path.join(self.work, "xvfb.log"), "w"))
        os.close(w)
        self.procs.append(p)
        with os.fdopen(r) as f:
            num = f.readline().strip()
        if not num:
            raise RuntimeError("Xvfb did not start (xvfb.log)")
        self.env["DISPLAY"] = ":" + num

    def start_viewer(self, argv):
        p = subprocess.Popen(argv, cwd=self.work, env=self.env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.procs.append(p)
        self.viewer = p

        def reader():
            for raw in p.stdout:
                with self.cond:
                    self.lines.append(raw.decode("utf-8", "replace").rstrip())
                    self.cond.notify_all()
            with self.cond:
                self.lines.append("<exit>")
                self.cond.notify_all()
        threading.Thread(target=reader, daemon=True).start()

    def wait_line(self, prefix, count, timeout=RUN_TIMEOUT):
        """Wait until count lines starting with prefix have been printed."""
        end = time.time() + timeout
        with self.cond:
            while sum(l.startswith(prefix) for l in self.lines) < count:
                if "<exit>" in self.lines:
                    raise RuntimeError("the viewer exited:\n" + "\n".join(self.lines[-15:]))
                left = end - time.time()
                if left <= 0:
                    raise RuntimeError("no %r line after %d s" % (prefix, timeout))
                self.cond.wait(left)

    def xdo(self, *args):
        rc, so, se = _run(["xdotool"] + [str(a) for a in args], env=self.env, timeout=60)
        if rc != 0:
            raise RuntimeError("xdotool %s: %s" % (" ".join(map(str, args)), se.strip()))
        return so.strip()

    def close(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


def render_exec(exe, vol, d, out):
    """Render the dump's view with the executable: the same inputs."""
    argv = [exe, "-q", "-vol", vol, "-camEye"] + d["eye"] + ["-camAt"] + d["at"] + \
        ["-camUp"] + d["up"] + ["-camFOV"] + d["fov"] + ["-camRadius"] + d["radius"] + \
        ["-imgResU", d["size"][0], "-imgResV", d["size"][1], "-rayStep"] + d["step"] + \
        ["-mode"] + d["mode"] + ["-isoval"] + d["iso"] + ["-thick"] + d["thick"] + ["-o", out]
    rc, so, se = _run(argv, timeout=RUN_TIMEOUT)
    if rc != 0:
        raise RuntimeError("the executable failed: %s" % se.strip()[-500:])
    return nrrd.read(out)


def compare_image(dump_ppm, d, ref):
    """Problems between the dumped framebuffer's image area and the
    executable's output mapped as the viewer maps it.

    Tolerance: none on the values (the library and the executable are the same
    generated C, compiled the same way, given the same float inputs, so the
    floats agree bit for bit), and one byte level on a channel (the viewer maps
    in C float arithmetic, this in Python's, so a value that lands exactly
    on a rounding boundary may go either way). The text box is left out."""
    w, h, pix = read_ppm(dump_ppm)
    iw, ih = int(d["size"][0]), int(d["size"][1])
    hw, hh = int(d["hud"][0]), int(d["hud"][1])
    if ref.sizes != [3, iw, ih]:
        return ["the executable's output has sizes %s, expected [3, %d, %d]" % (ref.sizes, iw, ih)]
    bad, worst, lit, problems = 0, 0, 0, []
    for y in range(ih):
        for x in range(iw):
            if x < hw and y < hh:
                continue
            got = pix[y * w + x]
            want = [to_byte(ref.data[3 * (y * iw + x) + c]) for c in range(3)]
            diff = max(abs(g - e) for g, e in zip(got, want))
            worst = max(worst, diff)
            lit += any(want)
            if diff > 1:
                bad += 1
                if bad <= 5:
                    problems.append("pixel (%d, %d): viewer %s, executable %s" % (x, y, got, want))
    if bad:
        problems.insert(0, "%d pixels differ by more than one level (worst %d)" % (bad, worst))
    if lit < iw * ih // 20:
        problems.append("only %d pixels are lit: the view misses the volume" % lit)
    return problems


def close(a, b, tol):
    return all(abs(x - y) <= tol * (1 + abs(y)) for x, y in zip(a, b))


def test_xvfb(srcdir, builddir):
    missing = [t for t in ("Xvfb", "xdotool", "xwd") if not shutil.which(t)]
    if missing:
        return "skip", ["needs %s (Debian packages xvfb, xdotool, x11-apps)" % ", ".join(missing)]
    status, details, out = _build(srcdir, builddir)
    if status != "pass":
        return status, details or ["the viewer was not built"]
    work = os.path.join(builddir, "tests", "viewer-work", "xvfb")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    vol = os.path.join(srcdir, "examples", "data", "blobs.nrrd")
    env = dict(os.environ, SDL_VIDEODRIVER="x11")
    s = Session(work, env)
    problems = []
    try:
        s.start_xvfb()
        dump = os.path.join(work, "d.ppm")
        s.start_viewer([os.path.join(out, "diderot-viewer"), "-v", "--size", str(SIZE),
                        "--dump", dump, vol])
        s.wait_line("diderot-viewer: ready", 1)
        wid = s.xdo("search", "--sync", "--name", "^diderot-viewer$").split()[0]
        # keys go to the focused window (no window manager here: focus it)
        s.xdo("windowfocus", "--sync", wid)
        ndumps = [0]

        def take(tag):
            s.xdo("key", "--window", wid, "p")
            ndumps[0] += 1
            s.wait_line("diderot-viewer: dumped", ndumps[0])
            keep = os.path.join(work, tag + ".ppm")
            shutil.copy(dump, keep)
            shutil.copy(dump + ".txt", keep + ".txt")
            return keep, read_dump_txt(keep + ".txt")

        # 1. the start: seen from (6, 4, 3) at 4.5 radii (sqrt 3 for blobs)
        p0, d0 = take("start")
        r = math.sqrt(3.0)
        az0, el0, dist0 = math.atan2(4, 6), math.asin(3 / math.sqrt(61)), 4.5 * r
        got = [float(d0[k][0]) for k in ("azim", "elev", "dist")]
        if not close(got, [az0, el0, dist0], 1e-9):
            problems.append("start: camera (azim, elev, dist) %s, expected %s"
                            % (got, [az0, el0, dist0]))

        # 2. a drag by (DX, DY), two wheel clicks up, a click on the slider
        DX, DY, X0, Y0 = 32, -8, 40, 70
        s.xdo("mousemove", "--window", wid, X0, Y0, "mousedown", 1,
              "mousemove", "--window", wid, X0 + DX // 2, Y0 + DY // 2,
              "mousemove", "--window", wid, X0 + DX, Y0 + DY, "mouseup", 1)
        s.xdo("click", 4, "click", 4)
        sx0, sx1, sy = (int(v) for v in d0["slider"])
        SX = sx0 + (sx1 - sx0) * 2 // 5
        s.xdo("mousemove", "--window", wid, SX, sy, "click", 1)
        p1, d1 = take("moved")
        # responsiveness: when a full frame is over the viewer's 60 ms budget
        # (always, on this test's machines), a drag renders smaller previews,
        # and what is dumped is a full frame
        frames = [l.split() for l in s.lines if l.startswith("frame ")]
        if float(d0["render_ms"][0]) > 60 and not any(f[-1] == "preview" for f in frames):
            problems.append("no preview frame during the drag (frames: %s)" % frames)
        if not frames or frames[-1][-1] != "full" or frames[-1][1] != "%dx%d" % (SIZE, SIZE):
            problems.append("the last frame before the dump is not a full one: %s" % frames[-1:])
        az = az0 - math.pi * DX / SIZE
        el = el0 + math.pi * DY / SIZE
        dist = dist0 * 0.9 ** 2
        got = [float(d1[k][0]) for k in ("azim", "elev", "dist")]
        if not close(got, [az, el, dist], 1e-9):
            problems.append("after the drag and zoom: camera %s, expected %s" % (got, [az, el, dist]))
        eye = [dist * math.cos(el) * math.cos(az), dist * math.cos(el) * math.sin(az),
               dist * math.sin(el)]
        if not close([float(v) for v in d1["eye"]], eye, 1e-6):  # floats in the dump
            problems.append("after the drag and zoom: eye %s, expected %s" % (d1["eye"], eye))
        vmin, vmax = (float(v) for v in d0["vrange"])
        iso = vmin + (SX - sx0) / (sx1 - sx0) * (vmax - vmin)
        if not close([float(d1["iso"][0])], [iso], 1e-6):
            problems.append("slider at x=%d: isovalue %s, expected %g" % (SX, d1["iso"][0], iso))

        # 3. M: the same view as a MIP
        s.xdo("key", "--window", wid, "m")
        p2, d2 = take("mip")
        if d2["mode"] != ["0"] or d2["eye"] != d1["eye"]:
            problems.append("after M: mode %s eye %s, expected 0 and %s" % (d2["mode"], d2["eye"], d1["eye"]))

        # 4. R (back to the start), Up (isovalue + 1% of the range), Right
        # (thickness x 1.25)
        s.xdo("key", "--window", wid, "r", "key", "--window", wid, "Up",
              "key", "--window", wid, "Right")
        p3, d3 = take("keys")
        got = [float(d3[k][0]) for k in ("azim", "elev", "dist")]
        if not close(got, [az0, el0, dist0], 1e-9):
            problems.append("after R: camera %s, expected the start's %s" % (got, [az0, el0, dist0]))
        iso_up = nrrd.f32(nrrd.f32(float(d1["iso"][0])) + 0.01 * (vmax - vmin))
        if not close([float(d3["iso"][0]), float(d3["thick"][0])],
                     [iso_up, float(d0["thick"][0]) * 1.25], 1e-6):
            problems.append("after Up, Right: isovalue %s, thickness %s; expected %g, %g"
                            % (d3["iso"][0], d3["thick"][0], iso_up, float(d0["thick"][0]) * 1.25))

        # the window on screen is the last dump
        xwd = os.path.join(work, "window.xwd")
        rc, so, se = _run(["xwd", "-silent", "-id", wid, "-out", xwd], env=env, timeout=60)
        if rc != 0:
            problems.append("xwd failed: " + se.strip())
        else:
            sw, sh, spix = read_xwd(xwd)
            dw, dh, dpix = read_ppm(p3)
            if (sw, sh) != (dw, dh):
                problems.append("screenshot %dx%d, the dump %dx%d" % (sw, sh, dw, dh))
            elif spix != dpix:
                n = sum(a != b for a, b in zip(spix, dpix))
                problems.append("the screenshot differs from the dump in %d pixels" % n)

        exe = os.path.join(out, "viewer-exec")
        for tag, p, d in (("start (DVR)", p0, d0), ("moved (DVR)", p1, d1), ("MIP", p2, d2),
                          ("keys (MIP)", p3, d3)):
            ref = render_exec(exe, vol, d, os.path.join(work, "exec-%s.nrrd" % d["mode"][0]))
            problems += ["%s: %s" % (tag, m) for m in compare_image(p, d, ref)]

        # Q quits on the key press, so the window may be gone when xdotool
        # sends the release (BadWindow): only the exit counts
        _run(["xdotool", "key", "--window", wid, "q"], env=env, timeout=60)
        try:
            s.viewer.wait(60)
        except subprocess.TimeoutExpired:
            problems.append("the viewer did not quit on Q")
    except (RuntimeError, OSError, ValueError, KeyError, subprocess.TimeoutExpired) as e:
        problems.append(str(e))
    finally:
        s.close()
    if problems:
        return "fail", problems + ["(work directory %s)" % work]
    shutil.rmtree(work, ignore_errors=True)
    kinds = [l.split()[-1] for l in s.lines if l.startswith("frame ")]
    return "pass", ["frames rendered: %d full, %d preview, %d cancelled"
                    % tuple(kinds.count(k) for k in ("full", "preview", "cancelled"))]


def _python_with(mods):
    """A Python 3 that imports all of mods (this one, else Debian's)."""
    for py in (sys.executable, "/usr/bin/python3", shutil.which("python3")):
        if py and os.path.exists(py) and subprocess.run(
                [py, "-c", "import " + ", ".join(mods)], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL).returncode == 0:
            return py
    return None


def test_python(srcdir, builddir, diderotc):
    py = _python_with(["numpy", "cffi", "matplotlib"])
    if not py:
        return "skip", ["needs a Python with numpy, cffi and matplotlib "
                        "(Debian: python3-numpy python3-cffi python3-matplotlib)"]
    work = os.path.join(builddir, "tests", "viewer-work", "python")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, MPLBACKEND="Agg", MPLCONFIGDIR=os.path.join(work, "mpl"))
    try:
        rc, so, se = _run([py, os.path.join(srcdir, "tests", "viewer", "mpl_check.py"), srcdir,
                           diderotc or os.path.join(builddir, "diderotc"), work],
                          env=env, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        return "fail", ["mpl_check.py ran over %d s (work directory %s)" % (RUN_TIMEOUT, work)]
    if rc != 0:
        return "fail", _tail(so + se, 25) + ["(work directory %s)" % work]
    shutil.rmtree(work, ignore_errors=True)
    return "pass", [so.strip().splitlines()[-1]]


def collect(srcdir, builddir, diderotc):
    global nrrd
    sys.path.insert(0, os.path.join(srcdir, "tests", "oracle"))
    import nrrd as nrrd_module
    nrrd = nrrd_module
    return [("viewer/build", lambda: test_build(srcdir, builddir)),
            ("viewer/camera", lambda: test_camera(srcdir, builddir)),
            ("viewer/xvfb", lambda: test_xvfb(srcdir, builddir)),
            ("viewer/python", lambda: test_python(srcdir, builddir, diderotc))]


if __name__ == "__main__":
    # python3 tests/viewer/viewer.py SRCDIR BUILDDIR: run the group alone
    for name, fn in collect(sys.argv[1], sys.argv[2], None):
        st, det = fn()
        print(name, st)
        for line in det:
            print("   ", line)
