"""special_outputs: outputs and snapshots never replace a file that is not
a regular one, and write through symbolic links (the runtime's
drt_output_save; doc/user-guide.md, "How outputs are written").

Compiled with --snapshot; each run's output must hold the oracle values,
and afterwards the special file must still be what it was:
  * `-o null`, a copy of /dev/null made with mknod (never the real one):
    still a character device; `-o full` (a copy of /dev/full): exit status
    1, an error naming the file and "No space left on device";
  * `-o fifo` with a reader process started first: the reader gets the
    NRRD, the FIFO stays a FIFO;
  * `-o out.nrrd` where out.nrrd -> real/target.nrrd, first dangling, then
    existing: the link stays a link, the target gets the output;
  * `-o /dev/stdout` with stdout a pipe and a file: the NRRD arrives; first
    through a link of our own to /proc/self/fd/1 (what /dev/stdout is), and
    the machine's /dev/stdout only when that link came through intact;
  * snapshots (`-s 1 -sp snap`): snap-0001.nrrd a dangling link,
    snap-0002.nrrd the null copy, snap-0003.nrrd a FIFO;
  * snapshots that fail: into a missing directory (saved by the writer
    thread), and fs-0002.nrrd a link to the full copy (saved in place):
    exit status 1, one error naming the file, nothing written after it.
Without mknod (not root) the device checks cannot run: the test then
SKIPs with that reason when everything else passed.

Oracle: strand k adds 0.5 in each of its first k steps and then
stabilizes, so after step s its x is k + 0.5 min(s, k); the collection is
compared as a multiset."""

import os
import shutil
import stat
import subprocess

import nrrd
from e2elib import Abort, Skip  # noqa: F401

N = 4
TIMEOUT = 60


def expected(step):
    return [k + 0.5 * min(step, k) for k in range(N)]


def kind(path):
    try:
        return stat.S_IFMT(os.lstat(path).st_mode)
    except OSError:
        return None


