/* emit_c_loops.c -- loops over sequences with up to D_SIMD_W iterations at once.
 *
 * A strand's foreach over its sphere() neighbours (or over any sequence
 * indexed by a counter i = i0, i0+1, ... < n) computes, per neighbour, a
 * probe, square roots and divisions that do not depend on the other
 * iterations, and folds them into a few accumulators (energy += ...,
 * force += ..., closest = min(closest, ...)). The scalar code runs one
 * iteration after the other, bound by the divider. Here, while at least a
 * quarter of D_SIMD_W iterations remain, the loop's header runs a chunk of
 * up to D_SIMD_W of them instead:
 *
 *   1. every value of the body that does not depend on an accumulator
 *      ("independent") is computed for iterations i .. i+W-1 at once, one
 *      lane each (emit_c_lanes.c prints the instructions; each lane does
 *      what the scalar code does for its iteration, operation for
 *      operation); the body's branches become lane masks (d_m<block>);
 *   2. where a lane would leave the loop (die, stabilize, a probe error)
 *      or reach a print or new, the chunk gives up before anything is
 *      written and the scalar body runs that chunk's iterations (d_lsu);
 *   3. the accumulators ("carried": the header's phis but the counter, and
 *      what depends on them) are updated by the scalar code, lane after
 *      lane in iteration order, reading the lanes' independent values.
 *
 * So every sum is added in the scalar order: the results are bitwise those
 * of the scalar loop, like the across-strand groups (emit_c_simd.c), once
 * the C compiler does not contract a*b+c differently in the two
 * (EmitInfo.loop_lanes: the file is compiled with -ffp-contract=off).
 * A loop is taken only when its independent work pays for the lane
 * bookkeeping (LOOP_MIN_COST) and every independent instruction has a lane
 * form; the last few iterations run in the scalar body (doc/backend.md §5). */
#include "backend/lanes/lanes.h"

#include <string.h>

#define OUT(...) emit_buf_printf(out, __VA_ARGS__)

enum { VAR_OUTSIDE = 0, VAR_LANE = 1, VAR_CARRIED = 2 };

typedef struct LoopPlan {
  IrBlock *header;
  IrBlock **order;      /* the loop's blocks, header first, in a topological order */
  int n;
  IrVar *ivar, *limit;  /* the counter (a header phi) and its bound */
  unsigned char *var;   /* by variable id: VAR_* (defined in the loop) */
  bool *member;         /* by block id */
  bool *fallback;       /* by block id: a lane reaching it sends the chunk to the scalar body */
  IrVar **imports;      /* values from before the loop that lane code reads */
  int nimports;
} LoopPlan;

typedef struct LoopEntry {
  const IrBlock *header;
  LoopPlan *plan; /* NULL: the loop (if any) stays scalar */
} LoopEntry;

/* The smallest independent work (instr_cost units) that pays for a chunk.
 * Doubles fill half as many lanes for the same bookkeeping: halftone built
 * --double (loops of cost 145 and 191, a probe per neighbour) ran 10 %
 * faster in lanes, the sphere and circle examples (37 to 63: a few
 * divisions and a square root) 2-4 % slower (bench/results.md). */
enum { LOOP_MIN_COST = 16, LOOP_MIN_COST_DOUBLE = 96 };

static bool is_effect(const IrInstr *in) {
  return in->kind == IR_I_OP && (in->op == IR_OP_PRINT || in->op == IR_OP_NEW ||
                                 in->op == IR_LOP_PROBE_FAIL || in->op == IR_OP_INDEX_FAIL);
}

static bool is_dseq(const IrType *t) { return t && t->kind == IR_TY_SEQ && t->len == IR_SEQ_DYNAMIC; }

static bool in_loop(const LoopPlan *p, const IrVar *v) {
  return v && v->def && v->def->block && p->member[v->def->block->id];
}

static int nsucc(const IrBlock *b) {
  return b->term.kind == IR_T_JUMP ? 1 : b->term.kind == IR_T_BRANCH ? 2 : 0;
}

/* Element i of a dynamic sequence indexed by a lane counter: the
 * sequences whose elements are one lane value (strands, ints, reals, bools). */
static bool dseq_index(const IrInstr *in) {
  if (in->kind != IR_I_OP || in->op != IR_OP_SEQ_INDEX || in->nargs != 2 || !in->dst) return false;
  const IrType *t = in->args[0]->ty;
  if (!is_dseq(t) || !t->elem) return false;
  IrTypeKind k = t->elem->kind;
  return k == IR_TY_STRAND || k == IR_TY_INT || k == IR_TY_BOOL ||
         (k == IR_TY_TENSOR && t->elem->order == 0);
}

