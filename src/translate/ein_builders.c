/* ein_builders.c -- generic EIN operator builders (see ein_builders.h).
 *
 * Index variables: the result's are 0..|σ|-1; summation variables are
 * numbered from |σ| up (ein_op_new renumbers them by binding site anyway).
 */
#include "translate/ein_builders.h"

#include <stdbool.h>
#include <string.h>

enum { EB_MAXP = 8 };

typedef struct B {
  EinContext *c;
  int np;
  EinParam p[EB_MAXP];
  bool field; /* the result is a field: some operand is */
  int dim;    /* the fields' dimension */
} B;

static void b_init(B *b, EinContext *c, int np, const EinParam *ps) {
  memset(b, 0, sizeof *b);
  b->c = c;
  b->np = np;
  for (int i = 0; i < np; i++) {
    b->p[i] = ps[i];
    if (ps[i].kind == EIN_PARAM_FIELD) {
      b->field = true;
      b->dim = ps[i].dim;
    }
  }
}

/* Fields of different dimensions never meet in one operator. */
static bool b_ok(const B *b) {
  for (int i = 0; i < b->np; i++) {
    if (b->p[i].kind != EIN_PARAM_TENSOR && b->p[i].kind != EIN_PARAM_FIELD) return false;
    if (b->p[i].kind == EIN_PARAM_FIELD && b->p[i].dim != b->dim) return false;
    if (b->p[i].rank < 0 || b->p[i].rank > EIN_MAX_RANK) return false;
  }
  return true;
}

/* Operand `param` indexed by idx; a tensor operand of a field operator is
 * lifted to a constant field. */
static const EinExpr *leaf(const B *b, int param, int n, const EinIdx *idx) {
  if (b->p[param].kind == EIN_PARAM_FIELD) return ein_field(b->c, param, n, idx);
  const EinExpr *t = ein_tensor(b->c, param, n, idx);
  return b->field ? ein_lift(b->c, t) : t;
}

/* Operand `param` indexed by the variables first..first+rank-1. */
static const EinExpr *leaf_vars(const B *b, int param, int first) {
  EinIdx idx[EIN_MAX_RANK];
  for (int i = 0; i < b->p[param].rank; i++) idx[i] = ein_ivar(first + i);
  return leaf(b, param, b->p[param].rank, idx);
}

static const EinOp *b_op(const B *b, int nsigma, const int *sigma, const EinExpr *body) {
  return ein_op_new(b->c, b->np, b->p, nsigma, sigma, body);
}

static bool same_shape(EinParam a, EinParam b) {
  if (a.rank != b.rank) return false;
  for (int i = 0; i < a.rank; i++)
    if (a.shape[i] != b.shape[i]) return false;
  return true;
}

static bool is_scalar(EinParam a) { return a.rank == 0; }

/* Σ over variables v0.. with the given extents (n of them). */
static const EinExpr *sum_over(EinContext *c, int v0, int n, const int *ext,
                               const EinExpr *body) {
  EinBinder bs[EIN_MAX_RANK];
  for (int i = 0; i < n; i++) bs[i] = (EinBinder){v0 + i, 0, ext[i] - 1};
  return ein_sum(c, n, bs, body);
}

/* ---- elementwise ------------------------------------------------------------ */

static const EinOp *binary(EinContext *c, EinParam a, EinParam b2, EinTag tag) {
  EinParam ps[2] = {a, b2};
  B b;
  b_init(&b, c, 2, ps);
  if (!b_ok(&b) || !same_shape(a, b2)) return NULL;
  const EinExpr *x = leaf_vars(&b, 0, 0), *y = leaf_vars(&b, 1, 0);
  const EinExpr *body = tag == EIN_ADD ? ein_add2(c, x, y) : ein_sub(c, x, y);
  return b_op(&b, a.rank, a.shape, body);
}

const EinOp *eb_add(EinContext *c, EinParam a, EinParam b) { return binary(c, a, b, EIN_ADD); }
const EinOp *eb_sub(EinContext *c, EinParam a, EinParam b) { return binary(c, a, b, EIN_SUB); }

