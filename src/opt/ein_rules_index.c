/* ein_rules_index.c -- index rules: summations pulled out of products and
 * flattened, dead summations removed, δ contraction, ε-ε identities and the
 * antisymmetry of ε. (Seed paper 004, §5.4.)
 *
 * The ε/δ rules look at a Σ whose body is a product; since products pull
 * summations out (mul-sum) and nested summations merge (sum-flatten), every
 * index that a rule may contract is bound by that one Σ.
 */
#include "opt/ein_normalize_impl.h"

/* The product of fs without positions skip1 and skip2 (-1: none), with
 * `pre` (npre factors) in front. */
static const EinExpr *product_except(EinNorm *n, int nf, const EinExpr *const *fs, int skip1,
                                     int skip2, int npre, const EinExpr *const *pre) {
  const EinExpr **kids = ein_n_kids(n, nf + npre);
  int k = 0;
  for (int i = 0; i < npre; i++) kids[k++] = pre[i];
  for (int i = 0; i < nf; i++)
    if (i != skip1 && i != skip2) kids[k++] = fs[i];
  return ein_mul(n->c, k, kids);
}

/* Σ_j e → (count of j) * e when j is not free in e. */
const EinExpr *ein_rule_sum_dead(EinNorm *n, const EinExpr *e) {
  const EinExpr *body = e->kids[0];
  EinBinder *live = ARENA_NEW_ARRAY(n->arena, EinBinder, e->nbind);
  int nlive = 0;
  EinConst count = ein_k_int(1);
  for (int b = 0; b < e->nbind; b++) {
    if (ein_free_in(body, e->bind[b].var)) {
      live[nlive++] = e->bind[b];
    } else {
      count = ein_k_mul(count, ein_k_int((int64_t)e->bind[b].hi - e->bind[b].lo + 1));
    }
  }
  if (nlive == e->nbind) return NULL;
  const EinExpr *s = ein_sum(n->c, nlive, live, body);
  return ein_mul2(n->c, ein_const(n->c, count), s);
}

/* Σ_i Σ_j e → Σ_{i,j} e (inner binders renamed away from the outer ones) */
const EinExpr *ein_rule_sum_flatten(EinNorm *n, const EinExpr *e) {
  const EinExpr *inner = e->kids[0];
  if (inner->tag != EIN_SUM) return NULL;
  uint64_t outer = 0;
  for (int b = 0; b < e->nbind; b++) outer |= ein_var_bit(e->bind[b].var);
  inner = ein_n_rename_binders(n, inner, outer);
  if (!inner) return NULL;
  EinBinder *all = ARENA_NEW_ARRAY(n->arena, EinBinder, e->nbind + inner->nbind);
  for (int b = 0; b < e->nbind; b++) all[b] = e->bind[b];
  for (int b = 0; b < inner->nbind; b++) all[e->nbind + b] = inner->bind[b];
  return ein_sum(n->c, e->nbind + inner->nbind, all, inner->kids[0]);
}

/* Σ (-e) → -(Σ e) */
const EinExpr *ein_rule_sum_neg(EinNorm *n, const EinExpr *e) {
  const EinExpr *body = e->kids[0];
  if (body->tag != EIN_NEG) return NULL;
  return ein_neg(n->c, ein_sum(n->c, e->nbind, e->bind, body->kids[0]));
}

/* e * Σ_j e' → Σ_j (e * e'), j renamed if free in e. Summations move to the
 * top of products so that the ε/δ rules see every contracted index in one
 * place (summation binding, a later pass, moves invariants back out). */
const EinExpr *ein_rule_mul_sum(EinNorm *n, const EinExpr *e) {
  int at = -1;
  for (int i = 0; i < e->nkids && at < 0; i++)
    if (e->kids[i]->tag == EIN_SUM) at = i;
  if (at < 0) return NULL;
  uint64_t others = 0;
  for (int i = 0; i < e->nkids; i++)
    if (i != at) others |= e->kids[i]->fv;
  const EinExpr *s = ein_n_rename_binders(n, e->kids[at], others);
  if (!s) return NULL;
  const EinExpr **kids = ein_n_kids(n, e->nkids);
  for (int i = 0; i < e->nkids; i++) kids[i] = i == at ? s->kids[0] : e->kids[i];
  return ein_sum(n->c, s->nbind, s->bind, ein_mul(n->c, e->nkids, kids));
}

