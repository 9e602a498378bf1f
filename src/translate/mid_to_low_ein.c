/* mid_to_low_ein.c -- expansion of EIN operators over tensors into LowIR
 * scalar and vector code (seed paper 004, §5.6).
 *
 * The result's innermost index (the "lane" variable) maps onto the lanes of
 * a vec<w>; every outer index is unrolled, one row at a time. The body is
 * evaluated by a recursive generator in an environment that gives each
 * outer and Σ-bound index a constant; a subexpression's value is a scalar
 * or a vector over the lanes, either known at compile time or held in a
 * LowIR variable. Constants are folded as the code is generated, so δ, ε
 * and terms that are zero after unrolling produce no code.
 *
 * Vector mode is used when the lane variable occurs only as the last index
 * of tensor accesses (contiguous rows: matrix-matrix, outer products,
 * scaling, normalize); otherwise each lane is computed as a scalar and the
 * row is assembled with vcons (transposes, matrix-vector, cross products,
 * where a gather or one-hot constants would cost more). A Σ whose summed
 * index is the last index of one or two tensor accesses becomes vsum or
 * vdot of (a slice of) their rows.
 *
 * Σ over lanes: a scalar built from nested sums and products, such as a
 * convolution Σ_i a[i] Σ_j b[j] Σ_k V[k,j,i] c[k], is computed with the
 * lanes on one summed index (here k): the rest of the expression is
 * evaluated once in vector mode (V's rows scaled and added: vertical
 * arithmetic), the factors that depend on k alone (c[k]) are taken out,
 * and one vdot (or vsum) ends it -- one horizontal reduction per result
 * instead of one per row. The index is chosen where rows are contiguous:
 * the unit-stride axis of a voxel neighbourhood (M2lVal.lanes0) first,
 * then the last index of the tensors it reads.
 */
#include <math.h>
#include <string.h>

#include "translate/mid_to_low_impl.h"

enum { LANE = -2, UNSET = -1, NVARS = EIN_VAR_LIMIT + 1 };

typedef enum { EV_K, EV_KV, EV_S, EV_V } EvKind;

/* A value under construction: K a known scalar, KV known lanes, S a real
 * variable, V a vec<W> variable. A negation of S or V is kept pending
 * (neg) so that it folds into a subtraction or a product's sign. */
typedef struct Ev {
  EvKind kind;
  double k;
  const double *kv;
  IrVar *v;
  bool neg;
} Ev;

typedef struct Gen {
  M2L *L;
  const EinOp *op;
  M2lVal **args;
  int env[NVARS]; /* value of each index variable, UNSET when unbound */
  int lane;       /* the lane variable in vector mode, else -1 */
  int W;          /* lanes in vector mode */
  /* Σ over lanes (try_lane_sum): the binder that the lanes replace, the
   * body of its Σ node, and the factors of that body taken out (a bit per
   * factor of a product; `whole`: the body itself). */
  const EinExpr *lsum, *lbody;
  int lbind;
  uint64_t lpulled;
  bool lwhole;
  /* try_lane_sum's decisions, by Σ node (hash-consed: the same node is
   * the same expression wherever it occurs) */
  const EinExpr **memo_e;
  signed char *memo_ok;
  int nmemo, capmemo;
} Gen;

/* ---- values ------------------------------------------------------------------- */

static Ev ev_k(double k) { return (Ev){EV_K, k, NULL, NULL, false}; }
static Ev ev_v(IrVar *v) { return (Ev){EV_V, 0, NULL, v, false}; }

static Ev ev_s(IrVar *v) {
  double k;
  if (m2l_real_lit(v, &k))
    return ev_k(k);
  return (Ev){EV_S, 0, NULL, v, false};
}

/* Known lanes; equal lanes are a known scalar. */
static Ev ev_kv(const Gen *g, const double *lanes) {
  for (int l = 1; l < g->W; l++)
    if (lanes[l] != lanes[0])
      return (Ev){EV_KV, 0, lanes, NULL, false};
  return ev_k(lanes[0]);
}

static bool ev_known(Ev e) { return e.kind == EV_K || e.kind == EV_KV; }
static bool ev_vector(Ev e) { return e.kind == EV_V || e.kind == EV_KV; }
static bool ev_is(Ev e, double k) { return e.kind == EV_K && e.k == k; }
static double ev_lane(Ev e, int l) { return e.kind == EV_K ? e.k : e.kv[l]; }

static IrVar *ev_scalar(Gen *g, Ev e) {
  switch (e.kind) {
  case EV_K: return m2l_real(g->L, e.k);
  case EV_S: return e.neg ? m2l_op1(g->L, IR_LOP_RNEG, e.v) : e.v;
  default: m2l_internal(g->L, "a vector where a scalar is needed in an EIN body"); return NULL;
  }
}

