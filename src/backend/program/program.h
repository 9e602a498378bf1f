/* program.h -- the program glue shared by the targets: the state and world
 * structs, inputs, global initialisation, strand creation, outputs, the
 * DrtProgram descriptor, main() or the library API (emit_c_program.c,
 * emit_c_api.c), the update phase of a chunk (emit_c_step.c) and
 * snapshots (emit_c_snap.c). It prints on the core (core/) and the lanes
 * printers (lanes/); a target that runs strands elsewhere (the CUDA host
 * half) changes it only through the hooks of EmitGlueHooks. */
#ifndef DIDEROT_BACKEND_PROGRAM_H
#define DIDEROT_BACKEND_PROGRAM_H

#include "backend/core/core.h"
#include "schedule/schedule.h"

/* What a target adds to the program glue (EmitCtx.glue); NULL members and
 * a NULL table: the C targets' glue. */
struct EmitGlueHooks {
  /* a line of d_world's struct (the CUDA host half: the device world) */
  const char *world_field;
  /* after the structs: the target's own declarations and entry points */
  void (*after_structs)(EmitCtx *e, EmitBuf *out);
  /* the C expression running up to `limit` steps of world `wrld` (a
   * d_world *); NULL: the runtime scheduler, drt_world_run */
  const char *(*run_call)(EmitCtx *e, const char *wrld, const char *limit);
  /* an executable: the name of the program's main, made static (the
   * target's own main, printed by after_main, calls it); NULL: main */
  const char *main_name;
  void (*after_main)(EmitCtx *e, EmitBuf *out);
  /* the world's DrtProgram.exchange_states (NULL: false) */
  bool (*exchange_states)(EmitCtx *e);
  /* the C expression for whether strand creation failed, from `failed`
   * (this process's answer; NULL: that answer) */
  const char *(*created)(EmitCtx *e, const char *wrld, const char *failed);
};

/* ---- emit_c_program.c ---- */
/* The whole program: prelude, types, structs, CFG functions, glue. */
bool emit_program_glue(EmitCtx *e, EmitBuf *out);

/* ---- emit_c_api.c: what a library's users see ---- */
/* The NS_ functions into out (header: their declarations only). */
void emit_api_glue(EmitCtx *e, EmitBuf *out, bool header);
/* --target=mpi: the schedule's placement and rebalancing as the arguments
 * drt_mpi_main and drt_mpi_attach take ("DRT_MPI_CYCLIC, 1.25"). */
const char *emit_mpi_schedule_args(EmitCtx *e);
/* The C expression running up to `limit` steps of world `wrld` (a
 * d_world *): the target's run_call, else drt_world_run. */
const char *emit_run_call(EmitCtx *e, const char *wrld, const char *limit);
/* Whether creation failed, from this process's `failed`: the target's
 * created hook, else failed itself. */
const char *emit_created(EmitCtx *e, const char *wrld, const char *failed);

/* The library header NAME.h (§7.3). */
bool emit_c_header(Arena *a, IrModule *m, const EmitOptions *opt, const char **out);
/* NAME.json describing the library API (§7.3). */
bool emit_c_json(Arena *a, IrModule *m, const EmitOptions *opt, const char **out);

/* ---- emit_c_step.c: the update phase of a chunk (DrtUpdateChunk) ---- */
/* What strand code does that decides strand-wise runs and what the chunk
 * size can change (the has_update, global_update, shared_state, strand_*
 * and new_in_* fields of SchedFacts: emit_step_strandwise's conditions). */
void emit_step_facts(EmitCtx *e, SchedFacts *f);
/* Whether the program may run strand by strand (DrtProgram.strandwise). */
bool emit_step_strandwise(EmitCtx *e);
/* The signature of the update method's body, inlined into the chunk loop. */
const char *emit_step_update_signature(EmitCtx *e);
/* d_strand_update (the DrtMethod), d_step_one and d_update_chunk. */
void emit_step_glue(EmitCtx *e, EmitBuf *out);

/* ---- emit_c_snap.c: executable snapshots (--snapshot, §7.2) ---- */
/* The DRT_CLI_* features of drt_cli_std_options. */
const char *emit_snapshot_cli_features(EmitCtx *e);
/* `spf[]` and the -sp / -sp-NAME entries (opts, nopts in scope). */
void emit_snapshot_options(EmitCtx *e, EmitBuf *out);
/* d_snapshot(wrld, spf, writer, step), before main (after the outputs). */
void emit_snapshot_fn(EmitCtx *e, EmitBuf *out);
/* The statement running the world: run_limit (up to so.limit steps) or,
 * with --snapshot, the snapshot loop around run_chunk (chunk_ steps). */
const char *emit_snapshot_run(EmitCtx *e, const char *run_limit, const char *run_chunk);

#endif
