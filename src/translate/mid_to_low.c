/* mid_to_low.c -- MidIR → LowIR (seed paper 004, §5.6).
 *
 * CONTRACT (what the LowIR module looks like; read by the back end):
 *
 * Shape. The same globals (kernel-typed ones are dropped: kernels have no
 * LowIR value), the same strand state, strand name and grid flag, and one
 * CFG per MidIR CFG with the same kind, name, parameters and result type.
 * Blocks correspond one to one (unreachable MidIR blocks are dropped), so
 * the control flow is the MidIR's.
 *
 * Values. Tensors stay tensors at every boundary: CFG parameters and
 * results, phis, globals, strand state, outputs, print/new arguments and
 * the operands of operators that are not expanded (inv, evals, evecs,
 * clamp, select, sequences, strand reductions). Inside a computation a
 * tensor of order >= 1 lives in vectors: its innermost index runs over the
 * lanes of a vec<w> (w = the last extent, w >= 2 since size-1 axes are
 * dropped) and its outer indices are unrolled into separate rows, row-major.
 * The crossings are tensor_to_vec / tensor_index (into vectors) and
 * vec_to_tensor / tensor_cons of vectors (back into a tensor).
 *
 * Operators. No EIN, no kernel values and none of the MidIR-only operators
 * remain:
 *   ein             → scalar (radd, rsub, rmul, rdiv, rneg, sqrt, ...) and
 *                     vector (vadd, vsub, vmul, vdiv, vneg, vscale, vdot,
 *                     vsum, vslice, vindex, vsplat, vcons) code; outer
 *                     indices and Σ are unrolled (constants folded, so δ, ε
 *                     and zero terms cost nothing), a Σ over the last index
 *                     of two tensor rows is one vdot; nested Σ of products
 *                     (convolutions) run with the lanes on one summed
 *                     index, preferably image axis 0 of a voxel
 *                     neighbourhood: vertical vector arithmetic, then one
 *                     vdot/vsum (mid_to_low_ein.c); abs and sign become
 *                     select over comparisons.
 *   kernel_eval     → horner(vsplat(f), c0, ..., cD) of type vec<2s>: lane
 *                     k holds the coefficients, as polynomials in f, of the
 *                     piece of h^(j) that applies to f − i (i = 1−s+k) for
 *                     f in [0,1) (exact rationals converted to reals).
 *   load_voxels     → load(img, off) / vload(img, off){w} (w consecutive
 *                     samples: the components of a voxel, or the taps of a
 *                     1-D scalar image) at int offsets derived from the
 *                     image layout (lyt_image_layout, doc/layouts.md §4.2;
 *                     linear NRRD order c + C·(i0 + N0·(i1 + N1·i2)) unless
 *                     MidToLowOptions.brick asks for bricks, which bring
 *                     idiv/imod by the brick size); without border control
 *                     an affine layout gives one base offset per probe plus
 *                     a stride multiple per tap (N_a read at run time);
 *                     with border control each tap index goes through
 *                     clamp_index / mirror_index / wrap_index(i, N_a) (the
 *                     maps of doc/language.md §6.4) per axis before addressing.
 *                     The result is a tensor[2s,...,2s, σ] whose rows run
 *                     over σ's last index, or over the taps of axis d−1;
 *                     vectors of taps along axis 0 are formed on demand
 *                     (vcons of loads at consecutive offsets is a vload).
 *   world_to_index  → img_transform / img_translate, vdot, vadd.
 *   tfloor, tfract  → floor per component, vsub; real_to_int → floor_to_int.
 *   inside_image    → comparisons of each component with s−1 and N_a − s.
 * Image sizes N_a are run-time values, seq_index(image_size(img), a), also
 * for an image with a proxy: the proxy fixes dimension, voxel shape and
 * sample type, not sizes (§8.2). int[d] neighbourhood positions
 * are kept as d ints (seq_cons only if one crosses a boundary).
 *
 * Afterwards the module is value-numbered and cleaned of dead code (unless
 * disabled), so repeated index computations, tap offsets and transforms of
 * one image are shared. The result passes ir_check.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "translate/mid_to_low_impl.h"

/* ---- failures and emission helpers ---------------------------------------- */

void m2l_fail(M2L *L, const char *what) {
  /* One report: later failures are usually consequences of the first. */
  if (!L->failed && L->diag)
    diag_report(L->diag, ERR_NOT_YET, (Span){{0, 0}, {0, 0}}, what);
  L->failed = true;
}

void m2l_internal(M2L *L, const char *what) {
  if (!L->failed && L->diag)
    diag_report(L->diag, ERR_LOWERING_FAILED, (Span){{0, 0}, {0, 0}}, "LowIR", what);
  L->failed = true;
}

IrVar *m2l_op(M2L *L, int op, int nargs, IrVar *const *args, int nimm, const int *imm) {
  for (int i = 0; i < nargs; i++)
    if (!args[i])
      return NULL; /* an earlier failure */
  IrVar *r = ir_emit_op(L->cur, NULL, op, NULL, nargs, args, nimm, imm);
  if (!r) {
    const IrOpInfo *info = ir_op_info(IR_LOW, op);
    m2l_internal(
        L, arena_printf(L->a, "LowIR operator \'%s\' on these operands", info ? info->name : "?"));
  }
  return r;
}

IrVar *m2l_op1(M2L *L, int op, IrVar *a) { return m2l_op(L, op, 1, &a, 0, NULL); }

