/* ein.c -- hash-consed EIN expressions and operators. */
#include "ir/ein.h"

#include <math.h>
#include <string.h>

/* ---- hash-consing table ------------------------------------------------ */

/* Open addressing over pointers; each object carries its own hash. Grown
 * tables come from the arena (the old array is simply abandoned: at most as
 * much memory again as the live table). */
typedef struct InternTable {
  const void **slots;
  size_t cap, count;
} InternTable;

struct EinContext {
  Arena *arena;
  InternTable exprs, ops;
};

EinContext *ein_context_new(Arena *a) {
  EinContext *c = ARENA_NEW(a, EinContext);
  c->arena = a;
  c->exprs.cap = 1024;
  c->exprs.slots = ARENA_NEW_ARRAY(a, const void *, c->exprs.cap);
  c->ops.cap = 64;
  c->ops.slots = ARENA_NEW_ARRAY(a, const void *, c->ops.cap);
  return c;
}

Arena *ein_context_arena(const EinContext *c) { return c->arena; }
size_t ein_context_node_count(const EinContext *c) { return c->exprs.count; }

static uint32_t mix(uint32_t h, uint32_t v) {
  h ^= v + 0x9e3779b9u + (h << 6) + (h >> 2);
  return h;
}

static uint32_t mix64(uint32_t h, uint64_t v) {
  return mix(mix(h, (uint32_t)v), (uint32_t)(v >> 32));
}

static void table_grow(Arena *a, InternTable *t, uint32_t (*hash)(const void *)) {
  size_t ncap = t->cap * 2;
  const void **ns = ARENA_NEW_ARRAY(a, const void *, ncap);
  for (size_t i = 0; i < t->cap; i++) {
    const void *p = t->slots[i];
    if (!p) continue;
    size_t j = hash(p) & (ncap - 1);
    while (ns[j]) j = (j + 1) & (ncap - 1);
    ns[j] = p;
  }
  t->slots = ns;
  t->cap = ncap;
}

/* ---- constants ---------------------------------------------------------- */

static int64_t gcd64(int64_t a, int64_t b) {
  /* Magnitudes as unsigned so that INT64_MIN does not overflow. */
  uint64_t x = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
  uint64_t y = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
  while (y) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return x > (uint64_t)INT64_MAX ? 0 : (int64_t)x;
}

static EinConst k_real(double x) {
  EinConst k = {true, 0, 1, x};
  return k;
}

EinConst ein_k_int(int64_t n) {
  EinConst k = {false, n, 1, 0.0};
  return k;
}

static double k_value(EinConst k) { return k.is_real ? k.real : (double)k.num / (double)k.den; }

/* A reduced rational, or a real when it cannot be represented. */
static EinConst k_rat(int64_t num, int64_t den) {
  if (den == 0) return k_real(num == 0 ? NAN : (num > 0 ? INFINITY : -INFINITY));
  int64_t g = gcd64(num, den);
  if (g == 0) return k_real((double)num / (double)den);
  num /= g;
  den /= g;
  if (den < 0) {
    if (num == INT64_MIN || den == INT64_MIN) return k_real((double)num / (double)den);
    num = -num;
    den = -den;
  }
  EinConst k = {false, num, den, 0.0};
  return k;
}

EinConst ein_k_add(EinConst a, EinConst b) {
  if (a.is_real || b.is_real) return k_real(k_value(a) + k_value(b));
  int64_t x, y, n, d;
  if (__builtin_mul_overflow(a.num, b.den, &x) || __builtin_mul_overflow(b.num, a.den, &y) ||
      __builtin_add_overflow(x, y, &n) || __builtin_mul_overflow(a.den, b.den, &d))
    return k_real(k_value(a) + k_value(b));
  return k_rat(n, d);
}

EinConst ein_k_mul(EinConst a, EinConst b) {
  if (a.is_real || b.is_real) return k_real(k_value(a) * k_value(b));
  int64_t n, d;
  if (__builtin_mul_overflow(a.num, b.num, &n) || __builtin_mul_overflow(a.den, b.den, &d))
    return k_real(k_value(a) * k_value(b));
  return k_rat(n, d);
}

EinConst ein_k_neg(EinConst a) {
  if (a.is_real) return k_real(-a.real);
  if (a.num == INT64_MIN) return k_real(-k_value(a));
  a.num = -a.num;
  return a;
}

bool ein_k_div(EinConst a, EinConst b, EinConst *out) {
  if (!b.is_real && b.num == 0) return false;
  if (a.is_real || b.is_real) {
    *out = k_real(k_value(a) / k_value(b));
    return true;
  }
  int64_t n, d;
  if (__builtin_mul_overflow(a.num, b.den, &n) || __builtin_mul_overflow(a.den, b.num, &d))
    *out = k_real(k_value(a) / k_value(b));
  else
    *out = k_rat(n, d);
  return true;
}

/* ---- node interning ------------------------------------------------------ */

static uint32_t expr_hash_of(const void *p) { return ((const EinExpr *)p)->hash; }

