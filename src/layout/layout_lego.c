/* layout_lego.c -- LEGO pieces, their apply/inv maps as index expressions,
 * built-in GenPs (anti-diagonal, Morton) and the RegP -> CuTe conversion.
 */
#include "layout/layout.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void fail(IxCtx *c, LytError *err, LytStatus st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fail(IxCtx *c, LytError *err, LytStatus st, const char *fmt, ...) {
  if (!err || err->status != LYT_OK) return;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  err->status = st;
  err->msg = arena_strdup(ix_arena(c), buf);
}
static void clear(LytError *err) {
  if (err) { err->status = LYT_OK; err->msg = NULL; }
}

#define NEWA(T, n) ARENA_NEW_ARRAY(ix_arena(c), T, (n) > 0 ? (n) : 1)

/* ------------------------------------------------------ canonical bijections */
const IxExpr *lego_flatten(IxCtx *c, const IxExpr *const *dims, const IxExpr *const *idx,
                           int d) {
  const IxExpr *f = ix_const(c, 0);
  for (int k = 0; k < d; k++) f = ix_add(c, ix_mul(c, f, dims[k]), idx[k]); /* Horner */
  return f;
}
void lego_unflatten(IxCtx *c, const IxExpr *const *dims, int d, const IxExpr *f,
                    const IxExpr **out) {
  for (int k = d - 1; k > 0; k--) {
    out[k] = ix_mod(c, f, dims[k]);
    f = ix_div(c, f, dims[k]);
  }
  if (d > 0) out[0] = f; /* B^{-1} of one dim is the identity */
}

static const IxExpr *prod(IxCtx *c, const IxExpr *const *dims, int d) {
  const IxExpr *r = ix_const(c, 1);
  for (int k = 0; k < d; k++) r = ix_mul(c, r, dims[k]);
  return r;
}

/* ---------------------------------------------------------------- pieces */
static const IxExpr *const *copy_dims(IxCtx *c, const IxExpr *const *dims, int d) {
  const IxExpr **r = NEWA(const IxExpr *, d);
  for (int k = 0; k < d; k++) r[k] = dims[k];
  return r;
}

const LegoPiece *lego_regp(IxCtx *c, const IxExpr *const *dims, const int *sigma, int d,
                           LytError *err) {
  clear(err);
  if (d < 1) {
    fail(c, err, LYT_E_ARG, "RegP: no dimensions");
    return NULL;
  }
  bool *seen = NEWA(bool, d);
  int *s = NEWA(int, d);
  for (int k = 0; k < d; k++) {
    if (sigma[k] < 0 || sigma[k] >= d || seen[sigma[k]]) {
      fail(c, err, LYT_E_ARG, "RegP: sigma is not a permutation of 0..%d", d - 1);
      return NULL;
    }
    seen[sigma[k]] = true;
    s[k] = sigma[k];
  }
  for (int k = 0; k < d; k++)
    if (dims[k]->lo < 1) {
      fail(c, err, LYT_E_ARG, "RegP: dimension %s may be < 1", ix_to_c(c, dims[k]));
      return NULL;
    }
  LegoPiece *p = ARENA_NEW(ix_arena(c), LegoPiece);
  p->kind = LEGO_REGP;
  p->d = d;
  p->dims = copy_dims(c, dims, d);
  p->sigma = s;
  p->name = "RegP";
  return p;
}

const IxExpr *lego_piece_size(IxCtx *c, const LegoPiece *p) { return prod(c, p->dims, p->d); }

const IxExpr *lego_piece_apply(IxCtx *c, const LegoPiece *p, const IxExpr *const *crd) {
  if (p->kind == LEGO_GENP) return p->apply(c, p->user, crd);
  const IxExpr **pd = NEWA(const IxExpr *, p->d), **pi = NEWA(const IxExpr *, p->d);
  for (int k = 0; k < p->d; k++) {
    pd[k] = p->dims[p->sigma[k]];
    pi[k] = crd[p->sigma[k]];
  }
  return lego_flatten(c, pd, pi, p->d);
}