static bool dseq_length(const IrInstr *in) {
  return in->kind == IR_I_OP && in->op == IR_OP_SEQ_LENGTH && in->nargs == 1 && is_dseq(in->args[0]->ty);
}

/* Work of an independent instruction, roughly in additions: what the
 * divider, the square root unit, memory and library calls cost is what
 * lanes save. */
static int instr_cost(const IrModule *m, const IrInstr *in) {
  if (in->kind != IR_I_OP) return in->kind == IR_I_STATE_GET ? 4 : 0;
  if (m->level == IR_LOW &&
      (in->op == IR_LOP_RDIV || in->op == IR_LOP_VDIV || in->op == IR_LOP_LOAD || in->op == IR_LOP_VLOAD))
    return 6;
  if (emit_math_fn1(in->op) || in->op == IR_OP_POW || in->op == IR_OP_ATAN2 || in->op == IR_OP_FMOD) return 6;
  return 1;
}

/* Whether independent instruction `in` of block b can be printed over lanes. */
static bool lane_form(EmitCtx *e, const LoopPlan *p, IrInstr *in, IrBlock *b) {
  if (in->kind == IR_I_STATE_SET || in->kind == IR_I_GLOBAL_SET) return false;
  if (in->kind == IR_I_STATE_GET)
    return in->nargs == 1 && emit_sphere_pos_get_lanes(e, NULL, in, NULL, true, NULL);
  if (dseq_index(in) || dseq_length(in)) return !in_loop(p, in->args[0]);
  if (in->kind == IR_I_OP && (in->op == IR_OP_SPHERE || in->op == IR_OP_SPHERE_AT)) return false;
  if (in->dst && !emit_lanes_type(e, in->dst->ty)) return false;
  for (int k = 0; k < in->nargs; k++)
    if (is_dseq(in->args[k]->ty)) return false;
  return emit_lanes_instr(e, NULL, in, b->id);
}

/* The loop headed by h in cfg (dominators computed), or NULL when it is
 * not one this file can print or it would not pay. */
