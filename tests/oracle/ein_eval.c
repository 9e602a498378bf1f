/* ein_eval.c -- reference evaluator for EIN operators (see ein_eval.h). */
#include "ein_eval.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  MAX_ORDER = 8,   /* jet order: nested derivatives of one leaf */
  MAX_MONO = 165,  /* monomials of degree <= 8 in 3 variables: C(11,3) */
  MAX_VARS = 64
};

typedef struct Ev {
  const EinOp *op;
  const EinEvalArg *args;
  int d, K, M;
  int mono[MAX_MONO][3];
  int mul[MAX_MONO][MAX_MONO]; /* index of mono a + mono b, or -1 beyond order K */
  int down[MAX_MONO][3];       /* index of mono - unit(axis), or -1 */
  double pos[3];
  bool have_pos;
  int env[MAX_VARS];
  bool bound[MAX_VARS];
  char *err;
  size_t errlen;
  bool failed;
} Ev;

static int fail(Ev *v, const char *msg) {
  if (!v->failed && v->err && v->errlen) snprintf(v->err, v->errlen, "%s", msg);
  v->failed = true;
  return -1;
}

/* ---- polynomials ---- */

static double falling(int e, int k) {
  double r = 1;
  for (int i = 0; i < k; i++) r *= e - i;
  return r;
}

static double binom(int n, int k) {
  if (k < 0 || k > n) return 0;
  double r = 1;
  for (int i = 1; i <= k; i++) r = r * (n - k + i) / i;
  return r;
}

double ein_poly_eval(const EinPoly *p, const double x[3], const int deriv[3]) {
  double s = 0;
  for (int t = 0; t < p->nterms; t++) {
    double v = p->terms[t].coef;
    for (int a = 0; a < 3 && v != 0; a++) {
      int e = p->terms[t].exp[a], k = deriv ? deriv[a] : 0;
      if (k > e) {
        v = 0;
        break;
      }
      v *= falling(e, k) * pow(x[a], e - k);
    }
    s += v;
  }
  return s;
}

/* Taylor coefficients of ∂^β P at pos: out[γ] = coefficient of h^γ in
 * (∂^β P)(pos + h), i.e. Π_a binom(e_a - β_a, γ_a) pos_a^(e_a-β_a-γ_a). */
static void poly_jet(const Ev *v, const EinPoly *p, const int beta[3], double *out) {
  for (int m = 0; m < v->M; m++) {
    double s = 0;
    for (int t = 0; t < p->nterms; t++) {
      double c = p->terms[t].coef;
      for (int a = 0; a < 3 && c != 0; a++) {
        int e = p->terms[t].exp[a] - beta[a], g = a < v->d ? v->mono[m][a] : 0;
        if (e < 0 || g > e) {
          c = 0;
          break;
        }
        c *= falling(p->terms[t].exp[a], beta[a]) * binom(e, g) * pow(v->pos[a], e - g);
      }
      s += c;
    }
    out[m] = s;
  }
}

/* ---- jets ---- */

static void jet_const(const Ev *v, double c, double *out) {
  out[0] = c;
  for (int m = 1; m < v->M; m++) out[m] = 0;
}

static void jet_mul(const Ev *v, const double *a, const double *b, double *out) {
  double r[MAX_MONO] = {0};
  for (int i = 0; i < v->M; i++) {
    if (a[i] == 0) continue;
    for (int j = 0; j < v->M; j++) {
      int k = v->mul[i][j];
      if (k >= 0) r[k] += a[i] * b[j];
    }
  }
  memcpy(out, r, sizeof(double) * (size_t)v->M);
}

static void jet_diff(const Ev *v, const double *a, int axis, double *out) {
  double r[MAX_MONO] = {0};
  for (int m = 0; m < v->M; m++) {
    int k = v->down[m][axis];
    if (k >= 0) r[k] += a[m] * v->mono[m][axis];
  }
  memcpy(out, r, sizeof(double) * (size_t)v->M);
}

