/* test_rt_schedule.c -- the run-time schedule (diderot_world.h, rt_schedule.c):
 * its levels (runtime defaults < the program's < DIDEROT_SCHED_* and
 * -sched-* < drt_world_set_schedule), the OpenMP loop kind picked at run
 * time (test_omp_kind), the chunk and the updates per visit
 * as the scheduler uses them, the checks against the program, and the
 * snapshot writer's choice. A strand-wise program of N strands, strand i
 * stabilizing after 1 + i % 7 updates, run by hand-written update_chunk:
 * whatever the schedule, every strand runs exactly its updates and the
 * step count is the longest life, 7. */
#include <stdlib.h>
#include <string.h>

#include "diderot_world.h"
#include "unit.h"

enum { N = 1000 };

typedef struct S {
  int i, n;
} S;

typedef struct G {
  uint32_t max_limit, max_span, calls;
  uint32_t first_lo[4];
} G;

static size_t s_bytes(uint32_t cap) { return (size_t)cap * sizeof(S); }
static void s_get(const void *store, uint32_t cap, uint32_t i, void *packed) {
  (void)cap;
  memcpy(packed, (const S *)store + i, sizeof(S));
}
static void s_put(void *store, uint32_t cap, uint32_t i, const void *packed) {
  (void)cap;
  memcpy((S *)store + i, packed, sizeof(S));
}

static uint32_t s_chunk(DrtCtx *ctx, uint32_t lo, uint32_t hi, void *store, uint32_t cap,
                        unsigned char *status, unsigned char *fresh, uint32_t limit,
                        uint32_t *nstab, uint32_t *ndie) {
  (void)cap, (void)ndie;
  G *g = ctx->globals;
  if (limit > g->max_limit) g->max_limit = limit;
  if (hi - lo > g->max_span) g->max_span = hi - lo;
  if (g->calls < 4) g->first_lo[g->calls] = lo;
  g->calls++;
  uint32_t most = 0;
  for (uint32_t i = lo; i < hi; i++) {
    if (status[i] != DRT_ACTIVE) continue;
    fresh[i] = 0;
    S *s = (S *)store + i;
    uint32_t k = 0;
    bool stop;
    do {
      s->n++;
      k++;
      stop = s->n >= 1 + s->i % 7;
    } while (!stop && k < limit);
    if (stop) {
      status[i] = DRT_STABLE;
      ++*nstab;
    }
    if (k > most) most = k;
  }
  return most ? most : 1;
}

static const DrtStateLayout lay8 = {8, 256, s_bytes, s_get, s_put, NULL, sizeof(S)};

static DrtProgram prog(bool strandwise) {
  DrtProgram p = {.state_size = sizeof(S), .layout = &lay8, .update_chunk = s_chunk,
                  .strandwise = strandwise};
  return p;
}

static DrtWorld *world(const DrtProgram *p, G *g) {
  memset(g, 0, sizeof *g);
  DrtWorld *w = drt_world_new(p, g);
  CHECK(w && !drt_world_init(w) && !drt_world_create_begin(w));
  for (int i = 0; i < N; i++) {
    S s = {i, 0};
    memcpy(drt_world_create_strand(w), &s, sizeof s);
  }
  CHECK(!drt_world_create_end(w));
  return w;
}

static void clear_env(void) {
  unsetenv("DIDEROT_SCHED_CHUNK");
  unsetenv("DIDEROT_SCHED_STEPS");
  unsetenv("DIDEROT_SCHED_WRITER");
}

/* Run to the end; every strand stable with its own count of updates. */
static void run_all(DrtWorld *w, const char *label) {
  uint32_t steps = drt_world_run(w, 0);
  const char *err = drt_errors_text(drt_world_errors(w));
  CHECK_MSG(steps == 7 && drt_world_nstable(w) == N && drt_world_stage(w) == DRT_STAGE_DONE,
            "%s: %u steps, %u stable: %s", label, steps, drt_world_nstable(w), err ? err : "");
  CHECK(drt_world_total_steps(w) == 7);
  bool good = true;
  const S *st = drt_world_store(w);
  for (uint32_t i = 0; i < N; i++) good &= st[i].n == 1 + st[i].i % 7;
  CHECK_MSG(good, "%s: a strand ran other than its own updates", label);
}

