/* tune_search.c -- the candidates of the run-time space and the search
 * (tune.h; shared/docs/MDH.md §3.5).
 *
 * Coordinate descent from the default schedule: chunk, then omp-schedule,
 * then steps-per-visit; along each coordinate every value is timed with
 * the others fixed at the best so far. The machine is shared and loaded,
 * so: the values of a coordinate are run in turns (round after round, not
 * one value's runs back to back) so that a burst of load hits them alike;
 * each value's time is the minimum of its runs (noise only ever adds
 * time); a value replaces the incumbent only when faster by more than
 * NOISE; and the winner is confirmed against the default in a last
 * interleaved round, falling back to the default when it is not faster by
 * more than NOISE. Every run's outputs are compared with the default's
 * (tune_run.c); a candidate whose outputs differ is refused for good.
 *
 * full searches the same way with more chunks, more steps and more
 * repetitions, after a first coordinate of structural keys (the strand
 * layout, the SIMD mode), each a build of its own (TuneRunner.build) run
 * with the default's run-time keys. No exhaustive search yet: the space
 * is small, and the coordinates barely interact on the C targets.
 */
#include "tune/tune.h"

#include <string.h>
#include <time.h>

#define NOISE 0.03 /* 3%: what the issue counts as noise */

enum { MAX_CANDS = 128, MAX_VALUES = 16, MAX_BUILDS = 8 };

typedef struct Cand {
  TuneChoice c;
  double best; /* the minimum of its runs; < 0: none yet */
  int runs;
  bool refused;
} Cand;

/* A structural candidate's executable (NULL: its build failed). */
typedef struct Build {
  TuneChoice c;
  const char *exe;
  const char *why;
} Build;

typedef struct Search {
  TuneRunner *r;
  FILE *log;
  Cand cands[MAX_CANDS];
  int ncands;
  Build builds[MAX_BUILDS];
  int nbuilds;
  double t0, budget;
  TuneOutcome *out;
} Search;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static bool same_choice(const TuneChoice *x, const TuneChoice *y) {
  return x->chunk == y->chunk && x->has_omp == y->has_omp && (!x->has_omp || x->omp == y->omp) &&
         x->has_steps == y->has_steps && (!x->has_steps || x->steps == y->steps) &&
         tune_choice_same_build(x, y);
}

/* The executable of c's structural keys: NULL for the default build,
 * else built once (*why set and NULL returned when that failed). */
static const char *exe_of(Search *s, const TuneChoice *c, const char **why) {
  *why = NULL;
  if (!c->has_layout && !c->has_simd) return NULL;
  for (int i = 0; i < s->nbuilds; i++)
    if (tune_choice_same_build(&s->builds[i].c, c)) {
      *why = s->builds[i].why;
      return s->builds[i].exe;
    }
  char buf[512] = "";
  const char *exe = s->r->build && s->nbuilds < MAX_BUILDS
                        ? s->r->build(s->r->build_ctx, c, buf, sizeof buf)
                        : NULL;
  if (!exe && !buf[0]) snprintf(buf, sizeof buf, "no build for structural keys here");
  *why = exe ? NULL : arena_strdup(s->r->arena, buf);
  if (s->nbuilds < MAX_BUILDS) s->builds[s->nbuilds++] = (Build){*c, exe, *why};
  return exe;
}

static Cand *cand_of(Search *s, const TuneChoice *c) {
  for (int i = 0; i < s->ncands; i++)
    if (same_choice(&s->cands[i].c, c)) return &s->cands[i];
  if (s->ncands == MAX_CANDS) return NULL;
  Cand *k = &s->cands[s->ncands++];
  memset(k, 0, sizeof *k);
  k->c = *c;
  k->best = -1;
  s->out->candidates++;
  return k;
}

/* One more run of k; false when the budget is spent. */
static bool measure(Search *s, Cand *k, bool ignore_budget) {
  if (k->refused) return true;
  if (!ignore_budget && now() - s->t0 > s->budget) {
    s->out->budget_hit = true;
    return false;
  }
  Arena *a = s->r->arena;
  const char *opt = tune_choice_option_text(a, &k->c), *text = tune_choice_text(a, &k->c);
  double t = 0;
  char why[512];
  const char *built_not = NULL;
  const char *exe = exe_of(s, &k->c, &built_not);
  TuneRunStatus st = TUNE_RUN_FAILED;
  if (built_not) snprintf(why, sizeof why, "its build failed: %s", built_not);
  else st = tune_run_once(s->r, exe, opt, &t, why, sizeof why), s->out->runs++;
  if (st != TUNE_RUN_OK) {
    k->refused = true;
    s->out->refused++;
    if (!s->out->refusal) s->out->refusal = arena_printf(a, "%s: %s", text, why);
    if (s->log) fprintf(s->log, "diderotc: tune: %s refused: %s\n", text, why);
    return true;
  }
  if (k->best < 0 || t < k->best) k->best = t;
  k->runs++;
  return true;
}

