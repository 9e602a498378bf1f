/* mid_to_low_kernel.c -- kernel taps by Horner's rule and voxel
 * neighbourhoods by image loads (doc/language.md §6.1-§6.4).
 *
 * Kernel taps: for f in [0,1) and i = 1−s..s the argument f − i lies in
 * [−i, 1−i), so tap k (i = 1−s+k) always uses the piece whose lower end is
 * −i. Shifting that piece to a polynomial in f (exactly, in rationals)
 * lets one vector Horner evaluation at vsplat(f) compute all 2s taps.
 *
 * Voxels: every sample offset is the image layout's forward map
 * (lyt_image_layout, an index expression from src/layout/layout.h) at the
 * coordinate (component, tap index per axis); the index expressions are
 * turned into int arithmetic with a memo, so shared terms (the per-axis
 * products of a tap index with the strides) are emitted once.
 */
#include <string.h>

#include "translate/mid_to_low_impl.h"

/* ---- exact shifting of kernel pieces ------------------------------------------ */

static int64_t gcd64(int64_t a, int64_t b) {
  if (a < 0)
    a = -a;
  if (b < 0)
    b = -b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a ? a : 1;
}

/* a + b·m (m an integer); false on overflow. */
static bool rat_addmul(Rational *a, Rational b, int64_t m) {
  int64_t g = gcd64(a->den, b.den), bn, t1, t2, den, num;
  if (__builtin_mul_overflow(b.num, m, &bn) || __builtin_mul_overflow(a->num, b.den / g, &t1) ||
      __builtin_mul_overflow(bn, a->den / g, &t2) || __builtin_add_overflow(t1, t2, &num) ||
      __builtin_mul_overflow(a->den / g, b.den, &den))
    return false;
  int64_t r = gcd64(num, den);
  a->num = num / r;
  a->den = den / r;
  return true;
}

/* q(f) = p(f − i) = Σ_m f^m Σ_{p≥m} c_p C(p,m) (−i)^(p−m): coefficients of
 * the piece in f, as doubles. Returns the degree, or -2 on overflow. */
static int shift_piece(const KernelPiece *pc, int i, double *out) {
  int deg = pc->degree;
  for (int m = 0; m <= deg; m++) {
    Rational q = {0, 1};
    for (int p = m; p <= deg; p++) {
      int64_t binom = 1, pw = 1;
      for (int t = 1; t <= m; t++)
        binom = binom * (p - m + t) / t;
      for (int t = 0; t < p - m; t++)
        pw *= -i;
      if (!rat_addmul(&q, pc->coeff[p], binom * pw))
        return -2;
    }
    out[m] = (double)q.num / (double)q.den;
  }
  return deg;
}

M2lVal *m2l_kernel_eval(M2L *L, const IrInstr *in) {
  M2lVal *h = m2l_get(L, in->args[0]), *f = m2l_get(L, in->args[1]);
  if (!h || !f)
    return NULL;
  if (h->kind != M2L_KERNEL || !h->kernel) {
    m2l_fail(L, "kernel evaluation of a kernel that is not a literal");
    return NULL;
  }
  const Kernel *k = h->kernel;
  int j = in->imm[0], s = in->imm[1], w = 2 * s, deg = -1;
  double c[2 * KERNEL_MAX_SUPPORT][KERNEL_MAX_DEGREE + 1];
  memset(c, 0, sizeof c);
  for (int t = 0; t < w; t++) {
    int i = 1 - s + t, lo = -i;
    if (lo < -k->support || lo >= k->support)
      continue; /* outside h's support: 0 */
    KernelPiece dp = kernel_derivative_piece(k, lo + k->support, j);
    int dd = dp.degree >= 0 ? shift_piece(&dp, i, c[t]) : -2;
    if (dd == -2) {
      m2l_fail(L, "a kernel derivative whose coefficients overflow");
      return NULL;
    }
    for (int m = dd; m > deg; m--)
      if (c[t][m] != 0)
        deg = m;
  }
  IrVar *coef[KERNEL_MAX_DEGREE + 2], *lanes[2 * KERNEL_MAX_SUPPORT];
  for (int m = 0; m <= (deg < 0 ? 0 : deg); m++) {
    for (int t = 0; t < w; t++)
      lanes[t] = m2l_real(L, c[t][m]);
    coef[m + 1] = m2l_vcons(L, w, lanes);
  }
  IrVar *row = coef[1];
  if (deg >= 1) {
    coef[0] = m2l_splat(L, f->whole, w);
    row = m2l_op(L, IR_LOP_HORNER, deg + 2, coef, 0, NULL);
  }
  return m2l_tensor(L, in->dst->ty, &row);
}

