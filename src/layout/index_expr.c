/* index_expr.c -- hash-consed index expressions: the context and its
 * variables, range analysis of every node, the canonical builders (exact
 * algebra only), evaluation, substitution and the C printer. What needs
 * range facts to rewrite (provers, the div/mod simplifier, strength
 * reduction, hoisting) is in index_simplify.c.
 *
 * Invariants of canonical (builder-made) nodes:
 *   ADD(k, t1..tn): n >= 1, (n >= 2 or k != 0), terms sorted by monomial id,
 *                   no ADD or CONST among the terms;
 *   MUL(k, a1..an): k != 0, (n >= 2 or k != 1), atoms sorted by id (repeats
 *                   allowed), no ADD/MUL/CONST atoms unless a sum was too
 *                   large to distribute (then the sum stays an atom).
 * A "monomial" is a MUL with k == 1 or a single atom.
 */
#include "layout/index_expr_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Interval bounds at or beyond +-2^62 count as infinite, so that interval
 * arithmetic in __int128 never has to track true overflow. */
#define BIG ((__int128)1 << 62)

static int64_t norm_lo(__int128 v) { return v <= -BIG ? IX_NINF : v >= BIG ? IX_INF : (int64_t)v; }
static int64_t norm_hi(__int128 v) { return v >= BIG ? IX_INF : v <= -BIG ? IX_NINF : (int64_t)v; }

static int64_t isqrt64(int64_t x) {
  if (x <= 0) return 0;
  int64_t r = 0, bit = (int64_t)1 << 62;
  while (bit > x) bit >>= 2;
  while (bit) {
    if (x >= r + bit) {
      x -= r + bit;
      r = (r >> 1) + bit;
    } else {
      r >>= 1;
    }
    bit >>= 2;
  }
  return r;
}

/* ------------------------------------------------------------------ ranges */
static void range_mul(int64_t alo, int64_t ahi, int64_t blo, int64_t bhi, int64_t *lo,
                      int64_t *hi) {
  __int128 ends[2][2] = {{alo, ahi}, {blo, bhi}};
  __int128 mn = 0, mx = 0;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      __int128 x = ends[0][i], y = ends[1][j], p;
      /* 0 * inf is 0 here: a zero end is an attained value, inf is not. */
      if (x == 0 || y == 0) p = 0;
      else if (x >= BIG || x <= -BIG || y >= BIG || y <= -BIG)
        p = ((x > 0) == (y > 0)) ? BIG : -BIG;
      else p = x * y;
      if ((i | j) == 0 || p < mn) mn = p;
      if ((i | j) == 0 || p > mx) mx = p;
    }
  *lo = norm_lo(mn);
  *hi = norm_hi(mx);
}

