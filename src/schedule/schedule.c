/* schedule.c -- filling the schedule record from flags and from today's
 * defaults and heuristics, the constraints, and what the back end reads
 * back (schedule.h). The file format and the printer are in
 * schedule_file.c.
 *
 * Every default and heuristic below mirrors a rule of today's back end or
 * runtime exactly (the comment before each cites it): the default schedule
 * must give byte-identical generated code, so these are copies of those
 * rules over SchedFacts, not improvements of them.
 */
#include "schedule/schedule.h"

#include "layout/layout.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages ------------------------------------------------------------------ */

void schedule_diag_init(SchedDiag *d, Arena *a) {
  memset(d, 0, sizeof *d);
  d->arena = a;
}

static char *vformat(Arena *a, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  char *s = arena_alloc(a, n > 0 ? (size_t)n + 1 : 1);
  if (n > 0) vsnprintf(s, (size_t)n + 1, fmt, ap);
  return s;
}

static void diag_add(SchedDiag *d, const char *file, int line, int col, int len,
                     const char *line_text, char *text) {
  SchedMsg *m = ARENA_NEW(d->arena, SchedMsg);
  m->file = file;
  m->line = line;
  m->col = col;
  m->len = len > 0 ? len : 1;
  m->line_text = line_text;
  m->text = text;
  if (d->tail) d->tail->next = m;
  else d->head = m;
  d->tail = m;
  d->nerrors++;
}

void schedule_error_at(SchedDiag *d, const char *file, int line, int col, int len,
                       const char *line_text, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *text = vformat(d->arena, fmt, ap);
  va_end(ap);
  diag_add(d, file, line, col, len, line_text, text);
}

void schedule_error(SchedDiag *d, const SchedWhy *at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *text = vformat(d->arena, fmt, ap);
  va_end(ap);
  /* a value from a file points at itself; flags and defaults have no place */
  bool here = at && at->source == SCHED_FILE && at->file;
  int len = 1;
  if (here && at->line_text && at->col > 0) {
    const char *v = at->line_text + at->col - 1;
    len = (int)strcspn(v, " \t#\r");
  }
  diag_add(d, here ? at->file : NULL, here ? at->line : 0, here ? at->col : 0, len,
           here ? at->line_text : NULL, text);
}

int schedule_diag_print(const SchedDiag *d, FILE *f) {
  int n = 0;
  for (const SchedMsg *m = d->head; m; m = m->next, n++) {
    if (!m->file) {
      fprintf(f, "diderotc: error: %s\n", m->text);
      continue;
    }
    fprintf(f, "%s:%d:%d: error: %s\n", m->file, m->line, m->col, m->text);
    if (!m->line_text) continue;
    /* the line, and a caret under the value (tabs copied so it lines up) */
    size_t ll = strcspn(m->line_text, "\r\n");
    fprintf(f, "  %.*s\n  ", (int)ll, m->line_text);
    for (int c = 1; c < m->col && (size_t)(c - 1) < ll; c++)
      fputc(m->line_text[c - 1] == '\t' ? '\t' : ' ', f);
    fputc('^', f);
    for (int k = 1; k < m->len; k++) fputc('~', f);
    fputc('\n', f);
  }
  return n;
}

/* ---- the record ----------------------------------------------------------------- */

void schedule_init(Schedule *s) {
  memset(s, 0, sizeof *s);
  s->aosoa_width = 1;
}

void schedule_set(Schedule *s, SchedParam p, SchedSource src, const char *reason) {
  SchedWhy *w = &s->why[p];
  memset(w, 0, sizeof *w);
  w->source = src;
  w->reason = reason;
}

static bool is_set(const Schedule *s, SchedParam p) { return s->why[p].source != SCHED_UNSET; }

static bool is_pow2(long x) { return x > 0 && (x & (x - 1)) == 0; }

/* --strand-layout and the strand-layout key: aos, soa, aosoa:W (W a power
 * of two, 2..1024). */
bool schedule_parse_strand_layout(const char *text, SchedStrandLayout *kind, int *width) {
  if (!text) return false;
  *width = 1;
  if (!strcmp(text, "aos")) {
    *kind = SCHED_AOS;
    return true;
  }
  if (!strcmp(text, "soa")) {
    *kind = SCHED_SOA;
    return true;
  }
  if (!strncmp(text, "aosoa:", 6) && lyt_parse_pow2(text + 6, 2, 1024, width)) {
    *kind = SCHED_AOSOA;
    return true;
  }
  *width = 1;
  return false;
}