IrVar *m2l_op2(M2L *L, int op, IrVar *a, IrVar *b) {
  IrVar *v[2] = {a, b};
  return m2l_op(L, op, 2, v, 0, NULL);
}

IrVar *m2l_real(M2L *L, double x) { return ir_emit_real(L->cur, x); }
IrVar *m2l_int(M2L *L, int64_t x) { return ir_emit_int(L->cur, x); }

bool m2l_real_lit(const IrVar *v, double *out) {
  if (!v || !v->def || v->def->kind != IR_I_LIT || v->def->lit.kind != IR_LIT_REAL)
    return false;
  *out = v->def->lit.r;
  return true;
}

static bool is_op(const IrVar *v, int op) {
  return v && v->def && v->def->kind == IR_I_OP && v->def->op == op;
}

IrVar *m2l_vindex(M2L *L, IrVar *v, int lane) {
  if (!v)
    return NULL;
  /* Lanes of vectors built here are read back directly. */
  if (is_op(v, IR_LOP_VCONS) && lane < v->def->nargs)
    return v->def->args[lane];
  if (is_op(v, IR_LOP_VSPLAT))
    return v->def->args[0];
  if (is_op(v, IR_LOP_VSLICE))
    return m2l_vindex(L, v->def->args[0], v->def->imm[0] + lane);
  return m2l_op(L, IR_LOP_VINDEX, 1, &v, 1, &lane);
}

/* An int offset as base + k (base NULL for a literal). */
static IrVar *split_offset(IrVar *o, int64_t *k) {
  *k = 0;
  if (o && o->def && o->def->kind == IR_I_LIT && o->def->lit.kind == IR_LIT_INT) {
    *k = o->def->lit.i;
    return NULL;
  }
  if (is_op(o, IR_OP_IADD)) {
    const IrVar *c = o->def->args[1];
    if (c->def && c->def->kind == IR_I_LIT && c->def->lit.kind == IR_LIT_INT) {
      *k = c->def->lit.i;
      return o->def->args[0];
    }
  }
  return o;
}

/* vcons of loads of one image at offsets o, o+1, ..., o+n-1 (same base,
 * constants one apart) is one vload: a row along the unit-stride axis. */
static IrVar *consecutive_loads(M2L *L, int n, IrVar *const *xs) {
  if (n < 2 || !is_op(xs[0], IR_LOP_LOAD))
    return NULL;
  IrVar *img = xs[0]->def->args[0];
  int64_t k0, k;
  IrVar *base = split_offset(xs[0]->def->args[1], &k0);
  for (int i = 1; i < n; i++)
    if (!is_op(xs[i], IR_LOP_LOAD) || xs[i]->def->args[0] != img ||
        split_offset(xs[i]->def->args[1], &k) != base || k != k0 + i)
      return NULL;
  IrVar *args[2] = {img, xs[0]->def->args[1]};
  return m2l_op(L, IR_LOP_VLOAD, 2, args, 1, &n);
}

IrVar *m2l_vcons(M2L *L, int n, IrVar *const *xs) {
  for (int i = 0; i < n; i++)
    if (!xs[i])
      return NULL;
  IrVar *vl = consecutive_loads(L, n, xs);
  if (vl)
    return vl;
  /* vcons(v[0], ..., v[n-1]) of a whole vec<n> is v itself. */
  IrVar *src = NULL;
  bool whole = n > 1;
  for (int i = 0; i < n && whole; i++) {
    const IrVar *x = xs[i];
    if (!is_op(x, IR_LOP_VINDEX) || x->def->imm[0] != i)
      whole = false;
    else if (i == 0)
      src = x->def->args[0];
    else if (x->def->args[0] != src)
      whole = false;
  }
  if (whole && src && src->ty->kind == IR_TY_VEC && src->ty->width == n)
    return src;
  return m2l_op(L, IR_LOP_VCONS, n, xs, 0, NULL);
}

IrVar *m2l_splat(M2L *L, IrVar *s, int w) { return m2l_op(L, IR_LOP_VSPLAT, 1, &s, 1, &w); }

/* ---- lowered values ---------------------------------------------------------- */

static int tensor_width(const IrType *t) { return t->order ? t->dims[t->order - 1] : 1; }

static int tensor_rows(const IrType *t) {
  int n = 1;
  for (int i = 0; i + 1 < t->order; i++)
    n *= t->dims[i];
  return n;
}

static bool is_tensor(const IrType *t) { return t && t->kind == IR_TY_TENSOR && t->order >= 1; }

M2lVal *m2l_plain(M2L *L, IrVar *v) {
  M2lVal *r = ARENA_NEW(L->a, M2lVal);
  r->kind = M2L_PLAIN;
  r->ty = v ? v->ty : NULL;
  r->whole = v;
  return r;
}

M2lVal *m2l_tensor(M2L *L, const IrType *ty, IrVar *const *rows) {
  M2lVal *r = ARENA_NEW(L->a, M2lVal);
  r->kind = M2L_TENSOR;
  r->ty = ty;
  r->width = tensor_width(ty);
  r->nparts = tensor_rows(ty);
  r->parts = ARENA_NEW_ARRAY(L->a, IrVar *, r->nparts);
  memcpy(r->parts, rows, sizeof *rows * (size_t)r->nparts);
  return r;
}

