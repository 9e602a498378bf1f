/* layout.c -- CuTe layout algebra over symbolic extents (see layout.h).
 *
 * The algorithms are those of doc/layouts.md §2 (and of the model
 * tests/layout/layout_oracle.py), step by step;
 * where a step needs a divisibility or ordering fact, it asks index_expr's
 * provers and fails cleanly when the fact is not proven. Composition also
 * checks admissibility (doc/layouts.md §2.3): B's modes must never carry
 * between the mixed-radix digits of the coalesced A.
 */
#include "layout/layout.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void fail(IxCtx *c, LytError *err, LytStatus st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fail(IxCtx *c, LytError *err, LytStatus st, const char *fmt, ...) {
  if (!err || err->status != LYT_OK) return; /* keep the first cause */
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
#define TXT(e) ix_to_c(c, (e))

/* ------------------------------------------------------------ construction */
const Layout *lyt_leaf(IxCtx *c, const IxExpr *shape, const IxExpr *stride) {
  Layout *l = ARENA_NEW(ix_arena(c), Layout);
  l->shape = shape;
  l->stride = stride;
  return l;
}
const Layout *lyt_leafk(IxCtx *c, int64_t s, int64_t d) {
  return lyt_leaf(c, ix_const(c, s), ix_const(c, d));
}
const Layout *lyt_tuple(IxCtx *c, const Layout *const *modes, int n) {
  Layout *l = ARENA_NEW(ix_arena(c), Layout);
  const Layout **m = ARENA_NEW_ARRAY(ix_arena(c), const Layout *, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) m[i] = modes[i];
  l->n = n;
  l->mode = m;
  return l;
}
const Layout *lyt_pair(IxCtx *c, const Layout *a, const Layout *b) {
  const Layout *m[2] = {a, b};
  return lyt_tuple(c, m, 2);
}

static const Layout *compact_rec(IxCtx *c, const Layout *l, const IxExpr **cur) {
  if (l->n == 0) {
    const Layout *r = lyt_leaf(c, l->shape, *cur);
    *cur = ix_mul(c, *cur, l->shape);
    return r;
  }
  const Layout **m = ARENA_NEW_ARRAY(ix_arena(c), const Layout *, l->n);
  for (int i = 0; i < l->n; i++) m[i] = compact_rec(c, l->mode[i], cur);
  return lyt_tuple(c, m, l->n);
}
const Layout *lyt_compact_col(IxCtx *c, const Layout *shape_like) {
  const IxExpr *cur = ix_const(c, 1);
  return compact_rec(c, shape_like, &cur);
}

const Layout *lyt_ordered(IxCtx *c, const IxExpr *const *shape, const int *order, int n) {
  const IxExpr **st = ARENA_NEW_ARRAY(ix_arena(c), const IxExpr *, n > 0 ? n : 1);
  const IxExpr *cur = ix_const(c, 1);
  for (int r = 0; r < n; r++) {
    int d = order[r];
    if (d < 0 || d >= n || st[d]) return NULL; /* not a permutation */
    st[d] = cur;
    cur = ix_mul(c, cur, shape[d]);
  }
  if (n == 1) return lyt_leaf(c, shape[0], st[0]);
  const Layout **m = ARENA_NEW_ARRAY(ix_arena(c), const Layout *, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) m[i] = lyt_leaf(c, shape[i], st[i]);
  return lyt_tuple(c, m, n);
}
const Layout *lyt_col_major(IxCtx *c, const IxExpr *const *shape, int n) {
  int *ord = ARENA_NEW_ARRAY(ix_arena(c), int, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) ord[i] = i;
  return lyt_ordered(c, shape, ord, n);
}
const Layout *lyt_row_major(IxCtx *c, const IxExpr *const *shape, int n) {
  int *ord = ARENA_NEW_ARRAY(ix_arena(c), int, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) ord[i] = n - 1 - i;
  return lyt_ordered(c, shape, ord, n);
}

