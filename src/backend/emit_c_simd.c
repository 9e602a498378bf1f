/* emit_c_simd.c -- across-strand SIMD (--simd=strands; doc/backend.md §4).
 *
 * d_update_group runs the update of D_SIMD_W consecutive strands at once:
 * every LowIR value holds one lane per strand (emit_c_lanes.c prints the
 * instructions). The CFG must be acyclic: its blocks run in a topological
 * order, each under a lane mask (a block no lane reaches is skipped),
 * branches split masks, phis become per-lane selects and exits set a
 * per-lane status. Each lane computes exactly what the scalar update
 * computes for its strand (same operations in the same order), so outputs
 * are those of the scalar code (up to FMA contraction, which the C
 * compiler may apply differently to the two; -ffp-contract=off makes them
 * bitwise equal).
 *
 * Effects (print, new, a probe or index error) stay scalar: a group in
 * which a lane reaches one gives up before writing anything (state writes
 * live in the exit blocks, which run last) and the chunk loop runs its
 * strands through the scalar update, in order. An update that cannot be
 * printed this way (loops, state writes outside exit blocks, other
 * strands' state, dynamic sequences, sphere queries, reductions, ...)
 * keeps the scalar path alone; emit_simd_report() says why. */
#include "backend/emit_c_impl.h"

#include <string.h>

#define OUT(...) emit_buf_printf(out, __VA_ARGS__)

static bool is_effect(const IrInstr *in) {
  return in->kind == IR_I_OP && (in->op == IR_OP_PRINT || in->op == IR_OP_NEW ||
                                 in->op == IR_LOP_PROBE_FAIL || in->op == IR_OP_INDEX_FAIL);
}

static bool is_exit(const IrBlock *b) {
  IrTermKind k = b->term.kind;
  return k == IR_T_STABILIZE || k == IR_T_DIE || k == IR_T_CONTINUE || k == IR_T_RETURN;
}

/* The plan: the update CFG's reachable blocks in a topological order with
 * the exit blocks last; NULL when the update cannot run in lane mode. */
typedef struct SimdPlan {
  IrCFG *cfg;
  IrBlock **order;
  int n;
} SimdPlan;

static int block_index(const IrCFG *cfg, const IrBlock *b) {
  for (int i = 0; i < cfg->nblocks; i++)
    if (cfg->blocks[i] == b) return i;
  return -1;
}

static int nsucc(const IrBlock *b) {
  return b->term.kind == IR_T_JUMP ? 1 : b->term.kind == IR_T_BRANCH ? 2 : 0;
}

/* The blocks at most: larger updates gain little and cost compile time. */
enum { SIMD_MAX_BLOCKS = 400 };

static SimdPlan *refuse(EmitCtx *e, const char *why) {
  e->simd_why = why;
  return NULL;
}

