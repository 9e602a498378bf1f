/* test_rt_layout.c -- the world with a DrtStateLayout (rt_world.c): a
 * hand-written struct-of-arrays layout of two int words, store[w*cap + i],
 * through creation (the store grows while strands are created), `new`
 * (appended after the step, growing the store again), `die` (compaction
 * moves slots) and stabilize. Expected results are derived by hand from
 * the rules of doc/language.md §8.3 (below). */
#include <stdlib.h>
#include <string.h>

#include "diderot_world.h"
#include "unit.h"

enum { VAL = 0, AGE = 1, NW = 2 };

static size_t soa_bytes(uint32_t cap) { return (size_t)cap * NW * sizeof(int32_t); }
static void soa_get(const void *st, uint32_t cap, uint32_t i, void *pk) {
  for (int w = 0; w < NW; w++) ((int32_t *)pk)[w] = ((const int32_t *)st)[(size_t)w * cap + i];
}
static void soa_put(void *st, uint32_t cap, uint32_t i, const void *pk) {
  for (int w = 0; w < NW; w++) ((int32_t *)st)[(size_t)w * cap + i] = ((const int32_t *)pk)[w];
}
static int chunk_calls;
static void soa_chunk(uint32_t c, uint32_t chunk, uint32_t n, uint32_t *lo, uint32_t *hi) {
  chunk_calls++;
  *lo = c * chunk > n ? n : c * chunk;
  *hi = *lo + chunk > n ? n : *lo + chunk;
}
static const DrtStateLayout soa = {4, 8, soa_bytes, soa_get, soa_put, soa_chunk, 0};

static int32_t *word(DrtCtx *ctx, void *store, uint32_t id, int w) {
  return (int32_t *)store + (size_t)w * drt_world_capacity(ctx->world) + id;
}

/* Rules (update): age += 1; age == 1 and val < 50 → new child val + 1000;
 * val odd and age == 2 → die; age == 3 → stabilize. Initial vals 0..99.
 *   step 1: everyone age 1; vals 0..49 create children 1000..1049
 *   step 2: odd initial vals die; children age 1 (they create nothing)
 *   step 3: even initial vals stabilize; odd children die
 *   step 4: even children stabilize
 * Stable in creation order: 0, 2, ..., 98, then 1000, 1002, ..., 1048. */
static DrtExit upd(DrtCtx *ctx, uint32_t id, void *store) {
  int32_t *val = word(ctx, store, id, VAL), *age = word(ctx, store, id, AGE);
  ++*age;
  if (*age == 1 && *val < 50) {
    int32_t *c = drt_world_new_strand(ctx, id);
    if (c) c[VAL] = *val + 1000;
  }
  if (*val % 2 == 1 && *age == 2) return DRT_EXIT_DIE;
  if (*age == 3) return DRT_EXIT_STABILIZE;
  return DRT_EXIT_CONTINUE;
}

static void test_population(void) {
  DrtProgram prog = {.state_size = NW * sizeof(int32_t), .state_align = sizeof(int32_t),
                     .update = upd, .layout = &soa};
  DrtWorld *w = drt_world_new(&prog, NULL);
  CHECK(w != NULL);
  if (!w) return;
  CHECK(!drt_world_init(w) && !drt_world_create_begin(w));
  for (int v = 0; v < 100; v++) {
    int32_t *p = drt_world_create_strand(w);
    CHECK(p != NULL && p[VAL] == 0 && p[AGE] == 0);
    if (p) p[VAL] = v;
    /* the packed record is scattered later: no slot is readable by pointer */
    CHECK(drt_world_state(w, 0) == NULL);
  }
  CHECK(!drt_world_create_end(w));
  CHECK(drt_world_capacity(w) == 128 && drt_world_nslots(w) == 100);
  /* every created value is in its SoA column */
  const int32_t *st = drt_world_store(w);
  int bad = 0;
  for (int v = 0; v < 100; v++) bad += st[v] != v || st[128 + v] != 0;
  CHECK(bad == 0);
  chunk_calls = 0;
  CHECK(drt_world_run(w, 0) == 4);
  CHECK(chunk_calls > 0); /* the layout's strand → chunk map is used */
  CHECK(drt_world_nstable(w) == 75 && drt_world_nactive(w) == 0);
  CHECK(drt_world_capacity(w) == 256);
  st = drt_world_store(w);
  uint32_t cap = drt_world_capacity(w), k = 0;
  bad = 0;
  for (uint32_t i = 0; i < drt_world_nslots(w); i++) {
    if (drt_world_status(w, i) != DRT_STABLE) continue;
    int32_t want = k < 50 ? 2 * (int32_t)k : 1000 + 2 * ((int32_t)k - 50);
    int32_t pk[NW];
    soa_get(st, cap, i, pk);
    bad += pk[VAL] != want || pk[AGE] != 3 || st[i] != want;
    k++;
  }
  CHECK_MSG(bad == 0 && k == 75, "%d wrong of %u stable", bad, (unsigned)k);
  drt_world_free(w);
}