static LoopPlan *plan_loop(EmitCtx *e, IrCFG *cfg, IrBlock *h) {
  if (h->nphis < 2 || h->term.kind != IR_T_BRANCH || !h->term.value) return NULL;
  const IrInstr *cmp = h->term.value->def;
  if (!cmp || cmp->kind != IR_I_OP || cmp->op != IR_OP_LT || cmp->nargs != 2 || cmp->block != h)
    return NULL;
  IrVar *iv = cmp->args[0], *lim = cmp->args[1];
  if (!iv->def || iv->def->kind != IR_I_PHI || iv->def->block != h || !ir_type_is_int(iv->ty)) return NULL;
  int nb = cfg->next_block_id;
  LoopPlan *p = arena_alloc(e->a, sizeof *p);
  memset(p, 0, sizeof *p);
  p->header = h;
  p->ivar = iv;
  p->limit = lim;
  p->member = arena_alloc(e->a, (size_t)nb);
  p->fallback = arena_alloc(e->a, (size_t)nb);
  memset(p->member, 0, (size_t)nb);
  memset(p->fallback, 0, (size_t)nb);
  /* the natural loop: blocks that reach a latch without passing h */
  IrBlock **work = arena_alloc(e->a, (size_t)(cfg->nblocks + 1) * sizeof *work);
  int nw = 0, nmem = 1;
  p->member[h->id] = true;
  for (int k = 0; k < h->npreds; k++) {
    IrBlock *u = h->preds[k];
    if (!ir_dominates(h, u) || p->member[u->id]) continue;
    p->member[u->id] = true, nmem++, work[nw++] = u;
  }
  while (nw) {
    IrBlock *b = work[--nw];
    for (int k = 0; k < b->npreds; k++) {
      IrBlock *u = b->preds[k];
      if (u->rpo < 0 || p->member[u->id]) continue;
      p->member[u->id] = true, nmem++, work[nw++] = u;
    }
  }
  if (nmem < 2 || !p->member[h->term.succ[0]->id] || p->member[h->term.succ[1]->id]) return NULL;
  /* the bound from before the loop; the counter steps by one on every back edge */
  if (in_loop(p, lim)) return NULL;
  const IrInstr *phi = iv->def;
  for (int k = 0; k < h->npreds && k < phi->nargs; k++) {
    if (!p->member[h->preds[k]->id]) continue;
    const IrInstr *s = phi->args[k]->def;
    if (!s || s->kind != IR_I_OP || s->op != IR_OP_IADD || s->nargs != 2) return NULL;
    const IrVar *one = s->args[0] == iv ? s->args[1] : s->args[1] == iv ? s->args[0] : NULL;
    if (!one || !one->def || one->def->kind != IR_I_LIT || one->def->lit.kind != IR_LIT_INT || one->def->lit.i != 1)
      return NULL;
  }
  /* a topological order without the back edges (none left: no inner loop) */
  int *indeg = arena_alloc(e->a, (size_t)nb * sizeof *indeg);
  memset(indeg, 0, (size_t)nb * sizeof *indeg);
  for (int i = 0; i < cfg->nblocks; i++) {
    IrBlock *b = cfg->blocks[i];
    if (!p->member[b->id]) continue;
    for (int s = 0; s < nsucc(b); s++) {
      IrBlock *t = b->term.succ[s];
      if (s == 1 && t == b->term.succ[0]) continue;
      if (p->member[t->id] && t != h) indeg[t->id]++;
    }
  }
  p->order = arena_alloc(e->a, (size_t)nmem * sizeof *p->order);
  nw = 0;
  work[nw++] = h;
  while (nw) {
    IrBlock *b = work[--nw];
    p->order[p->n++] = b;
    for (int s = nsucc(b) - 1; s >= 0; s--) {
      IrBlock *t = b->term.succ[s];
      if (s == 1 && t == b->term.succ[0]) continue;
      if (p->member[t->id] && t != h && --indeg[t->id] == 0) work[nw++] = t;
    }
  }
  if (p->n != nmem) return NULL;
  /* carried values: the header's phis but the counter, and what uses them */
  int nv = e->m->next_var_id;
  p->var = arena_alloc(e->a, (size_t)nv + 1);
  memset(p->var, 0, (size_t)nv + 1);
  int cost = 0;
  for (int k = 0; k < p->n; k++) {
    IrBlock *b = p->order[k];
    for (int i = 0; i < b->nphis; i++) {
      IrInstr *ph = b->phis[i];
      if (!ph->dst) continue;
      bool c = b == h ? ph->dst != iv : false;
      for (int a = 0; a < ph->nargs && b != h; a++) c = c || (in_loop(p, ph->args[a]) && p->var[ph->args[a]->id] == VAR_CARRIED);
      p->var[ph->dst->id] = c ? VAR_CARRIED : VAR_LANE;
      if (!c && !emit_lanes_type(e, ph->dst->ty)) return NULL;
    }
    for (int i = 0; i < b->ninstrs; i++) {
      IrInstr *in = b->instrs[i];
      if (in->kind == IR_I_STATE_SET || in->kind == IR_I_GLOBAL_SET) return NULL;
      if (is_effect(in)) p->fallback[b->id] = true;
      bool c = false;
      for (int a = 0; a < in->nargs; a++) c = c || (in_loop(p, in->args[a]) && p->var[in->args[a]->id] == VAR_CARRIED);
      if (in->dst) p->var[in->dst->id] = c ? VAR_CARRIED : VAR_LANE;
    }
    const IrVar *cond = b->term.kind == IR_T_BRANCH ? b->term.value : NULL;
    if (cond && in_loop(p, cond) && p->var[cond->id] == VAR_CARRIED) return NULL;
  }
  if (p->fallback[h->id] || p->fallback[h->term.succ[0]->id]) return NULL;
  /* the independent instructions need lane forms (a fallback block's are
   * never printed: a lane there sends the chunk to the scalar body) */
  p->imports = arena_alloc(e->a, (size_t)nv * sizeof *p->imports);
  bool *imported = arena_alloc(e->a, (size_t)nv + 1);
  memset(imported, 0, (size_t)nv + 1);
  for (int k = 0; k < p->n; k++) {
    IrBlock *b = p->order[k];
    if (p->fallback[b->id]) continue;
    for (int i = -b->nphis; i < b->ninstrs; i++) {
      IrInstr *in = i < 0 ? b->phis[i + b->nphis] : b->instrs[i];
      if (!in->dst && i < 0) continue;
      if (in->dst && p->var[in->dst->id] == VAR_CARRIED) continue;
      if (in->kind == IR_I_PHI && b == h) continue; /* the counter */
      if (in->kind != IR_I_PHI) {
        if (!in->dst && in->kind == IR_I_OP && !is_effect(in)) return NULL;
        if (!lane_form(e, p, in, b)) return NULL;
        if (b != h) cost += instr_cost(e->m, in);
      }
      /* values from before the loop read by lane code */
      bool special = dseq_index(in) || dseq_length(in) || in->kind == IR_I_STATE_GET;
      for (int a = special && in->kind != IR_I_STATE_GET ? 1 : 0; a < in->nargs; a++) {
        IrVar *v = in->args[a];
        if (in_loop(p, v) || imported[v->id] || in->kind == IR_I_STATE_GET) continue;
        const IrType *t = v->ty;
        if (t->kind == IR_TY_IMAGE || t->kind == IR_TY_STRING) continue;
        if (!emit_lanes_type(e, t) || is_dseq(t)) return NULL;
        imported[v->id] = true;
        p->imports[p->nimports++] = v;
      }
    }
    /* a branch condition from before the loop: a splat too */
    const IrVar *cond = b->term.kind == IR_T_BRANCH ? b->term.value : NULL;
    if (cond && !in_loop(p, cond) && !imported[cond->id]) {
      imported[cond->id] = true;
      p->imports[p->nimports++] = (IrVar *)cond;
    }
  }
  if (cost < (e->opt->double_real ? LOOP_MIN_COST_DOUBLE : LOOP_MIN_COST)) return NULL;
  return p;
}

