/* low_eval.h -- an interpreter for LowIR CFGs (tests only).
 *
 * Runs one LowIR CFG on concrete arguments, following the operator
 * definitions of low_ops.def / common_ops.def and the spec: images are
 * sample arrays in NRRD order (doc/language.md §6.1) and the border index
 * maps are those of §6.4. Loads outside the image's data are errors, so a test
 * that runs lowered code also checks that it never reads out of bounds.
 * Global reads take given values; global writes, strand state and the
 * world are not modelled.
 */
#ifndef DIDEROT_TESTS_LOW_EVAL_H
#define DIDEROT_TESTS_LOW_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "util/arena.h"

typedef struct LowImage {
  int dim;            /* spatial axes (1..3) */
  int sizes[3];       /* samples per spatial axis, fastest first */
  int ncomp;          /* components per voxel */
  const double *data; /* ncomp * sizes[0] * ... samples, NRRD order */
  long nsamples;      /* samples in data when not that product (padded
                         storage), else 0 */
  double W[9];        /* world-to-index transform, row-major d×d */
  double t[3];        /* and its translation */
} LowImage;

typedef enum LowValKind {
  LOWV_NONE,
  LOWV_BOOL,
  LOWV_INT,
  LOWV_REAL,
  LOWV_VEC,
  LOWV_TENSOR,
  LOWV_SEQ,
  LOWV_IMAGE,
  LOWV_STRING
} LowValKind;

typedef struct LowVal LowVal;
struct LowVal {
  LowValKind kind;
  bool b;
  int64_t i;
  double r;
  int n;     /* VEC: lanes; TENSOR: components; SEQ: elements */
  double *v; /* VEC lanes, TENSOR components (row-major) */
  int order; /* TENSOR */
  int dims[IR_MAX_ORDER];
  LowVal *elems; /* SEQ */
  const LowImage *img;
  const char *s;
};

LowVal low_val_real(double x);
LowVal low_val_int(int64_t x);
LowVal low_val_image(const LowImage *img);
/* A tensor of the given (normalised) shape; order 0 gives a real. */
LowVal low_val_tensor(Arena *a, int order, const int *dims, const double *comps);
LowVal low_val_ints(Arena *a, int n, const int64_t *xs);

/* Statistics of one run. */
typedef struct LowEvalStats {
  long instrs; /* instructions executed */
  long loads;  /* samples read by load/vload */
} LowEvalStats;

/* Run cfg with one argument per parameter; globals (may be NULL) gives the
 * value of each global by its index, for reads. The returned value (if any)
 * goes to *result. Returns 0, or -1 with a reason in err. stats may be NULL. */
int low_eval_cfg(Arena *a, const IrCFG *cfg, const LowVal *params, const LowVal *globals,
                 LowVal *result, LowEvalStats *stats, char *err, size_t errlen);

/* What a strand method or global block touches besides its parameters
 * (low_eval_cfg_env): the strand's own state read by STATE_GET (by
 * IrStateVar index; NULL: reads fail), and what the run wrote: the last
 * value of each state variable and global (the *_set flags say which),
 * the values printed (print arguments in order, reals and the components
 * of tensors and vectors, ints converted; print_n of them, at most
 * print_cap kept in `printed` when non-NULL; new, create_grid,
 * stabilize_all and die_all are recorded there too, as −1000 − the
 * operator's number followed by their arguments) and the exit terminator
 * (IR_T_RETURN when the CFG returned). Reads of another strand's state
 * and strand reductions are not modelled. */
typedef struct LowEvalEnv {
  const LowVal *state;
  LowVal *state_out; /* module->nstate entries */
  bool *state_set;
  LowVal *globals_out; /* module->nglobals entries */
  bool *globals_set;
  double *printed;
  int print_cap, print_n;
  IrTermKind exit;
} LowEvalEnv;

/* low_eval_cfg with an environment (env may be NULL: as low_eval_cfg). */
int low_eval_cfg_env(Arena *a, const IrCFG *cfg, const LowVal *params, const LowVal *globals,
                     LowEvalEnv *env, LowVal *result, LowEvalStats *stats, char *err,
                     size_t errlen);

#endif