void lego_piece_inv(IxCtx *c, const LegoPiece *p, const IxExpr *f, const IxExpr **out) {
  if (p->kind == LEGO_GENP) {
    p->inv(c, p->user, f, out);
    return;
  }
  const IxExpr **pd = NEWA(const IxExpr *, p->d), **dig = NEWA(const IxExpr *, p->d);
  for (int k = 0; k < p->d; k++) pd[k] = p->dims[p->sigma[k]];
  lego_unflatten(c, pd, p->d, f, dig);
  for (int k = 0; k < p->d; k++) out[p->sigma[k]] = dig[k]; /* scatter = sigma^-1 */
}

enum { GENP_CHECK_MAX = 1 << 16 };

/* Exhaustive check of a static GenP (doc/layouts.md §3.4). */
static bool genp_verify(IxCtx *c, const LegoPiece *p, LytError *err) {
  int64_t n = 1;
  for (int k = 0; k < p->d; k++) {
    if (!ix_is_const(p->dims[k])) return true; /* symbolic: trusted */
    n *= p->dims[k]->k;
    if (n > GENP_CHECK_MAX) return true;
  }
  bool *hit = NEWA(bool, n);
  const IxExpr **crd = NEWA(const IxExpr *, p->d), **back = NEWA(const IxExpr *, p->d);
  int64_t *ci = NEWA(int64_t, p->d);
  for (int64_t x = 0; x < n; x++) {
    int64_t r = x;
    for (int k = p->d - 1; k >= 0; k--) { /* row-major coordinate of x */
      ci[k] = r % p->dims[k]->k;
      r /= p->dims[k]->k;
      crd[k] = ix_const(c, ci[k]);
    }
    const IxExpr *f = p->apply(c, p->user, crd);
    if (!f || !ix_is_const(f) || f->k < 0 || f->k >= n || hit[f->k]) {
      fail(c, err, LYT_E_NOT_BIJECTIVE, "GenP %s: apply is not a bijection onto [0, %lld)",
           p->name, (long long)n);
      return false;
    }
    hit[f->k] = true;
    p->inv(c, p->user, f, back);
    for (int k = 0; k < p->d; k++)
      if (!back[k] || !ix_is_const(back[k]) || back[k]->k != ci[k]) {
        fail(c, err, LYT_E_NOT_BIJECTIVE, "GenP %s: inv(apply(x)) != x at flat %lld",
             p->name, (long long)x);
        return false;
      }
  }
  return true;
}

const LegoPiece *lego_genp(IxCtx *c, const IxExpr *const *dims, int d, LegoApplyFn apply,
                           LegoInvFn inv, const void *user, const char *name, LytError *err) {
  clear(err);
  if (d < 1 || !apply || !inv) {
    fail(c, err, LYT_E_ARG, "GenP: needs dimensions, apply and inv");
    return NULL;
  }
  LegoPiece *p = ARENA_NEW(ix_arena(c), LegoPiece);
  p->kind = LEGO_GENP;
  p->d = d;
  p->dims = copy_dims(c, dims, d);
  p->apply = apply;
  p->inv = inv;
  p->user = user;
  p->name = name ? arena_strdup(ix_arena(c), name) : "GenP";
  return genp_verify(c, p, err) ? p : NULL;
}