static const char *errors_of(DrtWorld *w) {
  const char *t = drt_errors_text(drt_world_errors(w));
  return t ? t : "";
}

static void test_levels(void) {
  clear_env();
  DrtProgram p = prog(true);
  G g;
  /* the defaults: the layout's chunk, all updates in one visit */
  DrtWorld *w = world(&p, &g);
  DrtSchedule s;
  CHECK(!drt_world_schedule(w, &s));
  CHECK(s.chunk == 256 && s.steps == UINT32_MAX && s.writer == DRT_WRITER_AUTO);
  run_all(w, "defaults");
  CHECK(g.max_limit == UINT32_MAX && g.max_span == 256 && g.calls == 4); /* one visit per chunk */
  CHECK(drt_world_chunk(w) == 256);
  drt_world_free(w);
  /* the program's level */
  w = world(&p, &g);
  CHECK(!drt_world_set_program_schedule(w, &(DrtSchedule){64, 3, DRT_WRITER_OFF, DRT_OMP_DEFAULT}));
  CHECK(drt_world_chunk(w) == 64);
  CHECK(!drt_world_schedule(w, &s) && s.chunk == 64 && s.steps == 3 && s.writer == DRT_WRITER_OFF);
  run_all(w, "program 64/3");
  CHECK(g.max_limit == 3 && g.max_span == 64);
  CHECK(g.first_lo[1] == 64); /* consecutive runs of 64 strands */
  drt_world_free(w);
  /* the environment over the program's */
  setenv("DIDEROT_SCHED_CHUNK", "128", 1);
  setenv("DIDEROT_SCHED_STEPS", "all", 1);
  w = world(&p, &g);
  CHECK(!drt_world_set_program_schedule(w, &(DrtSchedule){64, 3, DRT_WRITER_AUTO, DRT_OMP_DEFAULT}));
  run_all(w, "environment 128/all");
  CHECK(g.max_limit == UINT32_MAX && g.max_span == 128 && drt_world_chunk(w) == 128);
  drt_world_free(w);
  /* the host's over the environment; 0 keeps the level below */
  w = world(&p, &g);
  CHECK(!drt_world_set_schedule(w, &(DrtSchedule){32, 0, DRT_WRITER_AUTO, DRT_OMP_DEFAULT}));
  run_all(w, "host 32");
  CHECK(g.max_span == 32 && g.max_limit == UINT32_MAX);
  drt_world_free(w);
  /* set_parallel's chunk is the host's */
  w = world(&p, &g);
  drt_world_set_parallel(w, NULL, 1, 16);
  CHECK(drt_world_chunk(w) == 16);
  run_all(w, "set_parallel 16");
  CHECK(g.max_span == 16);
  drt_world_free(w);
  /* steps 1: super-steps, one update per visit; with a step limit */
  clear_env();
  setenv("DIDEROT_SCHED_STEPS", "1", 1);
  w = world(&p, &g);
  run_all(w, "steps 1");
  CHECK(g.max_limit == 1 && g.calls == 7 * 4);
  drt_world_free(w);
  setenv("DIDEROT_SCHED_STEPS", "2", 1);
  w = world(&p, &g);
  CHECK(drt_world_run(w, 5) == 5 && drt_world_nactive(w) > 0);
  CHECK(g.max_limit == 2);
  CHECK(drt_world_run(w, 0) == 2 && drt_world_total_steps(w) == 7);
  drt_world_free(w);
  /* steps 0 and chunk 0: the defaults */
  setenv("DIDEROT_SCHED_STEPS", "0", 1);
  setenv("DIDEROT_SCHED_CHUNK", "0", 1);
  w = world(&p, &g);
  run_all(w, "zeros");
  CHECK(g.max_limit == UINT32_MAX && g.max_span == 256);
  drt_world_free(w);
  clear_env();
}

