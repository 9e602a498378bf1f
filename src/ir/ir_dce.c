/* ir_dce.c -- dead-code elimination and unreachable-block removal.
 *
 * Liveness is computed by marking from the roots (instructions with effects,
 * global and state writes, terminator operands) through the definitions of
 * their arguments, so a cycle of phis that only feed each other is dead even
 * though each one is used. Everything unmarked that has no effect is
 * deleted: pure and READ operators, literals, copies, phis, global and state
 * reads.
 */
#include "ir/ir.h"

/* ---- unreachable blocks --------------------------------------------------------- */

int ir_remove_unreachable(IrCFG *cfg) {
  if (!cfg->entry || cfg->nblocks == 0) return 0;
  Arena *scratch = arena_new();
  IrBlock **stack = ARENA_NEW_ARRAY(scratch, IrBlock *, cfg->nblocks);
  for (int i = 0; i < cfg->nblocks; i++) cfg->blocks[i]->scratch = 0;
  int sp = 0;
  stack[sp++] = cfg->entry;
  cfg->entry->scratch = 1;
  while (sp > 0) {
    IrBlock *b = stack[--sp];
    for (int s = 0; s < ir_block_nsuccs(b); s++) {
      IrBlock *t = b->term.succ[s];
      if (t && t->cfg == cfg && !t->scratch && sp < cfg->nblocks) {
        t->scratch = 1;
        stack[sp++] = t;
      }
    }
  }
  /* Drop the outgoing edges of dead blocks first: their live successors
   * lose the matching predecessor slots and phi arguments. */
  int dead = 0;
  for (int i = 0; i < cfg->nblocks; i++)
    if (!cfg->blocks[i]->scratch) {
      ir_block_clear_term(cfg->blocks[i]);
      dead++;
    }
  if (dead) {
    int n = 0;
    for (int i = 0; i < cfg->nblocks; i++) {
      IrBlock *b = cfg->blocks[i];
      if (b->scratch) {
        cfg->blocks[n++] = b;
      } else {
        for (int j = 0; j < b->nphis; j++) b->phis[j]->block = NULL;
        for (int j = 0; j < b->ninstrs; j++) b->instrs[j]->block = NULL;
        if (cfg->exit == b) cfg->exit = NULL;
      }
    }
    cfg->nblocks = n;
  }
  arena_free(scratch);
  return dead;
}

/* ---- constant branches --------------------------------------------------------------- */

static int fold_branches(IrCFG *cfg) {
  int n = 0;
  for (int i = 0; i < cfg->nblocks; i++) {
    IrBlock *b = cfg->blocks[i];
    IrVar *c = b->term.value;
    if (b->term.kind != IR_T_BRANCH || !c || !c->def || c->def->kind != IR_I_LIT ||
        c->def->lit.kind != IR_LIT_BOOL || c->cfg != cfg)
      continue;
    ir_block_branch_to_jump(b, c->def->lit.b ? 0 : 1);
    n++;
  }
  return n;
}

/* ---- mark and sweep ------------------------------------------------------------------- */

static bool removable(const IrModule *m, const IrInstr *in) {
  switch (in->kind) {
  case IR_I_OP: {
    const IrOpInfo *info = ir_op_info(m->level, in->op);
    return info && !(info->flags & IR_OPF_EFFECT) && in->dst;
  }
  case IR_I_GLOBAL_SET:
  case IR_I_STATE_SET: return false;
  default: return in->dst != NULL;
  }
}

typedef struct Marker {
  IrInstr **work;
  int n, cap;
  Arena *a;
  IrCFG *cfg;
} Marker;

static void mark(Marker *mk, IrInstr *in) {
  if (!in || in->mark) return;
  in->mark = true;
  if (mk->n == mk->cap) {
    int ncap = mk->cap ? mk->cap * 2 : 64;
    IrInstr **nw = ARENA_NEW_ARRAY(mk->a, IrInstr *, ncap);
    for (int i = 0; i < mk->n; i++) nw[i] = mk->work[i];
    mk->work = nw;
    mk->cap = ncap;
  }
  mk->work[mk->n++] = in;
}

static void mark_var(Marker *mk, IrVar *v) {
  if (v && v->def && v->cfg == mk->cfg) mark(mk, v->def);
}

static int sweep(IrInstr **list, int *n, bool (*keep)(const IrModule *, const IrInstr *),
                 const IrModule *m) {
  int k = 0, removed = 0;
  for (int i = 0; i < *n; i++) {
    IrInstr *in = list[i];
    if (keep(m, in)) {
      list[k++] = in;
    } else {
      in->block = NULL;
      removed++;
    }
  }
  *n = k;
  return removed;
}

static bool is_live(const IrModule *m, const IrInstr *in) { return in->mark || !removable(m, in); }

static int dead_instrs(IrCFG *cfg) {
  const IrModule *m = cfg->module;
  Arena *scratch = arena_new();
  Marker mk = {NULL, 0, 0, scratch, cfg};
  /* One walk clears the marks and marks the roots of each block (the walks
   * of a CFG of 10^5 blocks are what costs: each misses the cache at every
   * block). A terminator's operand is marked after the walk: its definition
   * may be in a block whose marks are not cleared yet. */
  IrVar **tv = ARENA_NEW_ARRAY(scratch, IrVar *, cfg->nblocks > 0 ? cfg->nblocks : 1);
  int ntv = 0;
  for (int i = 0; i < cfg->nblocks; i++) {
    IrBlock *b = cfg->blocks[i];
    for (int j = 0; j < b->nphis; j++) b->phis[j]->mark = false;
    for (int j = 0; j < b->ninstrs; j++) {
      IrInstr *in = b->instrs[j];
      in->mark = false;
      if (!removable(m, in)) mark(&mk, in);
    }
    if (b->term.value) tv[ntv++] = b->term.value;
  }
  for (int i = 0; i < ntv; i++) mark_var(&mk, tv[i]);
  while (mk.n > 0) {
    IrInstr *in = mk.work[--mk.n];
    for (int a = 0; a < in->nargs; a++) mark_var(&mk, in->args[a]);
  }
  int removed = 0;
  for (int i = 0; i < cfg->nblocks; i++) {
    IrBlock *b = cfg->blocks[i];
    removed += sweep(b->phis, &b->nphis, is_live, m);
    removed += sweep(b->instrs, &b->ninstrs, is_live, m);
  }
  arena_free(scratch);
  return removed;
}

static int count_instrs(const IrCFG *cfg) {
  int n = 0;
  for (int i = 0; i < cfg->nblocks; i++) n += cfg->blocks[i]->nphis + cfg->blocks[i]->ninstrs;
  return n;
}

int ir_dce_cfg(IrCFG *cfg) {
  /* What disappears with unreachable blocks counts as removed too (counted
   * only when blocks went: a walk less in the common case). */
  int before = count_instrs(cfg);
  fold_branches(cfg);
  int removed = ir_remove_unreachable(cfg) ? before - count_instrs(cfg) : 0;
  return removed + dead_instrs(cfg);
}

int ir_dce_module(IrModule *m) {
  int n = 0;
  for (int i = 0; i < m->ncfgs; i++) n += ir_dce_cfg(m->cfgs[i]);
  return n;
}