/* ----------------------------------------------------------------- OrderBy */
const LegoOrderBy *lego_orderby(IxCtx *c, const LegoPiece *const *p, int n) {
  LegoOrderBy *o = ARENA_NEW(ix_arena(c), LegoOrderBy);
  const LegoPiece **cp = NEWA(const LegoPiece *, n);
  for (int i = 0; i < n; i++) cp[i] = p[i];
  o->n = n;
  o->p = cp;
  return o;
}
int lego_orderby_rank(const LegoOrderBy *o) {
  int d = 0;
  for (int i = 0; i < o->n; i++) d += o->p[i]->d;
  return d;
}
const IxExpr *lego_orderby_size(IxCtx *c, const LegoOrderBy *o) {
  const IxExpr *r = ix_const(c, 1);
  for (int i = 0; i < o->n; i++) r = ix_mul(c, r, lego_piece_size(c, o->p[i]));
  return r;
}
static const IxExpr **orderby_dims(IxCtx *c, const LegoOrderBy *o) {
  const IxExpr **d = NEWA(const IxExpr *, lego_orderby_rank(o));
  int k = 0;
  for (int i = 0; i < o->n; i++)
    for (int j = 0; j < o->p[i]->d; j++) d[k++] = o->p[i]->dims[j];
  return d;
}
const IxExpr *lego_orderby_apply(IxCtx *c, const LegoOrderBy *o, const IxExpr *const *crd) {
  const IxExpr *f = ix_const(c, 0);
  int k = 0;
  for (int i = 0; i < o->n; i++) { /* outermost level first */
    const LegoPiece *p = o->p[i];
    f = ix_add(c, ix_mul(c, f, lego_piece_size(c, p)), lego_piece_apply(c, p, crd + k));
    k += p->d;
  }
  return f;
}
void lego_orderby_inv(IxCtx *c, const LegoOrderBy *o, const IxExpr *f, const IxExpr **out) {
  int k = lego_orderby_rank(o);
  for (int i = o->n - 1; i >= 0; i--) { /* innermost level first */
    const LegoPiece *p = o->p[i];
    const IxExpr *sz = lego_piece_size(c, p);
    k -= p->d;
    lego_piece_inv(c, p, ix_mod(c, f, sz), out + k);
    f = ix_div(c, f, sz);
  }
}

/* ----------------------------------------------------------------- GroupBy */
const LegoGroupBy *lego_groupby(IxCtx *c, const IxExpr *const *dims, int d,
                                const LegoOrderBy *const *chain, int n, LytError *err) {
  clear(err);
  const IxExpr *sz = prod(c, dims, d);
  for (int i = 0; i < n; i++) {
    const IxExpr *os = lego_orderby_size(c, chain[i]);
    if (os != sz) {
      fail(c, err, LYT_E_ARG, "GroupBy of %s elements: OrderBy %d has %s", ix_to_c(c, sz),
           i + 1, ix_to_c(c, os));
      return NULL;
    }
  }
  LegoGroupBy *g = ARENA_NEW(ix_arena(c), LegoGroupBy);
  const LegoOrderBy **ch = NEWA(const LegoOrderBy *, n);
  for (int i = 0; i < n; i++) ch[i] = chain[i];
  g->d = d;
  g->dims = copy_dims(c, dims, d);
  g->n = n;
  g->chain = ch;
  return g;
}

const IxExpr *lego_apply(IxCtx *c, const LegoGroupBy *g, const IxExpr *const *crd) {
  const IxExpr *f = lego_flatten(c, g->dims, crd, g->d);
  for (int i = g->n - 1; i >= 0; i--) { /* the OrderBy nearest GroupBy first */
    const LegoOrderBy *o = g->chain[i];
    const IxExpr **dig = NEWA(const IxExpr *, lego_orderby_rank(o));
    lego_unflatten(c, orderby_dims(c, o), lego_orderby_rank(o), f, dig);
    f = lego_orderby_apply(c, o, dig);
  }
  return f;
}

void lego_inv(IxCtx *c, const LegoGroupBy *g, const IxExpr *f, const IxExpr **out) {
  for (int i = 0; i < g->n; i++) {
    const LegoOrderBy *o = g->chain[i];
    const IxExpr **dig = NEWA(const IxExpr *, lego_orderby_rank(o));
    lego_orderby_inv(c, o, f, dig);
    f = lego_flatten(c, orderby_dims(c, o), dig, lego_orderby_rank(o));
  }
  lego_unflatten(c, g->dims, g->d, f, out);
}