static SimdPlan *plan_build(EmitCtx *e) {
  IrCFG *cfg = ir_module_find_cfg(e->m, IR_CFG_UPDATE);
  /* one mask type for reals and ints: comparisons of either give it */
  if (e->opt->double_real != e->opt->long_int)
    return refuse(e, "int and real differ in size (--double without --long-int, or the reverse)");
  if (!cfg || cfg->entry != cfg->blocks[0]) return refuse(e, "no update");
  if (cfg->nblocks > SIMD_MAX_BLOCKS) return refuse(e, "too many blocks");
  int nb = cfg->nblocks;
  int *indeg = arena_alloc(e->a, (size_t)nb * sizeof *indeg);
  bool *reach = arena_alloc(e->a, (size_t)nb * sizeof *reach);
  int *stack = arena_alloc(e->a, (size_t)nb * sizeof *stack);
  memset(indeg, 0, (size_t)nb * sizeof *indeg);
  memset(reach, 0, (size_t)nb * sizeof *reach);
  int sp = 0;
  reach[0] = true;
  stack[sp++] = 0;
  while (sp) {
    IrBlock *b = cfg->blocks[stack[--sp]];
    for (int s = 0; s < nsucc(b); s++) {
      if (s == 1 && b->term.succ[1] == b->term.succ[0]) continue;
      int j = block_index(cfg, b->term.succ[s]);
      if (j < 0) return refuse(e, "a successor outside the CFG");
      indeg[j]++;
      if (!reach[j]) reach[j] = true, stack[sp++] = j;
    }
  }
  /* Kahn's algorithm; a block left over lies on a cycle */
  SimdPlan *p = arena_alloc(e->a, sizeof *p);
  p->cfg = cfg;
  p->order = arena_alloc(e->a, (size_t)nb * sizeof *p->order);
  p->n = 0;
  IrBlock **exits = arena_alloc(e->a, (size_t)nb * sizeof *exits);
  int nexits = 0, nreach = 0;
  for (int i = 0; i < nb; i++) nreach += reach[i];
  sp = 0;
  stack[sp++] = 0;
  while (sp) {
    IrBlock *b = cfg->blocks[stack[--sp]];
    if (is_exit(b)) exits[nexits++] = b;
    else p->order[p->n++] = b;
    for (int s = 0; s < nsucc(b); s++) {
      if (s == 1 && b->term.succ[1] == b->term.succ[0]) continue;
      int j = block_index(cfg, b->term.succ[s]);
      if (--indeg[j] == 0) stack[sp++] = j;
    }
  }
  if (p->n + nexits != nreach) return refuse(e, "a loop");
  for (int i = 0; i < nexits; i++) p->order[p->n++] = exits[i];
  /* every instruction must have a lane form; state writes only in exits,
   * effects nowhere in them (exits run after the fallback decision) */
  for (int k = 0; k < p->n; k++) {
    IrBlock *b = p->order[k];
    for (int i = 0; i < b->nphis; i++) {
      const IrType *t = b->phis[i]->dst ? b->phis[i]->dst->ty : NULL;
      if (t && (!emit_lanes_type(e, t) || t->kind == IR_TY_IMAGE || t->kind == IR_TY_STRING))
        return refuse(e, "a phi of a value without lanes");
    }
    for (int i = 0; i < b->ninstrs; i++) {
      IrInstr *in = b->instrs[i];
      if (in->dst && !emit_lanes_type(e, in->dst->ty))
        return refuse(e, "a value of a type without lanes (a dynamic sequence, a strand)");
      if (!emit_lanes_instr(e, NULL, in, b->id))
        return refuse(e, in->kind == IR_I_OP
                             ? arena_printf(e->a, "operator %s", ir_op_info(e->m->level, in->op)->name)
                             : "an instruction without a lane form (another strand's state, a global write)");
      if (in->kind == IR_I_STATE_SET && !is_exit(b)) return refuse(e, "a state write before an exit");
      if (is_effect(in) && is_exit(b)) return refuse(e, "an effect in an exit block");
    }
    if (b->term.kind == IR_T_NONE) return refuse(e, "a block without a terminator");
  }
  return p;
}

/* Decided once per context. */
static SimdPlan *plan_of(EmitCtx *e) {
  if (!e->simd_planned) {
    e->simd_planned = true;
    e->simd_plan = plan_build(e);
  }
  return e->simd_plan;
}

bool emit_simd_used(EmitCtx *e) {
  return e->opt->simd_strands && emit_step_chunked(e) && plan_of(e) != NULL;
}

const char *emit_simd_report(EmitCtx *e) {
  if (!e->opt->simd_strands) return NULL;
  if (!emit_step_chunked(e)) return "the update stays scalar: no update, or not a C target";
  if (!plan_of(e)) return arena_printf(e->a, "the update stays scalar: %s", e->simd_why);
  return arena_printf(e->a, "the update also runs in groups of D_SIMD_W strands (%d blocks)",
                      ((SimdPlan *)e->simd_plan)->n);
}

/* ---- printing ---------------------------------------------------------------------------- */