static void test_errors(void) {
  clear_env();
  DrtProgram p = prog(true);
  G g;
  /* a chunk that splits a block of the layout */
  setenv("DIDEROT_SCHED_CHUNK", "100", 1);
  DrtWorld *w = world(&p, &g);
  CHECK(drt_world_run(w, 0) == 0 && g.calls == 0);
  CHECK_MSG(strstr(errors_of(w), "schedule: chunk 100 (-schedule chunk=, -sched-chunk or DIDEROT_SCHED_CHUNK) must "
                                 "be a multiple of 8"), "%s", errors_of(w));
  CHECK(drt_world_stage(w) == DRT_STAGE_POST_CREATE);
  drt_world_free(w);
  /* bad text */
  setenv("DIDEROT_SCHED_CHUNK", "12k", 1);
  w = world(&p, &g);
  CHECK(drt_world_run(w, 0) == 0);
  CHECK_MSG(strstr(errors_of(w), "DIDEROT_SCHED_CHUNK (-sched-chunk): bad value '12k'"), "%s",
            errors_of(w));
  drt_world_free(w);
  setenv("DIDEROT_SCHED_CHUNK", "2000000000", 1);
  w = world(&p, &g);
  CHECK(drt_world_run(w, 0) == 0 && strstr(errors_of(w), "bad value '2000000000'"));
  drt_world_free(w);
  clear_env();
  setenv("DIDEROT_SCHED_WRITER", "sometimes", 1);
  w = world(&p, &g);
  CHECK(drt_world_run(w, 0) == 0 &&
        strstr(errors_of(w), "DIDEROT_SCHED_WRITER (-sched-writer): bad value 'sometimes' "
                             "(expected auto, on or off)"));
  drt_world_free(w);
  clear_env();
  /* the program's chunk is checked too, naming it */
  w = world(&p, &g);
  CHECK(!drt_world_set_program_schedule(w, &(DrtSchedule){12, 0, DRT_WRITER_AUTO, DRT_OMP_DEFAULT}));
  CHECK(drt_world_run(w, 0) == 0 && strstr(errors_of(w), "chunk 12 (the program's schedule)"));
  drt_world_free(w);
  w = world(&p, &g);
  CHECK(!drt_world_set_schedule(w, &(DrtSchedule){4, 0, DRT_WRITER_AUTO, DRT_OMP_DEFAULT}));
  CHECK(drt_world_run(w, 0) == 0 && strstr(errors_of(w), "chunk 4 (drt_world_set_schedule)"));
  drt_world_free(w);
  /* steps above 1 in a program that runs super-steps only */
  DrtProgram bsp = prog(false);
  setenv("DIDEROT_SCHED_STEPS", "4", 1);
  w = world(&bsp, &g);
  CHECK(drt_world_run(w, 0) == 0);
  CHECK_MSG(strstr(errors_of(w), "schedule: steps 4 (-schedule steps-per-visit=, -sched-steps or DIDEROT_SCHED_STEPS): this "
                                 "program runs in super-steps only"), "%s", errors_of(w));
  drt_world_free(w);
  setenv("DIDEROT_SCHED_STEPS", "1", 1);
  w = world(&bsp, &g);
  run_all(w, "bsp, steps 1");
  CHECK(g.max_limit == 1);
  drt_world_free(w);
  clear_env();
  w = world(&bsp, &g);
  run_all(w, "bsp");
  CHECK(g.max_limit == 1);
  /* fixed once the world runs */
  CHECK(drt_world_set_schedule(w, &(DrtSchedule){64, 0, DRT_WRITER_AUTO, DRT_OMP_DEFAULT}));
  CHECK(strstr(errors_of(w), "drt_world_set_schedule: the schedule is fixed once the world runs"));
  DrtSchedule s;
  CHECK(!drt_world_schedule(w, &s) && s.chunk == 256 && s.steps == 1);
  drt_world_free(w);
  /* out of range at set time */
  w = world(&p, &g);
  CHECK(drt_world_set_schedule(w, &(DrtSchedule){DRT_SCHED_MAX_CHUNK + 8u, 0, DRT_WRITER_AUTO, DRT_OMP_DEFAULT}));
  CHECK(drt_world_set_program_schedule(w, &(DrtSchedule){0, 0, (DrtSchedWriter)7, DRT_OMP_DEFAULT}));
  CHECK(!drt_world_set_schedule(w, NULL));
  drt_world_free(w);
}