/* --image-layout and the image-layout key: the layout module's parser. */
bool schedule_parse_image_layout(const char *text, int *brick, bool *halo) {
  return text && lyt_parse_image_layout(text, brick, halo);
}

/* ---- flags ---------------------------------------------------------------------- */

bool schedule_apply_flags(Arena *a, const SchedFlags *fl, Schedule *s, SchedDiag *d) {
  bool ok = true;
  /* the messages of src/driver/main.c driver_check_options, word for word */
  if (fl->strand_layout) {
    SchedStrandLayout k;
    int w;
    if (!schedule_parse_strand_layout(fl->strand_layout, &k, &w)) {
      schedule_error(d, NULL, "bad --strand-layout '%s' (expected aos, soa or aosoa:N with N a "
                     "power of two from 2 to 1024)", fl->strand_layout);
      ok = false;
    } else {
      s->strand_layout = k;
      s->aosoa_width = w;
      schedule_set(s, SCHED_P_STRAND_LAYOUT, SCHED_FLAG,
                   arena_printf(a, "--strand-layout=%s", fl->strand_layout));
    }
  }
  if (fl->image_layout) {
    int b;
    bool h;
    if (!schedule_parse_image_layout(fl->image_layout, &b, &h)) {
      schedule_error(d, NULL, "bad --image-layout '%s' (expected linear, brick:N or halo:N with N "
                     "a power of two from 2 to 64)", fl->image_layout);
      ok = false;
    } else {
      s->image_brick = b;
      s->image_halo = h;
      schedule_set(s, SCHED_P_IMAGE_LAYOUT, SCHED_FLAG,
                   arena_printf(a, "--image-layout=%s", fl->image_layout));
    }
  }
  /* --simd: what is asked (resolved by schedule_defaults); --scalar wins
   * for the vectors, as in driver_codegen (.scalar = o->scalar) */
  if (fl->simd_strands || fl->simd_within) {
    s->simd_ask = fl->simd_strands ? SCHED_ASK_STRANDS : SCHED_ASK_WITHIN;
    s->scalar_asked = false;
    schedule_set(s, SCHED_P_SIMD, SCHED_FLAG, fl->simd_strands ? "--simd=strands" : "--simd=within");
  }
  if (fl->scalar) {
    s->scalar_asked = true;
    schedule_set(s, SCHED_P_SIMD, SCHED_FLAG,
                 fl->simd_strands ? "--scalar with --simd=strands: no vector code but the "
                                    "update's groups (printed with vector types, as before)"
                                  : "--scalar (or --simd=off): no vector extensions");
    /* .loop_lanes = !o->scalar && ... */
    s->loop_lanes = false;
    schedule_set(s, SCHED_P_LOOP_LANES, SCHED_FLAG, "--scalar: lanes need vector code");
  } else if (fl->no_loop_lanes) {
    s->loop_lanes = false;
    schedule_set(s, SCHED_P_LOOP_LANES, SCHED_FLAG, "--no-loop-lanes");
  }
  if (fl->force_bsp) {
    s->run = SCHED_RUN_BSP;
    schedule_set(s, SCHED_P_RUN, SCHED_FLAG, "--force-bsp");
    /* a file's steps-per-visit > 1 would now break a rule: the flag says
     * super-steps, so one update per visit */
    s->steps = 1;
    schedule_set(s, SCHED_P_STEPS, SCHED_FLAG, "--force-bsp: one update per super-step");
  }
  return ok;
}

/* ---- defaults and heuristics ---------------------------------------------------- */

/* program/emit_c_step.c emit_step_strandwise without --force-bsp: NULL when the
 * program may run strand by strand, else why not. */
static const char *strandwise_refusal(const SchedFacts *f) {
  if (f->target == SCHED_TARGET_CUDA) return "the CUDA target runs super-steps (rt/cuda/dc_run.h)";
  if (!f->has_update) return "the strand has no update method";
  if (f->global_update) return "a global update block runs between super-steps";
  /* (only a global update changes globals: implied by the rule above) */
  if (f->reads_changing_globals) return "strands read globals that change between super-steps";
  if (f->shared_state) return "strands read other strands' state";
  if (f->strand_new) return "strand code creates strands (new)";
  if (f->strand_sphere) return "strand code queries sphere()";
  if (f->strand_counts) return "strand code asks for strand counts (numStrands, numActive, numStable)";
  if (f->strand_print) return "strand code prints (its output is ordered by super-step)";
  if (f->strand_dseq) return "strand code builds dynamic sequences (collected between super-steps)";
  return NULL;
}

