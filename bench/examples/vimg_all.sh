#!/bin/sh
# vimg_all.sh BIN -- the ten runs of vimg that bench/examples/run.py makes
# (its EXAMPLES entry), for A/B timing of two builds with bench/abclock.py.
# Run it in a directory with img.nrrd and cmap.nrrd, e.g. the one that
# `run.py -k vimg --work DIR` leaves in DIR/vimg/ours; outputs go to
# /tmp/vimg_out_BIN_I.nrrd, so two builds' outputs can be compared (cmp).
B=$1
i=0
for p in "" "" "" "-cmin -500 -cmax 1900 -iso 1210 -th 20" "-cmin -500 -cmax 1900 -iso 1210 -th 0.2" \
         "-cmin -500 -cmax 1900 -th 0.3 -sthr 2" "-cmin -500 -cmax 1900 -th 0.3 -sthr 2" \
         "-cmin -500 -cmax 1900 -th 0.4 -sthr 25 -fcol 0 0 0.8" "-cmin -500 -cmax 1900 -th 0.4 -fcol 0 1 0" \
         "-cmin -500 -cmax 1900 -th 0.4 -sthr 25 -fcol 0 1 1"; do
  # shellcheck disable=SC2086
  "$B" -which $i -cent 290 414 -fov 80 $p -o "/tmp/vimg_out_$(basename "$B")_$i.nrrd" || exit 1
  i=$((i + 1))
done
