/* test_rt_world.c -- the world and the super-step scheduler (rt_world.c)
 * driven by hand-written strand methods. Expected counts are derived by
 * hand from the rules of doc/language.md §8.3 (written next to each test). */
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "diderot_world.h"
#include "unit.h"

/* ---- a population with new / die / stabilize / start ----------------------
 * Rules (update): age += 1; age == 1 and val < 2 → new child (val + 10);
 * val odd and age == 2 → die; age == 3 → stabilize.
 * Initial strands val 0..3. By hand:
 *   step 1: A0..A3 age 1, A0 and A1 create C10, C11      → active 6, stable 0
 *   step 2: A1, A3 die; C10, C11 age 1                   → active 4, stable 0
 *   step 3: A0, A2 stabilize; C11 (odd, age 2) dies      → active 1, stable 2
 *   step 4: C10 stabilizes                               → active 0, stable 3
 * Stable strands in creation order: 0, 2, 10. */

typedef struct Pop {
  int val, age, starts, stabs, start_age, seen_g, stab_step;
} Pop;

typedef struct PopGlobals {
  int g; /* set by the global update to the step number */
  int nactive[8], nstable[8], nstrands[8];
  int nupd;
  int gstart_runs;
} PopGlobals;

static DrtExit pop_start(DrtCtx *ctx, uint32_t id, void *self) {
  (void)ctx, (void)id;
  Pop *p = self;
  p->starts++;
  p->start_age = p->age;
  return DRT_EXIT_CONTINUE;
}

static DrtExit pop_update(DrtCtx *ctx, uint32_t id, void *self) {
  Pop *p = self;
  PopGlobals *g = ctx->globals;
  p->seen_g = g->g;
  p->age++;
  if (p->age == 1 && p->val < 2) {
    Pop *c = drt_world_new_strand(ctx, id);
    if (c) {
      c->val = p->val + 10;
      c->start_age = -1;
    }
  }
  if (p->val % 2 == 1 && p->age == 2) return DRT_EXIT_DIE;
  if (p->age == 3) return DRT_EXIT_STABILIZE;
  return DRT_EXIT_CONTINUE;
}

static void pop_stabilize(DrtCtx *ctx, uint32_t id, void *self) {
  (void)id;
  Pop *p = self;
  p->stabs++;
  p->stab_step = ((PopGlobals *)ctx->globals)->g + 1;
}

static void pop_gstart(DrtWorld *w, void *globals) {
  (void)w;
  ((PopGlobals *)globals)->gstart_runs++;
}

static void pop_gupdate(DrtWorld *w, void *globals) {
  PopGlobals *g = globals;
  if (g->nupd < 8) {
    g->nactive[g->nupd] = (int)drt_world_nactive(w);
    g->nstable[g->nupd] = (int)drt_world_nstable(w);
    g->nstrands[g->nupd] = (int)drt_world_nstrands(w);
  }
  g->nupd++;
  g->g++;
}

static const DrtProgram pop_prog = {
    .state_size = sizeof(Pop),
    .start = pop_start,
    .update = pop_update,
    .stabilize = pop_stabilize,
    .global_start = pop_gstart,
    .global_update = pop_gupdate,
};

static DrtWorld *pop_world(PopGlobals *g, int n) {
  DrtWorld *w = drt_world_new(&pop_prog, g);
  CHECK(!drt_world_init(w));
  CHECK(!drt_world_create_begin(w));
  for (int i = 0; i < n; i++) {
    Pop *p = drt_world_create_strand(w);
    p->val = i;
    p->start_age = -1;
  }
  CHECK(!drt_world_create_end(w));
  return w;
}

