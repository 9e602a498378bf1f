/* mid_eval.h -- a reference interpreter for MidIR CFGs (tests only).
 *
 * Runs one CFG on concrete values in double precision, following the
 * operator definitions of mid_ops.def and doc/language.md §6.1–§6.4 literally:
 * world_to_index is W·x + t with the image's W and t, load_voxels reads
 * img[n + i] for i = 1−s..s per axis (through the §4.7 border maps when
 * asked, an error when a tap falls outside without border control),
 * kernel_eval is h^(j)(f − i) from the exact kernel pieces (kernel.h), and
 * EIN operators are evaluated by the EIN reference evaluator (ein_eval.h).
 */
#ifndef DIDEROT_TESTS_MID_EVAL_H
#define DIDEROT_TESTS_MID_EVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/ir.h"

/* A run-time image: samples in NRRD order, c + C·(i0 + N0·(i1 + N1·i2)). */
typedef struct MidImage {
  int dim;
  int size[3];
  int ncomp;
  const double *data;
  double W[3][3]; /* world → index: p = W·x + t */
  double t[3];
} MidImage;

typedef enum MidValKind {
  MV_NONE, MV_BOOL, MV_INT, MV_TENSOR, MV_INTS, MV_IMAGE, MV_KERNEL
} MidValKind;

enum { MID_EVAL_MAX = 4096 }; /* components of one tensor */

typedef struct MidValue {
  MidValKind kind;
  bool b;
  long i;
  int n;          /* TENSOR, INTS: components */
  double *t;      /* TENSOR (row-major) */
  long *ints;     /* INTS */
  const MidImage *img;
  const Kernel *k;
} MidValue;

/* The §4.7 index map of a border mode (IR_BORDER_NONE: i itself). */
int mid_border_index(IrBorder mode, int i, int n);

/* Run cfg with one value per parameter; the value of the RETURN
 * terminator goes to *result (tensor storage is malloc'ed; free it with
 * mid_value_free). Returns 0, or -1 with a reason in err. */
int mid_eval_cfg(const IrCFG *cfg, const MidValue *params, MidValue *result, char *err,
                 size_t errlen);
void mid_value_free(MidValue *v);

MidValue mid_tensor_value(int n, const double *x); /* copies x */
MidValue mid_image_value(const MidImage *img);

#endif