static void range_of(IxCtx *c, IxExpr *e) {
  int64_t lo = IX_NINF, hi = IX_INF;
  const IxExpr *a = e->n > 0 ? e->arg[0] : NULL, *b = e->n > 1 ? e->arg[1] : NULL;
  switch (e->op) {
  case IX_CONST: lo = hi = e->k; break;
  case IX_VAR: lo = c->vars[e->k].lo; hi = c->vars[e->k].hi; break;
  case IX_ADD: {
    __int128 l = e->k, h = e->k;
    bool linf = false, hinf = false;
    for (int i = 0; i < e->n; i++) {
      if (e->arg[i]->lo == IX_NINF) linf = true; else l += e->arg[i]->lo;
      if (e->arg[i]->hi == IX_INF) hinf = true; else h += e->arg[i]->hi;
    }
    lo = linf ? IX_NINF : norm_lo(l);
    hi = hinf ? IX_INF : norm_hi(h);
    break;
  }
  case IX_MUL:
    lo = hi = e->k;
    for (int i = 0; i < e->n; i++) range_mul(lo, hi, e->arg[i]->lo, e->arg[i]->hi, &lo, &hi);
    break;
  case IX_SHL:
    range_mul(a->lo, a->hi, (int64_t)1 << e->k, (int64_t)1 << e->k, &lo, &hi);
    break;
  case IX_DIV:
  case IX_SHR: {
    int64_t blo = e->op == IX_SHR ? (int64_t)1 << e->k : b->lo;
    int64_t bhi = e->op == IX_SHR ? blo : b->hi;
    if (blo < 1) break; /* divisor may be <= 0: unknown */
    if (a->lo >= 0) {
      lo = bhi == IX_INF ? 0 : a->lo / bhi;
      hi = a->hi == IX_INF ? IX_INF : a->hi / blo;
    } else {
      lo = a->lo == IX_NINF ? IX_NINF : fdiv64(a->lo, blo);
      hi = a->hi == IX_INF ? IX_INF : a->hi >= 0 ? a->hi / blo : -1;
      if (a->hi < 0 && bhi != IX_INF) hi = fdiv64(a->hi, bhi);
    }
    break;
  }
  case IX_MOD:
    if (b->lo < 1) break;
    lo = 0;
    hi = b->hi == IX_INF ? IX_INF : b->hi - 1;
    if (a->lo >= 0 && a->hi < hi) hi = a->hi;
    if (b->lo == b->hi && a->lo != IX_NINF && a->hi != IX_INF &&
        fdiv64(a->lo, b->lo) == fdiv64(a->hi, b->lo)) {
      lo = fmod64(a->lo, b->lo);
      hi = fmod64(a->hi, b->lo);
    }
    break;
  case IX_AND:
    if (e->k >= 0) {
      lo = 0;
      hi = e->k;
      if (a->lo >= 0 && a->hi < hi) hi = a->hi;
    }
    break;
  case IX_MIN:
    lo = a->lo < b->lo ? a->lo : b->lo;
    hi = a->hi < b->hi ? a->hi : b->hi;
    break;
  case IX_MAX:
    lo = a->lo > b->lo ? a->lo : b->lo;
    hi = a->hi > b->hi ? a->hi : b->hi;
    break;
  case IX_LT:
    lo = 0;
    hi = 1;
    if (a->hi != IX_INF && b->lo != IX_NINF && a->hi < b->lo) lo = 1;
    if (a->lo != IX_NINF && b->hi != IX_INF && a->lo >= b->hi) hi = 0;
    break;
  case IX_SELECT: {
    const IxExpr *t = e->arg[1], *f = e->arg[2];
    if (a->lo > 0 || a->hi < 0) { lo = t->lo; hi = t->hi; }
    else if (a->lo == 0 && a->hi == 0) { lo = f->lo; hi = f->hi; }
    else {
      lo = t->lo < f->lo ? t->lo : f->lo;
      hi = t->hi > f->hi ? t->hi : f->hi;
    }
    break;
  }
  case IX_ISQRT:
    lo = isqrt64(a->lo > 0 ? a->lo : 0);
    hi = a->hi == IX_INF ? IX_INF : isqrt64(a->hi);
    break;
  }
  e->lo = lo;
  e->hi = hi;
}

/* ----------------------------------------------------------- hash consing */
static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}
static uint32_t hash_node(IxOp op, int64_t k, const IxExpr *const *args, int n) {
  uint64_t h = mix((uint64_t)op * 31 + (uint64_t)n, (uint64_t)k);
  for (int i = 0; i < n; i++) h = mix(h, args[i]->id);
  return (uint32_t)(h ^ (h >> 32));
}

static void grow(IxCtx *c) {
  size_t ncap = c->cap ? c->cap * 2 : 1024;
  IxExpr **nt = ARENA_NEW_ARRAY(c->arena, IxExpr *, ncap);
  for (size_t i = 0; i < c->cap; i++) {
    IxExpr *e = c->tab[i];
    if (!e) continue;
    size_t j = e->hash & (ncap - 1);
    while (nt[j]) j = (j + 1) & (ncap - 1);
    nt[j] = e;
  }
  c->tab = nt;
  c->cap = ncap;
}

/* The one place nodes are made: no normalisation, only sharing. */
const IxExpr *ix_intern(IxCtx *c, IxOp op, int64_t k, const IxExpr *const *args, int n) {
  if ((c->count + 1) * 2 > c->cap) grow(c);
  uint32_t h = hash_node(op, k, args, n);
  size_t j = h & (c->cap - 1);
  for (IxExpr *e; (e = c->tab[j]); j = (j + 1) & (c->cap - 1)) {
    if (e->hash != h || e->op != op || e->k != k || e->n != n) continue;
    int i = 0;
    while (i < n && e->arg[i] == args[i]) i++;
    if (i == n) return e;
  }
  IxExpr *e = ARENA_NEW(c->arena, IxExpr);
  const IxExpr **cp = ARENA_NEW_ARRAY(c->arena, const IxExpr *, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) cp[i] = args[i];
  e->op = op;
  e->k = k;
  e->n = n;
  e->arg = cp;
  e->hash = h;
  e->id = c->next_id++;
  range_of(c, e);
  c->tab[j] = e;
  c->count++;
  return e;
}