/* Whether consecutive values of the coordinate of top-level mode `mode` are
 * `stride` samples apart (a plain leaf with that constant stride): then a
 * run of them is one vload. */
static bool mode_contiguous(const Layout *l, int mode, int64_t stride) {
  const Layout *m = lyt_mode(l, mode);
  return m && m->n == 0 && m->stride && ix_is_k(m->stride, stride);
}

/* ---- index expressions → int code ------------------------------------------------- */

typedef struct IxEmit {
  M2L *L;
  int nbind; /* at most 3 sizes + 3 positions + 3·2s tap indices + 6 brick parts */
  int bind_id[16 + 6 * KERNEL_MAX_SUPPORT];
  IrVar *bind_var[16 + 6 * KERNEL_MAX_SUPPORT];
  int n, cap;
  const IxExpr **key;
  IrVar **val;
} IxEmit;

static void ix_bind(IxEmit *E, const IxExpr *var, IrVar *v) {
  if (E->nbind < (int)(sizeof E->bind_id / sizeof *E->bind_id) && var->op == IX_VAR) {
    E->bind_id[E->nbind] = (int)var->k;
    E->bind_var[E->nbind++] = v;
  }
}

static IrVar **memo_slot(IxEmit *E, const IxExpr *e) {
  if (E->n * 2 >= E->cap) {
    int ncap = E->cap ? E->cap * 2 : 256;
    const IxExpr **nk = ARENA_NEW_ARRAY(E->L->a, const IxExpr *, ncap);
    IrVar **nv = ARENA_NEW_ARRAY(E->L->a, IrVar *, ncap);
    for (int i = 0; i < E->cap; i++) {
      if (!E->key[i])
        continue;
      uint32_t j = E->key[i]->hash & (uint32_t)(ncap - 1);
      while (nk[j])
        j = (j + 1) & (uint32_t)(ncap - 1);
      nk[j] = E->key[i];
      nv[j] = E->val[i];
    }
    E->key = nk;
    E->val = nv;
    E->cap = ncap;
  }
  uint32_t j = e->hash & (uint32_t)(E->cap - 1);
  while (E->key[j] && E->key[j] != e)
    j = (j + 1) & (uint32_t)(E->cap - 1);
  if (!E->key[j]) {
    E->key[j] = e;
    E->n++;
  }
  return &E->val[j];
}

static IrVar *ix_emit(IxEmit *E, const IxExpr *e);

/* Floor division and modulo (the semantics of layout.h's IX_DIV and
 * IX_MOD) from C's truncating ones; plain when the dividend is provably
 * >= 0 and the divisor > 0. */
static IrVar *floor_divmod(IxEmit *E, const IxExpr *e, bool mod) {
  M2L *L = E->L;
  IrVar *a = ix_emit(E, e->arg[0]), *b = ix_emit(E, e->arg[1]);
  IrVar *q = m2l_op2(L, IR_OP_IDIV, a, b), *r = m2l_op2(L, IR_OP_IMOD, a, b);
  if (e->arg[0]->lo >= 0 && e->arg[1]->lo > 0)
    return mod ? r : q;
  IrVar *zero = m2l_int(L, 0);
  IrVar *fix =
      m2l_op2(L, IR_OP_AND, m2l_op2(L, IR_OP_NE, r, zero),
              m2l_op2(L, IR_OP_NE, m2l_op2(L, IR_OP_LT, r, zero), m2l_op2(L, IR_OP_LT, b, zero)));
  IrVar *sel[3] = {fix,
                   mod ? m2l_op2(L, IR_OP_IADD, r, b) : m2l_op2(L, IR_OP_ISUB, q, m2l_int(L, 1)),
                   mod ? r : q};
  return m2l_op(L, IR_OP_SELECT, 3, sel, 0, NULL);
}