/* Whether substituting bound variable s by index t keeps the sum: t must
 * stay within s's range (δ_st picks s = t). A free variable t is bound
 * outside with a range the typechecker made compatible. */
static bool contractible(const EinExpr *e, const EinBinder *bs, EinIdx t) {
  if (!ein_idx_is_var(t)) return true; /* constants are range-checked by the caller */
  const EinBinder *bt = ein_n_binder(e, t);
  return !bt || (bt->lo >= bs->lo && bt->hi <= bs->hi);
}

/* Σ_j δ_ij e → e[j := i] (either index of δ may be the bound one; a
 * constant outside j's range makes the whole sum 0). */
const EinExpr *ein_rule_delta_contract(EinNorm *n, const EinExpr *e) {
  const EinExpr *body = e->kids[0];
  int nf = body->tag == EIN_MUL ? body->nkids : 1;
  const EinExpr *const *fs = body->tag == EIN_MUL ? body->kids : &e->kids[0];
  for (int i = 0; i < nf; i++) {
    const EinExpr *f = fs[i];
    if (f->tag != EIN_DELTA || f->idx[0] == f->idx[1]) continue;
    for (int side = 0; side < 2; side++) {
      EinIdx s = f->idx[side], t = f->idx[1 - side];
      const EinBinder *bs = ein_idx_is_var(s) ? ein_n_binder(e, s) : NULL;
      if (!bs || !contractible(e, bs, t)) continue;
      if (!ein_idx_is_var(t) && (ein_idx_val(t) < bs->lo || ein_idx_val(t) > bs->hi))
        return ein_n_int(n, 0);
      const EinExpr *rest = product_except(n, nf, fs, i, -1, 0, NULL);
      int from = s;
      rest = ein_subst(n->c, rest, 1, &from, &t);
      return ein_n_sum_without(n, e, s, rest);
    }
  }
  return NULL;
}

/* Whether index x is a variable bound by sum e over lo..hi. */
static bool bound_with_range(const EinExpr *e, EinIdx x, int lo, int hi) {
  if (!ein_idx_is_var(x)) return false;
  const EinBinder *b = ein_n_binder(e, x);
  return b && b->lo == lo && b->hi == hi;
}

static int position_of(const EinExpr *eps, EinIdx x) {
  for (int p = 0; p < eps->nidx; p++)
    if (eps->idx[p] == x) return p;
  return -1;
}

/* Σ_s ε_spq ε_srt e → Σ (δ_pr δ_qt e) - Σ (δ_pt δ_qr e) when s is bound here
 * (over 0..2) and not used by e; ε is first rotated cyclically so that the
 * shared index comes first. */
const EinExpr *ein_rule_eps_eps(EinNorm *n, const EinExpr *e) {
  const EinExpr *body = e->kids[0];
  if (body->tag != EIN_MUL) return NULL;
  int nf = body->nkids;
  const EinExpr *const *fs = body->kids;
  for (int i = 0; i < nf; i++) {
    if (fs[i]->tag != EIN_EPS || fs[i]->nidx != 3) continue;
    for (int j = i + 1; j < nf; j++) {
      if (fs[j]->tag != EIN_EPS || fs[j]->nidx != 3) continue;
      for (int p = 0; p < 3; p++) {
        EinIdx s = fs[i]->idx[p];
        int q = position_of(fs[j], s);
        if (q < 0 || !bound_with_range(e, s, 0, 2)) continue;
        const EinExpr *rest = product_except(n, nf, fs, i, j, 0, NULL);
        if (ein_free_in(rest, s)) continue;
        EinIdx p1 = fs[i]->idx[(p + 1) % 3], p2 = fs[i]->idx[(p + 2) % 3];
        EinIdx r1 = fs[j]->idx[(q + 1) % 3], r2 = fs[j]->idx[(q + 2) % 3];
        const EinExpr *d1[2] = {ein_delta(n->c, p1, r1), ein_delta(n->c, p2, r2)};
        const EinExpr *d2[2] = {ein_delta(n->c, p1, r2), ein_delta(n->c, p2, r1)};
        const EinExpr *t1 = product_except(n, nf, fs, i, j, 2, d1);
        const EinExpr *t2 = product_except(n, nf, fs, i, j, 2, d2);
        return ein_sub(n->c, ein_n_sum_without(n, e, s, t1), ein_n_sum_without(n, e, s, t2));
      }
    }
  }
  return NULL;
}

