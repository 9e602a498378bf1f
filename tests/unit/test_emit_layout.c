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
  bool h;
  CHECK(lyt_parse_image_layout("linear", &b, &h) && b == 0 && !h);
  CHECK(lyt_parse_image_layout("brick:4", &b, &h) && b == 4 && !h);
  CHECK(lyt_parse_image_layout("halo:8", &b, &h) && b == 8 && h);
  CHECK(!lyt_parse_image_layout("brick:3", &b, &h));
  CHECK(!lyt_parse_image_layout("brick:128", &b, &h));
  CHECK(!lyt_parse_image_layout("bricks:4", &b, &h));
  CHECK(!lyt_parse_image_layout("halo:1", &b, &h));
  CHECK(!lyt_parse_image_layout("halo:", &b, &h));
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
  const Layout *lin = lyt_image_layout(ix, 3, C, n, 0, 0);
  const Layout *brk = lyt_image_layout(ix, 3, C, n, B, 0);
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

/* The offset of voxel (9,17,30) of a 32^3 scalar volume in bricks of 8,
 * with halo H (0: none), is want: the worked vectors of doc/layouts.md §4.2. */
static void image_vector(int H, int64_t want) {
  Arena *a = arena_new();
  IxCtx *ix = ix_ctx_new(a);
  const IxExpr *n[3] = {ix_const(ix, 32), ix_const(ix, 32), ix_const(ix, 32)};
  const Layout *brk = lyt_image_layout(ix, 3, 1, n, 8, H);
  const IxExpr *v[4] = {ix_const(ix, 0), ix_const(ix, 9), ix_const(ix, 17), ix_const(ix, 30)};
  LytError err;
  const IxExpr *e = lyt_emit_fwd(ix, brk, v, 4, &err);
  CHECK_MSG(e && ix_is_k(ix_simplify(ix, e), want - lyt_image_origin(3, 1, 8, H)), "halo %d", H);
  arena_free(a);
}

static void test_image_vector(void) {
  /* 8^3 bricks: 29577 */
  image_vector(0, 29577);
}

/* Haloed bricks (doc/layouts.md §4.2), halo H, stored edge E = B + 2H - 1:
 *  - voxel x is at origin + layout(c, x) = c + C·(Σ_a (x_a mod B + H - 1)·E^a
 *    + E^3·(brick index, colexicographic over NB_a = ceil(N_a / B)));
 *  - the storage layout is a bijection onto [0, its cosize), and its sample
 *    (c, l, b) is where voxel b·B + l - (H - 1) sits in brick b;
 *  - tap k (1-H..H) of the probe at x, read at place x mod B + k of x's
 *    brick, is the stored sample that the re-layout fills with voxel
 *    clamp(x + k) (every interior tap hits the voxel x + k itself). */