static IrVar *ix_emit(IxEmit *E, const IxExpr *e) {
  M2L *L = E->L;
  IrVar **slot = memo_slot(E, e);
  if (*slot)
    return *slot;
  IrVar *r = NULL;
  switch (e->op) {
  case IX_CONST: r = m2l_int(L, e->k); break;
  case IX_VAR:
    for (int i = 0; i < E->nbind; i++)
      if (E->bind_id[i] == (int)e->k)
        r = E->bind_var[i];
    if (!r)
      m2l_internal(L, "an unbound variable in a voxel offset");
    break;
  case IX_ADD: /* terms first, the constant last: partial sums are shared */
    for (int i = 0; i < e->n; i++) {
      IrVar *x = ix_emit(E, e->arg[i]);
      r = r ? m2l_op2(L, IR_OP_IADD, r, x) : x;
    }
    if (e->k)
      r = r ? m2l_op2(L, IR_OP_IADD, r, m2l_int(L, e->k)) : m2l_int(L, e->k);
    if (!r)
      r = m2l_int(L, 0);
    break;
  case IX_MUL:
    for (int i = 0; i < e->n; i++) {
      IrVar *x = ix_emit(E, e->arg[i]);
      r = r ? m2l_op2(L, IR_OP_IMUL, r, x) : x;
    }
    if (!r)
      r = m2l_int(L, e->k);
    else if (e->k == -1)
      r = m2l_op1(L, IR_OP_INEG, r);
    else if (e->k != 1)
      r = m2l_op2(L, IR_OP_IMUL, m2l_int(L, e->k), r);
    break;
  case IX_DIV: r = floor_divmod(E, e, false); break;
  case IX_MOD: r = floor_divmod(E, e, true); break;
  case IX_MIN:
  case IX_MAX:
    r = m2l_op2(L, e->op == IX_MIN ? IR_OP_MIN : IR_OP_MAX, ix_emit(E, e->arg[0]),
                ix_emit(E, e->arg[1]));
    break;
  case IX_LT: {
    IrVar *sel[3] = {m2l_op2(L, IR_OP_LT, ix_emit(E, e->arg[0]), ix_emit(E, e->arg[1])),
                     m2l_int(L, 1), m2l_int(L, 0)};
    r = m2l_op(L, IR_OP_SELECT, 3, sel, 0, NULL);
    break;
  }
  case IX_SELECT: {
    IrVar *sel[3] = {m2l_op2(L, IR_OP_NE, ix_emit(E, e->arg[0]), m2l_int(L, 0)),
                     ix_emit(E, e->arg[1]), ix_emit(E, e->arg[2])};
    r = m2l_op(L, IR_OP_SELECT, 3, sel, 0, NULL);
    break;
  }
  case IX_ISQRT:
  case IX_SHL:
  case IX_SHR:
  case IX_AND:
    /* Not produced by image layouts (shifts only come from ix_lower). */
    m2l_fail(L, "an index expression form in a voxel offset");
    break;
  }
  /* The slot may have moved while the operands were emitted. */
  *memo_slot(E, e) = r;
  return r;
}

/* ---- offsets as (variable + constant) ------------------------------------------------ */

/* v + k, v possibly NULL: constants are folded as sums are formed. */
typedef struct Off {
  IrVar *v;
  int64_t k;
} Off;

static Off off_of(IxEmit *E, const IxExpr *e) {
  if (ix_is_const(e))
    return (Off){NULL, e->k};
  if (e->op == IX_ADD && e->k != 0) { /* keep the constant apart: it folds */
    const IxExpr *rest = ix_addk(E->L->ix, e, -e->k);
    return (Off){ix_emit(E, rest), e->k};
  }
  return (Off){ix_emit(E, e), 0};
}

static Off off_add(M2L *L, Off a, Off b) {
  Off r = {a.v, a.k + b.k};
  if (b.v)
    r.v = a.v ? m2l_op2(L, IR_OP_IADD, a.v, b.v) : b.v;
  return r;
}

static IrVar *off_var(M2L *L, Off o) {
  if (!o.v)
    return m2l_int(L, o.k);
  return o.k ? m2l_op2(L, IR_OP_IADD, o.v, m2l_int(L, o.k)) : o.v;
}

/* Mode `mode` of the layout at a 1-D coordinate. */
static const IxExpr *mode_map(M2L *L, const Layout *lay, int mode, const IxExpr *crd) {
  LytError err;
  const Layout *m = lyt_mode(lay, mode);
  const IxExpr *e = m ? lyt_emit_fwd(L->ix, m, &crd, 1, &err) : NULL;
  if (!e) {
    m2l_internal(L, "a voxel offset from the image layout");
    return NULL;
  }
  return ix_simplify(L->ix, e);
}

/* The per-axis contributions P[a][t] and their suffix sums
 * P[a][t_a] + ... + P[d-1][t_{d-1}], memoized. */
typedef struct OffTab {
  IxEmit *E;
  int d, w;
  Off P[3][2 * KERNEL_MAX_SUPPORT];
  bool have[3][216];
  Off sum[3][216];
} OffTab;

static Off tap_sum(OffTab *T, const int *taps, int a) {
  if (a == T->d - 1)
    return T->P[a][taps[a]];
  int code = 0;
  for (int i = a; i < T->d; i++)
    code = code * T->w + taps[i];
  if (!T->have[a][code]) {
    T->sum[a][code] = off_add(T->E->L, tap_sum(T, taps, a + 1), T->P[a][taps[a]]);
    T->have[a][code] = true;
  }
  return T->sum[a][code];
}

/* ---- voxel neighbourhoods ------------------------------------------------------------ */

