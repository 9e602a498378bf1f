/* layout_image.c -- the image-sample layouts of generated programs
 * (--image-layout: linear or brick:B) and the parsing of the power-of-two
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

bool lyt_parse_image_layout(const char *text, int *brick) {
  if (!text) return false;
  *brick = 0;
  if (!strcmp(text, "linear")) return true;
  return !strncmp(text, "brick:", 6) && lyt_parse_pow2(text + 6, 2, 64, brick);
}

const Layout *lyt_image_layout(IxCtx *ix, int d, int ncomp, const IxExpr *const *sizes, int brick) {
  const IxExpr *shape[1 + 3];
  shape[0] = ix_const(ix, ncomp);
  for (int a = 0; a < d && a < 3; a++)
    shape[1 + a] = sizes[a];
  if (brick <= 1)
    return lyt_col_major(ix, shape, 1 + d);
  /* Axis a is the mode (B, NB_a) : (C·B^a, C·B^d·NB_0···NB_{a-1}), NB_a =
   * ceil(N_a / B): the coordinate x splits as (x mod B, x div B). */
  const Layout *modes[1 + 3];
  modes[0] = lyt_leafk(ix, ncomp, 1);
  const IxExpr *inner = ix_const(ix, ncomp), *outer = ix_const(ix, ncomp);
  for (int a = 0; a < d; a++)
    outer = ix_mulk(ix, outer, brick);
  for (int a = 0; a < d && a < 3; a++) {
    const IxExpr *nb = ix_divk(ix, ix_addk(ix, sizes[a], brick - 1), brick);
    modes[1 + a] = lyt_pair(ix, lyt_leaf(ix, ix_const(ix, brick), inner), lyt_leaf(ix, nb, outer));
    inner = ix_mulk(ix, inner, brick);
    outer = ix_mul(ix, outer, nb);
  }
  return lyt_tuple(ix, modes, 1 + d);
}
