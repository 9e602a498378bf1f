#!/bin/sh
# screenshot.sh [BUILD] -- remake examples/viewer/viewer.png, the picture in
# the viewer's README: the viewer built from the build tree BUILD (default
# build) runs under Xvfb (xvfb-run) on examples/data/blobs.nrrd; xdotool
# drags the view and scrolls, the viewer dumps its window (key P) in DVR
# mode and, after M, in MIP mode; the two dumps side by side make the
# picture (Teem's unu). Needs xvfb, xdotool and teem-apps.
set -e
here=$(cd "$(dirname "$0")" && pwd)

if [ "$1" = "--session" ]; then
  # inside xvfb-run: $2 the viewer, $3 a scratch directory
  viewer=$2 work=$3
  "$viewer" --size 320 --dump "$work/d.ppm" "$here/../data/blobs.nrrd" >"$work/out" 2>&1 &
  pid=$!
  # wait for the n-th line starting with $1 (the first frame, the dumps)
  wait_for() {
    i=0
    while [ "$(grep -c "^$1" "$work/out" || true)" -lt "$2" ]; do
      kill -0 $pid 2>/dev/null || { cat "$work/out" >&2; exit 1; }
      i=$((i + 1)); [ $i -lt 1200 ] || { echo "screenshot.sh: timed out" >&2; exit 1; }
      sleep 0.25
    done
  }
  wait_for "diderot-viewer: ready" 1
  wid=$(xdotool search --sync --name '^diderot-viewer$' | head -1)
  xdotool windowfocus --sync "$wid"
  xdotool mousemove --window "$wid" 100 160 mousedown 1 mousemove --window "$wid" 140 150 \
    mousemove --window "$wid" 180 140 mouseup 1 click 4
  xdotool key --window "$wid" p
  wait_for "diderot-viewer: dumped" 1
  mv "$work/d.ppm" "$work/dvr.ppm"
  xdotool key --window "$wid" m key --window "$wid" p
  wait_for "diderot-viewer: dumped" 2
  mv "$work/d.ppm" "$work/mip.ppm"
  # Q quits on the key press, so the window may be gone when xdotool sends
  # the release: that error is expected
  xdotool key --window "$wid" q 2>/dev/null || true
  wait $pid
  exit 0
fi

build=${1:-build}
viewer=$(sh "$here/build.sh" "$build")
work=$(mktemp -d)
trap '[ -n "$KEEP" ] || rm -rf "$work"' EXIT
xvfb-run -a -s "-screen 0 1024x768x24 -nolisten tcp" sh "$0" --session "$viewer" "$work"
# a 6-pixel white gap between the two windows
teem-unu pad -min 0 0 0 -max M M+6 M -b pad -v 255 -i "$work/dvr.ppm" -o "$work/dvr-pad.nrrd"
teem-unu join -a 1 -i "$work/dvr-pad.nrrd" "$work/mip.ppm" | teem-unu save -f png -o "$here/viewer.png"
echo "screenshot.sh: wrote $here/viewer.png"