static uint32_t compute_hash(const EinExpr *e) {
  uint32_t h = mix(0x45494e31u, (uint32_t)e->tag);
  h = mix(h, e->fun);
  h = mix(h, (uint32_t)e->power);
  h = mix(h, (uint32_t)e->param);
  h = mix(h, (uint32_t)e->param2);
  for (int i = 0; i < e->nkids; i++) h = mix(h, e->kids[i]->hash);
  h = mix(h, (uint32_t)e->nidx);
  for (int i = 0; i < e->nidx; i++) h = mix(h, (uint32_t)e->idx[i]);
  h = mix(h, (uint32_t)e->nidx2);
  for (int i = 0; i < e->nidx2; i++) h = mix(h, (uint32_t)e->idx2[i]);
  for (int i = 0; i < e->nbind; i++)
    h = mix(mix(mix(h, (uint32_t)e->bind[i].var), (uint32_t)e->bind[i].lo),
            (uint32_t)e->bind[i].hi);
  if (e->tag == EIN_CONST) {
    if (e->c.is_real) {
      uint64_t bits;
      memcpy(&bits, &e->c.real, sizeof bits);
      h = mix64(mix(h, 1), bits);
    } else {
      h = mix64(mix64(h, (uint64_t)e->c.num), (uint64_t)e->c.den);
    }
  }
  return h;
}

static bool same_idx(int n, const EinIdx *a, const EinIdx *b) {
  return n == 0 || memcmp(a, b, sizeof *a * (size_t)n) == 0;
}

static bool expr_equal(const EinExpr *a, const EinExpr *b) {
  if (a->hash != b->hash || a->tag != b->tag || a->fun != b->fun || a->power != b->power ||
      a->param != b->param || a->param2 != b->param2 || a->nkids != b->nkids ||
      a->nidx != b->nidx || a->nidx2 != b->nidx2 || a->nbind != b->nbind)
    return false;
  for (int i = 0; i < a->nkids; i++)
    if (a->kids[i] != b->kids[i]) return false;
  if (!same_idx(a->nidx, a->idx, b->idx) || !same_idx(a->nidx2, a->idx2, b->idx2)) return false;
  for (int i = 0; i < a->nbind; i++)
    if (a->bind[i].var != b->bind[i].var || a->bind[i].lo != b->bind[i].lo ||
        a->bind[i].hi != b->bind[i].hi)
      return false;
  if (a->tag == EIN_CONST) {
    if (a->c.is_real != b->c.is_real) return false;
    if (a->c.is_real) return memcmp(&a->c.real, &b->c.real, sizeof(double)) == 0;
    return a->c.num == b->c.num && a->c.den == b->c.den;
  }
  return true;
}

static uint64_t idx_fv(int n, const EinIdx *idx) {
  uint64_t m = 0;
  for (int i = 0; i < n; i++)
    if (ein_idx_is_var(idx[i])) m |= ein_var_bit(idx[i]);
  return m;
}

/* Fill in the derived fields of key (flags, fv, size, hash). */
static void derive(EinExpr *k) {
  uint16_t fl = 0;
  uint64_t fv = idx_fv(k->nidx, k->idx) | idx_fv(k->nidx2, k->idx2);
  uint64_t size = 1;
  for (int i = 0; i < k->nkids; i++) {
    fl |= k->kids[i]->flags;
    fv |= k->kids[i]->fv;
    size += k->kids[i]->size;
  }
  switch (k->tag) {
  case EIN_FIELD:
  case EIN_CONV: fl |= EIN_FL_FIELD | EIN_FL_VARIES; break;
  case EIN_LIFT: fl = (uint16_t)((fl & ~EIN_FL_VARIES) | EIN_FL_FIELD); break;
  case EIN_PROBE: fl = (uint16_t)((fl & ~(EIN_FL_FIELD | EIN_FL_VARIES)) | EIN_FL_PROBE); break;
  case EIN_DIFF: fl |= EIN_FL_DIFF; break;
  case EIN_SUM:
    fl |= EIN_FL_BINDS;
    for (int i = 0; i < k->nbind; i++)
      if (k->bind[i].var < EIN_VAR_LIMIT) fv &= ~ein_var_bit(k->bind[i].var);
    break;
  default: break;
  }
  k->flags = fl;
  k->fv = fv;
  k->size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
  k->hash = compute_hash(k);
}

/* The canonical node equal to key; copies key's arrays into the arena when
 * the node is new. */
static const EinExpr *intern(EinContext *c, EinExpr *key) {
  derive(key);
  InternTable *t = &c->exprs;
  size_t j = key->hash & (t->cap - 1);
  for (const EinExpr *p; (p = t->slots[j]) != NULL; j = (j + 1) & (t->cap - 1))
    if (expr_equal(p, key)) return p;
  EinExpr *n = ARENA_NEW(c->arena, EinExpr);
  *n = *key;
  if (key->nkids) {
    const EinExpr **kids = ARENA_NEW_ARRAY(c->arena, const EinExpr *, key->nkids);
    memcpy(kids, key->kids, sizeof *kids * (size_t)key->nkids);
    n->kids = kids;
  } else {
    n->kids = NULL;
  }
  if (key->nidx) {
    EinIdx *v = ARENA_NEW_ARRAY(c->arena, EinIdx, key->nidx);
    memcpy(v, key->idx, sizeof *v * (size_t)key->nidx);
    n->idx = v;
  } else {
    n->idx = NULL;
  }
  if (key->nidx2) {
    EinIdx *v = ARENA_NEW_ARRAY(c->arena, EinIdx, key->nidx2);
    memcpy(v, key->idx2, sizeof *v * (size_t)key->nidx2);
    n->idx2 = v;
  } else {
    n->idx2 = NULL;
  }
  if (key->nbind) {
    EinBinder *v = ARENA_NEW_ARRAY(c->arena, EinBinder, key->nbind);
    memcpy(v, key->bind, sizeof *v * (size_t)key->nbind);
    n->bind = v;
  } else {
    n->bind = NULL;
  }
  t->slots[j] = n;
  if (++t->count * 2 > t->cap) table_grow(c->arena, t, expr_hash_of);
  return n;
}

