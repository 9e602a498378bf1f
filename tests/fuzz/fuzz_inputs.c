/* fuzz_inputs.c -- libFuzzer entry: a generated library's input setters
 * (fuzz_inputs.diderot, built with --namespace=F) on any values.
 *
 * The bytes are a script of setter calls: each step's first byte picks a
 * setter (the image and the sequence from a Nrrd whose type, sizes,
 * spacing, space directions and samples come from the bytes; the vector,
 * real, int, bool and string inputs), then create_strands and a run of a
 * few steps. The number of strands is taken modulo 64 (a count as large as
 * memory is the memory planner's case, tested in tests/bigruns). Every
 * script must end in outputs or errors, never a crash, leak or sanitizer
 * report.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <teem/nrrd.h>

#include "fuzz_inputs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
  const uint8_t *p;
  size_t n;
} In;

static unsigned u8(In *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

static double real_of(In *in) {
  unsigned k = u8(in);
  static const double special[] = {0.0, -0.0, 1.0, -1.0, 1e30, -1e30, 1e-310, 0.5};
  if (k < 8) return special[k];
  if (k == 8) return NAN;
  if (k == 9) return INFINITY;
  if (k == 10) return -INFINITY;
  double v;
  unsigned char b[8];
  for (int i = 0; i < 8; i++) b[i] = (unsigned char)u8(in);
  memcpy(&v, b, 8);
  return v;
}

/* A Nrrd of up to 3 axes of up to 12 samples, of a type from the bytes,
 * with spacings or space directions (maybe NaN, 0, inf) from them too. */
static Nrrd *nrrd_of(In *in) {
  static const int types[] = {nrrdTypeFloat, nrrdTypeDouble, nrrdTypeUChar, nrrdTypeShort,
                              nrrdTypeInt, nrrdTypeLLong, nrrdTypeUInt, nrrdTypeChar};
  int type = types[u8(in) & 7];
  unsigned dim = 1 + u8(in) % 3;
  size_t sz[3] = {1, 1, 1}, total = 1;
  for (unsigned a = 0; a < dim; a++) total *= (sz[a] = u8(in) % 13);
  Nrrd *nr = nrrdNew();
  if (!nr) return NULL;
  if (nrrdAlloc_nva(nr, type, dim, sz)) {
    free(biffGetDone(NRRD));
    nrrdNuke(nr);
    return NULL;
  }
  size_t bytes = total * nrrdTypeSize[type];
  for (size_t i = 0; i < bytes; i++) ((unsigned char *)nr->data)[i] = (unsigned char)u8(in);
  unsigned how = u8(in) % 3;
  if (how == 1) {
    for (unsigned a = 0; a < dim; a++) nr->axis[a].spacing = real_of(in);
  } else if (how == 2) {
    nr->spaceDim = dim;
    for (unsigned a = 0; a < dim; a++) {
      for (unsigned c = 0; c < dim; c++) nr->axis[a].spaceDirection[c] = real_of(in);
      nr->spaceOrigin[a] = real_of(in);
    }
  }
  return nr;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  In in = {data, size};
  F_world_t *w = F_new_world();
  if (!w) return 0;
  if (F_init_world(w)) {
    F_shutdown(w);
    return 0;
  }
  Nrrd *keep[8];
  unsigned nkeep = 0;
  for (int step = 0; step < 12 && in.n; step++) {
    switch (u8(&in) % 8) {
    case 0:
    case 1: {
      Nrrd *nr = nrrd_of(&in);
      if (nr) {
        (void)(step & 1 ? F_input_set_img(w, nr) : F_input_set_xs(w, nr));
        if (nkeep < 8) keep[nkeep++] = nr; /* the caller's, after the call too */
        else nrrdNuke(nr);
      }
      break;
    }
    case 2: {
      float p[2] = {(float)real_of(&in), (float)real_of(&in)};
      (void)F_input_set_pos(w, p);
      break;
    }
    case 3: (void)F_input_set_scale(w, (float)real_of(&in)); break;
    case 4: (void)F_input_set_n(w, (int32_t)(u8(&in) % 64) - 2); break;
    case 5: (void)F_input_set_flip(w, u8(&in) & 1); break;
    case 6: {
      char s[32];
      unsigned k = u8(&in) % sizeof s;
      for (unsigned i = 0; i < k; i++) s[i] = (char)u8(&in);
      s[k] = '\0';
      (void)F_input_set_tag(w, s);
      break;
    }
    default: (void)F_input_set_by_name_xs(w, "/nonexistent/xs.nrrd"); break;
    }
  }
  if (!F_create_strands(w)) {
    F_run(w, 4);
    Nrrd *out = nrrdNew();
    if (!F_output_get_v(w, out) && out->data && out->axis[0].size != F_num_stable_strands(w) &&
        out->axis[0].size != F_num_strands(w))
      abort();
    nrrdNuke(out);
  }
  free(F_get_errors(w));
  F_shutdown(w);
  for (unsigned i = 0; i < nkeep; i++) nrrdNuke(keep[i]);
  return 0;
}
