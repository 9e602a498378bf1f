/* mid_to_low_impl.h -- internals shared by mid_to_low*.c (not a public API).
 *
 * Every MidIR variable gets a lowered value (M2lVal). Tensors of order >= 1
 * are kept expanded: the innermost index runs over the lanes of a vec<w>
 * (w = the last extent) and the outer indices are unrolled into rows, in
 * row-major order; a boundary value (the tensor itself, as state, globals,
 * phis and non-expanded operators need it) is built on demand.
 */
#ifndef DIDEROT_TRANSLATE_MID_TO_LOW_IMPL_H
#define DIDEROT_TRANSLATE_MID_TO_LOW_IMPL_H

#include "layout/layout.h"
#include "translate/mid_to_low.h"

typedef enum M2lKind {
  M2L_PLAIN,  /* one LowIR variable of the same type (reals included) */
  M2L_TENSOR, /* order >= 1: nparts rows of vec<width> */
  M2L_INTS,   /* int[d] as d int variables (positions of voxel neighbourhoods) */
  M2L_KERNEL  /* a kernel: no LowIR value, only the table */
} M2lKind;

typedef struct M2lVal {
  M2lKind kind;
  const IrType *ty; /* the MidIR type (shared type table) */
  IrVar *whole;     /* PLAIN: the value; TENSOR/INTS: an existing boundary
                       value that dominates every use, or NULL */
  int nparts, width;
  IrVar **parts; /* TENSOR: rows; INTS: the ints */
  const Kernel *kernel;
  /* TENSOR of order >= 2 whose index 0 runs along memory: the
   * neighbourhood of a scalar image, index 0 = image axis 0, unit stride
   * in the linear layout. A vector over index 0 is then one vload
   * (m2l_vcons of consecutive loads), and no dearer than the rows (also
   * gathers) otherwise (border control, bricks). The EIN expansion
   * prefers lanes there (mid_to_low_ein.c, Σ over lanes). */
  bool lanes0;
} M2lVal;

typedef struct M2L {
  IrModule *mid, *low;
  Arena *a;
  DiagCtx *diag;
  const MidToLowOptions *opts;
  MidToLowStats *stats;
  IrCFG *lcfg;
  IrBlock *cur; /* where code is emitted */
  M2lVal **val; /* by MidIR variable id */
  int nval;
  IxCtx *ix; /* index expressions of voxel addressing */
  /* opts->halo: the halo of the bricks, the widest kernel support of the
   * module's probes (widest_support); 0 without a halo */
  int halo;
  bool failed;
} M2L;

/* ---- mid_to_low.c: emission helpers (all emit at L->cur) ---- */
/* A construct this stage does not support (ERR_NOT_YET) / a compiler bug
 * (ERR_LOWERING_FAILED); only the first problem is reported. */
void m2l_fail(M2L *L, const char *what);
void m2l_internal(M2L *L, const char *what);
/* An operator with the type from its rule; NULL (and a failure) if rejected. */
IrVar *m2l_op(M2L *L, int op, int nargs, IrVar *const *args, int nimm, const int *imm);
IrVar *m2l_op1(M2L *L, int op, IrVar *a);
IrVar *m2l_op2(M2L *L, int op, IrVar *a, IrVar *b);
IrVar *m2l_real(M2L *L, double x);
IrVar *m2l_int(M2L *L, int64_t x);
/* Vector helpers with peepholes (lane of a vcons, vcons of all lanes, ...). */
IrVar *m2l_vindex(M2L *L, IrVar *v, int lane);
IrVar *m2l_vcons(M2L *L, int n, IrVar *const *xs);
IrVar *m2l_splat(M2L *L, IrVar *s, int w);
/* The literal value of a real variable, if it is one. */
bool m2l_real_lit(const IrVar *v, double *out);

M2lVal *m2l_plain(M2L *L, IrVar *v);
/* A tensor value of MidIR type ty (order >= 1) from its rows. */
M2lVal *m2l_tensor(M2L *L, const IrType *ty, IrVar *const *rows);
/* Scalar component `flat` (row-major) of a tensor or real value. */
IrVar *m2l_component(M2L *L, const M2lVal *v, int flat);
/* Row r of a tensor value. */
IrVar *m2l_row(M2L *L, const M2lVal *v, int r);
/* The boundary value (the MidIR type) of a lowered value. */
IrVar *m2l_materialize(M2L *L, const M2lVal *v);
/* The lowered value of a MidIR variable (NULL, with a failure, if unset). */
M2lVal *m2l_get(M2L *L, const IrVar *mid_var);

/* Size of axis `axis` of a MidIR image variable, read at run time (a
 * proxy does not fix sizes). */
IrVar *m2l_image_size(M2L *L, const IrVar *mid_img, int axis);

/* ---- mid_to_low_ein.c ---- */
M2lVal *m2l_lower_ein(M2L *L, const IrInstr *in);

/* ---- mid_to_low_kernel.c ---- */
M2lVal *m2l_kernel_eval(M2L *L, const IrInstr *in);
M2lVal *m2l_load_voxels(M2L *L, const IrInstr *in);

#endif