static IrVar *ev_vec(Gen *g, Ev e) {
  M2L *L = g->L;
  switch (e.kind) {
  case EV_K: return m2l_splat(L, m2l_real(L, e.k), g->W);
  case EV_S: return m2l_splat(L, ev_scalar(g, e), g->W);
  case EV_V: return e.neg ? m2l_op1(L, IR_LOP_VNEG, e.v) : e.v;
  case EV_KV: {
    IrVar **xs = ARENA_NEW_ARRAY(L->a, IrVar *, g->W);
    for (int l = 0; l < g->W; l++)
      xs[l] = m2l_real(L, e.kv[l]);
    return m2l_vcons(L, g->W, xs);
  }
  }
  return NULL;
}

/* ---- arithmetic with folding ----------------------------------------------------- */

typedef enum { B_ADD, B_SUB, B_MUL, B_DIV } Bin;

static double fold_bin(Bin o, double a, double b) {
  switch (o) {
  case B_ADD: return a + b;
  case B_SUB: return a - b;
  case B_MUL: return a * b;
  case B_DIV: return a / b;
  }
  return 0;
}

static Ev ev_neg(Gen *g, Ev a) {
  switch (a.kind) {
  case EV_K: return ev_k(-a.k);
  case EV_KV: {
    double *kv = ARENA_NEW_ARRAY(g->L->a, double, g->W);
    for (int l = 0; l < g->W; l++)
      kv[l] = -a.kv[l];
    return ev_kv(g, kv);
  }
  case EV_S:
  case EV_V: a.neg = !a.neg; return a;
  }
  return a;
}

/* The variable of an S or V without its pending sign. */
static Ev ev_abs(Ev e) {
  e.neg = false;
  return e;
}

static Ev ev_negate_if(Gen *g, Ev e, bool neg) { return neg ? ev_neg(g, e) : e; }

static Ev ev_bin(Gen *g, Bin o, Ev a, Ev b) {
  M2L *L = g->L;
  if (ev_known(a) && ev_known(b)) {
    if (a.kind == EV_K && b.kind == EV_K)
      return ev_k(fold_bin(o, a.k, b.k));
    double *kv = ARENA_NEW_ARRAY(L->a, double, g->W);
    for (int l = 0; l < g->W; l++)
      kv[l] = fold_bin(o, ev_lane(a, l), ev_lane(b, l));
    return ev_kv(g, kv);
  }
  /* Identities (x·0 = 0 as the normalizer assumes: values are finite). */
  switch (o) {
  case B_ADD:
    if (ev_is(a, 0))
      return b;
    if (ev_is(b, 0))
      return a;
    break;
  case B_SUB:
    if (ev_is(b, 0))
      return a;
    if (ev_is(a, 0))
      return ev_neg(g, b);
    break;
  case B_MUL:
    if (ev_is(a, 0) || ev_is(b, 0))
      return ev_k(0);
    if (ev_is(a, 1))
      return b;
    if (ev_is(b, 1))
      return a;
    if (ev_is(a, -1))
      return ev_neg(g, b);
    if (ev_is(b, -1))
      return ev_neg(g, a);
    break;
  case B_DIV:
    if (ev_is(b, 1))
      return a;
    break;
  }
  /* Pending signs: −a·b = −(a·b); a + −b = a − b; −a − b = −(a + b); ... */
  bool na = a.neg, nb = b.neg, neg = false;
  a = ev_abs(a);
  b = ev_abs(b);
  if (o == B_MUL || o == B_DIV) {
    neg = na != nb;
  } else {
    if (o == B_SUB)
      nb = !nb;
    if (na && nb) { /* −(a + b) */
      neg = true;
      o = B_ADD;
    } else if (na) { /* b − a */
      Ev t = a;
      a = b;
      b = t;
      o = B_SUB;
    } else {
      o = nb ? B_SUB : B_ADD;
    }
  }
  Ev r;
  bool vec = ev_vector(a) || ev_vector(b);
  if (!vec) {
    static const int sop[] = {IR_LOP_RADD, IR_LOP_RSUB, IR_LOP_RMUL, IR_LOP_RDIV};
    r = ev_s(m2l_op2(L, sop[o], ev_scalar(g, a), ev_scalar(g, b)));
  } else if (o == B_MUL && !ev_vector(a)) {
    r = ev_v(m2l_op2(L, IR_LOP_VSCALE, ev_scalar(g, a), ev_vec(g, b)));
  } else if (o == B_MUL && !ev_vector(b)) {
    r = ev_v(m2l_op2(L, IR_LOP_VSCALE, ev_scalar(g, b), ev_vec(g, a)));
  } else {
    static const int vop[] = {IR_LOP_VADD, IR_LOP_VSUB, IR_LOP_VMUL, IR_LOP_VDIV};
    r = ev_v(m2l_op2(L, vop[o], ev_vec(g, a), ev_vec(g, b)));
  }
  return ev_negate_if(g, r, neg);
}