static void test_population(void) {
  PopGlobals g = {0};
  DrtWorld *w = pop_world(&g, 4);
  CHECK(drt_world_stage(w) == DRT_STAGE_POST_CREATE);
  CHECK(drt_world_nactive(w) == 4);
  CHECK(drt_world_run(w, 0) == 4);
  CHECK(drt_world_stage(w) == DRT_STAGE_DONE);
  CHECK(g.gstart_runs == 1);
  CHECK(g.nupd == 4);
  const int act[4] = {6, 4, 1, 0}, stab[4] = {0, 0, 2, 3};
  for (int k = 0; k < 4; k++) {
    CHECK_MSG(g.nactive[k] == act[k], "step %d: %d active", k + 1, g.nactive[k]);
    CHECK_MSG(g.nstable[k] == stab[k], "step %d: %d stable", k + 1, g.nstable[k]);
    CHECK(g.nstrands[k] == act[k] + stab[k]);
  }
  CHECK(drt_world_nstable(w) == 3 && drt_world_nstrands(w) == 3);
  CHECK(drt_world_nslots(w) == 3);
  const int vals[3] = {0, 2, 10}, stab_step[3] = {3, 3, 4};
  for (uint32_t i = 0; i < 3; i++) {
    const Pop *p = drt_world_state(w, i);
    CHECK(drt_world_status(w, i) == DRT_STABLE);
    CHECK_MSG(p->val == vals[i], "slot %u holds %d", (unsigned)i, p->val);
    CHECK(p->stabs == 1);                  /* stabilize ran exactly once */
    CHECK(p->stab_step == stab_step[i]);   /* in the step it stabilized */
    CHECK(p->starts == 1 && p->start_age == 0); /* start before the first update */
    /* the last update of step k saw the global update of step k-1 */
    CHECK(p->seen_g == stab_step[i] - 1);
  }
  CHECK(drt_world_run(w, 0) == 0); /* done */
  CHECK(!drt_any_errors(drt_world_errors(w)));
  drt_world_free(w);
}

/* ---- the stage machine (§7.3 messages) ---- */
static void test_stages(void) {
  PopGlobals g = {0};
  DrtWorld *w = drt_world_new(&pop_prog, &g);
  CHECK(drt_world_run(w, 1) == 0);
  CHECK(strstr(drt_errors_text(drt_world_errors(w)), "attempt to run uninitialized program"));
  CHECK(drt_world_create_begin(w));
  CHECK(strstr(drt_errors_text(drt_world_errors(w)), "must call init_world before create_strands"));
  CHECK(!drt_world_init(w));
  CHECK(drt_world_init(w));
  CHECK(strstr(drt_errors_text(drt_world_errors(w)), "multiple calls to init_world"));
  CHECK(!drt_world_create_begin(w));
  drt_errors_free(drt_world_errors(w)); /* earlier errors would fail create_end */
  CHECK(!drt_world_create_end(w));
  CHECK(drt_world_create_begin(w));
  CHECK(strstr(drt_errors_text(drt_world_errors(w)), "multiple calls to create_strands"));
  drt_world_free(w);
}

/* ---- step limits: grid vs collection (§6.4) ----
 * Six strands k = 0..5 stabilize in step k+1. After run(3): strands 0,1,2
 * are stable and 3,4,5 active. */
typedef struct Lim {
  int k, age;
} Lim;

static DrtExit lim_update(DrtCtx *ctx, uint32_t id, void *self) {
  (void)ctx, (void)id;
  Lim *s = self;
  s->age++;
  return s->age == s->k + 1 ? DRT_EXIT_STABILIZE : DRT_EXIT_CONTINUE;
}

static DrtWorld *lim_world(bool grid) {
  static const DrtProgram prog = {.state_size = sizeof(Lim), .update = lim_update};
  DrtWorld *w = drt_world_new(&prog, NULL);
  drt_world_init(w);
  drt_world_create_begin(w);
  size_t sizes[2] = {2, 3};
  if (grid) drt_world_set_grid(w, 2, sizes);
  for (int k = 0; k < 6; k++) ((Lim *)drt_world_create_strand(w))->k = k;
  CHECK(!drt_world_create_end(w));
  return w;
}

static void test_limits(void) {
  for (int grid = 0; grid < 2; grid++) {
    DrtWorld *w = lim_world(grid);
    CHECK(drt_world_run(w, 3) == 3);
    CHECK(drt_world_nactive(w) == 3 && drt_world_nstable(w) == 3);
    CHECK(drt_world_stage(w) == DRT_STAGE_RUNNING);
    DrtDomain dom;
    drt_world_output_domain(w, false, &dom);
    if (grid) {
      CHECK(dom.naxes == 2 && dom.sizes[0] == 2 && dom.sizes[1] == 3);
      for (uint32_t i = 0; i < 6; i++) CHECK(drt_world_output_includes(w, i, false));
    } else {
      CHECK(dom.naxes == 0 && dom.count == 3);
      for (uint32_t i = 0; i < 6; i++) CHECK(drt_world_output_includes(w, i, false) == (i < 3));
    }
    drt_world_output_domain(w, true, &dom);
    CHECK(drt_domain_count(&dom) == 6);
    /* continuing: 3 more steps finish the run */
    CHECK(drt_world_run(w, 0) == 3);
    CHECK(drt_world_stage(w) == DRT_STAGE_DONE);
    drt_world_free(w);

    /* the executable's rule at the limit: a collection kills the rest */
    w = lim_world(grid);
    CHECK(drt_world_run(w, 2) == 2);
    if (!grid) {
      drt_world_kill_all(w);
      CHECK(drt_world_nstrands(w) == 2 && drt_world_nactive(w) == 0);
      CHECK(drt_world_nslots(w) == 2);
      CHECK(drt_world_run(w, 0) == 0);
    } else {
      CHECK(drt_world_nstrands(w) == 6);
    }
    drt_world_free(w);
  }
}

