/* index_expr.c -- hash-consed index expressions, range analysis, the
 * div/mod simplifier, strength reduction, hoisting and the C printer.
 *
 * Invariants of canonical (builder-made) nodes:
 *   ADD(k, t1..tn): n >= 1, (n >= 2 or k != 0), terms sorted by monomial id,
 *                   no ADD or CONST among the terms;
 *   MUL(k, a1..an): k != 0, (n >= 2 or k != 1), atoms sorted by id (repeats
 *                   allowed), no ADD/MUL/CONST atoms unless a sum was too
 *                   large to distribute (then the sum stays an atom).
 * A "monomial" is a MUL with k == 1 or a single atom.
 */
#include "layout/index_expr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *name;
  int64_t lo, hi, align;
  const IxExpr *bound, *expr;
} IxVarInfo;

struct IxCtx {
  Arena *arena;
  IxExpr **tab; /* open addressing; capacity is a power of two */
  size_t cap, count;
  IxVarInfo *vars;
  int nvars, capvars;
  uint32_t next_id;
  bool overflow;
};

/* Interval bounds at or beyond +-2^62 count as infinite, so that interval
 * arithmetic in __int128 never has to track true overflow. */
#define BIG ((__int128)1 << 62)

static int64_t norm_lo(__int128 v) { return v <= -BIG ? IX_NINF : v >= BIG ? IX_INF : (int64_t)v; }
static int64_t norm_hi(__int128 v) { return v >= BIG ? IX_INF : v <= -BIG ? IX_NINF : (int64_t)v; }