/* lanes/emit_c_simd.c plan_pays: groups pay where the update reads image
 * samples and can run again, and queries no sphere(). NULL when they pay. */
static const char *groups_refusal(const SchedFacts *f) {
  if (!f->update_probes) return "the update reads no image";
  if (!f->update_again) return "the update never runs twice";
  if (f->update_sphere) return "the update queries sphere()";
  return NULL;
}

/* Across-strand groups are possible at all: lanes/emit_c_simd.c
 * emit_simd_used's conditions, core/emit_c.c emit_step_chunked (a C
 * target, an update) and plan_of. NULL when they are. */
static const char *groups_impossible(const SchedFacts *f) {
  if (f->target == SCHED_TARGET_CUDA) return "the CUDA target runs the update in its kernel";
  if (!f->has_update) return "the strand has no update method";
  if (!f->update_groupable)
    return f->groups_why && *f->groups_why ? f->groups_why : "the update cannot be if-converted";
  return NULL;
}

uint32_t schedule_default_chunk(int aosoa_width) {
  /* core/emit_c_layout.c emit_layout_init: chunks are whole AoSoA blocks (256
   * is a multiple of every W <= 256); rt_world.c DRT_DEFAULT_CHUNK = 256 */
  return aosoa_width > 256 ? (uint32_t)aosoa_width : 256u;
}

/* lanes/emit_c_lanes.c lane_types_once: D_SIMD_W is the C compiler's vector
 * width in reals (AVX-512: 16 floats or 8 doubles, AVX: 8 or 4, else 4 or
 * 2), at most the AoSoA width so that a group's state words are
 * consecutive. vec_bytes stands for the build machine (0: 32, AVX). */
static int auto_width(const SchedFacts *f, const Schedule *s) {
  int vb = f->vec_bytes > 0 ? f->vec_bytes : 32;
  if (vb > 64) vb = 64;
  if (vb < 16) vb = 16;
  int w = vb / (f->double_real ? 8 : 4);
  if (s->strand_layout == SCHED_AOSOA && s->aosoa_width < w) w = s->aosoa_width;
  return w;
}