/* ---- functions ----------------------------------------------------------------------- */

static double fold_fun(EinFun f, double x) {
  switch (f) {
  case EIN_FUN_SQRT: return sqrt(x);
  case EIN_FUN_EXP: return exp(x);
  case EIN_FUN_LOG: return log(x);
  case EIN_FUN_SIN: return sin(x);
  case EIN_FUN_COS: return cos(x);
  case EIN_FUN_TAN: return tan(x);
  case EIN_FUN_ASIN: return asin(x);
  case EIN_FUN_ACOS: return acos(x);
  case EIN_FUN_ATAN: return atan(x);
  case EIN_FUN_ABS: return fabs(x);
  case EIN_FUN_SIGN: return x > 0 ? 1 : (x < 0 ? -1 : 0);
  case EIN_FUN_COUNT: break;
  }
  return x;
}

static IrVar *scalar_fun(Gen *g, EinFun f, IrVar *x) {
  M2L *L = g->L;
  static const int ops[] = {
      [EIN_FUN_SQRT] = IR_OP_SQRT, [EIN_FUN_EXP] = IR_OP_EXP,   [EIN_FUN_LOG] = IR_OP_LOG,
      [EIN_FUN_SIN] = IR_OP_SIN,   [EIN_FUN_COS] = IR_OP_COS,   [EIN_FUN_TAN] = IR_OP_TAN,
      [EIN_FUN_ASIN] = IR_OP_ASIN, [EIN_FUN_ACOS] = IR_OP_ACOS, [EIN_FUN_ATAN] = IR_OP_ATAN};
  IrVar *zero = m2l_real(L, 0);
  IrVar *sel[3];
  switch (f) {
  case EIN_FUN_ABS: /* |x| = x < 0 ? −x : x */
    sel[0] = m2l_op2(L, IR_OP_LT, x, zero);
    sel[1] = m2l_op1(L, IR_LOP_RNEG, x);
    sel[2] = x;
    return m2l_op(L, IR_OP_SELECT, 3, sel, 0, NULL);
  case EIN_FUN_SIGN: { /* x > 0 ? 1 : (x < 0 ? −1 : 0) */
    IrVar *neg[3] = {m2l_op2(L, IR_OP_LT, x, zero), m2l_real(L, -1), zero};
    sel[0] = m2l_op2(L, IR_OP_GT, x, zero);
    sel[1] = m2l_real(L, 1);
    sel[2] = m2l_op(L, IR_OP_SELECT, 3, neg, 0, NULL);
    return m2l_op(L, IR_OP_SELECT, 3, sel, 0, NULL);
  }
  case EIN_FUN_COUNT: break;
  default: return m2l_op1(L, ops[f], x);
  }
  m2l_internal(L, "an unknown EIN function");
  return NULL;
}

static Ev ev_fun(Gen *g, EinFun f, Ev a) {
  M2L *L = g->L;
  switch (a.kind) {
  case EV_K: return ev_k(fold_fun(f, a.k));
  case EV_KV: {
    double *kv = ARENA_NEW_ARRAY(L->a, double, g->W);
    for (int l = 0; l < g->W; l++)
      kv[l] = fold_fun(f, a.kv[l]);
    return ev_kv(g, kv);
  }
  case EV_S: return ev_s(scalar_fun(g, f, ev_scalar(g, a)));
  case EV_V: { /* no vector math functions: lane by lane */
    IrVar **xs = ARENA_NEW_ARRAY(L->a, IrVar *, g->W), *v = ev_vec(g, a);
    for (int l = 0; l < g->W; l++)
      xs[l] = scalar_fun(g, f, m2l_vindex(L, v, l));
    return ev_v(m2l_vcons(L, g->W, xs));
  }
  }
  return a;
}

/* e^p by repeated squaring; negative powers divide. */
static Ev ev_pow(Gen *g, Ev a, int p) {
  if (p == 0)
    return ev_k(1);
  if (p < 0)
    return ev_bin(g, B_DIV, ev_k(1), ev_pow(g, a, p == INT32_MIN ? INT32_MAX : -p));
  Ev r = ev_k(1), base = a;
  while (p) {
    if (p & 1)
      r = ev_bin(g, B_MUL, r, base);
    p >>= 1;
    if (p)
      base = ev_bin(g, B_MUL, base, base);
  }
  return r;
}

/* ---- indices ------------------------------------------------------------------------ */

/* The value of an index: a constant, an environment entry, or LANE. */
static int idx_val(Gen *g, EinIdx x) {
  if (!ein_idx_is_var(x))
    return ein_idx_val(x);
  int v = ein_idx_val(x);
  if (v == g->lane)
    return LANE;
  if (v >= NVARS || g->env[v] == UNSET) {
    m2l_internal(g->L, "an unbound index variable in an EIN body");
    return 0;
  }
  return g->env[v];
}