IrVar *m2l_row(M2L *L, const M2lVal *v, int r) {
  if (!v || v->kind != M2L_TENSOR || r < 0 || r >= v->nparts) {
    m2l_internal(L, "a row of a value that is not a tensor");
    return NULL;
  }
  return v->parts[r];
}

IrVar *m2l_component(M2L *L, const M2lVal *v, int flat) {
  if (v && v->kind == M2L_PLAIN && ir_type_is_real(v->ty) && flat == 0)
    return v->whole;
  if (!v || v->kind != M2L_TENSOR || flat < 0 || flat >= v->nparts * v->width) {
    m2l_internal(L, "a component of a value that is not a tensor");
    return NULL;
  }
  return m2l_vindex(L, v->parts[flat / v->width], flat % v->width);
}

/* Rows [first, first + rows per entry of `level`) as a tensor of the
 * dimensions dims[level..]: tensor_cons of vectors gives tensor[n, w]. */
static IrVar *cons_rows(M2L *L, const M2lVal *v, int level, int first) {
  const IrType *t = v->ty;
  int n = t->dims[level], per = 1;
  for (int i = level + 1; i + 1 < t->order; i++)
    per *= t->dims[i];
  IrVar **xs = ARENA_NEW_ARRAY(L->a, IrVar *, n);
  for (int k = 0; k < n; k++)
    xs[k] =
        level == t->order - 2 ? v->parts[first + k] : cons_rows(L, v, level + 1, first + k * per);
  return m2l_op(L, IR_OP_TENSOR_CONS, n, xs, 0, NULL);
}

IrVar *m2l_materialize(M2L *L, const M2lVal *v) {
  if (!v)
    return NULL;
  switch (v->kind) {
  case M2L_PLAIN: return v->whole;
  case M2L_KERNEL: m2l_fail(L, "a kernel used as a value below MidIR"); return NULL;
  case M2L_INTS:
    if (v->whole)
      return v->whole;
    for (int i = 0; i < v->nparts; i++)
      if (!v->parts[i])
        return NULL;
    return ir_emit_op(L->cur, NULL, IR_OP_SEQ_CONS, v->ty, v->nparts, v->parts, 0, NULL);
  case M2L_TENSOR:
    if (v->whole)
      return v->whole;
    for (int i = 0; i < v->nparts; i++)
      if (!v->parts[i])
        return NULL;
    if (v->ty->order == 1) {
      IrVar *row = v->parts[0];
      if (is_op(row, IR_LOP_TENSOR_TO_VEC))
        return row->def->args[0];
      return m2l_op1(L, IR_LOP_VEC_TO_TENSOR, row);
    }
    return cons_rows(L, v, 0, 0);
  }
  return NULL;
}

/* The lowered value of a LowIR boundary variable: tensors are split into
 * rows right where they are defined (dead rows are removed by DCE). */
static M2lVal *decompose(M2L *L, IrVar *t) {
  if (!t || !is_tensor(t->ty))
    return m2l_plain(L, t);
  const IrType *ty = t->ty;
  int nrows = tensor_rows(ty), prefix[IR_MAX_ORDER];
  IrVar **rows = ARENA_NEW_ARRAY(L->a, IrVar *, nrows);
  for (int r = 0; r < nrows; r++) {
    if (ty->order == 1) {
      rows[r] =
          is_op(t, IR_LOP_VEC_TO_TENSOR) ? t->def->args[0] : m2l_op1(L, IR_LOP_TENSOR_TO_VEC, t);
      continue;
    }
    for (int i = ty->order - 2, q = r; i >= 0; i--) {
      prefix[i] = q % ty->dims[i];
      q /= ty->dims[i];
    }
    IrVar *sub = m2l_op(L, IR_OP_TENSOR_INDEX, 1, &t, ty->order - 1, prefix);
    rows[r] = m2l_op1(L, IR_LOP_TENSOR_TO_VEC, sub);
  }
  M2lVal *v = m2l_tensor(L, ty, rows);
  v->whole = t;
  return v;
}

M2lVal *m2l_get(M2L *L, const IrVar *mv) {
  if (mv && mv->id >= 0 && mv->id < L->nval && L->val[mv->id])
    return L->val[mv->id];
  m2l_internal(L, "a MidIR value used before it is lowered");
  return NULL;
}

static void set_val(M2L *L, const IrVar *mv, M2lVal *v) {
  if (mv && mv->id >= 0 && mv->id < L->nval)
    L->val[mv->id] = v;
}

static IrVar *get_whole(M2L *L, const IrVar *mv) { return m2l_materialize(L, m2l_get(L, mv)); }

/* ---- images ---------------------------------------------------------------------- */

/* Image sizes are run-time values even with a proxy (one build serves
 * images of any size, doc/language.md §6.1): literal proxy sizes made no
 * measurable difference to probing (bench/results.md, "One build, any
 * image"). */
IrVar *m2l_image_size(M2L *L, const IrVar *mid_img, int axis) {
  IrVar *img = get_whole(L, mid_img);
  IrVar *sz = m2l_op1(L, IR_OP_IMAGE_SIZE, img);
  return m2l_op2(L, IR_OP_SEQ_INDEX, sz, m2l_int(L, axis));
}