void schedule_defaults(Arena *a, const SchedFacts *f, Schedule *s) {
  s->target = f->target;
  s->exec = f->exec;
  s->snapshot = f->snapshot;
  bool cuda = f->target == SCHED_TARGET_CUDA;
  if (!is_set(s, SCHED_P_STRAND_LAYOUT)) {
    /* src/driver/main.c driver_codegen: "SoA by default on the GPU: a
     * warp's loads of one state word coalesce", AoS elsewhere */
    s->strand_layout = cuda ? SCHED_SOA : SCHED_AOS;
    s->aosoa_width = 1;
    schedule_set(s, SCHED_P_STRAND_LAYOUT, SCHED_DEFAULT,
                 cuda ? "on the GPU, a warp's loads of one state word coalesce"
                      : "on the CPU, a strand's state words together");
  }
  if (!is_set(s, SCHED_P_IMAGE_LAYOUT)) {
    /* driver_codegen/driver_low: brick 0 unless --image-layout */
    s->image_brick = 0;
    s->image_halo = false;
    schedule_set(s, SCHED_P_IMAGE_LAYOUT, SCHED_DEFAULT, "NRRD order");
  }
  /* simd: the vectors (--scalar), then the groups */
  bool groups_ok = groups_impossible(f) == NULL;
  if (s->scalar_asked) {
    s->simd = SCHED_SIMD_OFF;
  } else if (s->simd_ask == SCHED_ASK_WITHIN) {
    s->simd = SCHED_SIMD_WITHIN;
  } else if (s->simd_ask == SCHED_ASK_STRANDS) {
    /* emit_simd_used with simd_strands: groups wherever they are possible.
     * The flag keeps today's silent fallback; a file's simd = strands is
     * refused by schedule_check instead */
    if (groups_ok || s->why[SCHED_P_SIMD].source == SCHED_FILE) {
      s->simd = SCHED_SIMD_STRANDS;
    } else {
      s->simd = SCHED_SIMD_WITHIN;
      s->why[SCHED_P_SIMD].reason =
          arena_printf(a, "%s, but the update stays scalar: %s", s->why[SCHED_P_SIMD].reason,
                       groups_impossible(f));
    }
  } else {
    /* --simd=auto (emit_simd_used with simd_auto, plan_pays) */
    const char *no = groups_impossible(f);
    if (!no) no = groups_refusal(f);
    s->simd = no ? SCHED_SIMD_WITHIN : SCHED_SIMD_STRANDS;
    schedule_set(s, SCHED_P_SIMD, SCHED_HEURISTIC,
                 no ? arena_printf(a, "no across-strand groups: %s", no)
                    : "the update probes images, runs again and queries no sphere(): "
                      "groups pay");
  }
  s->simd_width_auto = auto_width(f, s);
  if (!is_set(s, SCHED_P_SIMD_WIDTH)) {
    s->simd_width = 0;
    schedule_set(s, SCHED_P_SIMD_WIDTH, SCHED_DEFAULT,
                 arena_printf(a, "D_SIMD_W: the C compiler's vector width in reals (16, 8 or 4 "
                              "floats for AVX-512, AVX, other)%s; %d for %d-byte vectors",
                              s->strand_layout == SCHED_AOSOA ? ", at most the AoSoA width" : "",
                              s->simd_width_auto, f->vec_bytes > 0 ? f->vec_bytes : 32));
  }
  if (!is_set(s, SCHED_P_LOOP_LANES)) {
    /* driver_codegen: .loop_lanes = !o->scalar && !no-loop-lanes; a file's
     * simd = off is --scalar */
    s->loop_lanes = s->simd != SCHED_SIMD_OFF;
    schedule_set(s, SCHED_P_LOOP_LANES, s->loop_lanes ? SCHED_HEURISTIC : SCHED_DEFAULT,
                 !s->loop_lanes ? "no vector code"
                 : cuda         ? "no effect on the CUDA target (device code has no loops in lanes)"
                 : f->loops_paying
                     ? arena_printf(a, "%d loop%s over sequences pay%s for lanes (lanes/emit_c_loops.c)",
                                    f->loops_paying, f->loops_paying == 1 ? "" : "s",
                                    f->loops_paying == 1 ? "s" : "")
                     : "no loop over a sequence pays for lanes");
  }
  if (!is_set(s, SCHED_P_RUN)) {
    const char *no = strandwise_refusal(f);
    s->run = no ? SCHED_RUN_BSP : SCHED_RUN_STRANDWISE;
    schedule_set(s, SCHED_P_RUN, SCHED_HEURISTIC,
                 no ? arena_printf(a, "super-steps: %s", no)
                    : "no strand can tell: each strand runs its updates on its own");
  }
  if (!is_set(s, SCHED_P_STEPS)) {
    /* rt_world.c drt_world_run: a strand-wise pass runs up to the step
     * limit (UINT32_MAX without one); super-steps run one update */
    s->steps = s->run == SCHED_RUN_STRANDWISE ? SCHED_STEPS_ALL : 1;
    schedule_set(s, SCHED_P_STEPS, SCHED_DEFAULT,
                 s->run == SCHED_RUN_STRANDWISE ? "a strand runs until it stops (or the step limit)"
                                                : "one update per super-step");
  }
  if (!is_set(s, SCHED_P_CHUNK)) {
    s->chunk = schedule_default_chunk(s->strand_layout == SCHED_AOSOA ? s->aosoa_width : 1);
    schedule_set(s, SCHED_P_CHUNK, SCHED_DEFAULT,
                 s->chunk == 256 ? "256 strands, a whole number of AoSoA blocks"
                                 : "one AoSoA block (wider than 256 strands)");
  }
  if (!is_set(s, SCHED_P_OMP_SCHEDULE)) {
    /* program/emit_c_program.c d_pfor: #pragma omp parallel for schedule(dynamic, 1) */
    s->omp_schedule = SCHED_OMP_DYNAMIC;
    schedule_set(s, SCHED_P_OMP_SCHEDULE, SCHED_DEFAULT,
                 "chunks handed out one at a time: strands do unequal work");
  }
  if (!is_set(s, SCHED_P_OMP_WAIT)) {
    /* core/emit_c.c: an OpenMP executable's constructor calls rt_omp.c
     * drt_omp_default_wait_policy */
    s->omp_wait = SCHED_WAIT_PASSIVE;
    schedule_set(s, SCHED_P_OMP_WAIT, SCHED_DEFAULT,
                 "idle threads sleep at the super-step barrier (unless OMP_WAIT_POLICY is set)");
  }
  if (!is_set(s, SCHED_P_WRITER)) {
    /* rt_writer.c drt_writer_new: a writer thread only with two CPUs */
    s->writer = SCHED_WRITER_AUTO;
    schedule_set(s, SCHED_P_WRITER, SCHED_DEFAULT, "a writer thread when the process has >= 2 CPUs");
  }
  if (!is_set(s, SCHED_P_CUDA_BLOCK)) {
    /* cuda/emit_cuda.h CUDA_BLOCK */
    s->cuda_block = SCHED_CUDA_BLOCK_DEFAULT;
    schedule_set(s, SCHED_P_CUDA_BLOCK, SCHED_DEFAULT, "threads per block of the step kernel");
  }
  if (!is_set(s, SCHED_P_COMPACTION)) {
    /* rt/cuda/dc_run.h dc_step: the worklist is compacted after every step */
    s->compaction = SCHED_COMPACT_ALWAYS;
    schedule_set(s, SCHED_P_COMPACTION, SCHED_DEFAULT,
                 "the worklist of active strands after every super-step");
  }
  if (!is_set(s, SCHED_P_MPI_PLACEMENT)) {
    /* rt/rt_mpi.c owner(); bench/mpi measures both */
    s->mpi_placement = SCHED_MPI_CYCLIC;
    schedule_set(s, SCHED_P_MPI_PLACEMENT, SCHED_DEFAULT,
                 "chunks dealt to the ranks in turn: ranks whose strands finish early share the rest");
  }
  if (!is_set(s, SCHED_P_MPI_REBALANCE)) {
    /* rt/rt_mpi.c mpi_rebalance; bench/mpi measures it */
    s->mpi_rebalance = SCHED_MPI_REBALANCE_DEFAULT;
    schedule_set(s, SCHED_P_MPI_REBALANCE, SCHED_DEFAULT,
                 "chunks with active strands dealt again when a rank holds 1.25x the mean of them");
  }
}