/* A copy of E whose memo starts as E's: code emitted through it (in one
 * branch) is not reused by the other branch, which it does not dominate. */
static IxEmit ix_fork(const IxEmit *E) {
  IxEmit F = *E;
  if (E->cap) {
    F.key = ARENA_NEW_ARRAY(E->L->a, const IxExpr *, E->cap);
    F.val = ARENA_NEW_ARRAY(E->L->a, IrVar *, E->cap);
    memcpy(F.key, E->key, (size_t)E->cap * sizeof *F.key);
    memcpy(F.val, E->val, (size_t)E->cap * sizeof *F.val);
  }
  return F;
}

/* Mode 1 + a of the layout at tap coordinate x: a 1-D coordinate, or with
 * a brick index b (haloed bricks) the natural coordinate (x, b), x being
 * the tap's place in brick b, which may lie in the halo (x < 0 or x >= B). */
static const IxExpr *tap_map(M2L *L, const Layout *lay, int a, const IxExpr *x, const IxExpr *b) {
  if (!b)
    return mode_map(L, lay, 1 + a, x);
  LytError err;
  const Layout *m = lyt_mode(lay, 1 + a);
  const IxExpr *crd[2] = {x, b};
  const IxExpr *e = m ? lyt_emit_fwd(L->ix, m, crd, 2, &err) : NULL;
  if (!e) {
    m2l_internal(L, "a voxel offset in a haloed brick");
    return NULL;
  }
  return ix_simplify(L->ix, e);
}

/* The sample loads of one neighbourhood at L->cur: X[a][t] is the
 * coordinate of tap t on axis a (in brick bidx[a] when bidx is given),
 * pv[a][0..npv[a]) the variables of the probe position (an axis whose taps
 * differ from tap s-1 by terms free of them is addressed as one base plus
 * constant tap offsets); origin is added to every offset
 * (lyt_image_origin). Returns the rows of the result (NULL on failure). */
static IrVar **neighbourhood(IxEmit *E, const Layout *lay, const IrInstr *in, IrVar *img, int d,
                             int s, bool vload_taps, const IxExpr *X[3][2 * KERNEL_MAX_SUPPORT],
                             const IxExpr *const *bidx, int64_t origin, int pv[3][2],
                             const int *npv) {
  M2L *L = E->L;
  IxCtx *ix = L->ix;
  int w = 2 * s;
  const IrType *it = in->args[0]->ty;
  /* Offsets. The layout's forward map is the sum of its modes' maps, so
   * each axis contributes separately: P_a(t) = mode a's map at tap t or
   * its difference from tap s-1 (when that leaves only strides). Sums are
   * formed slowest axis first and memoized by suffix, so the taps of one
   * row share all but the last add, and two neighbourhoods at the same
   * position produce the same code. */
  OffTab *T = ARENA_NEW_ARRAY(L->a, OffTab, 1);
  T->E = E;
  T->d = d;
  T->w = w;
  Off base = {NULL, origin};
  for (int a = 0; a < d; a++) {
    const IxExpr *ba = bidx ? bidx[a] : NULL;
    const IxExpr *at0 = tap_map(L, lay, a, X[a][s - 1], ba);
    if (!at0)
      return NULL;
    bool rel = npv[a] > 0;
    for (int t = 0; t < w && rel; t++) {
      const IxExpr *m = tap_map(L, lay, a, X[a][t], ba);
      if (!m)
        return NULL;
      rel = !ix_depends(ix_simplify(ix, ix_sub(ix, m, at0)), pv[a], npv[a]);
    }
    for (int t = 0; t < w; t++) {
      const IxExpr *m = tap_map(L, lay, a, X[a][t], ba);
      T->P[a][t] = off_of(E, rel ? ix_simplify(ix, ix_sub(ix, m, at0)) : m);
    }
    if (rel)
      base = off_add(L, base, off_of(E, at0));
  }

  /* The result: taps of every axis, then the voxel shape; rows over all
   * but the last index. Lanes are components (contiguous in a voxel), or
   * the taps of the last axis. */
  const IrType *ty = in->dst->ty;
  int R = ty->order, width = ty->dims[R - 1], nrows = 1;
  for (int i = 0; i + 1 < R; i++)
    nrows *= ty->dims[i];
  bool lanes_are_comps = it->order > 0;
  bool vload = lanes_are_comps ? mode_contiguous(lay, 0, 1) : vload_taps;
  IrVar **rows = ARENA_NEW_ARRAY(L->a, IrVar *, nrows);
  IrVar **lanes = ARENA_NEW_ARRAY(L->a, IrVar *, width);
  for (int r = 0; r < nrows && !L->failed; r++) {
    int idx[IR_MAX_ORDER];
    for (int i = R - 2, q = r; i >= 0; i--) {
      idx[i] = q % ty->dims[i];
      q /= ty->dims[i];
    }
    for (int l = 0; l < (vload ? 1 : width); l++) {
      idx[R - 1] = l;
      int comp = 0;
      for (int i = d; i < R; i++)
        comp = comp * ty->dims[i] + idx[i];
      const IxExpr *cm = mode_map(L, lay, 0, ix_const(ix, comp));
      if (!cm)
        return NULL;
      Off o = off_add(L, off_add(L, base, tap_sum(T, idx, 0)), off_of(E, cm));
      IrVar *off = off_var(L, o);
      IrVar *args[2] = {img, off};
      if (vload)
        rows[r] = m2l_op(L, IR_LOP_VLOAD, 2, args, 1, &width);
      else
        lanes[l] = m2l_op(L, IR_LOP_LOAD, 2, args, 0, NULL);
    }
    if (!vload)
      rows[r] = m2l_vcons(L, width, lanes);
  }
  return L->failed ? NULL : rows;
}

