#!/bin/sh
# install-deps.sh -- the Debian 12 packages diderotc needs to build and test.
# Run as root. The CUDA toolkit (nvcc) is not a Debian 12 package: it is
# expected at /usr/local/cuda when the CUDA target is wanted.
# .ci/run checks this list on a fresh Debian 12 root (doc/ci.md): bc is used
# by the conformance cases sphere and halftone; python3-cffi and python3-pytest
# by the Python package and its tests (python/), python3-matplotlib by the
# Python viewer and the README's plotting session (tests viewer/python, python/readme).
# libsdl2-dev builds the viewer (examples/viewer); xvfb, xdotool and x11-apps
# (xwd) run it headless in its tests (tests/viewer); xauth is for xvfb-run
# (examples/viewer/screenshot.sh, and pvbatch in python/paraview).
# paraview and python3-paraview (5.11; it conflicts with python3-vtk9 and
# brings its own vtkmodules, importable by /usr/bin/python3) are for the VTK
# conversions and the ParaView plugin (tests python/vtk, python/paraview,
# python/paraview_gui: the graphical paraview on Xvfb);
# python3-ipywidgets, python3-ipykernel, python3-nbclient and python3-nbformat
# for diderot.widgets and its notebook run headless (test python/notebook);
# python3-venv and python3-pip for `pip install ./python` (python/packaging).
# libopenmpi-dev and openmpi-bin (mpicc, mpirun) for --target=mpi and its
# tests (tests mpi/, make check-mpi).
# llvm-14 for llvm-symbolizer: without it the sanitizers' reports carry bare
# addresses and tests/fuzz/lsan.supp (which names Teem's functions) matches
# nothing (clang-14 only recommends it, and we install without recommends).
set -e
PACKAGES="build-essential autoconf automake libtool pkg-config re2c lemon \
  libteem-dev teem-apps liblapack-dev liblapacke-dev clang libclang-rt-14-dev \
  libomp-14-dev llvm-14 valgrind python3 python3-numpy python3-sympy bc \
  python3-cffi python3-pytest python3-matplotlib libsdl2-dev xvfb xdotool x11-apps xauth \
  paraview python3-paraview python3-ipywidgets python3-ipykernel python3-nbclient python3-nbformat \
  python3-venv python3-pip libopenmpi-dev openmpi-bin"
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "install-deps: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing
fi
