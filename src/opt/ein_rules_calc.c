/* ein_rules_calc.c -- probes pushed below lifted operators, and
 * differentiation pushed to the leaves (sum, product, quotient and chain
 * rules), with derivative indices finally moved onto the kernel:
 * ∂_μ (V_α ⊛ H^β) → V_α ⊛ H^{βμ}. (Seed paper 004, §5.3; doc/language.md §6.3,
 * §6.6.)
 */
#include "opt/ein_normalize_impl.h"

/* ---- probes: (e1 ⊙ e2)@x → (e1@x) ⊙ (e2@x) ---- */

/* Probe k at position x if it is a field expression (tensors are their own
 * value everywhere). */
static const EinExpr *probe_of(EinNorm *n, const EinExpr *k, int x) {
  return ein_is_field(k) ? ein_probe(n->c, k, x) : k;
}

/* The probed node with every field child probed. */
static const EinExpr *probe_kids(EinNorm *n, const EinExpr *f, int x) {
  const EinExpr **kids = ein_n_kids(n, f->nkids);
  for (int i = 0; i < f->nkids; i++) kids[i] = probe_of(n, f->kids[i], x);
  return ein_with_kids(n->c, f, kids);
}

/* e@x → e when e is no field */
const EinExpr *ein_rule_probe_tensor(EinNorm *n, const EinExpr *e) {
  (void)n;
  return ein_is_field(e->kids[0]) ? NULL : e->kids[0];
}

/* lift(e)@x → e */
const EinExpr *ein_rule_probe_lift(EinNorm *n, const EinExpr *e) {
  (void)n;
  return e->kids[0]->tag == EIN_LIFT ? e->kids[0]->kids[0] : NULL;
}

static const EinExpr *probe_push(EinNorm *n, const EinExpr *e, EinTag tag) {
  const EinExpr *f = e->kids[0];
  return f->tag == tag ? probe_kids(n, f, e->param) : NULL;
}

/* The rules that only push the probe below one operator. */
#define PROBE_PUSH_RULE(fn, tag) \
  const EinExpr *ein_rule_##fn(EinNorm *n, const EinExpr *e) { return probe_push(n, e, tag); }
PROBE_PUSH_RULE(probe_neg, EIN_NEG)
PROBE_PUSH_RULE(probe_add, EIN_ADD)
PROBE_PUSH_RULE(probe_sub, EIN_SUB)
PROBE_PUSH_RULE(probe_mul, EIN_MUL)
PROBE_PUSH_RULE(probe_div, EIN_DIV)
PROBE_PUSH_RULE(probe_fun, EIN_FUN)
PROBE_PUSH_RULE(probe_pow, EIN_POW)
/* (Σ_j e)@x → Σ_j (e@x): the position is a parameter, so nothing is captured. */
PROBE_PUSH_RULE(probe_sum, EIN_SUM)
#undef PROBE_PUSH_RULE

/* ---- differentiation ---- */

static const EinExpr *d(EinNorm *n, EinIdx mu, const EinExpr *k) {
  return ein_diff(n->c, mu, k);
}

/* ∂ e → 0 when e does not depend on the position (tensors, lift, probes) */
const EinExpr *ein_rule_diff_const(EinNorm *n, const EinExpr *e) {
  return ein_varies(e->kids[0]) ? NULL : ein_n_int(n, 0);
}

/* ∂_μ (V_α ⊛ H^β) → V_α ⊛ H^{βμ} */
const EinExpr *ein_rule_diff_conv(EinNorm *n, const EinExpr *e) {
  const EinExpr *f = e->kids[0];
  if (f->tag != EIN_CONV) return NULL;
  EinIdx *beta = ARENA_NEW_ARRAY(n->arena, EinIdx, f->nidx2 + 1);
  for (int i = 0; i < f->nidx2; i++) beta[i] = f->idx2[i];
  beta[f->nidx2] = e->idx[0];
  return ein_conv(n->c, f->param, f->param2, f->nidx, f->idx, f->nidx2 + 1, beta);
}

const EinExpr *ein_rule_diff_neg(EinNorm *n, const EinExpr *e) {
  const EinExpr *f = e->kids[0];
  if (f->tag != EIN_NEG) return NULL;
  return ein_neg(n->c, d(n, e->idx[0], f->kids[0]));
}