IxCtx *ix_ctx_new(Arena *arena) {
  IxCtx *c = ARENA_NEW(arena, IxCtx);
  c->arena = arena;
  grow(c);
  return c;
}
Arena *ix_arena(IxCtx *c) { return c->arena; }
bool ix_overflowed(const IxCtx *c) { return c->overflow; }

const IxExpr *ix_const(IxCtx *c, int64_t k) { return ix_intern(c, IX_CONST, k, NULL, 0); }

static int64_t ck_mul(IxCtx *c, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) { c->overflow = true; return 0; }
  return r;
}
int64_t ix_ck_add(IxCtx *c, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) { c->overflow = true; return 0; }
  return r;
}

/* --------------------------------------------------------------- variables */
const IxExpr *ix_var_full(IxCtx *c, const char *name, int64_t lo, int64_t hi,
                          const IxExpr *bound, int64_t align) {
  if (c->nvars == c->capvars) {
    int ncap = c->capvars ? c->capvars * 2 : 16;
    IxVarInfo *nv = ARENA_NEW_ARRAY(c->arena, IxVarInfo, ncap);
    if (c->nvars) memcpy(nv, c->vars, sizeof *nv * (size_t)c->nvars);
    c->vars = nv;
    c->capvars = ncap;
  }
  if (bound && bound->hi != IX_INF && bound->hi - 1 < hi) hi = bound->hi - 1;
  IxVarInfo *v = &c->vars[c->nvars];
  v->name = arena_strdup(c->arena, name ? name : "v");
  v->lo = lo;
  v->hi = hi;
  v->bound = bound;
  v->align = align >= 1 ? align : 1;
  v->expr = ix_intern(c, IX_VAR, c->nvars, NULL, 0);
  c->nvars++;
  return v->expr;
}
const IxExpr *ix_var(IxCtx *c, const char *name, int64_t lo, int64_t hi) {
  return ix_var_full(c, name, lo, hi, NULL, 1);
}
int ix_nvars(const IxCtx *c) { return c->nvars; }
const char *ix_var_name(const IxCtx *c, int id) {
  return id >= 0 && id < c->nvars ? c->vars[id].name : "?";
}
const IxExpr *ix_var_expr(const IxCtx *c, int id) {
  return id >= 0 && id < c->nvars ? c->vars[id].expr : NULL;
}
const IxExpr *ix_var_by_name(const IxCtx *c, const char *name) {
  for (int i = c->nvars - 1; i >= 0; i--)
    if (strcmp(c->vars[i].name, name) == 0) return c->vars[i].expr;
  return NULL;
}

/* ------------------------------------------------------------ linear forms */
void ix_lin_push(IxCtx *c, IxLin *l, int64_t coef, const IxExpr *m) {
  if (l->n == l->cap) {
    int ncap = l->cap ? l->cap * 2 : 8;
    IxTerm *nt = ARENA_NEW_ARRAY(c->arena, IxTerm, ncap);
    if (l->n) memcpy(nt, l->t, sizeof *nt * (size_t)l->n);
    l->t = nt;
    l->cap = ncap;
  }
  l->t[l->n].c = coef;
  l->t[l->n].m = m;
  l->n++;
}

/* The coefficient-1 monomial of a term node. */
static const IxExpr *mono_of(IxCtx *c, const IxExpr *e, int64_t *coef) {
  if (e->op == IX_MUL) {
    *coef = e->k;
    return e->n == 1 ? e->arg[0] : e->k == 1 ? e : ix_intern(c, IX_MUL, 1, e->arg, e->n);
  }
  *coef = 1;
  return e;
}

void ix_lin_of(IxCtx *c, const IxExpr *e, IxLin *l) {
  memset(l, 0, sizeof *l);
  if (e->op == IX_CONST) { l->k = e->k; return; }
  if (e->op == IX_ADD) {
    l->k = e->k;
    for (int i = 0; i < e->n; i++) {
      int64_t k;
      const IxExpr *m = mono_of(c, e->arg[i], &k);
      ix_lin_push(c, l, k, m);
    }
    return;
  }
  int64_t k;
  const IxExpr *m = mono_of(c, e, &k);
  ix_lin_push(c, l, k, m);
}