const EinOp *eb_neg(EinContext *c, EinParam a) {
  B b;
  b_init(&b, c, 1, &a);
  if (!b_ok(&b)) return NULL;
  return b_op(&b, a.rank, a.shape, ein_neg(c, leaf_vars(&b, 0, 0)));
}

/* s*t, t*s or t/s where the scalar is operand `sp` (0 or 1). */
static const EinOp *scalar_op(EinContext *c, EinParam x, EinParam y, int sp, EinTag tag) {
  EinParam ps[2] = {x, y};
  B b;
  b_init(&b, c, 2, ps);
  if (!b_ok(&b) || !is_scalar(ps[sp])) return NULL;
  EinParam t = ps[1 - sp];
  const EinExpr *s = leaf(&b, sp, 0, NULL), *v = leaf_vars(&b, 1 - sp, 0);
  const EinExpr *body;
  if (tag == EIN_DIV) body = ein_div(c, v, s);
  else body = sp == 0 ? ein_mul2(c, s, v) : ein_mul2(c, v, s);
  return b_op(&b, t.rank, t.shape, body);
}

const EinOp *eb_scale(EinContext *c, EinParam s, EinParam t) {
  return scalar_op(c, s, t, 0, EIN_MUL);
}
const EinOp *eb_scale_right(EinContext *c, EinParam t, EinParam s) {
  return scalar_op(c, t, s, 1, EIN_MUL);
}
const EinOp *eb_div(EinContext *c, EinParam t, EinParam s) {
  return scalar_op(c, t, s, 1, EIN_DIV);
}

/* ---- products ------------------------------------------------------------------ */

const EinOp *eb_contract(EinContext *c, EinParam a, EinParam bp, int n) {
  EinParam ps[2] = {a, bp};
  B b;
  b_init(&b, c, 2, ps);
  if (!b_ok(&b) || n < 0 || a.rank < n || bp.rank < n) return NULL;
  if (n == 0 && (a.rank == 0 || bp.rank == 0)) return NULL;
  for (int i = 0; i < n; i++)
    if (a.shape[a.rank - n + i] != bp.shape[i]) return NULL;
  int ra = a.rank - n, rb = bp.rank - n, nsigma = ra + rb;
  if (nsigma > EIN_MAX_RANK) return NULL;
  int sigma[EIN_MAX_RANK];
  for (int i = 0; i < ra; i++) sigma[i] = a.shape[i];
  for (int i = 0; i < rb; i++) sigma[ra + i] = bp.shape[n + i];
  /* a[α, m..], b[m.., β]: α = 0..ra-1, β = ra..ra+rb-1, m = nsigma.. */
  EinIdx ia[EIN_MAX_RANK], ib[EIN_MAX_RANK];
  for (int i = 0; i < ra; i++) ia[i] = ein_ivar(i);
  for (int i = 0; i < n; i++) ia[ra + i] = ib[i] = ein_ivar(nsigma + i);
  for (int i = 0; i < rb; i++) ib[n + i] = ein_ivar(ra + i);
  const EinExpr *body = ein_mul2(c, leaf(&b, 0, a.rank, ia), leaf(&b, 1, bp.rank, ib));
  body = sum_over(c, nsigma, n, bp.shape, body);
  return b_op(&b, nsigma, sigma, body);
}