static LoopPlan *plan_of(EmitCtx *e, IrCFG *cfg, IrBlock *h) {
  if (h->nphis < 2 || h->term.kind != IR_T_BRANCH) return NULL; /* not a counted loop's header */
  EmitLanesState *ls = emit_lanes_state(e);
  LoopEntry *t = ls->loop_plans;
  for (int i = 0; i < ls->nloop_plans; i++)
    if (t[i].header == h) return t[i].plan;
  if (ls->nloop_plans == ls->caploop_plans) {
    int cap = ls->caploop_plans ? 2 * ls->caploop_plans : 16;
    LoopEntry *n = arena_alloc(e->a, (size_t)cap * sizeof *n);
    if (ls->nloop_plans) memcpy(n, t, (size_t)ls->nloop_plans * sizeof *n);
    ls->loop_plans = t = n;
    ls->caploop_plans = cap;
  }
  LoopPlan *p = NULL;
  /* lanes need the vector types, one mask width for reals and ints (ints
   * as wide as doubles under --double: emit_lanes_wide_ints; floats with
   * 64-bit ints have no such type), and the C printer (the CUDA halves
   * print their own loops) */
  if (!e->opt->scalar && e->opt->target != EMIT_TARGET_CUDA && !e->hooks.instr &&
      (e->opt->double_real || !e->opt->long_int)) {
    ir_cfg_compute_dominators(cfg);
    IrCFG *was = e->cfg;
    e->cfg = cfg; /* lane forms look at the CFG (sphere results) */
    p = plan_loop(e, cfg, h);
    e->cfg = was;
  }
  t[ls->nloop_plans++] = (LoopEntry){h, p};
  return p;
}

int emit_loops_planned(EmitCtx *e) {
  int any = 0;
  for (int c = 0; c < e->m->ncfgs; c++) {
    IrCFG *cfg = e->m->cfgs[c];
    for (int b = 0; b < cfg->nblocks; b++) any += plan_of(e, cfg, cfg->blocks[b]) != NULL;
  }
  emit_lanes_state(e)->loops_found = any > 0;
  return any;
}

bool emit_loops_found(EmitCtx *e) { return emit_lanes_state(e)->loops_found; }

/* ---- printing ------------------------------------------------------------------------ */

static const char *lane_name(EmitCtx *e, const IrVar *v) { return arena_printf(e->a, "%s_L", emit_var(e, v)); }

/* Whether v, defined in the loop, is an independent value with a lane
 * twin `name_L` (images and strings stay one value; dynamic sequences have
 * no lanes: only the special reads use them, by their scalar names). */
static bool has_lanes(EmitCtx *e, const LoopPlan *p, const IrVar *v) {
  return v && in_loop(p, v) && p->var[v->id] == VAR_LANE && !is_dseq(v->ty) && v->ty->kind != IR_TY_IMAGE &&
         v->ty->kind != IR_TY_STRING && emit_lanes_type(e, v->ty);
}

