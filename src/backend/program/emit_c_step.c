/* emit_c_step.c -- the update phase of a chunk in the generated program
 * (DrtUpdateChunk, rt/diderot_world.h): the loop over a chunk's strands,
 * with the update method inlined into it, so that the globals, the image
 * headers and the store's capacity are loaded once per chunk rather than
 * once per strand call (doc/backend.md §2). With --simd=strands the loop
 * runs groups of strands through the across-strand update of
 * emit_c_simd.c first. With a limit above 1 the loop runs each strand (or
 * group) up to that many updates on its own, where the program allows it
 * (DrtProgram.strandwise). */
#include "backend/program/program.h"
#include "backend/lanes/lanes.h"

#define OUT(...) emit_buf_printf(out, __VA_ARGS__)

/* Strand by strand (DrtProgram.strandwise, "no-BSP" mode; doc/language.md §8.3) is the same
 * as super-steps when no strand can tell the difference: no strand reads
 * another (sphere, a strand's shared state), none is created (`new`), no
 * global update runs between steps, no method asks for strand counts. We
 * also keep super-steps for `print` in strand code (its output order is
 * by step) and for dynamic sequences built by strands (the sequence heap is
 * collected between steps only). */

void emit_step_facts(EmitCtx *e, SchedFacts *f) {
  const IrModule *m = e->m;
  f->has_update = ir_module_find_cfg(m, IR_CFG_UPDATE) != NULL;
  f->global_update = ir_module_find_cfg(m, IR_CFG_GLOBAL_UPDATE) != NULL;
  for (int i = 0; i < m->nstate; i++) f->shared_state |= m->state[i]->shared;
  for (int c = 0; c < m->ncfgs; c++) {
    const IrCFG *cfg = m->cfgs[c];
    if (cfg->kind != IR_CFG_START && cfg->kind != IR_CFG_UPDATE && cfg->kind != IR_CFG_STABILIZE &&
        cfg->kind != IR_CFG_FUNC)
      continue;
    for (int b = 0; b < cfg->nblocks; b++)
      for (int i = 0; i < cfg->blocks[b]->ninstrs; i++) {
        const IrInstr *in = cfg->blocks[b]->instrs[i];
        f->strand_dseq |= in->dst && emit_type_has_dseq(in->dst->ty);
        if (in->kind != IR_I_OP) continue;
        f->strand_new |= in->op == IR_OP_NEW;
        f->new_in_start |= in->op == IR_OP_NEW && cfg->kind == IR_CFG_START;
        f->new_in_update |= in->op == IR_OP_NEW && cfg->kind == IR_CFG_UPDATE;
        f->strand_print |= in->op == IR_OP_PRINT;
        f->strand_sphere |= in->op == IR_OP_SPHERE || in->op == IR_OP_SPHERE_AT;
        f->strand_counts |= in->op == IR_OP_NUM_STRANDS || in->op == IR_OP_NUM_ACTIVE ||
                            in->op == IR_OP_NUM_STABLE;
      }
  }
}

bool emit_step_strandwise(EmitCtx *e) {
  if (!emit_step_chunked(e) || e->opt->force_bsp) return false;
  SchedFacts f = {0};
  emit_step_facts(e, &f);
  return !f.global_update && !f.shared_state && !f.strand_new && !f.strand_print &&
         !f.strand_sphere && !f.strand_counts && !f.strand_dseq;
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
  /* the update is inlined here only (once per call site of d_step_one):
   * a big probe's code compiled once more costs seconds of gcc */
  OUT("/* one active strand of the update phase: up to limit updates (1 in a\n"
      " * super-step); returns how many ran. The failure check every 64 updates\n"
      " * catches an error recorded where no DRT_EXIT_ERROR says so (a function's\n"
      " * probe) */\n"
      "static %s uint32_t d_step_one(DrtCtx *ctx,\n"
      "    d_world *restrict wrld, const int64_t d_N, uint32_t i, void *store,\n"
      "    unsigned char *status, unsigned char *fresh, uint32_t limit, uint32_t *ns_,\n"
      "    uint32_t *nd_) {\n"
      "  if (status[i] != DRT_ACTIVE) return 0;\n"
      "  fresh[i] = 0;\n"
      "  uint32_t k_ = 0;\n"
      "  DrtExit r_;\n"
      "  do {\n"
      "    r_ = d_strand_update_body(ctx, wrld, d_N, i, store);\n"
      "    ++k_;\n"
      "  } while (r_ == DRT_EXIT_CONTINUE && k_ < limit &&\n"
      "           ((k_ & 63) != 0 || !drt_world_failed(ctx->world)));\n"
      "  if (r_ == DRT_EXIT_STABILIZE) {\n"
      "%s"
      "    status[i] = DRT_STABLE;\n"
      "    ++*ns_;\n"
      "  } else if (r_ == DRT_EXIT_DIE) {\n"
      "    status[i] = DRT_DYING;\n"
      "    ++*nd_;\n"
      "  }\n"
      "  return k_;\n"
      "}\n\n",
      /* with groups, three call sites (the chunk loop twice, the group's
       * scalar rest): one out-of-line copy of the update, not three
       * (0.5 s of gcc for dvr); the call is per strand, not per update */
      emit_simd_used(e) ? "__attribute__((noinline))" : "inline __attribute__((always_inline))",
      stab ? "    d_strand_stabilize(ctx, i, store);\n" : "");
  if (emit_simd_used(e)) emit_simd_group(e, out); /* emit_c_simd.c: calls d_step_one */
  OUT("/* the update phase of chunk [lo, hi) (DrtUpdateChunk): the world and the\n"
      " * capacity are loaded once for all the chunk's strands; limit > 1 (strand\n"
      " * by strand, DrtProgram.strandwise) stops at a run-time error */\n"
      "static uint32_t d_update_chunk(DrtCtx *ctx, uint32_t lo, uint32_t hi, void *store,\n"
      "    uint32_t cap, unsigned char *status, unsigned char *fresh, uint32_t limit,\n"
      "    uint32_t *nstab, uint32_t *ndie) {\n"
      "  d_world *restrict wrld = ctx->globals;\n"
      "  const int64_t d_N = cap;\n"
      "  uint32_t ns_ = 0, nd_ = 0, most_ = 0;\n"
      "  uint32_t i = lo;\n");
  if (emit_simd_used(e)) emit_simd_chunk_loop(e, out);
  OUT("  for (; i < hi; i++) {\n"
      "    uint32_t k_ = d_step_one(ctx, wrld, d_N, i, store, status, fresh, limit, &ns_, &nd_);\n"
      "    if (k_ > most_) most_ = k_;\n"
      "    if (limit > 1 && drt_world_failed(ctx->world)) break;\n"
      "  }\n");
  if (emit_simd_used(e)) OUT(" d_done:\n");
  OUT("  *nstab += ns_;\n"
      "  *ndie += nd_;\n"
      "  return most_ ? most_ : 1;\n"
      "}\n\n");
}