/* ----------------------------------------------------------------- queries */
int lyt_rank(const Layout *l) { return l->n == 0 ? 1 : l->n; }
int lyt_depth(const Layout *l) {
  int d = 0;
  for (int i = 0; i < l->n; i++) {
    int x = lyt_depth(l->mode[i]);
    if (x > d) d = x;
  }
  return l->n == 0 ? 0 : d + 1;
}
const Layout *lyt_mode(const Layout *l, int i) {
  if (l->n == 0) return i == 0 ? l : NULL;
  return i >= 0 && i < l->n ? l->mode[i] : NULL;
}
const IxExpr *lyt_size(IxCtx *c, const Layout *l) {
  if (l->n == 0) return l->shape;
  const IxExpr *r = ix_const(c, 1);
  for (int i = 0; i < l->n; i++) r = ix_mul(c, r, lyt_size(c, l->mode[i]));
  return r;
}
const IxExpr *lyt_cosize(IxCtx *c, const Layout *l) {
  int n = lyt_nleaves(l);
  const IxExpr **s = ARENA_NEW_ARRAY(ix_arena(c), const IxExpr *, n);
  const IxExpr **d = ARENA_NEW_ARRAY(ix_arena(c), const IxExpr *, n);
  lyt_leaves(l, s, d);
  const IxExpr *r = ix_const(c, 1);
  for (int i = 0; i < n; i++) r = ix_add(c, r, ix_mul(c, ix_addk(c, s[i], -1), d[i]));
  return r;
}
int lyt_nleaves(const Layout *l) {
  if (l->n == 0) return 1;
  int s = 0;
  for (int i = 0; i < l->n; i++) s += lyt_nleaves(l->mode[i]);
  return s;
}
static void leaves_rec(const Layout *l, const IxExpr **s, const IxExpr **d, int *k) {
  if (l->n == 0) {
    if (s) s[*k] = l->shape;
    if (d) d[*k] = l->stride;
    (*k)++;
    return;
  }
  for (int i = 0; i < l->n; i++) leaves_rec(l->mode[i], s, d, k);
}
void lyt_leaves(const Layout *l, const IxExpr **shape, const IxExpr **stride) {
  int k = 0;
  leaves_rec(l, shape, stride, &k);
}
bool lyt_equal(const Layout *a, const Layout *b) {
  if (a->n != b->n) return false;
  if (a->n == 0) return a->shape == b->shape && a->stride == b->stride;
  for (int i = 0; i < a->n; i++)
    if (!lyt_equal(a->mode[i], b->mode[i])) return false;
  return true;
}
bool lyt_compatible(IxCtx *c, const Layout *a, const Layout *b) {
  if (a->n == 0) return lyt_size(c, a) == lyt_size(c, b);
  if (b->n != a->n) return false;
  for (int i = 0; i < a->n; i++)
    if (!lyt_compatible(c, a->mode[i], b->mode[i])) return false;
  return true;
}

typedef struct { IxCtx *c; char *s; size_t n, cap; } Str;
static void sput(Str *b, const char *s) {
  size_t len = strlen(s);
  if (b->n + len + 1 > b->cap) {
    size_t ncap = (b->cap ? b->cap * 2 : 64) + len;
    char *ns = arena_alloc(ix_arena(b->c), ncap);
    if (b->n) memcpy(ns, b->s, b->n);
    b->s = ns;
    b->cap = ncap;
  }
  memcpy(b->s + b->n, s, len + 1);
  b->n += len;
}
static void str_rec(Str *b, const Layout *l, bool stride) {
  if (l->n == 0) {
    sput(b, ix_to_c(b->c, stride ? l->stride : l->shape));
    return;
  }
  sput(b, "(");
  for (int i = 0; i < l->n; i++) {
    if (i) sput(b, ",");
    str_rec(b, l->mode[i], stride);
  }
  sput(b, ")");
}
const char *lyt_to_string(IxCtx *c, const Layout *l) {
  Str b = {c, NULL, 0, 0};
  sput(&b, "");
  str_rec(&b, l, false);
  sput(&b, ":");
  str_rec(&b, l, true);
  return b.s;
}

/* --------------------------------------------------------------- helpers */
/* x divides y (provably). */
static bool divides(IxCtx *c, const IxExpr *x, const IxExpr *y) {
  return ix_exact_div(c, y, x) != NULL;
}
/* ceil(a/b) for positive a, b; NULL when neither divides the other and the
 * values are symbolic. */
static const IxExpr *ceil_div(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  if (ix_is_const(a) && ix_is_const(b) && b->k > 0) return ix_const(c, (a->k + b->k - 1) / b->k);
  const IxExpr *q = ix_exact_div(c, a, b);
  if (q) return q;
  if (divides(c, a, b)) return ix_const(c, 1); /* a | b and a >= 1: a <= b */
  return NULL;
}
static const IxExpr *min_sym(IxCtx *c, const IxExpr *a, const IxExpr *b) {
  if (ix_is_const(a) && ix_is_const(b)) return a->k < b->k ? a : b;
  if (divides(c, a, b) || ix_prove_le(c, a, b)) return a;
  if (divides(c, b, a) || ix_prove_le(c, b, a)) return b;
  return NULL;
}

typedef struct { const IxExpr **s, **d; int n, cap; } Vec;
static void vpush(IxCtx *c, Vec *v, const IxExpr *s, const IxExpr *d) {
  if (v->n == v->cap) {
    int ncap = v->cap ? v->cap * 2 : 8;
    const IxExpr **ns = ARENA_NEW_ARRAY(ix_arena(c), const IxExpr *, ncap);
    const IxExpr **nd = ARENA_NEW_ARRAY(ix_arena(c), const IxExpr *, ncap);
    for (int i = 0; i < v->n; i++) { ns[i] = v->s[i]; nd[i] = v->d[i]; }
    v->s = ns;
    v->d = nd;
    v->cap = ncap;
  }
  v->s[v->n] = s;
  v->d[v->n] = d;
  v->n++;
}
static const Layout *from_vec(IxCtx *c, const Vec *v) {
  if (v->n == 1) return lyt_leaf(c, v->s[0], v->d[0]);
  const Layout **m = ARENA_NEW_ARRAY(ix_arena(c), const Layout *, v->n);
  for (int i = 0; i < v->n; i++) m[i] = lyt_leaf(c, v->s[i], v->d[i]);
  return lyt_tuple(c, m, v->n);
}
static void flatten(IxCtx *c, const Layout *l, Vec *v) {
  memset(v, 0, sizeof *v);
  int n = lyt_nleaves(l);
  const IxExpr **s = ARENA_NEW_ARRAY(ix_arena(c), const IxExpr *, n);
  const IxExpr **d = ARENA_NEW_ARRAY(ix_arena(c), const IxExpr *, n);
  lyt_leaves(l, s, d);
  for (int i = 0; i < n; i++) vpush(c, v, s[i], d[i]);
}

