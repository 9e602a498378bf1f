/* emit_c_cpu.c -- the C targets' entry points: a context whose hooks run
 * loops over sequences in lanes (lanes/emit_c_loops.c) after their header
 * blocks, then the program glue (program/emit_c_program.c). */
#include "backend/cpu/cpu.h"

#include <stdio.h>

#include "backend/lanes/lanes.h"
#include "backend/program/program.h"

static void cpu_ctx_init(EmitCtx *e, Arena *a, IrModule *m, const EmitOptions *opt) {
  emit_ctx_init(e, a, m, opt);
  e->hooks.cfg_decls = emit_loop_lanes_decls;
  e->hooks.block_end = emit_loop_lanes;
}

/* ---- functions for tests ---- */

bool emit_c_functions(Arena *a, IrModule *m, IrCFG *const *cfgs, int ncfgs,
                      const EmitOptions *opt, const char **out, char *err, size_t errlen) {
  EmitCtx e;
  cpu_ctx_init(&e, a, m, opt);
  EmitBuf pre, fns;
  emit_buf_init(&pre, a);
  emit_buf_init(&fns, a);
  emit_buf_puts(&pre, "#define D_SEQ_RT NULL /* no world: drt_seq_alloc mallocs */\n");
  emit_prelude(&e, &pre);
  for (int i = 0; i < ncfgs; i++) {
    IrCFG *cfg = cfgs[i];
    if (cfg->kind != IR_CFG_FUNC || !cfg->result) {
      emit_fail(&e, "emit_c_functions: CFG %d is not a function", i);
      break;
    }
    emit_buf_printf(&fns, "static %s %s(", emit_type(&e, cfg->result), emit_cfg_name(&e, cfg));
    for (int p = 0; p < cfg->nparams; p++)
      emit_buf_printf(&fns, "%s%s %s", p ? ", " : "", emit_type(&e, cfg->params[p]->ty),
                      emit_var(&e, cfg->params[p]));
    emit_buf_printf(&fns, "%s) {\n", cfg->nparams ? "" : "void");
    emit_cfg_body(&e, &fns, cfg);
    emit_buf_puts(&fns, "}\n\n");
  }
  if (e.failed) {
    if (err && errlen) snprintf(err, errlen, "%s", e.err);
    return false;
  }
  emit_buf_puts(&pre, emit_buf_str(&e.types));
  emit_buf_puts(&pre, "\n");
  emit_buf_puts(&pre, emit_buf_str(&fns));
  *out = emit_buf_str(&pre);
  return true;
}

bool emit_c_program(Arena *a, IrModule *m, const EmitOptions *opt, const char **out, EmitInfo *info,
                    char *err, size_t errlen) {
  return emit_c_program_glue(a, m, opt, NULL, false, out, info, err, errlen);
}

bool emit_c_program_glue(Arena *a, IrModule *m, const EmitOptions *opt,
                         const struct EmitGlueHooks *glue, bool distributed, const char **out,
                         EmitInfo *info, char *err,
                         size_t errlen) {
  EmitCtx e;
  cpu_ctx_init(&e, a, m, opt);
  e.glue = glue;
  e.hooks.distributed = distributed;
  EmitBuf body;
  emit_buf_init(&body, a);
  bool ok = emit_program_glue(&e, &body) && !e.failed;
  if (!ok) {
    if (err && errlen) snprintf(err, errlen, "%s", e.failed ? e.err : "code generation failed");
    return false;
  }
  *out = emit_buf_str(&body);
  if (info) info->simd_groups = emit_simd_used(&e), info->loop_lanes = emit_loops_found(&e);
  return true;
}

int emit_c_loops_planned(Arena *a, IrModule *m, const EmitOptions *opt) {
  EmitCtx e;
  cpu_ctx_init(&e, a, m, opt);
  return emit_layout_init(&e) ? emit_loops_planned(&e) : 0;
}