const IxExpr *ix_term_node(IxCtx *c, int64_t coef, const IxExpr *m) {
  if (coef == 0) return ix_const(c, 0);
  if (coef == 1) return m;
  if (m->op == IX_MUL) return ix_intern(c, IX_MUL, coef, m->arg, m->n);
  return ix_intern(c, IX_MUL, coef, &m, 1);
}

static int term_cmp(const void *x, const void *y) {
  uint32_t a = ((const IxTerm *)x)->m->id, b = ((const IxTerm *)y)->m->id;
  return a < b ? -1 : a > b;
}

const IxExpr *ix_lin_build(IxCtx *c, IxLin *l) {
  if (l->n > 1) qsort(l->t, (size_t)l->n, sizeof(IxTerm), term_cmp);
  int w = 0;
  for (int i = 0; i < l->n; i++) {
    if (w > 0 && l->t[w - 1].m == l->t[i].m) l->t[w - 1].c = ix_ck_add(c, l->t[w - 1].c, l->t[i].c);
    else l->t[w++] = l->t[i];
  }
  int n = 0;
  for (int i = 0; i < w; i++)
    if (l->t[i].c != 0) l->t[n++] = l->t[i];
  l->n = n;
  if (n == 0) return ix_const(c, l->k);
  if (n == 1 && l->k == 0) return ix_term_node(c, l->t[0].c, l->t[0].m);
  const IxExpr **args = ARENA_NEW_ARRAY(c->arena, const IxExpr *, n);
  for (int i = 0; i < n; i++) args[i] = ix_term_node(c, l->t[i].c, l->t[i].m);
  return ix_intern(c, IX_ADD, l->k, args, n);
}

/* ---------------------------------------------------------------- builders */
const IxExpr *ix_add(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  if (ix_is_k(a, 0)) return b;
  if (ix_is_k(b, 0)) return a;
  IxLin la, lb;
  ix_lin_of(c, a, &la);
  ix_lin_of(c, b, &lb);
  la.k = ix_ck_add(c, la.k, lb.k);
  for (int i = 0; i < lb.n; i++) ix_lin_push(c, &la, lb.t[i].c, lb.t[i].m);
  return ix_lin_build(c, &la);
}

const IxExpr *ix_mulk(IxCtx *c, const IxExpr *a, int64_t k) {
  if (k == 0) return ix_const(c, 0);
  if (k == 1) return a;
  IxLin l;
  ix_lin_of(c, a, &l);
  l.k = ck_mul(c, l.k, k);
  for (int i = 0; i < l.n; i++) l.t[i].c = ck_mul(c, l.t[i].c, k);
  return ix_lin_build(c, &l);
}
const IxExpr *ix_addk(IxCtx *c, const IxExpr *a, int64_t k) { return ix_add(c, a, ix_const(c, k)); }
const IxExpr *ix_neg(IxCtx *c, const IxExpr *a) { return ix_mulk(c, a, -1); }
const IxExpr *ix_sub(IxCtx *c, const IxExpr *a, const IxExpr *b) { return ix_add(c, a, ix_neg(c, b)); }

static int atom_cmp(const void *x, const void *y) {
  uint32_t a = (*(const IxExpr *const *)x)->id, b = (*(const IxExpr *const *)y)->id;
  return a < b ? -1 : a > b;
}

/* Product of two coefficient-1 monomials. */
static const IxExpr *mono_mul(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  int na = a->op == IX_MUL ? a->n : 1, nb = b->op == IX_MUL ? b->n : 1;
  const IxExpr **args = ARENA_NEW_ARRAY(c->arena, const IxExpr *, na + nb);
  for (int i = 0; i < na; i++) args[i] = a->op == IX_MUL ? a->arg[i] : a;
  for (int i = 0; i < nb; i++) args[na + i] = b->op == IX_MUL ? b->arg[i] : b;
  qsort(args, (size_t)(na + nb), sizeof *args, atom_cmp);
  return ix_intern(c, IX_MUL, 1, args, na + nb);
}

enum { MAX_DISTRIBUTE = 64 };

