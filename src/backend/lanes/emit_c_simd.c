/* emit_c_simd.c -- across-strand SIMD (--simd=strands; doc/backend.md §4).
 *
 * d_update_group runs the update of D_SIMD_W consecutive strands at once:
 * every LowIR value holds one lane per strand (emit_c_lanes.c prints the
 * instructions). The blocks run in a topological order of the CFG without
 * its back edges, each under a lane mask (a block no lane reaches is
 * skipped); branches split masks, phis become per-lane selects and exits
 * set a per-lane status. A natural loop runs its blocks in a C loop until
 * no lane takes its back edge; values defined in it and used after it are
 * kept per lane (find_keeps). Each lane computes exactly what the scalar
 * update computes for its strand (same operations in the same order), so
 * outputs are those of the scalar code (up to FMA contraction, which the C
 * compiler may apply differently to the two; -ffp-contract=off makes them
 * bitwise equal).
 *
 * Effects (print, new, a probe or index error) stay scalar: a group in
 * which a lane reaches one gives up before writing anything (state writes
 * live in the exit blocks, which run last) and the chunk loop runs its
 * strands through the scalar update, in order. An update that cannot be
 * printed this way (irreducible loops, state writes outside exit blocks,
 * other strands' state but sphere() neighbours' pos, dynamic sequences but
 * sphere() results, reductions, ...) keeps the scalar path alone;
 * emit_simd_report() says why. */
#include "backend/lanes/lanes.h"

#include <inttypes.h>
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

/* A natural loop of the update: its blocks are order[first..last], the
 * header first; parent is the enclosing loop (-1: none). */
typedef struct SimdLoop {
  IrBlock *header;
  int parent, first, last;
  bool *member; /* by block index */
} SimdLoop;

/* The plan: the update CFG's reachable blocks in a topological order of
 * the graph without its back edges, each loop's blocks together, the exit
 * blocks last; NULL when the update cannot run in lane mode. */
typedef struct SimdPlan {
  IrCFG *cfg;
  IrBlock **order;
  int n;
  SimdLoop *loops;
  int nloops;
  int *loop_of; /* by block index: the innermost loop, -1 */
  bool *keep;   /* by variable id: defined in a loop, used after it */
  int nkeep;    /* ids below this */
} SimdPlan;

/* b's index in cfg->blocks: its scratch field when plan_build set it (and
 * nothing changed it since), else a search. */
static int block_index(const IrCFG *cfg, const IrBlock *b) {
  if (b->scratch >= 0 && b->scratch < cfg->nblocks && cfg->blocks[b->scratch] == b) return b->scratch;
  for (int i = 0; i < cfg->nblocks; i++)
    if (cfg->blocks[i] == b) return i;
  return -1;
}

/* Definition i of block b: its phis', then its instructions' results
 * (i < b->nphis + b->ninstrs; NULL for an instruction without one). */
static IrVar *block_def(const IrBlock *b, int i) {
  return i < b->nphis ? b->phis[i]->dst : b->instrs[i - b->nphis]->dst;
}

static int nsucc(const IrBlock *b) {
  return b->term.kind == IR_T_JUMP ? 1 : b->term.kind == IR_T_BRANCH ? 2 : 0;
}

/* successor s of b, NULL for a branch's repeated target */
static IrBlock *succ_of(const IrBlock *b, int s) {
  return s == 1 && b->term.succ[1] == b->term.succ[0] ? NULL : b->term.succ[s];
}

/* The blocks at most: larger updates gain little and cost compile time. */
enum { SIMD_MAX_BLOCKS = 400 };

static SimdPlan *refuse(EmitCtx *e, const char *why) {
  emit_lanes_state(e)->simd_why = why;
  return NULL;
}

/* Whether loop l (or the whole update, l < 0) holds block i. */
static bool in_region(const SimdPlan *p, int l, int i) {
  return l < 0 ? p->cfg->blocks[i]->rpo >= 0 : p->loops[l].member[i];
}

/* The block that stands for block i in the region of loop l: i itself, or
 * the header of the loop directly inside l that holds i. */
static int region_rep(const SimdPlan *p, int l, int i) {
  int k = p->loop_of[i];
  if (k == l) return i;
  while (p->loops[k].parent != l) k = p->loops[k].parent;
  return block_index(p->cfg, p->loops[k].header);
}

/* Appends the blocks of the region of loop l (the whole update: l < 0) in
 * a topological order of its blocks and directly nested loops (each
 * placed whole, recursively), exit blocks at the end of the update;
 * false when some are left over (a cycle that is not a natural loop). */