static void test_image_halo(int C, int B, int H, const int *sz) {
  Arena *a = arena_new();
  IxCtx *ix = ix_ctx_new(a);
  const IxExpr *n[3] = {ix_const(ix, sz[0]), ix_const(ix, sz[1]), ix_const(ix, sz[2])};
  const Layout *in = lyt_image_layout(ix, 3, C, n, B, H);
  const Layout *st = lyt_image_storage(ix, 3, C, n, B, H);
  int64_t E = B + 2 * H - 1, nb[3], E3 = E * E * E;
  for (int k = 0; k < 3; k++) nb[k] = (sz[k] + B - 1) / B;
  int64_t org = lyt_image_origin(3, C, B, H);
  CHECK(org == (int64_t)C * (H - 1) * (1 + E + E * E));
  /* every stored sample once */
  const IxExpr *len = ix_simplify(ix, lyt_cosize(ix, st));
  CHECK(ix_is_const(len) && len->k == C * E3 * nb[0] * nb[1] * nb[2]);
  int64_t total = ix_is_const(len) ? len->k : 0;
  unsigned char *hit = calloc((size_t)total + 1, 1);
  /* stored[o]: the voxel (x,y,z) whose value sample o holds (re-layout) */
  int64_t *vox = calloc((size_t)total + 1, sizeof *vox);
  int bad = 0;
  int64_t env[16];
  LytError err;
  const IxExpr *vars[7];
  for (int i = 0; i < 7; i++) vars[i] = ix_var(ix, i == 0 ? "c" : "u", 0, IX_INF);
  const IxExpr *so = lyt_emit_fwd(ix, st, vars, 7, &err);
  CHECK(so != NULL);
  for (int64_t b2 = 0; so && b2 < nb[2]; b2++)
    for (int64_t l2 = 0; l2 < E; l2++)
      for (int64_t b1 = 0; b1 < nb[1]; b1++)
        for (int64_t l1 = 0; l1 < E; l1++)
          for (int64_t b0 = 0; b0 < nb[0]; b0++)
            for (int64_t l0 = 0; l0 < E; l0++)
              for (int c = 0; c < C; c++) {
                int64_t v[7] = {c, l0, b0, l1, b1, l2, b2};
                for (int i = 0; i < 7; i++) env[vars[i]->k] = v[i];
                bool ok;
                int64_t o = eval1(so, 7, env, &ok);
                if (!ok || o < 0 || o >= total || hit[o]) {
                  bad++;
                  continue;
                }
                hit[o] = 1;
                int64_t x[3] = {b0 * B + l0 - (H - 1), b1 * B + l1 - (H - 1), b2 * B + l2 - (H - 1)};
                for (int k = 0; k < 3; k++) x[k] = x[k] < 0 ? 0 : x[k] >= sz[k] ? sz[k] - 1 : x[k];
                vox[o] = c + C * (x[0] + sz[0] * (x[1] + (int64_t)sz[1] * x[2]));
              }
  CHECK_MSG(bad == 0, "C %d B %d H %d: %d stored samples off or twice", C, B, H, bad);
  /* voxels, and the taps of a probe at every voxel along each axis */
  const IxExpr *xv[4] = {ix_var(ix, "c", 0, C - 1), ix_var(ix, "x", 0, sz[0] - 1),
                         ix_var(ix, "y", 0, sz[1] - 1), ix_var(ix, "z", 0, sz[2] - 1)};
  const IxExpr *io = lyt_emit_fwd(ix, in, xv, 4, &err);
  CHECK(io != NULL);
  int badv = 0, badt = 0;
  for (int z = 0; io && z < sz[2]; z++)
    for (int y = 0; y < sz[1]; y++)
      for (int x = 0; x < sz[0]; x++)
        for (int c = 0; c < C; c++) {
          int64_t p[3] = {x, y, z};
          env[xv[0]->k] = c, env[xv[1]->k] = x, env[xv[2]->k] = y, env[xv[3]->k] = z;
          bool ok;
          int64_t o = org + eval1(io, 4, env, &ok);
          int64_t inb = 0, blk = 0, pe = 1, pb = 1;
          for (int k = 0; k < 3; k++, pe *= E, pb *= nb[k - 1]) {
            inb += (p[k] % B + H - 1) * pe;
            blk += p[k] / B * pb;
          }
          if (!ok || o != c + C * (inb + E3 * blk)) badv++;
          /* tap t along axis k: place p_k mod B + t of the same brick */
          for (int k = 0; k < 3; k++)
            for (int t = 1 - H; t <= H; t++) {
              int64_t ot = o + (int64_t)t * C * (k == 0 ? 1 : k == 1 ? E : E * E);
              int64_t q[3] = {p[0], p[1], p[2]};
              q[k] += t;
              q[k] = q[k] < 0 ? 0 : q[k] >= sz[k] ? sz[k] - 1 : q[k];
              int64_t want = c + C * (q[0] + sz[0] * (q[1] + (int64_t)sz[1] * q[2]));
              if (ot < 0 || ot >= total || !hit[ot] || vox[ot] != want) badt++;
            }
        }
  CHECK_MSG(badv == 0, "C %d B %d H %d: %d voxels at wrong addresses", C, B, H, badv);
  CHECK_MSG(badt == 0, "C %d B %d H %d: %d taps read the wrong voxel", C, B, H, badt);
  free(hit);
  free(vox);
  arena_free(a);
}

static void test_image_halo_vector(void) {
  /* halo:8 bricks for a support of 2 (E = 11, origin 133):
   * 133 + 1 + 11·1 + 121·6 + 1331·(1 + 4·2 + 16·3) = 76738 */
  CHECK(lyt_image_origin(3, 1, 8, 2) == 133);
  image_vector(2, 76738);
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
  test_image_halo(1, 4, 2, s1);
  test_image_halo(3, 4, 3, s1);
  test_image_halo(1, 8, 1, s2);
  test_image_halo(2, 2, 2, s3);
  test_image_halo(1, 8, 4, s3);
  test_image_halo_vector();
  return unit_finish("emit_layout");
}
