/* test_emit_layout.c -- the layouts of generated code (emit_c_layout.h,
 * lyt_image_layout): the index expressions the back end prints, evaluated
 * and inspected, against hand-derived formulas (doc/layouts.md §4). */
#include <stdlib.h>

#include "backend/core/emit_c_layout.h"
#include "schedule/schedule.h"
#include "unit.h"

static int64_t eval1(const IxExpr *e, int nv, const int64_t *env, bool *ok) {
  int64_t r = 0;
  (void)nv;
  *ok = ix_eval(e, env, &r);
  return r;
}

static void test_parse(void) {
  SchedStrandLayout k;
  int w, b;
  CHECK(schedule_parse_strand_layout("aos", &k, &w) && k == SCHED_AOS && w == 1);
  CHECK(schedule_parse_strand_layout("soa", &k, &w) && k == SCHED_SOA);
  CHECK(schedule_parse_strand_layout("aosoa:8", &k, &w) && k == SCHED_AOSOA && w == 8);
  CHECK(!schedule_parse_strand_layout("aosoa:6", &k, &w));  /* not a power of two */
  CHECK(!schedule_parse_strand_layout("aosoa:", &k, &w));
  CHECK(!schedule_parse_strand_layout("aosoa:1", &k, &w));
  CHECK(!schedule_parse_strand_layout("aosoa:8x", &k, &w));
  CHECK(!schedule_parse_strand_layout("AoS", &k, &w));
  CHECK(lyt_parse_image_layout("linear", &b) && b == 0);
  CHECK(lyt_parse_image_layout("brick:4", &b) && b == 4);
  CHECK(!lyt_parse_image_layout("brick:3", &b));
  CHECK(!lyt_parse_image_layout("brick:128", &b));
  CHECK(!lyt_parse_image_layout("bricks:4", &b));
}

/* Word w of strand s for every layout, exhaustively for small N, against
 * the formulas of doc/layouts.md §4.1; every layout is a bijection onto
 * [0, N*F). */
static void test_strand(EmitStrandLayout kind, int W, int F, int64_t N) {
  Arena *a = arena_new();
  IxCtx *ix = ix_ctx_new(a);
  const IxExpr *n = ix_var_full(ix, "d_N", W, IX_INF, NULL, W);
  const IxExpr *s = ix_var_full(ix, "d_i", 0, IX_INF, n, 1);
  LytError err;
  const Layout *l = emit_strand_state_layout(ix, kind, W, F, n, &err);
  CHECK_MSG(l != NULL, "kind %d: %s", (int)kind, err.msg ? err.msg : "");
  if (!l) {
    arena_free(a);
    return;
  }
  int64_t env[2];
  env[n->k] = N;
  char *hit = calloc((size_t)(N * F), 1);
  int bad = 0;
  for (int w = 0; w < F; w++) {
    const IxExpr *e = emit_strand_index(ix, l, s, w);
    CHECK(e != NULL);
    if (!e) break;
    /* strength-reduced: no division or modulo is left for W a power of two */
    CHECK(ix_count_op(e, IX_DIV) == 0 && ix_count_op(e, IX_MOD) == 0);
    for (int64_t i = 0; i < N; i++) {
      env[s->k] = i;
      bool ok;
      int64_t got = eval1(e, 2, env, &ok);
      int64_t want = kind == EMIT_STRAND_AOS   ? F * i + w
                     : kind == EMIT_STRAND_SOA ? i + N * w
                                               : i % W + W * w + (int64_t)W * F * (i / W);
      if (!ok || got != want || got < 0 || got >= N * F || hit[got]) {
        if (bad++ < 3)
          fprintf(stderr, "kind %d W %d: strand %lld word %d -> %lld, want %lld\n", (int)kind, W,
                  (long long)i, w, (long long)got, (long long)want);
        continue;
      }
      hit[got] = 1;
    }
  }
  CHECK_MSG(bad == 0, "kind %d W %d F %d N %lld: %d wrong", (int)kind, W, F, (long long)N, bad);
  free(hit);
  arena_free(a);
}

/* The printed forms: SoA word w is d_i + w*d_N; AoSoA splits the strand
 * with & and >> (the hoisted strand part) and scales the word by W. */
static void test_printed(void) {
  Arena *a = arena_new();
  IxCtx *ix = ix_ctx_new(a);
  const IxExpr *n = ix_var_full(ix, "d_N", 8, IX_INF, NULL, 8);
  const IxExpr *s = ix_var_full(ix, "d_i", 0, IX_INF, n, 1);
  LytError err;
  const Layout *soa = emit_strand_state_layout(ix, EMIT_STRAND_SOA, 1, 7, n, &err);
  const IxExpr *e = emit_strand_index(ix, soa, s, 3);
  const char *t = e ? ix_to_c(ix, e) : "";
  CHECK_MSG(!strcmp(t, "d_i + 3*d_N") || !strcmp(t, "3*d_N + d_i"), "soa: %s", t);
  const Layout *aosoa = emit_strand_state_layout(ix, EMIT_STRAND_AOSOA, 8, 7, n, &err);
  CHECK(aosoa && lyt_rank(aosoa) == 2);
  e = aosoa ? emit_strand_index(ix, aosoa, s, 2) : NULL;
  CHECK(e && ix_count_op(e, IX_AND) == 1 && ix_count_op(e, IX_SHR) == 1);
  /* doc/layouts.md §4.1: W=8, F=7, N=1000: ((8,125),7):((1,56),8), (9,2) -> 73 */
  int64_t env[2];
  env[n->k] = 1000;
  env[s->k] = 9;
  bool ok;
  CHECK(e && eval1(e, 2, env, &ok) == 73 && ok);
  const Layout *aos = emit_strand_state_layout(ix, EMIT_STRAND_AOS, 1, 7, n, &err);
  e = emit_strand_index(ix, aos, s, 5);
  t = e ? ix_to_c(ix, e) : "";
  CHECK_MSG(!strcmp(t, "7*d_i + 5"), "aos: %s", t);
  arena_free(a);
}