static const char *var0(EmitCtx *e, const IrVar *v) { return emit_var(e, v); }

/* Zero at first: a lane may read a value its block never computed for it
 * (an inactive lane), and the C compiler cannot see that it is harmless.
 * (void): a value read only by an effect (not printed) is unused. */
static void decl(EmitCtx *e, EmitBuf *out, const IrVar *v, const char *suffix) {
  const char *t = emit_lanes_type(e, v->ty);
  OUT("  %s %s%s = %s; (void)%s%s;\n", t, var0(e, v), suffix, strchr(t, '*') ? "NULL" : "{0}",
      var0(e, v), suffix);
}

/* The phi copies on edge from -> to under lane mask m. */
static void phi_edge(EmitCtx *e, EmitBuf *out, IrBlock *from, IrBlock *to, const char *m) {
  int k = ir_block_pred_index(to, from);
  if (k < 0) return;
  for (int i = 0; i < to->nphis; i++) {
    IrInstr *phi = to->phis[i];
    if (!phi->dst || k >= phi->nargs) continue;
    const char *d = arena_printf(e->a, "%s_in", var0(e, phi->dst));
    emit_lanes_select(e, out, phi->dst->ty, d, m, var0(e, phi->args[k]), d);
  }
}

static void emit_block(EmitCtx *e, EmitBuf *out, IrBlock *b) {
  OUT(" /* L%d%s%s */\n  if (d_any(d_m%d)) {\n", b->id, b->label ? ": " : "", b->label ? b->label : "",
      b->id);
  for (int i = 0; i < b->nphis; i++)
    if (b->phis[i]->dst) OUT("  %s = %s_in;\n", var0(e, b->phis[i]->dst), var0(e, b->phis[i]->dst));
  for (int i = 0; i < b->ninstrs; i++) {
    IrInstr *in = b->instrs[i];
    if (!emit_lanes_instr(e, out, in, b->id)) {
      emit_fail(e, "simd: an instruction without a lane form");
      return;
    }
    if (is_effect(in)) { /* it returned: the rest of the block is not reached */
      OUT("  }\n");
      return;
    }
  }
  IrTerm *t = &b->term;
  switch (t->kind) {
  case IR_T_JUMP:
    phi_edge(e, out, b, t->succ[0], arena_printf(e->a, "d_m%d", b->id));
    OUT("  d_m%d |= d_m%d;\n", t->succ[0]->id, b->id);
    break;
  case IR_T_BRANCH: {
    const char *c = var0(e, t->value);
    OUT("  { const dlanei d_t = d_m%d & %s, d_f = d_m%d & ~%s;\n", b->id, c, b->id, c);
    phi_edge(e, out, b, t->succ[0], "d_t");
    if (t->succ[1] != t->succ[0]) phi_edge(e, out, b, t->succ[1], "d_f");
    OUT("  d_m%d |= d_t;\n  d_m%d |= d_f; }\n", t->succ[0]->id, t->succ[1]->id);
    break;
  }
  case IR_T_STABILIZE:
  case IR_T_DIE:
  case IR_T_CONTINUE:
  case IR_T_RETURN:
    OUT("  d_r = d_seli(d_m%d, d_splati(%s), d_r);\n", b->id,
        t->kind == IR_T_STABILIZE ? "DRT_EXIT_STABILIZE"
        : t->kind == IR_T_DIE     ? "DRT_EXIT_DIE"
                                  : "DRT_EXIT_CONTINUE");
    break;
  case IR_T_ERROR: OUT("  return false;\n"); break; /* after an effect: not reached */
  case IR_T_NONE: emit_fail(e, "simd: a block without a terminator"); break;
  }
  OUT("  }\n");
}