static bool order_region(EmitCtx *e, SimdPlan *p, int l, IrBlock **exits, int *nexits) {
  IrCFG *cfg = p->cfg;
  int nb = cfg->nblocks;
  bool *edge = arena_alloc(e->a, (size_t)nb * (size_t)nb);
  int *indeg = arena_alloc(e->a, (size_t)nb * sizeof *indeg);
  int *stack = arena_alloc(e->a, (size_t)nb * sizeof *stack);
  memset(edge, 0, (size_t)nb * (size_t)nb);
  memset(indeg, 0, (size_t)nb * sizeof *indeg);
  int nreps = 0, placed = 0;
  for (int i = 0; i < nb; i++) {
    if (!in_region(p, l, i)) continue;
    int ri = region_rep(p, l, i);
    nreps += ri == i;
    for (int s = 0; s < nsucc(cfg->blocks[i]); s++) {
      IrBlock *t = succ_of(cfg->blocks[i], s);
      int j = t ? block_index(cfg, t) : -1;
      if (j < 0 || !in_region(p, l, j) || (l >= 0 && t == p->loops[l].header)) continue;
      int rj = region_rep(p, l, j);
      if (ri != rj && !edge[ri * nb + rj]) edge[ri * nb + rj] = true, indeg[rj]++;
    }
  }
  int sp = 0;
  stack[sp++] = l < 0 ? 0 : block_index(cfg, p->loops[l].header);
  while (sp) {
    int r = stack[--sp];
    placed++;
    IrBlock *b = cfg->blocks[r];
    int k = p->loop_of[r];
    if (k != l && p->loops[k].header == b) { /* a nested loop, whole */
      p->loops[k].first = p->n;
      if (!order_region(e, p, k, exits, nexits)) return false;
      p->loops[k].last = p->n - 1;
    } else if (is_exit(b)) {
      exits[(*nexits)++] = b;
    } else {
      p->order[p->n++] = b;
    }
    for (int j = 0; j < nb; j++)
      if (edge[r * nb + j] && --indeg[j] == 0) stack[sp++] = j;
  }
  return placed == nreps;
}

/* The natural loops (a back edge u -> h: h dominates u), one per header,
 * and the innermost loop of each block. */
static void find_loops(EmitCtx *e, SimdPlan *p) {
  IrCFG *cfg = p->cfg;
  int nb = cfg->nblocks;
  p->loops = arena_alloc(e->a, (size_t)nb * sizeof *p->loops);
  p->nloops = 0;
  p->loop_of = arena_alloc(e->a, (size_t)nb * sizeof *p->loop_of);
  int *work = arena_alloc(e->a, (size_t)nb * sizeof *work);
  for (int u = 0; u < nb; u++) {
    IrBlock *ub = cfg->blocks[u];
    if (ub->rpo < 0) continue;
    for (int s = 0; s < nsucc(ub); s++) {
      IrBlock *h = succ_of(ub, s);
      if (!h || !ir_dominates(h, ub)) continue;
      SimdLoop *L = NULL;
      for (int k = 0; k < p->nloops; k++)
        if (p->loops[k].header == h) L = &p->loops[k];
      if (!L) {
        L = &p->loops[p->nloops++];
        L->header = h;
        L->parent = -1;
        L->member = arena_alloc(e->a, (size_t)nb);
        memset(L->member, 0, (size_t)nb);
        L->member[block_index(cfg, h)] = true;
      }
      /* the blocks that reach u without passing h */
      int nw = 0;
      if (!L->member[u]) L->member[u] = true, work[nw++] = u;
      while (nw) {
        IrBlock *b = cfg->blocks[work[--nw]];
        for (int q = 0; q < b->npreds; q++) {
          int j = block_index(cfg, b->preds[q]);
          if (j >= 0 && cfg->blocks[j]->rpo >= 0 && !L->member[j]) L->member[j] = true, work[nw++] = j;
        }
      }
    }
  }
  /* nesting: the smallest other loop that holds the header */
  int *size = arena_alloc(e->a, (size_t)(p->nloops + 1) * sizeof *size);
  for (int k = 0; k < p->nloops; k++) {
    size[k] = 0;
    for (int i = 0; i < nb; i++) size[k] += p->loops[k].member[i];
  }
  for (int k = 0; k < p->nloops; k++) {
    int h = block_index(cfg, p->loops[k].header);
    for (int o = 0; o < p->nloops; o++)
      if (o != k && p->loops[o].member[h] && size[o] > size[k] &&
          (p->loops[k].parent < 0 || size[o] < size[p->loops[k].parent]))
        p->loops[k].parent = o;
  }
  for (int i = 0; i < nb; i++) {
    p->loop_of[i] = -1;
    for (int k = 0; k < p->nloops; k++)
      if (p->loops[k].member[i] && (p->loop_of[i] < 0 || size[k] < size[p->loop_of[i]]))
        p->loop_of[i] = k;
  }
}