/* Image samples: NRRD order c + C*(x + X*(y + Y*z)), and bricks of B^3
 * with the bricks in NRRD order: the hand formula of doc/layouts.md §4.2. */
static void test_image(int C, int B, const int *sz) {
  Arena *a = arena_new();
  IxCtx *ix = ix_ctx_new(a);
  const IxExpr *n[3] = {ix_const(ix, sz[0]), ix_const(ix, sz[1]), ix_const(ix, sz[2])};
  const Layout *lin = lyt_image_layout(ix, 3, C, n, 0);
  const Layout *brk = lyt_image_layout(ix, 3, C, n, B);
  const IxExpr *v[4] = {ix_var(ix, "c", 0, C - 1), ix_var(ix, "x", 0, sz[0] - 1),
                        ix_var(ix, "y", 0, sz[1] - 1), ix_var(ix, "z", 0, sz[2] - 1)};
  LytError err;
  const IxExpr *el = lyt_emit_fwd(ix, lin, v, 4, &err);
  const IxExpr *eb = lyt_emit_fwd(ix, brk, v, 4, &err);
  CHECK(el && eb);
  if (!el || !eb) {
    arena_free(a);
    return;
  }
  eb = ix_lower(ix, ix_simplify(ix, eb));
  /* coordinates in range: the brick index needs no division (shifts, ands) */
  CHECK(ix_count_op(eb, IX_DIV) == 0 && ix_count_op(eb, IX_MOD) == 0);
  int64_t nb[3];
  for (int k = 0; k < 3; k++) nb[k] = (sz[k] + B - 1) / B;
  int bad = 0;
  int64_t env[4];
  for (int z = 0; z < sz[2]; z++)
    for (int y = 0; y < sz[1]; y++)
      for (int x = 0; x < sz[0]; x++)
        for (int c = 0; c < C; c++) {
          env[v[0]->k] = c;
          env[v[1]->k] = x;
          env[v[2]->k] = y;
          env[v[3]->k] = z;
          bool ok1, ok2;
          int64_t gl = eval1(el, 4, env, &ok1), gb = eval1(eb, 4, env, &ok2);
          int64_t wl = c + C * (x + (int64_t)sz[0] * (y + (int64_t)sz[1] * z));
          int64_t in = x % B + B * (y % B) + (int64_t)B * B * (z % B);
          int64_t blk = x / B + nb[0] * (y / B + nb[1] * (z / B));
          int64_t wb = c + C * (in + (int64_t)B * B * B * blk);
          if (!ok1 || !ok2 || gl != wl || gb != wb) bad++;
        }
  CHECK_MSG(bad == 0, "C %d B %d: %d samples at wrong addresses", C, B, bad);
  arena_free(a);
}

static void test_image_vector(void) {
  /* doc/layouts.md §4.2: a 32^3 volume in 8^3 bricks, (9,17,30) -> 29577 */
  Arena *a = arena_new();
  IxCtx *ix = ix_ctx_new(a);
  const IxExpr *n[3] = {ix_const(ix, 32), ix_const(ix, 32), ix_const(ix, 32)};
  const Layout *brk = lyt_image_layout(ix, 3, 1, n, 8);
  const IxExpr *v[4] = {ix_const(ix, 0), ix_const(ix, 9), ix_const(ix, 17), ix_const(ix, 30)};
  LytError err;
  const IxExpr *e = lyt_emit_fwd(ix, brk, v, 4, &err);
  CHECK(e && ix_is_k(ix_simplify(ix, e), 29577));
  arena_free(a);
}

int main(void) {
  test_parse();
  for (int k = 0; k < 3; k++) {
    EmitStrandLayout kind = (EmitStrandLayout)k;
    int Ws[] = {1, 4, 8};
    for (int wi = 0; wi < 3; wi++) {
      int W = kind == EMIT_STRAND_AOSOA ? Ws[wi] * (wi ? 1 : 2) : 1;
      test_strand(kind, W, 7, 64);
      test_strand(kind, W, 1, 16);
      test_strand(kind, W, 13, 24 / W * W + W);
      if (kind != EMIT_STRAND_AOSOA) break;
    }
  }
  test_printed();
  static const int s1[3] = {9, 6, 5}, s2[3] = {16, 8, 8}, s3[3] = {13, 4, 3};
  test_image(1, 4, s1);
  test_image(3, 4, s1);
  test_image(1, 8, s2);
  test_image(2, 2, s3);
  test_image_vector();
  return unit_finish("emit_layout");
}