/* ∂(e1 + ... + en) → ∂e1 + ... + ∂en over the terms that vary */
const EinExpr *ein_rule_diff_add(EinNorm *n, const EinExpr *e) {
  const EinExpr *f = e->kids[0];
  if (f->tag != EIN_ADD) return NULL;
  const EinExpr **kids = ein_n_kids(n, f->nkids);
  int k = 0;
  for (int i = 0; i < f->nkids; i++)
    if (ein_varies(f->kids[i])) kids[k++] = d(n, e->idx[0], f->kids[i]);
  return ein_add(n->c, k, kids);
}

const EinExpr *ein_rule_diff_sub(EinNorm *n, const EinExpr *e) {
  const EinExpr *f = e->kids[0];
  if (f->tag != EIN_SUB) return NULL;
  EinIdx mu = e->idx[0];
  bool va = ein_varies(f->kids[0]), vb = ein_varies(f->kids[1]);
  if (!vb) return d(n, mu, f->kids[0]);
  if (!va) return ein_neg(n->c, d(n, mu, f->kids[1]));
  return ein_sub(n->c, d(n, mu, f->kids[0]), d(n, mu, f->kids[1]));
}

/* Product rule: ∂(e1...en) → Σ_k e1...∂ek...en, over the factors that vary. */
const EinExpr *ein_rule_diff_mul(EinNorm *n, const EinExpr *e) {
  const EinExpr *f = e->kids[0];
  if (f->tag != EIN_MUL) return NULL;
  const EinExpr **terms = ein_n_kids(n, f->nkids);
  int t = 0;
  for (int i = 0; i < f->nkids; i++) {
    if (!ein_varies(f->kids[i])) continue;
    const EinExpr **fs = ein_n_kids(n, f->nkids);
    for (int j = 0; j < f->nkids; j++) fs[j] = j == i ? d(n, e->idx[0], f->kids[j]) : f->kids[j];
    terms[t++] = ein_mul(n->c, f->nkids, fs);
  }
  return ein_add(n->c, t, terms);
}

/* Quotient rule: ∂(a/b) → (∂a b - a ∂b)/b^2, with the cases a or b constant
 * simplified directly (division by a tensor is division by a constant). */
const EinExpr *ein_rule_diff_div(EinNorm *n, const EinExpr *e) {
  const EinExpr *f = e->kids[0];
  if (f->tag != EIN_DIV) return NULL;
  EinContext *c = n->c;
  EinIdx mu = e->idx[0];
  const EinExpr *a = f->kids[0], *b = f->kids[1];
  if (!ein_varies(b)) return ein_div(c, d(n, mu, a), b);
  const EinExpr *b2 = ein_pow(c, b, 2);
  const EinExpr *adb = ein_mul2(c, a, d(n, mu, b));
  if (!ein_varies(a)) return ein_neg(c, ein_div(c, adb, b2));
  return ein_div(c, ein_sub(c, ein_mul2(c, d(n, mu, a), b), adb), b2);
}

/* ∂_μ Σ_j e → Σ_j ∂_μ e (j renamed if it is μ) */
const EinExpr *ein_rule_diff_sum(EinNorm *n, const EinExpr *e) {
  const EinExpr *f = e->kids[0];
  if (f->tag != EIN_SUM) return NULL;
  EinIdx mu = e->idx[0];
  if (ein_idx_is_var(mu)) {
    f = ein_n_rename_binders(n, f, ein_var_bit(mu));
    if (!f) return NULL;
  }
  return ein_sum(n->c, f->nbind, f->bind, d(n, mu, f->kids[0]));
}

/* ∂ u^k → k u^(k-1) ∂u */
const EinExpr *ein_rule_diff_pow(EinNorm *n, const EinExpr *e) {
  const EinExpr *f = e->kids[0];
  if (f->tag != EIN_POW) return NULL;
  const EinExpr *u = f->kids[0];
  const EinExpr *v[3] = {ein_n_int(n, f->power), ein_pow(n->c, u, f->power - 1),
                         d(n, e->idx[0], u)};
  return ein_mul(n->c, 3, v);
}

/* The argument u of f = fun(u) when f applies `which`, else NULL. */
static const EinExpr *fun_arg(const EinExpr *e, EinFun which) {
  const EinExpr *f = e->kids[0];
  return f->tag == EIN_FUN && f->fun == which ? f->kids[0] : NULL;
}

/* 1 - u^2, shared by asin and acos */
static const EinExpr *one_minus_sq(EinNorm *n, const EinExpr *u) {
  return ein_sub(n->c, ein_n_int(n, 1), ein_pow(n->c, u, 2));
}