/* ---- dual state: a ring reading the left neighbour (§6.3 visibility) ----
 * x_i starts at i; each step x_i += in(x_{i-1 mod n}). After one step
 * x_i = i + (i-1 mod n), computed from start-of-step values only. */
typedef struct Ring {
  double x;
  int n;
} Ring;

static DrtExit ring_update(DrtCtx *ctx, uint32_t id, void *self) {
  Ring *r = self;
  uint32_t left = id ? id - 1 : (uint32_t)r->n - 1;
  const Ring *l = drt_world_in_state(ctx->world, left);
  r->x += l->x;
  r->x += 0; /* own write visible: r->x already updated */
  return DRT_EXIT_CONTINUE;
}

static void test_dual_state(void) {
  static const DrtProgram prog = {.state_size = sizeof(Ring), .shared = true, .update = ring_update};
  DrtWorld *w = drt_world_new(&prog, NULL);
  drt_world_init(w);
  drt_world_create_begin(w);
  enum { N = 7 };
  for (int i = 0; i < N; i++) {
    Ring *r = drt_world_create_strand(w);
    r->x = i;
    r->n = N;
  }
  drt_world_create_end(w);
  CHECK(drt_world_run(w, 1) == 1);
  for (int i = 0; i < N; i++) {
    double want = i + (i ? i - 1 : N - 1);
    CHECK_NEAR(((Ring *)drt_world_state(w, (uint32_t)i))->x, want, 0);
  }
  drt_world_free(w);
}

/* ---- reductions over strand sets ----
 * 1000 strands with v = i: Σ i = 499500, Σ 0.5 i = 249750 (exact in
 * float: partial sums are multiples of 0.5 below 2^23), max 999, min 0,
 * mean 499.5. Strands with i % 3 == 0 stabilize in step 1 (334 of them:
 * 0, 3, ..., 999): stable Σ i = 3·(0+…+333) = 166833. */
typedef struct Red {
  int i;
} Red;

static DrtExit red_update(DrtCtx *ctx, uint32_t id, void *self) {
  (void)ctx, (void)id;
  return ((Red *)self)->i % 3 == 0 ? DRT_EXIT_STABILIZE : DRT_EXIT_CONTINUE;
}
static double red_half(void *env, uint32_t id, const void *s) {
  (void)env, (void)id;
  return 0.5 * ((const Red *)s)->i;
}
static int64_t red_int(void *env, uint32_t id, const void *s) {
  (void)env, (void)id;
  return ((const Red *)s)->i;
}
static double red_real(void *env, uint32_t id, const void *s) {
  (void)env, (void)id;
  return ((const Red *)s)->i;
}
static double red_big(void *env, uint32_t id, const void *s) {
  (void)env, (void)id;
  return ((const Red *)s)->i >= 500;
}

static void omp_pfor(uint32_t n, void (*body)(void *, uint32_t), void *arg, uint32_t nw) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(nw)
  for (uint32_t c = 0; c < n; c++) body(arg, c);
}

