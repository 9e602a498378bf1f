/* emit_c_step.c -- the update phase of a chunk in the generated program
 * (DrtUpdateChunk, rt/diderot_world.h): the loop over a chunk's strands,
 * with the update method inlined into it, so that the globals, the image
 * headers and the store's capacity are loaded once per chunk rather than
 * once per strand call (doc/backend.md §2). With --simd=strands the loop
 * runs groups of strands through the across-strand update of
 * emit_c_simd.c first. d_run_chunk runs a chunk strand by strand where the
 * program allows it (DrtRunChunk). */
#include "backend/emit_c_impl.h"

#define OUT(...) emit_buf_printf(out, __VA_ARGS__)

bool emit_step_chunked(const EmitCtx *e) {
  return e->opt->target != EMIT_TARGET_CUDA && ir_module_find_cfg(e->m, IR_CFG_UPDATE) != NULL;
}

/* Strand by strand (DrtRunChunk, LANGUAGE.md §6.3 "no-BSP" mode) is the same
 * as super-steps when no strand can tell the difference: no strand reads
 * another (sphere, a strand's shared state), none is created (`new`), no
 * global update runs between steps, no method asks for strand counts. We
 * also keep super-steps for `print` in strand code (its output order is
 * by step) and for dynamic sequences built by strands (the sequence heap is
 * collected between steps only), and with --simd=strands (lane groups run
 * one step at a time). */
static bool strandwise_op(const IrInstr *in) {
  if (in->dst && emit_type_has_dseq(in->dst->ty)) return false;
  if (in->kind != IR_I_OP) return true;
  switch (in->op) {
  case IR_OP_NEW: case IR_OP_PRINT: case IR_OP_SPHERE: case IR_OP_SPHERE_AT:
  case IR_OP_NUM_STRANDS: case IR_OP_NUM_ACTIVE: case IR_OP_NUM_STABLE:
    return false;
  default:
    return true;
  }
}

bool emit_step_strandwise(EmitCtx *e) {
  const IrModule *m = e->m;
  if (!emit_step_chunked(e) || e->opt->force_bsp || emit_simd_used(e) ||
      ir_module_find_cfg(m, IR_CFG_GLOBAL_UPDATE))
    return false;
  for (int i = 0; i < m->nstate; i++)
    if (m->state[i]->shared) return false;
  for (int c = 0; c < m->ncfgs; c++) {
    const IrCFG *cfg = m->cfgs[c];
    if (cfg->kind != IR_CFG_START && cfg->kind != IR_CFG_UPDATE && cfg->kind != IR_CFG_STABILIZE &&
        cfg->kind != IR_CFG_FUNC)
      continue;
    for (int b = 0; b < cfg->nblocks; b++)
      for (int i = 0; i < cfg->blocks[b]->ninstrs; i++)
        if (!strandwise_op(cfg->blocks[b]->instrs[i])) return false;
  }
  return true;
}

const char *emit_step_update_signature(EmitCtx *e) {
  (void)e;
  /* restrict: a method never writes a global, so the C compiler may keep
   * what it loads from the world in registers across the strands of the
   * chunk (stores to the state store cannot change it) */
  return "static inline __attribute__((always_inline)) DrtExit d_strand_update_body(DrtCtx *ctx,\n"
         "    d_world *restrict wrld, const int64_t d_N, uint32_t id, void *self_)";
}