const EinOp *eb_cross(EinContext *c, EinParam a, EinParam bp) {
  EinParam ps[2] = {a, bp};
  B b;
  b_init(&b, c, 2, ps);
  if (!b_ok(&b) || a.rank != 1 || !same_shape(a, bp)) return NULL;
  int d = a.shape[0];
  if (d == 2) { /* Σ_ij ε_ij a_i b_j */
    EinIdx i = ein_ivar(0), j = ein_ivar(1);
    const EinExpr *k[3] = {ein_eps2(c, i, j), leaf(&b, 0, 1, &i), leaf(&b, 1, 1, &j)};
    int ext[2] = {2, 2};
    return b_op(&b, 0, NULL, sum_over(c, 0, 2, ext, ein_mul(c, 3, k)));
  }
  if (d == 3) { /* Σ_jk ε_ijk a_j b_k */
    EinIdx i = ein_ivar(0), j = ein_ivar(1), kk = ein_ivar(2);
    const EinExpr *k[3] = {ein_eps3(c, i, j, kk), leaf(&b, 0, 1, &j), leaf(&b, 1, 1, &kk)};
    int ext[2] = {3, 3}, sig = 3;
    return b_op(&b, 1, &sig, sum_over(c, 1, 2, ext, ein_mul(c, 3, k)));
  }
  return NULL;
}

const EinOp *eb_modulate(EinContext *c, EinParam a, EinParam bp) {
  EinParam ps[2] = {a, bp};
  B b;
  b_init(&b, c, 2, ps);
  if (!b_ok(&b) || a.rank != 1 || !same_shape(a, bp)) return NULL;
  return b_op(&b, 1, a.shape, ein_mul2(c, leaf_vars(&b, 0, 0), leaf_vars(&b, 1, 0)));
}

/* ---- index manipulation ----------------------------------------------------------- */

const EinOp *eb_trace(EinContext *c, EinParam a) {
  B b;
  b_init(&b, c, 1, &a);
  int r = a.rank;
  if (!b_ok(&b) || r < 2 || a.shape[r - 1] != a.shape[r - 2]) return NULL;
  EinIdx idx[EIN_MAX_RANK];
  for (int i = 0; i < r - 2; i++) idx[i] = ein_ivar(i);
  idx[r - 2] = idx[r - 1] = ein_ivar(r - 2);
  const EinExpr *body = ein_sum1(c, r - 2, 0, a.shape[r - 1] - 1, leaf(&b, 0, r, idx));
  return b_op(&b, r - 2, a.shape, body);
}

const EinOp *eb_transpose(EinContext *c, EinParam a) {
  B b;
  b_init(&b, c, 1, &a);
  if (!b_ok(&b) || a.rank != 2) return NULL;
  EinIdx idx[2] = {ein_ivar(1), ein_ivar(0)};
  int sigma[2] = {a.shape[1], a.shape[0]};
  return b_op(&b, 2, sigma, leaf(&b, 0, 2, idx));
}

const EinOp *eb_slice(EinContext *c, EinParam a, const int *sl) {
  B b;
  b_init(&b, c, 1, &a);
  if (!b_ok(&b)) return NULL;
  EinIdx idx[EIN_MAX_RANK];
  int sigma[EIN_MAX_RANK], ns = 0;
  for (int i = 0; i < a.rank; i++) {
    if (sl[i] < 0) {
      sigma[ns] = a.shape[i];
      idx[i] = ein_ivar(ns++);
    } else {
      if (sl[i] >= a.shape[i]) return NULL;
      idx[i] = ein_icon(sl[i]);
    }
  }
  return b_op(&b, ns, sigma, leaf(&b, 0, a.rank, idx));
}

const EinOp *eb_cons(EinContext *c, int n, EinParam a) {
  if (n < 1 || n > EB_MAXP || a.rank + 1 > EIN_MAX_RANK) return NULL;
  EinParam ps[EB_MAXP];
  for (int i = 0; i < n; i++) ps[i] = a;
  B b;
  b_init(&b, c, n, ps);
  if (!b_ok(&b)) return NULL;
  const EinExpr *terms[EB_MAXP];
  for (int k = 0; k < n; k++)
    terms[k] = ein_mul2(c, ein_delta(c, ein_ivar(0), ein_icon(k)), leaf_vars(&b, k, 1));
  int sigma[EIN_MAX_RANK];
  sigma[0] = n;
  for (int i = 0; i < a.rank; i++) sigma[i + 1] = a.shape[i];
  return b_op(&b, a.rank + 1, sigma, ein_add(c, n, terms));
}

/* ---- calculus ------------------------------------------------------------------------ */