/* ε with the given index values (−1, 0 or 1). */
static int eps_sign(int n, const int *v) {
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (v[i] == v[j])
        return 0;
  if (n == 2)
    return v[0] < v[1] ? 1 : -1;
  int inv = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      inv += v[i] > v[j];
  return inv % 2 ? -1 : 1;
}

/* δ or ε: known per lane. */
static Ev gen_delta_eps(Gen *g, const EinExpr *e) {
  int v[3], lanes = 0;
  for (int i = 0; i < e->nidx && i < 3; i++)
    lanes += (v[i] = idx_val(g, e->idx[i])) == LANE;
  int n = e->nidx < 3 ? e->nidx : 3;
  if (!lanes)
    return ev_k(e->tag == EIN_DELTA ? v[0] == v[1] : eps_sign(n, v));
  double *kv = ARENA_NEW_ARRAY(g->L->a, double, g->W);
  for (int l = 0; l < g->W; l++) {
    int w[3];
    for (int i = 0; i < n; i++)
      w[i] = v[i] == LANE ? l : v[i];
    kv[l] = e->tag == EIN_DELTA ? w[0] == w[1] : eps_sign(n, w);
  }
  return ev_kv(g, kv);
}

/* The tensor argument of an access, and its index values with the axes of
 * extent 1 (absent from the type) left out; returns the order or -1. */
static int access(Gen *g, const EinExpr *e, const M2lVal **arg, int *vals) {
  const EinOp *op = g->op;
  if (e->param < 0 || e->param >= op->nparams || op->params[e->param].kind != EIN_PARAM_TENSOR ||
      e->nidx != op->params[e->param].rank) {
    m2l_fail(g->L, "an EIN access to a non-tensor parameter below HighIR");
    return -1;
  }
  const EinParam *p = &op->params[e->param];
  *arg = g->args[e->param];
  int n = 0;
  for (int k = 0; k < e->nidx; k++)
    if (p->shape[k] != 1)
      vals[n++] = idx_val(g, e->idx[k]);
  const IrType *t = *arg ? (*arg)->ty : NULL;
  if (!t || t->kind != IR_TY_TENSOR || t->order != n) {
    m2l_internal(g->L, "an EIN argument of the wrong shape");
    return -1;
  }
  for (int k = 0; k < n; k++)
    if (vals[k] != LANE && (vals[k] < 0 || vals[k] >= t->dims[k])) {
      m2l_internal(g->L, "an EIN index out of range");
      return -1;
    }
  return n;
}

static int flat_index(const IrType *t, const int *vals, int n) {
  int f = 0;
  for (int k = 0; k < n; k++)
    f = f * t->dims[k] + vals[k];
  return f;
}

static Ev gen_tensor(Gen *g, const EinExpr *e) {
  const M2lVal *a;
  int vals[EIN_MAX_RANK];
  int n = access(g, e, &a, vals);
  if (n < 0)
    return ev_k(0);
  int nlane = 0, pos = -1;
  for (int k = 0; k < n; k++)
    if (vals[k] == LANE)
      nlane++, pos = k;
  if (!nlane)
    return ev_s(m2l_component(g->L, a, flat_index(a->ty, vals, n)));
  if (nlane == 1 && pos == n - 1)
    return ev_v(m2l_row(g->L, a, flat_index(a->ty, vals, n - 1)));
  /* A gather (vector mode avoids this; kept for completeness). */
  IrVar **xs = ARENA_NEW_ARRAY(g->L->a, IrVar *, g->W);
  for (int l = 0; l < g->W; l++) {
    int w[EIN_MAX_RANK];
    for (int k = 0; k < n; k++)
      w[k] = vals[k] == LANE ? l : vals[k];
    xs[l] = m2l_component(g->L, a, flat_index(a->ty, w, n));
  }
  return ev_v(m2l_vcons(g->L, g->W, xs));
}

/* Zero whatever the environment, decided without emitting code. */
static bool static_zero(Gen *g, const EinExpr *e) {
  switch (e->tag) {
  case EIN_CONST: return ein_const_value(e) == 0;
  case EIN_DELTA:
  case EIN_EPS: {
    int v[3];
    for (int i = 0; i < e->nidx && i < 3; i++) {
      EinIdx x = e->idx[i];
      int var = ein_idx_val(x);
      if (ein_idx_is_var(x) && (var == g->lane || var >= NVARS || g->env[var] == UNSET))
        return false;
      v[i] = ein_idx_is_var(x) ? g->env[var] : var;
    }
    return e->tag == EIN_DELTA ? v[0] != v[1] : eps_sign(e->nidx < 3 ? e->nidx : 3, v) == 0;
  }
  case EIN_NEG: return static_zero(g, e->kids[0]);
  case EIN_MUL:
    for (int i = 0; i < e->nkids; i++)
      if (static_zero(g, e->kids[i]))
        return true;
    return false;
  default: return false;
  }
}