static EinExpr key_of(EinTag tag) {
  EinExpr k;
  memset(&k, 0, sizeof k);
  k.tag = tag;
  k.param = -1;
  k.param2 = -1;
  return k;
}

/* ---- constructors ----------------------------------------------------- */

const EinExpr *ein_const(EinContext *c, EinConst v) {
  EinExpr k = key_of(EIN_CONST);
  if (v.is_real) {
    k.c = k_real(v.real);
  } else {
    k.c = k_rat(v.num, v.den);
  }
  return intern(c, &k);
}

const EinExpr *ein_const_int(EinContext *c, int64_t n) { return ein_const(c, ein_k_int(n)); }

const EinExpr *ein_const_rat(EinContext *c, int64_t num, int64_t den) {
  return ein_const(c, k_rat(num, den));
}

const EinExpr *ein_const_real(EinContext *c, double x) { return ein_const(c, k_real(x)); }

static const EinExpr *idx_node(EinContext *c, EinTag tag, int param, int n, const EinIdx *idx) {
  EinExpr k = key_of(tag);
  k.param = param;
  k.nidx = n;
  k.idx = idx;
  return intern(c, &k);
}

const EinExpr *ein_delta(EinContext *c, EinIdx a, EinIdx b) {
  EinIdx v[2] = {a, b};
  return idx_node(c, EIN_DELTA, -1, 2, v);
}

const EinExpr *ein_eps(EinContext *c, int n, const EinIdx *idx) {
  return idx_node(c, EIN_EPS, -1, n == 2 ? 2 : 3, idx);
}

const EinExpr *ein_eps2(EinContext *c, EinIdx a, EinIdx b) {
  EinIdx v[2] = {a, b};
  return ein_eps(c, 2, v);
}

const EinExpr *ein_eps3(EinContext *c, EinIdx a, EinIdx b, EinIdx d) {
  EinIdx v[3] = {a, b, d};
  return ein_eps(c, 3, v);
}

const EinExpr *ein_tensor(EinContext *c, int param, int n, const EinIdx *idx) {
  return idx_node(c, EIN_TENSOR, param, n, idx);
}

const EinExpr *ein_field(EinContext *c, int param, int n, const EinIdx *idx) {
  return idx_node(c, EIN_FIELD, param, n, idx);
}

const EinExpr *ein_conv(EinContext *c, int image, int kernel, int n, const EinIdx *alpha,
                        int nbeta, const EinIdx *beta) {
  EinExpr k = key_of(EIN_CONV);
  k.param = image;
  k.param2 = kernel;
  k.nidx = n;
  k.idx = alpha;
  k.nidx2 = nbeta;
  k.idx2 = beta;
  return intern(c, &k);
}

static const EinExpr *node1(EinContext *c, EinTag tag, const EinExpr *e) {
  EinExpr k = key_of(tag);
  k.nkids = 1;
  k.kids = &e;
  return intern(c, &k);
}

const EinExpr *ein_lift(EinContext *c, const EinExpr *e) { return node1(c, EIN_LIFT, e); }
const EinExpr *ein_neg(EinContext *c, const EinExpr *e) { return node1(c, EIN_NEG, e); }

const EinExpr *ein_fun(EinContext *c, EinFun f, const EinExpr *e) {
  EinExpr k = key_of(EIN_FUN);
  k.fun = (uint8_t)f;
  k.nkids = 1;
  k.kids = &e;
  return intern(c, &k);
}

const EinExpr *ein_pow(EinContext *c, const EinExpr *e, int power) {
  EinExpr k = key_of(EIN_POW);
  k.power = power;
  k.nkids = 1;
  k.kids = &e;
  return intern(c, &k);
}

static const EinExpr *nary(EinContext *c, EinTag tag, int n, const EinExpr *const *kids) {
  if (n == 0) return ein_const_int(c, tag == EIN_MUL ? 1 : 0);
  if (n == 1) return kids[0];
  EinExpr k = key_of(tag);
  k.nkids = n;
  k.kids = kids;
  return intern(c, &k);
}

const EinExpr *ein_add(EinContext *c, int n, const EinExpr *const *kids) {
  return nary(c, EIN_ADD, n, kids);
}

const EinExpr *ein_mul(EinContext *c, int n, const EinExpr *const *kids) {
  return nary(c, EIN_MUL, n, kids);
}

static const EinExpr *node2(EinContext *c, EinTag tag, const EinExpr *a, const EinExpr *b) {
  const EinExpr *v[2] = {a, b};
  EinExpr k = key_of(tag);
  k.nkids = 2;
  k.kids = v;
  return intern(c, &k);
}

const EinExpr *ein_add2(EinContext *c, const EinExpr *a, const EinExpr *b) {
  return node2(c, EIN_ADD, a, b);
}
const EinExpr *ein_mul2(EinContext *c, const EinExpr *a, const EinExpr *b) {
  return node2(c, EIN_MUL, a, b);
}
const EinExpr *ein_sub(EinContext *c, const EinExpr *a, const EinExpr *b) {
  return node2(c, EIN_SUB, a, b);
}
const EinExpr *ein_div(EinContext *c, const EinExpr *a, const EinExpr *b) {
  return node2(c, EIN_DIV, a, b);
}