static void test_writer(void) {
  clear_env();
  DrtProgram p = prog(true);
  G g;
  DrtErrors e;
  drt_errors_init(&e);
  setenv("DIDEROT_SCHED_WRITER", "off", 1);
  CHECK(drt_writer_new() == NULL); /* saved in place */
  setenv("DIDEROT_SCHED_WRITER", "on", 1);
  DrtWriter *wr = drt_writer_new(); /* even on one CPU */
  CHECK(wr != NULL);
  CHECK(!drt_writer_finish(wr, &e));
  clear_env();
  DrtWorld *w = world(&p, &g);
  CHECK(!drt_world_set_program_schedule(w, &(DrtSchedule){0, 0, DRT_WRITER_OFF, DRT_OMP_DEFAULT}));
  CHECK(drt_world_writer_new(w) == NULL);
  setenv("DIDEROT_SCHED_WRITER", "on", 1); /* the environment over the program's */
  wr = drt_world_writer_new(w);
  CHECK(wr != NULL);
  CHECK(!drt_writer_finish(wr, &e));
  drt_world_free(w);
  drt_errors_free(&e);
  clear_env();
}

/* omp-schedule at run time: the program gives its loop in each kind
 * (drt_world_set_parallel_kinds) and the run's kind picks one; counted
 * here by which of four loops ran the chunks (all run them in order). */
static int kind_calls[4];
#define KIND_FOR(k)                                                                            \
  static void for_##k(uint32_t n, void (*body)(void *, uint32_t), void *arg, uint32_t nw) {     \
    (void)nw;                                                                                  \
    kind_calls[k]++;                                                                           \
    for (uint32_t c = 0; c < n; c++) body(arg, c);                                             \
  }
KIND_FOR(0)
KIND_FOR(1)
KIND_FOR(2)
KIND_FOR(3)

static void test_omp_kind(void) {
  clear_env();
  DrtProgram p = prog(true);
  G g;
  /* no kinds given: only the program's own loop, another kind refused */
  DrtWorld *w = world(&p, &g);
  drt_world_set_parallel(w, for_0, 2, 0);
  CHECK(!drt_world_set_schedule(w, &(DrtSchedule){0, 0, DRT_WRITER_AUTO, DRT_OMP_STATIC}));
  CHECK(drt_world_run(w, 0) == 0);
  CHECK_MSG(strstr(errors_of(w), "schedule: omp-schedule static (drt_world_set_schedule): this "
                                 "program has one parallel loop schedule compiled in"),
            "%s", errors_of(w));
  drt_world_free(w);
  /* out of range */
  w = world(&p, &g);
  CHECK(drt_world_set_schedule(w, &(DrtSchedule){0, 0, DRT_WRITER_AUTO, (DrtSchedOmp)9}));
  drt_world_free(w);
  /* each kind from the environment, and the default: the program's loop */
  static const char *const names[] = {NULL, "dynamic", "static", "guided"};
  for (int k = 0; k < 4; k++) {
    memset(kind_calls, 0, sizeof kind_calls);
    if (names[k]) setenv("DIDEROT_SCHED_OMP", names[k], 1);
    else unsetenv("DIDEROT_SCHED_OMP");
    w = world(&p, &g);
    drt_world_set_parallel(w, for_0, 2, 0);
    drt_world_set_parallel_kinds(w, for_1, for_2, for_3);
    run_all(w, names[k] ? names[k] : "default kind");
    for (int j = 0; j < 4; j++)
      CHECK_MSG((kind_calls[j] > 0) == (j == k), "kind %d: loop %d ran %d times", k, j,
                kind_calls[j]);
    drt_world_free(w);
  }
  setenv("DIDEROT_SCHED_OMP", "fast", 1);
  w = world(&p, &g);
  drt_world_set_parallel(w, for_0, 2, 0);
  drt_world_set_parallel_kinds(w, for_1, for_2, for_3);
  CHECK(drt_world_run(w, 0) == 0);
  CHECK_MSG(strstr(errors_of(w), "DIDEROT_SCHED_OMP (-schedule omp-schedule=): bad value 'fast' (expected "
                                 "dynamic, static or guided)"), "%s", errors_of(w));
  drt_world_free(w);
  unsetenv("DIDEROT_SCHED_OMP");
}

int main(void) {
  test_levels();
  test_omp_kind();
  test_errors();
  test_writer();
  return unit_finish("rt_schedule");
}