void emit_step_glue(EmitCtx *e, EmitBuf *out) {
  if (!emit_step_chunked(e)) return;
  bool stab = ir_module_find_cfg(e->m, IR_CFG_STABILIZE) != NULL;
  OUT("/* update (DrtProgram.update: one strand, for the runtime's own loop) */\n"
      "static DrtExit d_strand_update(DrtCtx *ctx, uint32_t id, void *self_) {\n"
      "  return d_strand_update_body(ctx, ctx->globals, drt_world_capacity(ctx->world), id, self_);\n"
      "}\n\n");
  OUT("/* one strand of the update phase, as the runtime's loop runs it */\n"
      "static inline __attribute__((always_inline)) void d_step_one(DrtCtx *ctx,\n"
      "    d_world *restrict wrld, const int64_t d_N, uint32_t i, void *store,\n"
      "    unsigned char *status, unsigned char *fresh, uint32_t *ns_, uint32_t *nd_) {\n"
      "  if (status[i] != DRT_ACTIVE) return;\n"
      "  fresh[i] = 0;\n"
      "  DrtExit r_ = d_strand_update_body(ctx, wrld, d_N, i, store);\n"
      "  if (r_ == DRT_EXIT_STABILIZE) {\n"
      "%s"
      "    status[i] = DRT_STABLE;\n"
      "    ++*ns_;\n"
      "  } else if (r_ == DRT_EXIT_DIE) {\n"
      "    status[i] = DRT_DYING;\n"
      "    ++*nd_;\n"
      "  }\n"
      "}\n\n",
      stab ? "    d_strand_stabilize(ctx, i, store);\n" : "");
  OUT("/* the update phase of chunk [lo, hi) (DrtUpdateChunk): the world and the\n"
      " * capacity are loaded once for all the chunk's strands */\n"
      "static void d_update_chunk(DrtCtx *ctx, uint32_t lo, uint32_t hi, void *store, uint32_t cap,\n"
      "    unsigned char *status, unsigned char *fresh, uint32_t *nstab, uint32_t *ndie) {\n"
      "  d_world *restrict wrld = ctx->globals;\n"
      "  const int64_t d_N = cap;\n"
      "  uint32_t ns_ = 0, nd_ = 0;\n"
      "  uint32_t i = lo;\n");
  if (emit_simd_used(e)) emit_simd_chunk_loop(e, out);
  OUT("  for (; i < hi; i++) d_step_one(ctx, wrld, d_N, i, store, status, fresh, &ns_, &nd_);\n"
      "  *nstab += ns_;\n"
      "  *ndie += nd_;\n"
      "}\n\n");
  if (!emit_step_strandwise(e)) return;
  /* the failure check every 64 updates catches an error recorded where no
   * DRT_EXIT_ERROR can say so (a function's probe) */
  OUT("/* strand by strand (DrtRunChunk): each active strand of [lo, hi) runs up\n"
      " * to limit updates on its own; returns the most updates a strand ran */\n"
      "static uint32_t d_run_chunk(DrtCtx *ctx, uint32_t lo, uint32_t hi, void *store, uint32_t cap,\n"
      "    unsigned char *status, unsigned char *fresh, uint32_t limit, uint32_t *nstab,\n"
      "    uint32_t *ndie) {\n"
      "  d_world *restrict wrld = ctx->globals;\n"
      "  const int64_t d_N = cap;\n"
      "  uint32_t ns_ = 0, nd_ = 0, most_ = 0;\n"
      "  for (uint32_t i = lo; i < hi; i++) {\n"
      "    if (status[i] != DRT_ACTIVE) continue;\n"
      "    fresh[i] = 0;\n"
      "    uint32_t k_ = 0;\n"
      "    DrtExit r_ = DRT_EXIT_CONTINUE;\n"
      "    while (k_ < limit && r_ == DRT_EXIT_CONTINUE) {\n"
      "      r_ = d_strand_update_body(ctx, wrld, d_N, i, store);\n"
      "      if ((++k_ & 63) == 0 && drt_world_failed(ctx->world)) break;\n"
      "    }\n"
      "    if (k_ > most_) most_ = k_;\n"
      "    if (r_ == DRT_EXIT_STABILIZE) {\n"
      "%s"
      "      status[i] = DRT_STABLE;\n"
      "      ns_++;\n"
      "    } else if (r_ == DRT_EXIT_DIE) {\n"
      "      status[i] = DRT_DYING;\n"
      "      nd_++;\n"
      "    }\n"
      "    if (r_ == DRT_EXIT_ERROR || drt_world_failed(ctx->world)) break;\n"
      "  }\n"
      "  *nstab += ns_;\n"
      "  *ndie += nd_;\n"
      "  return most_;\n"
      "}\n\n",
      stab ? "      d_strand_stabilize(ctx, i, store);\n" : "");
}