const EinExpr *ein_sum(EinContext *c, int n, const EinBinder *bind, const EinExpr *body) {
  if (n <= 0) return body;
  EinExpr k = key_of(EIN_SUM);
  k.nbind = n;
  k.bind = bind;
  k.nkids = 1;
  k.kids = &body;
  return intern(c, &k);
}

const EinExpr *ein_sum1(EinContext *c, int var, int lo, int hi, const EinExpr *body) {
  EinBinder b = {var, lo, hi};
  return ein_sum(c, 1, &b, body);
}

const EinExpr *ein_diff(EinContext *c, EinIdx i, const EinExpr *e) {
  EinExpr k = key_of(EIN_DIFF);
  k.nidx = 1;
  k.idx = &i;
  k.nkids = 1;
  k.kids = &e;
  return intern(c, &k);
}

const EinExpr *ein_probe(EinContext *c, const EinExpr *e, int pos_param) {
  EinExpr k = key_of(EIN_PROBE);
  k.param = pos_param;
  k.nkids = 1;
  k.kids = &e;
  return intern(c, &k);
}

const EinExpr *ein_with_kids(EinContext *c, const EinExpr *e, const EinExpr *const *kids) {
  bool same = true;
  for (int i = 0; i < e->nkids; i++)
    if (kids[i] != e->kids[i]) same = false;
  if (same) return e;
  EinExpr k = *e;
  k.kids = kids;
  return intern(c, &k);
}

/* ---- queries ------------------------------------------------------------ */

static const char *const fun_names[] = {
#define EIN_X(id, name) name,
    EIN_FUNS(EIN_X)
#undef EIN_X
};

const char *ein_fun_name(EinFun f) { return (unsigned)f < EIN_FUN_COUNT ? fun_names[f] : "?"; }

bool ein_is_const(const EinExpr *e) { return e->tag == EIN_CONST; }

bool ein_is_int(const EinExpr *e, int64_t n) {
  return e->tag == EIN_CONST && !e->c.is_real && e->c.den == 1 && e->c.num == n;
}

bool ein_is_field(const EinExpr *e) { return (e->flags & EIN_FL_FIELD) != 0; }
bool ein_varies(const EinExpr *e) { return (e->flags & EIN_FL_VARIES) != 0; }

bool ein_free_in(const EinExpr *e, int v) { return (e->fv & ein_var_bit(v)) != 0; }

int ein_fresh_var(uint64_t avoid) {
  for (int v = 0; v < EIN_VAR_LIMIT; v++)
    if (!(avoid & ((uint64_t)1 << v))) return v;
  return -1;
}

double ein_const_value(const EinExpr *e) { return e->tag == EIN_CONST ? k_value(e->c) : NAN; }

/* ---- substitution --------------------------------------------------------- */

static EinIdx map_idx(EinIdx x, int n, const int *from, const EinIdx *to) {
  if (!ein_idx_is_var(x)) return x;
  for (int k = 0; k < n; k++)
    if (from[k] == x) return to[k];
  return x;
}

/* The list mapped through the variable map (arena copy; NULL if empty). */
static const EinIdx *map_list(EinContext *c, int n, const EinIdx *idx, int m, const int *from,
                              const EinIdx *to) {
  if (n == 0) return NULL;
  EinIdx *v = ARENA_NEW_ARRAY(c->arena, EinIdx, n);
  for (int i = 0; i < n; i++) v[i] = map_idx(idx[i], m, from, to);
  return v;
}

/* The fv bit set only tracks the first 63 variables, so a fresh variable
 * past everything in sight needs this full walk. */
int ein_max_var(const EinExpr *e) {
  int m = -1;
  for (int i = 0; i < e->nidx; i++)
    if (ein_idx_is_var(e->idx[i]) && e->idx[i] > m) m = e->idx[i];
  for (int i = 0; i < e->nidx2; i++)
    if (ein_idx_is_var(e->idx2[i]) && e->idx2[i] > m) m = e->idx2[i];
  for (int i = 0; i < e->nbind; i++)
    if (e->bind[i].var > m) m = e->bind[i].var;
  for (int i = 0; i < e->nkids; i++) {
    int k = ein_max_var(e->kids[i]);
    if (k > m) m = k;
  }
  return m;
}