/* f(u) from the univariate coefficients c[n] = f^(n)(u0)/n!: Horner in the
 * nilpotent part t = u - u0 (t^(K+1) vanishes in the truncated algebra). */
static void jet_compose(const Ev *v, const double *u, const double *c, double *out) {
  double t[MAX_MONO], r[MAX_MONO];
  memcpy(t, u, sizeof(double) * (size_t)v->M);
  t[0] = 0;
  jet_const(v, c[v->K], r);
  for (int n = v->K - 1; n >= 0; n--) {
    jet_mul(v, r, t, r);
    r[0] += c[n];
  }
  memcpy(out, r, sizeof(double) * (size_t)v->M);
}

/* ---- univariate power series of length K+1 ---- */

static void ser_mul(int K, const double *a, const double *b, double *out) {
  double r[MAX_ORDER + 1] = {0};
  for (int i = 0; i <= K; i++)
    for (int j = 0; i + j <= K; j++) r[i + j] += a[i] * b[j];
  memcpy(out, r, sizeof r);
}

static void ser_div(int K, const double *a, const double *b, double *out) {
  double q[MAX_ORDER + 1];
  for (int n = 0; n <= K; n++) {
    double s = a[n];
    for (int k = 1; k <= n; k++) s -= b[k] * q[n - k];
    q[n] = s / b[0];
  }
  memcpy(out, q, sizeof q);
}

/* P^r for real r (P[0] > 0 unless r is a non-negative integer):
 * from P R' = r P' R. */
static void ser_pow(int K, const double *p, double r, double *out) {
  double R[MAX_ORDER + 1] = {0};
  R[0] = pow(p[0], r);
  for (int n = 1; n <= K; n++) {
    double s = 0;
    for (int k = 1; k <= n; k++) s += (r * k - (n - k)) * p[k] * R[n - k];
    R[n] = s / (n * p[0]);
  }
  memcpy(out, R, sizeof R);
}

/* Taylor coefficients of f(a + s) in s. */
static void fun_series(EinFun f, int K, double a, double *c) {
  double x[MAX_ORDER + 1] = {0}, q[MAX_ORDER + 1], w[MAX_ORDER + 1] = {0};
  x[0] = a;
  if (K >= 1) x[1] = 1;
  double fact = 1;
  for (int n = 0; n <= K; n++) c[n] = 0;
  switch (f) {
  case EIN_FUN_SQRT: ser_pow(K, x, 0.5, c); break;
  case EIN_FUN_EXP:
    for (int n = 0; n <= K; n++) {
      if (n) fact *= n;
      c[n] = exp(a) / fact;
    }
    break;
  case EIN_FUN_LOG:
    c[0] = log(a);
    for (int n = 1; n <= K; n++) c[n] = (n % 2 ? 1.0 : -1.0) / (n * pow(a, n));
    break;
  case EIN_FUN_SIN:
  case EIN_FUN_COS: {
    /* derivatives cycle through sin, cos, -sin, -cos */
    double cyc[4] = {sin(a), cos(a), -sin(a), -cos(a)};
    int off = f == EIN_FUN_SIN ? 0 : 1;
    for (int n = 0; n <= K; n++) {
      if (n) fact *= n;
      c[n] = cyc[(n + off) % 4] / fact;
    }
    break;
  }
  case EIN_FUN_TAN: {
    double s[MAX_ORDER + 1], co[MAX_ORDER + 1];
    fun_series(EIN_FUN_SIN, K, a, s);
    fun_series(EIN_FUN_COS, K, a, co);
    ser_div(K, s, co, c);
    break;
  }
  case EIN_FUN_ATAN:
  case EIN_FUN_ASIN:
  case EIN_FUN_ACOS:
    /* integrate the series of the derivative: 1/(1+x^2) or ±(1-x^2)^(-1/2) */
    ser_mul(K, x, x, q);
    if (f == EIN_FUN_ATAN) {
      q[0] += 1;
      w[0] = 1;
      ser_div(K, w, q, q);
      c[0] = atan(a);
    } else {
      for (int n = 0; n <= K; n++) q[n] = -q[n];
      q[0] += 1;
      ser_pow(K, q, -0.5, q);
      if (f == EIN_FUN_ACOS)
        for (int n = 0; n <= K; n++) q[n] = -q[n];
      c[0] = f == EIN_FUN_ASIN ? asin(a) : acos(a);
    }
    for (int n = 1; n <= K; n++) c[n] = q[n - 1] / n;
    break;
  case EIN_FUN_ABS:
    c[0] = fabs(a);
    if (K >= 1) c[1] = a > 0 ? 1 : (a < 0 ? -1 : 0);
    break;
  case EIN_FUN_SIGN: c[0] = a > 0 ? 1 : (a < 0 ? -1 : 0); break;
  default: break;
  }
}