/* ∂ sqrt(u) → ∂u / (2 sqrt(u)) */
const EinExpr *ein_rule_diff_sqrt(EinNorm *n, const EinExpr *e) {
  const EinExpr *u = fun_arg(e, EIN_FUN_SQRT);
  if (!u) return NULL;
  return ein_div(n->c, d(n, e->idx[0], u), ein_mul2(n->c, ein_n_int(n, 2), e->kids[0]));
}

/* ∂ exp(u) → exp(u) ∂u */
const EinExpr *ein_rule_diff_exp(EinNorm *n, const EinExpr *e) {
  const EinExpr *u = fun_arg(e, EIN_FUN_EXP);
  if (!u) return NULL;
  return ein_mul2(n->c, e->kids[0], d(n, e->idx[0], u));
}

/* ∂ log(u) → ∂u / u */
const EinExpr *ein_rule_diff_log(EinNorm *n, const EinExpr *e) {
  const EinExpr *u = fun_arg(e, EIN_FUN_LOG);
  if (!u) return NULL;
  return ein_div(n->c, d(n, e->idx[0], u), u);
}

/* ∂ sin(u) → cos(u) ∂u */
const EinExpr *ein_rule_diff_sin(EinNorm *n, const EinExpr *e) {
  const EinExpr *u = fun_arg(e, EIN_FUN_SIN);
  if (!u) return NULL;
  return ein_mul2(n->c, ein_fun(n->c, EIN_FUN_COS, u), d(n, e->idx[0], u));
}

/* ∂ cos(u) → -(sin(u) ∂u) */
const EinExpr *ein_rule_diff_cos(EinNorm *n, const EinExpr *e) {
  const EinExpr *u = fun_arg(e, EIN_FUN_COS);
  if (!u) return NULL;
  return ein_neg(n->c, ein_mul2(n->c, ein_fun(n->c, EIN_FUN_SIN, u), d(n, e->idx[0], u)));
}

/* ∂ tan(u) → ∂u / cos(u)^2 */
const EinExpr *ein_rule_diff_tan(EinNorm *n, const EinExpr *e) {
  const EinExpr *u = fun_arg(e, EIN_FUN_TAN);
  if (!u) return NULL;
  return ein_div(n->c, d(n, e->idx[0], u), ein_pow(n->c, ein_fun(n->c, EIN_FUN_COS, u), 2));
}

/* ∂ asin(u) → ∂u / sqrt(1 - u^2) */
const EinExpr *ein_rule_diff_asin(EinNorm *n, const EinExpr *e) {
  const EinExpr *u = fun_arg(e, EIN_FUN_ASIN);
  if (!u) return NULL;
  return ein_div(n->c, d(n, e->idx[0], u), ein_fun(n->c, EIN_FUN_SQRT, one_minus_sq(n, u)));
}

/* ∂ acos(u) → -(∂u / sqrt(1 - u^2)) */
const EinExpr *ein_rule_diff_acos(EinNorm *n, const EinExpr *e) {
  const EinExpr *u = fun_arg(e, EIN_FUN_ACOS);
  if (!u) return NULL;
  return ein_neg(n->c, ein_div(n->c, d(n, e->idx[0], u),
                               ein_fun(n->c, EIN_FUN_SQRT, one_minus_sq(n, u))));
}

/* ∂ atan(u) → ∂u / (1 + u^2) */
const EinExpr *ein_rule_diff_atan(EinNorm *n, const EinExpr *e) {
  const EinExpr *u = fun_arg(e, EIN_FUN_ATAN);
  if (!u) return NULL;
  return ein_div(n->c, d(n, e->idx[0], u),
                 ein_add2(n->c, ein_n_int(n, 1), ein_pow(n->c, u, 2)));
}

/* ∂ |u| → sign(u) ∂u (doc/language.md §6.6: the derivative of |S| uses sign) */
const EinExpr *ein_rule_diff_abs(EinNorm *n, const EinExpr *e) {
  const EinExpr *u = fun_arg(e, EIN_FUN_ABS);
  if (!u) return NULL;
  return ein_mul2(n->c, ein_fun(n->c, EIN_FUN_SIGN, u), d(n, e->idx[0], u));
}

/* ∂ sign(u) → 0 (piecewise constant) */
const EinExpr *ein_rule_diff_sign(EinNorm *n, const EinExpr *e) {
  return fun_arg(e, EIN_FUN_SIGN) ? ein_n_int(n, 0) : NULL;
}