static int64_t fdiv64(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static int64_t fmod64(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
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
static int log2_exact(int64_t v) {
  if (v <= 0 || (v & (v - 1))) return -1;
  int k = 0;
  while (((int64_t)1 << k) != v) k++;
  return k;
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
static const IxExpr *intern(IxCtx *c, IxOp op, int64_t k, const IxExpr *const *args, int n) {
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

const IxExpr *ix_const(IxCtx *c, int64_t k) { return intern(c, IX_CONST, k, NULL, 0); }

static int64_t ck_mul(IxCtx *c, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) { c->overflow = true; return 0; }
  return r;
}
static int64_t ck_add(IxCtx *c, int64_t a, int64_t b) {
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
  v->expr = intern(c, IX_VAR, c->nvars, NULL, 0);
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
typedef struct { int64_t c; const IxExpr *m; } Term;
typedef struct { int64_t k; Term *t; int n, cap; } Lin;

static void lin_push(IxCtx *c, Lin *l, int64_t coef, const IxExpr *m) {
  if (l->n == l->cap) {
    int ncap = l->cap ? l->cap * 2 : 8;
    Term *nt = ARENA_NEW_ARRAY(c->arena, Term, ncap);
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
    return e->n == 1 ? e->arg[0] : e->k == 1 ? e : intern(c, IX_MUL, 1, e->arg, e->n);
  }
  *coef = 1;
  return e;
}

static void lin_of(IxCtx *c, const IxExpr *e, Lin *l) {
  memset(l, 0, sizeof *l);
  if (e->op == IX_CONST) { l->k = e->k; return; }
  if (e->op == IX_ADD) {
    l->k = e->k;
    for (int i = 0; i < e->n; i++) {
      int64_t k;
      const IxExpr *m = mono_of(c, e->arg[i], &k);
      lin_push(c, l, k, m);
    }
    return;
  }
  int64_t k;
  const IxExpr *m = mono_of(c, e, &k);
  lin_push(c, l, k, m);
}

static const IxExpr *term_node(IxCtx *c, int64_t coef, const IxExpr *m) {
  if (coef == 0) return ix_const(c, 0);
  if (coef == 1) return m;
  if (m->op == IX_MUL) return intern(c, IX_MUL, coef, m->arg, m->n);
  return intern(c, IX_MUL, coef, &m, 1);
}

static int term_cmp(const void *x, const void *y) {
  uint32_t a = ((const Term *)x)->m->id, b = ((const Term *)y)->m->id;
  return a < b ? -1 : a > b;
}

static const IxExpr *lin_build(IxCtx *c, Lin *l) {
  if (l->n > 1) qsort(l->t, (size_t)l->n, sizeof(Term), term_cmp);
  int w = 0;
  for (int i = 0; i < l->n; i++) {
    if (w > 0 && l->t[w - 1].m == l->t[i].m) l->t[w - 1].c = ck_add(c, l->t[w - 1].c, l->t[i].c);
    else l->t[w++] = l->t[i];
  }
  int n = 0;
  for (int i = 0; i < w; i++)
    if (l->t[i].c != 0) l->t[n++] = l->t[i];
  l->n = n;
  if (n == 0) return ix_const(c, l->k);
  if (n == 1 && l->k == 0) return term_node(c, l->t[0].c, l->t[0].m);
  const IxExpr **args = ARENA_NEW_ARRAY(c->arena, const IxExpr *, n);
  for (int i = 0; i < n; i++) args[i] = term_node(c, l->t[i].c, l->t[i].m);
  return intern(c, IX_ADD, l->k, args, n);
}

/* ---------------------------------------------------------------- builders */
const IxExpr *ix_add(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  if (ix_is_k(a, 0)) return b;
  if (ix_is_k(b, 0)) return a;
  Lin la, lb;
  lin_of(c, a, &la);
  lin_of(c, b, &lb);
  la.k = ck_add(c, la.k, lb.k);
  for (int i = 0; i < lb.n; i++) lin_push(c, &la, lb.t[i].c, lb.t[i].m);
  return lin_build(c, &la);
}

const IxExpr *ix_mulk(IxCtx *c, const IxExpr *a, int64_t k) {
  if (k == 0) return ix_const(c, 0);
  if (k == 1) return a;
  Lin l;
  lin_of(c, a, &l);
  l.k = ck_mul(c, l.k, k);
  for (int i = 0; i < l.n; i++) l.t[i].c = ck_mul(c, l.t[i].c, k);
  return lin_build(c, &l);
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
  return intern(c, IX_MUL, 1, args, na + nb);
}

enum { MAX_DISTRIBUTE = 64 };

const IxExpr *ix_mul(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  if (a->op == IX_CONST) return ix_mulk(c, b, a->k);
  if (b->op == IX_CONST) return ix_mulk(c, a, b->k);
  Lin la, lb;
  lin_of(c, a, &la);
  lin_of(c, b, &lb);
  int ta = la.n + (la.k != 0), tb = lb.n + (lb.k != 0);
  if (ta * tb > MAX_DISTRIBUTE) {
    /* Too big to expand: keep the sums as atoms of one monomial. */
    const IxExpr *ma = la.n == 1 && la.k == 0 ? la.t[0].m : a;
    const IxExpr *mb = lb.n == 1 && lb.k == 0 ? lb.t[0].m : b;
    int64_t ka = la.n == 1 && la.k == 0 ? la.t[0].c : 1;
    int64_t kb = lb.n == 1 && lb.k == 0 ? lb.t[0].c : 1;
    return term_node(c, ck_mul(c, ka, kb), mono_mul(c, ma, mb));
  }
  Lin r;
  memset(&r, 0, sizeof r);
  r.k = ck_mul(c, la.k, lb.k);
  for (int i = 0; i < la.n; i++) {
    if (lb.k) lin_push(c, &r, ck_mul(c, la.t[i].c, lb.k), la.t[i].m);
    for (int j = 0; j < lb.n; j++)
      lin_push(c, &r, ck_mul(c, la.t[i].c, lb.t[j].c), mono_mul(c, la.t[i].m, lb.t[j].m));
  }
  if (la.k)
    for (int j = 0; j < lb.n; j++) lin_push(c, &r, ck_mul(c, la.k, lb.t[j].c), lb.t[j].m);
  return lin_build(c, &r);
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
  return intern(c, IX_DIV, 0, args, 2);
}

const IxExpr *ix_mod(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  if (b->op == IX_CONST) {
    if (b->k == 1 || b->k == -1) return ix_const(c, 0);
    if (b->k != 0 && a->op == IX_CONST) return ix_const(c, fmod64(a->k, b->k));
  }
  if ((ix_is_k(a, 0) || a == b) && (b->lo > 0 || b->hi < 0)) return ix_const(c, 0);
  const IxExpr *args[2] = {a, b};
  return intern(c, IX_MOD, 0, args, 2);
}
const IxExpr *ix_divk(IxCtx *c, const IxExpr *a, int64_t k) { return ix_div(c, a, ix_const(c, k)); }
const IxExpr *ix_modk(IxCtx *c, const IxExpr *a, int64_t k) { return ix_mod(c, a, ix_const(c, k)); }

static const IxExpr *commutative(IxCtx *c, IxOp op, const IxExpr *a, const IxExpr *b) {
  const IxExpr *args[2] = {a, b};
  if (a->id > b->id) { args[0] = b; args[1] = a; }
  return intern(c, op, 0, args, 2);
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
  return intern(c, IX_LT, 0, args, 2);
}
const IxExpr *ix_le(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  return ix_lt(c, a, ix_addk(c, b, 1));
}
const IxExpr *ix_select(IxCtx *c, const IxExpr *cond, const IxExpr *a, const IxExpr *b) {
  if (cond->op == IX_CONST) return cond->k ? a : b;
  if (a == b) return a;
  const IxExpr *args[3] = {cond, a, b};
  return intern(c, IX_SELECT, 0, args, 3);
}
const IxExpr *ix_isqrt(IxCtx *c, const IxExpr *a) {
  if (a->op == IX_CONST && a->k >= 0) return ix_const(c, isqrt64(a->k));
  return intern(c, IX_ISQRT, 0, &a, 1);
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
  return intern(c, IX_AND, mask, &a, 1);
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

static const IxExpr *rebuild(IxCtx *c, const IxExpr *e, const IxExpr *const *args);

static const IxExpr *subst_rec(IxCtx *c, const IxExpr *e, const IxExpr *const *map, Memo *m) {
  if (m->memo && e->id < m->n && m->memo[e->id]) return m->memo[e->id];
  const IxExpr *r;
  if (e->op == IX_VAR) r = map[e->k] ? map[e->k] : e;
  else if (e->op == IX_CONST) r = e;
  else {
    const IxExpr **args = ARENA_NEW_ARRAY(c->arena, const IxExpr *, e->n);
    for (int i = 0; i < e->n; i++) args[i] = subst_rec(c, e->arg[i], map, m);
    r = rebuild(c, e, args);
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

static const IxExpr *rebuild(IxCtx *c, const IxExpr *e, const IxExpr *const *a) {
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
  return intern(c, IX_MUL, 1, rest, nr);
}

const IxExpr *ix_exact_div(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  if (ix_is_k(b, 0)) return NULL;
  if (ix_is_k(a, 0)) return a;
  if (a == b) return ix_const(c, 1);
  Lin la, lb;
  lin_of(c, a, &la);
  lin_of(c, b, &lb);
  if (lb.n == 0) { /* constant divisor */
    int64_t k = lb.k;
    if (la.k % k != 0) return NULL;
    Lin q;
    memset(&q, 0, sizeof q);
    q.k = la.k / k;
    for (int i = 0; i < la.n; i++) {
      Term t = la.t[i];
      if (t.c % k == 0) { lin_push(c, &q, t.c / k, t.m); continue; }
      /* c*v/k with align(v) making it exact: (c*al/k) * (v/al). */
      int64_t al = align_of_mono(c, t.m), ca;
      if (t.m->op != IX_VAR || __builtin_mul_overflow(t.c, al, &ca) || ca % k != 0) return NULL;
      lin_push(c, &q, 1, term_node(c, ca / k, ix_divk(c, t.m, al)));
    }
    return lin_build(c, &q);
  }
  if (lb.n == 1 && lb.k == 0) { /* monomial divisor */
    if (la.k != 0) return NULL;
    Lin q;
    memset(&q, 0, sizeof q);
    for (int i = 0; i < la.n; i++) {
      const IxExpr *m = mono_quot(c, la.t[i].m, lb.t[0].m);
      if (!m || la.t[i].c % lb.t[0].c != 0) return NULL;
      if (m->op == IX_CONST) q.k = ck_add(c, q.k, la.t[i].c / lb.t[0].c);
      else lin_push(c, &q, la.t[i].c / lb.t[0].c, m);
    }
    return lin_build(c, &q);
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
static void split_by(IxCtx *c, const Lin *l, int64_t cc, Lin *q, Lin *s) {
  memset(q, 0, sizeof *q);
  memset(s, 0, sizeof *s);
  q->k = fdiv64(l->k, cc);
  s->k = fmod64(l->k, cc);
  for (int i = 0; i < l->n; i++) {
    if (l->t[i].c % cc == 0) lin_push(c, q, l->t[i].c / cc, l->t[i].m);
    else lin_push(c, s, l->t[i].c, l->t[i].m);
  }
}

static int cand_cmp(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a > b ? -1 : a < b;
}
/* Candidate factors gcd(|coef|, a), 1 < cc < a, largest first. */
static int candidates(IxCtx *c, const Lin *r, int64_t a, int64_t **out) {
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
  Lin l, ql, rl;
  lin_of(c, x, &l);
  split_by(c, &l, a, &ql, &rl); /* (a*Q + R)/a = Q + R/a, exact */
  const IxExpr *q = lin_build(c, &ql);
  if (rl.n == 0) return q; /* R is a constant in [0, a) */
  const IxExpr *r = lin_build(c, &rl);
  int64_t j;
  if (one_period(r, a, &j)) return ix_addk(c, q, j); /* rules 3 and 5 */
  if (r->lo >= 0 && ix_prove_lt(c, r, ix_const(c, a))) return q;
  /* R = cc*Q' + S with S in one cc-period: R/a = (Q' + j)/(a/cc). */
  int64_t *cs;
  int nc = candidates(c, &rl, a, &cs);
  for (int i = 0; i < nc; i++) {
    Lin q2, sl;
    split_by(c, &rl, cs[i], &q2, &sl);
    if (!one_period(lin_build(c, &sl), cs[i], &j)) continue;
    const IxExpr *inner = ix_addk(c, lin_build(c, &q2), j);
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
  Lin l, rl;
  lin_of(c, x, &l);
  memset(&rl, 0, sizeof rl);
  rl.k = fmod64(l.k, a);
  for (int i = 0; i < l.n; i++) { /* (a*Q + R) % a = R % a; reduce coefficients */
    int64_t k = fmod64(l.t[i].c, a);
    if (k == 0) continue;
    if (l.t[i].c < 0) k -= a; /* keep the sign: |k - a| <= |c| */
    lin_push(c, &rl, k, l.t[i].m);
  }
  if (rl.n == 0) return ix_const(c, rl.k);
  const IxExpr *r = lin_build(c, &rl);
  int64_t j;
  if (one_period(r, a, &j)) return ix_addk(c, r, -j * a); /* rule 4 */
  if (r->lo >= 0 && ix_prove_lt(c, r, ix_const(c, a))) return r;
  /* R = cc*Q' + S, S in [j*cc, (j+1)*cc): R % a = cc*((Q'+j) % (a/cc)) + S - j*cc */
  const IxExpr *plain = ix_modk(c, r, a);
  int64_t *cs;
  int nc = candidates(c, &rl, a, &cs);
  for (int i = 0; i < nc; i++) {
    Lin q2, sl;
    split_by(c, &rl, cs[i], &q2, &sl);
    const IxExpr *s = lin_build(c, &sl);
    if (!one_period(s, cs[i], &j)) continue;
    const IxExpr *inner = simp_modk(c, ix_addk(c, lin_build(c, &q2), j), a / cs[i], depth + 1);
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
  Lin l, rl;
  lin_of(c, x, &l);
  memset(&rl, 0, sizeof rl);
  rl.k = l.k;
  *q = ix_const(c, 0);
  for (int i = 0; i < l.n; i++) {
    const IxExpr *t = term_node(c, l.t[i].c, l.t[i].m), *d = ix_exact_div(c, t, b);
    if (d) *q = ix_add(c, *q, d);
    else lin_push(c, &rl, l.t[i].c, l.t[i].m);
  }
  *r = lin_build(c, &rl);
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
  Lin l;
  lin_of(c, e, &l);
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
      if (!repl || target != term_node(c, l.t[j].c, mj)) continue;
      l.t[i].c = 0;
      l.t[j].c = 0;
      return ix_add(c, lin_build(c, &l), repl);
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
      r = intern(c, e->op, e->k, s, e->n);
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
    const IxExpr *b = rebuild(c, e, a); /* canonical mul/div/mod form */
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
      r = intern(c, IX_SHR, sh, a, 1);
    else if (e->op == IX_MOD && sh >= 0 && x->lo >= 0)
      r = intern(c, IX_AND, e->arg[1]->k - 1, a, 1);
    else if (e->op == IX_MUL && log2_exact(e->k) > 0) {
      /* coefficient 2^s times a product proven non-negative */
      const IxExpr *p = e->n == 1 ? a[0] : intern(c, IX_MUL, 1, a, e->n);
      int64_t plo = 1;
      for (int i = 0; i < e->n; i++) plo = plo && e->arg[i]->lo >= 0;
      r = plo ? intern(c, IX_SHL, log2_exact(e->k), &p, 1) : intern(c, IX_MUL, e->k, a, e->n);
    } else
      r = intern(c, e->op, e->k, a, e->n);
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
  Lin l, li, ld;
  lin_of(c, e, &l);
  memset(&li, 0, sizeof li);
  memset(&ld, 0, sizeof ld);
  li.k = l.k;
  for (int i = 0; i < l.n; i++)
    lin_push(c, ix_depends(l.t[i].m, vars, n) ? &ld : &li, l.t[i].c, l.t[i].m);
  *inv = lin_build(c, &li);
  *dep = lin_build(c, &ld);
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