/* p = W·x + t, W = M⁻¹ and t = −M⁻¹·origin (doc/language.md §6.1). */
static M2lVal *lower_world_to_index(M2L *L, const IrInstr *in) {
  IrVar *img = get_whole(L, in->args[0]);
  M2lVal *x = m2l_get(L, in->args[1]);
  int d = in->args[0]->ty->dim;
  IrVar *W = m2l_op1(L, IR_LOP_IMG_TRANSFORM, img), *t = m2l_op1(L, IR_LOP_IMG_TRANSLATE, img);
  if (d == 1)
    return m2l_plain(L,
                     m2l_op2(L, IR_LOP_RADD, m2l_op2(L, IR_LOP_RMUL, W, x ? x->whole : NULL), t));
  M2lVal *Wv = decompose(L, W), *tv = decompose(L, t);
  IrVar *xr = m2l_row(L, x, 0), *comp[3];
  for (int a = 0; a < d && a < 3; a++)
    comp[a] = m2l_op2(L, IR_LOP_VDOT, Wv->parts[a], xr);
  IrVar *p = m2l_op2(L, IR_LOP_VADD, m2l_vcons(L, d, comp), tv->parts[0]);
  return m2l_tensor(L, in->dst->ty, &p);
}

/* Componentwise floor (fract: x − floor x). */
static M2lVal *lower_floor_fract(M2L *L, const IrInstr *in, bool fract) {
  M2lVal *x = m2l_get(L, in->args[0]);
  if (!x)
    return NULL;
  if (x->kind == M2L_PLAIN) {
    IrVar *f = m2l_op1(L, IR_OP_FLOOR, x->whole);
    return m2l_plain(L, fract ? m2l_op2(L, IR_LOP_RSUB, x->whole, f) : f);
  }
  IrVar **rows = ARENA_NEW_ARRAY(L->a, IrVar *, x->nparts);
  IrVar **lanes = ARENA_NEW_ARRAY(L->a, IrVar *, x->width);
  for (int r = 0; r < x->nparts; r++) {
    for (int k = 0; k < x->width; k++)
      lanes[k] = m2l_op1(L, IR_OP_FLOOR, m2l_vindex(L, x->parts[r], k));
    IrVar *f = m2l_vcons(L, x->width, lanes);
    rows[r] = fract ? m2l_op2(L, IR_LOP_VSUB, x->parts[r], f) : f;
  }
  return m2l_tensor(L, in->dst->ty, rows);
}

/* floor(floor(y)) = floor(y): convert the unfloored value directly. */
static IrVar *floor_to_int(M2L *L, IrVar *x) {
  if (is_op(x, IR_OP_FLOOR))
    x = x->def->args[0];
  return m2l_op1(L, IR_LOP_FLOOR_TO_INT, x);
}

static M2lVal *lower_real_to_int(M2L *L, const IrInstr *in) {
  M2lVal *x = m2l_get(L, in->args[0]);
  if (!x)
    return NULL;
  if (x->kind == M2L_PLAIN)
    return m2l_plain(L, floor_to_int(L, x->whole));
  M2lVal *r = ARENA_NEW(L->a, M2lVal);
  r->kind = M2L_INTS;
  r->ty = in->dst->ty;
  r->nparts = x->width;
  r->parts = ARENA_NEW_ARRAY(L->a, IrVar *, r->nparts);
  for (int a = 0; a < r->nparts; a++)
    r->parts[a] = floor_to_int(L, m2l_component(L, x, a));
  return r;
}

/* s − 1 < p_a < N_a − s for every axis (§8.5). */
static M2lVal *lower_inside_image(M2L *L, const IrInstr *in) {
  M2lVal *p = m2l_get(L, in->args[1]);
  int d = in->args[0]->ty->dim, s = in->imm[0];
  IrVar *all = NULL;
  for (int a = 0; a < d; a++) {
    IrVar *pa = m2l_component(L, p, a);
    IrVar *N = m2l_image_size(L, in->args[0], a);
    IrVar *hi = m2l_op1(L, IR_OP_INT_TO_REAL, m2l_op2(L, IR_OP_ISUB, N, m2l_int(L, s)));
    IrVar *c = m2l_op2(L, IR_OP_AND, m2l_op2(L, IR_OP_GT, pa, m2l_real(L, s - 1)),
                       m2l_op2(L, IR_OP_LT, pa, hi));
    all = all ? m2l_op2(L, IR_OP_AND, all, c) : c;
  }
  return m2l_plain(L, all);
}

/* ---- common operators ------------------------------------------------------------- */

static IrCFG *map_cfg(M2L *L, const IrCFG *fn) {
  for (int i = 0; fn && i < L->mid->ncfgs; i++)
    if (L->mid->cfgs[i] == fn)
      return L->low->cfgs[i];
  return NULL;
}

/* [a, b, ...] of reals or of tensors: rows side by side. */
static M2lVal *lower_tensor_cons(M2L *L, const IrInstr *in) {
  const IrType *ty = in->dst->ty;
  int n = in->nargs;
  IrVar **xs = ARENA_NEW_ARRAY(L->a, IrVar *, tensor_rows(ty) + n);
  if (ty->order == 1) {
    for (int i = 0; i < n; i++)
      xs[i] = m2l_component(L, m2l_get(L, in->args[i]), 0);
    IrVar *row = m2l_vcons(L, n, xs);
    return m2l_tensor(L, ty, &row);
  }
  int k = 0;
  for (int i = 0; i < n; i++) {
    M2lVal *e = m2l_get(L, in->args[i]);
    if (!e || e->kind != M2L_TENSOR)
      return NULL;
    for (int r = 0; r < e->nparts && k < tensor_rows(ty); r++)
      xs[k++] = e->parts[r];
  }
  return k == tensor_rows(ty) ? m2l_tensor(L, ty, xs) : NULL;
}