const IxExpr *ix_mul(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  if (a->op == IX_CONST) return ix_mulk(c, b, a->k);
  if (b->op == IX_CONST) return ix_mulk(c, a, b->k);
  IxLin la, lb;
  ix_lin_of(c, a, &la);
  ix_lin_of(c, b, &lb);
  int ta = la.n + (la.k != 0), tb = lb.n + (lb.k != 0);
  if (ta * tb > MAX_DISTRIBUTE) {
    /* Too big to expand: keep the sums as atoms of one monomial. */
    const IxExpr *ma = la.n == 1 && la.k == 0 ? la.t[0].m : a;
    const IxExpr *mb = lb.n == 1 && lb.k == 0 ? lb.t[0].m : b;
    int64_t ka = la.n == 1 && la.k == 0 ? la.t[0].c : 1;
    int64_t kb = lb.n == 1 && lb.k == 0 ? lb.t[0].c : 1;
    return ix_term_node(c, ck_mul(c, ka, kb), mono_mul(c, ma, mb));
  }
  IxLin r;
  memset(&r, 0, sizeof r);
  r.k = ck_mul(c, la.k, lb.k);
  for (int i = 0; i < la.n; i++) {
    if (lb.k) ix_lin_push(c, &r, ck_mul(c, la.t[i].c, lb.k), la.t[i].m);
    for (int j = 0; j < lb.n; j++)
      ix_lin_push(c, &r, ck_mul(c, la.t[i].c, lb.t[j].c), mono_mul(c, la.t[i].m, lb.t[j].m));
  }
  if (la.k)
    for (int j = 0; j < lb.n; j++) ix_lin_push(c, &r, ck_mul(c, la.k, lb.t[j].c), lb.t[j].m);
  return ix_lin_build(c, &r);
}

const IxExpr *ix_div(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  if (b->op == IX_CONST) {
    if (b->k == 1) return a;
    if (b->k == -1) return ix_neg(c, a);
    if (b->k != 0 && a->op == IX_CONST) {
      if (a->k == INT64_MIN && b->k == -1) c->overflow = true;
      else return ix_const(c, fdiv64(a->k, b->k));
    }
  }
  if (ix_is_k(a, 0) && (b->lo > 0 || b->hi < 0)) return a;
  if (a == b && (b->lo > 0 || b->hi < 0)) return ix_const(c, 1);
  const IxExpr *args[2] = {a, b};
  return ix_intern(c, IX_DIV, 0, args, 2);
}

const IxExpr *ix_mod(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  if (b->op == IX_CONST) {
    if (b->k == 1 || b->k == -1) return ix_const(c, 0);
    if (b->k != 0 && a->op == IX_CONST) return ix_const(c, fmod64(a->k, b->k));
  }
  if ((ix_is_k(a, 0) || a == b) && (b->lo > 0 || b->hi < 0)) return ix_const(c, 0);
  const IxExpr *args[2] = {a, b};
  return ix_intern(c, IX_MOD, 0, args, 2);
}
const IxExpr *ix_divk(IxCtx *c, const IxExpr *a, int64_t k) { return ix_div(c, a, ix_const(c, k)); }
const IxExpr *ix_modk(IxCtx *c, const IxExpr *a, int64_t k) { return ix_mod(c, a, ix_const(c, k)); }

static const IxExpr *commutative(IxCtx *c, IxOp op, const IxExpr *a, const IxExpr *b) {
  const IxExpr *args[2] = {a, b};
  if (a->id > b->id) { args[0] = b; args[1] = a; }
  return ix_intern(c, op, 0, args, 2);
}
const IxExpr *ix_min(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  if (a->op == IX_CONST && b->op == IX_CONST) return a->k < b->k ? a : b;
  if (a == b) return a;
  return commutative(c, IX_MIN, a, b);
}
const IxExpr *ix_max(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  if (a->op == IX_CONST && b->op == IX_CONST) return a->k > b->k ? a : b;
  if (a == b) return a;
  return commutative(c, IX_MAX, a, b);
}
const IxExpr *ix_lt(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  if (a->op == IX_CONST && b->op == IX_CONST) return ix_const(c, a->k < b->k);
  if (a == b) return ix_const(c, 0);
  const IxExpr *args[2] = {a, b};
  return ix_intern(c, IX_LT, 0, args, 2);
}
const IxExpr *ix_le(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  return ix_lt(c, a, ix_addk(c, b, 1));
}
const IxExpr *ix_select(IxCtx *c, const IxExpr *cond, const IxExpr *a, const IxExpr *b) {
  if (cond->op == IX_CONST) return cond->k ? a : b;
  if (a == b) return a;
  const IxExpr *args[3] = {cond, a, b};
  return ix_intern(c, IX_SELECT, 0, args, 3);
}
const IxExpr *ix_isqrt(IxCtx *c, const IxExpr *a) {
  if (a->op == IX_CONST && a->k >= 0) return ix_const(c, isqrt64(a->k));
  return ix_intern(c, IX_ISQRT, 0, &a, 1);
}
const IxExpr *ix_shl(IxCtx *c, const IxExpr *a, int sh) {
  if (sh < 0 || sh > 62) { c->overflow = true; return a; }
  return ix_mulk(c, a, (int64_t)1 << sh);
}
const IxExpr *ix_shr(IxCtx *c, const IxExpr *a, int sh) {
  if (sh < 0 || sh > 62) { c->overflow = true; return a; }
  return ix_divk(c, a, (int64_t)1 << sh);
}
const IxExpr *ix_and(IxCtx *c, const IxExpr *a, int64_t mask) {
  if (mask == 0) return ix_const(c, 0);
  if (mask == -1) return a;
  if (a->op == IX_CONST) return ix_const(c, a->k & mask);
  if (mask > 0 && mask < INT64_MAX && log2_exact(mask + 1) >= 0) return ix_modk(c, a, mask + 1);
  return ix_intern(c, IX_AND, mask, &a, 1);
}

