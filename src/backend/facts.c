/* facts.c -- what the back end's analyses know of a LowIR program, as the
 * schedule record's SchedFacts (src/schedule/schedule.h): the planners of
 * the lanes (lanes/) and of the update phase (program/) asked over the
 * program itself, before any option decides what is printed. The driver
 * fills the schedule's defaults and checks its constraints with them;
 * the printers then follow the schedule (target_build). */
#include "backend/backend.h"

#include <string.h>

#include "backend/cpu/cpu.h"
#include "backend/lanes/lanes.h"
#include "backend/program/program.h"

static SchedTarget sched_target(EmitTarget t, bool mpi) {
  return mpi                   ? SCHED_TARGET_MPI
         : t == EMIT_TARGET_OMP ? SCHED_TARGET_OMP
         : t == EMIT_TARGET_CUDA ? SCHED_TARGET_CUDA
                                 : SCHED_TARGET_SEQ;
}

/* Globals the global update block writes, by IrGlobal.index. */
static bool *written_by_global_update(Arena *a, const IrModule *m) {
  bool *w = arena_alloc(a, (size_t)(m->nglobals + 1) * sizeof *w);
  memset(w, 0, (size_t)(m->nglobals + 1) * sizeof *w);
  const IrCFG *g = ir_module_find_cfg((IrModule *)m, IR_CFG_GLOBAL_UPDATE);
  if (!g) return w;
  for (int b = 0; b < g->nblocks; b++)
    for (int i = 0; i < g->blocks[b]->ninstrs; i++) {
      const IrInstr *in = g->blocks[b]->instrs[i];
      if (in->kind == IR_I_GLOBAL_SET && in->global) w[in->global->index] = true;
    }
  return w;
}

static bool is_strand_code(IrCfgKind k) {
  return k == IR_CFG_START || k == IR_CFG_UPDATE || k == IR_CFG_STABILIZE || k == IR_CFG_FUNC;
}

/* Strand code reads a global the global update writes; a real sum,
 * product or mean over strands (what the chunk size reassociates). */
static void scan_globals_and_reductions(Arena *a, const IrModule *m, SchedFacts *f) {
  bool *written = written_by_global_update(a, m);
  for (int c = 0; c < m->ncfgs; c++) {
    const IrCFG *cfg = m->cfgs[c];
    for (int b = 0; b < cfg->nblocks; b++)
      for (int i = 0; i < cfg->blocks[b]->ninstrs; i++) {
        const IrInstr *in = cfg->blocks[b]->instrs[i];
        if (in->kind == IR_I_GLOBAL_GET && in->global && is_strand_code(cfg->kind) &&
            written[in->global->index])
          f->reads_changing_globals = true;
        if (in->kind == IR_I_OP && in->op == IR_OP_STRAND_REDUCE && in->nimm > 0 && in->fn &&
            in->fn->result && in->fn->result->kind == IR_TY_TENSOR) {
          IrReduce r = (IrReduce)in->imm[0];
          f->real_reductions |= r == IR_REDUCE_SUM || r == IR_REDUCE_PRODUCT || r == IR_REDUCE_MEAN;
        }
      }
  }
}

void target_schedule_facts(Arena *a, IrModule *m, const EmitOptions *opt, SchedFacts *f) {
  memset(f, 0, sizeof *f);
  f->target = sched_target(opt->target, opt->mpi);
  f->exec = opt->exec;
  f->snapshot = opt->snapshot;
  f->double_real = opt->double_real;
  f->long_int = opt->long_int;
  f->vec_bytes = opt->vec_bytes;
  /* the planners look at the program under the layouts asked for (the
   * group plan reads the state through them) */
  EmitCtx e;
  emit_ctx_init(&e, a, m, opt);
  if (emit_layout_init(&e)) emit_simd_facts(&e, f);
  emit_step_facts(&e, f);
  scan_globals_and_reductions(a, m, f);
  /* loops whose iterations pay for lanes, planned as with vector code */
  EmitOptions vec = *opt;
  vec.scalar = false;
  f->loops_paying = emit_c_loops_planned(a, m, &vec);
}