def run_raw(t, args, stdout):
    """Run the program with stdout going to STDOUT (a file or PIPE):
    (rc, stdout bytes or None, stderr text)."""
    argv = [t.exe] + [str(a) for a in args]
    try:
        p = subprocess.run(argv, cwd=t.dir, stdin=subprocess.DEVNULL, stdout=stdout,
                           stderr=subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise Abort("timed out: %s" % " ".join(argv))
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def check_blob(t, label, blob, step):
    try:
        n = nrrd.parse(blob, label)
    except (nrrd.NrrdError, ValueError) as e:
        t.fail("%s: not the output NRRD (%s; %d bytes)" % (label, e, len(blob)))
        return
    if n.type != t.real or n.sizes != [N]:
        t.fail("%s: type %s sizes %s, expected %s [%d]" % (label, n.type, n.sizes, t.real, N))
        return
    t.close(label, sorted(n.data), sorted(expected(step)))


def check_file(t, label, path, step):
    try:
        with open(path, "rb") as f:
            check_blob(t, label, f.read(), step)
    except OSError as e:
        t.fail("%s: %s" % (label, e))


def start_reader(t, fifo):
    """A process that reads FIFO to its end; its stdout is the data."""
    return subprocess.Popen(["cat", fifo], cwd=t.dir, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def finish_reader(t, label, reader):
    """The reader's bytes, or None (it is killed when the writer never came)."""
    try:
        out, _ = reader.communicate(timeout=5)
        return out
    except subprocess.TimeoutExpired:
        reader.kill()
        reader.communicate()
        t.fail("%s: the FIFO's reader got nothing (the FIFO was replaced?)" % label)
        return None


def check_run(t, label, args, expect_ok=True):
    rc, _, err = run_raw(t, args, subprocess.DEVNULL)
    if expect_ok and rc != 0:
        t.fail("%s: exit status %d: %s" % (label, rc, err.strip()))
    return rc, err


def devices(t):
    """The null and full copies; the reason when mknod is not allowed."""
    try:
        os.mknod(t.path("null"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        os.mknod(t.path("full"), 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except OSError as e:
        return "mknod: %s (not root?): the character-device checks did not run" % e.strerror
    return None


def check_devices(t):
    check_run(t, "-o null", ["-o", "null"])
    if kind(t.path("null")) != stat.S_IFCHR:
        t.fail("-o null: the character device was replaced")
    rc, err = check_run(t, "-o full", ["-o", "full"], expect_ok=False)
    if rc != 1 or "'full'" not in err or os.strerror(28) not in err:
        t.fail("-o full: exit status %d, expected 1 with an error naming 'full' and "
               "saying %r; stderr: %s" % (rc, os.strerror(28), err.strip()))
    if kind(t.path("full")) != stat.S_IFCHR:
        t.fail("-o full: the character device was replaced")


def check_fifo(t):
    os.mkfifo(t.path("fifo"))
    reader = start_reader(t, "fifo")
    check_run(t, "-o fifo", ["-o", "fifo"])
    blob = finish_reader(t, "-o fifo", reader)
    if blob is not None:
        check_blob(t, "-o fifo", blob, N)
    if kind(t.path("fifo")) != stat.S_IFIFO:
        t.fail("-o fifo: the FIFO was replaced")


def check_links(t):
    os.mkdir(t.path("real"))
    os.symlink("real/target.nrrd", t.path("out.nrrd"))
    for what in ("dangling", "existing"):
        label = "-o out.nrrd (%s link)" % what
        check_run(t, label, ["-o", "out.nrrd"])
        if kind(t.path("out.nrrd")) != stat.S_IFLNK or \
                os.readlink(t.path("out.nrrd")) != "real/target.nrrd":
            t.fail("%s: the link was replaced" % label)
            return
        check_file(t, label, t.path("real/target.nrrd"), N)


def check_stdout(t):
    os.symlink("/proc/self/fd/1", t.path("stdout-link"))
    names = ["stdout-link", "/dev/stdout"]
    for name in names:
        if name == "/dev/stdout" and (kind(t.path("stdout-link")) != stat.S_IFLNK or
                                      kind("/dev/stdout") != stat.S_IFLNK):
            break   # never risk the machine's /dev/stdout
        rc, out, err = run_raw(t, ["-o", name], subprocess.PIPE)
        if rc != 0:
            t.fail("-o %s | ...: exit status %d: %s" % (name, rc, err.strip()))
        else:
            check_blob(t, "-o %s | ..." % name, out, N)
        got = t.path("stdout-got")
        with open(got, "wb") as f:
            ino = os.fstat(f.fileno()).st_ino
            rc, _, err = run_raw(t, ["-o", name], f)
        if rc != 0:
            t.fail("-o %s > file: exit status %d: %s" % (name, rc, err.strip()))
        elif os.stat(got).st_ino != ino:
            t.fail("-o %s > file: the file was replaced" % name)
        else:
            check_file(t, "-o %s > file" % name, got, N)
        os.remove(got)
        if kind(t.path("stdout-link")) != stat.S_IFLNK:
            t.fail("-o stdout-link: the link was replaced")


def check_snapshots(t, have_null):
    os.mkdir(t.path("snaps"))
    os.symlink("snaps/one.nrrd", t.path("snap-0001.nrrd"))
    if have_null:
        os.symlink("null", t.path("snap-0002.nrrd"))   # a link to a device
    os.mkfifo(t.path("snap-0003.nrrd"))
    reader = start_reader(t, "snap-0003.nrrd")
    check_run(t, "-s 1", ["-s", 1, "-sp", "snap", "-o", "x.nrrd"])
    blob = finish_reader(t, "snapshot 3 (FIFO)", reader)
    if blob is not None:
        check_blob(t, "snapshot 3 (FIFO)", blob, 3)
    if kind(t.path("snap-0003.nrrd")) != stat.S_IFIFO:
        t.fail("-s 1: the FIFO snap-0003.nrrd was replaced")
    if kind(t.path("snap-0001.nrrd")) != stat.S_IFLNK:
        t.fail("-s 1: the link snap-0001.nrrd was replaced")
    check_file(t, "snapshot 1 (link)", t.path("snaps/one.nrrd"), 1)
    if have_null and (kind(t.path("snap-0002.nrrd")) != stat.S_IFLNK or
                      kind(t.path("null")) != stat.S_IFCHR):
        t.fail("-s 1: the link snap-0002.nrrd -> null or the device was replaced")
    for s in (0, 4):
        check_file(t, "snapshot %d" % s, t.path("snap-%04d.nrrd" % s), s)


def check_snapshot_errors(t, have_full):
    """Snapshots are saved by a writer thread (rt/rt_writer.c): a save that
    fails there (a missing directory) still fails the run with exit status 1
    and one error naming the file, and nothing is written after it; a save
    the main thread makes in place (snapshot 2 a link to the full device)
    fails the same way, after the earlier snapshots were written."""
    for f in ("x.nrrd",):
        if os.path.exists(t.path(f)):
            os.remove(t.path(f))
    rc, err = check_run(t, "-s 1 -sp nodir/s", ["-s", 1, "-sp", "nodir/s", "-o", "x.nrrd"],
                        expect_ok=False)
    name = "nodir/s-0000.nrrd"
    if rc != 1 or err.count("error:") != 1 or name not in err or os.strerror(2) not in err:
        t.fail("-s 1 -sp nodir/s: exit status %d, expected 1 with one error naming %r and "
               "saying %r; stderr: %s" % (rc, name, os.strerror(2), err.strip()))
    if os.path.exists(t.path("x.nrrd")):
        t.fail("-s 1 -sp nodir/s: the output was written after a failed snapshot")
    if not have_full:
        return
    os.symlink("full", t.path("fs-0002.nrrd"))
    rc, err = check_run(t, "-s 1 -sp fs", ["-s", 1, "-sp", "fs", "-o", "x.nrrd"], expect_ok=False)
    if rc != 1 or err.count("error:") != 1 or "fs-0002.nrrd" not in err or \
            os.strerror(28) not in err:
        t.fail("-s 1 -sp fs (fs-0002.nrrd -> full): exit status %d, expected 1 with one error "
               "naming it and saying %r; stderr: %s" % (rc, os.strerror(28), err.strip()))
    for s in (0, 1):
        check_file(t, "snapshot %d before the failed one" % s, t.path("fs-%04d.nrrd" % s), s)
    for s in (3, 4):
        if os.path.exists(t.path("fs-%04d.nrrd" % s)):
            t.fail("-s 1 -sp fs: snapshot %d written after the failed one" % s)
    if kind(t.path("full")) != stat.S_IFCHR or kind(t.path("fs-0002.nrrd")) != stat.S_IFLNK:
        t.fail("-s 1 -sp fs: the link fs-0002.nrrd -> full or the device was replaced")


def cleanup(t):
    """Leave regular output files only (the cuda mode compares them)."""
    for f in os.listdir(t.dir):
        p = t.path(f)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p, ignore_errors=True)
        elif kind(p) != stat.S_IFREG or f.startswith("snap-") or f.startswith("fs-"):
            os.remove(p)


def run(t):
    t.compile(["--snapshot"])
    t.exec(["-n", N])
    out = t.layout("x.nrrd", t.real, [N], ["list"])
    t.close("x", sorted(out.data), sorted(expected(N)))
    if t.fake:
        return
    skipped = devices(t)
    try:
        if not skipped:
            check_devices(t)
        check_fifo(t)
        check_links(t)
        check_stdout(t)
        check_snapshots(t, not skipped)
        check_snapshot_errors(t, not skipped)
    finally:
        cleanup(t)
    if skipped and not t.failures:
        raise Skip(skipped)
