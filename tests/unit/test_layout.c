/* test_layout.c -- index expressions, CuTe layouts and LEGO pieces.
 *
 * Expected values come from doc/layouts.md (the worked examples of the
 * CuTe and LEGO documents with the corrections of its §2.9, checked by
 * tests/layout/layout_oracle.py), from closed-form
 * maths written out here, and from brute force: every layout function is
 * compared with an independent colexicographic evaluation in this file, and
 * every simplified expression with the unsimplified one (and with values
 * computed directly in C) over its whole declared domain.
 * The differential test against the Python oracle is tests/layout/test_oracle.py.
 */
#include <stdlib.h>

#include "layout/layout.h"
#include "unit.h"

/* ------------------------------------------------------------------ helpers */
static const Layout *P(IxCtx *c, const char *s) {
  LytError e;
  const Layout *l = lyt_parse(c, s, &e);
  CHECK_MSG(l != NULL, "parse %s: %s", s, e.msg ? e.msg : "");
  return l ? l : lyt_leafk(c, 1, 0);
}
static const char *S(IxCtx *c, const Layout *l) { return l ? lyt_to_string(c, l) : "(null)"; }
static int64_t ev(const Layout *l, int64_t i) {
  int64_t v = -1;
  if (!l || !lyt_eval(l, i, NULL, &v)) return -999;
  return v;
}
static int64_t kval(const IxExpr *e) { return e && ix_is_const(e) ? e->k : -999; }
static int64_t evx(IxCtx *c, const IxExpr *e, int64_t *env) {
  (void)c;
  int64_t v = -999;
  if (!e || !ix_eval(e, env, &v)) return -999;
  return v;
}
static bool same_fn(IxCtx *c, const Layout *a, const Layout *b) {
  if (!a || !b) return false;
  int64_t n = kval(lyt_size(c, a));
  if (n < 0 || n != kval(lyt_size(c, b))) return false;
  for (int64_t i = 0; i < n; i++)
    if (ev(a, i) != ev(b, i)) return false;
  return true;
}
/* Independent colexicographic interpreter over the flattened leaves (valid
 * for i < size, where it must agree with lyt_eval's nested splitting). */
static int64_t colex_eval(const Layout *l, int64_t i) {
  int n = lyt_nleaves(l);
  const IxExpr *s[64], *d[64];
  if (n > 64) return -999;
  lyt_leaves(l, s, d);
  int64_t r = 0;
  for (int k = 0; k < n; k++) {
    int64_t sk = s[k]->k;
    r += (k == n - 1 ? i : i % sk) * d[k]->k;
    i /= sk;
  }
  return r;
}
typedef struct { uint64_t s; } Rng;
static uint32_t rnd(Rng *r) {
  r->s ^= r->s << 13;
  r->s ^= r->s >> 7;
  r->s ^= r->s << 17;
  return (uint32_t)(r->s >> 11);
}
static int64_t pick(Rng *r, const int64_t *xs, int n) { return xs[rnd(r) % (uint32_t)n]; }
static int64_t fdiv(int64_t a, int64_t b) { int64_t q = a / b; return (a % b && ((a < 0) != (b < 0))) ? q - 1 : q; }
static int64_t fmodx(int64_t a, int64_t b) { return a - b * fdiv(a, b); }

/* e1 == e2 at every point of the box of the given variables. */
static bool eq_on_box(IxCtx *c, const IxExpr *e1, const IxExpr *e2, const IxExpr *const *vars,
                      int nv) {
  int64_t env[64] = {0};
  if (ix_nvars(c) > 64) return false;
  for (int k = 0; k < nv; k++) env[vars[k]->k] = vars[k]->lo;
  for (;;) {
    int64_t a, b;
    if (!ix_eval(e1, env, &a) || !ix_eval(e2, env, &b) || a != b) return false;
    int k = 0;
    while (k < nv && env[vars[k]->k] == vars[k]->hi) env[vars[k]->k] = vars[k]->lo, k++;
    if (k == nv) return true;
    env[vars[k]->k]++;
  }
}

/* --------------------------------------------------------- IxExpr basics */
static void test_ix_basics(void) {
  Arena *a = arena_new();
  IxCtx *c = ix_ctx_new(a);
  const IxExpr *x = ix_var(c, "x", 0, 100), *y = ix_var(c, "y", -5, 5);
  CHECK(ix_add(c, x, y) == ix_add(c, y, x));
  CHECK(ix_mulk(c, ix_addk(c, x, 1), 2) == ix_add(c, ix_mulk(c, x, 2), ix_const(c, 2)));
  CHECK(ix_is_k(ix_sub(c, x, x), 0));
  CHECK(ix_mul(c, ix_add(c, x, y), ix_add(c, x, y)) ==
        ix_add(c, ix_add(c, ix_mul(c, x, x), ix_mulk(c, ix_mul(c, x, y), 2)), ix_mul(c, y, y)));
  CHECK(kval(ix_divk(c, ix_const(c, -7), 2)) == -4); /* floor semantics */
  CHECK(kval(ix_modk(c, ix_const(c, -7), 2)) == 1);
  CHECK(kval(ix_modk(c, ix_const(c, 7), -2)) == -1);
  CHECK(kval(ix_isqrt(c, ix_const(c, 99))) == 9);
  CHECK(ix_shl(c, x, 3) == ix_mulk(c, x, 8));
  CHECK(ix_and(c, x, 7) == ix_modk(c, x, 8));
  int64_t env[8] = {0};
  env[y->k] = -7 + 0;
  env[x->k] = 9;
  CHECK(evx(c, ix_divk(c, y, 2), env) == -4);
  CHECK(evx(c, ix_modk(c, y, 2), env) == 1);
  CHECK(!ix_eval(ix_div(c, x, ix_sub(c, x, x)), env, &env[7]) || 1); /* folded away or error */
  CHECK(!ix_eval(ix_div(c, x, ix_addk(c, y, 7)), env, &env[7]));    /* y+7 == 0: division by 0 */
  /* ranges */
  CHECK(ix_modk(c, x, 8)->lo == 0 && ix_modk(c, x, 8)->hi == 7);
  CHECK(ix_divk(c, x, 8)->hi == 12);
  CHECK(ix_add(c, x, y)->lo == -5 && ix_add(c, x, y)->hi == 105);
  /* printer */
  CHECK_STR(ix_to_c(c, ix_add(c, ix_divk(c, x, 3), ix_mulk(c, ix_modk(c, x, 3), 4))),
            "x / 3 + 4*(x % 3)");
  CHECK_STR(ix_to_c(c, ix_divk(c, y, 3)), "ix_fdiv(y, 3)");
  CHECK_STR(ix_to_c(c, ix_sub(c, x, ix_mulk(c, y, 2))), "x - 2*y");
  CHECK_STR(ix_to_c(c, ix_addk(c, ix_neg(c, x), -1)), "-x - 1");
  arena_free(a);
}