/* The tap coordinates of the general path at L->cur: position + tap
 * offset without border control (pv: the position variable), else the
 * border map of each tap index (in range 0 <= j < N_a afterwards). */
static void tap_coords(IxEmit *E, int d, int s, int border, IrVar *const *na, IrVar *const *N,
                       const IxExpr *const *Nx, const IxExpr *const *nx,
                       const IxExpr *X[3][2 * KERNEL_MAX_SUPPORT], int pv[3][2], int *npv) {
  M2L *L = E->L;
  IxCtx *ix = L->ix;
  static const int maps[] = {[IR_BORDER_CLAMP] = IR_LOP_CLAMP_INDEX,
                             [IR_BORDER_MIRROR] = IR_LOP_MIRROR_INDEX,
                             [IR_BORDER_WRAP] = IR_LOP_WRAP_INDEX};
  for (int a = 0; a < d; a++) {
    npv[a] = 0;
    if (border == IR_BORDER_NONE) {
      pv[a][npv[a]++] = (int)nx[a]->k;
      for (int t = 0; t < 2 * s; t++)
        X[a][t] = ix_addk(ix, nx[a], 1 - s + t);
      continue;
    }
    for (int t = 0; t < 2 * s; t++) {
      IrVar *raw = m2l_op2(L, IR_OP_IADD, na[a], m2l_int(L, 1 - s + t));
      IrVar *j = m2l_op2(L, maps[border], raw, N[a]);
      const char *name = arena_printf(L->a, "j%d_%d", a, t);
      X[a][t] = Nx[a]->op == IX_CONST ? ix_var(ix, name, 0, Nx[a]->k - 1)
                                      : ix_var_full(ix, name, 0, IX_INF, Nx[a], 1);
      ix_bind(E, X[a][t], j);
    }
  }
}

/* The name of a probed image for run-time messages: the global it was
 * read from, else the variable's hint. */
static const char *image_name(const IrVar *mimg) {
  if (mimg->def && mimg->def->kind == IR_I_GLOBAL_GET && mimg->def->global)
    return mimg->def->global->name;
  return mimg->name ? mimg->name : "image";
}

/* The world-space position a probe's base index came from (high_to_mid
 * emits n = real_to_int(tfloor(world_to_index(img, x)))), or NULL. */
static const IrVar *probe_world_pos(const IrVar *n) {
  static const int chain[] = {IR_MOP_REAL_TO_INT, IR_MOP_TFLOOR, IR_MOP_WORLD_TO_INDEX};
  for (int i = 0; i < 3; i++) {
    if (!n || !n->def || n->def->kind != IR_I_OP || n->def->op != chain[i])
      return NULL;
    n = n->def->args[i == 2 ? 1 : 0];
  }
  return n;
}

/* Without border control every tap index n_a + k (k = 1-s..s) must lie in
 * 0..N_a-1, i.e. s-1 <= n_a <= N_a-1-s on every axis (§8.5); otherwise the
 * probe is a run-time error (never a read outside the image). The check
 * branches from L->cur to a cold block that records the error and leaves
 * the unit (IR_T_ERROR); L->cur becomes the in-range continuation. n_a is
 * well defined for NaN and huge positions (floor_to_int saturates). */