/* 2-D: Σ_s ε_sp ε_sr e → δ_pr e (ε_ps = -ε_sp flips the sign). */
const EinExpr *ein_rule_eps2_eps2(EinNorm *n, const EinExpr *e) {
  const EinExpr *body = e->kids[0];
  if (body->tag != EIN_MUL) return NULL;
  int nf = body->nkids;
  const EinExpr *const *fs = body->kids;
  for (int i = 0; i < nf; i++) {
    if (fs[i]->tag != EIN_EPS || fs[i]->nidx != 2) continue;
    for (int j = i + 1; j < nf; j++) {
      if (fs[j]->tag != EIN_EPS || fs[j]->nidx != 2) continue;
      for (int p = 0; p < 2; p++) {
        EinIdx s = fs[i]->idx[p];
        int q = position_of(fs[j], s);
        if (q < 0 || !bound_with_range(e, s, 0, 1)) continue;
        const EinExpr *rest = product_except(n, nf, fs, i, j, 0, NULL);
        if (ein_free_in(rest, s)) continue;
        const EinExpr *dl = ein_delta(n->c, fs[i]->idx[1 - p], fs[j]->idx[1 - q]);
        const EinExpr *t = ein_n_sum_without(n, e, s, product_except(n, nf, fs, i, j, 1, &dl));
        return (p + q) % 2 ? ein_neg(n->c, t) : t;
      }
    }
  }
  return NULL;
}

/* Σ_{u,v} ε_..u..v.. e → 0 when e is symmetric in u and v (both bound here
 * over the same range): swapping u and v negates ε and leaves e, so the sum
 * equals its own negation. Symmetry is checked syntactically modulo the
 * order of partial derivatives and of the operands of + and *; this covers
 * ∇×∇F = 0 and ∇•(∇×F) = 0. */
const EinExpr *ein_rule_eps_symmetric(EinNorm *n, const EinExpr *e) {
  const EinExpr *body = e->kids[0];
  int nf = body->tag == EIN_MUL ? body->nkids : 1;
  const EinExpr *const *fs = body->tag == EIN_MUL ? body->kids : &e->kids[0];
  for (int i = 0; i < nf; i++) {
    const EinExpr *eps = fs[i];
    if (eps->tag != EIN_EPS) continue;
    for (int p = 0; p < eps->nidx; p++)
      for (int q = p + 1; q < eps->nidx; q++) {
        EinIdx u = eps->idx[p], v = eps->idx[q];
        if (!ein_idx_is_var(u) || !ein_idx_is_var(v) || u == v) continue;
        const EinBinder *bu = ein_n_binder(e, u), *bv = ein_n_binder(e, v);
        if (!bu || !bv || bu->lo != bv->lo || bu->hi != bv->hi) continue;
        const EinExpr *rest = product_except(n, nf, fs, i, -1, 0, NULL);
        int from[2] = {u, v};
        EinIdx to[2] = {v, u};
        const EinExpr *swapped = ein_subst(n->c, rest, 2, from, to);
        if (swapped == rest || ein_n_comm_canon(n, swapped) == ein_n_comm_canon(n, rest))
          return ein_n_int(n, 0);
      }
  }
  return NULL;
}