/* ---- expressions ---- */

static int index_value(Ev *v, EinIdx x, int *out) {
  if (!ein_idx_is_var(x)) {
    *out = ein_idx_val(x);
    return 0;
  }
  if (x >= MAX_VARS || !v->bound[x]) return fail(v, "unbound index variable");
  *out = v->env[x];
  return 0;
}

/* Row-major offset of idx into shape; -1 when out of range. */
static int offset(Ev *v, int n, const EinIdx *idx, int rank, const int *shape, int *out) {
  if (n != rank) return fail(v, "wrong number of indices");
  int off = 0;
  for (int i = 0; i < n; i++) {
    int x;
    if (index_value(v, idx[i], &x)) return -1;
    if (x < 0 || x >= shape[i]) return fail(v, "index out of range");
    off = off * shape[i] + x;
  }
  *out = off;
  return 0;
}

static const EinParam *param(Ev *v, int p, EinParamKind kind) {
  if (p < 0 || p >= v->op->nparams || v->op->params[p].kind != kind) {
    fail(v, "bad parameter reference");
    return NULL;
  }
  return &v->op->params[p];
}

static int ev(Ev *v, const EinExpr *e, double *out);

static int ev_sum(Ev *v, const EinExpr *e, int b, double *out) {
  if (b == e->nbind) {
    double t[MAX_MONO];
    if (ev(v, e->kids[0], t)) return -1;
    for (int m = 0; m < v->M; m++) out[m] += t[m];
    return 0;
  }
  int var = e->bind[b].var;
  if (var < 0 || var >= MAX_VARS) return fail(v, "index variable too large");
  int saved = v->env[var];
  bool was = v->bound[var];
  v->bound[var] = true;
  for (int i = e->bind[b].lo; i <= e->bind[b].hi; i++) {
    v->env[var] = i;
    if (ev_sum(v, e, b + 1, out)) return -1;
  }
  v->env[var] = saved;
  v->bound[var] = was;
  return 0;
}

static int eps_value(Ev *v, const EinExpr *e, double *val) {
  int x[3];
  for (int i = 0; i < e->nidx; i++)
    if (index_value(v, e->idx[i], &x[i])) return -1;
  int k = e->nidx, inv = 0;
  for (int i = 0; i < k; i++) {
    if (x[i] < 0 || x[i] >= k) {
      *val = 0;
      return 0;
    }
    for (int j = i + 1; j < k; j++) {
      if (x[i] == x[j]) {
        *val = 0;
        return 0;
      }
      if (x[i] > x[j]) inv++;
    }
  }
  *val = inv % 2 ? -1 : 1;
  return 0;
}