/* L7 and the Table 1 rules. */
static void test_ix_rules(void) {
  Arena *a = arena_new();
  IxCtx *c = ix_ctx_new(a);
  const IxExpr *x = ix_var(c, "x", IX_NINF, IX_INF); /* rule 2 holds for all integers */
  const IxExpr *e = ix_add(c, ix_mulk(c, ix_divk(c, x, 3), 3), ix_modk(c, x, 3));
  CHECK(ix_simplify(c, e) == x);
  const IxExpr *aa = ix_var(c, "a", 0, 1000), *b = ix_var(c, "b", 0, 1000);
  e = ix_modk(c, ix_add(c, ix_mulk(c, aa, 12), b), 12);
  CHECK(ix_simplify(c, e) == ix_modk(c, b, 12));
  const IxExpr *bs = ix_var(c, "bs", 0, 11);
  CHECK(ix_simplify(c, ix_modk(c, ix_add(c, ix_mulk(c, aa, 12), bs), 12)) == bs);
  const IxExpr *i = ix_var(c, "i", 0, 5);
  e = ix_divk(c, ix_addk(c, ix_mulk(c, ix_divk(c, i, 3), 18), 17), 18);
  CHECK(ix_simplify(c, e) == ix_divk(c, i, 3));
  const IxExpr *t = ix_var(c, "t", 0, 31);
  CHECK(ix_is_k(ix_simplify(c, ix_divk(c, t, 32)), 0));
  CHECK(ix_simplify(c, ix_modk(c, t, 32)) == t);
  /* nested div/mod fusion (doc/layouts.md §1.4, rule 4) */
  const IxExpr *u = ix_var(c, "u", 0, IX_INF);
  CHECK(ix_simplify(c, ix_divk(c, ix_divk(c, u, 4), 6)) == ix_divk(c, u, 24));
  CHECK(ix_simplify(c, ix_divk(c, ix_modk(c, u, 24), 4)) == ix_modk(c, ix_divk(c, u, 4), 6));
  CHECK(ix_simplify(c, ix_modk(c, ix_modk(c, u, 24), 4)) == ix_modk(c, u, 4));
  CHECK(ix_simplify(c, ix_divk(c, ix_addk(c, ix_mulk(c, u, 12), 5), 4)) ==
        ix_addk(c, ix_mulk(c, u, 3), 1));
  CHECK(ix_simplify(c, ix_modk(c, ix_addk(c, ix_mulk(c, u, 12), 5), 4)) == ix_const(c, 1));
  /* a*((x/a)%b) + x%a -> x%(a*b) */
  e = ix_add(c, ix_mulk(c, ix_modk(c, ix_divk(c, u, 4), 6), 4), ix_modk(c, u, 4));
  CHECK(ix_simplify(c, e) == ix_modk(c, u, 24));
  /* power-of-two strength reduction only for proven non-negative operands */
  const IxExpr *y = ix_var(c, "y", -5, 10);
  CHECK(ix_count_op(ix_lower(c, ix_divk(c, y, 8)), IX_SHR) == 0);
  CHECK(ix_count_op(ix_lower(c, ix_modk(c, y, 8)), IX_AND) == 0);
  CHECK_STR(ix_to_c(c, ix_lower(c, ix_add(c, ix_modk(c, u, 8), ix_mulk(c, ix_divk(c, u, 8), 16)))),
            "(u & 7) + ((u >> 3) << 4)");
  /* min/max/select decided by ranges */
  CHECK(ix_simplify(c, ix_min(c, t, ix_addk(c, t, 1))) == t);
  CHECK(ix_simplify(c, ix_select(c, ix_lt(c, t, ix_const(c, 40)), i, t)) == i);
  /* symbolic bounds: x < N, y < M  =>  (x + N*y) / N == y, % N == x */
  const IxExpr *N = ix_var(c, "N", 1, IX_INF), *M = ix_var(c, "M", 1, IX_INF);
  const IxExpr *cx = ix_var_full(c, "cx", 0, IX_INF, N, 1), *cy = ix_var_full(c, "cy", 0, IX_INF, M, 1);
  const IxExpr *cz = ix_var(c, "cz", 0, IX_INF);
  const IxExpr *lin = ix_add(c, ix_add(c, cx, ix_mul(c, N, cy)), ix_mul(c, ix_mul(c, N, M), cz));
  CHECK(ix_simplify(c, ix_mod(c, lin, N)) == cx);
  CHECK(ix_simplify(c, ix_mod(c, ix_div(c, lin, N), M)) == cy);
  CHECK(ix_simplify(c, ix_div(c, lin, ix_mul(c, N, M))) == cz);
  /* exact division with a known divisor (align) */
  const IxExpr *W = ix_var_full(c, "W", 16, 4096, NULL, 16);
  CHECK(ix_exact_div(c, ix_mulk(c, W, 3), ix_const(c, 16)) == ix_mulk(c, ix_divk(c, W, 16), 3));
  CHECK(ix_exact_div(c, ix_addk(c, W, 1), ix_const(c, 16)) == NULL);
  CHECK(ix_exact_div(c, ix_mul(c, N, M), N) == M);
  /* hoisting: AoSoA address s%8 + 8*f + 56*(s/8), loop over f */
  const IxExpr *s = ix_var(c, "s", 0, 999), *f = ix_var(c, "f", 0, 6);
  e = ix_add(c, ix_add(c, ix_modk(c, s, 8), ix_mulk(c, f, 8)), ix_mulk(c, ix_divk(c, s, 8), 56));
  const IxExpr *inv, *dep;
  int fv = (int)f->k;
  ix_split(c, e, &fv, 1, &inv, &dep);
  CHECK(dep == ix_mulk(c, f, 8));
  CHECK(inv == ix_add(c, ix_modk(c, s, 8), ix_mulk(c, ix_divk(c, s, 8), 56)));
  const IxExpr *hv[4];
  CHECK(ix_invariants(e, &fv, 1, hv, 4) == 2);
  CHECK(ix_depends(e, &fv, 1) && !ix_depends(inv, &fv, 1));
  arena_free(a);
}

/* L3: the golden simplification of the Fig. 9 chain. */
static void test_ix_golden_fig9(void) {
  Arena *a = arena_new();
  IxCtx *c = ix_ctx_new(a);
  const IxExpr *i = ix_var(c, "i", 0, 5), *j = ix_var(c, "j", 0, 5);
  const IxExpr *i3 = ix_divk(c, i, 3), *j3 = ix_divk(c, j, 3);
  const IxExpr *im = ix_modk(c, i, 3), *jm = ix_modk(c, j, 3);
  const IxExpr *x = ix_add(c, ix_add(c, ix_mulk(c, i3, 18), ix_mulk(c, j3, 9)),
                           ix_add(c, ix_mulk(c, im, 3), jm));
  CHECK(ix_simplify(c, ix_divk(c, x, 18)) == i3);
  CHECK(ix_simplify(c, ix_modk(c, ix_divk(c, x, 9), 2)) == j3);
  CHECK(ix_simplify(c, ix_modk(c, ix_divk(c, x, 3), 3)) == im);
  CHECK(ix_simplify(c, ix_modk(c, x, 3)) == jm);
  CHECK_STR(ix_to_c(c, ix_simplify(c, ix_divk(c, x, 18))), "i / 3");
  /* and straight from the logical flat index 6*i + j */
  const IxExpr *g = ix_add(c, ix_mulk(c, i, 6), j);
  CHECK(ix_simplify(c, ix_divk(c, g, 18)) == i3);
  CHECK(ix_simplify(c, ix_modk(c, ix_divk(c, g, 3), 2)) == j3);
  CHECK(ix_simplify(c, ix_modk(c, ix_divk(c, g, 6), 3)) == im);
  CHECK(ix_simplify(c, ix_modk(c, g, 3)) == jm);
  arena_free(a);
}

/* E2: random expressions; values computed directly alongside. */
enum { NX = 12, NY = 10, NN = 5, NPTS = NX * NY * NN };
typedef struct { const IxExpr *e; int64_t v[NPTS]; } Gen;

static void gen_expr(IxCtx *c, Rng *r, int depth, const IxExpr *const *var, const int64_t (*val)[NPTS],
                     Gen *out) {
  static const int64_t ks[] = {1, 2, 3, 4, 6, 8, 9, 12, 16, 18};
  int op = depth <= 0 ? 0 : (int)(rnd(r) % 12);
  Gen a, b;
  if (op == 0) {
    int w = (int)(rnd(r) % 5);
    if (w < 3) { out->e = var[w]; memcpy(out->v, val[w], sizeof out->v); return; }
    int64_t k = (int64_t)(rnd(r) % 21) - 6;
    out->e = ix_const(c, k);
    for (int p = 0; p < NPTS; p++) out->v[p] = k;
    return;
  }
  gen_expr(c, r, depth - 1, var, val, &a);
  if (op == 1 || op == 2 || op == 4 || op >= 9) gen_expr(c, r, depth - 1, var, val, &b);
  int64_t k = pick(r, ks, 10), m = (int64_t)(rnd(r) % 7) - 3;
  for (int p = 0; p < NPTS; p++) {
    int64_t x = a.v[p], y = (op == 1 || op == 2 || op == 4 || op >= 9) ? b.v[p] : 0, n = val[2][p];
    switch (op) {
    case 1: out->v[p] = x + y; break;
    case 2: out->v[p] = x - y; break;
    case 3: out->v[p] = x * m; break;
    case 4: out->v[p] = x * fmodx(y, 4); break;
    case 5: out->v[p] = fdiv(x, k); break;
    case 6: out->v[p] = fmodx(x, k); break;
    case 7: out->v[p] = fdiv(x, n); break;
    case 8: out->v[p] = fmodx(x, n); break;
    case 9: out->v[p] = x < y ? x : y; break;
    case 10: out->v[p] = x < y ? y : x; break;
    default: out->v[p] = k * fdiv(x, k) + fmodx(x, k) + fdiv(fmodx(y, k * 3), k); break;
    }
  }
  switch (op) {
  case 1: out->e = ix_add(c, a.e, b.e); break;
  case 2: out->e = ix_sub(c, a.e, b.e); break;
  case 3: out->e = ix_mulk(c, a.e, m); break;
  case 4: out->e = ix_mul(c, a.e, ix_modk(c, b.e, 4)); break;
  case 5: out->e = ix_divk(c, a.e, k); break;
  case 6: out->e = ix_modk(c, a.e, k); break;
  case 7: out->e = ix_div(c, a.e, var[2]); break;
  case 8: out->e = ix_mod(c, a.e, var[2]); break;
  case 9: out->e = ix_min(c, a.e, b.e); break;
  case 10: out->e = ix_max(c, a.e, b.e); break;
  default:
    out->e = ix_add(c, ix_add(c, ix_mulk(c, ix_divk(c, a.e, k), k), ix_modk(c, a.e, k)),
                    ix_divk(c, ix_modk(c, b.e, k * 3), k));
    break;
  }
}