static void probe_check(M2L *L, const IrInstr *in, IrVar *img, IrVar *const *na, IrVar *const *N,
                        int d, int s) {
  IrVar *ok = NULL;
  for (int a = 0; a < d; a++) {
    IrVar *c = m2l_op2(L, IR_OP_AND, m2l_op2(L, IR_OP_GE, na[a], m2l_int(L, s - 1)),
                       m2l_op2(L, IR_OP_LE, na[a], m2l_op2(L, IR_OP_ISUB, N[a], m2l_int(L, s + 1))));
    ok = ok ? m2l_op2(L, IR_OP_AND, ok, c) : c;
  }
  /* The position for the message, taken before the branch. */
  const IrVar *mpos = probe_world_pos(in->args[1]);
  M2lVal *pv = mpos ? m2l_get(L, mpos) : NULL;
  IrVar *pos[3] = {NULL, NULL, NULL};
  for (int a = 0; a < d && pv; a++)
    pos[a] = d == 1 ? pv->whole : m2l_component(L, pv, a);
  if (L->failed || !ok)
    return;
  IrBlock *cur = L->cur;
  IrBlock *cont = ir_block_split(cur, cur->ninstrs, "probe_ok");
  IrBlock *fail = ir_block_new(L->lcfg, "probe_outside");
  ir_block_set_branch(cur, ok, cont, fail);
  L->cur = fail;
  IrVar *args[2 + 2 * 3];
  int nargs = 0;
  args[nargs++] = ir_emit_string(fail, image_name(in->args[0]));
  args[nargs++] = img;
  for (int a = 0; a < d; a++)
    args[nargs++] = na[a];
  for (int a = 0; a < d && pos[a]; a++)
    args[nargs++] = pos[a];
  int line = in->line;
  for (int i = 0; i < nargs; i++)
    if (!args[i])
      return; /* an earlier failure */
  if (!ir_emit_effect(fail, IR_LOP_PROBE_FAIL, nargs, args, 1, &line)) {
    m2l_internal(L, "LowIR operator 'probe_fail' on these operands");
    return;
  }
  ir_block_set_exit(fail, IR_T_ERROR);
  L->cur = cont;
}

/* The result of a probe's two paths: a phi per row at join. */
static M2lVal *join_rows(M2L *L, const IrInstr *in, IrBlock *join, IrBlock *fast, IrVar **rf,
                         IrBlock *slow, IrVar **rs) {
  if (!rf || !rs)
    return NULL;
  const IrType *ty = in->dst->ty;
  int nrows = 1;
  for (int i = 0; i + 1 < ty->order; i++)
    nrows *= ty->dims[i];
  IrVar **rows = ARENA_NEW_ARRAY(L->a, IrVar *, nrows);
  for (int r = 0; r < nrows; r++) {
    rows[r] = ir_phi_new(join, "vox", rf[r]->ty);
    ir_phi_set(rows[r]->def, fast, rf[r]);
    ir_phi_set(rows[r]->def, slow, rs[r]);
  }
  return m2l_tensor(L, ty, rows);
}

/* The probe's image, sizes and position (m2l_load_voxels) for the paths. */
typedef struct Probe {
  const IrInstr *in;
  const Layout *lay;
  IrVar *img;
  int d, s, ncomp, border;
  IrVar **na, **N;
  const IxExpr **Nx, **nx;
} Probe;

/* The two paths of a probe whose neighbourhood may lie in one brick: on
 * cond the one-brick loads (taps Xf, in bricks bf for a halo, else NULL),
 * otherwise the general path's (tap_coords: each tap index mapped into the
 * image first; vload_taps as m2l_load_voxels decides), joined by a phi per
 * row. The blocks are KIND_fast and KIND_general (emit_c_layout.c counts
 * the fast path's loads by that label). */
static M2lVal *two_paths(M2L *L, IxEmit *E, const Probe *P, IrVar *cond, const char *kind,
                         const IxExpr *Xf[3][2 * KERNEL_MAX_SUPPORT], const IxExpr *const *bf,
                         int pvf[3][2], const int *npvf, bool vload_taps, int64_t origin) {
  IrBlock *cur = L->cur;
  IrBlock *join = ir_block_split(cur, cur->ninstrs, "voxels");
  IrBlock *fast = ir_block_new(L->lcfg, arena_printf(L->a, "%s_fast", kind));
  IrBlock *slow = ir_block_new(L->lcfg, arena_printf(L->a, "%s_general", kind));
  ir_block_set_branch(cur, cond, fast, slow);
  ir_block_set_jump(fast, join);
  ir_block_set_jump(slow, join);
  IxEmit Ef = ix_fork(E), Es = ix_fork(E);
  L->cur = fast;
  IrVar **rf = neighbourhood(&Ef, P->lay, P->in, P->img, P->d, P->s, false, Xf, bf, origin, pvf, npvf);
  L->cur = slow;
  const IxExpr *X[3][2 * KERNEL_MAX_SUPPORT];
  int pv[3][2], npv[3];
  tap_coords(&Es, P->d, P->s, P->border, P->na, P->N, P->Nx, P->nx, X, pv, npv);
  IrVar **rs = neighbourhood(&Es, P->lay, P->in, P->img, P->d, P->s, vload_taps, X, NULL, origin, pv,
                             npv);
  L->cur = join;
  return join_rows(L, P->in, join, fast, rf, slow, rs);
}

