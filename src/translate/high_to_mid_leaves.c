/* high_to_mid_leaves.c -- probes of the symbolic fields that are not
 * convolutions (the contract in high_to_mid.c): evals/evecs of a field
 * and compositions F ∘ G (extensions, doc/language.md §6.6). Each probes
 * its fields by operators of their own (h2m_emit_tensor_op) and becomes a
 * tensor parameter of the operator being rewritten. */
#include <string.h>

#include "translate/high_to_mid_impl.h"

/* (F_α)@P for F = evals(M) or evecs(M): the matrix M probed at P (an
 * operator of its own), then the tensor evals/evecs, its elements built
 * into a tensor (a vector, or the eigenvectors as rows) that becomes a
 * tensor parameter; NULL when e is not such a probe. Eigenvalues have no
 * derivatives: the typechecker refuses them (continuity 0). */
const EinExpr *h2m_eigen_probe(Rewrite *rw, const EinExpr *e) {
  Tr *t = rw->t;
  EinContext *ec = t->ec;
  const EinExpr *leaf = e->kids[0];
  while (leaf->tag == EIN_DIFF) leaf = leaf->kids[0];
  if (leaf->tag != EIN_FIELD || rw->args[leaf->param].kind != MA_EIGEN) return NULL;
  const MArg *ea = &rw->args[leaf->param], *pos = &rw->args[e->param];
  if (leaf != e->kids[0] || pos->kind != MA_TENSOR) {
    h2m_internal(t, "a derivative of evals or evecs of a field");
    return NULL;
  }
  const IrType *mt = ea->eig_ty;
  int n = mt->dims[0], prank = mt->dim == 1 ? 0 : 1;
  EinParam ps[2] = {ein_param_field(mt->dim, 2, mt->dims), ein_param_tensor(prank, &mt->dim)};
  EinIdx al[2] = {ein_ivar(0), ein_ivar(1)};
  const EinOp *pr = ein_op_new(ec, 2, ps, 2, mt->dims, ein_probe(ec, ein_field(ec, 0, 2, al), 1));
  const EinOp *op = ein_op_subst(ec, pr, 0, ea->eig->op);
  if (!op) {
    h2m_internal(t, "a matrix field that does not match its evals");
    return NULL;
  }
  int na = ea->eig->nargs + 1;
  MArg *as = ARENA_NEW_ARRAY(t->a, MArg, na);
  memcpy(as, ea->eig->args, sizeof *as * (size_t)(na - 1));
  as[na - 1] = *pos;
  IrVar *m = h2m_emit_tensor_op(t, op, na, as, "m");
  IrVar *sq = m ? h2m_emit_op(t, "ev", ea->eig_op, 1, &m, 0, NULL) : NULL;
  if (!sq) return NULL;
  IrVar *el[3];
  for (int k = 0; k < n; k++) {
    IrVar *a2[2] = {sq, ir_emit_int(t->cur, k)};
    if (!(el[k] = h2m_emit_op(t, "e", IR_OP_SEQ_INDEX, 2, a2, 0, NULL))) return NULL;
  }
  IrVar *v = h2m_emit_op(t, "eig", IR_OP_TENSOR_CONS, n, el, 0, NULL);
  if (!v) return NULL;
  int shape[2] = {n, n};
  return ein_tensor(ec, h2m_plist_tensor(t, rw->pl, v, leaf->nidx, shape), leaf->nidx, leaf->idx);
}

/* The MidIR tensor ((∂_j)^nd fd_α)@pos for field fd of type ft (nd = 0
 * or 1): the derivative index last, left out when ft's domain is 1-D. */