/* Every extent must be provably >= 1 (strides are checked where used). */
static bool shapes_ok(IxCtx *c, const Layout *l, const char *what, LytError *err) {
  if (l->n == 0) {
    if (l->shape->lo >= 1) return true;
    fail(c, err, LYT_E_ARG, "%s: extent %s may be < 1", what, TXT(l->shape));
    return false;
  }
  for (int i = 0; i < l->n; i++)
    if (!shapes_ok(c, l->mode[i], what, err)) return false;
  return true;
}

/* ---------------------------------------------------------------- coalesce */
const Layout *lyt_coalesce(IxCtx *c, const Layout *l) {
  Vec in, out;
  flatten(c, l, &in);
  memset(&out, 0, sizeof out);
  vpush(c, &out, ix_const(c, 1), ix_const(c, 0));
  for (int i = 0; i < in.n; i++) {
    const IxExpr *s = in.s[i], *d = in.d[i];
    int k = out.n - 1;
    if (ix_is_k(s, 1)) continue; /* only a static 1 can be dropped */
    if (ix_is_k(out.s[k], 1)) { out.s[k] = s; out.d[k] = d; }
    else if (ix_mul(c, out.s[k], out.d[k]) == d) out.s[k] = ix_mul(c, out.s[k], s);
    else vpush(c, &out, s, d);
  }
  return from_vec(c, &out);
}

const Layout *lyt_coalesce_modes(IxCtx *c, const Layout *l, int n) {
  int r = lyt_rank(l);
  const Layout **m = ARENA_NEW_ARRAY(ix_arena(c), const Layout *, r);
  for (int i = 0; i < r; i++) m[i] = i < n ? lyt_coalesce(c, lyt_mode(l, i)) : lyt_mode(l, i);
  return lyt_tuple(c, m, r);
}

/* ------------------------------------------------------------- composition */
typedef struct {
  Vec a;                /* coalesced, flattened A */
  const IxExpr **usage; /* per digit of A: largest value B's modes put there */
} Comp;

static const Layout *compose_leaf(IxCtx *c, Comp *k, const IxExpr *s, const IxExpr *d,
                                  LytError *err) {
  if (d->lo < 0) {
    fail(c, err, LYT_E_ARG, "composition: stride %s of B may be negative", TXT(d));
    return NULL;
  }
  if (ix_is_k(d, 0)) return lyt_leaf(c, s, d);
  Vec r;
  memset(&r, 0, sizeof r);
  const IxExpr *rs = s, *rd = d;
  for (int i = 0; i < k->a.n; i++) {
    const IxExpr *as = k->a.s[i], *ad = k->a.d[i];
    if (i == k->a.n - 1) { /* the last mode of A is unbounded */
      vpush(c, &r, rs, ix_mul(c, rd, ad));
      break;
    }
    if (ix_is_k(rs, 1)) break; /* the rest would be size-1 modes */
    if (!divides(c, rd, as) && !divides(c, as, rd)) {
      fail(c, err, LYT_E_DIVISIBILITY,
           "composition: stride %s and shape %s of A: neither divides the other", TXT(rd),
           TXT(as));
      return NULL;
    }
    const IxExpr *s1 = ceil_div(c, as, rd), *nd = ceil_div(c, rd, as);
    if (!ix_is_k(s1, 1)) {
      if (!divides(c, rs, s1) && !divides(c, s1, rs)) {
        fail(c, err, LYT_E_DIVISIBILITY,
             "composition: shape %s of B and %s of A: neither divides the other", TXT(rs),
             TXT(s1));
        return NULL;
      }
      const IxExpr *keep = min_sym(c, s1, rs);
      vpush(c, &r, keep, ix_mul(c, rd, ad));
      k->usage[i] = ix_add(c, k->usage[i], ix_mul(c, ix_addk(c, keep, -1), rd));
      rs = ceil_div(c, rs, s1);
    }
    rd = nd;
  }
  if (r.n == 0) vpush(c, &r, ix_const(c, 1), ix_const(c, 0));
  return lyt_coalesce(c, from_vec(c, &r));
}

static const Layout *compose_rec(IxCtx *c, Comp *k, const Layout *b, LytError *err) {
  if (b->n == 0) return compose_leaf(c, k, b->shape, b->stride, err);
  const Layout **m = ARENA_NEW_ARRAY(ix_arena(c), const Layout *, b->n);
  for (int i = 0; i < b->n; i++)
    if (!(m[i] = compose_rec(c, k, b->mode[i], err))) return NULL;
  return lyt_tuple(c, m, b->n);
}