/* While the lane code prints, the loop's independent values and the
 * imports go by their lane names (emit_var's memo, swapped and back;
 * saved holds the scalar names by variable id). */
static void swap_names(EmitCtx *e, const LoopPlan *p, const char **saved, bool on) {
  for (int b = 0; b < p->n; b++) {
    IrBlock *bl = p->order[b];
    for (int i = -bl->nphis; i < bl->ninstrs; i++) {
      IrVar *d = i < 0 ? bl->phis[i + bl->nphis]->dst : bl->instrs[i]->dst;
      if (!has_lanes(e, p, d)) continue;
      if (on) saved[d->id] = emit_var(e, d), e->vnames[d->id] = arena_printf(e->a, "%s_L", saved[d->id]);
      else e->vnames[d->id] = saved[d->id];
    }
  }
  for (int i = 0; i < p->nimports; i++) {
    IrVar *v = p->imports[i];
    if (on) saved[v->id] = emit_var(e, v), e->vnames[v->id] = arena_printf(e->a, "%s_L", saved[v->id]);
    else e->vnames[v->id] = saved[v->id];
  }
}

/* The mask of edge b -> s (lane text), b printed with mask d_m<b>. */
static const char *edge_mask(EmitCtx *e, const LoopPlan *p, const IrBlock *b, const IrBlock *s) {
  if (b->term.kind != IR_T_BRANCH || b->term.succ[0] == b->term.succ[1] || p->fallback[b->id])
    return arena_printf(e->a, "d_m%d", b->id);
  const char *c = emit_var(e, b->term.value); /* lane names are on */
  return arena_printf(e->a, "(d_m%d & %s%s)", b->id, s == b->term.succ[0] ? "" : "~", c);
}

/* The lane code of the special reads: an element of a dynamic sequence at
 * lane indices, its length, a neighbour's pos. */
static void print_special(EmitCtx *e, EmitBuf *out, IrInstr *in, int blk) {
  const char *d = emit_var(e, in->dst);
  if (dseq_length(in)) {
    OUT("  %s = d_splati((dlint)%s.len);\n", d, emit_var(e, in->args[0]));
    return;
  }
  if (dseq_index(in)) {
    const IrType *el = in->args[0]->ty->elem;
    bool real = el->kind == IR_TY_TENSOR;
    const char *sq = emit_var(e, in->args[0]);
    OUT("  { %s r_[D_SIMD_W];\n    for (int d_l = 0; d_l < D_SIMD_W; d_l++) {\n"
        "      const dlint k_ = %s[d_l];\n"
        "      r_[d_l] = d_m%d[d_l] && k_ >= 0 && (int64_t)k_ < (int64_t)%s.len ? %s%s.v[k_]%s : 0;\n"
        "    }\n    memcpy(&%s, r_, sizeof r_); }\n",
        real ? "dreal" : "dlint", emit_var(e, in->args[1]), blk, sq,
        el->kind == IR_TY_BOOL ? "(" : real ? "" : "(dlint)", sq, el->kind == IR_TY_BOOL ? " ? -1 : 0)" : "", d);
    return;
  }
  /* pos of a sphere() neighbour (lane_form checked it) */
  const IrType *dt = in->dst->ty;
  bool whole = dt->kind == IR_TY_TENSOR && dt->order == 0;
  emit_sphere_pos_get_lanes(e, out, in, arena_printf(e->a, "d_m%d", blk), true,
                            arena_printf(e->a, whole ? "&%s" : "%s.v", d));
}

/* Scalar copies of the lane values (of this loop) that instruction or phi
 * arguments read in the per-lane part. */
static void extract_args(EmitCtx *e, EmitBuf *out, const LoopPlan *p, IrVar *const *args, int nargs) {
  for (int a = 0; a < nargs; a++) {
    IrVar *v = args[a];
    if (!has_lanes(e, p, v)) continue;
    emit_lanes_extract(e, out, v->ty, emit_var(e, v), lane_name(e, v), "d_l");
  }
}

/* Lane d_l's part of block b: its carried phis and instructions (the
 * independent values they read copied out of their lanes) and the carried
 * phis of its successors in the loop (of the header: the next lane's). */