static int ev(Ev *v, const EinExpr *e, double *out) {
  double a[MAX_MONO], b[MAX_MONO];
  switch (e->tag) {
  case EIN_CONST: jet_const(v, ein_const_value(e), out); return 0;
  case EIN_DELTA: {
    int x, y;
    if (index_value(v, e->idx[0], &x) || index_value(v, e->idx[1], &y)) return -1;
    jet_const(v, x == y ? 1 : 0, out);
    return 0;
  }
  case EIN_EPS: {
    double val;
    if (eps_value(v, e, &val)) return -1;
    jet_const(v, val, out);
    return 0;
  }
  case EIN_TENSOR: {
    const EinParam *p = param(v, e->param, EIN_PARAM_TENSOR);
    int off;
    if (!p || offset(v, e->nidx, e->idx, p->rank, p->shape, &off)) return -1;
    jet_const(v, v->args[e->param].tensor[off], out);
    return 0;
  }
  case EIN_FIELD:
  case EIN_CONV: {
    const EinParam *p =
        param(v, e->param, e->tag == EIN_FIELD ? EIN_PARAM_FIELD : EIN_PARAM_IMAGE);
    int off, beta[3] = {0, 0, 0};
    if (!p || offset(v, e->nidx, e->idx, p->rank, p->shape, &off)) return -1;
    if (!v->have_pos) return fail(v, "field evaluated without a position");
    for (int i = 0; i < e->nidx2; i++) {
      int ax;
      if (index_value(v, e->idx2[i], &ax)) return -1;
      if (ax < 0 || ax >= v->d) return fail(v, "derivative axis out of range");
      beta[ax]++;
    }
    poly_jet(v, &v->args[e->param].field[off], beta, out);
    return 0;
  }
  case EIN_LIFT: return ev(v, e->kids[0], out);
  case EIN_PROBE: {
    const EinParam *p = param(v, e->param, EIN_PARAM_TENSOR);
    if (!p) return -1;
    int n = p->rank == 0 ? 1 : p->shape[0];
    if (n != v->d) return fail(v, "probe position of the wrong dimension");
    double saved[3];
    bool had = v->have_pos;
    memcpy(saved, v->pos, sizeof saved);
    for (int i = 0; i < n; i++) v->pos[i] = v->args[e->param].tensor[i];
    v->have_pos = true;
    int r = ev(v, e->kids[0], a);
    memcpy(v->pos, saved, sizeof saved);
    v->have_pos = had;
    if (r) return -1;
    jet_const(v, a[0], out);
    return 0;
  }
  case EIN_DIFF: {
    int ax;
    if (index_value(v, e->idx[0], &ax)) return -1;
    if (ax < 0 || ax >= v->d) return fail(v, "derivative axis out of range");
    if (ev(v, e->kids[0], a)) return -1;
    jet_diff(v, a, ax, out);
    return 0;
  }
  case EIN_FUN: {
    double c[MAX_ORDER + 1];
    if (ev(v, e->kids[0], a)) return -1;
    fun_series((EinFun)e->fun, v->K, a[0], c);
    jet_compose(v, a, c, out);
    return 0;
  }
  case EIN_POW: {
    double c[MAX_ORDER + 1], x[MAX_ORDER + 1] = {0};
    if (ev(v, e->kids[0], a)) return -1;
    x[0] = a[0];
    if (v->K >= 1) x[1] = 1;
    if (e->power >= 0) {
      /* (a+s)^n by repeated multiplication: exact also at a = 0 */
      double r[MAX_ORDER + 1] = {1};
      for (int i = 0; i < e->power; i++) ser_mul(v->K, r, x, r);
      memcpy(c, r, sizeof c);
    } else {
      ser_pow(v->K, x, e->power, c);
    }
    jet_compose(v, a, c, out);
    return 0;
  }
  case EIN_NEG:
    if (ev(v, e->kids[0], a)) return -1;
    for (int m = 0; m < v->M; m++) out[m] = -a[m];
    return 0;
  case EIN_ADD:
  case EIN_MUL:
    if (ev(v, e->kids[0], a)) return -1;
    for (int i = 1; i < e->nkids; i++) {
      if (ev(v, e->kids[i], b)) return -1;
      if (e->tag == EIN_ADD)
        for (int m = 0; m < v->M; m++) a[m] += b[m];
      else
        jet_mul(v, a, b, a);
    }
    memcpy(out, a, sizeof(double) * (size_t)v->M);
    return 0;
  case EIN_SUB:
    if (ev(v, e->kids[0], a) || ev(v, e->kids[1], b)) return -1;
    for (int m = 0; m < v->M; m++) out[m] = a[m] - b[m];
    return 0;
  case EIN_DIV: {
    /* a * (1/b) with 1/(b0 + s) = Σ (-1)^n s^n / b0^(n+1) */
    double c[MAX_ORDER + 1];
    if (ev(v, e->kids[0], a) || ev(v, e->kids[1], b)) return -1;
    for (int n = 0; n <= v->K; n++) c[n] = (n % 2 ? -1.0 : 1.0) / pow(b[0], n + 1);
    jet_compose(v, b, c, b);
    jet_mul(v, a, b, out);
    return 0;
  }
  case EIN_SUM:
    jet_const(v, 0, out);
    return ev_sum(v, e, 0, out);
  case EIN_TAG_COUNT: break;
  }
  return fail(v, "unknown node");
}