static Ev gen(Gen *g, const EinExpr *e);

/* Σ over the last index k of one or two tensor rows (times factors free of
 * k): vsum or vdot of the rows, sliced to lo..hi. */
static bool try_dot(Gen *g, const EinExpr *body, int k, int lo, int hi, Ev *out) {
  int len = hi - lo + 1;
  if (len < 2)
    return false;
  const EinExpr *const *f = body->tag == EIN_MUL ? body->kids : &body;
  int nf = body->tag == EIN_MUL ? body->nkids : 1;
  int nk = 0, which[2];
  for (int i = 0; i < nf; i++) {
    if (!ein_free_in(f[i], k))
      continue;
    if (nk == 2 || f[i]->tag != EIN_TENSOR)
      return false;
    which[nk++] = i;
  }
  for (int i = 0; i < nf; i++)
    if (static_zero(g, f[i])) {
      *out = ev_k(0);
      return true;
    }
  if (nk == 0) { /* nothing depends on k: len copies */
    *out = ev_bin(g, B_MUL, ev_k(len), gen(g, body));
    return true;
  }
  IrVar *rows[2];
  for (int j = 0; j < nk; j++) {
    const EinExpr *t = f[which[j]];
    if (t->param < 0 || t->param >= g->op->nparams)
      return false;
    const EinParam *p = &g->op->params[t->param];
    if (p->kind != EIN_PARAM_TENSOR || t->nidx != p->rank)
      return false;
    /* k exactly once, as the last index that the type keeps; no lane. */
    int last = -1, count = 0;
    for (int q = 0; q < t->nidx; q++) {
      if (p->shape[q] == 1)
        continue;
      last = q;
      if (ein_idx_is_var(t->idx[q]) && ein_idx_val(t->idx[q]) == k)
        count++;
      if (ein_idx_is_var(t->idx[q]) && ein_idx_val(t->idx[q]) == g->lane)
        return false;
    }
    if (count != 1 || last < 0 || !ein_idx_is_var(t->idx[last]) || ein_idx_val(t->idx[last]) != k)
      return false;
  }
  for (int j = 0; j < nk; j++) {
    const M2lVal *a;
    int vals[EIN_MAX_RANK];
    int saved = g->env[k];
    g->env[k] = lo; /* any valid value: only the prefix is used */
    int n = access(g, f[which[j]], &a, vals);
    g->env[k] = saved;
    if (n < 1 || hi >= a->width)
      return false;
    IrVar *row = m2l_row(g->L, a, flat_index(a->ty, vals, n - 1));
    if (lo != 0 || len != a->width) {
      int imm[2] = {lo, len};
      row = m2l_op(g->L, IR_LOP_VSLICE, 1, &row, 2, imm);
    }
    rows[j] = row;
  }
  Ev acc = ev_s(nk == 2 ? m2l_op2(g->L, IR_LOP_VDOT, rows[0], rows[1])
                        : m2l_op1(g->L, IR_LOP_VSUM, rows[0]));
  /* The factors taken out of the Σ over lanes (try_lane_sum) are not
   * ours: gen skips them in body, and so must this direct walk. */
  bool lanes = body == g->lbody;
  for (int i = 0; i < nf; i++)
    if (i != which[0] && (nk < 2 || i != which[1]) &&
        !(lanes && i < 64 && (g->lpulled >> i & 1)))
      acc = ev_bin(g, B_MUL, acc, gen(g, f[i]));
  *out = acc;
  return true;
}

/* ---- Σ over lanes ------------------------------------------------------------------- */

/* A Σ binder reachable from the top of a sum through sums and products
 * only (so that its Σ can be moved outermost by distributivity), with the
 * variables bound on the way (its own node's included). */
typedef struct LaneCand {
  const EinExpr *sum;
  int bind;
  uint64_t path;
} LaneCand;

enum { MAX_LANE_CANDS = 16 };

static void lane_chain(const EinExpr *e, uint64_t path, LaneCand *c, int *n) {
  if (e->tag == EIN_MUL) {
    for (int i = 0; i < e->nkids; i++)
      lane_chain(e->kids[i], path, c, n);
    return;
  }
  if (e->tag != EIN_SUM)
    return;
  for (int b = 0; b < e->nbind; b++)
    path |= ein_var_bit(e->bind[b].var);
  for (int b = 0; b < e->nbind && *n < MAX_LANE_CANDS; b++)
    c[(*n)++] = (LaneCand){e, b, path};
  lane_chain(e->kids[0], path, c, n);
}

