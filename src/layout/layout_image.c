/* layout_image.c -- the image-sample layouts of generated programs
 * (--image-layout: linear, brick:B or halo:B) and the parsing of the power-of-two
 * parameters of layout options. Both the lowering (voxel offsets) and the
 * back end (the re-layout loop after loading) build the layout here, so
 * that they cannot disagree about where a sample lives.
 */
#include "layout/layout.h"

#include <stdlib.h>
#include <string.h>

static bool is_pow2(long x) { return x > 0 && (x & (x - 1)) == 0; }

bool lyt_parse_pow2(const char *t, long lo, long hi, int *out) {
  char *end = NULL;
  if (!*t || *t < '0' || *t > '9') return false;
  long v = strtol(t, &end, 10);
  if (*end || v < lo || v > hi || !is_pow2(v)) return false;
  *out = (int)v;
  return true;
}

bool lyt_parse_image_layout(const char *text, int *brick, bool *halo) {
  if (!text) return false;
  *brick = 0;
  *halo = false;
  if (!strcmp(text, "linear")) return true;
  if (!strncmp(text, "halo:", 5)) {
    *halo = true;
    return lyt_parse_pow2(text + 5, 2, 64, brick);
  }
  return !strncmp(text, "brick:", 6) && lyt_parse_pow2(text + 6, 2, 64, brick);
}

/* The edge of a stored brick: B voxels and the halo, H - 1 below and H
 * above (a probe's taps on an axis are n + k, k = 1-H..H). */
static int stored_edge(int brick, int halo) { return halo ? brick + 2 * halo - 1 : brick; }

/* Axis a as the mode (inner, NB_a) : (C·E^a, C·E^d·NB_0···NB_{a-1}), E the
 * stored brick's edge, NB_a = ceil(N_a / B); inner is B (a voxel's place
 * in the brick's interior) or E (its place among the stored samples). */
static const Layout *bricks(IxCtx *ix, int d, int ncomp, const IxExpr *const *sizes, int brick,
                            int halo, bool stored) {
  int E = stored_edge(brick, halo);
  const Layout *modes[1 + 3];
  modes[0] = lyt_leafk(ix, ncomp, 1);
  const IxExpr *inner = ix_const(ix, ncomp), *outer = ix_const(ix, ncomp);
  for (int a = 0; a < d; a++)
    outer = ix_mulk(ix, outer, E);
  for (int a = 0; a < d && a < 3; a++) {
    const IxExpr *nb = ix_divk(ix, ix_addk(ix, sizes[a], brick - 1), brick);
    modes[1 + a] = lyt_pair(ix, lyt_leaf(ix, ix_const(ix, stored ? E : brick), inner),
                            lyt_leaf(ix, nb, outer));
    inner = ix_mulk(ix, inner, E);
    outer = ix_mul(ix, outer, nb);
  }
  return lyt_tuple(ix, modes, 1 + d);
}

const Layout *lyt_image_layout(IxCtx *ix, int d, int ncomp, const IxExpr *const *sizes, int brick,
                               int halo) {
  if (brick <= 1) {
    const IxExpr *shape[1 + 3];
    shape[0] = ix_const(ix, ncomp);
    for (int a = 0; a < d && a < 3; a++)
      shape[1 + a] = sizes[a];
    return lyt_col_major(ix, shape, 1 + d);
  }
  /* the coordinate x splits as (x mod B, x div B) */
  return bricks(ix, d, ncomp, sizes, brick, halo, false);
}

const Layout *lyt_image_storage(IxCtx *ix, int d, int ncomp, const IxExpr *const *sizes, int brick,
                                int halo) {
  if (brick <= 1 || !halo) return lyt_image_layout(ix, d, ncomp, sizes, brick, 0);
  return bricks(ix, d, ncomp, sizes, brick, halo, true);
}

int64_t lyt_image_origin(int d, int ncomp, int brick, int halo) {
  if (brick <= 1 || !halo) return 0;
  int64_t E = stored_edge(brick, halo), sum = 0, p = 1;
  for (int a = 0; a < d; a++, p *= E)
    sum += p;
  return (int64_t)ncomp * (halo - 1) * sum;
}