static void carried_block(EmitCtx *e, EmitBuf *out, const LoopPlan *p, IrBlock *b) {
  /* the header's phis through x_in (the back edge), a join's assigned on
   * its incoming edges, as the scalar code does (emit_c_cfg.c) */
  for (int i = 0; b == p->header && i < b->nphis; i++) {
    IrInstr *ph = b->phis[i];
    if (ph->dst && p->var[ph->dst->id] == VAR_CARRIED)
      OUT("  %s = %s_in;\n", emit_var(e, ph->dst), emit_var(e, ph->dst));
  }
  for (int i = 0; i < b->ninstrs; i++) {
    IrInstr *in = b->instrs[i];
    if (!in->dst || p->var[in->dst->id] != VAR_CARRIED) continue;
    extract_args(e, out, p, in->args, in->nargs);
    emit_instr(e, out, in);
  }
  for (int s = 0; s < nsucc(b); s++) {
    IrBlock *t = b->term.succ[s];
    if (!p->member[t->id] || (s == 1 && t == b->term.succ[0])) continue;
    int q = ir_block_pred_index(t, b);
    bool any = false;
    for (int i = 0; i < t->nphis; i++)
      any = any || (t->phis[i]->dst && p->var[t->phis[i]->dst->id] == VAR_CARRIED);
    if (!any || q < 0) continue;
    bool cond = b->term.kind == IR_T_BRANCH && b->term.succ[0] != b->term.succ[1];
    if (cond) OUT("  if (%s%s[d_l]) {\n", s == 0 ? "" : "!", lane_name(e, b->term.value));
    for (int i = 0; i < t->nphis; i++) {
      IrInstr *ph = t->phis[i];
      if (!ph->dst || p->var[ph->dst->id] != VAR_CARRIED || q >= ph->nargs) continue;
      extract_args(e, out, p, &ph->args[q], 1);
      OUT("  %s%s = %s;\n", emit_var(e, ph->dst), t == p->header ? "_in" : "", emit_var(e, ph->args[q]));
    }
    if (cond) OUT("  }\n");
  }
}

void emit_loop_lanes_decls(EmitCtx *e, EmitBuf *out, IrCFG *cfg) {
  if (!e->opt->loop_lanes) return;
  for (int b = 0; b < cfg->nblocks; b++) {
    IrBlock *h = cfg->blocks[b];
    if (plan_of(e, cfg, h))
      OUT("  int64_t d_lsu%d = 0; /* below it, the loop at L%d runs scalar */\n", h->id, h->id);
  }
}