/* t[c0, ..., ck-1]: a component or a block of rows. */
static M2lVal *lower_tensor_index(M2L *L, const IrInstr *in) {
  M2lVal *t = m2l_get(L, in->args[0]);
  if (!t || t->kind != M2L_TENSOR || in->nimm > t->ty->order)
    return NULL;
  const IrType *ty = t->ty;
  int flat = 0;
  for (int i = 0; i < ty->order; i++)
    flat = flat * ty->dims[i] + (i < in->nimm ? in->imm[i] : 0);
  if (in->nimm == ty->order)
    return m2l_plain(L, m2l_component(L, t, flat));
  return m2l_tensor(L, in->dst->ty, t->parts + flat / t->width);
}

/* int(x) with ints of `bits` bits (doc/language.md §4.2): t = trunc(x);
 * t >= 2^(bits-1) gives the largest int, t <= -2^(bits-1) the smallest,
 * NaN 0; otherwise t = q·2^k + r with k = bits/2, q = trunc(t/2^k) and
 * |r| < 2^k, all exact in either real type, and each part fits
 * floor_to_int's range (|q| < 2^(bits-2)), so n = q·2^k + r is t without
 * the undefined conversion of C. */
static M2lVal *lower_trunc_to_int(M2L *L, const IrInstr *in) {
  IrVar *x = get_whole(L, in->args[0]);
  if (!x)
    return NULL;
  int bits = in->nimm > 0 && in->imm[0] == 64 ? 64 : 32, k = bits / 2;
  double lim = ldexp(1.0, bits - 1), step = ldexp(1.0, k);
  int64_t hi = bits == 64 ? INT64_MAX : INT32_MAX;
  IrVar *t = m2l_op1(L, IR_OP_TRUNC, x);
  IrVar *big = m2l_op2(L, IR_OP_GE, t, m2l_real(L, lim));
  IrVar *small = m2l_op2(L, IR_OP_LE, t, m2l_real(L, -lim));
  IrVar *nan = m2l_op2(L, IR_OP_NE, x, x);
  IrVar *out = m2l_op2(L, IR_OP_OR, m2l_op2(L, IR_OP_OR, big, small), nan);
  IrVar *sel[3] = {out, m2l_real(L, 0.0), t};
  IrVar *tc = m2l_op(L, IR_OP_SELECT, 3, sel, 0, NULL);
  IrVar *q = m2l_op1(L, IR_OP_TRUNC, m2l_op2(L, IR_LOP_RMUL, tc, m2l_real(L, 1.0 / step)));
  IrVar *r = m2l_op2(L, IR_LOP_RSUB, tc, m2l_op2(L, IR_LOP_RMUL, q, m2l_real(L, step)));
  IrVar *n = m2l_op2(L, IR_OP_IADD,
                     m2l_op2(L, IR_OP_IMUL, m2l_op1(L, IR_LOP_FLOOR_TO_INT, q), m2l_int(L, (int64_t)step)),
                     m2l_op1(L, IR_LOP_FLOOR_TO_INT, r));
  IrVar *s1[3] = {big, m2l_int(L, hi), n};
  n = m2l_op(L, IR_OP_SELECT, 3, s1, 0, NULL);
  IrVar *s2[3] = {small, m2l_int(L, -hi - 1), n};
  n = m2l_op(L, IR_OP_SELECT, 3, s2, 0, NULL);
  IrVar *s3[3] = {nan, m2l_int(L, 0), n};
  return m2l_plain(L, m2l_op(L, IR_OP_SELECT, 3, s3, 0, NULL));
}

static M2lVal *lower_common(M2L *L, const IrInstr *in) {
  switch (in->op) {
  case IR_OP_TRUNC_TO_INT: return lower_trunc_to_int(L, in);
  case IR_OP_TENSOR_CONS:
    if (is_tensor(in->dst->ty)) {
      M2lVal *v = lower_tensor_cons(L, in);
      if (v)
        return v;
    }
    break;
  case IR_OP_TENSOR_INDEX: {
    M2lVal *v = lower_tensor_index(L, in);
    if (v)
      return v;
    break;
  }
  case IR_OP_SEQ_INDEX: {
    M2lVal *s = m2l_get(L, in->args[0]), *i = m2l_get(L, in->args[1]);
    const IrVar *iv = i ? i->whole : NULL;
    if (s && s->kind == M2L_INTS && iv && iv->def && iv->def->kind == IR_I_LIT &&
        iv->def->lit.i >= 0 && iv->def->lit.i < s->nparts)
      return m2l_plain(L, s->parts[iv->def->lit.i]);
    break;
  }
  default: break;
  }
  IrVar **args = ARENA_NEW_ARRAY(L->a, IrVar *, in->nargs + 1);
  for (int i = 0; i < in->nargs; i++)
    if (!(args[i] = get_whole(L, in->args[i])))
      return NULL;
  if (in->op == IR_OP_STRAND_REDUCE) {
    IrVar *r = ir_emit_strand_reduce(L->cur, in->dst ? in->dst->name : NULL, (IrReduce)in->imm[0],
                                     (IrStrandSet)in->imm[1], map_cfg(L, in->fn), in->nargs, args);
    if (!r)
      m2l_internal(L, "a strand reduction");
    return decompose(L, r);
  }
  if (!in->dst) {
    if (!ir_emit_effect(L->cur, in->op, in->nargs, args, in->nimm, in->imm))
      m2l_internal(L, "an effect operator");
    return NULL;
  }
  IrVar *r =
      ir_emit_op(L->cur, in->dst->name, in->op, in->dst->ty, in->nargs, args, in->nimm, in->imm);
  if (!r) {
    const IrOpInfo *info = ir_op_info(IR_MID, in->op);
    m2l_fail(L, arena_printf(L->a, "operator '%s' at LowIR", info ? info->name : "?"));
  }
  return decompose(L, r);
}

