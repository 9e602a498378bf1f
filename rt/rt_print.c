/* rt_print.c -- formatting of Diderot's print (doc/language.md §7.2).
 *
 * Reals print as C++ ostream does with precision 9 (float) or 17
 * (double) in the default float field, which is exactly printf's %.9g /
 * %.17g: enough digits to round-trip, so 0.1f prints 0.100000001.
 */
#include <inttypes.h>

#include "rt_internal.h"

void drt_print_bool(FILE *f, bool b) { fputs(b ? "true" : "false", f); }

void drt_print_int(FILE *f, int64_t i) { fprintf(f, "%" PRId64, i); }

void drt_print_float(FILE *f, float x) { fprintf(f, "%.9g", (double)x); }

void drt_print_double(FILE *f, double x) { fprintf(f, "%.17g", x); }

void drt_print_string(FILE *f, const char *s) { fputs(s ? s : "", f); }

/* Number of reals in a tensor of shape[0..rank). */
static size_t tensor_size(unsigned rank, const unsigned *shape) {
  size_t n = 1;
  for (unsigned r = 0; r < rank; r++) n *= shape[r];
  return n;
}

/* A real array of either precision: exactly one of the pointers is set,
 * so one walker serves float and double. */
typedef struct Reals {
  const float *f;
  const double *d;
} Reals;

/* Print the row-major tensor starting at v[at]: the first index is the
 * outermost bracket. Returns the number of reals printed. */
static size_t tensor(FILE *f, Reals v, size_t at, unsigned rank, const unsigned *shape) {
  if (rank == 0) {
    if (v.f)
      drt_print_float(f, v.f[at]);
    else
      drt_print_double(f, v.d[at]);
    return 1;
  }
  size_t used = 0;
  fputc('[', f);
  for (unsigned i = 0; i < shape[0]; i++) {
    if (i) fputc(',', f);
    used += tensor(f, v, at + used, rank - 1, shape + 1);
  }
  fputc(']', f);
  return used;
}

/* A sequence of n tensors of shape[0..rank) stored one after another. */
static void seq(FILE *f, Reals v, size_t n, unsigned rank, const unsigned *shape) {
  size_t step = tensor_size(rank, shape);
  fputc('{', f);
  for (size_t i = 0; i < n; i++) {
    if (i) fputc(',', f);
    tensor(f, v, i * step, rank, shape);
  }
  fputc('}', f);
}

void drt_print_tensor_float(FILE *f, const float *v, unsigned rank,
                            const unsigned *shape) {
  tensor(f, (Reals){v, NULL}, 0, rank, shape);
}

void drt_print_tensor_double(FILE *f, const double *v, unsigned rank,
                             const unsigned *shape) {
  tensor(f, (Reals){NULL, v}, 0, rank, shape);
}

void drt_print_seq_float(FILE *f, const float *v, size_t n, unsigned rank,
                         const unsigned *shape) {
  seq(f, (Reals){v, NULL}, n, rank, shape);
}

void drt_print_seq_double(FILE *f, const double *v, size_t n, unsigned rank,
                          const unsigned *shape) {
  seq(f, (Reals){NULL, v}, n, rank, shape);
}

void drt_print_seq_int32(FILE *f, const int32_t *v, size_t n) {
  fputc('{', f);
  for (size_t i = 0; i < n; i++) fprintf(f, i ? ",%" PRId32 : "%" PRId32, v[i]);
  fputc('}', f);
}

void drt_print_seq_int64(FILE *f, const int64_t *v, size_t n) {
  fputc('{', f);
  for (size_t i = 0; i < n; i++) fprintf(f, i ? ",%" PRId64 : "%" PRId64, v[i]);
  fputc('}', f);
}

void drt_print_seq_bool(FILE *f, const bool *v, size_t n) {
  fputc('{', f);
  for (size_t i = 0; i < n; i++) {
    if (i) fputc(',', f);
    drt_print_bool(f, v[i]);
  }
  fputc('}', f);
}