/* ---- applicability -------------------------------------------------------------- */

bool schedule_applies(SchedTarget t, bool exec, bool snapshot, SchedParam p) {
  switch (p) {
  case SCHED_P_OMP_SCHEDULE: return t == SCHED_TARGET_OMP || t == SCHED_TARGET_MPI;
  /* libraries never change the wait policy: their host process decides */
  case SCHED_P_OMP_WAIT: return (t == SCHED_TARGET_OMP || t == SCHED_TARGET_MPI) && exec;
  case SCHED_P_MPI_PLACEMENT:
  case SCHED_P_MPI_REBALANCE: return t == SCHED_TARGET_MPI;
  case SCHED_P_WRITER: return exec && snapshot;
  case SCHED_P_CUDA_BLOCK:
  case SCHED_P_COMPACTION: return t == SCHED_TARGET_CUDA;
  default: return true;
  }
}

static const char *target_name(SchedTarget t) {
  return t == SCHED_TARGET_OMP    ? "omp"
         : t == SCHED_TARGET_CUDA ? "cuda"
         : t == SCHED_TARGET_MPI  ? "mpi"
                                  : "seq";
}

/* ---- constraints ---------------------------------------------------------------- */

/* Why the chunk size changes what a program computes (rt/diderot_world.h:
 * per-chunk bookkeeping merged in chunk order), or NULL. */
static const char *chunk_sensitive(const SchedFacts *f) {
  if (f->real_reductions)
    return "a real sum, product or mean over strands is added in chunk order";
  if (f->new_in_start && f->new_in_update)
    return "strands created by `new` in start and in update are ordered by chunk";
  return NULL;
}

