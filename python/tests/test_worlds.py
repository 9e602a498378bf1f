"""Step-wise use: worlds, steps, snapshots, changing inputs, progress,
several worlds at once, threads (the omp target)."""

import os
import threading

import numpy as np
import pytest

import diderot
import nrrd as oracle
from conftest import DATA, EXAMPLES, run_exe, write
from test_examples import oracle_array

# strand i takes i+1 steps; x counts them times inc
COUNT = """#version 2.0
input int n = 5;
input real inc = 1.0;
strand S (int i) {
  output real x = 0.0;
  int k = 0;
  update { x += inc; k += 1; if (k > i) stabilize; }
}
create_collection { S(i) | i in 0..n-1 };
"""


@pytest.fixture(scope="module")
def count(compile, tmp_path_factory):
    return compile(write(tmp_path_factory.mktemp("count"), "count.diderot", COUNT))


def test_step_outputs_snapshot(count):
    w = count.world(n=5)
    assert w.step(2) == 2 and w.steps == 2
    assert (w.strands, w.active, w.stable) == (5, 3, 2)
    out = w.outputs()  # a collection: the stable strands
    np.testing.assert_array_equal(out.x, [1, 2])
    snap = w.snapshot()  # every alive strand
    np.testing.assert_array_equal(snap.x, [1, 2, 2, 2, 2])
    assert w.run() == 3 and w.done
    np.testing.assert_array_equal(w.outputs().x, [1, 2, 3, 4, 5])
    assert w.step() == 0  # finished
    w.close()


def test_no_stable_strands_yet(count):
    """A collection's outputs before any strand is stable: empty arrays."""
    w = count.world()
    out = w.outputs()
    assert out.x.shape == (0,) and out.x.dtype == np.float32 and out.steps == 0
    assert w.snapshot().x.shape == (5,)
    w.close()


def test_change_input_and_rerun(count):
    w = count.world(n=3, inc=1.0)
    w.run()
    np.testing.assert_array_equal(w.outputs().x, [1, 2, 3])
    w.set(inc=0.5, n=4)  # starts again from the initial strands
    assert w.steps == 0 or not w.done
    w.run()
    assert w.steps == 4
    np.testing.assert_array_equal(w.outputs().x, [0.5, 1, 1.5, 2])
    w.reset()
    w.step(1)
    np.testing.assert_array_equal(w.outputs().x, [0.5])
    w.close()


def test_two_worlds_at_once(count):
    a = count.world(inc=1.0)
    b = count.world(inc=10.0, n=3)
    a.step(1)
    b.step(2)
    a.step(1)
    np.testing.assert_array_equal(a.snapshot().x, [1, 2, 2, 2, 2])
    np.testing.assert_array_equal(b.snapshot().x, [10, 20, 20])
    b.run()
    a.run()
    np.testing.assert_array_equal(a.outputs().x, [1, 2, 3, 4, 5])
    np.testing.assert_array_equal(b.outputs().x, [10, 20, 30])


def test_worlds_in_python_threads(count):
    results = {}

    def go(k):
        results[k] = count.run(n=50 + k, inc=float(k)).x

    ts = [threading.Thread(target=go, args=(k,)) for k in range(1, 5)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for k in range(1, 5):
        np.testing.assert_array_equal(results[k], k * (np.arange(50 + k) + 1.0))


def test_progress(count):
    seen = []
    out = count.run(n=6, progress=seen.append, progress_interval=0)
    steps = [p.step for p in seen]
    assert steps == sorted(steps) and steps[-1] == 6 == out.steps
    assert seen[-1].active == 0 and seen[-1].stable == 6
    assert all(isinstance(p, diderot.Progress) and p.elapsed >= 0 for p in seen)


def test_progress_stops_and_continues(count):
    w = count.world(n=6)
    assert w.run(progress=lambda p: p.step >= 2, progress_interval=0) == 2
    assert w.active == 4
    w.run()
    np.testing.assert_array_equal(w.outputs().x, np.arange(1, 7))


def test_progress_exception_propagates(count):
    w = count.world(n=6)

    def boom(p):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        w.run(progress=boom, progress_interval=0)
    assert w.steps == 1  # stopped after the first step
    w.run()
    np.testing.assert_array_equal(w.outputs().x, np.arange(1, 7))


def test_threads_omp(compile, exe, tmp_path):
    """The omp target with 1 and 2 threads gives the sequential
    executable's output, and uses the threads asked for."""
    src = os.path.join(EXAMPLES, "vorticity", "vorticity.diderot")
    flow = os.path.join(DATA, "sqflow2D-1608.nrrd")
    run_exe(exe(src), ["-flow", flow, "-sizeX", "64", "-sizeY", "24", "-o", "v.nrrd"], str(tmp_path))
    want = oracle_array(oracle.read(str(tmp_path / "v.nrrd")))
    prog = compile(src, target="omp")
    assert prog.target == "omp"
    for n in (1, 2):
        w = prog.world(threads=n, flow=flow, sizeX=64, sizeY=24)
        w.run()
        assert prog._fn("get_num_workers")(w._w) == n
        np.testing.assert_array_equal(w.outputs().vort, want)
        w.close()
    np.testing.assert_array_equal(prog.run(threads=2, flow=flow, sizeX=64, sizeY=24).vort, want)


def test_threads_need_omp(count):
    with pytest.raises(ValueError, match="target='omp'"):
        count.run(threads=2)
    count.run(threads=1)


def test_snapshot_needs_support(compile, tmp_path):
    prog = compile(write(tmp_path, "c.diderot", COUNT), snapshot=False)
    w = prog.world()
    w.step()
    with pytest.raises(diderot.DiderotError, match="snapshot"):
        w.snapshot()