static IrVar *probe_def(Tr *t, const FieldDef *fd, const IrType *ft, IrVar *pos, int nd) {
  EinContext *ec = t->ec;
  int r = ft->order, sg[EIN_MAX_RANK + 1], prank = ft->dim == 1 ? 0 : 1;
  EinIdx al[EIN_MAX_RANK];
  for (int i = 0; i < r; i++) al[i] = ein_ivar(i), sg[i] = ft->dims[i];
  const EinExpr *b = ein_field(ec, 0, r, al);
  int ns = r;
  if (nd) {
    b = ein_diff(ec, ft->dim == 1 ? ein_icon(0) : ein_ivar(r), b);
    if (ft->dim > 1) sg[ns++] = ft->dim;
  }
  EinParam ps[2] = {ein_param_field(ft->dim, r, ft->dims), ein_param_tensor(prank, &ft->dim)};
  const EinOp *op = ein_op_subst(ec, ein_op_new(ec, 2, ps, ns, sg, ein_probe(ec, b, 1)), 0, fd->op);
  if (!op) {
    h2m_internal(t, "a field that does not match its use");
    return NULL;
  }
  MArg *as = ARENA_NEW_ARRAY(t->a, MArg, fd->nargs + 1);
  memcpy(as, fd->args, sizeof *as * (size_t)fd->nargs);
  as[fd->nargs] = (MArg){.kind = MA_TENSOR, .var = pos};
  return h2m_emit_tensor_op(t, op, fd->nargs + 1, as, nd ? "dp" : "p");
}

/* (F ∘ G)_α@x = F_α@y with y = G@x, and (∂_j (F ∘ G)_α)@x =
 * Σ_k (∂_k F_α)@y · (∂_j G_k)@x, the chain rule (k and j left out over 1-D
 * domains); the typechecker allows no second derivative (continuity 1). */
const EinExpr *h2m_compose_probe(Rewrite *rw, const EinExpr *e) {
  Tr *t = rw->t;
  EinContext *ec = t->ec;
  const EinExpr *leaf = e->kids[0];
  int nd = 0;
  EinIdx j = 0;
  for (; leaf->tag == EIN_DIFF; leaf = leaf->kids[0]) nd++, j = leaf->idx[0];
  if (leaf->tag != EIN_FIELD || rw->args[leaf->param].kind != MA_COMPOSE) return NULL;
  const MArg *ca = &rw->args[leaf->param], *pos = &rw->args[e->param];
  if (nd > 1 || pos->kind != MA_TENSOR) {
    h2m_fail(t, "a second derivative of a composition F ∘ G");
    return NULL;
  }
  const IrType *ft = ca->outer_ty, *gt = ca->eig_ty;
  IrVar *y = probe_def(t, ca->eig, gt, pos->var, 0);
  IrVar *fv = y ? probe_def(t, ca->outer, ft, y, nd) : NULL;
  if (!fv) return NULL;
  int r = ft->order, n = ft->dim, d = gt->dim, shape[EIN_MAX_RANK + 1];
  for (int i = 0; i < r; i++) shape[i] = ft->dims[i];
  if (!nd) return ein_tensor(ec, h2m_plist_tensor(t, rw->pl, fv, r, shape), leaf->nidx, leaf->idx);
  IrVar *jg = probe_def(t, ca->eig, gt, pos->var, 1); /* (∂_j G_k)@x: [n, d] (1s left out) */
  if (!jg) return NULL;
  int jsh[2], jr = 0;
  if (n > 1) jsh[jr++] = n;
  if (d > 1) jsh[jr++] = d;
  if (n > 1) shape[r] = n;
  int pf = h2m_plist_tensor(t, rw->pl, fv, r + (n > 1), shape), pg = h2m_plist_tensor(t, rw->pl, jg, jr, jsh);
  int kv = rw->fresh;
  EinIdx fi[EIN_MAX_RANK + 1], gi[2];
  for (int i = 0; i < leaf->nidx; i++) fi[i] = leaf->idx[i];
  int ng = 0;
  if (n > 1) fi[leaf->nidx] = ein_ivar(kv), gi[ng++] = ein_ivar(kv);
  if (d > 1) gi[ng++] = j;
  const EinExpr *prod = ein_mul2(ec, ein_tensor(ec, pf, leaf->nidx + (n > 1), fi), ein_tensor(ec, pg, ng, gi));
  return n > 1 ? ein_sum1(ec, kv, 0, n - 1, prod) : prod;
}