static bool is_field(EinParam f) { return f.kind == EIN_PARAM_FIELD && f.dim >= 1 && f.dim <= 3; }

/* ∂_i of F_α with i a variable, or the constant 0 when d = 1 (the axis of
 * size 1 is dropped from the result shape). */
static EinIdx diff_idx(int d, int var) { return d == 1 ? ein_icon(0) : ein_ivar(var); }

const EinOp *eb_grad(EinContext *c, EinParam f) {
  B b;
  b_init(&b, c, 1, &f);
  if (!is_field(f) || f.rank != 0) return NULL;
  int d = f.dim;
  const EinExpr *body = ein_diff(c, diff_idx(d, 0), leaf(&b, 0, 0, NULL));
  return b_op(&b, d == 1 ? 0 : 1, &d, body);
}

const EinOp *eb_jacobian(EinContext *c, EinParam f) {
  B b;
  b_init(&b, c, 1, &f);
  if (!is_field(f) || f.rank + 1 > EIN_MAX_RANK) return NULL;
  int d = f.dim, r = f.rank, sigma[EIN_MAX_RANK];
  for (int i = 0; i < r; i++) sigma[i] = f.shape[i];
  sigma[r] = d;
  const EinExpr *body = ein_diff(c, diff_idx(d, r), leaf_vars(&b, 0, 0));
  return b_op(&b, d == 1 ? r : r + 1, sigma, body);
}

const EinOp *eb_divergence(EinContext *c, EinParam f) {
  B b;
  b_init(&b, c, 1, &f);
  if (!is_field(f)) return NULL;
  int d = f.dim, r = f.rank;
  if (d == 1) /* the contracted axis has size 1: ∂_0 F_α */
    return b_op(&b, r, f.shape, ein_diff(c, ein_icon(0), leaf_vars(&b, 0, 0)));
  if (r < 1 || f.shape[r - 1] != d) return NULL;
  EinIdx idx[EIN_MAX_RANK];
  for (int i = 0; i < r - 1; i++) idx[i] = ein_ivar(i);
  idx[r - 1] = ein_ivar(r - 1);
  const EinExpr *body = ein_diff(c, ein_ivar(r - 1), leaf(&b, 0, r, idx));
  return b_op(&b, r - 1, f.shape, ein_sum1(c, r - 1, 0, d - 1, body));
}

const EinOp *eb_curl(EinContext *c, EinParam f) {
  B b;
  b_init(&b, c, 1, &f);
  if (!is_field(f) || f.rank != 1 || f.shape[0] != f.dim) return NULL;
  if (f.dim == 2) { /* Σ_ij ε_ij ∂_i F_j */
    EinIdx i = ein_ivar(0), j = ein_ivar(1);
    const EinExpr *body = ein_mul2(c, ein_eps2(c, i, j), ein_diff(c, i, leaf(&b, 0, 1, &j)));
    int ext[2] = {2, 2};
    return b_op(&b, 0, NULL, sum_over(c, 0, 2, ext, body));
  }
  if (f.dim == 3) { /* Σ_jk ε_ijk ∂_j F_k */
    EinIdx i = ein_ivar(0), j = ein_ivar(1), k = ein_ivar(2);
    const EinExpr *body =
        ein_mul2(c, ein_eps3(c, i, j, k), ein_diff(c, j, leaf(&b, 0, 1, &k)));
    int ext[2] = {3, 3}, sig = 3;
    return b_op(&b, 1, &sig, sum_over(c, 1, 2, ext, body));
  }
  return NULL;
}

const EinOp *eb_probe(EinContext *c, EinParam f) {
  if (!is_field(f)) return NULL;
  int d = f.dim;
  EinParam ps[2] = {f, d == 1 ? ein_param_tensor(0, NULL) : ein_param_tensor(1, &d)};
  EinIdx idx[EIN_MAX_RANK];
  for (int i = 0; i < f.rank; i++) idx[i] = ein_ivar(i);
  const EinExpr *body = ein_probe(c, ein_field(c, 0, f.rank, idx), 1);
  return ein_op_new(c, 2, ps, f.rank, f.shape, body);
}