bool emit_loop_lanes(EmitCtx *e, EmitBuf *out, IrBlock *h) {
  if (!e->cfg || !e->opt->loop_lanes) return false;
  LoopPlan *p = plan_of(e, e->cfg, h);
  if (!p) return false;
  const char *iv = emit_var(e, p->ivar);
  const char *lim = emit_var(e, p->limit);
  /* a quarter of the lanes at least: fewer left run in the scalar body */
  OUT("  if ((int64_t)%s - (int64_t)%s >= (D_SIMD_W >= 8 ? D_SIMD_W / 4 : 1) && (int64_t)%s >= d_lsu%d) {\n"
      "  /* iterations %s .. in lanes; accumulators lane after lane (emit_c_loops.c) */\n"
      "  const int d_cnt = (int64_t)%s - (int64_t)%s < D_SIMD_W ? (int)((int64_t)%s - (int64_t)%s) : D_SIMD_W;\n",
      lim, iv, iv, h->id, iv, lim, iv, lim, iv);
  /* lane values: declarations, the imports' splats, the counter */
  const char **saved = arena_alloc(e->a, (size_t)(e->m->next_var_id + 1) * sizeof *saved);
  for (int i = 0; i < p->nimports; i++) {
    IrVar *v = p->imports[i];
    const char *ln = lane_name(e, v);
    OUT("  %s %s = {0}; (void)%s;\n", emit_lanes_type(e, v->ty), ln, ln);
    emit_lanes_splat(e, out, v->ty, ln, emit_var(e, v));
  }
  for (int k = 0; k < p->n; k++) {
    IrBlock *b = p->order[k];
    OUT("  dlanei d_m%d = d_splati(0); (void)d_m%d;\n", b->id, b->id);
    for (int i = -b->nphis; i < b->ninstrs; i++) {
      IrVar *d = i < 0 ? b->phis[i + b->nphis]->dst : b->instrs[i]->dst;
      if (!has_lanes(e, p, d)) continue;
      const char *ln = lane_name(e, d);
      OUT("  %s %s = {0}; (void)%s;\n", emit_lanes_type(e, d->ty), ln, ln);
    }
  }
  OUT("  for (int d_l = 0; d_l < D_SIMD_W; d_l++) %s[d_l] = (dlint)%s + d_l;\n", lane_name(e, p->ivar), iv);
  swap_names(e, p, saved, true);
  /* the blocks in order, each under its mask; the images and strings of the
   * program keep their scalar names */
  for (int k = 0; k < p->n; k++) {
    IrBlock *b = p->order[k];
    if (b == h) {
      OUT("  d_m%d = d_splati(-1);\n", b->id);
    } else {
      OUT("  d_m%d =", b->id);
      bool first = true;
      for (int q = 0; q < b->npreds; q++) {
        bool dup = false;
        for (int r = 0; r < q; r++) dup = dup || b->preds[r] == b->preds[q];
        if (dup) continue;
        OUT("%s %s", first ? "" : " |", edge_mask(e, p, b->preds[q], b));
        first = false;
      }
      OUT(";\n");
      /* independent phis: the argument of the edge each lane came by */
      for (int i = 0; i < b->nphis; i++) {
        IrInstr *ph = b->phis[i];
        if (!ph->dst || p->var[ph->dst->id] != VAR_LANE) continue;
        const char *d = emit_var(e, ph->dst);
        for (int q = b->npreds - 1; q >= 0; q--) {
          if (q == b->npreds - 1) {
            OUT("  %s = %s;\n", d, emit_var(e, ph->args[q]));
            continue;
          }
          emit_lanes_select(e, out, ph->dst->ty, d, edge_mask(e, p, b->preds[q], b), emit_var(e, ph->args[q]), d);
        }
      }
    }
    if (p->fallback[b->id]) continue;
    for (int i = 0; i < b->ninstrs; i++) {
      IrInstr *in = b->instrs[i];
      if (in->dst && p->var[in->dst->id] == VAR_CARRIED) continue;
      if (dseq_index(in) || dseq_length(in) || in->kind == IR_I_STATE_GET) print_special(e, out, in, b->id);
      else emit_lanes_instr(e, out, in, b->id);
    }
  }
  /* lanes that leave the loop (but by its header) or reach an effect: the
   * scalar body runs iteration i; nothing was written yet */
  EmitBuf fb;
  emit_buf_init(&fb, e->a);
  for (int k = 0; k < p->n; k++) {
    IrBlock *b = p->order[k];
    if (p->fallback[b->id]) emit_buf_printf(&fb, "%sd_m%d", emit_buf_str(&fb)[0] ? " | " : "", b->id);
    for (int s = 0; s < nsucc(b) && b != h; s++) {
      IrBlock *t = b->term.succ[s];
      if (p->member[t->id] || (s == 1 && t == b->term.succ[0])) continue;
      emit_buf_printf(&fb, "%s%s", emit_buf_str(&fb)[0] ? " | " : "", edge_mask(e, p, b, t));
    }
  }
  bool fall = emit_buf_str(&fb)[0] != '\0';
  /* the rest of this chunk's iterations then run scalar too (d_lsu): a
   * loop that often falls back pays one chunk per chunk, not per iteration */
  if (fall)
    OUT("  if (d_any(%s)) {\n    d_lsu%d = (int64_t)%s + d_cnt;\n    goto d_ls%d;\n  }\n", emit_buf_str(&fb), h->id,
        iv, h->id);
  swap_names(e, p, saved, false);
  /* the carried values, lane after lane in iteration order */
  OUT("  for (int d_l = 0; d_l < d_cnt; d_l++) {\n");
  for (int k = 0; k < p->n; k++) {
    IrBlock *b = p->order[k];
    if (p->fallback[b->id]) continue;
    EmitBuf body;
    emit_buf_init(&body, e->a);
    carried_block(e, &body, p, b);
    if (!emit_buf_str(&body)[0]) continue; /* a block of independent values only */
    if (b == h) OUT("%s", emit_buf_str(&body));
    else OUT("  if (d_m%d[d_l]) {\n%s  }\n", b->id, emit_buf_str(&body));
  }
  OUT("  }\n  %s_in = %s + d_cnt;\n  goto L%d;\n  }\n", iv, iv, h->id);
  if (fall) OUT(" d_ls%d:;\n", h->id);
  return true; /* the chunk ends with goto L<h> */
}