static M2lVal *lower_op(M2L *L, const IrInstr *in) {
  if (in->op < IR_OP_COMMON_COUNT)
    return lower_common(L, in);
  switch ((IrMidOp)in->op) {
  case IR_MOP_EIN:
    if (L->stats)
      L->stats->ein_expanded++;
    return m2l_lower_ein(L, in);
  case IR_MOP_IMG_TRANSFORM:
  case IR_MOP_IMG_TRANSLATE: {
    int op = in->op == IR_MOP_IMG_TRANSFORM ? IR_LOP_IMG_TRANSFORM : IR_LOP_IMG_TRANSLATE;
    return decompose(L, m2l_op1(L, op, get_whole(L, in->args[0])));
  }
  case IR_MOP_WORLD_TO_INDEX: return lower_world_to_index(L, in);
  case IR_MOP_TFLOOR: return lower_floor_fract(L, in, false);
  case IR_MOP_TFRACT: return lower_floor_fract(L, in, true);
  case IR_MOP_REAL_TO_INT: return lower_real_to_int(L, in);
  case IR_MOP_LOAD_VOXELS: {
    if (L->stats)
      L->stats->voxel_loads++;
    M2lVal *v = m2l_load_voxels(L, in);
    if (v && v->kind == M2L_TENSOR && in->args[0]->ty->order == 0 && v->ty->order >= 2)
      v->lanes0 = true; /* index 0 = image axis 0 (see M2lVal) */
    return v;
  }
  case IR_MOP_KERNEL_EVAL:
    if (L->stats)
      L->stats->kernel_evals++;
    return m2l_kernel_eval(L, in);
  case IR_MOP_INSIDE_IMAGE: return lower_inside_image(L, in);
  default: break;
  }
  const IrOpInfo *info = ir_op_info(IR_MID, in->op);
  m2l_fail(L, arena_printf(L->a, "lowering of MidIR operator '%s'", info ? info->name : "?"));
  return NULL;
}

static IrGlobal *global_of(M2L *L, IrGlobal **gmap, const IrGlobal *g) {
  return g && g->index >= 0 && g->index < L->mid->nglobals ? gmap[g->index] : NULL;
}

static void lower_instr(M2L *L, const IrInstr *in, IrGlobal **gmap, IrStateVar **smap) {
  M2lVal *v = NULL;
  switch (in->kind) {
  case IR_I_LIT:
    switch (in->lit.kind) {
    case IR_LIT_BOOL: v = m2l_plain(L, ir_emit_bool(L->cur, in->lit.b)); break;
    case IR_LIT_INT: v = m2l_plain(L, m2l_int(L, in->lit.i)); break;
    case IR_LIT_REAL: v = m2l_plain(L, m2l_real(L, in->lit.r)); break;
    case IR_LIT_STRING: v = m2l_plain(L, ir_emit_string(L->cur, in->lit.s)); break;
    case IR_LIT_KERNEL:
      v = ARENA_NEW(L->a, M2lVal);
      v->kind = M2L_KERNEL;
      v->ty = in->dst->ty;
      v->kernel = in->lit.kernel;
      break;
    }
    break;
  case IR_I_COPY: v = m2l_get(L, in->args[0]); break;
  case IR_I_PHI: return; /* lower_block */
  case IR_I_OP:
    if (in->op == IR_OP_INPUT_GIVEN && in->nimm == 1 && in->imm[0] >= 0 &&
        in->imm[0] < L->mid->nglobals && gmap[in->imm[0]]) {
      int gi = gmap[in->imm[0]]->index; /* the input's index at this level */
      v = m2l_plain(L, ir_emit_op(L->cur, in->dst->name, in->op, in->dst->ty, 0, NULL, 1, &gi));
      break;
    }
    v = lower_op(L, in);
    break;
  case IR_I_GLOBAL_GET: {
    IrGlobal *g = global_of(L, gmap, in->global);
    if (!g) {
      m2l_fail(L, "a kernel-valued global below MidIR");
      return;
    }
    v = decompose(L, ir_emit_global_get(L->cur, in->dst->name, g));
    break;
  }
  case IR_I_GLOBAL_SET: {
    IrGlobal *g = global_of(L, gmap, in->global);
    IrVar *x = get_whole(L, in->args[0]);
    if (g && x)
      ir_emit_global_set(L->cur, g, x);
    else
      m2l_fail(L, "an assignment to a kernel-valued global");
    return;
  }
  case IR_I_STATE_GET:
  case IR_I_STATE_SET:
    if (!in->state || in->state->index < 0 || in->state->index >= L->mid->nstate) {
      m2l_internal(L, "an access to strand state of another module");
      return;
    }
    if (in->kind == IR_I_STATE_SET) {
      IrVar *x = get_whole(L, in->args[0]);
      if (x)
        ir_emit_state_set(L->cur, smap[in->state->index], x);
      return;
    } else {
      IrVar *strand = in->nargs ? get_whole(L, in->args[0]) : NULL;
      if (in->nargs && !strand)
        return;
      v = decompose(L, ir_emit_state_get(L->cur, in->dst->name, smap[in->state->index], strand));
      break;
    }
  }
  if (in->dst) {
    if (!v)
      m2l_internal(L, "an instruction whose value could not be lowered");
    set_val(L, in->dst, v);
  }
}