const Layout *lyt_compose(IxCtx *c, const Layout *a, const Layout *b, LytError *err) {
  LytError local;
  if (!err) err = &local;
  clear(err);
  if (!shapes_ok(c, a, "composition", err) || !shapes_ok(c, b, "composition", err)) return NULL;
  Comp k;
  flatten(c, lyt_coalesce(c, a), &k.a);
  k.usage = ARENA_NEW_ARRAY(ix_arena(c), const IxExpr *, k.a.n);
  for (int i = 0; i < k.a.n; i++) k.usage[i] = ix_const(c, 0);
  const Layout *r = compose_rec(c, &k, b, err);
  if (!r) return NULL;
  /* Admissibility: digit i of A must absorb the sum of all B modes' largest
   * contributions without a carry (the last digit is unbounded). */
  for (int i = 0; i + 1 < k.a.n; i++)
    if (!ix_prove_le(c, k.usage[i], ix_addk(c, k.a.s[i], -1))) {
      fail(c, err, LYT_E_ADMISSIBILITY,
           "composition %s o %s is inadmissible: B's modes reach %s in a digit of A of size %s "
           "(carry)",
           lyt_to_string(c, a), lyt_to_string(c, b), TXT(k.usage[i]), TXT(k.a.s[i]));
      return NULL;
    }
  if (ix_overflowed(c)) {
    fail(c, err, LYT_E_ARG, "composition: integer overflow");
    return NULL;
  }
  return r;
}

/* Apply op to modes 0..nt-1 of a with the tiler's modes; keep the rest. */
typedef const Layout *(*BinOp)(IxCtx *, const Layout *, const Layout *, LytError *);
static const Layout *by_mode(IxCtx *c, BinOp op, const char *what, const Layout *a,
                             const Layout *const *t, int nt, LytError *err) {
  LytError local;
  if (!err) err = &local;
  clear(err);
  int r = lyt_rank(a);
  if (nt < 1 || nt > r) {
    fail(c, err, LYT_E_ARG, "%s: tiler of rank %d for a layout of rank %d", what, nt, r);
    return NULL;
  }
  const Layout **m = ARENA_NEW_ARRAY(ix_arena(c), const Layout *, r);
  for (int i = 0; i < r; i++) {
    m[i] = i < nt ? op(c, lyt_mode(a, i), t[i], err) : lyt_mode(a, i);
    if (!m[i]) return NULL;
  }
  return lyt_tuple(c, m, r);
}

const Layout *lyt_compose_tiler(IxCtx *c, const Layout *a, const Layout *const *t, int nt,
                                LytError *err) {
  return by_mode(c, lyt_compose, "composition", a, t, nt, err);
}

/* -------------------------------------------------------------- complement */
const Layout *lyt_complement(IxCtx *c, const Layout *a, const IxExpr *m, LytError *err) {
  LytError local;
  if (!err) err = &local;
  clear(err);
  if (!shapes_ok(c, a, "complement", err)) return NULL;
  if (m->lo < 1) {
    fail(c, err, LYT_E_ARG, "complement: extent %s may be < 1", TXT(m));
    return NULL;
  }
  Vec in, p;
  flatten(c, a, &in);
  memset(&p, 0, sizeof p);
  for (int i = 0; i < in.n; i++) {
    if (ix_is_k(in.s[i], 1) || ix_is_k(in.d[i], 0)) continue;
    if (in.d[i]->lo < 0) {
      fail(c, err, LYT_E_ARG, "complement: stride %s may be negative", TXT(in.d[i]));
      return NULL;
    }
    vpush(c, &p, in.s[i], in.d[i]);
  }
  for (int i = 1; i < p.n; i++) /* insertion sort by stride, with proofs */
    for (int j = i; j > 0; j--) {
      if (ix_prove_le(c, p.d[j - 1], p.d[j])) break;
      if (!ix_prove_le(c, p.d[j], p.d[j - 1])) {
        fail(c, err, LYT_E_UNPROVEN, "complement: cannot order strides %s and %s",
             TXT(p.d[j - 1]), TXT(p.d[j]));
        return NULL;
      }
      const IxExpr *ts = p.s[j], *td = p.d[j];
      p.s[j] = p.s[j - 1];
      p.d[j] = p.d[j - 1];
      p.s[j - 1] = ts;
      p.d[j - 1] = td;
    }
  Vec r;
  memset(&r, 0, sizeof r);
  const IxExpr *cur = ix_const(c, 1);
  for (int i = 0; i < p.n; i++) {
    const IxExpr *q = ix_exact_div(c, p.d[i], cur);
    if (!q) {
      fail(c, err, LYT_E_DIVISIBILITY,
           "complement of %s: stride %s is not a multiple of %s (overlapping modes?)",
           lyt_to_string(c, a), TXT(p.d[i]), TXT(cur));
      return NULL;
    }
    vpush(c, &r, q, cur);
    cur = ix_mul(c, p.s[i], p.d[i]);
  }
  const IxExpr *last = ceil_div(c, m, cur);
  if (!last) {
    fail(c, err, LYT_E_DIVISIBILITY,
         "complement: cannot prove %s divisible by %s (pad the extent to a multiple)", TXT(m),
         TXT(cur));
    return NULL;
  }
  vpush(c, &r, last, cur);
  return lyt_coalesce(c, from_vec(c, &r));
}