/* Haloed bricks (doc/layouts.md §4.2): with n_a = B·b_a + q_a, tap k of
 * axis a (k = 1-s..s) is at place q_a + k of brick b_a, in its interior or
 * its halo (H - 1 below, H above, H >= s). Without border control every
 * probe reads so (the check keeps its taps in the image): one base per
 * probe, constant tap offsets, no branch. With border control the halo
 * holds the image's values, clamped beyond its edges: the one-brick path
 * serves the probes whose taps all lie in the image (s-1 <= n_a <= N_a-1-s)
 * and, for clamp, every probe whose position does (0 <= n_a <= N_a-1);
 * the others map each tap index into the image first (tap_coords) and read
 * it from its brick's interior. */
static M2lVal *haloed(M2L *L, IxEmit *E, const Probe *P) {
  IxCtx *ix = L->ix;
  int d = P->d, s = P->s, B = L->opts->brick, w = 2 * s;
  const IxExpr *Xf[3][2 * KERNEL_MAX_SUPPORT], *bf[3];
  int pvf[3][2], npvf[3];
  IrVar *cond = NULL;
  bool checked = P->border == IR_BORDER_NONE && !L->opts->no_probe_checks;
  for (int a = 0; a < d; a++) {
    /* after the probe check n_a >= s-1: no sign fix-ups in the division */
    const IxExpr *n = P->nx[a];
    if (checked) {
      n = ix_var(ix, arena_printf(L->a, "nh%d", a), s - 1, IX_INF);
      ix_bind(E, n, P->na[a]);
    }
    IrVar *q = ix_emit(E, ix_modk(ix, n, B)), *b = ix_emit(E, ix_divk(ix, n, B));
    const IxExpr *qv = ix_var(ix, arena_printf(L->a, "q%d", a), 0, B - 1);
    const IxExpr *bv = ix_var(ix, arena_printf(L->a, "b%d", a), checked ? 0 : IX_NINF, IX_INF);
    ix_bind(E, qv, q);
    ix_bind(E, bv, b);
    pvf[a][0] = (int)qv->k;
    pvf[a][1] = (int)bv->k;
    npvf[a] = 2;
    for (int t = 0; t < w; t++)
      Xf[a][t] = ix_addk(ix, qv, 1 - s + t);
    bf[a] = bv;
    if (P->border == IR_BORDER_NONE)
      continue;
    int lo = P->border == IR_BORDER_CLAMP ? 0 : s - 1, hi = P->border == IR_BORDER_CLAMP ? 1 : s + 1;
    IrVar *c = m2l_op2(L, IR_OP_AND, m2l_op2(L, IR_OP_GE, P->na[a], m2l_int(L, lo)),
                       m2l_op2(L, IR_OP_LE, P->na[a], m2l_op2(L, IR_OP_ISUB, P->N[a], m2l_int(L, hi))));
    cond = cond ? m2l_op2(L, IR_OP_AND, cond, c) : c;
  }
  if (L->failed)
    return NULL;
  int64_t origin = lyt_image_origin(d, P->ncomp, B, L->halo);
  if (P->border == IR_BORDER_NONE) {
    IrVar **rows = neighbourhood(E, P->lay, P->in, P->img, d, s, false, Xf, bf, origin, pvf, npvf);
    return rows ? m2l_tensor(L, P->in->dst->ty, rows) : NULL;
  }
  return two_paths(L, E, P, cond, "halo", Xf, bf, pvf, npvf, false, origin);
}