/* ------------------------------------------------------------------- sugar */
const LegoPiece *lego_row(IxCtx *c, const IxExpr *const *dims, int d) {
  int *s = NEWA(int, d);
  for (int k = 0; k < d; k++) s[k] = k;
  return lego_regp(c, dims, s, d, NULL);
}
const LegoPiece *lego_col(IxCtx *c, const IxExpr *const *phys_dims, int d) {
  int *s = NEWA(int, d);
  const IxExpr **rd = NEWA(const IxExpr *, d);
  for (int k = 0; k < d; k++) {
    s[k] = d - 1 - k;
    rd[k] = phys_dims[d - 1 - k];
  }
  return lego_regp(c, rd, s, d, NULL);
}
const LegoGroupBy *lego_tileby(IxCtx *c, const IxExpr *const *tiles, int q, int d,
                               LytError *err) {
  int *s = NEWA(int, q * d);
  int w = 0;
  for (int k = 0; k < d; k++) /* sigma_{d x q} = flatten(A), A[k][h] = k + d*h */
    for (int h = 0; h < q; h++) s[w++] = k + d * h;
  const LegoPiece *p = lego_regp(c, tiles, s, q * d, err);
  if (!p) return NULL;
  const LegoOrderBy *o = lego_orderby(c, &p, 1);
  return lego_groupby(c, tiles, q * d, &o, 1, err);
}

/* ------------------------------------------------------- built-in GenPs */
typedef struct { const IxExpr *n; } AntiDiag;

/* a = i+j+1; a <= n ? i + a(a-1)/2 : n^2 - n + i - a'(a'-1)/2 with a' = 2n-a */
static const IxExpr *antidiag_apply(IxCtx *c, const void *user, const IxExpr *const *crd) {
  const IxExpr *n = ((const AntiDiag *)user)->n, *i = crd[0], *j = crd[1];
  const IxExpr *a = ix_addk(c, ix_add(c, i, j), 1);
  const IxExpr *up = ix_add(c, i, ix_divk(c, ix_mul(c, a, ix_addk(c, a, -1)), 2));
  const IxExpr *a2 = ix_sub(c, ix_mulk(c, n, 2), a);
  const IxExpr *lo = ix_sub(c, ix_add(c, ix_sub(c, ix_mul(c, n, n), n), i),
                            ix_divk(c, ix_mul(c, a2, ix_addk(c, a2, -1)), 2));
  return ix_select(c, ix_le(c, a, n), up, lo);
}

/* Mirror the lower half, find the diagonal with isqrt, mirror back. */
static void antidiag_inv(IxCtx *c, const void *user, const IxExpr *x0, const IxExpr **out) {
  const IxExpr *n = ((const AntiDiag *)user)->n;
  const IxExpr *half = ix_divk(c, ix_mul(c, n, ix_addk(c, n, 1)), 2);
  const IxExpr *upper = ix_lt(c, x0, half);
  const IxExpr *x = ix_select(c, upper, x0, ix_sub(c, ix_addk(c, ix_mul(c, n, n), -1), x0));
  const IxExpr *a = ix_isqrt(c, ix_mulk(c, x, 2));
  const IxExpr *tri = ix_divk(c, ix_mul(c, a, ix_addk(c, a, 1)), 2);
  a = ix_add(c, a, ix_sub(c, ix_const(c, 1), ix_lt(c, x, tri))); /* +1 if x >= a(a+1)/2 */
  const IxExpr *i = ix_sub(c, x, ix_divk(c, ix_mul(c, a, ix_addk(c, a, -1)), 2));
  const IxExpr *j = ix_sub(c, ix_addk(c, a, -1), i);
  const IxExpr *nm1 = ix_addk(c, n, -1);
  out[0] = ix_select(c, upper, i, ix_sub(c, nm1, i));
  out[1] = ix_select(c, upper, j, ix_sub(c, nm1, j));
}

const LegoPiece *lego_antidiag(IxCtx *c, const IxExpr *n, LytError *err) {
  AntiDiag *u = ARENA_NEW(ix_arena(c), AntiDiag);
  u->n = n;
  const IxExpr *dims[2] = {n, n};
  return lego_genp(c, dims, 2, antidiag_apply, antidiag_inv, u, "antidiag", err);
}