/* ---- functions -------------------------------------------------------------------------- */

const EinOp *eb_fun(EinContext *c, EinFun fn, EinParam a) {
  B b;
  b_init(&b, c, 1, &a);
  if (!b_ok(&b) || a.rank != 0) return NULL;
  return b_op(&b, 0, NULL, ein_fun(c, fn, leaf(&b, 0, 0, NULL)));
}

const EinOp *eb_pow(EinContext *c, EinParam a, int n) {
  B b;
  b_init(&b, c, 1, &a);
  if (!b_ok(&b) || a.rank != 0) return NULL;
  return b_op(&b, 0, NULL, ein_pow(c, leaf(&b, 0, 0, NULL), n));
}

/* sqrt(Σ_α a_α a_α) with the summation variables from v0. */
static const EinExpr *norm_expr(const B *b, int v0) {
  const EinParam *a = &b->p[0];
  const EinExpr *x = leaf_vars(b, 0, v0);
  return ein_fun(b->c, EIN_FUN_SQRT, sum_over(b->c, v0, a->rank, a->shape, ein_mul2(b->c, x, x)));
}

const EinOp *eb_norm(EinContext *c, EinParam a) {
  B b;
  b_init(&b, c, 1, &a);
  if (!b_ok(&b)) return NULL;
  if (a.rank == 0) return b_op(&b, 0, NULL, ein_fun(c, EIN_FUN_ABS, leaf(&b, 0, 0, NULL)));
  return b_op(&b, 0, NULL, norm_expr(&b, 0));
}

const EinOp *eb_normalize(EinContext *c, EinParam a) {
  B b;
  b_init(&b, c, 1, &a);
  if (!b_ok(&b) || a.rank == 0) return NULL;
  return b_op(&b, a.rank, a.shape, ein_div(c, leaf_vars(&b, 0, 0), norm_expr(&b, a.rank)));
}

const EinOp *eb_lerp3(EinContext *c, EinParam a, EinParam bp, EinParam t) {
  EinParam ps[3] = {a, bp, t};
  B b;
  b_init(&b, c, 3, ps);
  if (!b_ok(&b) || !same_shape(a, bp) || t.rank != 0) return NULL;
  const EinExpr *A = leaf_vars(&b, 0, 0), *Bv = leaf_vars(&b, 1, 0);
  const EinExpr *body = ein_add2(c, A, ein_mul2(c, leaf(&b, 2, 0, NULL), ein_sub(c, Bv, A)));
  return b_op(&b, a.rank, a.shape, body);
}

const EinOp *eb_lerp5(EinContext *c, EinParam a, EinParam bp, EinParam x0, EinParam x,
                      EinParam x1) {
  EinParam ps[5] = {a, bp, x0, x, x1};
  B b;
  b_init(&b, c, 5, ps);
  if (!b_ok(&b) || !same_shape(a, bp) || x0.rank || x.rank || x1.rank) return NULL;
  const EinExpr *A = leaf_vars(&b, 0, 0), *Bv = leaf_vars(&b, 1, 0);
  const EinExpr *X0 = leaf(&b, 2, 0, NULL), *X = leaf(&b, 3, 0, NULL), *X1 = leaf(&b, 4, 0, NULL);
  const EinExpr *f = ein_div(c, ein_sub(c, X, X0), ein_sub(c, X1, X0));
  return b_op(&b, a.rank, a.shape, ein_add2(c, A, ein_mul2(c, f, ein_sub(c, Bv, A))));
}

/* det of the n x n operand 0 with the summation variables from v0. */
static const EinExpr *det_expr(const B *b, int v0) {
  EinContext *c = b->c;
  int n = b->p[0].shape[0];
  EinIdx v[3] = {ein_ivar(v0), ein_ivar(v0 + 1), ein_ivar(v0 + 2)};
  const EinExpr *k[4];
  k[0] = n == 2 ? ein_eps2(c, v[0], v[1]) : ein_eps3(c, v[0], v[1], v[2]);
  for (int r = 0; r < n; r++) {
    EinIdx idx[2] = {ein_icon(r), v[r]};
    k[r + 1] = leaf(b, 0, 2, idx);
  }
  int ext[3] = {n, n, n};
  return sum_over(c, v0, n, ext, ein_mul(c, n + 1, k));
}