static void test_reductions(DrtParallelFor pfor, uint32_t nw) {
  static const DrtProgram prog = {.state_size = sizeof(Red), .update = red_update};
  DrtWorld *w = drt_world_new(&prog, NULL);
  drt_world_set_parallel(w, pfor, nw, 64);
  drt_world_init(w);
  drt_world_create_begin(w);
  for (int i = 0; i < 1000; i++) ((Red *)drt_world_create_strand(w))->i = i;
  drt_world_create_end(w);
  CHECK(drt_world_reduce_int(w, DRT_SET_ALL, DRT_RED_SUM, red_int, NULL) == 499500);
  CHECK(drt_world_reduce_float(w, DRT_SET_ALL, DRT_RED_SUM, red_half, NULL) == 249750.0f);
  CHECK(drt_world_reduce_double(w, DRT_SET_ALL, DRT_RED_MEAN, red_real, NULL) == 499.5);
  CHECK(drt_world_reduce_double(w, DRT_SET_ALL, DRT_RED_MAX, red_real, NULL) == 999);
  CHECK(drt_world_reduce_int(w, DRT_SET_ALL, DRT_RED_MIN, red_int, NULL) == 0);
  CHECK(drt_world_reduce_double(w, DRT_SET_ALL, DRT_RED_EXISTS, red_big, NULL) == 1);
  CHECK(drt_world_reduce_double(w, DRT_SET_ALL, DRT_RED_ALL, red_big, NULL) == 0);
  CHECK(isnan(drt_world_reduce_double(w, DRT_SET_STABLE, DRT_RED_MEAN, red_real, NULL)));
  CHECK(drt_world_run(w, 1) == 1);
  CHECK(drt_world_nstable(w) == 334);
  CHECK(drt_world_reduce_int(w, DRT_SET_STABLE, DRT_RED_SUM, red_int, NULL) == 166833);
  CHECK(drt_world_reduce_int(w, DRT_SET_ACTIVE, DRT_RED_SUM, red_int, NULL) == 499500 - 166833);
  CHECK(drt_world_reduce_double(w, DRT_SET_ACTIVE, DRT_RED_MIN, red_real, NULL) == 1);
  CHECK(drt_world_reduce_int(w, DRT_SET_STABLE, DRT_RED_PRODUCT, red_int, NULL) == 0);
  drt_world_free(w);
}

/* ---- OpenMP: equal to the sequential run, bitwise ----
 * A bigger population with the same rules plus grandchildren (val < 2000
 * creates); every step's states and statuses are compared with the
 * sequential world. */
typedef struct Big {
  int val, age;
  double acc;
} Big;

static DrtExit big_update(DrtCtx *ctx, uint32_t id, void *self) {
  Big *b = self;
  b->age++;
  b->acc = b->acc * 1.0001 + 0.1 * b->val;
  if (b->age == 1 && b->val % 5 == 0 && b->val < 2000) {
    Big *c = drt_world_new_strand(ctx, id);
    if (c) c->val = b->val * 3 + 1;
    Big *d = drt_world_new_strand(ctx, id);
    if (d) d->val = b->val * 3 + 2;
  }
  if (b->val % 7 == 3 && b->age == 2) return DRT_EXIT_DIE;
  if (b->age == 2 + b->val % 4) return DRT_EXIT_STABILIZE;
  return DRT_EXIT_CONTINUE;
}

static DrtWorld *big_world(DrtParallelFor pfor, uint32_t nw) {
  static const DrtProgram prog = {.state_size = sizeof(Big), .update = big_update};
  DrtWorld *w = drt_world_new(&prog, NULL);
  drt_world_set_parallel(w, pfor, nw, 16);
  drt_world_init(w);
  drt_world_create_begin(w);
  for (int i = 0; i < 500; i++) ((Big *)drt_world_create_strand(w))->val = i;
  drt_world_create_end(w);
  return w;
}

static void test_openmp(void) {
  for (uint32_t nw = 1; nw <= 4; nw *= 2) {
    DrtWorld *s = big_world(NULL, 1), *p = big_world(omp_pfor, nw);
    int steps = 0;
    bool same = true;
    while (drt_world_nactive(s) > 0 && steps < 20) {
      uint32_t a = drt_world_run(s, 1), b = drt_world_run(p, 1);
      steps++;
      if (a != b || drt_world_nslots(s) != drt_world_nslots(p) ||
          drt_world_nactive(s) != drt_world_nactive(p) ||
          drt_world_nstable(s) != drt_world_nstable(p)) {
        same = false;
        break;
      }
      for (uint32_t i = 0; i < drt_world_nslots(s); i++)
        if (memcmp(drt_world_state(s, i), drt_world_state(p, i), sizeof(Big)) ||
            drt_world_status(s, i) != drt_world_status(p, i))
          same = false;
    }
    CHECK_MSG(same, "%u threads differ from sequential at step %d", (unsigned)nw, steps);
    CHECK(drt_world_nactive(s) == 0);
    CHECK(drt_world_nstable(s) > 500); /* children were created and stabilized */
    drt_world_free(s);
    drt_world_free(p);
    test_reductions(omp_pfor, nw);
  }
}

/* ---- the sequence heap between steps ----
 * Every global update allocates GARB bytes of garbage (a temporary of a
 * global block). The heap collects once 1 MiB was allocated since the last
 * collection (rt_seqheap.c), so whatever the number of steps it never holds
 * more than 1 MiB plus one step's garbage plus what is live; without
 * collections, STEPS steps would leave STEPS * GARB = 16 MiB. With a
 * seq_roots hook, the buffer it marks survives every collection. */
