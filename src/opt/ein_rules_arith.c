/* ein_rules_arith.c -- constant folding and arithmetic clean-up rules:
 * δ/ε with constant or repeated indices, flattening of + and *, neutral and
 * absorbing elements, negation, folding of constant quotients, functions
 * and powers. */
#include <math.h>

#include "opt/ein_normalize_impl.h"

/* δ_aa → 1; δ_c1c2 → 0 or 1. */
const EinExpr *ein_rule_delta_const(EinNorm *n, const EinExpr *e) {
  EinIdx a = e->idx[0], b = e->idx[1];
  if (a == b) return ein_n_int(n, 1);
  if (!ein_idx_is_var(a) && !ein_idx_is_var(b)) return ein_n_int(n, 0);
  return NULL;
}

/* ε with a repeated index → 0; ε with constant indices → its value. */
const EinExpr *ein_rule_eps_const(EinNorm *n, const EinExpr *e) {
  int k = e->nidx;
  bool all_const = true;
  for (int i = 0; i < k; i++) {
    if (ein_idx_is_var(e->idx[i])) all_const = false;
    for (int j = i + 1; j < k; j++)
      if (e->idx[i] == e->idx[j]) return ein_n_int(n, 0);
  }
  if (!all_const) return NULL;
  int v[3];
  for (int i = 0; i < k; i++) {
    v[i] = ein_idx_val(e->idx[i]);
    if (v[i] >= k) return ein_n_int(n, 0);
  }
  /* The indices are now a permutation of 0..k-1: count inversions. */
  int inv = 0;
  for (int i = 0; i < k; i++)
    for (int j = i + 1; j < k; j++)
      if (v[i] > v[j]) inv++;
  return ein_n_int(n, inv % 2 ? -1 : 1);
}

/* The children of e (a MUL or ADD) with those of the same operator spliced
 * in: a∘(b∘c) → a∘b∘c. NULL when no child has e's operator. */
static const EinExpr *flatten(EinNorm *n, const EinExpr *e) {
  int cnt = 0;
  bool nested = false;
  for (int i = 0; i < e->nkids; i++) {
    if (e->kids[i]->tag == e->tag) {
      nested = true;
      cnt += e->kids[i]->nkids;
    } else {
      cnt++;
    }
  }
  if (!nested) return NULL;
  const EinExpr **kids = ein_n_kids(n, cnt);
  int k = 0;
  for (int i = 0; i < e->nkids; i++) {
    const EinExpr *f = e->kids[i];
    if (f->tag == e->tag)
      for (int j = 0; j < f->nkids; j++) kids[k++] = f->kids[j];
    else
      kids[k++] = f;
  }
  return e->tag == EIN_MUL ? ein_mul(n->c, k, kids) : ein_add(n->c, k, kids);
}

/* The children of e (a MUL or ADD) with its constant children folded into
 * one (their product or sum), placed first: (*out)[0] is that constant,
 * (*out)[1..m) the others in order. Returns m. */
static int gather_consts(EinNorm *n, const EinExpr *e, const EinExpr ***out) {
  bool mul = e->tag == EIN_MUL;
  EinConst k = ein_k_int(mul ? 1 : 0);
  const EinExpr **kids = ein_n_kids(n, e->nkids);
  int m = 1;
  for (int i = 0; i < e->nkids; i++) {
    if (e->kids[i]->tag == EIN_CONST)
      k = mul ? ein_k_mul(k, e->kids[i]->c) : ein_k_add(k, e->kids[i]->c);
    else
      kids[m++] = e->kids[i];
  }
  kids[0] = ein_const(n->c, k);
  *out = kids;
  return m;
}

/* ---- products ---- */

/* a*(b*c) → a*b*c */
const EinExpr *ein_rule_mul_flatten(EinNorm *n, const EinExpr *e) { return flatten(n, e); }

/* 0*e → 0 */
const EinExpr *ein_rule_mul_zero(EinNorm *n, const EinExpr *e) {
  for (int i = 0; i < e->nkids; i++)
    if (ein_n_is_zero(e->kids[i])) return ein_n_int(n, 0);
  return NULL;
}

/* c1*e*c2 → (c1 c2)*e; 1*e → e. The folded constant goes first. */
const EinExpr *ein_rule_mul_const(EinNorm *n, const EinExpr *e) {
  int nconst = 0, first = -1;
  bool has_one = false;
  for (int i = 0; i < e->nkids; i++)
    if (e->kids[i]->tag == EIN_CONST) {
      nconst++;
      if (first < 0) first = i;
      if (ein_n_is_one(e->kids[i])) has_one = true;
    }
  if (nconst == 0 || (nconst == 1 && first == 0 && !has_one)) return NULL;
  const EinExpr **kids;
  int m = gather_consts(n, e, &kids);
  if (ein_n_is_one(kids[0])) return ein_mul(n->c, m - 1, kids + 1);
  return ein_mul(n->c, m, kids);
}