/* The chunk values: multiples of the layout's block, each once. */
static int chunk_values(const TuneSpace *sp, TuneMode mode, uint32_t *v) {
  static const uint32_t quick[] = {32, 64, 128, 256, 512, 1024, 4096};
  static const uint32_t full[] = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 16384};
  const uint32_t *src = mode == TUNE_FULL ? full : quick;
  int ns = mode == TUNE_FULL ? (int)(sizeof full / sizeof *full) : (int)(sizeof quick / sizeof *quick);
  int n = 0;
  uint32_t pad = sp->pad ? sp->pad : 1;
  for (int i = 0; i < ns; i++) {
    uint32_t c = (src[i] + pad - 1) / pad * pad;
    bool dup = false;
    for (int j = 0; j < n; j++) dup |= v[j] == c;
    if (!dup) v[n++] = c;
  }
  return n;
}

/* Time every value of one coordinate around the incumbent inc (the
 * candidates in cs[0..n)); the incumbent becomes the fastest by more
 * than NOISE. False when the budget ran out (inc is still the best of
 * what was measured). */
static bool descend(Search *s, TuneChoice *inc, TuneChoice *cs, int n, int reps) {
  Cand *k[MAX_VALUES];
  int m = 0;
  for (int i = 0; i < n && m < MAX_VALUES; i++) {
    Cand *c = cand_of(s, &cs[i]);
    if (c) k[m++] = c;
  }
  bool more = true;
  for (int round = 0; round < reps && more; round++)
    for (int i = 0; i < m && more; i++)
      if (k[i]->runs <= round) more = measure(s, k[i], false);
  Cand *ci = cand_of(s, inc);
  Cand *best = ci && !ci->refused && ci->best >= 0 ? ci : NULL;
  for (int i = 0; i < m; i++) {
    if (k[i]->refused || k[i]->best < 0) continue;
    if (s->log)
      fprintf(s->log, "diderotc: tune: %s: %.6f s (the least of %d run%s)\n",
              tune_choice_text(s->r->arena, &k[i]->c), k[i]->best, k[i]->runs,
              k[i]->runs == 1 ? "" : "s");
    if (!best || k[i]->best < best->best * (1 - NOISE)) best = k[i];
  }
  if (best) *inc = best->c;
  return more;
}

void tune_space_of(const Schedule *s, TuneSpace *sp) {
  memset(sp, 0, sizeof *sp);
  sp->omp = s->target == SCHED_TARGET_OMP;
  sp->strandwise = s->run == SCHED_RUN_STRANDWISE;
  sp->pad = s->strand_layout == SCHED_AOSOA ? (uint32_t)s->aosoa_width : 1;
  sp->deflt.chunk = s->chunk;
  sp->deflt.has_omp = sp->omp;
  sp->deflt.omp = s->omp_schedule;
  sp->deflt.has_steps = sp->strandwise;
  sp->deflt.steps = s->steps;
  /* the structural keys the user left to the compiler */
  SchedSource ls = s->why[SCHED_P_STRAND_LAYOUT].source, gs = s->why[SCHED_P_SIMD].source;
  sp->layouts = ls == SCHED_DEFAULT || ls == SCHED_HEURISTIC;
  sp->groups = s->simd == SCHED_SIMD_STRANDS && (gs == SCHED_DEFAULT || gs == SCHED_HEURISTIC);
  sp->layout = s->strand_layout;
  sp->aosoa_width = s->aosoa_width;
}

/* The structural candidates around inc (the default): every other strand
 * layout (aos, soa, aosoa:8) and, where the default runs groups, vectors
 * within strands alone. */
