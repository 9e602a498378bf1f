/* emit_mpi_check.c -- what --target=mpi does not distribute yet, refused
 * before any code is generated (never a wrong result). Every rank holds
 * the whole world and runs its own chunks; between steps the ranks
 * exchange the chunks' counts, status and new strands (`new`), and the
 * states only where strands move or the run ends (rt/rt_distrib.c). So
 * anything that reads strands outside a rank's own chunks during a step
 * is not done yet:
 *
 *   - reads of another strand's state, and sphere() queries (the other
 *     strand's state is the start-of-run one on a rank that does not own
 *     its chunk);
 *   - collecting strands in a global block ({ c | c in S.all }: the block
 *     reads their state);
 *   - print in strand code (each rank's prints would be in its own order;
 *     prints in global blocks are made by rank 0 alone);
 *   - strand state holding strings or dynamic sequences (pointers into one
 *     process's memory, meaningless on another rank).
 *
 * Reductions over strands are distributed (per-chunk partials, combined in
 * chunk order on every rank). LowIR keeps the source line of each
 * instruction, not its column: the message points at the line. */
#include <string.h>

#include "backend/core/core.h"
#include "backend/mpi/mpi.h"

typedef enum Pred { P_PRINT, P_SPHERE, P_SHARED, P_COLLECT, P_STATE, P_N } Pred;

static const char *const pred_what[P_N] = {
    "print in strand code with --target=mpi",
    "sphere() with --target=mpi",
    "reading another strand's state with --target=mpi",
    "collecting strands in a global block with --target=mpi",
    "strand state holding strings or dynamic sequences with --target=mpi",
};

static bool is_strand_code(IrCfgKind k) {
  return k == IR_CFG_START || k == IR_CFG_UPDATE || k == IR_CFG_STABILIZE || k == IR_CFG_FUNC;
}

static bool ty_pointer(const IrType *t) {
  if (!t) return false;
  if (t->kind == IR_TY_STRING) return true;
  if (t->kind == IR_TY_SEQ) return t->len == IR_SEQ_DYNAMIC || ty_pointer(t->elem);
  return false;
}

/* The refused construct instruction `in` of a CFG of kind k is, or -1;
 * map: the CFG is the map of a reduction over strands (it reads the
 * strand it is given, on the rank that owns it). */
static int refused(IrCfgKind k, bool map, const IrInstr *in) {
  bool strand = is_strand_code(k) && !map;
  bool global = k == IR_CFG_GLOBAL_START || k == IR_CFG_GLOBAL_UPDATE;
  if (in->kind == IR_I_STATE_GET && in->nargs > 0 && strand) return P_SHARED;
  if (in->kind == IR_I_STATE_SET && k == IR_CFG_STRAND_INIT && in->state &&
      ty_pointer(in->state->ty))
    return P_STATE;
  if (in->kind != IR_I_OP) return -1;
  if (in->op == IR_OP_PRINT && strand) return P_PRINT;
  if (in->op == IR_OP_SPHERE || in->op == IR_OP_SPHERE_AT) return P_SPHERE;
  if (in->op == IR_OP_STRAND_REDUCE && global && in->nimm > 0 && in->imm[0] == IR_REDUCE_COLLECT)
    return P_COLLECT;
  return -1;
}

/* The line of the source, from its first non-blank character to its end
 * (no position when the line is unknown). */
static Span line_span(DiagCtx *diag, int line) {
  Span s = {{0, 0}, {0, 0}};
  const Source *src = diag_source(diag);
  if (line <= 0 || !src || line > src->nlines) return s;
  size_t len = 0;
  const char *t = source_line(src, line, &len);
  size_t c = 0;
  while (c < len && (t[c] == ' ' || t[c] == '\t')) c++;
  s.begin.line = s.end.line = line;
  s.begin.col = (int)c + 1;
  s.end.col = (int)len + 1;
  return s;
}

/* Whether cfg is the map of a reduction over strands (a collection's is
 * refused at the collection itself). */
static bool is_map(const IrModule *m, const IrCFG *cfg) {
  if (cfg->kind != IR_CFG_FUNC) return false;
  for (int c = 0; c < m->ncfgs; c++) {
    const IrCFG *g = m->cfgs[c];
    if (g->kind != IR_CFG_GLOBAL_START && g->kind != IR_CFG_GLOBAL_UPDATE) continue;
    for (int b = 0; b < g->nblocks; b++)
      for (int i = 0; i < g->blocks[b]->ninstrs; i++) {
        const IrInstr *in = g->blocks[b]->instrs[i];
        if (in->kind == IR_I_OP && in->op == IR_OP_STRAND_REDUCE && in->fn == cfg) return true;
      }
  }
  return false;
}

bool mpi_check_module(IrModule *m, DiagCtx *diag) {
  bool seen[P_N] = {false};
  int errors = 0;
  for (int c = 0; c < m->ncfgs; c++) {
    const IrCFG *cfg = m->cfgs[c];
    bool map = is_map(m, cfg);
    for (int b = 0; b < cfg->nblocks; b++) {
      const IrBlock *blk = cfg->blocks[b];
      for (int i = 0; i < blk->ninstrs; i++) {
        const IrInstr *in = blk->instrs[i];
        int p = refused(cfg->kind, map, in);
        if (p < 0 || seen[p]) continue; /* one message per construct */
        seen[p] = true;
        diag_report(diag, ERR_NOT_YET, line_span(diag, in->line), pred_what[p]);
        errors++;
      }
    }
  }
  /* a state variable the initialisation does not set (no line) */
  for (int i = 0; i < m->nstate && !seen[P_STATE]; i++)
    if (ty_pointer(m->state[i]->ty)) {
      seen[P_STATE] = true;
      diag_report(diag, ERR_NOT_YET, line_span(diag, 0), pred_what[P_STATE]);
      errors++;
    }
  return errors == 0;
}
