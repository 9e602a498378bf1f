/* mid_sumbind.c -- Summation binding (seed paper 004, §5.7.3), see mid_opt.h.
 *
 * Loop-invariant code motion for Σ: factors of a Σ body that mention none
 * of its indices move out, and a Σ over several indices is nested so that
 * each inner Σ only multiplies the factors that mention its index:
 *   Σ_{i,j,k} V_ijk A_i B_j C_k  →  Σ_k C_k (Σ_j B_j (Σ_i V_ijk A_i))
 * (the separable convolution: 3·(2s)^3 products become about
 * (2s)^3 + (2s)^2 + 2s), and independent sums become a product of sums. */
#include <string.h>

#include "opt/mid_opt.h"

static uint64_t bind_mask(int n, const EinBinder *b) {
  uint64_t m = 0;
  for (int i = 0; i < n; i++) m |= ein_var_bit(b[i].var);
  return m;
}

static const EinExpr *bind(EinContext *ec, int nb, const EinBinder *binders, const EinExpr *body,
                           MidOptStats *st);

/* Σ_binders Π fac (fac: n factors), bound as tightly as possible. */
static const EinExpr *bind_factors(EinContext *ec, int nb, const EinBinder *binders, int n,
                                   const EinExpr *const *fac, MidOptStats *st) {
  Arena *a = ein_context_arena(ec);
  uint64_t vm = bind_mask(nb, binders);
  const EinExpr **out = ARENA_NEW_ARRAY(a, const EinExpr *, n + 1);
  const EinExpr **rest = ARENA_NEW_ARRAY(a, const EinExpr *, n + 1);
  int no = 0, nr = 0;
  for (int i = 0; i < n; i++) {
    if (fac[i]->fv & vm)
      rest[nr++] = fac[i];
    else
      out[no++] = fac[i];
  }
  if (nr == 0) return NULL; /* Σ of an invariant: leave it */
  if (no > 0) {
    if (st) st->sumbind_hoist += (unsigned long)no;
    out[no++] = bind(ec, nb, binders, ein_mul(ec, nr, rest), st);
    return ein_mul(ec, no, out);
  }
  if (nb >= 2 && nr >= 2) {
    /* nest the index mentioned by the fewest factors (not by all); on a
     * tie, the one that is the last index of the most tensor accesses, so
     * that the innermost Σ runs along contiguous rows and mid_to_low makes
     * it a vdot (Σ_m V[k,l,m] h[m], not Σ_k V[k,l,m] h[k]) */
    int best = -1, bestc = nr, bestl = -1;
    for (int b = 0; b < nb; b++) {
      int c = 0, l = 0;
      for (int i = 0; i < nr; i++) {
        c += ein_free_in(rest[i], binders[b].var);
        l += rest[i]->tag == EIN_TENSOR && rest[i]->nidx > 0 &&
             rest[i]->idx[rest[i]->nidx - 1] == binders[b].var;
      }
      if (c > 0 && (c < bestc || (c == bestc && l > bestl))) {
        best = b;
        bestc = c;
        bestl = l;
      }
    }
    if (best >= 0) {
      const EinExpr **in = ARENA_NEW_ARRAY(a, const EinExpr *, nr);
      const EinExpr **outer = ARENA_NEW_ARRAY(a, const EinExpr *, nr + 1);
      int ni = 0, nout = 0;
      for (int i = 0; i < nr; i++) {
        if (ein_free_in(rest[i], binders[best].var))
          in[ni++] = rest[i];
        else
          outer[nout++] = rest[i];
      }
      EinBinder ob[EIN_MAX_RANK * 8];
      int nob = 0;
      for (int b = 0; b < nb; b++)
        if (b != best) ob[nob++] = binders[b];
      if (st) st->sumbind_nest++;
      outer[nout++] = ein_sum(ec, 1, &binders[best], ein_mul(ec, ni, in));
      const EinExpr *r = bind_factors(ec, nob, ob, nout, outer, st);
      return r ? r : ein_sum(ec, nob, ob, ein_mul(ec, nout, outer));
    }
  }
  return ein_sum(ec, nb, binders, ein_mul(ec, nr, rest));
}

static const EinExpr *bind(EinContext *ec, int nb, const EinBinder *binders, const EinExpr *body,
                           MidOptStats *st) {
  if (nb > EIN_MAX_RANK * 8) return ein_sum(ec, nb, binders, body);
  for (int b = 0; b < nb; b++)
    if (binders[b].var >= EIN_VAR_LIMIT) return ein_sum(ec, nb, binders, body);
  /* the factors of body, nested products flattened (earlier hoisting
   * leaves products of products) */
  Arena *a = ein_context_arena(ec);
  int cap = 16, n = 0, top = 0;
  const EinExpr **fac = ARENA_NEW_ARRAY(a, const EinExpr *, cap);
  const EinExpr *stack[64];
  stack[top++] = body;
  while (top > 0) {
    const EinExpr *e = stack[--top];
    if (e->tag == EIN_MUL && top + e->nkids <= 64) {
      for (int i = e->nkids - 1; i >= 0; i--) stack[top++] = e->kids[i];
      continue;
    }
    if (n == cap) {
      const EinExpr **nf = ARENA_NEW_ARRAY(a, const EinExpr *, cap * 2);
      memcpy(nf, fac, sizeof *fac * (size_t)n);
      fac = nf;
      cap *= 2;
    }
    fac[n++] = e;
  }
  const EinExpr *r = bind_factors(ec, nb, binders, n, fac, st);
  return r ? r : ein_sum(ec, nb, binders, body);
}

const EinExpr *mid_sumbind_expr(EinContext *ec, const EinExpr *e, MidOptStats *st) {
  if (!(e->flags & EIN_FL_BINDS)) return e;
  const EinExpr *buf[8];
  const EinExpr **kids =
      e->nkids <= 8 ? buf : ARENA_NEW_ARRAY(ein_context_arena(ec), const EinExpr *, e->nkids);
  bool same = true;
  for (int i = 0; i < e->nkids; i++) {
    kids[i] = mid_sumbind_expr(ec, e->kids[i], st);
    same = same && kids[i] == e->kids[i];
  }
  if (e->tag == EIN_SUM) return bind(ec, e->nbind, e->bind, kids[0], st);
  return same ? e : ein_with_kids(ec, e, kids);
}

int mid_sumbind_cfg(IrCFG *cfg, EinContext *ec, MidOptStats *stats) {
  if (cfg->module->level != IR_MID) return 0;
  int total = 0;
  for (int bi = 0; bi < cfg->nblocks; bi++) {
    IrBlock *b = cfg->blocks[bi];
    for (int i = 0; i < b->ninstrs; i++) {
      IrInstr *in = b->instrs[i];
      if (in->kind != IR_I_OP || in->op != IR_MOP_EIN || !in->ein) continue;
      const EinOp *op = in->ein;
      const EinExpr *nb = mid_sumbind_expr(ec, op->body, stats);
      if (nb == op->body) continue;
      const EinOp *nop = ein_op_new(ec, op->nparams, op->params, op->nsigma, op->sigma, nb);
      if (nop == op) continue;
      in->ein = nop;
      total++;
    }
  }
  return total;
}