bool schedule_check(Arena *a, const SchedFacts *f, const Schedule *s, bool deterministic,
                    SchedDiag *d) {
  (void)a;
  int before = d->nerrors;
  const SchedWhy *w = s->why;
  bool cuda = f->target == SCHED_TARGET_CUDA;
  /* keys of another target, or of executables with snapshots */
  for (int p = 0; p < SCHED_NPARAMS; p++)
    if (w[p].source == SCHED_FILE && !schedule_applies(f->target, f->exec, f->snapshot, p)) {
      const char *need = p == SCHED_P_OMP_SCHEDULE    ? "--target=omp"
                         : p == SCHED_P_OMP_WAIT      ? "an executable (--exec) of --target=omp"
                         : p == SCHED_P_WRITER        ? "an executable (--exec) with --snapshot"
                         : p == SCHED_P_MPI_PLACEMENT || p == SCHED_P_MPI_REBALANCE ? "--target=mpi"
                                                      : "--target=cuda";
      schedule_error(d, &w[p], "%s: applies only to %s (this is --target=%s, %s%s)", schedule_key(p), need,
                     target_name(f->target), f->exec ? "an executable" : "a library",
                     f->snapshot ? " with snapshots" : "");
    }
  /* strand layout: the parser's rule, for records filled by hand */
  if (s->strand_layout == SCHED_AOSOA && (!is_pow2(s->aosoa_width) || s->aosoa_width < 2 ||
                                          s->aosoa_width > 1024))
    schedule_error(d, &w[SCHED_P_STRAND_LAYOUT],
                   "strand-layout: the AoSoA width %d must be a power of two from 2 to 1024",
                   s->aosoa_width);
  if (s->image_brick && (!is_pow2(s->image_brick) || s->image_brick < 2 || s->image_brick > 64))
    schedule_error(d, &w[SCHED_P_IMAGE_LAYOUT],
                   "image-layout: the brick edge %d must be a power of two from 2 to 64",
                   s->image_brick);
  /* simd = strands from a file: where the back end can print groups (a
   * flag falls back to the scalar update, as before). No layout rule: a
   * group gathers its strands' words from any layout (d_gather,
   * lanes/emit_c_simd.c), AoS included, as the default schedule does */
  if (s->simd == SCHED_SIMD_STRANDS && w[SCHED_P_SIMD].source == SCHED_FILE && groups_impossible(f))
    schedule_error(d, &w[SCHED_P_SIMD], "simd = strands: the update cannot run in across-strand "
                   "groups: %s", groups_impossible(f));
  /* simd-width: lanes of reals in one vector register at most (64 bytes),
   * and within an AoSoA block. The AoSoA width need not be a multiple of
   * the automatic width: lane_types_once clips D_SIMD_W to it */
  if (s->simd_width) {
    int rb = f->double_real ? 8 : 4;
    if (!is_pow2(s->simd_width) || s->simd_width < 2 || s->simd_width * rb > 64)
      schedule_error(d, &w[SCHED_P_SIMD_WIDTH],
                     "simd-width = %d: must be a power of two from 2 to %d (%s lanes of 64 bytes)",
                     s->simd_width, 64 / rb, f->double_real ? "double" : "float");
    else if (s->strand_layout == SCHED_AOSOA && s->simd_width > s->aosoa_width)
      schedule_error(d, &w[SCHED_P_SIMD_WIDTH],
                     "simd-width = %d: exceeds the AoSoA width %d (a group's state words must be "
                     "in one block)", s->simd_width, s->aosoa_width);
    if (s->simd == SCHED_SIMD_OFF)
      schedule_error(d, &w[SCHED_P_SIMD_WIDTH], "simd-width = %d: needs vector code (simd is off)",
                     s->simd_width);
  }
  /* loop lanes are vector code (lanes/emit_c_loops.c plan_of: !scalar) */
  if (s->loop_lanes && s->simd == SCHED_SIMD_OFF)
    schedule_error(d, &w[SCHED_P_LOOP_LANES], "loop-lanes = on: needs vector code (simd = off%s)",
                   w[SCHED_P_SIMD].source == SCHED_FLAG ? ", from --scalar" : "");
  /* strand-wise runs only where no strand can tell (emit_step_strandwise) */
  const char *no_sw = strandwise_refusal(f);
  if (s->run == SCHED_RUN_STRANDWISE && no_sw)
    schedule_error(d, &w[SCHED_P_RUN], "run = strandwise: strands must not interact: %s", no_sw);
  /* K > 1: updates of one strand back to back (MDH.md §3.4): strand-wise
   * runs only, so none of the interactions above; the CUDA loop launches
   * one super-step at a time */
  if (s->steps != 1) {
    char k[16];
    if (s->steps == SCHED_STEPS_ALL) snprintf(k, sizeof k, "all");
    else snprintf(k, sizeof k, "%u", (unsigned)s->steps);
    if (cuda)
      schedule_error(d, &w[SCHED_P_STEPS], "steps-per-visit = %s: the CUDA target launches one "
                     "super-step at a time (only 1)", k);
    else if (s->run != SCHED_RUN_STRANDWISE)
      schedule_error(d, &w[SCHED_P_STEPS], "steps-per-visit = %s: needs run = strandwise (%s)", k,
                     no_sw ? no_sw : "super-steps run one update per strand");
  }
  /* chunk: > 0, whole AoSoA blocks (DrtStateLayout: "a multiple of pad") */
  uint32_t pad = s->strand_layout == SCHED_AOSOA ? (uint32_t)s->aosoa_width : 1;
  if (s->chunk == 0 || s->chunk > SCHED_CHUNK_MAX)
    schedule_error(d, &w[SCHED_P_CHUNK], "chunk = %u: must be from 1 to %u strands",
                   (unsigned)s->chunk, (unsigned)SCHED_CHUNK_MAX);
  else if (s->chunk % pad)
    schedule_error(d, &w[SCHED_P_CHUNK], "chunk = %u: must be a multiple of the AoSoA width %u "
                   "(a chunk is whole blocks)", (unsigned)s->chunk, (unsigned)pad);
  else if (deterministic && s->chunk != schedule_default_chunk((int)pad) && chunk_sensitive(f))
    schedule_error(d, &w[SCHED_P_CHUNK], "chunk = %u: changes this program's results (%s); "
                   "deterministic schedules keep %u", (unsigned)s->chunk, chunk_sensitive(f),
                   (unsigned)schedule_default_chunk((int)pad));
  /* the CUDA block: whole warps, at most the hardware's 1024 threads */
  if (schedule_applies(f->target, f->exec, f->snapshot, SCHED_P_CUDA_BLOCK) &&
      (s->cuda_block < 32 || s->cuda_block > 1024 || s->cuda_block % 32))
    schedule_error(d, &w[SCHED_P_CUDA_BLOCK],
                   "cuda-block = %d: must be a multiple of 32 (a warp) from 32 to 1024",
                   s->cuda_block);
  return d->nerrors == before;
}