static const EinExpr *subst_rec(EinContext *c, const EinExpr *e, int n, const int *from,
                                const EinIdx *to) {
  /* Only the entries whose variable is free in e matter; a Σ may add one
   * renaming per binder. */
  int cap = n + (e->tag == EIN_SUM ? e->nbind : 0);
  int fbuf[32];
  EinIdx tbuf[32];
  int *f2 = cap <= 32 ? fbuf : ARENA_NEW_ARRAY(c->arena, int, cap);
  EinIdx *t2 = cap <= 32 ? tbuf : ARENA_NEW_ARRAY(c->arena, EinIdx, cap);
  int m = 0;
  for (int k = 0; k < n; k++)
    if (ein_free_in(e, from[k]) && to[k] != from[k]) {
      f2[m] = from[k];
      t2[m] = to[k];
      m++;
    }
  if (m == 0) return e;

  EinExpr k = *e;
  k.idx = map_list(c, e->nidx, e->idx, m, f2, t2);
  k.idx2 = map_list(c, e->nidx2, e->idx2, m, f2, t2);

  if (e->tag == EIN_SUM) {
    const EinExpr *body = e->kids[0];
    /* Drop shadowed entries; rename binders that would capture a target. */
    int mm = 0;
    for (int q = 0; q < m; q++) {
      bool shadowed = false;
      for (int b = 0; b < e->nbind; b++)
        if (e->bind[b].var == f2[q]) shadowed = true;
      if (!shadowed) {
        f2[mm] = f2[q];
        t2[mm] = t2[q];
        mm++;
      }
    }
    m = mm;
    if (m == 0) return e;
    uint64_t targets = 0, avoid = body->fv;
    for (int q = 0; q < m; q++) {
      if (ein_idx_is_var(t2[q])) targets |= ein_var_bit(t2[q]);
      avoid |= ein_var_bit(f2[q]);
    }
    avoid |= targets;
    for (int b = 0; b < e->nbind; b++) avoid |= ein_var_bit(e->bind[b].var);
    int big = -1; /* next variable past everything in sight, if the bit set runs out */
    EinBinder *nb = ARENA_NEW_ARRAY(c->arena, EinBinder, e->nbind);
    for (int b = 0; b < e->nbind; b++) {
      nb[b] = e->bind[b];
      bool capture = false;
      for (int q = 0; q < m; q++)
        if (t2[q] == e->bind[b].var) capture = true;
      if (!capture) continue;
      int w = ein_fresh_var(avoid);
      if (w < 0) {
        if (big < 0) {
          big = ein_max_var(e);
          for (int q = 0; q < m; q++) {
            if (f2[q] > big) big = f2[q];
            if (ein_idx_is_var(t2[q]) && t2[q] > big) big = t2[q];
          }
          big = big < EIN_VAR_LIMIT ? EIN_VAR_LIMIT : big + 1;
        }
        w = big++;
      }
      avoid |= ein_var_bit(w);
      f2[m] = e->bind[b].var;
      t2[m] = ein_ivar(w);
      m++;
      nb[b].var = w;
    }
    const EinExpr *nbody = subst_rec(c, body, m, f2, t2);
    return ein_sum(c, e->nbind, nb, nbody);
  }

  const EinExpr *kbuf[8];
  const EinExpr **kids = e->nkids <= 8 ? kbuf : ARENA_NEW_ARRAY(c->arena, const EinExpr *, e->nkids);
  for (int i = 0; i < e->nkids; i++) kids[i] = subst_rec(c, e->kids[i], m, f2, t2);
  k.kids = kids;
  return intern(c, &k);
}

const EinExpr *ein_subst(EinContext *c, const EinExpr *e, int n, const int *from,
                         const EinIdx *to) {
  return subst_rec(c, e, n, from, to);
}

/* Binding-site renumbering. env holds (old, new) pairs, innermost last
 * (grown in the arena past the first 32); `moved` has a bit for each old
 * variable whose current image differs from itself. */
typedef struct CanonEnv {
  Arena *arena;
  int n, cap;
  int *old, *nu;
} CanonEnv;

static void canon_push(CanonEnv *env, int old, int nu) {
  if (env->n == env->cap) {
    int cap = env->cap * 2;
    int *o = ARENA_NEW_ARRAY(env->arena, int, cap), *u = ARENA_NEW_ARRAY(env->arena, int, cap);
    memcpy(o, env->old, sizeof *o * (size_t)env->n);
    memcpy(u, env->nu, sizeof *u * (size_t)env->n);
    env->old = o;
    env->nu = u;
    env->cap = cap;
  }
  env->old[env->n] = old;
  env->nu[env->n] = nu;
  env->n++;
}

static EinIdx canon_idx(EinIdx x, const CanonEnv *env) {
  if (!ein_idx_is_var(x)) return x;
  for (int k = env->n - 1; k >= 0; k--)
    if (env->old[k] == x) return ein_ivar(env->nu[k]);
  return x;
}

static const EinExpr *canon_rec(EinContext *c, const EinExpr *e, int depth, CanonEnv *env,
                                uint64_t moved) {
  if (!(e->flags & EIN_FL_BINDS) && !(e->fv & moved)) return e;
  EinExpr k = *e;
  EinIdx idx[EIN_MAX_RANK * 2 + 4], idx2[EIN_MAX_RANK * 2 + 4];
  if (e->nidx) {
    EinIdx *v = e->nidx <= (int)(sizeof idx / sizeof idx[0])
                    ? idx
                    : ARENA_NEW_ARRAY(c->arena, EinIdx, e->nidx);
    for (int i = 0; i < e->nidx; i++) v[i] = canon_idx(e->idx[i], env);
    k.idx = v;
  }
  if (e->nidx2) {
    EinIdx *v = e->nidx2 <= (int)(sizeof idx2 / sizeof idx2[0])
                    ? idx2
                    : ARENA_NEW_ARRAY(c->arena, EinIdx, e->nidx2);
    for (int i = 0; i < e->nidx2; i++) v[i] = canon_idx(e->idx2[i], env);
    k.idx2 = v;
  }
  if (e->tag == EIN_SUM) {
    int saved = env->n;
    uint64_t m2 = moved;
    EinBinder *nb = ARENA_NEW_ARRAY(c->arena, EinBinder, e->nbind);
    for (int b = 0; b < e->nbind; b++) {
      nb[b] = e->bind[b];
      nb[b].var = depth + b;
      canon_push(env, e->bind[b].var, depth + b);
      if (e->bind[b].var != depth + b)
        m2 |= ein_var_bit(e->bind[b].var);
      else if (e->bind[b].var < EIN_VAR_LIMIT)
        m2 &= ~ein_var_bit(e->bind[b].var);
    }
    const EinExpr *body = canon_rec(c, e->kids[0], depth + e->nbind, env, m2);
    env->n = saved;
    return ein_sum(c, e->nbind, nb, body);
  }
  const EinExpr *kbuf[8];
  const EinExpr **kids = e->nkids <= 8 ? kbuf : ARENA_NEW_ARRAY(c->arena, const EinExpr *, e->nkids);
  for (int i = 0; i < e->nkids; i++) kids[i] = canon_rec(c, e->kids[i], depth, env, moved);
  k.kids = kids;
  return intern(c, &k);
}

