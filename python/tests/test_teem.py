"""The package declares only a prefix of Teem's Nrrd struct (data, type,
dim) to cffi; its offsets must be Teem's, as the C compiler lays them out."""

import os
import shutil
import subprocess

import pytest

from diderot import _teem

PROG = r"""#include <stddef.h>
#include <stdio.h>
#include <teem/nrrd.h>
int main(void) {
  printf("%zu %zu %zu\n", offsetof(Nrrd, data), offsetof(Nrrd, type), offsetof(Nrrd, dim));
  return 0;
}
"""


def test_nrrd_prefix_offsets(tmp_path):
    cc = os.environ.get("CC") or shutil.which("cc")
    if not cc:
        pytest.skip("no C compiler")
    src = tmp_path / "off.c"
    src.write_text(PROG)
    exe = str(tmp_path / "off")
    subprocess.run([cc, str(src), "-o", exe], check=True)
    got = subprocess.run([exe], stdout=subprocess.PIPE, check=True).stdout.decode().split()
    ffi = _teem.ffi
    assert [int(x) for x in got] == [ffi.offsetof("Nrrd", f) for f in ("data", "type", "dim")]


def test_type_and_kind_names():
    """The NumPy <-> Teem type table and kinds come from Teem's own enums."""
    import numpy as np
    assert len(_teem.TYPE_TO_NP) == 10
    assert _teem.kind_name(_teem.KIND_SPACE) == "space"
    assert _teem.kind_name(_teem.component_kind((3, 3))) == "3D-matrix"
    assert _teem.component_kind((5,)) is None
    assert _teem.NP_TO_TYPE[np.dtype(np.float32)] != _teem.NP_TO_TYPE[np.dtype(np.float64)]