/* ------------------------------------------------------------------ divide */
const Layout *lyt_logical_divide(IxCtx *c, const Layout *a, const Layout *b, LytError *err) {
  LytError local;
  if (!err) err = &local;
  clear(err);
  const Layout *bc = lyt_complement(c, b, lyt_size(c, a), err);
  if (!bc) return NULL;
  return lyt_compose(c, a, lyt_pair(c, b, bc), err);
}
const Layout *lyt_logical_divide_tiler(IxCtx *c, const Layout *a, const Layout *const *t, int nt,
                                       LytError *err) {
  return by_mode(c, lyt_logical_divide, "logical_divide", a, t, nt, err);
}

/* ((tiles...), (rests...)) from a by-mode logical divide. */
static bool zip_parts(IxCtx *c, const Layout *a, const Layout *const *t, int nt,
                      const Layout **tiles, const Layout **rests, LytError *err) {
  const Layout *ld = lyt_logical_divide_tiler(c, a, t, nt, err);
  if (!ld) return false;
  int r = lyt_rank(ld);
  const Layout **tm = ARENA_NEW_ARRAY(ix_arena(c), const Layout *, nt);
  const Layout **rm = ARENA_NEW_ARRAY(ix_arena(c), const Layout *, r);
  for (int i = 0; i < r; i++) {
    const Layout *mi = lyt_mode(ld, i);
    if (i < nt) {
      if (lyt_rank(mi) != 2) {
        fail(c, err, LYT_E_ARG, "divide: mode %d is not (tile, rest)", i);
        return false;
      }
      tm[i] = lyt_mode(mi, 0);
      rm[i] = lyt_mode(mi, 1);
    } else {
      rm[i] = mi;
    }
  }
  *tiles = lyt_tuple(c, tm, nt);
  *rests = lyt_tuple(c, rm, r);
  return true;
}
const Layout *lyt_zipped_divide(IxCtx *c, const Layout *a, const Layout *const *t, int nt,
                                LytError *err) {
  const Layout *tiles, *rests;
  if (!zip_parts(c, a, t, nt, &tiles, &rests, err)) return NULL;
  return lyt_pair(c, tiles, rests);
}
const Layout *lyt_tiled_divide(IxCtx *c, const Layout *a, const Layout *const *t, int nt,
                               LytError *err) {
  const Layout *tiles, *rests;
  if (!zip_parts(c, a, t, nt, &tiles, &rests, err)) return NULL;
  const Layout **m = ARENA_NEW_ARRAY(ix_arena(c), const Layout *, rests->n + 1);
  m[0] = tiles;
  for (int i = 0; i < rests->n; i++) m[i + 1] = rests->mode[i];
  return lyt_tuple(c, m, rests->n + 1);
}
const Layout *lyt_flat_divide(IxCtx *c, const Layout *a, const Layout *const *t, int nt,
                              LytError *err) {
  const Layout *tiles, *rests;
  if (!zip_parts(c, a, t, nt, &tiles, &rests, err)) return NULL;
  const Layout **m = ARENA_NEW_ARRAY(ix_arena(c), const Layout *, rests->n + tiles->n);
  for (int i = 0; i < tiles->n; i++) m[i] = tiles->mode[i];
  for (int i = 0; i < rests->n; i++) m[tiles->n + i] = rests->mode[i];
  return lyt_tuple(c, m, rests->n + tiles->n);
}

/* ----------------------------------------------------------------- product */
const Layout *lyt_logical_product(IxCtx *c, const Layout *a, const Layout *b, LytError *err) {
  LytError local;
  if (!err) err = &local;
  clear(err);
  const Layout *ac =
      lyt_complement(c, a, ix_mul(c, lyt_size(c, a), lyt_cosize(c, b)), err);
  if (!ac) return NULL;
  const Layout *r = lyt_compose(c, ac, b, err);
  return r ? lyt_pair(c, a, r) : NULL;
}
const Layout *lyt_logical_product_tiler(IxCtx *c, const Layout *a, const Layout *const *t,
                                        int nt, LytError *err) {
  return by_mode(c, lyt_logical_product, "logical_product", a, t, nt, err);
}

