/* index_simplify.c -- what index expressions need range facts for: the
 * provers (ix_prove_le, ix_exact_div), the div/mod simplifier, strength
 * reduction for emission and the loop-hoisting splits. The builders of
 * index_expr.c only do exact algebra; every rewrite here is justified by
 * the value ranges, bounds and alignments of the variables.
 */
#include "layout/index_expr_impl.h"

#include <stdlib.h>
#include <string.h>

static int64_t gcd64(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* ---------------------------------------------------------------- analysis */
static int64_t align_of_mono(const IxCtx *c, const IxExpr *m) {
  if (m->op == IX_VAR) return c->vars[m->k].align;
  if (m->op == IX_MUL) {
    int64_t a = 1;
    for (int i = 0; i < m->n; i++) {
      int64_t x = align_of_mono(c, m->arg[i]), r;
      if (__builtin_mul_overflow(a, x, &r)) return a;
      a = r;
    }
    return a;
  }
  return 1;
}

/* Remove the atoms of monomial d from monomial m (multiset); NULL if absent. */
static const IxExpr *mono_quot(IxCtx *c, const IxExpr *m, const IxExpr *d) {
  int nm = m->op == IX_MUL ? m->n : 1, nd = d->op == IX_MUL ? d->n : 1;
  const IxExpr *const *am = m->op == IX_MUL ? m->arg : &m;
  const IxExpr *const *ad = d->op == IX_MUL ? d->arg : &d;
  const IxExpr **rest = ARENA_NEW_ARRAY(c->arena, const IxExpr *, nm);
  int nr = 0, j = 0;
  for (int i = 0; i < nm; i++) {
    if (j < nd && am[i] == ad[j]) j++;
    else rest[nr++] = am[i];
  }
  if (j < nd) return NULL; /* both lists are sorted by id, so this is exact */
  if (nr == 0) return ix_const(c, 1);
  if (nr == 1) return rest[0];
  return ix_intern(c, IX_MUL, 1, rest, nr);
}

const IxExpr *ix_exact_div(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  if (ix_is_k(b, 0)) return NULL;
  if (ix_is_k(a, 0)) return a;
  if (a == b) return ix_const(c, 1);
  IxLin la, lb;
  ix_lin_of(c, a, &la);
  ix_lin_of(c, b, &lb);
  if (lb.n == 0) { /* constant divisor */
    int64_t k = lb.k;
    if (la.k % k != 0) return NULL;
    IxLin q;
    memset(&q, 0, sizeof q);
    q.k = la.k / k;
    for (int i = 0; i < la.n; i++) {
      IxTerm t = la.t[i];
      if (t.c % k == 0) { ix_lin_push(c, &q, t.c / k, t.m); continue; }
      /* c*v/k with align(v) making it exact: (c*al/k) * (v/al). */
      int64_t al = align_of_mono(c, t.m), ca;
      if (t.m->op != IX_VAR || __builtin_mul_overflow(t.c, al, &ca) || ca % k != 0) return NULL;
      ix_lin_push(c, &q, 1, ix_term_node(c, ca / k, ix_divk(c, t.m, al)));
    }
    return ix_lin_build(c, &q);
  }
  if (lb.n == 1 && lb.k == 0) { /* monomial divisor */
    if (la.k != 0) return NULL;
    IxLin q;
    memset(&q, 0, sizeof q);
    for (int i = 0; i < la.n; i++) {
      const IxExpr *m = mono_quot(c, la.t[i].m, lb.t[0].m);
      if (!m || la.t[i].c % lb.t[0].c != 0) return NULL;
      if (m->op == IX_CONST) q.k = ix_ck_add(c, q.k, la.t[i].c / lb.t[0].c);
      else ix_lin_push(c, &q, la.t[i].c / lb.t[0].c, m);
    }
    return ix_lin_build(c, &q);
  }
  /* general divisor: only a constant multiple of it */
  if (la.n != lb.n || lb.t[0].c == 0 || la.t[0].m != lb.t[0].m) return NULL;
  if (la.t[0].c % lb.t[0].c != 0) return NULL;
  int64_t q = la.t[0].c / lb.t[0].c;
  const IxExpr *r = ix_mulk(c, b, q);
  return r == a ? ix_const(c, q) : NULL;
}

/* A symbolic upper bound U >= e (inclusive); e itself when nothing better. */
static const IxExpr *sym_ub(IxCtx *c, const IxExpr *e, int depth) {
  if (depth > 8) return e;
  switch (e->op) {
  case IX_VAR:
    if (c->vars[e->k].bound) return ix_addk(c, c->vars[e->k].bound, -1);
    return e;
  case IX_ADD: {
    const IxExpr *r = ix_const(c, e->k);
    for (int i = 0; i < e->n; i++) {
      const IxExpr *t = e->arg[i];
      if (t->lo >= 0) r = ix_add(c, r, sym_ub(c, t, depth + 1));
      else if (t->hi != IX_INF) r = ix_addk(c, r, t->hi);
      else return e;
    }
    return r;
  }
  case IX_MUL: {
    if (e->k < 0) return e->hi != IX_INF ? ix_const(c, e->hi) : e;
    const IxExpr *r = ix_const(c, e->k);
    for (int i = 0; i < e->n; i++) {
      if (e->arg[i]->lo < 0) return e;
      r = ix_mul(c, r, sym_ub(c, e->arg[i], depth + 1));
    }
    return r;
  }
  case IX_MOD:
    if (e->arg[1]->lo >= 1) return ix_addk(c, e->arg[1], -1);
    return e;
  case IX_DIV:
    if (e->arg[1]->op == IX_CONST && e->arg[1]->k > 0 && e->arg[0]->lo >= 0) {
      const IxExpr *u = sym_ub(c, e->arg[0], depth + 1);
      if (u->op == IX_CONST) return ix_const(c, fdiv64(u->k, e->arg[1]->k));
    }
    return e;
  default: return e;
  }
}

bool ix_prove_le(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  if (a == b) return true;
  if (a->hi != IX_INF && b->lo != IX_NINF && a->hi <= b->lo) return true;
  if (ix_sub(c, b, a)->lo >= 0) return true;
  const IxExpr *u = sym_ub(c, a, 0);
  return u != a && ix_sub(c, b, u)->lo >= 0;
}
bool ix_prove_lt(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  return ix_prove_le(c, ix_addk(c, a, 1), b);
}

int ix_cost(const IxExpr *e) {
  int s = 0;
  for (int i = 0; i < e->n; i++) s += ix_cost(e->arg[i]);
  switch (e->op) {
  case IX_CONST:
  case IX_VAR: return 0;
  case IX_ADD: return s + e->n - 1 + (e->k != 0);
  case IX_MUL: return s + 3 * (e->n - 1 + (e->k != 1));
  case IX_DIV:
  case IX_MOD: return s + (e->arg[1]->op == IX_CONST ? 10 : 20);
  case IX_SHL:
  case IX_SHR:
  case IX_AND:
  case IX_LT: return s + 1;
  case IX_MIN:
  case IX_MAX:
  case IX_SELECT: return s + 2;
  case IX_ISQRT: return s + 30;
  }
  return s;
}

int ix_count_op(const IxExpr *e, IxOp op) {
  int s = e->op == op;
  for (int i = 0; i < e->n; i++) s += ix_count_op(e->arg[i], op);
  return s;
}

/* ------------------------------------------------------------ simplifier */
enum { SIMP_DEPTH = 24 };

static const IxExpr *simp(IxCtx *c, const IxExpr *e, int depth);
static const IxExpr *simp_div(IxCtx *c, const IxExpr *x, const IxExpr *b, int depth);
static const IxExpr *simp_mod(IxCtx *c, const IxExpr *x, const IxExpr *b, int depth);

/* Does the value range of r lie in one period [j*a, (j+1)*a)? */
static bool one_period(const IxExpr *r, int64_t a, int64_t *j) {
  if (r->lo == IX_NINF || r->hi == IX_INF) return false;
  *j = fdiv64(r->lo, a);
  return *j == fdiv64(r->hi, a);
}

/* Split l (constant and terms) into cc*Q + S by coefficient divisibility. */
static void split_by(IxCtx *c, const IxLin *l, int64_t cc, IxLin *q, IxLin *s) {
  memset(q, 0, sizeof *q);
  memset(s, 0, sizeof *s);
  q->k = fdiv64(l->k, cc);
  s->k = fmod64(l->k, cc);
  for (int i = 0; i < l->n; i++) {
    if (l->t[i].c % cc == 0) ix_lin_push(c, q, l->t[i].c / cc, l->t[i].m);
    else ix_lin_push(c, s, l->t[i].c, l->t[i].m);
  }
}

static int cand_cmp(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a > b ? -1 : a < b;
}
/* Candidate factors gcd(|coef|, a), 1 < cc < a, largest first. */
static int candidates(IxCtx *c, const IxLin *r, int64_t a, int64_t **out) {
  int64_t *cs = ARENA_NEW_ARRAY(c->arena, int64_t, r->n + 1);
  int n = 0;
  for (int i = 0; i < r->n; i++) {
    int64_t g = gcd64(r->t[i].c, a);
    if (g <= 1 || g >= a) continue;
    int dup = 0;
    for (int j = 0; j < n; j++) dup |= cs[j] == g;
    if (!dup) cs[n++] = g;
  }
  if (n > 1) qsort(cs, (size_t)n, sizeof *cs, cand_cmp);
  *out = cs;
  return n;
}

/* floor(x / a), a > 0 constant; x simplified. */
static const IxExpr *simp_divk(IxCtx *c, const IxExpr *x, int64_t a, int depth) {
  if (a == 1) return x;
  IxLin l, ql, rl;
  ix_lin_of(c, x, &l);
  split_by(c, &l, a, &ql, &rl); /* (a*Q + R)/a = Q + R/a, exact */
  const IxExpr *q = ix_lin_build(c, &ql);
  if (rl.n == 0) return q; /* R is a constant in [0, a) */
  const IxExpr *r = ix_lin_build(c, &rl);
  int64_t j;
  if (one_period(r, a, &j)) return ix_addk(c, q, j); /* rules 3 and 5 */
  if (r->lo >= 0 && ix_prove_lt(c, r, ix_const(c, a))) return q;
  /* R = cc*Q' + S with S in one cc-period: R/a = (Q' + j)/(a/cc). */
  int64_t *cs;
  int nc = candidates(c, &rl, a, &cs);
  for (int i = 0; i < nc; i++) {
    IxLin q2, sl;
    split_by(c, &rl, cs[i], &q2, &sl);
    if (!one_period(ix_lin_build(c, &sl), cs[i], &j)) continue;
    const IxExpr *inner = ix_addk(c, ix_lin_build(c, &q2), j);
    return ix_add(c, q, simp_divk(c, inner, a / cs[i], depth + 1));
  }
  if (rl.k == 0 && rl.n == 1 && rl.t[0].c == 1) { /* nested div/mod */
    const IxExpr *m = rl.t[0].m, *b = m->n == 2 ? m->arg[1] : NULL;
    if (m->op == IX_DIV && b->lo >= 1) /* (X/b)/a = X/(a*b) */
      return ix_add(c, q, simp_div(c, m->arg[0], ix_mulk(c, b, a), depth + 1));
    if (m->op == IX_MOD && b->op == IX_CONST && b->k > 0 && b->k % a == 0)
      /* (X % (a*m))/a = (X/a) % m */
      return ix_add(c, q, simp_mod(c, simp_divk(c, m->arg[0], a, depth + 1),
                                   ix_const(c, b->k / a), depth + 1));
  }
  return ix_add(c, q, ix_divk(c, r, a));
}

/* x % a, a > 0 constant; x simplified. */
static const IxExpr *simp_modk(IxCtx *c, const IxExpr *x, int64_t a, int depth) {
  if (a == 1) return ix_const(c, 0);
  IxLin l, rl;
  ix_lin_of(c, x, &l);
  memset(&rl, 0, sizeof rl);
  rl.k = fmod64(l.k, a);
  for (int i = 0; i < l.n; i++) { /* (a*Q + R) % a = R % a; reduce coefficients */
    int64_t k = fmod64(l.t[i].c, a);
    if (k == 0) continue;
    if (l.t[i].c < 0) k -= a; /* keep the sign: |k - a| <= |c| */
    ix_lin_push(c, &rl, k, l.t[i].m);
  }
  if (rl.n == 0) return ix_const(c, rl.k);
  const IxExpr *r = ix_lin_build(c, &rl);
  int64_t j;
  if (one_period(r, a, &j)) return ix_addk(c, r, -j * a); /* rule 4 */
  if (r->lo >= 0 && ix_prove_lt(c, r, ix_const(c, a))) return r;
  /* R = cc*Q' + S, S in [j*cc, (j+1)*cc): R % a = cc*((Q'+j) % (a/cc)) + S - j*cc */
  const IxExpr *plain = ix_modk(c, r, a);
  int64_t *cs;
  int nc = candidates(c, &rl, a, &cs);
  for (int i = 0; i < nc; i++) {
    IxLin q2, sl;
    split_by(c, &rl, cs[i], &q2, &sl);
    const IxExpr *s = ix_lin_build(c, &sl);
    if (!one_period(s, cs[i], &j)) continue;
    const IxExpr *inner = simp_modk(c, ix_addk(c, ix_lin_build(c, &q2), j), a / cs[i], depth + 1);
    const IxExpr *alt = ix_add(c, ix_mulk(c, inner, cs[i]), ix_addk(c, s, -j * cs[i]));
    if (ix_cost(alt) <= ix_cost(plain)) return alt;
  }
  if (rl.k == 0 && rl.n == 1 && rl.t[0].c == 1) {
    const IxExpr *m = rl.t[0].m;
    if (m->op == IX_MOD && ix_exact_div(c, m->arg[1], ix_const(c, a)) && m->arg[1]->lo >= 1)
      return simp_modk(c, m->arg[0], a, depth + 1); /* (X % (a*m)) % a = X % a */
  }
  return plain;
}

/* Split x into terms divisible by the symbolic divisor b and the rest. */
static void split_sym(IxCtx *c, const IxExpr *x, const IxExpr *b, const IxExpr **q,
                      const IxExpr **r) {
  IxLin l, rl;
  ix_lin_of(c, x, &l);
  memset(&rl, 0, sizeof rl);
  rl.k = l.k;
  *q = ix_const(c, 0);
  for (int i = 0; i < l.n; i++) {
    const IxExpr *t = ix_term_node(c, l.t[i].c, l.t[i].m), *d = ix_exact_div(c, t, b);
    if (d) *q = ix_add(c, *q, d);
    else ix_lin_push(c, &rl, l.t[i].c, l.t[i].m);
  }
  *r = ix_lin_build(c, &rl);
}

static const IxExpr *simp_div(IxCtx *c, const IxExpr *x, const IxExpr *b, int depth) {
  if (depth > SIMP_DEPTH) return ix_div(c, x, b);
  if (b->op == IX_CONST && b->k > 0) return simp_divk(c, x, b->k, depth);
  if (b->lo < 1) return ix_div(c, x, b);
  const IxExpr *q, *r;
  split_sym(c, x, b, &q, &r);
  if (ix_is_k(r, 0)) return q;
  if (r->lo >= 0 && ix_prove_lt(c, r, b)) return q;
  if (r->op == IX_DIV && r->arg[1]->lo >= 1)
    return ix_add(c, q, simp_div(c, r->arg[0], ix_mul(c, r->arg[1], b), depth + 1));
  if (r->op == IX_MOD && r->arg[1]->lo >= 1) {
    const IxExpr *m = ix_exact_div(c, r->arg[1], b);
    if (m && m->lo >= 1)
      return ix_add(c, q, simp_mod(c, simp_div(c, r->arg[0], b, depth + 1), m, depth + 1));
  }
  return ix_add(c, q, ix_div(c, r, b));
}

static const IxExpr *simp_mod(IxCtx *c, const IxExpr *x, const IxExpr *b, int depth) {
  if (depth > SIMP_DEPTH) return ix_mod(c, x, b);
  if (b->op == IX_CONST && b->k > 0) return simp_modk(c, x, b->k, depth);
  if (b->lo < 1) return ix_mod(c, x, b);
  const IxExpr *q, *r;
  split_sym(c, x, b, &q, &r);
  if (r->lo >= 0 && ix_prove_lt(c, r, b)) return r;
  if (r->op == IX_MOD && r->arg[1]->lo >= 1 && ix_exact_div(c, r->arg[1], b))
    return simp_mod(c, r->arg[0], b, depth + 1);
  return ix_mod(c, r, b);
}

/* a*(X/a)*k + (X%a)*k -> X*k and a*((X/a)%m)*k + (X%a)*k -> (X%(a*m))*k. */
static const IxExpr *recombine(IxCtx *c, const IxExpr *e, int depth) {
  IxLin l;
  ix_lin_of(c, e, &l);
  for (int i = 0; i < l.n; i++) {
    const IxExpr *m = l.t[i].m;
    if (m->op != IX_MOD || m->arg[1]->lo < 1) continue;
    const IxExpr *x = m->arg[0], *a = m->arg[1], *d = ix_div(c, x, a);
    int64_t k = l.t[i].c;
    for (int j = 0; j < l.n; j++) {
      if (j == i) continue;
      const IxExpr *repl = NULL, *target = NULL;
      const IxExpr *mj = l.t[j].m;
      /* find an atom of mj that is d or (d % b) */
      int na = mj->op == IX_MUL ? mj->n : 1;
      for (int u = 0; u < na && !repl; u++) {
        const IxExpr *at = mj->op == IX_MUL ? mj->arg[u] : mj;
        if (at == d) {
          target = ix_mul(c, ix_mulk(c, a, k), d);
          repl = ix_mulk(c, x, k);
        } else if (at->op == IX_MOD && at->arg[0] == d && at->arg[1]->lo >= 1) {
          target = ix_mul(c, ix_mulk(c, a, k), at);
          repl = ix_mulk(c, simp_mod(c, x, ix_mul(c, a, at->arg[1]), depth + 1), k);
        }
      }
      if (!repl || target != ix_term_node(c, l.t[j].c, mj)) continue;
      l.t[i].c = 0;
      l.t[j].c = 0;
      return ix_add(c, ix_lin_build(c, &l), repl);
    }
  }
  return e;
}

static const IxExpr *simp(IxCtx *c, const IxExpr *e, int depth) {
  if (e->simp) return e->simp;
  const IxExpr *r = e, *a[3] = {NULL, NULL, NULL};
  if (e->op != IX_ADD && e->op != IX_MUL)
    for (int i = 0; i < e->n && i < 3; i++) a[i] = simp(c, e->arg[i], depth);
  switch (e->op) {
  case IX_CONST: break;
  case IX_VAR:
    if (e->lo == e->hi) r = ix_const(c, e->lo);
    break;
  case IX_ADD:
  case IX_MUL: {
    r = ix_const(c, e->k);
    for (int i = 0; i < e->n; i++) {
      const IxExpr *s = simp(c, e->arg[i], depth);
      r = e->op == IX_ADD ? ix_add(c, r, s) : ix_mul(c, r, s);
    }
    if (r->op == IX_ADD) r = recombine(c, r, depth);
    if (ix_cost(r) > ix_cost(e)) {
      /* distributing a product over a sum that appeared (e.g. a max decided
       * by ranges) duplicated work: keep the factored shape */
      const IxExpr **s = ARENA_NEW_ARRAY(c->arena, const IxExpr *, e->n);
      for (int i = 0; i < e->n; i++) s[i] = simp(c, e->arg[i], depth);
      r = ix_intern(c, e->op, e->k, s, e->n);
    }
    break;
  }
  case IX_DIV:
  case IX_MOD: {
    /* the rules may trade one div for another plus constants: keep the
     * plain form when that is not cheaper */
    const IxExpr *plain = e->op == IX_DIV ? ix_div(c, a[0], a[1]) : ix_mod(c, a[0], a[1]);
    r = e->op == IX_DIV ? simp_div(c, a[0], a[1], depth) : simp_mod(c, a[0], a[1], depth);
    if (ix_cost(r) > ix_cost(plain)) r = plain;
    break;
  }
  case IX_MIN:
  case IX_MAX: {
    bool le = ix_prove_le(c, a[0], a[1]), ge = ix_prove_le(c, a[1], a[0]);
    if (e->op == IX_MIN) r = le ? a[0] : ge ? a[1] : ix_min(c, a[0], a[1]);
    else r = le ? a[1] : ge ? a[0] : ix_max(c, a[0], a[1]);
    break;
  }
  case IX_LT:
    r = ix_prove_lt(c, a[0], a[1]) ? ix_const(c, 1)
        : ix_prove_le(c, a[1], a[0]) ? ix_const(c, 0) : ix_lt(c, a[0], a[1]);
    break;
  case IX_SELECT:
    if (a[0]->lo > 0 || a[0]->hi < 0) r = a[1];
    else if (a[0]->lo == 0 && a[0]->hi == 0) r = a[2];
    else r = ix_select(c, a[0], a[1], a[2]);
    break;
  case IX_ISQRT: r = ix_isqrt(c, a[0]); break;
  case IX_SHL:
  case IX_SHR:
  case IX_AND: {
    const IxExpr *b = ix_rebuild(c, e, a); /* canonical mul/div/mod form */
    r = b == e ? e : simp(c, b, depth + 1);
    break;
  }
  }
  if (r != e && depth < SIMP_DEPTH) r = simp(c, r, depth + 1);
  ((IxExpr *)e)->simp = r;
  return r;
}

const IxExpr *ix_simplify(IxCtx *c, const IxExpr *e) { return simp(c, e, 0); }

/* ------------------------------------------------------ strength reduction */
const IxExpr *ix_lower(IxCtx *c, const IxExpr *e) {
  if (e->low) return e->low;
  const IxExpr *r = e;
  if (e->n > 0) {
    const IxExpr **a = ARENA_NEW_ARRAY(c->arena, const IxExpr *, e->n);
    for (int i = 0; i < e->n; i++) a[i] = ix_lower(c, e->arg[i]);
    const IxExpr *x = e->arg[0];
    int sh = e->n == 2 && e->arg[1]->op == IX_CONST ? log2_exact(e->arg[1]->k) : -1;
    if (e->op == IX_DIV && sh >= 0 && x->lo >= 0)
      r = ix_intern(c, IX_SHR, sh, a, 1);
    else if (e->op == IX_MOD && sh >= 0 && x->lo >= 0)
      r = ix_intern(c, IX_AND, e->arg[1]->k - 1, a, 1);
    else if (e->op == IX_MUL && log2_exact(e->k) > 0) {
      /* coefficient 2^s times a product proven non-negative */
      const IxExpr *p = e->n == 1 ? a[0] : ix_intern(c, IX_MUL, 1, a, e->n);
      int64_t plo = 1;
      for (int i = 0; i < e->n; i++) plo = plo && e->arg[i]->lo >= 0;
      r = plo ? ix_intern(c, IX_SHL, log2_exact(e->k), &p, 1) : ix_intern(c, IX_MUL, e->k, a, e->n);
    } else
      r = ix_intern(c, e->op, e->k, a, e->n);
  }
  ((IxExpr *)e)->low = r;
  return r;
}

/* ----------------------------------------------------------------- hoisting */
bool ix_depends(const IxExpr *e, const int *vars, int n) {
  if (e->op == IX_VAR) {
    for (int i = 0; i < n; i++)
      if (vars[i] == e->k) return true;
    return false;
  }
  for (int i = 0; i < e->n; i++)
    if (ix_depends(e->arg[i], vars, n)) return true;
  return false;
}

void ix_split(IxCtx *c, const IxExpr *e, const int *vars, int n, const IxExpr **inv,
              const IxExpr **dep) {
  IxLin l, li, ld;
  ix_lin_of(c, e, &l);
  memset(&li, 0, sizeof li);
  memset(&ld, 0, sizeof ld);
  li.k = l.k;
  for (int i = 0; i < l.n; i++)
    ix_lin_push(c, ix_depends(l.t[i].m, vars, n) ? &ld : &li, l.t[i].c, l.t[i].m);
  *inv = ix_lin_build(c, &li);
  *dep = ix_lin_build(c, &ld);
}

static void invariants_rec(const IxExpr *e, const int *vars, int n, const IxExpr **out,
                           int max, int *cnt) {
  if (e->op == IX_CONST || e->op == IX_VAR) return;
  if (!ix_depends(e, vars, n)) {
    for (int i = 0; i < *cnt && i < max; i++)
      if (out[i] == e) return;
    if (*cnt < max) out[*cnt] = e;
    (*cnt)++;
    return;
  }
  for (int i = 0; i < e->n; i++) invariants_rec(e->arg[i], vars, n, out, max, cnt);
}
int ix_invariants(const IxExpr *e, const int *vars, int n, const IxExpr **out, int max) {
  int cnt = 0;
  invariants_rec(e, vars, n, out, max, &cnt);
  return cnt;
}