/* How index v (len values from 0) is used in an expression: lanes can run
 * over it if it is bound once and every access with it reads a whole row
 * (v the last kept index) or a lanes0 vector (v index 0). */
typedef struct LaneUse {
  int binders, rows, contig;
  bool bad;
} LaneUse;

static void lane_use(const Gen *g, const EinExpr *e, int v, int len, LaneUse *u) {
  uint64_t vb = ein_var_bit(v);
  if (u->bad || (!(e->fv & vb) && !(e->flags & EIN_FL_BINDS)))
    return;
  if (e->tag == EIN_SUM)
    for (int b = 0; b < e->nbind; b++)
      u->binders += e->bind[b].var == v;
  if (!(e->fv & vb)) {
    for (int i = 0; i < e->nkids; i++)
      lane_use(g, e->kids[i], v, len, u);
    return;
  }
  switch (e->tag) {
  case EIN_DELTA:
  case EIN_EPS:
  case EIN_FUN: /* lane by lane: no gain */
    u->bad = true;
    return;
  case EIN_TENSOR: {
    const EinParam *p = e->param >= 0 && e->param < g->op->nparams ? &g->op->params[e->param] : NULL;
    const M2lVal *a = p ? g->args[e->param] : NULL;
    if (!p || p->kind != EIN_PARAM_TENSOR || e->nidx != p->rank || !a || a->kind != M2L_TENSOR) {
      u->bad = true;
      return;
    }
    int n = 0, pos = -1, count = 0;
    for (int q = 0; q < e->nidx; q++) {
      if (p->shape[q] == 1)
        continue;
      if (ein_idx_is_var(e->idx[q]) && ein_idx_val(e->idx[q]) == v)
        count++, pos = n;
      n++;
    }
    if (count != 1 || n != a->ty->order)
      u->bad = true;
    else if (pos == n - 1 && a->ty->dims[pos] == len)
      u->rows++;
    else if (pos == 0 && a->lanes0 && a->ty->dims[0] == len)
      u->contig++;
    else
      u->bad = true;
    return;
  }
  default:
    for (int i = 0; i < e->nkids; i++)
      lane_use(g, e->kids[i], v, len, u);
    return;
  }
}

/* The candidate lanes run over for the sum e (index into lane_chain's
 * list), or -1: the most lanes0 accesses, then the most accesses, then
 * the outermost. */
static int lane_choice(const Gen *g, const EinExpr *e, const LaneCand *c, int n) {
  int best = -1, bc = 0, ba = 0;
  for (int i = 0; i < n; i++) {
    const EinBinder *b = &c[i].sum->bind[c[i].bind];
    int len = b->hi - b->lo + 1;
    if (b->var < 0 || b->var >= EIN_VAR_LIMIT || b->lo != 0 || len < 2)
      continue;
    LaneUse u = {0, 0, 0, false};
    lane_use(g, e, b->var, len, &u);
    if (u.bad || u.binders != 1 || u.rows + u.contig == 0)
      continue;
    if (best < 0 || u.contig > bc || (u.contig == bc && u.rows + u.contig > ba))
      best = i, bc = u.contig, ba = u.rows + u.contig;
  }
  return best;
}

static int lane_memo(Gen *g, const EinExpr *e, const LaneCand *c, int n) {
  for (int i = 0; i < g->nmemo; i++)
    if (g->memo_e[i] == e)
      return g->memo_ok[i];
  int r = lane_choice(g, e, c, n);
  if (g->nmemo == g->capmemo) {
    int cap = g->capmemo ? 2 * g->capmemo : 16;
    const EinExpr **ne = ARENA_NEW_ARRAY(g->L->a, const EinExpr *, cap);
    signed char *no = ARENA_NEW_ARRAY(g->L->a, signed char, cap);
    if (g->nmemo) {
      memcpy(ne, g->memo_e, sizeof *ne * (size_t)g->nmemo);
      memcpy(no, g->memo_ok, (size_t)g->nmemo);
    }
    g->memo_e = ne, g->memo_ok = no, g->capmemo = cap;
  }
  g->memo_e[g->nmemo] = e;
  g->memo_ok[g->nmemo++] = (signed char)r;
  return r;
}

/* The sum e (in scalar mode) with lanes over a summed index: everything
 * but a factor of that index alone in vector mode, then vdot with that
 * factor (vsum without one). */