static const Layout *pad_rank(IxCtx *c, const Layout *l, int r) {
  if (lyt_rank(l) >= r) return l;
  const Layout **m = ARENA_NEW_ARRAY(ix_arena(c), const Layout *, r);
  for (int i = 0; i < r; i++) m[i] = i < lyt_rank(l) ? lyt_mode(l, i) : lyt_leafk(c, 1, 0);
  return lyt_tuple(c, m, r);
}
static const Layout *rezip_product(IxCtx *c, const Layout *a, const Layout *b, bool raked,
                                   LytError *err) {
  LytError local;
  if (!err) err = &local;
  clear(err);
  int r = lyt_rank(a) > lyt_rank(b) ? lyt_rank(a) : lyt_rank(b);
  a = pad_rank(c, a, r);
  b = pad_rank(c, b, r);
  const Layout *lp = lyt_logical_product(c, a, b, err);
  if (!lp) return NULL;
  const Layout *p0 = lp->mode[0], *p1 = lp->mode[1];
  const Layout **m = ARENA_NEW_ARRAY(ix_arena(c), const Layout *, r);
  for (int i = 0; i < r; i++) {
    /* rank 1: the whole of each part is its only mode */
    const Layout *x = r == 1 ? p0 : lyt_mode(p0, i), *y = r == 1 ? p1 : lyt_mode(p1, i);
    if (!x || !y) {
      fail(c, err, LYT_E_ARG, "product: rank mismatch in mode %d", i);
      return NULL;
    }
    m[i] = raked ? lyt_pair(c, y, x) : lyt_pair(c, x, y);
  }
  return lyt_coalesce_modes(c, lyt_tuple(c, m, r), r);
}
const Layout *lyt_blocked_product(IxCtx *c, const Layout *a, const Layout *b, LytError *err) {
  return rezip_product(c, a, b, false, err);
}
const Layout *lyt_raked_product(IxCtx *c, const Layout *a, const Layout *b, LytError *err) {
  return rezip_product(c, a, b, true, err);
}

/* ----------------------------------------------------------- right inverse */
const Layout *lyt_right_inverse(IxCtx *c, const Layout *l, LytError *err) {
  clear(err);
  if (!shapes_ok(c, l, "right_inverse", err)) return NULL;
  Vec f, r;
  flatten(c, lyt_coalesce(c, l), &f);
  memset(&r, 0, sizeof r);
  const IxExpr **pos = ARENA_NEW_ARRAY(ix_arena(c), const IxExpr *, f.n);
  bool *used = ARENA_NEW_ARRAY(ix_arena(c), bool, f.n);
  const IxExpr *p = ix_const(c, 1);
  for (int i = 0; i < f.n; i++) {
    if (f.d[i]->lo < 0) {
      fail(c, err, LYT_E_ARG, "right_inverse: stride %s may be negative", TXT(f.d[i]));
      return NULL;
    }
    pos[i] = p;
    p = ix_mul(c, p, f.s[i]);
  }
  const IxExpr *next = ix_const(c, 1);
  for (;;) {
    int j = -1;
    for (int i = 0; i < f.n && j < 0; i++)
      if (!used[i] && !ix_is_k(f.s[i], 1) && f.d[i] == next) j = i;
    if (j < 0) break;
    used[j] = true;
    vpush(c, &r, f.s[j], pos[j]);
    next = ix_mul(c, f.s[j], f.d[j]);
  }
  if (r.n == 0) return lyt_leafk(c, 1, 0);
  return lyt_coalesce(c, from_vec(c, &r));
}

/* ------------------------------------------------------ shape_div / shape_mod */
static bool shape_step(IxCtx *c, const IxExpr *const *s, int n, const IxExpr *x,
                       const IxExpr **out, bool div, LytError *err) {
  clear(err);
  for (int i = 0; i < n; i++) {
    if (!divides(c, x, s[i]) && !divides(c, s[i], x)) {
      fail(c, err, LYT_E_DIVISIBILITY, "shape_%s: %s and %s: neither divides the other",
           div ? "div" : "mod", TXT(s[i]), TXT(x));
      return false;
    }
    const IxExpr *nx = ceil_div(c, x, s[i]);
    out[i] = div ? ceil_div(c, s[i], x) : min_sym(c, s[i], x);
    x = nx;
  }
  return true;
}
bool lyt_shape_div(IxCtx *c, const IxExpr *const *s, int n, const IxExpr *d, const IxExpr **out,
                   LytError *err) {
  return shape_step(c, s, n, d, out, true, err);
}
bool lyt_shape_mod(IxCtx *c, const IxExpr *const *s, int n, const IxExpr *m, const IxExpr **out,
                   LytError *err) {
  return shape_step(c, s, n, m, out, false, err);
}

/* ------------------------------------------------------ evaluation, emission */
static bool size_eval(const Layout *l, const int64_t *env, int64_t *out) {
  if (l->n == 0) return ix_eval(l->shape, env, out);
  int64_t s = 1;
  for (int i = 0; i < l->n; i++) {
    int64_t x;
    if (!size_eval(l->mode[i], env, &x) || __builtin_mul_overflow(s, x, &s)) return false;
  }
  *out = s;
  return true;
}
static bool eval_rec(const Layout *l, int64_t x, const int64_t *env, int64_t *out) {
  if (l->n == 0) {
    int64_t d;
    return ix_eval(l->stride, env, &d) && !__builtin_mul_overflow(x, d, out);
  }
  int64_t acc = 0;
  for (int i = 0; i < l->n; i++) {
    int64_t sz = 0, part, xi = x;
    if (i < l->n - 1) {
      if (!size_eval(l->mode[i], env, &sz) || sz <= 0) return false;
      xi = x % sz;
      x /= sz;
    }
    if (!eval_rec(l->mode[i], xi, env, &part) || __builtin_add_overflow(acc, part, &acc))
      return false;
  }
  *out = acc;
  return true;
}
bool lyt_eval(const Layout *l, int64_t idx, const int64_t *env, int64_t *out) {
  if (idx < 0) return false;
  return eval_rec(l, idx, env, out);
}