typedef struct { int d, bits; } Morton;

/* Bit k of index m goes to bit k*d + (d-1-m): the last index is fastest. */
static const IxExpr *morton_apply(IxCtx *c, const void *user, const IxExpr *const *crd) {
  const Morton *m = user;
  const IxExpr *f = ix_const(c, 0);
  for (int k = 0; k < m->bits; k++)
    for (int i = 0; i < m->d; i++) {
      const IxExpr *bit = ix_and(c, ix_shr(c, crd[i], k), 1);
      f = ix_add(c, f, ix_shl(c, bit, k * m->d + (m->d - 1 - i)));
    }
  return f;
}
static void morton_inv(IxCtx *c, const void *user, const IxExpr *f, const IxExpr **out) {
  const Morton *m = user;
  for (int i = 0; i < m->d; i++) {
    const IxExpr *x = ix_const(c, 0);
    for (int k = 0; k < m->bits; k++) {
      const IxExpr *bit = ix_and(c, ix_shr(c, f, k * m->d + (m->d - 1 - i)), 1);
      x = ix_add(c, x, ix_shl(c, bit, k));
    }
    out[i] = x;
  }
}

const LegoPiece *lego_morton(IxCtx *c, int d, int bits, LytError *err) {
  clear(err);
  if (d < 1 || bits < 0 || d * bits > 62) {
    fail(c, err, LYT_E_ARG, "Morton: %d dims of %d bits do not fit in 62 bits", d, bits);
    return NULL;
  }
  Morton *u = ARENA_NEW(ix_arena(c), Morton);
  u->d = d;
  u->bits = bits;
  const IxExpr **dims = NEWA(const IxExpr *, d);
  for (int i = 0; i < d; i++) dims[i] = ix_const(c, (int64_t)1 << bits);
  return lego_genp(c, dims, d, morton_apply, morton_inv, u, "morton", err);
}

/* --------------------------------------------------------- to a CuTe layout */
/* An OrderBy of RegPs as a function of its flat input f: the row-major
 * digits of f (last fastest) are CuTe's colex modes in reverse order, and
 * each digit's stride is the image of a unit vector. */
static const Layout *orderby_as_layout(IxCtx *c, const LegoOrderBy *o, LytError *err) {
  int d = lego_orderby_rank(o);
  const IxExpr **dims = orderby_dims(c, o);
  const IxExpr **unit = NEWA(const IxExpr *, d);
  const Layout **m = NEWA(const Layout *, d);
  for (int i = 0; i < o->n; i++)
    if (o->p[i]->kind != LEGO_REGP) {
      fail(c, err, LYT_E_ARG, "GenP %s has no strided (CuTe) form", o->p[i]->name);
      return NULL;
    }
  for (int k = 0; k < d; k++) {
    for (int j = 0; j < d; j++) unit[j] = ix_const(c, j == k);
    m[d - 1 - k] = lyt_leaf(c, dims[k], lego_orderby_apply(c, o, unit));
  }
  return d == 1 ? m[0] : lyt_tuple(c, m, d);
}

const Layout *lego_to_layout(IxCtx *c, const LegoGroupBy *g, LytError *err) {
  LytError local;
  if (!err) err = &local;
  clear(err);
  /* logical coordinate (i1..iq) -> row-major flat index */
  const Layout **m = NEWA(const Layout *, g->d);
  const IxExpr *st = ix_const(c, 1);
  for (int k = g->d - 1; k >= 0; k--) {
    m[k] = lyt_leaf(c, g->dims[k], st);
    st = ix_mul(c, st, g->dims[k]);
  }
  const Layout *l = g->d == 1 ? m[0] : lyt_tuple(c, m, g->d);
  for (int i = g->n - 1; i >= 0; i--) {
    const Layout *p = orderby_as_layout(c, g->chain[i], err);
    if (!p || !(l = lyt_compose(c, p, l, err))) return NULL;
  }
  return l;
}