/* ---- CFGs ----------------------------------------------------------------------------- */

static void set_edges(const IrBlock *b, IrBlock *nb, IrBlock **bmap) {
  const IrTerm *t = &b->term;
  switch (t->kind) {
  case IR_T_JUMP: ir_block_set_jump(nb, bmap[t->succ[0]->id]); break;
  case IR_T_BRANCH:
    /* The condition is filled in when the block is lowered. */
    ir_block_set_branch(nb, NULL, bmap[t->succ[0]->id], bmap[t->succ[1]->id]);
    break;
  case IR_T_RETURN: ir_block_set_return(nb, NULL); break;
  case IR_T_STABILIZE:
  case IR_T_DIE:
  case IR_T_CONTINUE:
  case IR_T_ERROR: ir_block_set_exit(nb, t->kind); break;
  case IR_T_NONE: break;
  }
}

/* The phi argument of new predecessor slot j: the MidIR argument of the
 * matching old slot (the same predecessor, the same occurrence). tail maps
 * a MidIR block to the LowIR block that ends its code (lowering may split a
 * block, e.g. the brick fast/general paths of voxel loads). */
static IrVar *old_phi_arg(const IrInstr *phi, const IrBlock *b, const IrBlock *nb, int j,
                          IrBlock **tail) {
  int occ = 0;
  for (int k = 0; k < j; k++)
    occ += nb->preds[k] == nb->preds[j];
  for (int k = 0; k < b->npreds && k < phi->nargs; k++)
    if (tail[b->preds[k]->id] == nb->preds[j] && occ-- == 0)
      return phi->args[k];
  return NULL;
}

static void lower_cfg(M2L *L, IrCFG *m, IrCFG *l, IrGlobal **gmap, IrStateVar **smap) {
  L->lcfg = l;
  int nreach = ir_cfg_compute_dominators(m);
  IrBlock **bmap = ARENA_NEW_ARRAY(L->a, IrBlock *, m->next_block_id + 1);
  IrBlock **tail = ARENA_NEW_ARRAY(L->a, IrBlock *, m->next_block_id + 1);
  IrBlock **order = ARENA_NEW_ARRAY(L->a, IrBlock *, nreach + 1);
  IrInstr **newphi = NULL;
  int n = 0;
  for (int i = 0; i < m->nblocks; i++) {
    IrBlock *b = m->blocks[i];
    if (b->rpo < 0 || b->id < 0 || b->id > m->next_block_id)
      continue;
    bmap[b->id] = b == m->entry ? l->entry : ir_block_new(l, b->label);
    if (n < nreach)
      order[n++] = b;
  }
  if (m->exit && m->exit->rpo >= 0)
    l->exit = bmap[m->exit->id];
  for (int i = 0; i < n; i++)
    set_edges(order[i], bmap[order[i]->id], bmap);
  {
    /* by reverse-postorder number (distinct): placed, not sorted */
    IrBlock **at = ARENA_NEW_ARRAY(L->a, IrBlock *, nreach + 1);
    for (int i = 0; i < n; i++)
      if (order[i]->rpo <= nreach) at[order[i]->rpo] = order[i];
    int k = 0;
    for (int r = 0; r <= nreach; r++)
      if (at[r]) order[k++] = at[r];
  }

  /* Parameters keep their types; tensors are split in the entry block. */
  L->cur = l->entry;
  for (int i = 0; i < m->nparams && i < l->nparams; i++) {
    IrVar *p = l->params[i];
    if (!ir_type_allowed(IR_LOW, p->ty))
      m2l_fail(L, "a kernel-valued parameter below MidIR");
    set_val(L, m->params[i], decompose(L, p));
  }

  /* Blocks in reverse postorder: definitions before uses. */
  int nphis = 0;
  for (int i = 0; i < n; i++)
    nphis += order[i]->nphis;
  newphi = ARENA_NEW_ARRAY(L->a, IrInstr *, nphis + 1);
  int np = 0;
  for (int i = 0; i < n; i++) {
    IrBlock *b = order[i], *nb = bmap[b->id];
    L->cur = nb;
    int first = np;
    for (int k = 0; k < b->nphis; k++) {
      const IrVar *dst = b->phis[k]->dst;
      if (!ir_type_allowed(IR_LOW, dst->ty))
        m2l_fail(L, "a kernel-valued phi below MidIR");
      IrVar *v = ir_phi_new(nb, dst->name, dst->ty);
      newphi[np++] = v->def;
    }
    for (int k = 0; k < b->nphis; k++)
      set_val(L, b->phis[k]->dst, decompose(L, newphi[first + k]->dst));
    for (int k = 0; k < b->ninstrs; k++) {
      l->cur_line = b->instrs[k]->line; /* the expansion keeps the source line */
      lower_instr(L, b->instrs[k], gmap, smap);
    }
    l->cur_line = 0;
    /* the terminator is where the block's code ends (after any split) */
    if (b->term.kind == IR_T_BRANCH) {
      M2lVal *c = m2l_get(L, b->term.value);
      L->cur->term.value = c ? c->whole : NULL;
    } else if (b->term.kind == IR_T_RETURN && b->term.value) {
      IrVar *v = get_whole(L, b->term.value);
      L->cur->term.value = v;
    }
    tail[b->id] = L->cur;
  }

  /* Phi arguments, converted at the end of each predecessor. */
  np = 0;
  for (int i = 0; i < n; i++) {
    IrBlock *b = order[i], *nb = bmap[b->id];
    for (int k = 0; k < b->nphis; k++) {
      IrInstr *phi = newphi[np++];
      for (int j = 0; j < nb->npreds; j++) {
        IrVar *old = old_phi_arg(b->phis[k], b, nb, j, tail);
        if (!old) {
          m2l_internal(L, "a phi without an argument for an edge");
          continue;
        }
        L->cur = nb->preds[j];
        ir_phi_set_arg(phi, j, get_whole(L, old));
      }
    }
  }
}