/* -------------------------------------------------------------- evaluation */
bool ix_eval(const IxExpr *e, const int64_t *env, int64_t *out) {
  int64_t v[3] = {0, 0, 0};
  if (e->op != IX_ADD && e->op != IX_MUL)
    for (int i = 0; i < e->n && i < 3; i++)
      if (!ix_eval(e->arg[i], env, &v[i])) return false;
  int64_t r = 0;
  switch (e->op) {
  case IX_CONST: r = e->k; break;
  case IX_VAR:
    if (!env) return false;
    r = env[e->k];
    break;
  case IX_ADD:
  case IX_MUL:
    r = e->k;
    for (int i = 0; i < e->n; i++) {
      int64_t x;
      if (!ix_eval(e->arg[i], env, &x)) return false;
      if (e->op == IX_ADD ? __builtin_add_overflow(r, x, &r) : __builtin_mul_overflow(r, x, &r))
        return false;
    }
    break;
  case IX_DIV:
  case IX_MOD:
    if (v[1] == 0 || (v[0] == INT64_MIN && v[1] == -1)) return false;
    r = e->op == IX_DIV ? fdiv64(v[0], v[1]) : fmod64(v[0], v[1]);
    break;
  case IX_MIN: r = v[0] < v[1] ? v[0] : v[1]; break;
  case IX_MAX: r = v[0] > v[1] ? v[0] : v[1]; break;
  case IX_LT: r = v[0] < v[1]; break;
  case IX_SELECT: r = v[0] ? v[1] : v[2]; break;
  case IX_ISQRT:
    if (v[0] < 0) return false;
    r = isqrt64(v[0]);
    break;
  case IX_SHL:
    if (__builtin_mul_overflow(v[0], (int64_t)1 << e->k, &r)) return false;
    break;
  case IX_SHR: r = fdiv64(v[0], (int64_t)1 << e->k); break;
  case IX_AND: r = (int64_t)((uint64_t)v[0] & (uint64_t)e->k); break;
  }
  *out = r;
  return true;
}

/* Rebuild through the canonical builders with new leaves. */
typedef struct { const IxExpr **memo; size_t n; } Memo;

static const IxExpr *subst_rec(IxCtx *c, const IxExpr *e, const IxExpr *const *map, Memo *m) {
  if (m->memo && e->id < m->n && m->memo[e->id]) return m->memo[e->id];
  const IxExpr *r;
  if (e->op == IX_VAR) r = map[e->k] ? map[e->k] : e;
  else if (e->op == IX_CONST) r = e;
  else {
    const IxExpr **args = ARENA_NEW_ARRAY(c->arena, const IxExpr *, e->n);
    for (int i = 0; i < e->n; i++) args[i] = subst_rec(c, e->arg[i], map, m);
    r = ix_rebuild(c, e, args);
  }
  if (m->memo && e->id < m->n) m->memo[e->id] = r;
  return r;
}

const IxExpr *ix_subst(IxCtx *c, const IxExpr *e, const IxExpr *const *map) {
  Memo m;
  m.n = c->next_id;
  m.memo = calloc(m.n, sizeof *m.memo); /* temporary; works without it */
  const IxExpr *r = subst_rec(c, e, map, &m);
  free(m.memo);
  return r;
}