static void test_ix_random(void) {
  Arena *ar = arena_new();
  IxCtx *c = ix_ctx_new(ar);
  const IxExpr *var[3] = {ix_var(c, "x", 0, NX - 1), ix_var(c, "y", -4, NY - 5),
                          ix_var(c, "n", 1, NN)};
  static int64_t val[3][NPTS];
  for (int p = 0; p < NPTS; p++) {
    val[0][p] = p % NX;
    val[1][p] = (p / NX) % NY - 4;
    val[2][p] = p / (NX * NY) + 1;
  }
  Rng r = {0x9e3779b97f4a7c15ull};
  int bad_build = 0, bad_simp = 0, bad_idem = 0, bad_cost = 0, bad_low = 0, reduced = 0;
  static Gen g;
  for (int t = 0; t < 1500; t++) {
    gen_expr(c, &r, 1 + (int)(rnd(&r) % 4), var, (const int64_t(*)[NPTS])val, &g);
    const IxExpr *s = ix_simplify(c, g.e), *l = ix_lower(c, s);
    for (int p = 0; p < NPTS; p++) {
      int64_t env[3] = {val[0][p], val[1][p], val[2][p]}, v1, v2, v3;
      if (!ix_eval(g.e, env, &v1) || v1 != g.v[p]) {
        if (getenv("DBG") && bad_build < 3) fprintf(stderr, "build %s at %lld,%lld,%lld: %lld vs %lld\n", ix_to_c(c, g.e), (long long)env[0], (long long)env[1], (long long)env[2], (long long)v1, (long long)g.v[p]);
        bad_build++; break; }
      if (!ix_eval(s, env, &v2) || v2 != g.v[p]) { bad_simp++; break; }
      if (!ix_eval(l, env, &v3) || v3 != g.v[p]) { bad_low++; break; }
    }
    if (ix_simplify(c, s) != s) bad_idem++;
    if (ix_cost(s) > ix_cost(g.e)) {
      if (getenv("DBG")) fprintf(stderr, "cost %s -> %s\n", ix_to_c(c, g.e), ix_to_c(c, s));
      bad_cost++; }
    reduced += ix_cost(s) < ix_cost(g.e);
    if (t % 300 == 0) { /* keep the context small */
      arena_free(ar);
      ar = arena_new();
      c = ix_ctx_new(ar);
      var[0] = ix_var(c, "x", 0, NX - 1);
      var[1] = ix_var(c, "y", -4, NY - 5);
      var[2] = ix_var(c, "n", 1, NN);
    }
  }
  CHECK_MSG(bad_build == 0, "%d builder results differ from direct values", bad_build);
  CHECK_MSG(bad_simp == 0, "%d simplified expressions differ", bad_simp);
  CHECK_MSG(bad_low == 0, "%d lowered expressions differ", bad_low);
  CHECK_MSG(bad_idem == 0, "%d simplifications not idempotent", bad_idem);
  CHECK_MSG(bad_cost == 0, "%d simplifications increased the cost", bad_cost);
  CHECK_MSG(reduced > 100, "only %d expressions got cheaper", reduced);
  arena_free(ar);
}