/* AoS declared as the identity on packed records (packed_stride): states
 * are created in place (a pointer into the store), a grid reserves all its
 * strands at once, growth by `new` copies bytes; the population rules and
 * the expected survivors are those of test_population. */
static size_t aos_bytes(uint32_t cap) { return (size_t)cap * NW * sizeof(int32_t); }
static void aos_get(const void *st, uint32_t cap, uint32_t i, void *pk) {
  (void)cap;
  memcpy(pk, (const int32_t *)st + (size_t)NW * i, NW * sizeof(int32_t));
}
static void aos_put(void *st, uint32_t cap, uint32_t i, const void *pk) {
  (void)cap;
  memcpy((int32_t *)st + (size_t)NW * i, pk, NW * sizeof(int32_t));
}
static const DrtStateLayout aos = {4, 8, aos_bytes, aos_get, aos_put, NULL, NW * sizeof(int32_t)};

static DrtExit upd_aos(DrtCtx *ctx, uint32_t id, void *store) {
  int32_t *val = (int32_t *)store + (size_t)NW * id, *age = val + AGE;
  ++*age;
  if (*age == 1 && *val < 50) {
    int32_t *c = drt_world_new_strand(ctx, id);
    if (c) c[VAL] = *val + 1000;
  }
  if (*val % 2 == 1 && *age == 2) return DRT_EXIT_DIE;
  if (*age == 3) return DRT_EXIT_STABILIZE;
  return DRT_EXIT_CONTINUE;
}

static void test_aos_identity(void) {
  DrtProgram prog = {.state_size = NW * sizeof(int32_t), .state_align = sizeof(int32_t),
                     .update = upd_aos, .layout = &aos};
  DrtWorld *w = drt_world_new(&prog, NULL);
  CHECK(w != NULL);
  if (!w) return;
  CHECK(!drt_world_init(w) && !drt_world_create_begin(w));
  for (int v = 0; v < 100; v++) {
    int32_t *p = drt_world_create_strand(w);
    const int32_t *st = drt_world_store(w);
    CHECK(p != NULL && p == st + NW * v && p[VAL] == 0 && p[AGE] == 0);
    if (p) p[VAL] = v;
  }
  CHECK(!drt_world_create_end(w));
  CHECK(drt_world_capacity(w) == 128 && drt_world_nslots(w) == 100);
  CHECK(drt_world_run(w, 0) == 4);
  CHECK(drt_world_nstable(w) == 75 && drt_world_capacity(w) == 256);
  const int32_t *st = drt_world_store(w);
  uint32_t k = 0;
  int bad = 0;
  for (uint32_t i = 0; i < drt_world_nslots(w); i++) {
    if (drt_world_status(w, i) != DRT_STABLE) continue;
    int32_t want = k < 50 ? 2 * (int32_t)k : 1000 + 2 * ((int32_t)k - 50);
    bad += st[NW * i + VAL] != want || st[NW * i + AGE] != 3;
    k++;
  }
  CHECK_MSG(bad == 0 && k == 75, "%d wrong of %u stable", bad, (unsigned)k);
  drt_world_free(w);

  /* a 30x40 grid: capacity for all 1200 strands before the first one,
   * so the store never moves while they are created */
  w = drt_world_new(&prog, NULL);
  CHECK(w != NULL);
  if (!w) return;
  size_t sizes[2] = {30, 40};
  CHECK(!drt_world_init(w) && !drt_world_create_begin(w) && !drt_world_set_grid(w, 2, sizes));
  CHECK(drt_world_capacity(w) >= 1200);
  const void *store = drt_world_store(w);
  bad = 0;
  for (int v = 0; v < 1200; v++) {
    int32_t *p = drt_world_create_strand(w);
    bad += !p || p != (const int32_t *)store + NW * v;
  }
  CHECK(bad == 0 && drt_world_store(w) == store);
  CHECK(!drt_world_create_end(w));
  drt_world_free(w);
}

/* A bad layout (no put, or a pad that is not a power of two) gives no world. */
static void test_bad(void) {
  DrtStateLayout nop = soa;
  nop.put = NULL;
  DrtProgram prog = {.state_size = 8, .state_align = 4, .update = upd, .layout = &nop};
  CHECK(drt_world_new(&prog, NULL) == NULL);
  DrtStateLayout odd = soa;
  odd.pad = 6;
  prog.layout = &odd;
  CHECK(drt_world_new(&prog, NULL) == NULL);
}

int main(void) {
  test_population();
  test_aos_identity();
  test_bad();
  return unit_finish("rt_layout");
}
