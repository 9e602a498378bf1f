/* emit_c_step.c -- the update phase of a chunk in the generated program
 * (DrtUpdateChunk, rt/diderot_world.h): the loop over a chunk's strands,
 * with the update method inlined into it, so that the globals, the image
 * headers and the store's capacity are loaded once per chunk rather than
 * once per strand call (doc/backend.md §2). With --simd=strands the loop
 * runs groups of strands through the across-strand update of
 * emit_c_simd.c first. */
#include "backend/emit_c_impl.h"

#define OUT(...) emit_buf_printf(out, __VA_ARGS__)

bool emit_step_chunked(const EmitCtx *e) {
  return e->opt->target != EMIT_TARGET_CUDA && ir_module_find_cfg(e->m, IR_CFG_UPDATE) != NULL;
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
}
