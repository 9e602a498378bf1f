/* rt_image_query.c -- an image's world-space extent and sample range,
 * queried by a program (doc/language.md §6.1, an extension of the
 * language: lic/lic.diderot:72-78 and plot1d/plot1d.diderot:120-124 of the
 * original's examples ask for them). Kept apart from rt_image.c, which
 * loads images: these only read a loaded one. */
#include <math.h>
#include <stdbool.h>

#include <teem/nrrd.h>

#include "diderot_rt.h"

double drt_image_world_bound(const DrtImage *img, int r, bool upper) {
  const Nrrd *n = img->nrrd;
  if (!n || r < 0 || (unsigned)r >= img->dim) return NAN;
  /* the spatial axes follow the component axis, if there is one */
  unsigned comp = n->dim - img->dim;
  /* x_r = o_r + sum_a M[r][a] i_a is affine in i: over the box of indices
   * its extremes are at corners, each axis contributing its end that
   * lowers (or raises) x_r */
  double x = img->origin[r];
  for (unsigned a = 0; a < img->dim; a++) {
    double step = n->axis[comp + a].spaceDirection[r] * (double)(img->size[a] - 1);
    x += upper ? fmax(step, 0.0) : fmin(step, 0.0);
  }
  return x;
}

double drt_image_sample_bound(const DrtImage *img, int c, bool upper) {
  const Nrrd *n = img->nrrd;
  if (!n || c < 0 || (unsigned)c >= img->ncomp) return NAN;
  /* the NRRD's samples (in the store type), not img->data: a re-laid-out
   * copy (--image-layout) may hold padding */
  double (*get)(const void *, size_t) = nrrdDLookup[img->type];
  double best = NAN;
  for (size_t k = (size_t)c; k < img->nelems; k += img->ncomp) {
    double v = get(n->data, k);
    if (isnan(v)) continue;
    if (isnan(best) || (upper ? v > best : v < best)) best = v;
  }
  return best;
}