void lyt_coord_vars(IxCtx *c, const Layout *l, const char *prefix, const IxExpr **out) {
  int n = lyt_nleaves(l);
  const IxExpr **s = ARENA_NEW_ARRAY(ix_arena(c), const IxExpr *, n);
  lyt_leaves(l, s, NULL);
  for (int i = 0; i < n; i++) {
    char name[64];
    snprintf(name, sizeof name, "%s%d", prefix, i);
    if (ix_is_const(s[i])) out[i] = ix_var(c, name, 0, s[i]->k - 1);
    else out[i] = ix_var_full(c, name, 0, IX_INF, s[i], 1);
  }
}

static const IxExpr *fwd_rec(IxCtx *c, const Layout *l, const IxExpr *x) {
  if (l->n == 0) return ix_mul(c, x, l->stride);
  const IxExpr *acc = ix_const(c, 0);
  for (int i = 0; i < l->n; i++) {
    const IxExpr *xi = x;
    if (i < l->n - 1) {
      const IxExpr *sz = lyt_size(c, l->mode[i]);
      xi = ix_mod(c, x, sz);
      x = ix_div(c, x, sz);
    }
    acc = ix_add(c, acc, fwd_rec(c, l->mode[i], xi));
  }
  return acc;
}

const IxExpr *lyt_emit_fwd(IxCtx *c, const Layout *l, const IxExpr *const *crd, int ncrd,
                           LytError *err) {
  clear(err);
  int nl = lyt_nleaves(l);
  if (ncrd == nl) {
    const IxExpr **d = ARENA_NEW_ARRAY(ix_arena(c), const IxExpr *, nl);
    lyt_leaves(l, NULL, d);
    const IxExpr *acc = ix_const(c, 0);
    for (int i = 0; i < nl; i++) acc = ix_add(c, acc, ix_mul(c, crd[i], d[i]));
    return acc;
  }
  if (ncrd == 1) return fwd_rec(c, l, crd[0]);
  if (ncrd == lyt_rank(l)) {
    const IxExpr *acc = ix_const(c, 0);
    for (int i = 0; i < ncrd; i++) acc = ix_add(c, acc, fwd_rec(c, lyt_mode(l, i), crd[i]));
    return acc;
  }
  fail(c, err, LYT_E_ARG, "emit_fwd: %d coordinates for %s", ncrd, lyt_to_string(c, l));
  return NULL;
}

static void idx2crd_rec(IxCtx *c, const Layout *l, const IxExpr *x, const IxExpr **out, int *k) {
  if (l->n == 0) {
    out[(*k)++] = x;
    return;
  }
  for (int i = 0; i < l->n; i++) {
    const IxExpr *xi = x;
    if (i < l->n - 1) {
      const IxExpr *sz = lyt_size(c, l->mode[i]);
      xi = ix_mod(c, x, sz);
      x = ix_div(c, x, sz);
    }
    idx2crd_rec(c, l->mode[i], xi, out, k);
  }
}
void lyt_emit_idx2crd(IxCtx *c, const Layout *l, const IxExpr *idx, const IxExpr **out) {
  int k = 0;
  idx2crd_rec(c, l, idx, out, &k);
}

bool lyt_emit_inv(IxCtx *c, const Layout *l, const IxExpr *off, const IxExpr **out,
                  LytError *err) {
  LytError local;
  if (!err) err = &local;
  clear(err);
  const Layout *r = lyt_right_inverse(c, l, err);
  if (!r) return false;
  if (lyt_size(c, r) != lyt_size(c, l)) {
    fail(c, err, LYT_E_NOT_BIJECTIVE, "inverse: %s is not a bijection onto [0, size)",
         lyt_to_string(c, l));
    return false;
  }
  lyt_emit_idx2crd(c, l, fwd_rec(c, r, off), out);
  return true;
}

/* ------------------------------------------------------------------ parser */
typedef struct {
  IxCtx *c;
  const char *s;
  LytError *err;
} Parser;

static void skip_ws(Parser *p) {
  while (*p->s == ' ' || *p->s == '\t') p->s++;
}