static bool try_lane_sum(Gen *g, const EinExpr *e, Ev *out) {
  LaneCand c[MAX_LANE_CANDS];
  int n = 0;
  lane_chain(e, 0, c, &n);
  int ci = n ? lane_memo(g, e, c, n) : -1;
  if (ci < 0)
    return false;
  const EinExpr *S = c[ci].sum, *body = S->kids[0];
  const EinBinder *b = &S->bind[c[ci].bind];
  int v = b->var, len = b->hi - b->lo + 1;
  if (g->env[v] != UNSET)
    return false;
  uint64_t vb = ein_var_bit(v), path = c[ci].path, pulled = 0;
  bool whole = false;
  if (body->tag == EIN_MUL) { /* one factor: the others stay in V, and vdot ends it */
    for (int i = 0; i < body->nkids && i < 64 && !pulled; i++)
      if ((body->kids[i]->fv & vb) && (body->kids[i]->fv & path) == vb)
        pulled = (uint64_t)1 << i;
  } else {
    whole = (body->fv & vb) && (body->fv & path) == vb;
  }
  Gen saved = *g;
  g->lane = v;
  g->W = len;
  g->lsum = S;
  g->lbind = c[ci].bind;
  g->lbody = body;
  g->lpulled = pulled;
  g->lwhole = whole;
  Ev V = gen(g, e);
  /* the factors taken out, in vector mode at the top */
  g->lsum = g->lbody = NULL;
  g->lpulled = 0;
  g->lwhole = false;
  Ev P = ev_k(1);
  if (whole)
    P = gen(g, body);
  for (int i = 0; i < body->nkids && i < 64 && !whole; i++)
    if (pulled >> i & 1)
      P = ev_bin(g, B_MUL, P, gen(g, body->kids[i]));
  Ev r;
  if (ev_vector(P) && ev_vector(V)) {
    bool neg = P.neg != V.neg;
    r = ev_negate_if(g, ev_s(m2l_op2(g->L, IR_LOP_VDOT, ev_vec(g, ev_abs(P)), ev_vec(g, ev_abs(V)))),
                     neg);
  } else if (ev_vector(P) || ev_vector(V)) {
    Ev x = ev_vector(P) ? P : V, k = ev_vector(P) ? V : P;
    Ev sum = ev_negate_if(g, ev_s(m2l_op1(g->L, IR_LOP_VSUM, ev_vec(g, ev_abs(x)))), x.neg);
    r = ev_bin(g, B_MUL, k, sum);
  } else {
    r = ev_bin(g, B_MUL, ev_k(len), ev_bin(g, B_MUL, P, V));
  }
  g->lane = saved.lane;
  g->W = saved.W;
  g->lsum = saved.lsum;
  g->lbind = saved.lbind;
  g->lbody = saved.lbody;
  g->lpulled = saved.lpulled;
  g->lwhole = saved.lwhole;
  *out = r;
  return true;
}

static Ev gen_sum(Gen *g, const EinExpr *e, int bi) {
  const EinBinder *b = &e->bind[bi];
  if (e == g->lsum && bi == g->lbind) /* the lanes run over this index */
    return bi + 1 < e->nbind ? gen_sum(g, e, bi + 1) : gen(g, e->kids[0]);
  Ev ls;
  if (bi == 0 && g->lane < 0 && try_lane_sum(g, e, &ls))
    return ls;
  if (b->var < 0 || b->var >= NVARS || b->var == g->lane) {
    m2l_fail(g->L, "too many index variables in an EIN operator");
    return ev_k(0);
  }
  int saved = g->env[b->var];
  Ev acc = ev_k(0);
  if (bi == e->nbind - 1 && try_dot(g, e->kids[0], b->var, b->lo, b->hi, &acc))
    return acc;
  for (int v = b->lo; v <= b->hi && !g->L->failed; v++) {
    g->env[b->var] = v;
    Ev t = bi + 1 < e->nbind ? gen_sum(g, e, bi + 1) : gen(g, e->kids[0]);
    acc = ev_bin(g, B_ADD, acc, t);
  }
  g->env[b->var] = saved;
  return acc;
}

static Ev gen(Gen *g, const EinExpr *e) {
  if (g->L->failed)
    return ev_k(0);
  if (e == g->lbody && g->lwhole) /* taken out of the Σ over lanes */
    return ev_k(1);
  switch (e->tag) {
  case EIN_CONST: return ev_k(ein_const_value(e));
  case EIN_DELTA:
  case EIN_EPS: return gen_delta_eps(g, e);
  case EIN_TENSOR: return gen_tensor(g, e);
  case EIN_LIFT: return gen(g, e->kids[0]); /* a constant field is its tensor */
  case EIN_FUN: return ev_fun(g, (EinFun)e->fun, gen(g, e->kids[0]));
  case EIN_POW: return ev_pow(g, gen(g, e->kids[0]), e->power);
  case EIN_NEG: return ev_neg(g, gen(g, e->kids[0]));
  case EIN_ADD: {
    Ev acc = ev_k(0);
    for (int i = 0; i < e->nkids; i++)
      if (!static_zero(g, e->kids[i]))
        acc = ev_bin(g, B_ADD, acc, gen(g, e->kids[i]));
    return acc;
  }
  case EIN_SUB: return ev_bin(g, B_SUB, gen(g, e->kids[0]), gen(g, e->kids[1]));
  case EIN_MUL: {
    if (static_zero(g, e))
      return ev_k(0);
    Ev acc = ev_k(1);
    for (int i = 0; i < e->nkids; i++)
      if (e != g->lbody || i >= 64 || !(g->lpulled >> i & 1))
        acc = ev_bin(g, B_MUL, acc, gen(g, e->kids[i]));
    return acc;
  }
  case EIN_DIV: return ev_bin(g, B_DIV, gen(g, e->kids[0]), gen(g, e->kids[1]));
  case EIN_SUM: return gen_sum(g, e, 0);
  case EIN_FIELD:
  case EIN_CONV:
  case EIN_DIFF:
  case EIN_PROBE:
  case EIN_TAG_COUNT: break;
  }
  m2l_fail(g->L, "a field, probe or derivative in an EIN operator below HighIR");
  return ev_k(0);
}