const IxExpr *ix_rebuild(IxCtx *c, const IxExpr *e, const IxExpr *const *a) {
  switch (e->op) {
  case IX_CONST:
  case IX_VAR: return e;
  case IX_ADD: {
    const IxExpr *r = ix_const(c, e->k);
    for (int i = 0; i < e->n; i++) r = ix_add(c, r, a[i]);
    return r;
  }
  case IX_MUL: {
    const IxExpr *r = ix_const(c, e->k);
    for (int i = 0; i < e->n; i++) r = ix_mul(c, r, a[i]);
    return r;
  }
  case IX_DIV: return ix_div(c, a[0], a[1]);
  case IX_MOD: return ix_mod(c, a[0], a[1]);
  case IX_MIN: return ix_min(c, a[0], a[1]);
  case IX_MAX: return ix_max(c, a[0], a[1]);
  case IX_LT: return ix_lt(c, a[0], a[1]);
  case IX_SELECT: return ix_select(c, a[0], a[1], a[2]);
  case IX_ISQRT: return ix_isqrt(c, a[0]);
  case IX_SHL: return ix_shl(c, a[0], (int)e->k);
  case IX_SHR: return ix_shr(c, a[0], (int)e->k);
  case IX_AND: return ix_and(c, a[0], e->k);
  }
  return e;
}

/* ----------------------------------------------------------------- printing */
typedef struct { IxCtx *c; char *s; size_t n, cap; } Buf;

static void put(Buf *b, const char *s) {
  size_t len = strlen(s);
  if (b->n + len + 1 > b->cap) {
    size_t ncap = (b->cap ? b->cap * 2 : 128) + len;
    char *ns = arena_alloc(b->c->arena, ncap);
    if (b->n) memcpy(ns, b->s, b->n);
    b->s = ns;
    b->cap = ncap;
  }
  memcpy(b->s + b->n, s, len + 1);
  b->n += len;
}
static void put_int(Buf *b, int64_t v) {
  char tmp[40];
  if (v == INT64_MIN) snprintf(tmp, sizeof tmp, "(-9223372036854775807LL-1)");
  else if (v > INT32_MAX || v < -INT32_MAX) snprintf(tmp, sizeof tmp, "%lldLL", (long long)v);
  else snprintf(tmp, sizeof tmp, "%lld", (long long)v);
  put(b, tmp);
}

enum { P_COND = 3, P_AND = 8, P_REL = 10, P_SHIFT = 11, P_ADD = 12, P_MUL = 13, P_UNARY = 15,
       P_PRIMARY = 16 };

static int prec_of(const IxExpr *e) {
  switch (e->op) {
  case IX_CONST: return e->k < 0 ? P_UNARY : P_PRIMARY;
  case IX_VAR: return P_PRIMARY;
  case IX_ADD: return P_ADD;
  case IX_MUL: return e->n == 1 && e->k == -1 ? P_UNARY : P_MUL;
  case IX_DIV:
  case IX_MOD:
    return e->arg[0]->lo >= 0 && e->arg[1]->lo >= 1 ? P_MUL : P_PRIMARY;
  case IX_SHL:
  case IX_SHR: return P_SHIFT;
  case IX_AND: return P_AND;
  case IX_LT: return P_REL;
  case IX_SELECT: return P_COND;
  default: return P_PRIMARY;
  }
}

static void pr(Buf *b, const IxExpr *e, int minprec);

/* A term printed without its sign (sign handled by the caller). */
static void pr_term_abs(Buf *b, const IxExpr *t) {
  if (t->op == IX_MUL && t->k < 0) {
    if (t->k != -1) { put_int(b, -t->k); put(b, "*"); }
    for (int i = 0; i < t->n; i++) {
      if (i) put(b, "*");
      pr(b, t->arg[i], P_MUL + 1);
    }
  } else if (t->op == IX_CONST) {
    put_int(b, t->k < 0 ? -t->k : t->k);
  } else {
    pr(b, t, P_MUL);
  }
}
static int64_t term_weight(const IxExpr *t) {
  if (t->op == IX_MUL) return t->k < 0 ? -t->k : t->k;
  if (t->op == IX_SHL) return (int64_t)1 << t->k;
  return 1;
}
static bool term_neg(const IxExpr *t) {
  return (t->op == IX_MUL && t->k < 0) || (t->op == IX_CONST && t->k < 0);
}

static void pr_call(Buf *b, const char *f, const IxExpr *x, const IxExpr *y) {
  put(b, f);
  put(b, "(");
  pr(b, x, 0);
  if (y) { put(b, ", "); pr(b, y, 0); }
  put(b, ")");
}

