/* mid_slice.c -- Slice (seed paper 004, §5.7.2), see mid_opt.h.
 *
 * In MidIR a "sliced field term" is a convolution whose voxel tensor
 * (a load_voxels result: d tap axes, then the voxel shape σ) is read with a
 * constant component index. The operator
 *     g = λ..V..⟨Σ_i … V[i, c, α] …⟩_σ
 * becomes
 *     t = λ..V..⟨Σ_i … V[i, γ, α] …⟩_{γ, σ}      (all components)
 *     g = λT⟨T[c, σ]⟩_σ(t)
 * so that the probes of different components of one field are the same
 * operator t on the same arguments, which value numbering merges. */
#include <string.h>

#include "opt/mid_opt.h"

enum { SLICE_NONE = -1, SLICE_BAD = -2 };

typedef struct Slot {
  int param, pos, value, extent;
} Slot;

/* For each position k of parameter p: the constant it is read with
 * everywhere, SLICE_NONE before the first read, SLICE_BAD when a variable
 * or two different constants are seen. */
static void scan(const EinExpr *e, int p, int *cst) {
  if (e->tag == EIN_TENSOR && e->param == p) {
    for (int k = 0; k < e->nidx; k++) {
      if (cst[k] == SLICE_BAD) continue;
      if (ein_idx_is_var(e->idx[k])) {
        cst[k] = SLICE_BAD;
      } else {
        int c = ein_idx_val(e->idx[k]);
        cst[k] = cst[k] == SLICE_NONE || cst[k] == c ? c : SLICE_BAD;
      }
    }
  }
  for (int i = 0; i < e->nkids; i++) scan(e->kids[i], p, cst);
}

/* Replace the constants of the slots by the variables 0..n-1. */
static const EinExpr *generalise(EinContext *ec, const EinExpr *e, const Slot *slots, int n) {
  if (e->tag == EIN_TENSOR) {
    EinIdx idx[EIN_MAX_RANK];
    bool hit = false;
    for (int k = 0; k < e->nidx && k < EIN_MAX_RANK; k++) idx[k] = e->idx[k];
    for (int s = 0; s < n; s++)
      if (slots[s].param == e->param && slots[s].pos < e->nidx) {
        idx[slots[s].pos] = ein_ivar(s);
        hit = true;
      }
    return hit ? ein_tensor(ec, e->param, e->nidx, idx) : e;
  }
  if (!e->nkids) return e;
  const EinExpr *buf[8];
  const EinExpr **kids = e->nkids <= 8 ? buf
                                       : ARENA_NEW_ARRAY(ein_context_arena(ec), const EinExpr *,
                                                         e->nkids);
  bool same = true;
  for (int i = 0; i < e->nkids; i++) {
    kids[i] = generalise(ec, e->kids[i], slots, n);
    same = same && kids[i] == e->kids[i];
  }
  return same ? e : ein_with_kids(ec, e, kids);
}

static bool slice_instr(IrBlock *b, int i, EinContext *ec) {
  IrInstr *in = b->instrs[i];
  const EinOp *op = in->ein;
  if (op->body->tag != EIN_SUM) return false;
  Slot slots[EIN_MAX_RANK];
  int n = 0;
  for (int p = 0; p < op->nparams; p++) {
    const IrInstr *d = in->args[p]->def;
    if (op->params[p].kind != EIN_PARAM_TENSOR || !d || d->kind != IR_I_OP ||
        d->op != IR_MOP_LOAD_VOXELS)
      continue;
    int dim = d->args[0]->ty->dim, rank = op->params[p].rank, cst[EIN_MAX_RANK];
    for (int k = 0; k < rank; k++) cst[k] = SLICE_NONE;
    scan(op->body, p, cst);
    for (int k = dim; k < rank; k++)
      if (cst[k] >= 0 && n + op->nsigma < EIN_MAX_RANK)
        slots[n++] = (Slot){p, k, cst[k], op->params[p].shape[k]};
  }
  if (!n) return false;
  /* Free variables v become n + v; binders move past them first. */
  int ns = op->nsigma, from[EIN_MAX_RANK], sg[EIN_MAX_RANK];
  EinIdx to[EIN_MAX_RANK], gi[EIN_MAX_RANK];
  for (int v = 0; v < ns; v++) {
    from[v] = v;
    to[v] = ein_ivar(n + v);
  }
  const EinExpr *body = ein_canon_vars(ec, op->body, ns + n);
  body = ein_subst(ec, body, ns, from, to);
  body = generalise(ec, body, slots, n);
  for (int s = 0; s < n; s++) {
    sg[s] = slots[s].extent;
    gi[s] = ein_icon(slots[s].value);
  }
  for (int v = 0; v < ns; v++) {
    sg[n + v] = op->sigma[v];
    gi[n + v] = ein_ivar(v);
  }
  IrVar *t = mid_emit_ein(b, i, "t", ec, op->nparams, op->params, in->args, n + ns, sg, body);
  if (!t) return false;
  EinParam tp = ein_param_tensor(n + ns, sg);
  mid_set_ein(in, ec, 1, &tp, &t, ns, op->sigma, ein_tensor(ec, 0, n + ns, gi));
  return true;
}

int mid_slice_cfg(IrCFG *cfg, EinContext *ec, MidOptStats *stats) {
  if (cfg->module->level != IR_MID) return 0;
  int total = 0;
  for (int bi = 0; bi < cfg->nblocks; bi++) {
    IrBlock *b = cfg->blocks[bi];
    for (int i = 0; i < b->ninstrs; i++) {
      IrInstr *in = b->instrs[i];
      if (in->kind != IR_I_OP || in->op != IR_MOP_EIN || !in->ein) continue;
      if (slice_instr(b, i, ec)) {
        i++; /* skip the instruction just moved one place down */
        total++;
        if (stats) stats->slice_ops++;
      }
    }
  }
  return total;
}