/* Whether the lane variable occurs only as the last kept index of tensor
 * accesses (rows are then used whole). */
static bool vector_ok(const Gen *g, const EinExpr *e, int lane) {
  if (!(e->fv & ein_var_bit(lane)))
    return true;
  switch (e->tag) {
  case EIN_DELTA:
  case EIN_EPS: return false;
  case EIN_TENSOR: {
    if (e->param < 0 || e->param >= g->op->nparams)
      return false;
    const EinParam *p = &g->op->params[e->param];
    int last = -1, count = 0;
    for (int q = 0; q < e->nidx && q < p->rank; q++) {
      if (p->shape[q] == 1)
        continue;
      last = q;
      count += ein_idx_is_var(e->idx[q]) && ein_idx_val(e->idx[q]) == lane;
    }
    return count == 1 && last >= 0 && ein_idx_is_var(e->idx[last]) &&
           ein_idx_val(e->idx[last]) == lane;
  }
  default:
    for (int i = 0; i < e->nkids; i++)
      if (!vector_ok(g, e->kids[i], lane))
        return false;
    return true;
  }
}

M2lVal *m2l_lower_ein(M2L *L, const IrInstr *in) {
  const EinOp *op = in->ein;
  if (!op || !op->body || in->nargs != op->nparams || !in->dst) {
    m2l_internal(L, "a malformed EIN instruction");
    return NULL;
  }
  Gen *g = ARENA_NEW(L->a, Gen);
  g->L = L;
  g->op = op;
  g->lane = -1;
  g->W = 1;
  for (int v = 0; v < NVARS; v++)
    g->env[v] = UNSET;
  g->args = ARENA_NEW_ARRAY(L->a, M2lVal *, op->nparams + 1);
  for (int p = 0; p < op->nparams; p++) {
    g->args[p] = m2l_get(L, in->args[p]);
    if (!g->args[p])
      return NULL;
  }
  /* Result indices of extent 1 are always 0 (the type drops those axes). */
  int rv[EIN_MAX_RANK], rd[EIN_MAX_RANK], r = 0;
  for (int v = 0; v < op->nsigma; v++) {
    if (v >= NVARS || r >= EIN_MAX_RANK) {
      m2l_fail(L, "an EIN operator of too high an order");
      return NULL;
    }
    if (op->sigma[v] == 1) {
      g->env[v] = 0;
    } else {
      rv[r] = v;
      rd[r++] = op->sigma[v];
    }
  }
  const IrType *ty = in->dst->ty;
  if (r == 0)
    return m2l_plain(L, ev_scalar(g, gen(g, op->body)));
  if (!ty || ty->kind != IR_TY_TENSOR || ty->order != r) {
    m2l_internal(L, "an EIN result type that disagrees with its operator");
    return NULL;
  }
  int lane = rv[r - 1], W = rd[r - 1], nrows = 1;
  for (int i = 0; i + 1 < r; i++)
    nrows *= rd[i];
  bool vec = vector_ok(g, op->body, lane);
  IrVar **rows = ARENA_NEW_ARRAY(L->a, IrVar *, nrows);
  IrVar **lanes = ARENA_NEW_ARRAY(L->a, IrVar *, W);
  g->W = W;
  for (int row = 0; row < nrows && !L->failed; row++) {
    for (int i = r - 2, q = row; i >= 0; i--) {
      g->env[rv[i]] = q % rd[i];
      q /= rd[i];
    }
    if (vec) {
      g->lane = lane;
      rows[row] = ev_vec(g, gen(g, op->body));
    } else {
      g->lane = -1;
      for (int l = 0; l < W; l++) {
        g->env[lane] = l;
        lanes[l] = ev_scalar(g, gen(g, op->body));
      }
      g->env[lane] = UNSET;
      rows[row] = m2l_vcons(L, W, lanes);
    }
  }
  return L->failed ? NULL : m2l_tensor(L, ty, rows);
}