static int structural_values(const TuneSpace *sp, const TuneChoice *inc, TuneChoice *cs) {
  int m = 0;
  cs[m++] = *inc;
  static const struct { SchedStrandLayout k; int w; } lays[] = {{SCHED_AOS, 1}, {SCHED_SOA, 1}, {SCHED_AOSOA, 8}};
  for (int i = 0; sp->layouts && i < 3; i++) {
    if (lays[i].k == sp->layout && (lays[i].k != SCHED_AOSOA || lays[i].w == sp->aosoa_width)) continue;
    cs[m] = *inc;
    cs[m].has_layout = true, cs[m].layout = lays[i].k, cs[m++].aosoa_width = lays[i].w;
  }
  if (sp->groups) {
    cs[m] = *inc;
    cs[m].has_simd = true, cs[m++].simd = SCHED_SIMD_WITHIN;
  }
  return m;
}

bool tune_search(TuneRunner *r, const TuneSpace *sp, TuneMode mode, double budget_s,
                 FILE *log, TuneOutcome *out, char *why, size_t n) {
  memset(out, 0, sizeof *out);
  Search *s = arena_alloc(r->arena, sizeof *s);
  memset(s, 0, sizeof *s);
  s->r = r;
  s->log = log;
  s->out = out;
  s->t0 = now();
  s->budget = budget_s;
  /* the reference: the default schedule, as compiled (no -schedule) */
  double t = 0;
  if (tune_run_once(r, NULL, NULL, &t, why, n) != TUNE_RUN_OK) return false;
  out->runs++;
  if (log) fprintf(log, "diderotc: tune: the default schedule: %.6f s (reference run)\n", t);
  int reps = mode == TUNE_FULL ? 5 : 3;
  /* a long run: fewer repetitions, so the search fits the budget (at least
   * two, the minimum of one run is no measure on a loaded machine) */
  bool structural = mode == TUNE_FULL && r->build && (sp->layouts || sp->groups);
  int nvals = 7 + (sp->omp ? 3 : 0) + (sp->strandwise ? 4 : 0) + (structural ? 4 : 0);
  while (reps > 2 && t * reps * nvals > budget_s) reps--;
  TuneChoice inc = sp->deflt;
  TuneChoice cs[MAX_VALUES];
  /* the structural keys first (full): the run-time ones are then tuned
   * on the build they chose */
  bool more = true;
  if (structural) more = descend(s, &inc, cs, structural_values(sp, &inc, cs), reps);
  /* chunk */
  uint32_t cv[MAX_VALUES];
  int nc = chunk_values(sp, mode, cv);
  int m = 0;
  cs[m++] = inc;
  for (int i = 0; i < nc; i++)
    if (cv[i] != inc.chunk) cs[m] = inc, cs[m++].chunk = cv[i];
  if (more) more = descend(s, &inc, cs, m, reps);
  /* omp-schedule */
  if (more && sp->omp) {
    m = 0;
    cs[m++] = inc;
    for (int k = SCHED_OMP_DYNAMIC; k <= SCHED_OMP_GUIDED; k++)
      if ((SchedOmpSchedule)k != inc.omp) cs[m] = inc, cs[m++].omp = (SchedOmpSchedule)k;
    more = descend(s, &inc, cs, m, reps);
  }
  /* steps-per-visit (strand-wise programs only) */
  if (more && sp->strandwise) {
    static const uint32_t quick[] = {SCHED_STEPS_ALL, 1, 8, 64};
    static const uint32_t full[] = {SCHED_STEPS_ALL, 1, 2, 4, 8, 16, 64, 256};
    const uint32_t *sv = mode == TUNE_FULL ? full : quick;
    int ns = mode == TUNE_FULL ? 8 : 4;
    m = 0;
    cs[m++] = inc;
    for (int i = 0; i < ns; i++)
      if (sv[i] != inc.steps) cs[m] = inc, cs[m++].steps = sv[i];
    (void)descend(s, &inc, cs, m, reps);
  }
  /* confirm the winner against the default, interleaved */
  Cand *d = cand_of(s, &sp->deflt), *b = cand_of(s, &inc);
  if (d && b && d != b) {
    for (int i = 0; i < reps; i++) {
      measure(s, d, true);
      measure(s, b, true);
    }
    if (b->refused || d->best < 0 || b->best >= d->best * (1 - NOISE)) {
      if (log)
        fprintf(log, "diderotc: tune: %s is not faster than the default by more than %.0f%%: "
                "the default kept\n", tune_choice_text(r->arena, &inc), 100 * NOISE);
      inc = sp->deflt;
    }
  }
  out->best = inc;
  out->t_default = d && d->best >= 0 ? d->best : t;
  Cand *w = cand_of(s, &inc);
  out->t_best = w && w->best >= 0 ? w->best : out->t_default;
  out->seconds = now() - s->t0;
  return true;
}