static void pr(Buf *b, const IxExpr *e, int minprec) {
  int p = prec_of(e);
  if (p < minprec) put(b, "(");
  char tmp[32];
  switch (e->op) {
  case IX_CONST: put_int(b, e->k); break;
  case IX_VAR: put(b, ix_var_name(b->c, (int)e->k)); break;
  case IX_ADD: {
    /* positive terms first, each group by increasing weight (stride) */
    const IxExpr **ts = ARENA_NEW_ARRAY(b->c->arena, const IxExpr *, e->n);
    for (int i = 0; i < e->n; i++) {
      int j = i;
      while (j > 0 && term_weight(ts[j - 1]) > term_weight(e->arg[i])) { ts[j] = ts[j - 1]; j--; }
      ts[j] = e->arg[i];
    }
    bool first = true;
    for (int pass = 0; pass < 2; pass++)
      for (int i = 0; i < e->n; i++) {
        const IxExpr *t = ts[i];
        if (term_neg(t) != (pass == 1)) continue;
        if (first && pass == 1) { put(b, "-"); pr_term_abs(b, t); }
        else if (first) pr(b, t, P_ADD);
        else { put(b, pass ? " - " : " + "); pr_term_abs(b, t); }
        first = false;
      }
    if (e->k > 0) { put(b, " + "); put_int(b, e->k); }
    else if (e->k < 0) { put(b, " - "); put_int(b, -e->k); }
    break;
  }
  case IX_MUL:
    if (e->k == -1 && e->n == 1) { put(b, "-"); pr(b, e->arg[0], P_UNARY); break; }
    if (e->k != 1) { put_int(b, e->k); put(b, "*"); }
    for (int i = 0; i < e->n; i++) {
      if (i) put(b, "*");
      pr(b, e->arg[i], P_MUL + 1);
    }
    break;
  case IX_DIV:
  case IX_MOD:
    if (p == P_PRIMARY) { pr_call(b, e->op == IX_DIV ? "ix_fdiv" : "ix_fmod", e->arg[0], e->arg[1]); break; }
    pr(b, e->arg[0], P_MUL + 1);
    put(b, e->op == IX_DIV ? " / " : " % ");
    pr(b, e->arg[1], P_MUL + 1);
    break;
  case IX_SHL:
  case IX_SHR:
    pr(b, e->arg[0], P_ADD + 1); /* (a + b) >> k: clear, and quiet under -Wparentheses */
    snprintf(tmp, sizeof tmp, e->op == IX_SHL ? " << %d" : " >> %d", (int)e->k);
    put(b, tmp);
    break;
  case IX_AND:
    pr(b, e->arg[0], P_MUL + 1);
    put(b, " & ");
    put_int(b, e->k);
    break;
  case IX_LT:
    pr(b, e->arg[0], P_SHIFT);
    put(b, " < ");
    pr(b, e->arg[1], P_SHIFT);
    break;
  case IX_SELECT:
    pr(b, e->arg[0], P_COND + 1);
    put(b, " ? ");
    pr(b, e->arg[1], P_COND + 1);
    put(b, " : ");
    pr(b, e->arg[2], P_COND);
    break;
  case IX_MIN: pr_call(b, "ix_min", e->arg[0], e->arg[1]); break;
  case IX_MAX: pr_call(b, "ix_max", e->arg[0], e->arg[1]); break;
  case IX_ISQRT: pr_call(b, "ix_isqrt", e->arg[0], NULL); break;
  }
  if (p < minprec) put(b, ")");
}

const char *ix_to_c(IxCtx *c, const IxExpr *e) {
  Buf b = {c, NULL, 0, 0};
  put(&b, "");
  pr(&b, e, 0);
  return b.s;
}

const char IX_C_PRELUDE[] =
    "static inline long long ix_fdiv(long long a, long long b)\n"
    "{ long long q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }\n"
    "static inline long long ix_fmod(long long a, long long b)\n"
    "{ long long r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }\n"
    "static inline long long ix_min(long long a, long long b) { return a < b ? a : b; }\n"
    "static inline long long ix_max(long long a, long long b) { return a > b ? a : b; }\n"
    "static inline long long ix_isqrt(long long x)\n"
    "{ long long r = 0, bit = 1LL << 62; if (x <= 0) return 0;\n"
    "  while (bit > x) bit >>= 2;\n"
    "  while (bit) { if (x >= r + bit) { x -= r + bit; r = (r >> 1) + bit; } else r >>= 1;"
    " bit >>= 2; }\n"
    "  return r; }\n";
