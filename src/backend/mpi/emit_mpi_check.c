/* emit_mpi_check.c -- what --target=mpi does not distribute yet, refused
 * before any code is generated (never a wrong result). Every rank holds
 * the whole world and runs its own chunks; between steps the ranks
 * exchange the chunks' counts, status and new strands (`new`), and the
 * states where strands move, where the run ends, and after every step of
 * a program whose strands read each other (another strand's state,
 * sphere() queries) or whose global blocks collect strands
 * (mpi_exchanges_states: DrtProgram.exchange_states). Prints in strand
 * methods and in reductions' maps are kept per strand and written by
 * rank 0 in strand order (rt/rt_mpi_print.c). Not done yet: strand state
 * holding strings, or sequences of strings or of dynamic sequences
 * (pointers into one process's memory, meaningless on another rank); a
 * dynamic sequence of plain values goes along with its strand
 * (emit_mpi_seq.c).
 *
 * Reductions over strands are distributed (per-chunk partials, combined in
 * chunk order on every rank). LowIR keeps the source line of each
 * instruction, not its column: the message points at the line. */
#include <string.h>

#include "backend/core/core.h"
#include "backend/mpi/mpi.h"

typedef enum Pred { P_STATE, P_N } Pred;

static const char *const pred_what[P_N] = {
    "strand state holding strings or sequences of sequences or strings with --target=mpi",
};

static bool is_strand_code(IrCfgKind k) {
  return k == IR_CFG_START || k == IR_CFG_UPDATE || k == IR_CFG_STABILIZE || k == IR_CFG_FUNC;
}

bool mpi_type_has_pointer(const IrType *t) {
  if (!t) return false;
  if (t->kind == IR_TY_STRING) return true;
  if (t->kind == IR_TY_SEQ) return t->len == IR_SEQ_DYNAMIC || mpi_type_has_pointer(t->elem);
  return false;
}

/* State that cannot go to another rank: a dynamic sequence of values
 * without pointers can (emit_mpi_seq.c packs its elements), a string or a
 * sequence holding pointers cannot. */
static bool ty_pointer(const IrType *t) {
  if (t && t->kind == IR_TY_SEQ && t->len == IR_SEQ_DYNAMIC) return mpi_type_has_pointer(t->elem);
  return mpi_type_has_pointer(t);
}

/* The refused construct instruction `in` of a CFG of kind k is, or -1;
 * map: the CFG is the map of a reduction over strands (it reads the
 * strand it is given, on the rank that owns it). */
static int refused(IrCfgKind k, const IrInstr *in) {
  if (in->kind == IR_I_STATE_SET && k == IR_CFG_STRAND_INIT && in->state &&
      ty_pointer(in->state->ty))
    return P_STATE;
  return -1;
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

bool mpi_check_module(IrModule *m, DiagCtx *diag) {
  bool seen[P_N] = {false};
  int errors = 0;
  for (int c = 0; c < m->ncfgs; c++) {
    const IrCFG *cfg = m->cfgs[c];
    for (int b = 0; b < cfg->nblocks; b++) {
      const IrBlock *blk = cfg->blocks[b];
      for (int i = 0; i < blk->ninstrs; i++) {
        const IrInstr *in = blk->instrs[i];
        int p = refused(cfg->kind, in);
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