const EinExpr *ein_canon_vars(EinContext *c, const EinExpr *e, int depth) {
  int old[32], nu[32];
  CanonEnv env = {c->arena, 0, 32, old, nu};
  return canon_rec(c, e, depth, &env, 0);
}

const EinExpr *ein_map_params(EinContext *c, const EinExpr *e, const int *map) {
  EinExpr k = *e;
  if (e->param >= 0) k.param = map[e->param];
  if (e->param2 >= 0) k.param2 = map[e->param2];
  const EinExpr *kbuf[8];
  const EinExpr **kids = e->nkids <= 8 ? kbuf : ARENA_NEW_ARRAY(c->arena, const EinExpr *, e->nkids);
  for (int i = 0; i < e->nkids; i++) kids[i] = ein_map_params(c, e->kids[i], map);
  k.kids = kids;
  return intern(c, &k);
}

/* ---- operators ---------------------------------------------------------- */

EinParam ein_param_tensor(int rank, const int *shape) {
  EinParam p;
  memset(&p, 0, sizeof p);
  p.kind = EIN_PARAM_TENSOR;
  p.rank = rank < 0 ? 0 : (rank > EIN_MAX_RANK ? EIN_MAX_RANK : rank);
  for (int i = 0; i < p.rank; i++) p.shape[i] = shape[i];
  return p;
}

EinParam ein_param_field(int dim, int rank, const int *shape) {
  EinParam p = ein_param_tensor(rank, shape);
  p.kind = EIN_PARAM_FIELD;
  p.dim = dim;
  return p;
}

EinParam ein_param_image(int dim, int rank, const int *shape) {
  EinParam p = ein_param_tensor(rank, shape);
  p.kind = EIN_PARAM_IMAGE;
  p.dim = dim;
  return p;
}

EinParam ein_param_kernel(int continuity) {
  EinParam p = ein_param_tensor(0, NULL);
  p.kind = EIN_PARAM_KERNEL;
  p.dim = continuity;
  return p;
}

static bool param_equal(const EinParam *a, const EinParam *b) {
  if (a->kind != b->kind || a->dim != b->dim || a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->shape[i] != b->shape[i]) return false;
  return true;
}

static uint32_t op_hash_of(const void *p) { return ((const EinOp *)p)->hash; }

static bool op_equal(const EinOp *a, const EinOp *b) {
  if (a->hash != b->hash || a->body != b->body || a->nparams != b->nparams ||
      a->nsigma != b->nsigma)
    return false;
  for (int i = 0; i < a->nparams; i++)
    if (!param_equal(&a->params[i], &b->params[i])) return false;
  for (int i = 0; i < a->nsigma; i++)
    if (a->sigma[i] != b->sigma[i]) return false;
  return true;
}

const EinOp *ein_op_new(EinContext *c, int nparams, const EinParam *params, int nsigma,
                        const int *sigma, const EinExpr *body) {
  EinOp key;
  key.nparams = nparams;
  key.params = params;
  key.nsigma = nsigma;
  key.sigma = sigma;
  key.body = ein_canon_vars(c, body, nsigma);
  uint32_t h = mix(0x4f50u, key.body->hash);
  for (int i = 0; i < nparams; i++) {
    h = mix(mix(mix(h, (uint32_t)params[i].kind), (uint32_t)params[i].dim),
            (uint32_t)params[i].rank);
    for (int j = 0; j < params[i].rank; j++) h = mix(h, (uint32_t)params[i].shape[j]);
  }
  for (int i = 0; i < nsigma; i++) h = mix(h, (uint32_t)sigma[i]);
  key.hash = h;
  InternTable *t = &c->ops;
  size_t j = h & (t->cap - 1);
  for (const EinOp *p; (p = t->slots[j]) != NULL; j = (j + 1) & (t->cap - 1))
    if (op_equal(p, &key)) return p;
  EinOp *op = ARENA_NEW(c->arena, EinOp);
  *op = key;
  EinParam *ps = ARENA_NEW_ARRAY(c->arena, EinParam, nparams > 0 ? nparams : 1);
  for (int i = 0; i < nparams; i++) {
    ps[i] = ein_param_tensor(params[i].rank, params[i].shape); /* zeroes the unused tail */
    ps[i].kind = params[i].kind;
    ps[i].dim = params[i].dim;
  }
  op->params = ps;
  int *sg = ARENA_NEW_ARRAY(c->arena, int, nsigma > 0 ? nsigma : 1);
  for (int i = 0; i < nsigma; i++) sg[i] = sigma[i];
  op->sigma = sg;
  t->slots[j] = op;
  if (++t->count * 2 > t->cap) table_grow(c->arena, t, op_hash_of);
  return op;
}