static bool square23(EinParam a) {
  return a.rank == 2 && a.shape[0] == a.shape[1] && (a.shape[0] == 2 || a.shape[0] == 3);
}

const EinOp *eb_det(EinContext *c, EinParam a) {
  B b;
  b_init(&b, c, 1, &a);
  if (!b_ok(&b) || !square23(a)) return NULL;
  return b_op(&b, 0, NULL, det_expr(&b, 0));
}

const EinOp *eb_inv(EinContext *c, EinParam a) {
  B b;
  b_init(&b, c, 1, &a);
  if (!b_ok(&b)) return NULL;
  if (a.rank == 0) return b_op(&b, 0, NULL, ein_div(c, ein_const_int(c, 1), leaf(&b, 0, 0, NULL)));
  if (!square23(a)) return NULL;
  int n = a.shape[0];
  EinIdx i = ein_ivar(0), j = ein_ivar(1), k = ein_ivar(2), l = ein_ivar(3);
  const EinExpr *num;
  if (n == 2) { /* adj(A)_ij = Σ_kl ε_ik ε_jl A_lk */
    EinIdx lk[2] = {l, k};
    const EinExpr *f[3] = {ein_eps2(c, i, k), ein_eps2(c, j, l), leaf(&b, 0, 2, lk)};
    int ext[2] = {2, 2};
    num = sum_over(c, 2, 2, ext, ein_mul(c, 3, f));
  } else { /* ((tr² − tr(A·A))/2 δ_ij − tr A_ij + (A·A)_ij) */
    EinIdx kk[2] = {k, k}, kl[2] = {k, l}, lk[2] = {l, k}, ij[2] = {i, j}, ik[2] = {i, k},
           kj[2] = {k, j};
    const EinExpr *tr = ein_sum1(c, 2, 0, 2, leaf(&b, 0, 2, kk));
    int ext[2] = {3, 3};
    const EinExpr *tr2 =
        sum_over(c, 2, 2, ext, ein_mul2(c, leaf(&b, 0, 2, kl), leaf(&b, 0, 2, lk)));
    const EinExpr *half = ein_mul2(c, ein_const_rat(c, 1, 2), ein_sub(c, ein_pow(c, tr, 2), tr2));
    const EinExpr *aa = ein_sum1(c, 2, 0, 2, ein_mul2(c, leaf(&b, 0, 2, ik), leaf(&b, 0, 2, kj)));
    const EinExpr *t[3] = {ein_mul2(c, half, ein_delta(c, i, j)),
                           ein_neg(c, ein_mul2(c, tr, leaf(&b, 0, 2, ij))), aa};
    num = ein_add(c, 3, t);
  }
  return b_op(&b, 2, a.shape, ein_div(c, num, det_expr(&b, 2)));
}

/* ---- constants ------------------------------------------------------------------------------ */

const EinOp *eb_zeros(EinContext *c, int rank, const int *shape) {
  if (rank < 0 || rank > EIN_MAX_RANK) return NULL;
  return ein_op_new(c, 0, NULL, rank, shape, ein_const_int(c, 0));
}

const EinOp *eb_identity(EinContext *c, int n) {
  int sigma[2] = {n, n};
  return ein_op_new(c, 0, NULL, 2, sigma, ein_delta(c, ein_ivar(0), ein_ivar(1)));
}

const EinOp *eb_broadcast(EinContext *c, int rank, const int *shape) {
  if (rank < 0 || rank > EIN_MAX_RANK) return NULL;
  EinParam p = ein_param_tensor(0, NULL);
  return ein_op_new(c, 1, &p, rank, shape, ein_tensor(c, 0, 0, NULL));
}