/* ---- the module ------------------------------------------------------------------------- */

/* The widest kernel support s of the module's voxel loads (1 if none):
 * one walk over the instructions, before lowering. */
static int widest_support(const IrModule *mid) {
  int s = 1;
  for (int i = 0; i < mid->ncfgs; i++) {
    const IrCFG *c = mid->cfgs[i];
    for (int b = 0; b < c->nblocks; b++)
      for (int k = 0; k < c->blocks[b]->ninstrs; k++) {
        const IrInstr *in = c->blocks[b]->instrs[k];
        if (in->kind == IR_I_OP && in->op == IR_MOP_LOAD_VOXELS && in->imm[0] > s)
          s = in->imm[0];
      }
  }
  return s;
}

IrModule *mid_to_low(IrModule *mid, DiagCtx *diag, const MidToLowOptions *opts,
                     MidToLowStats *stats) {
  static const MidToLowOptions defaults = {.no_vn = false};
  MidToLowStats local;
  if (!stats)
    stats = &local;
  memset(stats, 0, sizeof *stats);
  if (!mid || mid->level != IR_MID)
    return NULL;
  stats->mid = ir_module_size(mid);
  M2L L;
  memset(&L, 0, sizeof L);
  L.mid = mid;
  L.a = mid->arena;
  L.diag = diag;
  L.opts = opts ? opts : &defaults;
  L.stats = stats;
  L.low = ir_module_next_level(mid, IR_LOW);
  L.ix = ix_ctx_new(L.a);
  IrModule *low = L.low;

  IrGlobal **gmap = ARENA_NEW_ARRAY(L.a, IrGlobal *, mid->nglobals + 1);
  for (int i = 0; i < mid->nglobals; i++) {
    const IrGlobal *g = mid->globals[i];
    if (!ir_type_allowed(IR_LOW, g->ty))
      continue; /* kernels */
    IrGlobal *ng = ir_global_new(low, g->kind, g->name, g->ty);
    ng->desc = g->desc;
    ng->has_default = g->has_default;
    ng->value = g->value;
    ng->path = g->path;
    ng->proxy = g->proxy;
    ng->default_text = g->default_text;
    ng->choice_kind = g->choice_kind;
    ng->choices = g->choices;
    ng->nchoices = g->nchoices;
    gmap[i] = ng;
  }
  IrStateVar **smap = ARENA_NEW_ARRAY(L.a, IrStateVar *, mid->nstate + 1);
  for (int i = 0; i < mid->nstate; i++) {
    const IrStateVar *s = mid->state[i];
    smap[i] = ir_state_new(low, s->name, s->ty, s->output);
    smap[i]->shared = s->shared;
    smap[i]->position = s->position;
  }
  /* Signatures first: strand reductions refer to their map functions. */
  for (int i = 0; i < mid->ncfgs; i++) {
    const IrCFG *m = mid->cfgs[i];
    IrCFG *l = ir_cfg_new(low, m->kind, m->name);
    l->result = m->result;
    for (int k = 0; k < m->nparams; k++)
      ir_cfg_add_param(l, m->params[k]->name, m->params[k]->ty);
  }

  if (L.opts->halo && L.opts->brick > 1)
    low->image_halo = L.halo = widest_support(mid);
  L.nval = mid->next_var_id;
  L.val = ARENA_NEW_ARRAY(L.a, M2lVal *, L.nval + 1);
  for (int i = 0; i < mid->ncfgs; i++)
    lower_cfg(&L, mid->cfgs[i], low->cfgs[i], gmap, smap);
  if (L.failed)
    return NULL;

  stats->expanded = ir_module_size(low);
  if (!L.opts->no_vn)
    stats->vn_removed = ir_vn_module(low);
  if (!L.opts->no_dce)
    stats->dce_removed = ir_dce_module(low);
  stats->low = ir_module_size(low);
  return low;
}

void mid_to_low_stats_print(FILE *out, const MidToLowStats *s) {
  fprintf(out,
          "low: %zu blocks, %zu instrs, %zu phis (expanded to %zu instrs from %zu MidIR instrs: "
          "%d EIN operators, %d kernel evaluations, %d voxel loads; VN removed %d, DCE removed "
          "%d)\n",
          s->low.blocks, s->low.instrs, s->low.phis, s->expanded.instrs, s->mid.instrs,
          s->ein_expanded, s->kernel_evals, s->voxel_loads, s->vn_removed, s->dce_removed);
}