/* a*(-b) → -(a*b): negations move up, where they cancel or fold. */
const EinExpr *ein_rule_mul_neg(EinNorm *n, const EinExpr *e) {
  int negs = 0;
  const EinExpr **kids = NULL;
  for (int i = 0; i < e->nkids; i++) {
    if (e->kids[i]->tag != EIN_NEG) continue;
    if (!kids) {
      kids = ein_n_kids(n, e->nkids);
      for (int j = 0; j < e->nkids; j++) kids[j] = e->kids[j];
    }
    kids[i] = e->kids[i]->kids[0];
    negs++;
  }
  if (!negs) return NULL;
  const EinExpr *p = ein_mul(n->c, e->nkids, kids);
  return negs % 2 ? ein_neg(n->c, p) : p;
}

/* ---- sums and differences ---- */

/* a+(b+c) → a+b+c */
const EinExpr *ein_rule_add_flatten(EinNorm *n, const EinExpr *e) { return flatten(n, e); }

/* e + 0 → e */
const EinExpr *ein_rule_add_zero(EinNorm *n, const EinExpr *e) {
  int zeros = 0;
  for (int i = 0; i < e->nkids; i++)
    if (ein_n_is_zero(e->kids[i])) zeros++;
  if (!zeros) return NULL;
  const EinExpr **kids = ein_n_kids(n, e->nkids);
  int k = 0;
  for (int i = 0; i < e->nkids; i++)
    if (!ein_n_is_zero(e->kids[i])) kids[k++] = e->kids[i];
  return ein_add(n->c, k, kids);
}

/* c1 + e + c2 → (c1+c2) + e, the folded constant first. */
const EinExpr *ein_rule_add_const(EinNorm *n, const EinExpr *e) {
  int nconst = 0, first = -1;
  for (int i = 0; i < e->nkids; i++)
    if (e->kids[i]->tag == EIN_CONST) {
      nconst++;
      if (first < 0) first = i;
    }
  if (nconst == 0 || (nconst == 1 && first == 0)) return NULL;
  const EinExpr **kids;
  int m = gather_consts(n, e, &kids);
  return ein_add(n->c, m, kids);
}

/* e - 0 → e; 0 - e → -e */
const EinExpr *ein_rule_sub_zero(EinNorm *n, const EinExpr *e) {
  if (ein_n_is_zero(e->kids[1])) return e->kids[0];
  if (ein_n_is_zero(e->kids[0])) return ein_neg(n->c, e->kids[1]);
  return NULL;
}

/* e - e → 0 */
const EinExpr *ein_rule_sub_self(EinNorm *n, const EinExpr *e) {
  return e->kids[0] == e->kids[1] ? ein_n_int(n, 0) : NULL;
}

/* a - (-b) → a + b */
const EinExpr *ein_rule_sub_neg(EinNorm *n, const EinExpr *e) {
  if (e->kids[1]->tag != EIN_NEG) return NULL;
  return ein_add2(n->c, e->kids[0], e->kids[1]->kids[0]);
}

const EinExpr *ein_rule_sub_const(EinNorm *n, const EinExpr *e) {
  if (e->kids[0]->tag != EIN_CONST || e->kids[1]->tag != EIN_CONST) return NULL;
  return ein_const(n->c, ein_k_add(e->kids[0]->c, ein_k_neg(e->kids[1]->c)));
}

/* -(-e) → e */
const EinExpr *ein_rule_neg_neg(EinNorm *n, const EinExpr *e) {
  (void)n;
  return e->kids[0]->tag == EIN_NEG ? e->kids[0]->kids[0] : NULL;
}

const EinExpr *ein_rule_neg_const(EinNorm *n, const EinExpr *e) {
  if (e->kids[0]->tag != EIN_CONST) return NULL;
  return ein_const(n->c, ein_k_neg(e->kids[0]->c));
}

/* ---- quotients ---- */

/* 0/e → 0 (e not the constant 0, whose quotient is left alone) */
const EinExpr *ein_rule_div_zero(EinNorm *n, const EinExpr *e) {
  if (!ein_n_is_zero(e->kids[0]) || ein_n_is_zero(e->kids[1])) return NULL;
  return ein_n_int(n, 0);
}

