/* driver_schedule.c -- the schedule record of one compilation
 * (src/schedule/schedule.h), filled in the order the user guide gives:
 * the --schedule file, then the flags over it (before the middle end: the
 * image layout is the lowering's), then the defaults and heuristics over
 * what the back end's analyses find in the LowIR program, then the
 * constraints. The back end prints what the record says (EmitOptions,
 * filled here from it). */
#include "driver/driver_schedule.h"

#include <stdio.h>

bool driver_schedule_begin(Arena *a, const DriverOptions *o, bool force_bsp, bool no_loop_lanes,
                           Schedule *s, int *status) {
  SchedDiag d;
  schedule_diag_init(&d, a);
  schedule_init(s);
  if (o->schedule && !schedule_read_file(a, o->schedule, s, &d)) {
    schedule_diag_print(&d, stderr);
    *status = 1; /* a bad input file, like a bad program */
    return false;
  }
  SchedFlags fl = {.strand_layout = o->strand_layout,
                   .image_layout = o->image_layout,
                   .scalar = o->scalar,
                   .simd_strands = o->simd_strands,
                   .simd_within = o->simd_within,
                   .no_loop_lanes = no_loop_lanes,
                   .force_bsp = force_bsp,
                   .deterministic = o->deterministic};
  if (!schedule_apply_flags(a, &fl, s, &d)) {
    schedule_diag_print(&d, stderr);
    *status = 2; /* a malformed flag: a usage error */
    return false;
  }
  return true;
}

/* The EmitOptions fields a schedule decides. */
static void emit_from_schedule(const Schedule *s, EmitOptions *eo) {
  SchedEmitBits b;
  schedule_emit_bits(s, &b);
  eo->scalar = b.scalar;
  eo->simd_auto = b.simd_auto;
  eo->simd_strands = b.simd_strands;
  eo->loop_lanes = b.loop_lanes;
  eo->force_bsp = b.force_bsp;
  eo->strand_layout = b.strand_layout;
  eo->aosoa_width = b.aosoa_width;
  eo->image_brick = b.image_brick;
}

/* The facts of `low` under the schedule s will have (eo: the compilation's
 * options; its schedule fields are overwritten). */
static void facts_of(Arena *a, IrModule *low, const Schedule *s, EmitOptions *eo, SchedFacts *f) {
  /* the facts are found under the layouts the schedule will have: those
   * defaults depend on the target alone, so a first pass over a copy with
   * no other facts gives them */
  *f = (SchedFacts){.target = eo->mpi                          ? SCHED_TARGET_MPI
                              : eo->target == EMIT_TARGET_OMP  ? SCHED_TARGET_OMP
                              : eo->target == EMIT_TARGET_CUDA ? SCHED_TARGET_CUDA
                                                               : SCHED_TARGET_SEQ,
                    .exec = eo->exec,
                    .snapshot = eo->snapshot,
                    .double_real = eo->double_real,
                    .long_int = eo->long_int,
                    .vec_bytes = eo->vec_bytes};
  Schedule first = *s;
  schedule_defaults(a, f, &first);
  emit_from_schedule(&first, eo);
  target_schedule_facts(a, low, eo, f);
}

bool driver_schedule_finish(Arena *a, IrModule *low, const DriverOptions *o, Schedule *s,
                            EmitOptions *eo, int *status) {
  SchedFacts f;
  facts_of(a, low, s, eo, &f);
  schedule_defaults(a, &f, s);
  SchedDiag d;
  schedule_diag_init(&d, a);
  if (!schedule_check(a, &f, s, o->deterministic, &d)) {
    schedule_diag_print(&d, stderr);
    *status = 1;
    return false;
  }
  emit_from_schedule(s, eo);
  eo->schedule = s;
  eo->schedule_runtime = schedule_runtime_c(a, s);
  return true;
}

bool driver_schedule_overlay(Arena *a, IrModule *low, const DriverOptions *o, Schedule *s,
                             EmitOptions *eo, const TuneChoice *c, SchedSource src,
                             const char *reason, const char **why) {
  Schedule *t = arena_alloc(a, sizeof *t);
  *t = *s;
  tune_apply(c, src, reason, t);
  /* the run-time keys change no fact: the same facts as the finish's */
  SchedFacts f;
  EmitOptions e2 = *eo;
  facts_of(a, low, t, &e2, &f);
  SchedDiag d;
  schedule_diag_init(&d, a);
  if (!schedule_check(a, &f, t, o->deterministic, &d)) {
    *why = d.head ? d.head->text : "refused by the schedule's rules";
    return false;
  }
  *s = *t;
  emit_from_schedule(s, eo);
  eo->schedule = s;
  eo->schedule_runtime = schedule_runtime_c(a, s);
  return true;
}