bool schedule_build(Arena *a, const SchedFacts *f, const char *file, const SchedFlags *fl,
                    Schedule *s, SchedDiag *d) {
  schedule_init(s);
  if (file && !schedule_read_file(a, file, s, d)) return false;
  if (fl && !schedule_apply_flags(a, fl, s, d)) return false;
  schedule_defaults(a, f, s);
  return schedule_check(a, f, s, fl && fl->deterministic, d);
}

/* ---- what the back end reads back ----------------------------------------------- */

void schedule_emit_bits(const Schedule *s, SchedEmitBits *out) {
  /* driver_codegen: .scalar = o->scalar, .simd_strands = o->simd_strands,
   * .simd_auto = !simd_strands && !simd_within && !scalar */
  out->scalar = s->scalar_asked || s->simd == SCHED_SIMD_OFF;
  out->simd_strands = s->simd_ask == SCHED_ASK_STRANDS;
  out->simd_auto = s->simd_ask == SCHED_ASK_AUTO && !out->scalar;
  out->loop_lanes = s->loop_lanes;
  /* force_bsp only matters where strand-wise runs were possible
   * (emit_step_strandwise), so super-steps by any reason give the same */
  out->force_bsp = s->run == SCHED_RUN_BSP;
  out->strand_layout = (int)s->strand_layout;
  out->aosoa_width = s->strand_layout == SCHED_AOSOA ? s->aosoa_width : 1;
  out->image_brick = s->image_brick;
  out->image_halo = s->image_brick && s->image_halo;
}

const char *schedule_runtime_c(Arena *a, const Schedule *s) {
  int pad = s->strand_layout == SCHED_AOSOA ? s->aosoa_width : 1;
  /* 0 everywhere is the runtime's default: the layout's chunk, the
   * program's own steps (all when strand-wise), the writer by CPU count */
  uint32_t chunk = s->chunk == schedule_default_chunk(pad) ? 0 : s->chunk;
  uint32_t steps = s->run == SCHED_RUN_STRANDWISE && s->steps != SCHED_STEPS_ALL ? s->steps : 0;
  if (!chunk && !steps && s->writer == SCHED_WRITER_AUTO) return NULL;
  static const char *const wn[] = {"DRT_WRITER_AUTO", "DRT_WRITER_ON", "DRT_WRITER_OFF"};
  return arena_printf(a, "{.chunk = %u, .steps = %u, .writer = %s}", (unsigned)chunk,
                      (unsigned)steps, wn[s->writer]);
}