/* The innermost loop of v's definition, -1. */
static int def_loop(const SimdPlan *p, const IrVar *v) {
  const IrBlock *d = v && v->def ? v->def->block : NULL;
  int i = d ? block_index(p->cfg, d) : -1;
  return i < 0 ? -1 : p->loop_of[i];
}

/* v used at block index u (a phi argument: at its predecessor) */
static void note_use(SimdPlan *p, const IrVar *v, int u) {
  int l = v ? def_loop(p, v) : -1;
  if (l >= 0 && u >= 0 && !p->loops[l].member[u] && v->id >= 0 && v->id < p->nkeep) p->keep[v->id] = true;
}

/* The values defined in a loop and used after it. Every lane computes
 * every instruction of a block that some lane runs, so a lane that left
 * the loop would see such a value overwritten by later iterations of the
 * others: v_keep holds each lane's value of its last pass through v's
 * block, and the code after the loop reads that (emit_simd_group). False
 * for a value with no lane form to keep. */
static bool find_keeps(EmitCtx *e, SimdPlan *p) {
  IrCFG *cfg = p->cfg;
  p->nkeep = e->m->next_var_id;
  p->keep = arena_alloc(e->a, (size_t)p->nkeep + 1);
  memset(p->keep, 0, (size_t)p->nkeep + 1);
  if (!p->nloops) return true;
  for (int u = 0; u < cfg->nblocks; u++) {
    IrBlock *b = cfg->blocks[u];
    if (b->rpo < 0) continue;
    for (int i = 0; i < b->nphis; i++)
      for (int k = 0; k < b->phis[i]->nargs && k < b->npreds; k++)
        note_use(p, b->phis[i]->args[k], block_index(cfg, b->preds[k]));
    for (int i = 0; i < b->ninstrs; i++)
      for (int k = 0; k < b->instrs[i]->nargs; k++) note_use(p, b->instrs[i]->args[k], u);
    if (b->term.value) note_use(p, b->term.value, u);
  }
  for (int u = 0; u < cfg->nblocks; u++) {
    IrBlock *b = cfg->blocks[u];
    for (int i = 0; i < b->nphis + b->ninstrs; i++) {
      const IrVar *v = block_def(b, i);
      if (v && v->id >= 0 && v->id < p->nkeep && p->keep[v->id] && v->ty->kind == IR_TY_SEQ &&
          v->ty->len == IR_SEQ_DYNAMIC)
        return false;
    }
  }
  return true;
}