M2lVal *m2l_load_voxels(M2L *L, const IrInstr *in) {
  const IrVar *mimg = in->args[0];
  const IrType *it = mimg->ty;
  int d = it->dim, s = in->imm[0], w = 2 * s, border = in->imm[1];
  M2lVal *iv = m2l_get(L, mimg), *nv = m2l_get(L, in->args[1]);
  if (!iv || !nv)
    return NULL;
  if (d < 1 || d > 3) {
    m2l_fail(L, "an image of dimension > 3");
    return NULL;
  }
  IrVar *img = iv->whole;
  int ncomp = 1;
  for (int i = 0; i < it->order; i++)
    ncomp *= it->dims[i];

  IxCtx *ix = L->ix;
  IxEmit E;
  memset(&E, 0, sizeof E);
  E.L = L;

  /* Sizes: run-time shape parameters of the layout (any image size). */
  IrVar *N[3];
  const IxExpr *Nx[3];
  for (int a = 0; a < d; a++) {
    N[a] = m2l_image_size(L, mimg, a);
    Nx[a] = ix_var(ix, arena_printf(L->a, "N%d", a), 1, IX_INF);
    ix_bind(&E, Nx[a], N[a]);
  }
  int B = L->opts->brick;
  const Layout *lay = lyt_image_layout(ix, d, ncomp, Nx, B, L->halo);

  /* The probe position n (the index of tap s-1) per axis. */
  IrVar *na[3];
  const IxExpr *nx[3];
  for (int a = 0; a < d; a++) {
    na[a] = d == 1                 ? nv->whole
            : nv->kind == M2L_INTS ? nv->parts[a]
                                   : m2l_op2(L, IR_OP_SEQ_INDEX, nv->whole, m2l_int(L, a));
    nx[a] = ix_var(ix, arena_printf(L->a, "n%d", a), IX_NINF, IX_INF);
    ix_bind(&E, nx[a], na[a]);
  }
  if (border == IR_BORDER_NONE && !L->opts->no_probe_checks) {
    probe_check(L, in, img, na, N, d, s);
    if (L->failed)
      return NULL;
  }
  Probe P = {in, lay, img, d, s, ncomp, border, na, N, Nx, nx};
  if (B > 1 && L->halo >= s)
    return haloed(L, &E, &P);
  bool vload_taps = d == 1 && border == IR_BORDER_NONE && mode_contiguous(lay, 1, ncomp);
  const IxExpr *X[3][2 * KERNEL_MAX_SUPPORT];
  int pv[3][2], npv[3];

  /* Bricks (doc/layouts.md §4.2): a fast path when the whole support lies
   * in one brick on every axis and inside the image: the taps are n_a + k,
   * k = 1-s..s, so q_a = n_a mod B must lie in [s-1, B-1-s], and with border control
   * s-1 <= n_a <= N_a - 1 - s (every tap in 0..N_a-1, where the border
   * maps are the identity). With
   * n_a = B·b_a + q_a and that range of q_a declared, the simplifier proves
   * (n_a + k) mod B = q_a + k and (n_a + k) div B = b_a: every tap is the
   * base plus a constant. The general path handles the neighbourhoods that
   * straddle bricks (and, with border control, cross the image border). */
  if (B > 1 && B >= 2 * s) {
    const IxExpr *Xf[3][2 * KERNEL_MAX_SUPPORT];
    int pvf[3][2], npvf[3];
    IrVar *cond = NULL;
    for (int a = 0; a < d; a++) {
      IrVar *q = ix_emit(&E, ix_modk(ix, nx[a], B)), *b = ix_emit(&E, ix_divk(ix, nx[a], B));
      IrVar *c = m2l_op2(L, IR_OP_AND, m2l_op2(L, IR_OP_GE, q, m2l_int(L, s - 1)),
                         m2l_op2(L, IR_OP_LE, q, m2l_int(L, B - 1 - s)));
      if (border != IR_BORDER_NONE)
        c = m2l_op2(L, IR_OP_AND, c,
                    m2l_op2(L, IR_OP_AND, m2l_op2(L, IR_OP_GE, na[a], m2l_int(L, s - 1)),
                            m2l_op2(L, IR_OP_LE, na[a],
                                    m2l_op2(L, IR_OP_ISUB, N[a], m2l_int(L, s + 1)))));
      cond = cond ? m2l_op2(L, IR_OP_AND, cond, c) : c;
      const IxExpr *qv = ix_var(ix, arena_printf(L->a, "q%d", a), s - 1, B - 1 - s);
      const IxExpr *bv = ix_var(ix, arena_printf(L->a, "b%d", a),
                                border == IR_BORDER_NONE ? IX_NINF : 0, IX_INF);
      ix_bind(&E, qv, q);
      ix_bind(&E, bv, b);
      pvf[a][0] = (int)qv->k;
      pvf[a][1] = (int)bv->k;
      npvf[a] = 2;
      for (int t = 0; t < w; t++)
        Xf[a][t] = ix_add(ix, ix_mulk(ix, bv, B), ix_addk(ix, qv, 1 - s + t));
    }
    if (L->failed || !cond)
      return NULL;
    return two_paths(L, &E, &P, cond, "brick", Xf, NULL, pvf, npvf, vload_taps, 0);
  }
  tap_coords(&E, d, s, border, na, N, Nx, nx, X, pv, npv);
  IrVar **rows = neighbourhood(&E, lay, in, img, d, s, vload_taps, X, NULL, 0, pv, npv);
  return rows ? m2l_tensor(L, in->dst->ty, rows) : NULL;
}