bool ein_op_is_field(const EinOp *op) { return ein_is_field(op->body); }

int ein_op_field_dim(const EinOp *op) {
  int d = 0;
  for (int i = 0; i < op->nparams; i++)
    if ((op->params[i].kind == EIN_PARAM_FIELD || op->params[i].kind == EIN_PARAM_IMAGE) &&
        op->params[i].dim > d)
      d = op->params[i].dim;
  return d;
}

size_t ein_op_size(const EinOp *op) { return op->body->size; }

/* ---- well-formedness -------------------------------------------------- */

/* Bound variables tracked by the well-formedness check. */
enum { MAP_MAX = 64 };

typedef struct CheckEnv {
  const EinOp *op;
  char *err;
  size_t errlen;
  int n;
  int var[MAP_MAX], ext[MAP_MAX]; /* bound variables and their extents */
} CheckEnv;

static bool check_fail(CheckEnv *env, const char *msg, int a) {
  if (env->err && env->errlen) snprintf(env->err, env->errlen, msg, a);
  return false;
}

/* Extent of a bound variable, or -1 when it is not bound. */
static int check_extent(const CheckEnv *env, int v) {
  for (int k = env->n - 1; k >= 0; k--)
    if (env->var[k] == v) return env->ext[k];
  return -1;
}

/* Each index must be bound (or a constant), and fit extent `lim` when known
 * (lim <= 0: not checked). */
static bool check_index(CheckEnv *env, EinIdx x, int lim) {
  if (ein_idx_is_var(x)) {
    int ext = check_extent(env, x);
    if (ext < 0) return check_fail(env, "index variable %d is not bound", x);
    if (lim > 0 && ext > lim) return check_fail(env, "index variable %d ranges past its axis", x);
    return true;
  }
  if (lim > 0 && ein_idx_val(x) >= lim)
    return check_fail(env, "constant index %d out of range", ein_idx_val(x));
  return true;
}

static bool check_param(CheckEnv *env, int p, EinParamKind kind) {
  if (p < 0 || p >= env->op->nparams) return check_fail(env, "parameter %d does not exist", p);
  if (env->op->params[p].kind != kind) return check_fail(env, "parameter %d has the wrong kind", p);
  return true;
}

static bool check_rec(CheckEnv *env, const EinExpr *e) {
  const EinParam *ps = env->op->params;
  switch (e->tag) {
  case EIN_CONST: return true;
  case EIN_DELTA:
  case EIN_EPS:
    for (int i = 0; i < e->nidx; i++)
      if (!check_index(env, e->idx[i], 0)) return false;
    return true;
  case EIN_TENSOR:
  case EIN_FIELD:
    if (!check_param(env, e->param, e->tag == EIN_TENSOR ? EIN_PARAM_TENSOR : EIN_PARAM_FIELD))
      return false;
    if (e->nidx != ps[e->param].rank)
      return check_fail(env, "parameter %d is indexed with the wrong number of indices",
                        e->param);
    for (int i = 0; i < e->nidx; i++)
      if (!check_index(env, e->idx[i], ps[e->param].shape[i])) return false;
    return true;
  case EIN_CONV:
    if (!check_param(env, e->param, EIN_PARAM_IMAGE) ||
        !check_param(env, e->param2, EIN_PARAM_KERNEL))
      return false;
    if (e->nidx != ps[e->param].rank)
      return check_fail(env, "image %d is indexed with the wrong number of indices", e->param);
    for (int i = 0; i < e->nidx; i++)
      if (!check_index(env, e->idx[i], ps[e->param].shape[i])) return false;
    for (int i = 0; i < e->nidx2; i++)
      if (!check_index(env, e->idx2[i], ps[e->param].dim)) return false;
    return true;
  case EIN_PROBE: {
    if (!check_param(env, e->param, EIN_PARAM_TENSOR)) return false;
    const EinParam *pp = &ps[e->param];
    int d = pp->rank == 0 ? 1 : pp->shape[0];
    if (pp->rank > 1) return check_fail(env, "probe position %d is not a vector", e->param);
    int fd = ein_op_field_dim(env->op);
    if (fd && d != fd) return check_fail(env, "probe position has dimension %d", d);
    return check_rec(env, e->kids[0]);
  }
  case EIN_DIFF:
    if (!check_index(env, e->idx[0], ein_op_field_dim(env->op))) return false;
    return check_rec(env, e->kids[0]);
  case EIN_SUM: {
    if (env->n + e->nbind > MAP_MAX) return check_fail(env, "summations nested too deeply", 0);
    int saved = env->n;
    for (int b = 0; b < e->nbind; b++) {
      if (e->bind[b].lo < 0 || e->bind[b].hi < e->bind[b].lo)
        return check_fail(env, "summation over variable %d has empty or negative bounds",
                          e->bind[b].var);
      env->var[env->n] = e->bind[b].var;
      env->ext[env->n] = e->bind[b].hi + 1;
      env->n++;
    }
    bool ok = check_rec(env, e->kids[0]);
    env->n = saved;
    return ok;
  }
  case EIN_FUN:
    if (e->fun >= EIN_FUN_COUNT) return check_fail(env, "unknown function %d", e->fun);
    return check_rec(env, e->kids[0]);
  case EIN_LIFT:
    if (ein_is_field(e->kids[0])) return check_fail(env, "lift of a field expression", 0);
    return check_rec(env, e->kids[0]);
  case EIN_POW:
  case EIN_NEG:
  case EIN_ADD:
  case EIN_SUB:
  case EIN_MUL:
  case EIN_DIV:
    for (int i = 0; i < e->nkids; i++)
      if (!check_rec(env, e->kids[i])) return false;
    return true;
  case EIN_TAG_COUNT: break;
  }
  return check_fail(env, "unknown node tag %d", (int)e->tag);
}