void emit_simd_group(EmitCtx *e, EmitBuf *out) {
  SimdPlan *p = plan_of(e);
  if (!p) return;
  IrCFG *cfg = p->cfg;
  e->cfg = cfg;
  emit_lanes_helpers(e, out);
  bool stab = ir_module_find_cfg(e->m, IR_CFG_STABILIZE) != NULL;
  OUT("/* the update of the strands i0 .. i0+D_SIMD_W-1 (the active ones) at once;\n"
      " * false, with nothing written, when one of them reaches an effect */\n"
      "static bool d_update_group(DrtCtx *ctx, d_world *restrict wrld, const int64_t d_N,\n"
      "    uint32_t i0, void *self_, unsigned char *status, unsigned char *fresh,\n"
      "    uint32_t *ns_, uint32_t *nd_) {\n"
      "  (void)ctx; (void)wrld; (void)d_N;\n");
  for (int k = 0; k < p->n; k++) {
    IrBlock *b = p->order[k];
    OUT("  dlanei d_m%d = d_splati(0);\n", b->id);
    for (int i = 0; i < b->nphis; i++)
      if (b->phis[i]->dst) {
        decl(e, out, b->phis[i]->dst, "");
        decl(e, out, b->phis[i]->dst, "_in");
      }
    for (int i = 0; i < b->ninstrs; i++)
      if (b->instrs[i]->dst) decl(e, out, b->instrs[i]->dst, "");
  }
  /* the entry mask (active strands) and each strand's state offset */
  OUT("  dlanei d_r = d_splati(DRT_EXIT_CONTINUE);\n"
      "  dlanei d_sidx;\n"
      "  for (int d_l = 0; d_l < D_SIMD_W; d_l++) {\n"
      "    const int64_t d_i = (int64_t)i0 + d_l;\n"
      "    d_sidx[d_l] = (dint)(%s);\n"
      "    d_m%d[d_l] = status[i0 + d_l] == DRT_ACTIVE ? -1 : 0;\n  }\n  (void)d_sidx;\n",
      emit_simd_state_dep(e), cfg->entry->id);
  for (int k = 0; k < p->n; k++) emit_block(e, out, p->order[k]);
  /* the runtime's bookkeeping, strand by strand in order (stabilize runs
   * after the strand's update, as in the scalar loop) */
  OUT("  for (int d_l = 0; d_l < D_SIMD_W; d_l++) {\n"
      "    const uint32_t i = i0 + (uint32_t)d_l;\n"
      "    if (!d_m%d[d_l]) continue;\n"
      "    fresh[i] = 0;\n"
      "    if (d_r[d_l] == DRT_EXIT_STABILIZE) {\n"
      "%s"
      "      status[i] = DRT_STABLE;\n"
      "      ++*ns_;\n"
      "    } else if (d_r[d_l] == DRT_EXIT_DIE) {\n"
      "      status[i] = DRT_DYING;\n"
      "      ++*nd_;\n"
      "    }\n  }\n  return true;\n}\n\n",
      cfg->entry->id, stab ? "      d_strand_stabilize(ctx, i, self_);\n" : "");
}

void emit_simd_chunk_loop(EmitCtx *e, EmitBuf *out) {
  (void)e;
  /* a group with few active strands runs scalar: its lanes would idle */
  /* (the state offsets of a group are dint lanes: the store must fit) */
  OUT("  if (lo %% D_SIMD_W == 0 && d_N * D_STATE_WORDS < ((int64_t)1 << (8 * sizeof(dint) - 1)))\n"
      "    for (; i + D_SIMD_W <= hi; i += D_SIMD_W) {\n"
      "      int na_ = 0;\n"
      "      for (int l = 0; l < D_SIMD_W; l++) na_ += status[i + l] == DRT_ACTIVE;\n"
      "      if (na_ == 0) continue;\n"
      "      if (4 * na_ > D_SIMD_W &&\n"
      "          d_update_group(ctx, wrld, d_N, i, store, status, fresh, &ns_, &nd_))\n"
      "        continue;\n"
      "      for (uint32_t j = i; j < i + D_SIMD_W; j++)\n"
      "        d_step_one(ctx, wrld, d_N, j, store, status, fresh, 1, &ns_, &nd_);\n"
      "    }\n");
}