/* ------------------------------------------------------ CuTe seed vectors */
static void test_cute_vectors(void) {
  Arena *a = arena_new();
  IxCtx *c = ix_ctx_new(a);
  LytError e;
  /* §2.2 coalesce */
  const Layout *l = P(c, "(2,(1,6)):(1,(6,2))");
  CHECK_STR(S(c, lyt_coalesce(c, l)), "12:1");
  CHECK_STR(S(c, lyt_coalesce_modes(c, l, 2)), "(2,6):(1,2)");
  CHECK_STR(S(c, lyt_coalesce(c, P(c, "(2,4):(1,2)"))), "8:1");
  CHECK(lyt_rank(l) == 2 && lyt_depth(l) == 2 && kval(lyt_size(c, l)) == 12);
  CHECK(kval(lyt_cosize(c, P(c, "(2,4):(1,2)"))) == 8);
  /* §2.3 composition */
  const Layout *A = P(c, "(6,2):(8,2)"), *B = P(c, "(4,3):(3,1)");
  const Layout *R = lyt_compose(c, A, B, &e);
  CHECK_STR(S(c, R), "((2,2),3):((24,2),8)");
  static const int64_t rv[12] = {0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42};
  for (int i = 0; i < 12; i++) CHECK(ev(R, i) == rv[i]);
  CHECK(lyt_compatible(c, B, R));
  CHECK_STR(S(c, lyt_compose(c, P(c, "20:2"), P(c, "(5,4):(4,1)"), &e)), "(5,4):(8,2)");
  CHECK_STR(S(c, lyt_compose(c, P(c, "(10,2):(16,4)"), P(c, "(5,4):(1,5)"), &e)),
            "(5,(2,2)):(16,(80,4))");
  CHECK(same_fn(c, P(c, "((5,1),(2,2)):((16,4),(80,4))"), P(c, "(5,(2,2)):(16,(80,4))")));
  const Layout *t[4];
  A = P(c, "(12,(4,8)):(59,(13,1))");
  CHECK(lyt_parse_tiler(c, "<3:4,8:2>", t, 4, &e) == 2);
  CHECK_STR(S(c, lyt_compose_tiler(c, A, t, 2, &e)), "(3,(2,4)):(236,(26,1))");
  CHECK(lyt_parse_tiler(c, "<3:1,8:1>", t, 4, &e) == 2);
  CHECK_STR(S(c, lyt_compose_tiler(c, A, t, 2, &e)), "(3,(4,2)):(59,(13,1))");
  /* shape_div / shape_mod tables */
  struct { int n; int64_t s[4], x, want[4]; bool div; } sd[] = {
      {2, {6, 2}, 2, {3, 2}, 1},        {2, {6, 2}, 3, {2, 2}, 1},
      {2, {6, 2}, 6, {1, 2}, 1},        {2, {6, 2}, 12, {1, 1}, 1},
      {4, {3, 6, 2, 8}, 6, {1, 3, 2, 8}, 1}, {4, {3, 6, 2, 8}, 9, {1, 2, 2, 8}, 1},
      {3, {42, 16, 3}, 2, {21, 16, 3}, 1},   {3, {42, 16, 3}, 6, {7, 16, 3}, 1},
      {2, {6, 2}, 2, {2, 1}, 0},        {2, {6, 2}, 3, {3, 1}, 0},
      {2, {6, 2}, 6, {6, 1}, 0},        {2, {6, 2}, 12, {6, 2}, 0},
      {4, {3, 6, 2, 8}, 6, {3, 2, 1, 1}, 0}, {4, {3, 6, 2, 8}, 9, {3, 3, 1, 1}, 0},
      {4, {1, 2, 2, 8}, 2, {1, 2, 1, 1}, 0}, {4, {1, 2, 2, 8}, 16, {1, 2, 2, 4}, 0},
  };
  for (size_t k = 0; k < sizeof sd / sizeof sd[0]; k++) {
    const IxExpr *in[4], *out[4];
    for (int q = 0; q < sd[k].n; q++) in[q] = ix_const(c, sd[k].s[q]);
    bool ok = sd[k].div ? lyt_shape_div(c, in, sd[k].n, ix_const(c, sd[k].x), out, &e)
                        : lyt_shape_mod(c, in, sd[k].n, ix_const(c, sd[k].x), out, &e);
    CHECK(ok);
    for (int q = 0; ok && q < sd[k].n; q++)
      CHECK_MSG(kval(out[q]) == sd[k].want[q], "table row %zu entry %d", k, q);
  }
  {
    const IxExpr *in[2] = {ix_const(c, 6), ix_const(c, 2)}, *out[2];
    CHECK(!lyt_shape_div(c, in, 2, ix_const(c, 4), out, &e) && e.status == LYT_E_DIVISIBILITY);
  }
  /* inadmissible composition (doc/layouts.md §2.3, §2.9 item 5): rejected */
  R = lyt_compose(c, P(c, "(6,3):(16,1)"), P(c, "(6,2):(2,3)"), &e);
  CHECK(R == NULL && e.status == LYT_E_ADMISSIBILITY && e.msg != NULL);
  /* divisibility violation */
  R = lyt_compose(c, P(c, "(6,2):(1,7)"), P(c, "3:4"), &e);
  CHECK(R == NULL && e.status == LYT_E_DIVISIBILITY);
  /* §2.4 complement, errata 1 and 2 corrected */
  struct { const char *a; int64_t m; const char *want; } cm[] = {
      {"4:1", 24, "6:4"},          {"6:4", 24, "4:1"},
      {"(4,6):(1,4)", 24, "1:0"},  {"4:2", 24, "(2,3):(1,8)"},
      {"(2,4):(1,6)", 24, "3:2"},  {"(2,2):(1,6)", 24, "(3,2):(2,12)"},
  };
  for (size_t k = 0; k < sizeof cm / sizeof cm[0]; k++)
    CHECK_STR(S(c, lyt_complement(c, P(c, cm[k].a), ix_const(c, cm[k].m), &e)), cm[k].want);
  CHECK(same_fn(c, lyt_pair(c, P(c, "(2,2):(1,6)"), P(c, "(3,2):(2,12)")),
                P(c, "((2,2),(3,2)):((1,6),(2,12))")));
  CHECK(kval(lyt_cosize(c, P(c, "((2,2),(3,2)):((1,6),(2,12))"))) == 24);
  CHECK(kval(lyt_cosize(c, P(c, "(4,(2,3)):(2,(1,8))"))) == 24); /* not 32: erratum 1 */
  /* §2.5 logical divide, erratum 3 */
  CHECK_STR(S(c, lyt_logical_divide(c, P(c, "(2,4,3):(4,1,8)"), P(c, "4:2"), &e)),
            "(4,(2,3)):(1,(4,8))");
  CHECK_STR(S(c, lyt_logical_divide(c, P(c, "(4,2,3):(2,1,8)"), P(c, "4:2"), &e)),
            "((2,2),(2,3)):((4,1),(2,8))");
  /* 2-D divide, erratum 4 */
  A = P(c, "(9,(4,8)):(59,(13,1))");
  CHECK(lyt_parse_tiler(c, "<3:3,(2,4):(1,8)>", t, 4, &e) == 2);
  CHECK_STR(S(c, lyt_compose_tiler(c, A, t, 2, &e)), "(3,(2,4)):(177,(13,2))");
  CHECK_STR(S(c, lyt_logical_divide_tiler(c, A, t, 2, &e)),
            "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
  const Layout *zd = lyt_zipped_divide(c, A, t, 2, &e);
  CHECK_STR(S(c, zd), "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
  CHECK_STR(S(c, lyt_tiled_divide(c, A, t, 2, &e)), "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))");
  CHECK_STR(S(c, lyt_flat_divide(c, A, t, 2, &e)), "(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))");
  CHECK(lyt_equal(lyt_mode(zd, 0), lyt_compose_tiler(c, A, t, 2, &e)));
  {
    const IxExpr *cr[2] = {ix_const(c, 0), ix_const(c, 3)};
    CHECK(kval(lyt_emit_fwd(c, zd, cr, 2, &e)) == 26);
    cr[1] = ix_const(c, 7);
    CHECK(kval(lyt_emit_fwd(c, zd, cr, 2, &e)) == 60);
    const IxExpr *sub[2] = {ix_const(c, 1), ix_const(c, 2)}; /* zd(0,(1,2)) */
    CHECK(kval(lyt_emit_fwd(c, lyt_mode(zd, 1), sub, 2, &e)) == 60);
  }
  /* LEGO eq. 6 / eq. 8 as zipped divides */
  CHECK(lyt_parse_tiler(c, "<3:1,3:1>", t, 4, &e) == 2);
  CHECK_STR(S(c, lyt_zipped_divide(c, P(c, "(6,6):(6,1)"), t, 2, &e)),
            "((3,3),(2,2)):((6,1),(18,3))");
  CHECK(lyt_parse_tiler(c, "<2:2,(2,2):(1,4)>", t, 4, &e) == 2);
  CHECK_STR(S(c, lyt_zipped_divide(c, P(c, "(4,8):(1,4)"), t, 2, &e)),
            "((2,(2,2)),(2,2)):((2,(4,16)),(1,8))");
  /* §2.7 logical product */
  A = P(c, "(2,2):(4,1)");
  CHECK_STR(S(c, lyt_complement(c, A, ix_const(c, 24), &e)), "(2,3):(2,8)");
  CHECK_STR(S(c, lyt_logical_product(c, A, P(c, "6:1"), &e)), "((2,2),(2,3)):((4,1),(2,8))");
  CHECK_STR(S(c, lyt_logical_product(c, A, P(c, "(4,2):(2,1)"), &e)),
            "((2,2),(4,2)):((4,1),(8,2))");
  CHECK(lyt_parse_tiler(c, "<3:5,4:6>", t, 4, &e) == 2);
  CHECK_STR(S(c, lyt_logical_product_tiler(c, P(c, "(2,5):(5,1)"), t, 2, &e)),
            "((2,3),(5,4)):((5,10),(1,30))");
  /* §2.8 blocked / raked */
  CHECK_STR(S(c, lyt_blocked_product(c, P(c, "(2,5):(5,1)"), P(c, "(3,4):(1,3)"), &e)),
            "(6,(5,4)):(5,(1,30))");
  CHECK_STR(S(c, lyt_raked_product(c, P(c, "(2,5):(5,1)"), P(c, "(3,4):(1,3)"), &e)),
            "((3,2),(4,5)):((10,5),(30,1))");
  arena_free(a);
}

/* ------------------------------------------- Diderot-flavoured vectors (§4.3) */
static void test_diderot_vectors(void) {
  Arena *a = arena_new();
  IxCtx *c = ix_ctx_new(a);
  LytError e;
  const Layout *t[4];
  /* AoSoA W=8, F=7, N=1000 */
  const Layout *aos = lyt_blocked_product(c, P(c, "(8,7):(1,8)"), P(c, "(125,1):(1,1)"), &e);
  CHECK_STR(S(c, aos), "((8,125),7):((1,56),8)");
  const IxExpr *sf[2] = {ix_const(c, 9), ix_const(c, 2)};
  CHECK(kval(lyt_emit_fwd(c, aos, sf, 2, &e)) == 73);
  {
    const IxExpr *s = ix_var(c, "s", 0, 999), *f = ix_var(c, "f", 0, 6), *cr[2] = {s, f};
    const IxExpr *x = ix_simplify(c, lyt_emit_fwd(c, aos, cr, 2, &e));
    CHECK(x == ix_add(c, ix_add(c, ix_modk(c, s, 8), ix_mulk(c, f, 8)),
                      ix_mulk(c, ix_divk(c, s, 8), 56)));
    CHECK_STR(ix_to_c(c, ix_lower(c, ix_modk(c, s, 8))), "s & 7");
  }
  /* 64x48 strands in 16x16 CUDA blocks */
  CHECK(lyt_parse_tiler(c, "<16:1,16:1>", t, 4, &e) == 2);
  const Layout *g = lyt_zipped_divide(c, P(c, "(64,48):(1,64)"), t, 2, &e);
  CHECK_STR(S(c, g), "((16,16),(4,3)):((1,64),(16,1024))");
  {
    const IxExpr *th[4] = {ix_const(c, 3), ix_const(c, 5), ix_const(c, 2), ix_const(c, 1)};
    CHECK(kval(lyt_emit_fwd(c, g, th, 4, &e)) == 1379);
  }
  /* OpenMP cyclic chunk 2, P=4, N=24 */
  CHECK_STR(S(c, lyt_logical_divide(c, P(c, "24:1"), P(c, "(2,3):(1,8)"), &e)), "((2,3),4):((1,8),2)");
  /* 32^3 volume in 8^3 bricks */
  const Layout *br = lyt_blocked_product(c, P(c, "(8,8,8):(1,8,64)"), P(c, "(4,4,4):(1,4,16)"), &e);
  CHECK_STR(S(c, br), "((8,4),(8,4),(8,4)):((1,512),(8,2048),(64,8192))");
  {
    const IxExpr *xyz[3] = {ix_const(c, 9), ix_const(c, 17), ix_const(c, 30)};
    CHECK(kval(lyt_emit_fwd(c, br, xyz, 3, &e)) == 29577);
    const IxExpr *x = ix_var(c, "x", 0, 31), *y = ix_var(c, "y", 0, 31), *z = ix_var(c, "z", 0, 31);
    const IxExpr *v[3] = {x, y, z};
    const IxExpr *raw = lyt_emit_fwd(c, br, v, 3, &e), *low = ix_lower(c, ix_simplify(c, raw));
    CHECK(ix_count_op(low, IX_DIV) == 0 && ix_count_op(low, IX_MOD) == 0);
    CHECK(eq_on_box(c, raw, low, v, 3));
  }
  /* Triton grouped pid ((2,2),3):((1,6),2) and its inverse */
  const Layout *pid = P(c, "((2,2),3):((1,6),2)");
  static const int64_t rows[4][3] = {{0, 2, 4}, {1, 3, 5}, {6, 8, 10}, {7, 9, 11}};
  for (int m = 0; m < 4; m++)
    for (int n = 0; n < 3; n++) {
      const IxExpr *mn[2] = {ix_const(c, m), ix_const(c, n)};
      CHECK(kval(lyt_emit_fwd(c, pid, mn, 2, &e)) == rows[m][n]);
    }
  {
    const IxExpr *p = ix_var(c, "pid", 0, 11), *crd[3];
    CHECK(lyt_emit_inv(c, pid, p, crd, &e));
    for (int64_t q = 0; q < 12; q++) { /* Triton: GM=2, npn=3 */
      int64_t env[16] = {0};
      env[p->k] = q;
      int64_t pm = (q / 6) * 2 + (q % 6) % 2, pn = (q % 6) / 2;
      int64_t got_m = evx(c, ix_simplify(c, crd[0]), env) + 2 * evx(c, ix_simplify(c, crd[1]), env);
      CHECK(got_m == pm && evx(c, ix_simplify(c, crd[2]), env) == pn);
    }
  }
  arena_free(a);
}

/* ----------------------------------------------- symbolic extents (C9) */
static void test_symbolic(void) {
  Arena *a = arena_new();
  IxCtx *c = ix_ctx_new(a);
  LytError e;
  const IxExpr *W = ix_var_full(c, "W", 16, 4096, NULL, 16), *H = ix_var_full(c, "H", 16, 4096, NULL, 16);
  (void)W;
  (void)H;
  const Layout *t[2] = {P(c, "16:1"), P(c, "16:1")};
  const Layout *gs = lyt_zipped_divide(c, P(c, "(W,H):(1,W)"), t, 2, &e);
  CHECK_MSG(gs != NULL, "%s", e.msg ? e.msg : "");
  CHECK_STR(S(c, gs), "((16,16),(W / 16,H / 16)):((1,W),(16,16*W))");
  const Layout *gc = lyt_zipped_divide(c, P(c, "(64,48):(1,64)"), t, 2, &e);
  int64_t env[8] = {0};
  env[W->k] = 64;
  env[H->k] = 48;
  bool same = gs && gc;
  for (int64_t i = 0; same && i < 64 * 48; i++) {
    int64_t v1, v2;
    same = lyt_eval(gs, i, env, &v1) && lyt_eval(gc, i, NULL, &v2) && v1 == v2;
  }
  CHECK(same);
  /* the strand index of (thread, block) simplifies with no div/mod */
  {
    const IxExpr *tx = ix_var(c, "tx", 0, 15), *ty = ix_var(c, "ty", 0, 15);
    const IxExpr *bx = ix_var_full(c, "bx", 0, IX_INF, ix_divk(c, W, 16), 1);
    const IxExpr *by = ix_var_full(c, "by", 0, IX_INF, ix_divk(c, H, 16), 1);
    const IxExpr *cr[4] = {tx, ty, bx, by};
    const IxExpr *x = ix_simplify(c, lyt_emit_fwd(c, gs, cr, 4, &e));
    CHECK_MSG(ix_count_op(x, IX_DIV) == 0 && ix_count_op(x, IX_MOD) == 0, "%s", ix_to_c(c, x));
    CHECK(x == ix_add(c, ix_add(c, tx, ix_mulk(c, bx, 16)),
                      ix_add(c, ix_mul(c, W, ty), ix_mulk(c, ix_mul(c, W, by), 16))));
  }
  /* unprovable divisibility is an error, not a guess */
  const IxExpr *N = ix_var(c, "N", 2, 1 << 20);
  (void)N;
  CHECK(lyt_complement(c, P(c, "16:1"), N, &e) == NULL && e.status == LYT_E_DIVISIBILITY);
  CHECK(lyt_logical_divide(c, P(c, "N:1"), P(c, "16:1"), &e) == NULL);
  /* N*M strides cannot be ordered against M: complement fails as unproven */
  const IxExpr *M = ix_var(c, "M", 2, 1 << 20);
  (void)M;
  CHECK(lyt_complement(c, P(c, "(2,2):(N,M)"), ix_const(c, 64), &e) == NULL &&
        e.status == LYT_E_UNPROVEN);
  /* idx2crd(crd2idx(c)) == c for a compact symbolic layout */
  const Layout *nm = P(c, "(N,M,4):(1,N,N*M)");
  const IxExpr *cv[3];
  lyt_coord_vars(c, nm, "c", cv);
  const IxExpr *off = lyt_emit_fwd(c, nm, cv, 3, &e), *back[3];
  CHECK(lyt_emit_inv(c, nm, off, back, &e));
  for (int k = 0; k < 3; k++) CHECK(ix_simplify(c, back[k]) == cv[k]);
  /* AoSoA with N a multiple of W=8, computed symbolically and instantiated */
  const IxExpr *NS = ix_var_full(c, "NS", 8, 1 << 20, NULL, 8);
  const Layout *bl = lyt_blocked_product(c, P(c, "(8,7):(1,8)"),
                                         lyt_tuple(c, (const Layout *[]){lyt_leaf(c, ix_divk(c, NS, 8), ix_const(c, 1)), lyt_leafk(c, 1, 1)}, 2), &e);
  CHECK_MSG(bl != NULL, "%s", e.msg ? e.msg : "");
  int64_t env2[16] = {0};
  env2[NS->k] = 1000;
  bool ok = bl != NULL;
  const Layout *blc = P(c, "((8,125),7):((1,56),8)");
  for (int64_t i = 0; ok && i < 7000; i += 7) {
    int64_t v1, v2;
    ok = lyt_eval(bl, i, env2, &v1) && lyt_eval(blc, i, NULL, &v2) && v1 == v2;
  }
  CHECK(ok);
  arena_free(a);
}

/* ------------------------------------------------- random layout properties */
static const Layout *rnd_layout(IxCtx *c, Rng *r, int depth) {
  static const int64_t sh[] = {1, 2, 3, 4, 6, 8}, st[] = {0, 1, 2, 3, 4, 6, 8, 12, 16};
  if (depth == 0 || rnd(r) % 2) return lyt_leafk(c, pick(r, sh, 6), pick(r, st, 9));
  int n = 2 + (int)(rnd(r) % 2);
  const Layout *m[3];
  for (int i = 0; i < n; i++) m[i] = rnd_layout(c, r, depth - 1);
  return lyt_tuple(c, m, n);
}
static const Layout *rnd_injective_sorted(IxCtx *c, Rng *r, int nmax) {
  static const int64_t gaps[] = {1, 1, 2, 3}, sh[] = {2, 3, 4};
  int n = 1 + (int)(rnd(r) % (uint32_t)nmax);
  const Layout *m[4];
  int64_t d = 1;
  for (int i = 0; i < n; i++) {
    d *= pick(r, gaps, 4);
    int64_t s = pick(r, sh, 3);
    m[i] = lyt_leafk(c, s, d);
    d *= s;
  }
  return n == 1 ? m[0] : lyt_tuple(c, m, n);
}
/* A bijection onto [0,size): compact strides in a random dimension order. */
static const Layout *rnd_compact_perm(IxCtx *c, Rng *r) {
  static const int64_t sh[] = {2, 3, 4, 5};
  int n = 1 + (int)(rnd(r) % 4), ord[4] = {0, 1, 2, 3};
  const IxExpr *s[4];
  for (int i = 0; i < n; i++) s[i] = ix_const(c, pick(r, sh, 4));
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(rnd(r) % (uint32_t)(i + 1)), tmp = ord[i];
    ord[i] = ord[j];
    ord[j] = tmp;
  }
  return lyt_ordered(c, s, ord, n);
}

static const Layout *rnd_compact2(IxCtx *c, Rng *r) {
  static const int64_t sh[] = {2, 3, 4, 5};
  const IxExpr *s[2] = {ix_const(c, pick(r, sh, 4)), ix_const(c, pick(r, sh, 4))};
  int ord[2] = {0, 1};
  if (rnd(r) % 2) { ord[0] = 1; ord[1] = 0; }
  return lyt_ordered(c, s, ord, 2);
}

static void test_layout_properties(void) {
  Arena *a = arena_new();
  IxCtx *c = ix_ctx_new(a);
  Rng r = {12345};
  LytError e;
  int bad = 0, ncomp = 0, ncompl = 0, nemit = 0, ninv = 0, ndiv = 0, nprod = 0;
  for (int t = 0; t < 400; t++) {
    const Layout *l = rnd_layout(c, &r, 2);
    int64_t n = kval(lyt_size(c, l));
    if (n > 512) continue;
    /* C1/C2: eval agrees with the flattened colex interpreter; cosize */
    int64_t mx = 0;
    for (int64_t i = 0; i < n; i++) {
      if (ev(l, i) != colex_eval(l, i)) bad++;
      if (ev(l, i) > mx) mx = ev(l, i);
    }
    if (kval(lyt_cosize(c, l)) != ev(l, n - 1) + 1 || mx + 1 != kval(lyt_cosize(c, l))) bad++;
    /* C3: coalesce */
    const Layout *co = lyt_coalesce(c, l);
    if (!same_fn(c, l, co) || lyt_depth(co) > 1 || !lyt_equal(lyt_coalesce(c, co), co)) bad++;
    const Layout *cm = lyt_coalesce_modes(c, l, lyt_rank(l));
    if (!same_fn(c, l, cm) || lyt_rank(cm) != lyt_rank(l)) bad++;
    for (int k = 0; k < lyt_rank(l); k++)
      if (!same_fn(c, lyt_mode(l, k), lyt_mode(cm, k))) bad++;
    /* E1: emitted forward maps (1-D, R-D, natural), raw and simplified */
    const IxExpr *iv = ix_var(c, "i", 0, n - 1);
    const IxExpr *f1 = lyt_emit_fwd(c, l, &iv, 1, &e), *f1s = ix_simplify(c, f1);
    int nl = lyt_nleaves(l);
    const IxExpr *cv[16], *sh[16], *ic[16];
    lyt_coord_vars(c, l, "c", cv);
    lyt_leaves(l, sh, NULL);
    const IxExpr *fn = lyt_emit_fwd(c, l, cv, nl, &e);
    lyt_emit_idx2crd(c, l, iv, ic);
    int64_t env[1024];
    if (ix_nvars(c) > 1000) { /* fresh context now and then */
      arena_free(a);
      a = arena_new();
      c = ix_ctx_new(a);
      continue;
    }
    for (int64_t i = 0; i < n; i++) {
      env[iv->k] = i;
      int64_t rem = i;
      for (int k = 0; k < nl; k++) { /* natural coordinate, colex */
        env[cv[k]->k] = k == nl - 1 ? rem : rem % sh[k]->k;
        rem /= sh[k]->k;
        if (evx(c, ix_simplify(c, ic[k]), env) != env[cv[k]->k]) bad++;
      }
      int64_t want = ev(l, i);
      if (evx(c, f1, env) != want || evx(c, f1s, env) != want || evx(c, fn, env) != want) bad++;
    }
    nemit++;
    /* C4: composition with an admissible B = (T, complement(T, size A)) */
    const Layout *T = rnd_injective_sorted(c, &r, 2);
    const Layout *Tc = lyt_complement(c, T, lyt_size(c, l), &e);
    if (Tc && kval(lyt_size(c, Tc)) * kval(lyt_size(c, T)) == n) {
      const Layout *B = lyt_pair(c, T, Tc), *R = lyt_compose(c, l, B, &e);
      const Layout *lc = lyt_coalesce(c, l);
      if (R) {
        for (int64_t i = 0; i < n; i++)
          if (ev(R, i) != ev(lc, ev(B, i))) bad++;
        if (!lyt_compatible(c, B, R)) bad++;
        /* C6: logical divide is that composition */
        const Layout *ld = lyt_logical_divide(c, l, T, &e);
        if (!ld || !same_fn(c, ld, R)) bad++;
        ndiv++;
      }
      ncomp++;
    }
    /* A o (size(A):1) == A as a function */
    const Layout *id = lyt_compose(c, l, lyt_leaf(c, lyt_size(c, l), ix_const(c, 1)), &e);
    if (!id || !same_fn(c, id, l)) bad++;
  }
  /* C5: complement post-conditions */
  for (int t = 0; t < 300; t++) {
    const Layout *A = rnd_injective_sorted(c, &r, 3);
    int64_t M = kval(lyt_cosize(c, A)) * (1 + (int64_t)(rnd(&r) % 3));
    const Layout *R = lyt_complement(c, A, ix_const(c, M), &e);
    if (!R) { bad++; continue; }
    int64_t nr = kval(lyt_size(c, R)), na = kval(lyt_size(c, A));
    for (int64_t i = 1; i < nr; i++) {
      if (ev(R, i) <= ev(R, i - 1)) bad++;
      for (int64_t j = 0; j < na; j++)
        if (ev(R, i) == ev(A, j)) bad++;
    }
    const Layout *AR = lyt_pair(c, A, R);
    if (kval(lyt_cosize(c, AR)) < M) bad++;
    int64_t nar = na * nr;
    char *seen = calloc((size_t)kval(lyt_cosize(c, AR)) + 1, 1);
    for (int64_t i = 0; seen && i < nar; i++)
      if (seen[ev(AR, i)]++) bad++;
    free(seen);
    ncompl++;
  }
  /* A compact A covering [0,M) has complement 1:0 */
  CHECK_STR(S(c, lyt_complement(c, P(c, "(3,(2,4)):(8,(1,2))"), ix_const(c, 24), &e)), "1:0");
  /* C7/C8: products of compact layouts are bijections onto [0, size) */
  for (int t = 0; t < 100; t++) {
    const Layout *A = rnd_compact2(c, &r), *B = rnd_compact2(c, &r);
    const Layout *lp = lyt_logical_product(c, A, B, &e);
    const Layout *bp = lyt_blocked_product(c, A, B, &e), *rp = lyt_raked_product(c, A, B, &e);
    if (!lp || !bp || !rp) { bad++; continue; }
    int64_t n = kval(lyt_size(c, lp));
    if (n != kval(lyt_size(c, A)) * kval(lyt_size(c, B)) || !lyt_equal(lyt_mode(lp, 0), A) ||
        lyt_rank(lp) != 2 || lyt_rank(bp) != 2 || lyt_rank(rp) != 2 ||
        kval(lyt_size(c, lyt_mode(lp, 1))) != kval(lyt_size(c, B)))
      bad++;
    const Layout *ls[3] = {lp, bp, rp};
    for (int q = 0; q < 3; q++) {
      char *seen = calloc((size_t)n, 1);
      for (int64_t i = 0; seen && i < n; i++) {
        int64_t v = ev(ls[q], i);
        if (v < 0 || v >= n || seen[v]++) bad++;
      }
      free(seen);
    }
    /* blocked mode k = (A_k, (A* o B)_k), raked = ((A* o B)_k, A_k) */
    for (int k = 0; k < 2; k++) {
      const Layout *pk = lyt_pair(c, lyt_mode(A, k), lyt_mode(lyt_mode(lp, 1), k));
      const Layout *qk = lyt_pair(c, lyt_mode(lyt_mode(lp, 1), k), lyt_mode(A, k));
      if (!same_fn(c, pk, lyt_mode(bp, k)) || !same_fn(c, qk, lyt_mode(rp, k))) bad++;
    }
    nprod++;
  }
  /* B1/B2 for CuTe bijections: right inverse and emitted inverse */
  for (int t = 0; t < 200; t++) {
    const Layout *l = rnd_compact_perm(c, &r);
    int64_t n = kval(lyt_size(c, l));
    const Layout *R = lyt_right_inverse(c, l, &e);
    if (!R || kval(lyt_size(c, R)) != n) { bad++; continue; }
    for (int64_t i = 0; i < n; i++)
      if (ev(l, ev(R, i)) != i) bad++;
    /* inverse o forward simplifies to the bare coordinates */
    int nl = lyt_nleaves(l);
    const IxExpr *cv[8], *back[8];
    lyt_coord_vars(c, l, "q", cv);
    if (!lyt_emit_inv(c, l, lyt_emit_fwd(c, l, cv, nl, &e), back, &e)) { bad++; continue; }
    for (int k = 0; k < nl; k++)
      if (ix_simplify(c, back[k]) != cv[k]) bad++;
    /* forward o inverse simplifies to the bare offset */
    const IxExpr *x = ix_var(c, "x", 0, n - 1);
    if (!lyt_emit_inv(c, l, x, back, &e)) { bad++; continue; }
    if (ix_simplify(c, lyt_emit_fwd(c, l, back, nl, &e)) != x) bad++;
    ninv++;
  }
  /* non-bijective layouts have no inverse */
  const IxExpr *out[4];
  CHECK(!lyt_emit_inv(c, P(c, "(4,2):(1,8)"), ix_var(c, "x", 0, 7), out, &e) &&
        e.status == LYT_E_NOT_BIJECTIVE);
  CHECK_MSG(bad == 0, "%d property violations", bad);
  CHECK_MSG(ncomp > 50 && ncompl > 200 && nemit > 200 && ninv > 150 && ndiv > 30 && nprod > 5,
            "%d %d %d %d %d %d", ncomp, ncompl, nemit, ninv, ndiv, nprod);
  arena_free(a);
}

/* Associativity (A o B) o C == A o (B o C) where both are defined. */
static void test_associativity(void) {
  Arena *a = arena_new();
  IxCtx *c = ix_ctx_new(a);
  Rng r = {777};
  LytError e;
  int tried = 0, bad = 0;
  for (int t = 0; t < 300; t++) {
    const Layout *A = rnd_compact_perm(c, &r);
    const Layout *B = rnd_injective_sorted(c, &r, 2), *C = rnd_injective_sorted(c, &r, 2);
    if (kval(lyt_cosize(c, C)) > kval(lyt_size(c, B))) continue; /* C must stay in B's domain */
    const Layout *ab = lyt_compose(c, A, B, &e), *bc = lyt_compose(c, B, C, &e);
    if (!ab || !bc) continue;
    const Layout *l1 = lyt_compose(c, ab, C, &e), *l2 = lyt_compose(c, A, bc, &e);
    if (!l1 || !l2) continue;
    tried++;
    if (!same_fn(c, l1, l2)) {
      bad++;
      if (getenv("DBG")) fprintf(stderr, "assoc %s %s %s: %s vs %s\n", S(c, A), S(c, B), S(c, C), S(c, l1), S(c, l2));
    }
  }
  CHECK_MSG(bad == 0 && tried > 20, "bad %d tried %d", bad, tried);
  arena_free(a);
}

static void test_errors(void) {
  Arena *a = arena_new();
  IxCtx *c = ix_ctx_new(a);
  LytError e;
  const Layout *t[4];
  CHECK(lyt_parse(c, "(2,3):(1)", &e) == NULL && e.status == LYT_E_PARSE);
  CHECK(lyt_parse(c, "(2,3:(1,2)", &e) == NULL && e.status == LYT_E_PARSE);
  CHECK(lyt_parse(c, "K:1", &e) == NULL && e.status == LYT_E_PARSE);
  CHECK(lyt_parse(c, "99999999999999999999:1", &e) == NULL);
  CHECK(lyt_parse(c, "", &e) == NULL);
  CHECK(lyt_parse_tiler(c, "<3:1,", t, 4, &e) == 0);
  CHECK(lyt_parse_tiler(c, "<1:1,1:1,1:1>", t, 2, &e) == 0);
  CHECK(lyt_compose_tiler(c, P(c, "4:1"), (const Layout *[]){P(c, "2:1"), P(c, "2:1")}, 2, &e) == NULL &&
        e.status == LYT_E_ARG);
  CHECK(lyt_compose(c, P(c, "8:1"), lyt_leafk(c, 2, -1), &e) == NULL && e.status == LYT_E_ARG);
  CHECK(lyt_complement(c, P(c, "(2,2):(1,1)"), ix_const(c, 8), &e) == NULL);
  CHECK(lyt_parse(c, "(2,0):(1,2)", &e) == NULL && e.status == LYT_E_PARSE); /* extent 0 */
  CHECK(lyt_compose(c, P(c, "8:1"), lyt_leafk(c, 0, 1), &e) == NULL && e.status == LYT_E_ARG);
  CHECK(lyt_complement(c, P(c, "4:1"), ix_const(c, 0), &e) == NULL && e.status == LYT_E_ARG);
  int64_t v;
  ix_var(c, "Q", 1, 9);
  CHECK(!lyt_eval(P(c, "(Q,2):(1,Q)"), 3, NULL, &v)); /* symbolic, no env: fails cleanly */
  arena_free(a);
}

/* ------------------------------------------------------------------- LEGO */
static int64_t antidiag_ref(int64_t n, int64_t i, int64_t j) { /* doc/layouts.md §3.3 */
  int64_t a = i + j + 1;
  if (a <= n) return i + a * (a - 1) / 2;
  a = 2 * n - a;
  return n * n - n + i - a * (a - 1) / 2;
}

static const IxExpr *K(IxCtx *c, int64_t k) { return ix_const(c, k); }

static void test_lego(void) {
  Arena *a = arena_new();
  IxCtx *c = ix_ctx_new(a);
  LytError e;
  /* L1 */
  const IxExpr *d2[2] = {K(c, 4), K(c, 7)}, *ij[2] = {K(c, 3), K(c, 5)}, *back[8];
  CHECK(kval(lego_flatten(c, d2, ij, 2)) == 3 * 7 + 5);
  lego_unflatten(c, d2, 2, K(c, 26), back);
  CHECK(kval(back[0]) == 3 && kval(back[1]) == 5);
  /* L2: anti-diagonal, table for n = 3; bijective/inverse for n = 1..39
   * (lego_genp verifies exhaustively), expressions vs the closed form */
  const LegoPiece *ad = lego_antidiag(c, K(c, 3), &e);
  CHECK(ad != NULL);
  static const int64_t tab3[9] = {0, 1, 3, 2, 4, 6, 5, 7, 8};
  for (int q = 0; ad && q < 9; q++) {
    const IxExpr *cr[2] = {K(c, q / 3), K(c, q % 3)};
    CHECK(kval(lego_piece_apply(c, ad, cr)) == tab3[q]);
  }
  for (int n = 1; n <= 39; n++) CHECK(lego_antidiag(c, K(c, n), &e) != NULL);
  {
    const IxExpr *i = ix_var(c, "i", 0, 8), *j = ix_var(c, "j", 0, 8), *v[2] = {i, j};
    const LegoPiece *ad9 = lego_antidiag(c, K(c, 9), &e);
    const IxExpr *fw = ix_simplify(c, lego_piece_apply(c, ad9, v));
    int64_t env[64] = {0};
    int bad = 0;
    for (int64_t p = 0; p < 81; p++) {
      env[i->k] = p / 9;
      env[j->k] = p % 9;
      if (evx(c, fw, env) != antidiag_ref(9, p / 9, p % 9)) bad++;
    }
    const IxExpr *x = ix_var(c, "x", 0, 80), *iv[2];
    lego_piece_inv(c, ad9, x, iv);
    for (int64_t p = 0; p < 81; p++) {
      env[x->k] = antidiag_ref(9, p / 9, p % 9);
      if (evx(c, ix_simplify(c, iv[0]), env) != p / 9 || evx(c, ix_simplify(c, iv[1]), env) != p % 9) bad++;
    }
    CHECK(bad == 0);
  }
  /* L3: Fig. 9 chain */
  const IxExpr *d2233[4] = {K(c, 2), K(c, 3), K(c, 2), K(c, 3)};
  const LegoPiece *rp = lego_regp(c, d2233, (const int[]){0, 2, 1, 3}, 4, &e);
  const LegoOrderBy *O2 = lego_orderby(c, &rp, 1);
  const IxExpr *d22[2] = {K(c, 2), K(c, 2)};
  const LegoPiece *p1[2] = {lego_regp(c, d22, (const int[]){1, 0}, 2, &e), ad};
  const LegoOrderBy *O1 = lego_orderby(c, p1, 2);
  const IxExpr *d66[2] = {K(c, 6), K(c, 6)};
  const LegoGroupBy *G = lego_groupby(c, d66, 2, (const LegoOrderBy *[]){O1, O2}, 2, &e);
  const LegoGroupBy *G2 = lego_groupby(c, d66, 2, &O2, 1, &e);
  CHECK(G && G2);
  const IxExpr *c42[2] = {K(c, 4), K(c, 2)}, *dig[4];
  CHECK(kval(lego_flatten(c, d66, c42, 2)) == 26);
  lego_unflatten(c, d2233, 4, K(c, 26), dig);
  CHECK(kval(lego_orderby_apply(c, O2, dig)) == 23);
  lego_unflatten(c, (const IxExpr *[]){K(c, 2), K(c, 2), K(c, 3), K(c, 3)}, 4, K(c, 23), dig);
  CHECK(kval(lego_orderby_apply(c, O1, dig)) == 15);
  CHECK(kval(lego_apply(c, G, c42)) == 15);
  lego_inv(c, G, K(c, 15), back);
  CHECK(kval(back[0]) == 4 && kval(back[1]) == 2);
  static const int64_t fig9[6][6] = {{0, 1, 3, 18, 19, 21},   {2, 4, 6, 20, 22, 24},
                                     {5, 7, 8, 23, 25, 26},   {9, 10, 12, 27, 28, 30},
                                     {11, 13, 15, 29, 31, 33}, {14, 16, 17, 32, 34, 35}};
  for (int rr = 0; rr < 6; rr++)
    for (int cc = 0; cc < 6; cc++) {
      const IxExpr *x[2] = {K(c, rr), K(c, cc)};
      CHECK(kval(lego_apply(c, G, x)) == fig9[rr][cc]);
      lego_inv(c, G, K(c, fig9[rr][cc]), back);
      CHECK(kval(back[0]) == rr && kval(back[1]) == cc);
    }
  {
    const IxExpr *i = ix_var(c, "i", 0, 5), *j = ix_var(c, "j", 0, 5), *v[2] = {i, j};
    const IxExpr *i3 = ix_divk(c, i, 3), *j3 = ix_divk(c, j, 3);
    const IxExpr *im = ix_modk(c, i, 3), *jm = ix_modk(c, j, 3);
    const IxExpr *o2 = ix_simplify(c, lego_apply(c, G2, v));
    CHECK(o2 == ix_add(c, ix_add(c, ix_mulk(c, i3, 18), ix_mulk(c, j3, 9)),
                       ix_add(c, ix_mulk(c, im, 3), jm)));
    const IxExpr *full = ix_simplify(c, lego_apply(c, G, v));
    const IxExpr *want = ix_add(c, ix_mulk(c, ix_add(c, ix_mulk(c, j3, 2), i3), 9),
                                lego_piece_apply(c, ad, (const IxExpr *[]){im, jm}));
    CHECK(full == ix_simplify(c, want));
    CHECK(eq_on_box(c, full, lego_apply(c, G, v), v, 2));
    /* inverse: coordinates from the flat index, round trip as expressions */
    const IxExpr *x = ix_var(c, "x", 0, 35), *iv[2];
    lego_inv(c, G, x, iv);
    const IxExpr *rt = ix_simplify(c, lego_apply(c, G, (const IxExpr *[]){ix_simplify(c, iv[0]), ix_simplify(c, iv[1])}));
    CHECK(eq_on_box(c, rt, x, &x, 1));
    /* B6: the strided part is the CuTe layout ((3,2),(3,2)):((3,18),(1,9)) */
    CHECK_STR(S(c, lego_to_layout(c, G2, &e)), "((3,2),(3,2)):((3,18),(1,9))");
    CHECK(lego_to_layout(c, G, &e) == NULL && e.status == LYT_E_ARG); /* GenP */
  }
  /* L4: Fig. 4-style table: 6x4 view, (2x2)x(3x2), inner reversed (GenP), outer transposed */
  {
    const LegoPiece *rev = lego_regp(c, (const IxExpr *[]){K(c, 3), K(c, 2)}, (const int[]){0, 1}, 2, &e);
    (void)rev;
  }
  arena_free(a);
}

/* GenP user functions for the Fig. 4 reversal p(i,j) = (2-i)*2 + (1-j). */
static const IxExpr *rev_apply(IxCtx *c, const void *u, const IxExpr *const *x) {
  (void)u;
  return ix_add(c, ix_mulk(c, ix_sub(c, ix_const(c, 2), x[0]), 2), ix_sub(c, ix_const(c, 1), x[1]));
}
static void rev_inv(IxCtx *c, const void *u, const IxExpr *f, const IxExpr **out) {
  (void)u;
  out[0] = ix_sub(c, ix_const(c, 2), ix_divk(c, f, 2));
  out[1] = ix_sub(c, ix_const(c, 1), ix_modk(c, f, 2));
}
static const IxExpr *bad_apply(IxCtx *c, const void *u, const IxExpr *const *x) {
  (void)u;
  return ix_modk(c, ix_add(c, x[0], x[1]), 4); /* not injective on 2x2 */
}

static void test_lego_more(void) {
  Arena *a = arena_new();
  IxCtx *c = ix_ctx_new(a);
  LytError e;
  const IxExpr *back[8];
  /* L4 */
  const LegoPiece *rev = lego_genp(c, (const IxExpr *[]){K(c, 3), K(c, 2)}, 2, rev_apply, rev_inv, NULL, "rev", &e);
  CHECK(rev != NULL);
  const LegoPiece *p4[2] = {lego_regp(c, (const IxExpr *[]){K(c, 2), K(c, 2)}, (const int[]){1, 0}, 2, &e), rev};
  const LegoOrderBy *o4 = lego_orderby(c, p4, 2);
  const LegoGroupBy *g4 = lego_groupby(c, (const IxExpr *[]){K(c, 6), K(c, 4)}, 2, &o4, 1, &e);
  static const int64_t fig4[6][4] = {{5, 4, 3, 2},   {1, 0, 17, 16}, {15, 14, 13, 12},
                                     {11, 10, 9, 8}, {7, 6, 23, 22}, {21, 20, 19, 18}};
  for (int rr = 0; g4 && rr < 6; rr++)
    for (int cc = 0; cc < 4; cc++) {
      CHECK(kval(lego_apply(c, g4, (const IxExpr *[]){K(c, rr), K(c, cc)})) == fig4[rr][cc]);
      lego_inv(c, g4, K(c, fig4[rr][cc]), back);
      CHECK(kval(back[0]) == rr && kval(back[1]) == cc);
    }
  /* B3: rejections */
  CHECK(lego_genp(c, (const IxExpr *[]){K(c, 2), K(c, 2)}, 2, bad_apply, rev_inv, NULL, "bad", &e) == NULL &&
        e.status == LYT_E_NOT_BIJECTIVE);
  CHECK(lego_regp(c, (const IxExpr *[]){K(c, 2), K(c, 2)}, (const int[]){0, 0}, 2, &e) == NULL);
  const LegoPiece *row6 = lego_row(c, (const IxExpr *[]){K(c, 6)}, 1);
  const LegoOrderBy *o6 = lego_orderby(c, &row6, 1);
  CHECK(lego_groupby(c, (const IxExpr *[]){K(c, 6), K(c, 4)}, 2, &o6, 1, &e) == NULL &&
        e.status == LYT_E_ARG);
  /* L6 / eq. 7: strides [1,8,2,4,16] */
  const IxExpr *d5[5] = {K(c, 2), K(c, 2), K(c, 2), K(c, 2), K(c, 2)};
  const LegoPiece *r5 = lego_regp(c, d5, (const int[]){4, 1, 3, 2, 0}, 5, &e);
  const LegoOrderBy *o5 = lego_orderby(c, &r5, 1);
  const LegoGroupBy *g7 = lego_groupby(c, d5, 5, &o5, 1, &e);
  static const int64_t st7[5] = {1, 8, 2, 4, 16};
  for (int m = 0; m < 5; m++) {
    const IxExpr *u[5];
    for (int k = 0; k < 5; k++) u[k] = K(c, k == m);
    CHECK(kval(lego_apply(c, g7, u)) == st7[m]);
  }
  /* B6: eq. 7's CuTe form; the same strides as eq. 8's zipped divide
   * ((2,(2,2)),(2,2)):((2,(4,16)),(1,8)) in the order (i3,i4,i5,i1,i2) */
  const Layout *l7 = lego_to_layout(c, g7, &e);
  CHECK_STR(S(c, l7), "(2,2,2,2,2):(1,8,2,4,16)");
  {
    const Layout *t8[2] = {P(c, "2:2"), P(c, "(2,2):(1,4)")};
    const Layout *zd8 = lyt_zipped_divide(c, P(c, "(4,8):(1,4)"), t8, 2, &e);
    const IxExpr *zs[5], *ls[5];
    lyt_leaves(zd8, NULL, zs);
    lyt_leaves(l7, NULL, ls);
    static const int perm[5] = {2, 3, 4, 0, 1};
    for (int k = 0; k < 5; k++) CHECK(zs[k] == ls[perm[k]]);
  }
  /* B5: TileBy2x2([2,2],[3,3]) == CuTe (2,2,3,3):(18,3,6,1) (eq. 6) */
  const LegoGroupBy *tb = lego_tileby(c, (const IxExpr *[]){K(c, 2), K(c, 2), K(c, 3), K(c, 3)}, 2, 2, &e);
  CHECK_STR(S(c, lego_to_layout(c, tb, &e)), "(2,2,3,3):(18,3,6,1)");
  /* TileBy3x2 uses sigma [1,3,5,2,4,6]: compare with that RegP written out */
  const IxExpr *t32[6] = {K(c, 2), K(c, 3), K(c, 2), K(c, 2), K(c, 3), K(c, 2)};
  const LegoGroupBy *tb32 = lego_tileby(c, t32, 3, 2, &e);
  const LegoPiece *man = lego_regp(c, t32, (const int[]){0, 2, 4, 1, 3, 5}, 6, &e);
  const LegoOrderBy *om = lego_orderby(c, &man, 1);
  const LegoGroupBy *gm = lego_groupby(c, t32, 6, &om, 1, &e);
  CHECK(lyt_equal(lego_to_layout(c, tb32, &e), lego_to_layout(c, gm, &e)));
  /* Row/Col sugar: Col([3,4]).apply(i1,i2) = i1 + 4*i2 */
  const LegoPiece *col = lego_col(c, (const IxExpr *[]){K(c, 3), K(c, 4)}, 2);
  const IxExpr *i1 = ix_var(c, "i1", 0, 3), *i2 = ix_var(c, "i2", 0, 2);
  CHECK(lego_piece_apply(c, col, (const IxExpr *[]){i1, i2}) == ix_add(c, i1, ix_mulk(c, i2, 4)));
  /* B4: RegP(identity) == B_n; sigma then sigma^-1 is the identity;
   * an OrderBy of Row pieces equals the canonical map of the concatenation */
  const IxExpr *dd[3] = {K(c, 3), K(c, 4), K(c, 5)};
  const IxExpr *x = ix_var(c, "xx", 0, 59), *crd[3];
  const LegoPiece *id = lego_row(c, dd, 3);
  lego_piece_inv(c, id, x, crd);
  CHECK(ix_simplify(c, lego_flatten(c, dd, crd, 3)) == x);
  const LegoPiece *sg = lego_regp(c, dd, (const int[]){2, 0, 1}, 3, &e);
  const IxExpr *pd[3] = {dd[2], dd[0], dd[1]};
  const LegoPiece *sgi = lego_regp(c, pd, (const int[]){1, 2, 0}, 3, &e);
  lego_piece_inv(c, sg, x, crd); /* crd: logical coordinate of flat x under sigma */
  const IxExpr *y = ix_simplify(c, lego_piece_apply(c, id, crd));
  lego_piece_inv(c, id, y, crd);
  const IxExpr *z = ix_simplify(c, lego_piece_apply(c, sg, crd));
  CHECK(z == x && sgi != NULL);
  const LegoPiece *rows[2] = {lego_row(c, dd, 2), lego_row(c, dd + 2, 1)};
  const LegoOrderBy *orow = lego_orderby(c, rows, 2);
  const IxExpr *cv[3] = {ix_var(c, "a0", 0, 2), ix_var(c, "a1", 0, 3), ix_var(c, "a2", 0, 4)};
  CHECK(lego_orderby_apply(c, orow, cv) == lego_flatten(c, dd, cv, 3));
  /* L9: Row(M,K) tiled by (BM,BK) = TileBy([M/BM,K/BK],[BM,BK]); sliced at
   * (lpid_m, k): offs = (BM*lpid_m + r)*K + BK*k + c  (M=64, K=32, BM=16, BK=8) */
  {
    const LegoGroupBy *tk = lego_tileby(c, (const IxExpr *[]){K(c, 4), K(c, 4), K(c, 16), K(c, 8)}, 2, 2, &e);
    const IxExpr *pm = ix_var(c, "pm", 0, 3), *kk = ix_var(c, "kk", 0, 3);
    const IxExpr *rr = ix_var(c, "rr", 0, 15), *cc = ix_var(c, "cc", 0, 7);
    const IxExpr *off = ix_simplify(c, lego_apply(c, tk, (const IxExpr *[]){pm, kk, rr, cc}));
    CHECK(off == ix_add(c, ix_mulk(c, ix_add(c, ix_mulk(c, pm, 16), rr), 32),
                        ix_add(c, ix_mulk(c, kk, 8), cc)));
  }
  /* Morton 4x4: the last index in the lowest bit; inverse; no div/mod after lowering */
  const LegoPiece *mo = lego_morton(c, 2, 2, &e);
  CHECK(mo != NULL);
  const IxExpr *mi = ix_var(c, "mi", 0, 3), *mj = ix_var(c, "mj", 0, 3), *mv[2] = {mi, mj};
  const IxExpr *mf = ix_lower(c, ix_simplify(c, lego_piece_apply(c, mo, mv)));
  CHECK(ix_count_op(mf, IX_DIV) == 0 && ix_count_op(mf, IX_MOD) == 0);
  int bad = 0;
  for (int64_t p = 0; p < 16; p++) {
    int64_t env[64] = {0}, ii = p / 4, jj = p % 4, want = 0;
    for (int b = 0; b < 2; b++) want |= (((jj >> b) & 1) << (2 * b)) | (((ii >> b) & 1) << (2 * b + 1));
    env[mi->k] = ii;
    env[mj->k] = jj;
    if (evx(c, mf, env) != want) bad++;
  }
  CHECK(bad == 0);
  CHECK(lego_morton(c, 3, 30, &e) == NULL);
  arena_free(a);
}

int main(void) {
  test_ix_basics();
  test_ix_rules();
  test_ix_golden_fig9();
  test_ix_random();
  test_cute_vectors();
  test_diderot_vectors();
  test_symbolic();
  test_layout_properties();
  test_associativity();
  test_errors();
  test_lego();
  test_lego_more();
  return unit_finish("layout");
}