/* e/1 → e */
const EinExpr *ein_rule_div_one(EinNorm *n, const EinExpr *e) {
  (void)n;
  return ein_n_is_one(e->kids[1]) ? e->kids[0] : NULL;
}

const EinExpr *ein_rule_div_const(EinNorm *n, const EinExpr *e) {
  if (e->kids[0]->tag != EIN_CONST || e->kids[1]->tag != EIN_CONST) return NULL;
  EinConst q;
  if (!ein_k_div(e->kids[0]->c, e->kids[1]->c, &q)) return NULL;
  return ein_const(n->c, q);
}

/* ---- functions and powers ---- */

/* The integer square root of x if x is a perfect square, else -1. */
static int64_t isqrt_exact(int64_t x) {
  if (x < 0) return -1;
  int64_t r = (int64_t)sqrt((double)x), sq;
  while (r > 0 && (__builtin_mul_overflow(r, r, &sq) || sq > x)) r--;
  while (!__builtin_mul_overflow(r + 1, r + 1, &sq) && sq <= x) r++;
  return r * r == x ? r : -1;
}

/* Fold a function of a constant: exactly for rationals where the value is
 * rational (|c|, sign, sqrt of squares, exp 0, log 1, sin 0, ...); with
 * libm for reals. Other rational arguments stay symbolic. */
const EinExpr *ein_rule_fun_const(EinNorm *n, const EinExpr *e) {
  const EinExpr *a = e->kids[0];
  if (a->tag != EIN_CONST) return NULL;
  EinConst k = a->c;
  if (k.is_real) {
    double x = k.real, r;
    switch ((EinFun)e->fun) {
    case EIN_FUN_SQRT: r = sqrt(x); break;
    case EIN_FUN_EXP: r = exp(x); break;
    case EIN_FUN_LOG: r = log(x); break;
    case EIN_FUN_SIN: r = sin(x); break;
    case EIN_FUN_COS: r = cos(x); break;
    case EIN_FUN_TAN: r = tan(x); break;
    case EIN_FUN_ASIN: r = asin(x); break;
    case EIN_FUN_ACOS: r = acos(x); break;
    case EIN_FUN_ATAN: r = atan(x); break;
    case EIN_FUN_ABS: r = fabs(x); break;
    case EIN_FUN_SIGN: r = x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); break;
    default: return NULL;
    }
    return ein_const_real(n->c, r);
  }
  bool zero = k.num == 0, one = k.num == 1 && k.den == 1;
  switch ((EinFun)e->fun) {
  case EIN_FUN_ABS: return ein_const(n->c, k.num < 0 ? ein_k_neg(k) : k);
  case EIN_FUN_SIGN: return ein_n_int(n, k.num > 0 ? 1 : (k.num < 0 ? -1 : 0));
  case EIN_FUN_SQRT: {
    int64_t p = isqrt_exact(k.num), q = isqrt_exact(k.den);
    return p >= 0 && q > 0 ? ein_const_rat(n->c, p, q) : NULL;
  }
  case EIN_FUN_EXP:
  case EIN_FUN_COS: return zero ? ein_n_int(n, 1) : NULL;
  case EIN_FUN_LOG:
  case EIN_FUN_ACOS: return one ? ein_n_int(n, 0) : NULL;
  case EIN_FUN_SIN:
  case EIN_FUN_TAN:
  case EIN_FUN_ASIN:
  case EIN_FUN_ATAN: return zero ? ein_n_int(n, 0) : NULL;
  default: return NULL;
  }
}

/* e^0 → 1 */
const EinExpr *ein_rule_pow_zero(EinNorm *n, const EinExpr *e) {
  return e->power == 0 ? ein_n_int(n, 1) : NULL;
}

/* e^1 → e */
const EinExpr *ein_rule_pow_one(EinNorm *n, const EinExpr *e) {
  (void)n;
  return e->power == 1 ? e->kids[0] : NULL;
}

/* c^n → the constant (exact for rationals; 0^-n is left alone) */
const EinExpr *ein_rule_pow_const(EinNorm *n, const EinExpr *e) {
  const EinExpr *a = e->kids[0];
  if (a->tag != EIN_CONST) return NULL;
  if (a->c.is_real) return ein_const_real(n->c, pow(a->c.real, (double)e->power));
  int p = e->power < 0 ? -e->power : e->power;
  if (p > 64) return NULL; /* keep huge powers symbolic */
  EinConst r = ein_k_int(1);
  for (int i = 0; i < p; i++) r = ein_k_mul(r, a->c);
  if (e->power < 0) {
    EinConst q;
    if (!ein_k_div(ein_k_int(1), r, &q)) return NULL;
    r = q;
  }
  return ein_const(n->c, r);
}