bool ein_op_check(const EinOp *op, char *err, size_t errlen) {
  CheckEnv env;
  env.op = op;
  env.err = err;
  env.errlen = errlen;
  env.n = 0;
  if (op->nsigma > EIN_MAX_RANK) return check_fail(&env, "result has rank %d", op->nsigma);
  for (int i = 0; i < op->nsigma; i++) {
    if (op->sigma[i] < 1) return check_fail(&env, "result axis %d is empty", i);
    env.var[env.n] = i;
    env.ext[env.n] = op->sigma[i];
    env.n++;
  }
  for (int i = 0; i < op->nparams; i++) {
    const EinParam *p = &op->params[i];
    if (p->rank < 0 || p->rank > EIN_MAX_RANK) return check_fail(&env, "parameter %d rank", i);
    for (int j = 0; j < p->rank; j++)
      if (p->shape[j] < 1) return check_fail(&env, "parameter %d has an empty axis", i);
    if ((p->kind == EIN_PARAM_FIELD || p->kind == EIN_PARAM_IMAGE) &&
        (p->dim < 1 || p->dim > EIN_MAX_DIM))
      return check_fail(&env, "parameter %d has a bad dimension", i);
  }
  return check_rec(&env, op->body);
}

/* ---- fusion ------------------------------------------------------------- */

typedef struct FuseCtx {
  EinContext *c;
  int param;        /* the outer parameter being replaced */
  const int *omap;  /* outer parameter renumbering */
  const EinExpr *ib; /* inner body, parameters already renumbered */
  int im;           /* inner |σ| */
} FuseCtx;

static const EinExpr *fuse_rec(FuseCtx *f, const EinExpr *e) {
  if ((e->tag == EIN_TENSOR || e->tag == EIN_FIELD) && e->param == f->param) {
    int from[EIN_MAX_RANK];
    for (int v = 0; v < f->im; v++) from[v] = v;
    return ein_subst(f->c, f->ib, f->im, from, e->idx);
  }
  EinExpr k = *e;
  if (e->param >= 0) k.param = f->omap[e->param];
  if (e->param2 >= 0) k.param2 = f->omap[e->param2];
  const EinExpr *kbuf[8];
  const EinExpr **kids =
      e->nkids <= 8 ? kbuf : ARENA_NEW_ARRAY(f->c->arena, const EinExpr *, e->nkids);
  for (int i = 0; i < e->nkids; i++) kids[i] = fuse_rec(f, e->kids[i]);
  k.kids = kids;
  return intern(f->c, &k);
}

/* Whether parameter p is the position of some probe in e. */
static bool probes_at(const EinExpr *e, int p) {
  if (!(e->flags & EIN_FL_PROBE)) return false;
  if (e->tag == EIN_PROBE && e->param == p) return true;
  for (int i = 0; i < e->nkids; i++)
    if (probes_at(e->kids[i], p)) return true;
  return false;
}

const EinOp *ein_op_subst(EinContext *c, const EinOp *outer, int param, const EinOp *inner) {
  if (param < 0 || param >= outer->nparams) return NULL;
  /* A probe position is a parameter, not an expression, so no operator can
   * take its place (fuse_rec would leave the probe at parameter -1). */
  if (probes_at(outer->body, param)) return NULL;
  const EinParam *p = &outer->params[param];
  bool field = ein_op_is_field(inner);
  if (field) {
    /* a lifted constant (no field or image parameter) fits any dimension */
    int fd = ein_op_field_dim(inner);
    if (p->kind != EIN_PARAM_FIELD || (fd && p->dim != fd)) return NULL;
  } else if (p->kind != EIN_PARAM_TENSOR) {
    return NULL;
  }
  if (p->rank != inner->nsigma) return NULL;
  for (int i = 0; i < p->rank; i++)
    if (p->shape[i] != inner->sigma[i]) return NULL;

  int np = outer->nparams - 1 + inner->nparams;
  EinParam *ps = ARENA_NEW_ARRAY(c->arena, EinParam, np > 0 ? np : 1);
  int *omap = ARENA_NEW_ARRAY(c->arena, int, outer->nparams);
  int *imap = ARENA_NEW_ARRAY(c->arena, int, inner->nparams > 0 ? inner->nparams : 1);
  int n = 0;
  for (int i = 0; i < param; i++) {
    omap[i] = n;
    ps[n++] = outer->params[i];
  }
  omap[param] = -1;
  for (int i = 0; i < inner->nparams; i++) {
    imap[i] = n;
    ps[n++] = inner->params[i];
  }
  for (int i = param + 1; i < outer->nparams; i++) {
    omap[i] = n;
    ps[n++] = outer->params[i];
  }
  FuseCtx f = {c, param, omap, ein_map_params(c, inner->body, imap), inner->nsigma};
  const EinExpr *body = fuse_rec(&f, outer->body);
  return ein_op_new(c, np, ps, outer->nsigma, outer->sigma, body);
}