enum { GARB = 64 << 10, STEPS = 256, HELD_MAX = (1 << 20) + 2 * GARB + 4096 };

typedef struct SeqG {
  int steps;
  unsigned char *keep; /* a live "global sequence" (marked by seq_roots) */
  size_t mid_before, mid_after;
} SeqG;

static DrtExit seq_update(DrtCtx *ctx, uint32_t id, void *self) {
  (void)id;
  SeqG *g = ctx->globals;
  int *age = self;
  if (++*age == STEPS) return DRT_EXIT_STABILIZE;
  if (*age == 1) {
    /* mid-step a collection must not run: this temporary is live, unmarked */
    unsigned char *t = drt_seq_alloc(ctx->world, 2 << 20);
    CHECK(t != NULL);
    if (t) t[0] = 7;
    g->mid_before = drt_world_seq_bytes(ctx->world);
    drt_world_collect_seqs(ctx->world);
    g->mid_after = drt_world_seq_bytes(ctx->world);
    CHECK(t && t[0] == 7);
  }
  return DRT_EXIT_CONTINUE;
}

static void seq_gupdate(DrtWorld *w, void *globals) {
  SeqG *g = globals;
  unsigned char *t = drt_seq_alloc(w, GARB);
  CHECK(t != NULL);
  if (t) memset(t, g->steps & 0xff, GARB);
  g->steps++;
}

static void seq_roots(DrtWorld *w, void *globals) {
  SeqG *g = globals;
  CHECK(drt_seq_mark(w, g->keep));
}

static DrtWorld *seq_world(const DrtProgram *prog, SeqG *g) {
  DrtWorld *w = drt_world_new(prog, g);
  CHECK(!drt_world_init(w));
  CHECK(!drt_world_create_begin(w));
  *(int *)drt_world_create_strand(w) = 0;
  CHECK(!drt_world_create_end(w));
  return w;
}

static void test_seq_collect(void) {
  /* drt_world_run, with and without roots */
  for (int roots = 0; roots < 2; roots++) {
    const DrtProgram prog = {.state_size = sizeof(int), .update = seq_update,
                             .global_update = seq_gupdate,
                             .seq_roots = roots ? seq_roots : NULL};
    SeqG g = {0};
    DrtWorld *w = seq_world(&prog, &g);
    if (roots) {
      g.keep = drt_seq_alloc(w, 100);
      for (int i = 0; g.keep && i < 100; i++) g.keep[i] = (unsigned char)i;
    }
    CHECK(drt_world_run(w, 0) == STEPS);
    CHECK(g.steps == STEPS);
    CHECK_MSG(g.mid_after == g.mid_before && g.mid_before >= (2u << 20),
              "a collection during a step: %zu bytes, then %zu", g.mid_before, g.mid_after);
    size_t held = drt_world_seq_bytes(w);
    CHECK_MSG(held <= HELD_MAX, "roots %d: the heap holds %zu bytes after %d steps", roots, held,
              STEPS);
    CHECK_MSG(held >= (size_t)GARB, "roots %d: %zu bytes held, expected the last garbage", roots,
              held);
    if (roots) {
      bool same = g.keep != NULL;
      for (int i = 0; same && i < 100; i++) same = g.keep[i] == (unsigned char)i;
      CHECK_MSG(same, "the marked sequence did not survive");
    }
    drt_world_free(w);
  }
  /* a scheduler of its own (the CUDA target's run loop): the global block
   * by hand, then the public collection between steps */
  const DrtProgram prog = {.state_size = sizeof(int), .update = seq_update,
                           .global_update = seq_gupdate};
  SeqG g = {0};
  DrtWorld *w = seq_world(&prog, &g);
  size_t peak = 0;
  for (int k = 0; k < STEPS; k++) {
    prog.global_update(w, &g);
    drt_world_collect_seqs(w);
    size_t held = drt_world_seq_bytes(w);
    if (held > peak) peak = held;
  }
  CHECK_MSG(peak <= HELD_MAX, "an external scheduler's heap peaked at %zu bytes", peak);
  drt_world_free(w);
}

int main(void) {
  test_population();
  test_stages();
  test_limits();
  test_dual_state();
  test_reductions(NULL, 1);
  test_openmp();
  test_seq_collect();
  return unit_finish("rt_world");
}