static SimdPlan *plan_build(EmitCtx *e) {
  IrCFG *cfg = ir_module_find_cfg(e->m, IR_CFG_UPDATE);
  /* one mask type for reals and ints: comparisons of either give it */
  if (e->opt->double_real != e->opt->long_int)
    return refuse(e, "int and real differ in size (--double without --long-int, or the reverse)");
  if (!cfg || cfg->entry != cfg->blocks[0]) return refuse(e, "no update");
  if (cfg->nblocks > SIMD_MAX_BLOCKS) return refuse(e, "too many blocks");
  int nb = cfg->nblocks;
  for (int i = 0; i < nb; i++) cfg->blocks[i]->scratch = i; /* block_index */
  for (int i = 0; i < nb; i++)
    for (int s = 0; s < nsucc(cfg->blocks[i]); s++)
      if (block_index(cfg, cfg->blocks[i]->term.succ[s]) < 0) return refuse(e, "a successor outside the CFG");
  ir_cfg_compute_dominators(cfg);
  SimdPlan *p = arena_alloc(e->a, sizeof *p);
  p->cfg = cfg;
  p->order = arena_alloc(e->a, (size_t)nb * sizeof *p->order);
  p->n = 0;
  find_loops(e, p);
  IrBlock **exits = arena_alloc(e->a, (size_t)nb * sizeof *exits);
  int nexits = 0;
  if (!order_region(e, p, -1, exits, &nexits)) return refuse(e, "a loop that is not a natural loop");
  for (int k = 0; k < p->nloops; k++)
    if (is_exit(p->loops[k].header)) return refuse(e, "a loop that is not a natural loop");
  for (int i = 0; i < nexits; i++) p->order[p->n++] = exits[i];
  if (!find_keeps(e, p)) return refuse(e, "a sphere() result used after its loop");
  /* every instruction must have a lane form; state writes only in exits,
   * effects nowhere in them (exits run after the fallback decision) */
  for (int k = 0; k < p->n; k++) {
    IrBlock *b = p->order[k];
    for (int i = 0; i < b->nphis; i++) {
      const IrType *t = b->phis[i]->dst ? b->phis[i]->dst->ty : NULL;
      if (t && (!emit_lanes_type(e, t) || t->kind == IR_TY_IMAGE || t->kind == IR_TY_STRING ||
                (t->kind == IR_TY_SEQ && t->len == IR_SEQ_DYNAMIC)))
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
  EmitLanesState *ls = emit_lanes_state(e);
  if (!ls->simd_planned) {
    ls->simd_planned = true;
    IrCFG *cfg = e->cfg; /* the lane forms look at the update (sphere results) */
    e->cfg = ir_module_find_cfg(e->m, IR_CFG_UPDATE);
    ls->simd_plan = plan_build(e);
    e->cfg = cfg;
  }
  return ls->simd_plan;
}

/* Whether groups pay for the update (--simd=auto): it reads image
 * samples (the work groups speed up most) and can run again (an exit that
 * continues), so that a group keeps its strands' state in registers across
 * updates. An update of a few arithmetic operations gains less than its
 * carriers and lane bookkeeping cost, and one that every strand runs once
 * (a probe of each point of a grid) gathers its taps where the scalar code
 * loads rows of them. One that queries sphere() gained 5 % (halftone: its
 * loops over neighbours wait on the cache as the scalar code does, and
 * lanes idle while the longest list runs) for four times the compile time
 * (bench/results.md). */
static bool plan_pays(const SimdPlan *p) {
  bool probes = false, again = false, queries = false;
  for (int k = 0; k < p->n; k++) {
    again |= p->order[k]->term.kind == IR_T_CONTINUE || p->order[k]->term.kind == IR_T_RETURN;
    for (int i = 0; i < p->order[k]->ninstrs; i++) {
      const IrInstr *in = p->order[k]->instrs[i];
      probes |= in->kind == IR_I_OP && (in->op == IR_LOP_LOAD || in->op == IR_LOP_VLOAD);
      queries |= in->kind == IR_I_OP && (in->op == IR_OP_SPHERE || in->op == IR_OP_SPHERE_AT);
    }
  }
  return probes && again && !queries;
}

void emit_simd_facts(EmitCtx *e, SchedFacts *f) {
  /* the plan over the update as it is (no flag decides whether one exists) */
  if (!emit_step_chunked(e)) return;
  const SimdPlan *p = plan_of(e);
  f->update_groupable = p != NULL;
  f->groups_why = p ? NULL : emit_lanes_state(e)->simd_why;
  if (!p) return;
  for (int k = 0; k < p->n; k++) {
    const IrBlock *b = p->order[k];
    f->update_again |= b->term.kind == IR_T_CONTINUE || b->term.kind == IR_T_RETURN;
    for (int i = 0; i < b->ninstrs; i++) {
      const IrInstr *in = b->instrs[i];
      f->update_probes |= in->kind == IR_I_OP && (in->op == IR_LOP_LOAD || in->op == IR_LOP_VLOAD);
      f->update_sphere |= in->kind == IR_I_OP && (in->op == IR_OP_SPHERE || in->op == IR_OP_SPHERE_AT);
    }
  }
}

bool emit_simd_used(EmitCtx *e) {
  if (!(e->opt->simd_strands || e->opt->simd_auto) || !emit_step_chunked(e) || !plan_of(e))
    return false;
  return e->opt->simd_strands || plan_pays(emit_lanes_state(e)->simd_plan);
}

const char *emit_simd_report(EmitCtx *e) {
  if (!e->opt->simd_strands && !e->opt->simd_auto) return NULL;
  if (!emit_step_chunked(e)) return "the update stays scalar: no update, or not a C target";
  if (!plan_of(e)) return arena_printf(e->a, "the update stays scalar: %s", emit_lanes_state(e)->simd_why);
  if (!emit_simd_used(e))
    return "the update stays scalar: it reads no image, never runs twice, or queries sphere() "
           "(--simd=strands forces groups)";
  return arena_printf(e->a, "the update also runs in groups of D_SIMD_W strands (%d blocks)",
                      emit_lanes_state(e)->simd_plan->n);
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

/* ---- rows of samples ------------------------------------------------------------------ */

/* A probe loads its taps along the fastest image axis at offsets o+c,
 * o+c+1, ... of one base o (tent: 2, ctmr and bspln3: 4, c4hexic: 6), or
 * with clamp border control at a + clamp(x+c, n), a + clamp(x+c+1, n), ...
 * Loads of one image at one such base and consecutive constants c print
 * as d_row4/d_row2 (d_row4c/d_row2c) at the first of them (emit_c_lanes.c).
 * row[i] of the block's instruction i: 0 printed as it is, -1 done by an
 * earlier row, k > 0 the first of the row rows[k - 1]. */
typedef struct RowKey {
  const IrVar *img, *a, *x, *n; /* x, n: NULL without clamp */
  int64_t c;
} RowKey;

typedef struct Row {
  IrInstr *in[4];
  int n;
  RowKey key; /* of in[0] */
} Row;

typedef struct RowPlan {
  int *row;
  Row *rows;
} RowPlan;

static bool int_lit(const IrVar *v, int64_t *c) {
  const IrInstr *d = v ? v->def : NULL;
  if (!d || d->kind != IR_I_LIT || d->lit.kind != IR_LIT_INT) return false;
  *c = d->lit.i;
  return true;
}

static const IrInstr *op_def(const IrVar *v, int op) {
  const IrInstr *d = v ? v->def : NULL;
  return d && d->kind == IR_I_OP && d->op == op && d->nargs == 2 ? d : NULL;
}

/* v = base + c, the base a variable (c = 0: v itself) */
static const IrVar *offset_base(const IrVar *v, int64_t *c) {
  const IrInstr *d = op_def(v, IR_OP_IADD);
  *c = 0;
  if (d) {
    if (int_lit(d->args[1], c)) return d->args[0];
    if (int_lit(d->args[0], c)) return d->args[1];
  }
  return v;
}

/* The row key of a load: its offset a + clamp(x + c, n) or a + c. */
static bool row_key(const IrInstr *in, RowKey *k) {
  if (in->kind != IR_I_OP || in->op != IR_LOP_LOAD || !in->dst || in->nargs != 2) return false;
  k->img = in->args[0];
  const IrInstr *s = op_def(in->args[1], IR_OP_IADD);
  for (int side = 0; s && side < 2; side++) {
    const IrInstr *cl = op_def(s->args[side], IR_LOP_CLAMP_INDEX);
    if (!cl) continue;
    k->a = s->args[1 - side];
    k->x = offset_base(cl->args[0], &k->c);
    k->n = cl->args[1];
    return true;
  }
  k->x = k->n = NULL;
  k->a = offset_base(in->args[1], &k->c);
  return true;
}

static bool same_family(const RowKey *p, const RowKey *q) {
  return p->img == q->img && p->a == q->a && p->x == q->x && p->n == q->n;
}

static RowPlan plan_rows(EmitCtx *e, const IrBlock *b) {
  int n = b->ninstrs;
  RowPlan p;
  p.row = ARENA_NEW_ARRAY(e->a, int, n > 0 ? n : 1);
  p.rows = ARENA_NEW_ARRAY(e->a, Row, n / 2 + 1);
  memset(p.row, 0, sizeof *p.row * (size_t)(n > 0 ? n : 1));
  int nrows = 0;
  for (int i = 0; i < n; i++) {
    RowKey k0;
    if (p.row[i] || !row_key(b->instrs[i], &k0)) continue;
    /* the loads of the same family at c0 - 3 .. c0 + 3, not yet in a row */
    IrInstr *at[7] = {0};
    int pos[7];
    RowKey keys[7];
    for (int j = i; j < n; j++) {
      RowKey k;
      if (p.row[j] || !row_key(b->instrs[j], &k) || !same_family(&k, &k0) || k.c < k0.c - 3 ||
          k.c > k0.c + 3 || at[k.c - k0.c + 3])
        continue;
      at[k.c - k0.c + 3] = b->instrs[j];
      pos[k.c - k0.c + 3] = j;
      keys[k.c - k0.c + 3] = k;
    }
    /* the first run of four that holds this load (at[3]), else of two */
    for (int w = 4; w >= 2; w -= 2) {
      int s0 = 4 - w;
      for (; s0 <= 3; s0++) {
        int k = 0;
        while (k < w && at[s0 + k]) k++;
        if (k == w) break;
      }
      if (s0 > 3) continue;
      Row *r = &p.rows[nrows];
      r->n = w;
      r->key = keys[s0];
      int first = pos[s0];
      for (int k = 0; k < w; k++) {
        r->in[k] = at[s0 + k];
        p.row[pos[s0 + k]] = -1;
        if (pos[s0 + k] < first) first = pos[s0 + k];
      }
      p.row[first] = ++nrows;
      break;
    }
  }
  return p;
}

static void emit_row(EmitCtx *e, EmitBuf *out, const Row *r, int blk) {
  const RowKey *k = &r->key;
  const char *dst[4];
  for (int i = 0; i < r->n; i++) dst[i] = var0(e, r->in[i]->dst);
  const char *c = arena_printf(e->a, "d_splati((dlint)%" PRId64 ")", k->c);
  if (k->x)
    emit_lanes_row(e, out, r->n, var0(e, k->img), var0(e, k->a),
                   arena_printf(e->a, "%s + %s", var0(e, k->x), c), var0(e, k->n), blk, dst);
  else
    emit_lanes_row(e, out, r->n, var0(e, k->img), arena_printf(e->a, "%s + %s", var0(e, k->a), c),
                   NULL, NULL, blk, dst);
}

/* The mask an edge b -> s adds its lanes to: the next iteration's of a
 * loop for a back edge, else s's. */
static const char *edge_mask(EmitCtx *e, const SimdPlan *p, const IrBlock *b, const IrBlock *s) {
  for (int k = 0; k < p->nloops; k++)
    if (p->loops[k].header == s && p->loops[k].member[block_index(p->cfg, b)])
      return arena_printf(e->a, "d_lp%d", s->id);
  return arena_printf(e->a, "d_m%d", s->id);
}

static bool kept(const SimdPlan *p, const IrVar *v) {
  return v && v->id >= 0 && v->id < p->nkeep && p->keep[v->id];
}

static void emit_block(EmitCtx *e, EmitBuf *out, const SimdPlan *p, IrBlock *b) {
  OUT(" /* L%d%s%s */\n  if (d_any(d_m%d)) {\n", b->id, b->label ? ": " : "", b->label ? b->label : "",
      b->id);
  for (int i = 0; i < b->nphis; i++)
    if (b->phis[i]->dst) OUT("  %s = %s_in;\n", var0(e, b->phis[i]->dst), var0(e, b->phis[i]->dst));
  RowPlan rows = plan_rows(e, b);
  for (int i = 0; i < b->ninstrs; i++) {
    IrInstr *in = b->instrs[i];
    if (rows.row[i] > 0) emit_row(e, out, &rows.rows[rows.row[i] - 1], b->id);
    if (rows.row[i]) continue;
    if (!emit_lanes_instr(e, out, in, b->id)) {
      emit_fail(e, "simd: an instruction without a lane form");
      return;
    }
    if (is_effect(in)) { /* it returned: the rest of the block is not reached */
      OUT("  }\n");
      return;
    }
  }
  /* the lanes that passed here keep this pass's values (find_keeps) */
  for (int i = 0; i < b->nphis + b->ninstrs; i++) {
    const IrVar *v = block_def(b, i);
    const char *t = kept(p, v) ? emit_lanes_type(e, v->ty) : NULL;
    if (t && !strchr(t, '*')) /* pointers (images, strings) are the group's */
      emit_lanes_select(e, out, v->ty, arena_printf(e->a, "%s_keep", var0(e, v)),
                        arena_printf(e->a, "d_m%d", b->id), var0(e, v),
                        arena_printf(e->a, "%s_keep", var0(e, v)));
  }
  IrTerm *t = &b->term;
  switch (t->kind) {
  case IR_T_JUMP:
    phi_edge(e, out, b, t->succ[0], arena_printf(e->a, "d_m%d", b->id));
    OUT("  %s |= d_m%d;\n", edge_mask(e, p, b, t->succ[0]), b->id);
    break;
  case IR_T_BRANCH: {
    const char *c = var0(e, t->value);
    OUT("  { const dlanei d_t = d_m%d & %s, d_f = d_m%d & ~%s;\n", b->id, c, b->id, c);
    phi_edge(e, out, b, t->succ[0], "d_t");
    if (t->succ[1] != t->succ[0]) phi_edge(e, out, b, t->succ[1], "d_f");
    OUT("  %s |= d_t;\n  %s |= d_f; }\n", edge_mask(e, p, b, t->succ[0]), edge_mask(e, p, b, t->succ[1]));
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
  case IR_T_ERROR: OUT("  goto d_effect;\n"); break; /* after an effect: not reached */
  case IR_T_NONE: emit_fail(e, "simd: a block without a terminator"); break;
  }
  OUT("  }\n");
}

/* A loop's lanes run its blocks together until none takes a back edge:
 * d_lp<h> gathers the lanes of the next iteration; each iteration starts
 * with its lanes at the header and no lane elsewhere in the loop. */
static void loop_open(EmitCtx *e, EmitBuf *out, const SimdPlan *p, const SimdLoop *L) {
  (void)e;
  int h = L->header->id;
  OUT(" /* loop L%d */\n  {\n  dlanei d_lp%d = d_m%d;\n  for (;;) {\n  d_m%d = d_lp%d;\n"
      "  d_lp%d = d_splati(0);\n",
      h, h, h, h, h, h);
  for (int k = L->first + 1; k <= L->last; k++) OUT("  d_m%d = d_splati(0);\n", p->order[k]->id);
}

/* The end of loop l: the code after it reads the kept values. */
static void loop_close(EmitCtx *e, EmitBuf *out, const SimdPlan *p, int l) {
  const SimdLoop *L = &p->loops[l];
  OUT("  if (!d_any(d_lp%d)) break;\n  }\n  }\n", L->header->id);
  for (int k = L->first; k <= L->last; k++) {
    const IrBlock *b = p->order[k];
    if (p->loop_of[block_index(p->cfg, b)] != l) continue;
    for (int i = 0; i < b->nphis + b->ninstrs; i++) {
      const IrVar *v = block_def(b, i);
      if (!kept(p, v)) continue;
      const char *keep = arena_printf(e->a, "%s_keep", var0(e, v));
      e->vnames[v->id] = keep; /* var0 registered the id */
    }
  }
}

/* Which state variables the update reads (own state) or writes: they get
 * carriers (1: read, 2: written). */
static unsigned char *state_use(EmitCtx *e, const SimdPlan *p) {
  unsigned char *u = arena_alloc(e->a, (size_t)e->m->nstate + 1);
  memset(u, 0, (size_t)e->m->nstate + 1);
  for (int k = 0; k < p->n; k++)
    for (int i = 0; i < p->order[k]->ninstrs; i++) {
      const IrInstr *in = p->order[k]->instrs[i];
      if (in->kind == IR_I_STATE_GET && in->nargs == 0) u[in->state->index] |= 1;
      if (in->kind == IR_I_STATE_SET) u[in->state->index] |= 2;
    }
  return u;
}

void emit_simd_group(EmitCtx *e, EmitBuf *out) {
  SimdPlan *p = plan_of(e);
  if (!p) return;
  IrCFG *cfg = p->cfg;
  e->cfg = cfg;
  emit_lanes_helpers(e, out);
  bool stab = ir_module_find_cfg(e->m, IR_CFG_STABILIZE) != NULL;
  unsigned char *use = state_use(e, p);
  /* the build compiles this file without FP contraction (EmitInfo, target.c):
   * a strand's update gives the same bits in a group and in the scalar
   * code, whatever thread count, layout or neighbours decide where it runs */
  OUT("#define D_SIMD_GROUPS 1\n\n");
  OUT("/* up to limit updates of the strands i0 .. i0+D_SIMD_W-1 (the active\n"
      " * ones) at once, their state in carriers (d_sv*) meanwhile; the group\n"
      " * stops when few of its lanes are left, or where a lane reaches an\n"
      " * effect (before anything of that update is written: state writes are in\n"
      " * the exit blocks, which run last), and each strand then finishes its\n"
      " * updates in the scalar code, in order. Returns the most updates a\n"
      " * strand ran */\n"
      "static uint32_t d_update_group(DrtCtx *ctx, d_world *restrict wrld, const int64_t d_N,\n"
      "    uint32_t i0, void *self_, unsigned char *status, unsigned char *fresh,\n"
      "    uint32_t limit, uint32_t *ns_, uint32_t *nd_) {\n"
      "  (void)ctx; (void)wrld; (void)d_N;\n");
  for (int v = 0; v < e->m->nstate; v++)
    if (use[v]) OUT("  %s\n", emit_lanes_state_decl(e, e->m->state[v]));
  /* the lanes: active at the start (d_start), still running (d_live), the
   * updates each ran (d_k) and how it left (d_fin); state offsets */
  OUT("  dlanei d_start, d_sidx, d_k = d_splati(0), d_fin = d_splati(DRT_EXIT_CONTINUE);\n"
      "  for (int d_l = 0; d_l < D_SIMD_W; d_l++) {\n"
      "    const int64_t d_i = (int64_t)i0 + d_l;\n"
      "    d_sidx[d_l] = (dlint)(%s);\n"
      "    d_start[d_l] = status[i0 + d_l] == DRT_ACTIVE ? -1 : 0;\n  }\n  (void)d_sidx;\n"
      "  dlanei d_live = d_start;\n",
      emit_simd_state_dep(e));
  for (int v = 0; v < e->m->nstate; v++)
    if (use[v]) emit_lanes_state_xfer(e, out, e->m->state[v], true, "d_start");
  /* one update of the running lanes; its values are declared here, so
   * that none is carried from one update to the next (the carriers and
   * lane records above are) */
  OUT("  for (uint32_t d_it = 1;; d_it++) {\n");
  for (int k = 0; k < p->n; k++) {
    IrBlock *b = p->order[k];
    OUT("  dlanei d_m%d = %s;\n", b->id, b == cfg->entry ? "d_live" : "d_splati(0)");
    for (int i = 0; i < b->nphis; i++)
      if (b->phis[i]->dst) {
        decl(e, out, b->phis[i]->dst, "");
        decl(e, out, b->phis[i]->dst, "_in");
      }
    for (int i = 0; i < b->ninstrs; i++)
      if (b->instrs[i]->dst) decl(e, out, b->instrs[i]->dst, "");
    for (int i = 0; i < b->nphis + b->ninstrs; i++) {
      const IrVar *v = block_def(b, i);
      if (kept(p, v)) decl(e, out, v, "_keep");
    }
  }
  OUT("  dlanei d_r = d_splati(DRT_EXIT_CONTINUE);\n");
  /* the names the code after a loop reads, restored at the end */
  const char **names = arena_alloc(e->a, (size_t)(e->nvnames + 1) * sizeof *names);
  int nnames = e->nvnames;
  memcpy(names, e->vnames, (size_t)nnames * sizeof *names);
  for (int k = 0; k < p->n; k++) {
    for (int l = 0; l < p->nloops; l++)
      if (p->loops[l].first == k) loop_open(e, out, p, &p->loops[l]);
    emit_block(e, out, p, p->order[k]);
    /* loops that end here, the innermost first */
    for (int first = k; first >= 0; first--)
      for (int l = 0; l < p->nloops; l++)
        if (p->loops[l].last == k && p->loops[l].first == first) loop_close(e, out, p, l);
  }
  OUT("  d_fin = d_seli(d_live, d_r, d_fin);\n"
      "  d_k -= d_live; /* -1 per running lane */\n"
      "  d_live &= d_r == d_splati(DRT_EXIT_CONTINUE);\n"
      "  if (d_it >= limit || ((d_it & 63) == 0 && drt_world_failed(ctx->world))) break;\n"
      "  int d_n = 0;\n"
      "  for (int d_l = 0; d_l < D_SIMD_W; d_l++) d_n += d_live[d_l] != 0;\n"
      "  if (4 * d_n <= D_SIMD_W) break;\n"
      "  }\n"
      " d_effect: __attribute__((unused)); /* an effect's goto, where the update has one */\n");
  memcpy(e->vnames, names, (size_t)nnames * sizeof *names);
  for (int v = 0; v < e->m->nstate; v++)
    if (use[v] & 2) emit_lanes_state_xfer(e, out, e->m->state[v], false, "d_start");
  /* the runtime's bookkeeping, strand by strand in order (stabilize runs
   * after the strand's update, as in the scalar loop), and the scalar rest */
  OUT("  uint32_t most_ = 0;\n"
      "  for (int d_l = 0; d_l < D_SIMD_W; d_l++) {\n"
      "    const uint32_t i = i0 + (uint32_t)d_l;\n"
      "    if (!d_start[d_l]) continue;\n"
      "    uint32_t k_ = (uint32_t)d_k[d_l];\n"
      "    fresh[i] = 0;\n"
      "    if (d_fin[d_l] == DRT_EXIT_STABILIZE) {\n"
      "%s"
      "      status[i] = DRT_STABLE;\n"
      "      ++*ns_;\n"
      "    } else if (d_fin[d_l] == DRT_EXIT_DIE) {\n"
      "      status[i] = DRT_DYING;\n"
      "      ++*nd_;\n"
      "    } else if (k_ < limit && !(limit > 1 && drt_world_failed(ctx->world)))\n"
      "      k_ += d_step_one(ctx, wrld, d_N, i, self_, status, fresh, limit - k_, ns_, nd_);\n"
      "    if (k_ > most_) most_ = k_;\n"
      "  }\n  return most_;\n}\n\n",
      stab ? "      d_strand_stabilize(ctx, i, self_);\n" : "");
}

void emit_simd_chunk_loop(EmitCtx *e, EmitBuf *out) {
  (void)e;
  /* a group with few active strands runs scalar: its lanes would idle */
  /* (the state offsets of a group are dlint lanes: the store must fit) */
  OUT("  if (lo %% D_SIMD_W == 0 && d_N * D_STATE_WORDS < ((int64_t)1 << (8 * sizeof(dlint) - 1)))\n"
      "    for (; i + D_SIMD_W <= hi; i += D_SIMD_W) {\n"
      "      int na_ = 0;\n"
      "      for (int l = 0; l < D_SIMD_W; l++) na_ += status[i + l] == DRT_ACTIVE;\n"
      "      uint32_t k_ = 0;\n"
      "      if (4 * na_ > D_SIMD_W)\n"
      "        k_ = d_update_group(ctx, wrld, d_N, i, store, status, fresh, limit, &ns_, &nd_);\n"
      "      else\n"
      "        for (uint32_t j = i; j < i + D_SIMD_W; j++) {\n"
      "          uint32_t kj_ = d_step_one(ctx, wrld, d_N, j, store, status, fresh, limit, &ns_, &nd_);\n"
      "          if (kj_ > k_) k_ = kj_;\n"
      "          if (limit > 1 && drt_world_failed(ctx->world)) break;\n"
      "        }\n"
      "      if (k_ > most_) most_ = k_;\n"
      "      if (limit > 1 && drt_world_failed(ctx->world)) goto d_done;\n"
      "    }\n");
}