/* A shape-only tree: Layout with stride unset. */
static const Layout *parse_tree(Parser *p, int depth, bool stride) {
  skip_ws(p);
  if (depth > 32) {
    fail(p->c, p->err, LYT_E_PARSE, "layout nested too deeply");
    return NULL;
  }
  if (*p->s == '(') {
    p->s++;
    int n = 0, cap = 4;
    const Layout **m = ARENA_NEW_ARRAY(ix_arena(p->c), const Layout *, cap);
    for (;;) {
      const Layout *e = parse_tree(p, depth + 1, stride);
      if (!e) return NULL;
      if (n == cap) {
        const Layout **nm = ARENA_NEW_ARRAY(ix_arena(p->c), const Layout *, cap * 2);
        memcpy(nm, m, sizeof *m * (size_t)n);
        m = nm;
        cap *= 2;
      }
      m[n++] = e;
      skip_ws(p);
      if (*p->s == ',') { p->s++; continue; }
      if (*p->s == ')') { p->s++; break; }
      fail(p->c, p->err, LYT_E_PARSE, "expected ',' or ')' at \"%.20s\"", p->s);
      return NULL;
    }
    return lyt_tuple(p->c, m, n);
  }
  const IxExpr *v = NULL;
  for (;;) { /* factor ('*' factor)* */
    skip_ws(p);
    const IxExpr *f = NULL;
    if (*p->s >= '0' && *p->s <= '9') {
      int64_t x = 0;
      while (*p->s >= '0' && *p->s <= '9') {
        if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, *p->s - '0', &x)) {
          fail(p->c, p->err, LYT_E_PARSE, "integer too large");
          return NULL;
        }
        p->s++;
      }
      if (x < 1 && !stride) {
        fail(p->c, p->err, LYT_E_PARSE, "extent %lld is not >= 1", (long long)x);
        return NULL;
      }
      f = ix_const(p->c, x);
    } else if ((*p->s >= 'a' && *p->s <= 'z') || (*p->s >= 'A' && *p->s <= 'Z') || *p->s == '_') {
      const char *b = p->s;
      while ((*p->s >= 'a' && *p->s <= 'z') || (*p->s >= 'A' && *p->s <= 'Z') || *p->s == '_' ||
             (*p->s >= '0' && *p->s <= '9'))
        p->s++;
      char *name = arena_strndup(ix_arena(p->c), b, (size_t)(p->s - b));
      if (!(f = ix_var_by_name(p->c, name))) {
        fail(p->c, p->err, LYT_E_PARSE, "unknown size variable '%s'", name);
        return NULL;
      }
    } else {
      fail(p->c, p->err, LYT_E_PARSE, "expected an integer, a name or '(' at \"%.20s\"", p->s);
      return NULL;
    }
    v = v ? ix_mul(p->c, v, f) : f;
    skip_ws(p);
    if (*p->s != '*') break;
    p->s++;
  }
  return lyt_leaf(p->c, v, NULL);
}

static const Layout *zip_trees(Parser *p, const Layout *s, const Layout *d) {
  if (s->n != d->n) {
    fail(p->c, p->err, LYT_E_PARSE, "shape and stride are not congruent");
    return NULL;
  }
  if (s->n == 0) return lyt_leaf(p->c, s->shape, d->shape);
  const Layout **m = ARENA_NEW_ARRAY(ix_arena(p->c), const Layout *, s->n);
  for (int i = 0; i < s->n; i++)
    if (!(m[i] = zip_trees(p, s->mode[i], d->mode[i]))) return NULL;
  return lyt_tuple(p->c, m, s->n);
}

static const Layout *parse_layout(Parser *p) {
  const Layout *s = parse_tree(p, 0, false);
  if (!s) return NULL;
  skip_ws(p);
  if (*p->s != ':') {
    fail(p->c, p->err, LYT_E_PARSE, "expected ':' between shape and stride");
    return NULL;
  }
  p->s++;
  const Layout *d = parse_tree(p, 0, true);
  return d ? zip_trees(p, s, d) : NULL;
}

const Layout *lyt_parse(IxCtx *c, const char *text, LytError *err) {
  LytError local;
  if (!err) err = &local;
  clear(err);
  Parser p = {c, text, err};
  const Layout *l = parse_layout(&p);
  if (!l) return NULL;
  skip_ws(&p);
  if (*p.s && *p.s != '\n') {
    fail(c, err, LYT_E_PARSE, "trailing text \"%.20s\"", p.s);
    return NULL;
  }
  return l;
}

int lyt_parse_tiler(IxCtx *c, const char *text, const Layout **out, int max, LytError *err) {
  LytError local;
  if (!err) err = &local;
  clear(err);
  Parser p = {c, text, err};
  skip_ws(&p);
  if (*p.s != '<') {
    const Layout *l = lyt_parse(c, text, err);
    if (!l || max < 1) return 0;
    out[0] = l;
    return 1;
  }
  p.s++;
  int n = 0;
  for (;;) {
    const Layout *l = parse_layout(&p);
    if (!l) return 0;
    if (n == max) {
      fail(c, err, LYT_E_PARSE, "tiler has more than %d modes", max);
      return 0;
    }
    out[n++] = l;
    skip_ws(&p);
    if (*p.s == ',') { p.s++; continue; }
    if (*p.s == '>') { p.s++; break; }
    fail(c, err, LYT_E_PARSE, "expected ',' or '>' in tiler");
    return 0;
  }
  skip_ws(&p);
  if (*p.s && *p.s != '\n') {
    fail(c, err, LYT_E_PARSE, "trailing text after tiler");
    return 0;
  }
  return n;
}