/* Deepest nesting of ∂ over any path: the jet order needed. */
static int diff_depth(const EinExpr *e) {
  int best = 0;
  for (int i = 0; i < e->nkids; i++) {
    int k = diff_depth(e->kids[i]);
    if (k > best) best = k;
  }
  return best + (e->tag == EIN_DIFF ? 1 : 0);
}

int ein_eval_size(const EinOp *op) {
  int n = 1;
  for (int i = 0; i < op->nsigma; i++) n *= op->sigma[i];
  return n;
}

int ein_eval(const EinOp *op, const EinEvalArg *args, const double *pos, double *out,
             char *err, size_t errlen) {
  Ev *v = calloc(1, sizeof *v); /* the tables are too big for the stack */
  if (!v) return -1;
  v->op = op;
  v->args = args;
  v->err = err;
  v->errlen = errlen;
  v->d = ein_op_field_dim(op);
  v->K = diff_depth(op->body);
  int rc = 0;
  if (v->K > MAX_ORDER || v->d > 3) {
    rc = fail(v, "derivatives nested too deeply for the evaluator");
    goto done;
  }
  /* Enumerate monomials of degree <= K in d variables. */
  v->M = 0;
  for (int deg = 0; deg <= v->K; deg++)
    for (int e0 = deg; e0 >= 0; e0--)
      for (int e1 = deg - e0; e1 >= 0; e1--) {
        int e2 = deg - e0 - e1;
        int ex[3] = {e0, e1, e2};
        bool ok = true;
        for (int a = v->d; a < 3; a++)
          if (ex[a]) ok = false;
        if (!ok) continue;
        memcpy(v->mono[v->M], ex, sizeof ex);
        v->M++;
      }
  for (int i = 0; i < v->M; i++) {
    for (int j = 0; j < v->M; j++) {
      int s[3], deg = 0;
      for (int a = 0; a < 3; a++) deg += s[a] = v->mono[i][a] + v->mono[j][a];
      v->mul[i][j] = -1;
      if (deg > v->K) continue;
      for (int k = 0; k < v->M; k++)
        if (!memcmp(v->mono[k], s, sizeof s)) v->mul[i][j] = k;
    }
    for (int a = 0; a < 3; a++) {
      v->down[i][a] = -1;
      if (!v->mono[i][a]) continue;
      int s[3] = {v->mono[i][0], v->mono[i][1], v->mono[i][2]};
      s[a]--;
      for (int k = 0; k < v->M; k++)
        if (!memcmp(v->mono[k], s, sizeof s)) v->down[i][a] = k;
    }
  }
  if (pos) {
    for (int a = 0; a < v->d; a++) v->pos[a] = pos[a];
    v->have_pos = true;
  }
  if (op->nsigma > MAX_VARS) {
    rc = fail(v, "result rank too large");
    goto done;
  }
  int total = ein_eval_size(op);
  for (int c = 0; c < total; c++) {
    int rest = c;
    for (int i = op->nsigma - 1; i >= 0; i--) {
      v->env[i] = rest % op->sigma[i];
      v->bound[i] = true;
      rest /= op->sigma[i];
    }
    double j[MAX_MONO];
    if (ev(v, op->body, j)) {
      rc = -1;
      goto done;
    }
    out[c] = j[0];
  }
done:
  free(v);
  return rc;
}
