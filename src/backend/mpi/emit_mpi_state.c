/* emit_mpi_state.c -- which strand states --target=mpi moves, and what
 * goes with them. Every rank holds the whole world and runs its own
 * chunks; between steps the ranks exchange the chunks' counts, status and
 * new strands (`new`), and the states where strands move, where the run
 * ends, and after every step of a program whose strands read each other
 * (another strand's state, sphere() queries) or whose global blocks
 * collect strands (mpi_exchanges_states: DrtProgram.exchange_states).
 * Prints in strand methods and in reductions' maps are kept per strand
 * and written by rank 0 in strand order (rt/rt_mpi_print.c). A state
 * that holds pointers (strings, dynamic sequences: mpi_type_has_pointer)
 * takes what they point at along (emit_mpi_seq.c). Reductions over
 * strands are distributed (per-chunk partials, combined in chunk order on
 * every rank). */
#include "backend/core/core.h"
#include "backend/mpi/mpi.h"

static bool is_strand_code(IrCfgKind k) {
  return k == IR_CFG_START || k == IR_CFG_UPDATE || k == IR_CFG_STABILIZE || k == IR_CFG_FUNC;
}

bool mpi_type_has_pointer(const IrType *t) {
  if (!t) return false;
  if (t->kind == IR_TY_STRING) return true;
  if (t->kind == IR_TY_SEQ) return t->len == IR_SEQ_DYNAMIC || mpi_type_has_pointer(t->elem);
  return false;
}

/* Whether `in` (in a CFG of kind k; map: a reduction's map) reads strands
 * that another rank may own: another strand's state, sphere(), strands
 * collected in a global block. */
static bool reads_others(IrCfgKind k, bool map, const IrInstr *in) {
  bool global = k == IR_CFG_GLOBAL_START || k == IR_CFG_GLOBAL_UPDATE;
  if (in->kind == IR_I_STATE_GET && in->nargs > 0 && is_strand_code(k) && !map) return true;
  if (in->kind != IR_I_OP) return false;
  if (in->op == IR_OP_SPHERE || in->op == IR_OP_SPHERE_AT) return true;
  return in->op == IR_OP_STRAND_REDUCE && global && in->nimm > 0 && in->imm[0] == IR_REDUCE_COLLECT;
}

/* maps[c]: CFG c is the map of a reduction over strands in a global
 * block (one walk of the global blocks, not one per CFG). */
static bool *reduction_maps(Arena *a, const IrModule *m) {
  bool *maps = ARENA_NEW_ARRAY(a, bool, m->ncfgs > 0 ? m->ncfgs : 1);
  for (int c = 0; c < m->ncfgs; c++) {
    const IrCFG *g = m->cfgs[c];
    if (g->kind != IR_CFG_GLOBAL_START && g->kind != IR_CFG_GLOBAL_UPDATE) continue;
    for (int b = 0; b < g->nblocks; b++)
      for (int i = 0; i < g->blocks[b]->ninstrs; i++) {
        const IrInstr *in = g->blocks[b]->instrs[i];
        if (in->kind != IR_I_OP || in->op != IR_OP_STRAND_REDUCE || !in->fn) continue;
        for (int k = 0; k < m->ncfgs; k++)
          if (m->cfgs[k] == in->fn && m->cfgs[k]->kind == IR_CFG_FUNC) maps[k] = true;
      }
  }
  return maps;
}

bool mpi_exchanges_states(Arena *a, const IrModule *m) {
  bool *maps = reduction_maps(a, m);
  for (int c = 0; c < m->ncfgs; c++) {
    const IrCFG *cfg = m->cfgs[c];
    for (int b = 0; b < cfg->nblocks; b++)
      for (int i = 0; i < cfg->blocks[b]->ninstrs; i++)
        if (reads_others(cfg->kind, maps[c], cfg->blocks[b]->instrs[i])) return true;
  }
  return false;
}
