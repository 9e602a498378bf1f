/* high_to_mid.c -- HighIR → MidIR: fields disappear (seed paper 004, §5.5).
 *
 * CONTRACT (input). HighIR as ir.h describes it, best after the HighIR
 * optimisations (fusion + normalization) but not necessarily: every field
 * that a probe or inside() reaches is re-fused here and the operator
 * re-normalized, so field values may still flow through COPY, GLOBAL_GET of
 * a field global (its unique GLOBAL_SET, in any CFG, gives the definition),
 * CONVOLVE, field-valued EIN operators, TENSOR_CONS of fields and POSITION
 * (the identity field of a field function, §4.12). Kernels
 * must be literals (through copies or a once-assigned global); images are
 * run-time values, possibly wrapped in BORDER_CLAMP/MIRROR/WRAP. A field
 * phi, a field parameter or border(img, v) is reported as not supported.
 *
 * CONTRACT (output), what the MidIR passes and mid_to_low can rely on:
 *  - no field types, no CONVOLVE/INSIDE/BORDER_* (HighIR-only ops are
 *    gone); field globals are dropped (the other globals keep their order,
 *    so global indices may shift); CFGs, blocks (reachable ones, same order)
 *    and every non-field instruction are copied one for one;
 *  - every MidIR EIN operator has TENSOR parameters only and a body without
 *    FIELD, CONV, PROBE, DIFF and LIFT nodes: plain tensor arithmetic, Σ, δ,
 *    ε; parameters are ordered by first use in the body and no two are
 *    bound to the same variable;
 *  - a probe term (V_α ⊛ H^β)@x, with d = dim, s = support, k = |β|, becomes
 *      p   = world_to_index(img, x)          -- W·x + t (§8.3)
 *      f   = tfract(p);  n = real_to_int(tfloor(p))
 *      V   = load_voxels[s, border](img, n)   -- tensor[2s,..,2s, σ]
 *      h   = kernel literal
 *      K_c = kernel_eval[j, s](h, f_c)        -- tensor[2s]: h^(j)(f_c − i),
 *                                                i = 1−s..s (f_c =
 *                                                tensor_index[c](f), d > 1)
 *      and, when k > 0, W = img_transform(img) and for each axis c the
 *      tensor KD_c[a_1..a_k, i] = h^(m_c(a))(f_c − i), m_c(a) = #{r: a_r = c}
 *      (tensor_cons of kernel_evals; d = 1: the kernel_eval itself);
 *    the term itself is, in the operator's body,
 *      k = 0:  Σ_{i_0..i_{d−1}} V[i, α] Π_c K_c[i_c]
 *      k > 0:  Σ_{a_1..a_k} W[a_1,β_1]…W[a_k,β_k] Σ_i V[i, α] Π_c KD_c[a, i_c]
 *    i.e. index-space derivatives by kernel derivatives and the world-space
 *    transform ∇_world = Wᵀ∇_index applied to every derivative index (§8.4);
 *  - a probe of the position field POSITION (a FIELD parameter kept as a
 *    leaf, MA_POSITION) at x is x_α; its first derivative ∂_j x_α is δ_αj
 *    (1 when d = 1) and higher derivatives are 0;
 *  - a probe of FIELD_EVALS/FIELD_EVECS(M) (a leaf, MA_EIGEN) at x is
 *    evals/evecs of M's probe at x (an operator of its own), the sequence
 *    built into a tensor (tensor_cons of seq_index); never differentiated;
 *  - a probe of FIELD_COMPOSE(F, G) (a leaf, MA_COMPOSE) at x is F's probe
 *    at y = G's probe at x (operators of their own); its first derivative
 *    Σ_k (∂_k F)@y (∂_j G_k)@x (the chain rule); no second derivative;
 *  - inside(x, F) is, for each distinct underlying image of F (border
 *    control ignored) with the largest support s used with it,
 *    inside_image[s](img, world_to_index(img, x)), joined by `and` (§8.5);
 *    `true` when F has no image.
 * The split/slice/summation-binding passes (src/opt/mid_opt.h) then reshape
 * the EIN operators; VN and DCE clean up.
 */
#include "translate/high_to_mid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt/mid_opt.h"

/* ---- state ----------------------------------------------------------------------- */

#include "translate/high_to_mid_impl.h"

void h2m_fail(Tr *t, const char *what) {
  if (!t->failed && t->diag) diag_report(t->diag, ERR_NOT_YET, (Span){{0, 0}, {0, 0}}, what);
  t->failed = true;
}

void h2m_internal(Tr *t, const char *what) {
  if (!t->failed && t->diag)
    diag_report(t->diag, ERR_LOWERING_FAILED, (Span){{0, 0}, {0, 0}}, "MidIR", what);
  t->failed = true;
}

static bool is_field(const IrType *ty) { return ty && ty->kind == IR_TY_FIELD; }

/* The unique GLOBAL_SET of g in the whole module (NULL if none or several). */
static IrVar *global_value(Tr *t, const IrGlobal *g) {
  IrVar *found = NULL;
  int n = 0;
  for (int c = 0; c < t->high->ncfgs; c++) {
    IrCFG *cfg = t->high->cfgs[c];
    for (int b = 0; b < cfg->nblocks; b++) {
      IrBlock *bl = cfg->blocks[b];
      for (int i = 0; i < bl->ninstrs; i++) {
        IrInstr *in = bl->instrs[i];
        if (in->kind == IR_I_GLOBAL_SET && in->global == g) {
          found = in->args[0];
          n++;
        }
      }
    }
  }
  return n == 1 ? found : NULL;
}

/* The global that holds hv (its unique assignment), or NULL. */
static IrGlobal *global_holding(Tr *t, IrVar *hv) {
  for (int gi = 0; gi < t->high->nglobals; gi++) {
    IrGlobal *g = t->high->globals[gi];
    if (global_value(t, g) == hv) return g;
  }
  return NULL;
}

static IrVar *emit_lit_copy(Tr *t, const IrInstr *in) {
  IrVar *dst = ir_var_new(t->mcfg, in->dst->name, in->dst->ty);
  IrInstr *ni = ir_instr_new(t->mcfg, IR_I_LIT, dst, 0, NULL);
  ni->lit = in->lit;
  ir_block_append(t->cur, ni);
  return dst;
}

/* The MidIR value of a non-field HighIR variable at the emission point:
 * mapped when it belongs to the CFG being translated, else rebuilt from a
 * literal or read back from the global that holds it. */
static IrVar *resolve_value(Tr *t, IrVar *hv) {
  if (!hv) return NULL;
  if (hv->cfg == t->hcfg) {
    IrVar *v = t->vmap[hv->id];
    if (!v) h2m_internal(t, "a value used before its translation");
    return v;
  }
  IrInstr *d = hv->def;
  if (d && d->kind == IR_I_LIT) return emit_lit_copy(t, d);
  if (d && (d->kind == IR_I_COPY || (d->kind == IR_I_OP && d->op >= IR_OP_COMMON_COUNT &&
                                     (d->op == IR_HOP_BORDER_CLAMP ||
                                      d->op == IR_HOP_BORDER_MIRROR ||
                                      d->op == IR_HOP_BORDER_WRAP))))
    return resolve_value(t, d->args[0]);
  IrGlobal *g = d && d->kind == IR_I_GLOBAL_GET ? d->global : global_holding(t, hv);
  if (g && t->gmap[g->index]) return ir_emit_global_get(t->cur, hv->name, t->gmap[g->index]);
  h2m_fail(t, "a field built from a value of another block of the program");
  return NULL;
}

/* The underlying image of an image value and its border control: the
 * wrappers are found on the definition chain, also through a global that
 * was assigned a wrapped image; the value itself is the unwrapped image
 * (BORDER_* translate to their argument). */
static bool resolve_image(Tr *t, IrVar *hv, MArg *out) {
  out->kind = MA_IMAGE;
  out->border = IR_BORDER_NONE;
  IrVar *v = hv;
  for (int guard = 0; guard < 64 && v && v->def; guard++) {
    IrInstr *d = v->def;
    if (d->kind == IR_I_COPY) {
      v = d->args[0];
      continue;
    }
    if (d->kind == IR_I_GLOBAL_GET) {
      v = global_value(t, d->global);
      continue;
    }
    if (d->kind != IR_I_OP) break;
    if (d->op == IR_HOP_BORDER_CONST) {
      h2m_fail(t, "border(image, value)");
      return false;
    }
    IrBorder bm = d->op == IR_HOP_BORDER_CLAMP    ? IR_BORDER_CLAMP
                  : d->op == IR_HOP_BORDER_MIRROR ? IR_BORDER_MIRROR
                  : d->op == IR_HOP_BORDER_WRAP   ? IR_BORDER_WRAP
                                                  : IR_BORDER_NONE;
    if (bm == IR_BORDER_NONE) break;
    if (out->border == IR_BORDER_NONE) out->border = bm; /* the outermost wrapper wins */
    v = d->args[0];
  }
  out->var = resolve_value(t, hv);
  return out->var != NULL;
}

static bool resolve_kernel(Tr *t, IrVar *hv, MArg *out) {
  out->kind = MA_KERNEL;
  for (int guard = 0; guard < 64 && hv; guard++) {
    IrInstr *d = hv->def;
    if (!d) break;
    if (d->kind == IR_I_LIT && d->lit.kind == IR_LIT_KERNEL && d->lit.kernel) {
      out->k = d->lit.kernel;
      out->cont = hv->ty->cont;
      return true;
    }
    if (d->kind == IR_I_COPY) {
      hv = d->args[0];
    } else if (d->kind == IR_I_GLOBAL_GET) {
      hv = global_value(t, d->global);
    } else {
      break;
    }
  }
  h2m_fail(t, "a kernel that is not known at compile time");
  return false;
}

/* ---- symbolic fields -------------------------------------------------------------- */

static FieldDef *field_def(Tr *t, IrVar *hv);
static bool params_ok(const EinOp *op, const EinExpr *e);

/* Resolve the arguments of a HighIR EIN operator; field parameters are
 * replaced by their definitions (fusion, last parameter first so the
 * earlier positions stay valid). */
static bool resolve_ein_args(Tr *t, const EinOp **opp, IrVar *const *hargs, int *nargs,
                             MArg **args) {
  const EinOp *op = *opp;
  int n = op->nparams;
  MArg *as = ARENA_NEW_ARRAY(t->a, MArg, n > 0 ? n : 1);
  FieldDef **fd = ARENA_NEW_ARRAY(t->a, FieldDef *, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) {
    switch (op->params[i].kind) {
    case EIN_PARAM_TENSOR:
      as[i].kind = MA_TENSOR;
      if (!(as[i].var = resolve_value(t, hargs[i]))) return false;
      break;
    case EIN_PARAM_IMAGE:
      if (!resolve_image(t, hargs[i], &as[i])) return false;
      break;
    case EIN_PARAM_KERNEL:
      if (!resolve_kernel(t, hargs[i], &as[i])) return false;
      break;
    case EIN_PARAM_FIELD:
      if (!(fd[i] = field_def(t, hargs[i]))) return false;
      break;
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    if (op->params[i].kind != EIN_PARAM_FIELD) continue;
    const EinOp *fused = ein_op_subst(t->ec, op, i, fd[i]->op);
    if (!fused) {
      h2m_internal(t, "a field definition does not match its use");
      return false;
    }
    int m = fd[i]->nargs, nn = n - 1 + m;
    MArg *na = ARENA_NEW_ARRAY(t->a, MArg, nn > 0 ? nn : 1);
    memcpy(na, as, sizeof *na * (size_t)i);
    memcpy(na + i, fd[i]->args, sizeof *na * (size_t)m);
    memcpy(na + i + m, as + i + 1, sizeof *na * (size_t)(n - i - 1));
    as = na;
    n = nn;
    op = fused;
    if (t->st) t->st->fused_fields++;
  }
  *opp = op;
  *nargs = n;
  *args = as;
  return true;
}

static FieldDef *field_def(Tr *t, IrVar *hv) {
  if (++t->depth > 200) {
    h2m_fail(t, "a field defined this deeply");
    return NULL;
  }
  FieldDef *r = NULL;
  IrInstr *d = hv ? hv->def : NULL;
  if (!d) {
    h2m_fail(t, "a field passed as a parameter");
  } else if (d->kind == IR_I_COPY) {
    r = field_def(t, d->args[0]);
  } else if (d->kind == IR_I_GLOBAL_GET) {
    IrVar *v = global_value(t, d->global);
    if (v)
      r = field_def(t, v);
    else
      h2m_fail(t, "a field global assigned more than once");
  } else if (d->kind == IR_I_PHI) {
    h2m_fail(t, "a field chosen at run time");
  } else if (d->kind == IR_I_OP && d->op == IR_HOP_POSITION && d->nimm == 1 &&
             d->imm[0] >= 1 && d->imm[0] <= EIN_MAX_DIM) {
    /* x ↦ x = λF⟨F_α⟩ over a position leaf (rewritten where probed) */
    int dim = d->imm[0], rank = dim == 1 ? 0 : 1;
    EinParam p = ein_param_field(dim, rank, &dim);
    EinIdx al = ein_ivar(0);
    r = ARENA_NEW(t->a, FieldDef);
    r->op = ein_op_new(t->ec, 1, &p, rank, &dim, ein_field(t->ec, 0, rank, &al));
    r->nargs = 1;
    r->args = ARENA_NEW_ARRAY(t->a, MArg, 1);
    memset(r->args, 0, sizeof *r->args);
    r->args[0].kind = MA_POSITION;
  } else if (d->kind == IR_I_OP && (d->op == IR_HOP_FIELD_EVALS || d->op == IR_HOP_FIELD_EVECS)) {
    /* evals(M), evecs(M) = λF⟨F_α⟩ over an eigen leaf (rewritten where probed) */
    const FieldDef *m = field_def(t, d->args[0]);
    const IrType *ft = hv->ty;
    if (m) {
      EinParam p = ein_param_field(ft->dim, ft->order, ft->dims);
      EinIdx al[2] = {ein_ivar(0), ein_ivar(1)};
      r = ARENA_NEW(t->a, FieldDef);
      r->op = ein_op_new(t->ec, 1, &p, ft->order, ft->dims, ein_field(t->ec, 0, ft->order, al));
      r->nargs = 1;
      r->args = ARENA_NEW_ARRAY(t->a, MArg, 1);
      memset(r->args, 0, sizeof *r->args);
      r->args[0] = (MArg){.kind = MA_EIGEN, .eig = m, .eig_ty = d->args[0]->ty,
                          .eig_op = d->op == IR_HOP_FIELD_EVALS ? IR_OP_EVALS : IR_OP_EVECS};
    }
  } else if (d->kind == IR_I_OP && d->op == IR_HOP_FIELD_COMPOSE) {
    /* F ∘ G = λC⟨C_α⟩ over a composition leaf (rewritten where probed) */
    const FieldDef *fo = field_def(t, d->args[0]), *gi = fo ? field_def(t, d->args[1]) : NULL;
    const IrType *ft = hv->ty;
    if (gi) {
      EinParam p = ein_param_field(ft->dim, ft->order, ft->dims);
      EinIdx al[EIN_MAX_RANK];
      for (int i = 0; i < ft->order; i++) al[i] = ein_ivar(i);
      r = ARENA_NEW(t->a, FieldDef);
      r->op = ein_op_new(t->ec, 1, &p, ft->order, ft->dims, ein_field(t->ec, 0, ft->order, al));
      r->nargs = 1;
      r->args = ARENA_NEW_ARRAY(t->a, MArg, 1);
      r->args[0] = (MArg){.kind = MA_COMPOSE, .eig = gi, .eig_ty = d->args[1]->ty, .outer = fo,
                          .outer_ty = d->args[0]->ty};
    }
  } else if (d->kind == IR_I_OP && d->op == IR_HOP_CONVOLVE) {
    /* img ⊛ h = λV,H⟨V_α ⊛ H⟩_σ */
    const IrType *it = d->args[0]->ty;
    EinParam ps[2] = {ein_param_image(it->dim, it->order, it->dims), ein_param_kernel(0)};
    EinIdx al[EIN_MAX_RANK];
    for (int i = 0; i < it->order; i++) al[i] = ein_ivar(i);
    const EinExpr *body = ein_conv(t->ec, 0, 1, it->order, al, 0, NULL);
    r = ARENA_NEW(t->a, FieldDef);
    r->op = ein_op_new(t->ec, 2, ps, it->order, it->dims, body);
    r->nargs = 2;
    r->args = ARENA_NEW_ARRAY(t->a, MArg, 2);
    if (!resolve_image(t, d->args[0], &r->args[0]) || !resolve_kernel(t, d->args[1], &r->args[1]))
      r = NULL;
  } else if (d->kind == IR_I_OP && d->op == IR_HOP_EIN && d->ein &&
             (!params_ok(d->ein, d->ein->body) || d->nargs != d->ein->nparams)) {
    h2m_internal(t, "an ill-formed HighIR EIN operator");
  } else if (d->kind == IR_I_OP && d->op == IR_HOP_EIN && d->ein) {
    r = ARENA_NEW(t->a, FieldDef);
    r->op = d->ein;
    if (!resolve_ein_args(t, &r->op, d->args, &r->nargs, &r->args)) r = NULL;
  } else if (d->kind == IR_I_OP && d->op == IR_OP_TENSOR_CONS && d->nargs >= 1) {
    /* [F_0, ..., F_{n-1}]_{i,α} = Σ_k δ_{i,k} F_k[α] */
    const IrType *ft = d->args[0]->ty;
    int n = d->nargs, rank = ft->order;
    EinParam *ps = ARENA_NEW_ARRAY(t->a, EinParam, n);
    const EinExpr **terms = ARENA_NEW_ARRAY(t->a, const EinExpr *, n);
    EinIdx al[EIN_MAX_RANK];
    for (int i = 0; i < rank; i++) al[i] = ein_ivar(i + 1);
    for (int k = 0; k < n; k++) {
      ps[k] = ein_param_field(ft->dim, rank, ft->dims);
      terms[k] = ein_mul2(t->ec, ein_delta(t->ec, ein_ivar(0), ein_icon(k)),
                          ein_field(t->ec, k, rank, al));
    }
    int sg[EIN_MAX_RANK + 1];
    sg[0] = n;
    for (int i = 0; i < rank; i++) sg[i + 1] = ft->dims[i];
    r = ARENA_NEW(t->a, FieldDef);
    r->op = ein_op_new(t->ec, n, ps, rank + 1, sg, ein_add(t->ec, n, terms));
    if (!resolve_ein_args(t, &r->op, d->args, &r->nargs, &r->args)) r = NULL;
  } else {
    h2m_fail(t, "this kind of field definition");
  }
  t->depth--;
  return r;
}

/* ---- probes ------------------------------------------------------------------------- */

enum { MAX_DERIV = 6 };

/* What one probe site needs, memoized per (image, border, kernel, position)
 * within one instruction. */
struct ProbeCtx {
  IrVar *img, *pos;
  IrBorder border;
  const Kernel *k;
  int cont, d, s;
  IrVar *h, *f, *vox, *W;
  IrVar *fc[EIN_MAX_DIM];
  IrVar *keval[EIN_MAX_DIM][MAX_DERIV + 1];
  IrVar *kd[EIN_MAX_DIM][MAX_DERIV + 1];
};


static int plist_add(Tr *t, PList *l, EinParam p, IrVar *arg) {
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 8;
    EinParam *np = ARENA_NEW_ARRAY(t->a, EinParam, cap);
    IrVar **na = ARENA_NEW_ARRAY(t->a, IrVar *, cap);
    if (l->n) {
      memcpy(np, l->p, sizeof *np * (size_t)l->n);
      memcpy(na, l->args, sizeof *na * (size_t)l->n);
    }
    l->p = np;
    l->args = na;
    l->cap = cap;
  }
  l->p[l->n] = p;
  l->args[l->n] = arg;
  return l->n++;
}

int h2m_plist_tensor(Tr *t, PList *l, IrVar *arg, int rank, const int *shape) {
  return plist_add(t, l, ein_param_tensor(rank, shape), arg);
}


IrVar *h2m_emit_op(Tr *t, const char *hint, int op, int nargs, IrVar *const *args, int nimm,
                      const int *imm) {
  IrVar *v = ir_emit_op(t->cur, hint, op, NULL, nargs, args, nimm, imm);
  if (!v) h2m_internal(t, ir_op_info(IR_MID, op) ? ir_op_info(IR_MID, op)->name : "an operator");
  return v;
}

static ProbeCtx *probe_ctx(Tr *t, ProbeSet *set, const MArg *img, const MArg *ker, IrVar *pos) {
  for (int i = 0; i < set->n; i++) {
    ProbeCtx *p = set->v[i];
    if (p->img == img->var && p->border == img->border && p->k == ker->k && p->pos == pos)
      return p;
  }
  ProbeCtx *p = ARENA_NEW(t->a, ProbeCtx);
  memset(p, 0, sizeof *p);
  p->img = img->var;
  p->border = img->border;
  p->k = ker->k;
  p->cont = ker->cont;
  p->pos = pos;
  p->d = img->var->ty->dim;
  p->s = ker->k->support;
  IrVar *a2[2] = {img->var, pos};
  IrVar *pi = h2m_emit_op(t, "p", IR_MOP_WORLD_TO_INDEX, 2, a2, 0, NULL);
  if (!pi) return NULL;
  p->f = h2m_emit_op(t, "f", IR_MOP_TFRACT, 1, &pi, 0, NULL);
  IrVar *fl = h2m_emit_op(t, "nf", IR_MOP_TFLOOR, 1, &pi, 0, NULL);
  IrVar *n = fl ? h2m_emit_op(t, "n", IR_MOP_REAL_TO_INT, 1, &fl, 0, NULL) : NULL;
  if (!p->f || !n) return NULL;
  int imm[2] = {p->s, (int)p->border};
  a2[1] = n;
  if (!(p->vox = h2m_emit_op(t, "vox", IR_MOP_LOAD_VOXELS, 2, a2, 2, imm))) return NULL;
  if (!(p->h = ir_emit_kernel(t->cur, p->k, p->cont))) return NULL;
  for (int c = 0; c < p->d; c++) {
    int ci = c;
    p->fc[c] = p->d == 1 ? p->f : h2m_emit_op(t, "fc", IR_OP_TENSOR_INDEX, 1, &p->f, 1, &ci);
    if (!p->fc[c]) return NULL;
  }
  if (set->n == set->cap) {
    int cap = set->cap ? set->cap * 2 : 4;
    ProbeCtx **nv = ARENA_NEW_ARRAY(t->a, ProbeCtx *, cap);
    if (set->n) memcpy(nv, set->v, sizeof *nv * (size_t)set->n);
    set->v = nv;
    set->cap = cap;
  }
  set->v[set->n++] = p;
  return p;
}

static IrVar *probe_keval(Tr *t, ProbeCtx *p, int c, int j) {
  if (!p->keval[c][j]) {
    int imm[2] = {j, p->s};
    IrVar *a2[2] = {p->h, p->fc[c]};
    p->keval[c][j] = h2m_emit_op(t, "k", IR_MOP_KERNEL_EVAL, 2, a2, 2, imm);
  }
  return p->keval[c][j];
}

/* KD_c[a_depth..a_k, i] given the derivative counts chosen so far. */
static IrVar *probe_kd_rec(Tr *t, ProbeCtx *p, int c, int k, int depth, int count) {
  if (depth == k) return probe_keval(t, p, c, count);
  IrVar *el[EIN_MAX_DIM];
  for (int a = 0; a < p->d; a++) {
    el[a] = probe_kd_rec(t, p, c, k, depth + 1, count + (a == c));
    if (!el[a]) return NULL;
  }
  return h2m_emit_op(t, "kd", IR_OP_TENSOR_CONS, p->d, el, 0, NULL);
}

static IrVar *probe_kd(Tr *t, ProbeCtx *p, int c, int k) {
  if (!p->kd[c][k]) p->kd[c][k] = p->d == 1 ? probe_keval(t, p, c, k) : probe_kd_rec(t, p, c, k, 0, 0);
  return p->kd[c][k];
}

/* The tensor expression of (V_α ⊛ H^β)@x; bound variables from `fresh`. */
static const EinExpr *probe_term(Tr *t, PList *pl, ProbeCtx *p, const EinExpr *conv, int fresh) {
  EinContext *ec = t->ec;
  int d = p->d, s = p->s, k = conv->nidx2, na = conv->nidx;
  if (k > MAX_DERIV || d + na > EIN_MAX_RANK || k + 1 > EIN_MAX_RANK) {
    h2m_fail(t, "a probe with this many derivatives");
    return NULL;
  }
  const IrType *it = p->img->ty;
  int vshape[EIN_MAX_RANK], kshape[EIN_MAX_RANK], wshape[2] = {d, d};
  for (int c = 0; c < d; c++) vshape[c] = 2 * s;
  for (int i = 0; i < it->order; i++) vshape[d + i] = it->dims[i];
  if (d + it->order != d + na) {
    h2m_internal(t, "a convolution indexed with the wrong number of indices");
    return NULL;
  }
  for (int r = 0; r < k; r++) kshape[r] = d;
  kshape[k] = 2 * s;
  int pv = h2m_plist_tensor(t, pl, p->vox, d + na, vshape);
  const EinExpr *fac[EIN_MAX_DIM + 1];
  EinIdx vi[EIN_MAX_RANK], ki[EIN_MAX_RANK];
  EinBinder tb[EIN_MAX_DIM], db[MAX_DERIV];
  for (int c = 0; c < d; c++) {
    vi[c] = ein_ivar(fresh + k + c);
    tb[c] = (EinBinder){fresh + k + c, 0, 2 * s - 1};
  }
  for (int i = 0; i < na; i++) vi[d + i] = conv->idx[i];
  fac[0] = ein_tensor(ec, pv, d + na, vi);
  for (int r = 0; r < k; r++) {
    ki[r] = ein_ivar(fresh + r);
    db[r] = (EinBinder){fresh + r, 0, d - 1};
  }
  for (int c = 0; c < d; c++) {
    IrVar *kv = probe_kd(t, p, c, k);
    if (!kv) return NULL;
    int pk = h2m_plist_tensor(t, pl, kv, k + 1, kshape);
    ki[k] = ein_ivar(fresh + k + c);
    fac[c + 1] = ein_tensor(ec, pk, k + 1, ki);
  }
  const EinExpr *inner = ein_sum(ec, d, tb, ein_mul(ec, d + 1, fac));
  if (k == 0) return inner;
  if (!p->W) {
    IrVar *img = p->img;
    p->W = h2m_emit_op(t, "W", IR_MOP_IMG_TRANSFORM, 1, &img, 0, NULL);
    if (!p->W) return NULL;
  }
  int pw = h2m_plist_tensor(t, pl, p->W, 2, wshape);
  const EinExpr *wf[MAX_DERIV + 1];
  for (int r = 0; r < k; r++) {
    EinIdx wi[2] = {ein_ivar(fresh + r), conv->idx2[r]};
    wf[r] = ein_tensor(ec, pw, 2, wi);
  }
  wf[k] = inner;
  return ein_sum(ec, k, db, ein_mul(ec, k + 1, wf));
}


/* (∂_{j_1}..∂_{j_k} X_α)@P for the position field X, or NULL when e is
 * not such a probe: P_α, δ_{α,j_1} (1 when d = 1) or 0. */
static const EinExpr *position_probe(Rewrite *rw, const EinExpr *e) {
  const EinExpr *leaf = e->kids[0];
  int k = 0;
  EinIdx j = 0;
  for (; leaf->tag == EIN_DIFF; leaf = leaf->kids[0], k++) j = leaf->idx[0];
  if (leaf->tag != EIN_FIELD || rw->args[leaf->param].kind != MA_POSITION) return NULL;
  EinContext *ec = rw->t->ec;
  if (k >= 2) return ein_const_int(ec, 0);
  if (k == 1) return leaf->nidx == 0 ? ein_const_int(ec, 1) : ein_delta(ec, leaf->idx[0], j);
  const MArg *pos = &rw->args[e->param];
  if (pos->kind != MA_TENSOR) return NULL;
  return ein_tensor(ec, rw->tmap[e->param], leaf->nidx, leaf->idx);
}

static const EinExpr *rewrite(Rewrite *rw, const EinExpr *e) {
  Tr *t = rw->t;
  if (t->failed) return NULL;
  switch (e->tag) {
  case EIN_TENSOR: return ein_tensor(t->ec, rw->tmap[e->param], e->nidx, e->idx);
  case EIN_PROBE: {
    const EinExpr *conv = e->kids[0];
    const EinExpr *px = conv->tag != EIN_CONV ? position_probe(rw, e) : NULL;
    if (px) return px;
    if (conv->tag != EIN_CONV && (px = h2m_eigen_probe(rw, e))) return px;
    if (conv->tag != EIN_CONV && !t->failed && (px = h2m_compose_probe(rw, e))) return px;
    if (conv->tag != EIN_CONV) {
      if (t->failed) return NULL;
      h2m_fail(t, "probing this field expression (it did not normalize to convolutions)");
      return NULL;
    }
    const MArg *img = &rw->args[conv->param], *ker = &rw->args[conv->param2];
    const MArg *pos = &rw->args[e->param];
    if (img->kind != MA_IMAGE || ker->kind != MA_KERNEL || pos->kind != MA_TENSOR) {
      h2m_internal(t, "a convolution of the wrong parameter kinds");
      return NULL;
    }
    ProbeCtx *p = probe_ctx(t, rw->probes, img, ker, pos->var);
    if (!p) return NULL;
    if (t->st) t->st->probes++;
    return probe_term(t, rw->pl, p, conv, rw->fresh);
  }
  case EIN_FIELD:
  case EIN_CONV:
  case EIN_DIFF:
  case EIN_LIFT:
    h2m_fail(t, "a field expression outside a probe");
    return NULL;
  default: break;
  }
  if (!e->nkids) return e;
  const EinExpr *buf[8];
  const EinExpr **kids =
      e->nkids <= 8 ? buf : ARENA_NEW_ARRAY(t->a, const EinExpr *, e->nkids);
  bool same = true;
  for (int i = 0; i < e->nkids; i++) {
    if (!(kids[i] = rewrite(rw, e->kids[i]))) return NULL;
    same = same && kids[i] == e->kids[i];
  }
  return same ? e : ein_with_kids(t->ec, e, kids);
}

/* Parameter references in range and of the right kind: what the rewriting
 * below relies on. (ein_op_check is stricter than needed here: it wants
 * every probe in one operator to have the same dimension, and fusion
 * legitimately combines probes of 2-D and 3-D fields.) */
static bool params_ok(const EinOp *op, const EinExpr *e) {
  int np = op->nparams;
  const EinParam *ps = op->params;
  switch (e->tag) {
  case EIN_TENSOR:
    if (e->param < 0 || e->param >= np || ps[e->param].kind != EIN_PARAM_TENSOR ||
        ps[e->param].rank != e->nidx)
      return false;
    break;
  case EIN_FIELD:
    if (e->param < 0 || e->param >= np || ps[e->param].kind != EIN_PARAM_FIELD ||
        ps[e->param].rank != e->nidx)
      return false;
    break;
  case EIN_CONV:
    if (e->param < 0 || e->param >= np || ps[e->param].kind != EIN_PARAM_IMAGE ||
        ps[e->param].rank != e->nidx || e->param2 < 0 || e->param2 >= np ||
        ps[e->param2].kind != EIN_PARAM_KERNEL)
      return false;
    break;
  case EIN_PROBE:
    if (e->param < 0 || e->param >= np || ps[e->param].kind != EIN_PARAM_TENSOR ||
        ps[e->param].rank > 1)
      return false;
    break;
  default: break;
  }
  for (int i = 0; i < e->nkids; i++)
    if (!params_ok(op, e->kids[i])) return false;
  return true;
}

/* dst = op(hargs) with a tensor result. */
static IrVar *translate_ein(Tr *t, const IrInstr *in) {
  const EinOp *op = in->ein;
  int nargs;
  MArg *args;
  if (in->nargs != op->nparams || !params_ok(op, op->body)) {
    h2m_internal(t, "an ill-formed HighIR EIN operator");
    return NULL;
  }
  if (!resolve_ein_args(t, &op, in->args, &nargs, &args)) return NULL;
  IrVar *v = h2m_emit_tensor_op(t, op, nargs, args, in->dst->name);
  if (v && !ir_type_equal(v->ty, in->dst->ty)) h2m_internal(t, "an EIN result of the wrong type");
  return v;
}

/* The MidIR value of the fused operator op over the leaf arguments args:
 * normalized (probes pushed to the leaves), then each probe rewritten. */
IrVar *h2m_emit_tensor_op(Tr *t, const EinOp *op, int nargs, const MArg *args,
                             const char *name) {
  if (op->body->flags & (EIN_FL_PROBE | EIN_FL_DIFF | EIN_FL_FIELD)) {
    EinNormOpts no = {0, t->diag, (Span){{0, 0}, {0, 0}}};
    bool hit = false;
    op = ein_normalize(t->ec, op, &no, t->st ? &t->st->norm : NULL, &hit);
    if (hit) {
      t->failed = true;
      return NULL;
    }
    if (!params_ok(op, op->body)) {
      h2m_internal(t, "an ill-formed EIN operator after normalization");
      return NULL;
    }
  }
  PList pl = {0, 0, NULL, NULL};
  int *tmap = ARENA_NEW_ARRAY(t->a, int, nargs > 0 ? nargs : 1);
  for (int i = 0; i < nargs; i++)
    tmap[i] = args[i].kind == MA_TENSOR ? plist_add(t, &pl, op->params[i], args[i].var) : -1;
  ProbeSet ps = {0, 0, NULL};
  Rewrite rw = {t, op, args, tmap, &pl, &ps, ein_max_var(op->body) + 1};
  if (rw.fresh < op->nsigma) rw.fresh = op->nsigma;
  const EinExpr *body = rewrite(&rw, op->body);
  if (!body) return NULL;
  IrVar *v = mid_emit_ein(t->cur, -1, name, t->ec, pl.n, pl.p, pl.args, op->nsigma,
                          op->sigma, body);
  if (!v) h2m_internal(t, "an EIN operator over tensors");
  return v;
}

/* ---- inside ------------------------------------------------------------------------ */

typedef struct ImgSupport {
  IrVar *img;
  int s;
} ImgSupport;

static void collect_convs(const EinExpr *e, const MArg *args, ImgSupport *is, int *n, int cap) {
  if (e->tag == EIN_FIELD && args[e->param].kind == MA_EIGEN) { /* the matrix field's images */
    collect_convs(args[e->param].eig->op->body, args[e->param].eig->args, is, n, cap);
    return;
  }
  if (e->tag == EIN_FIELD && args[e->param].kind == MA_COMPOSE) { /* G's images (F's: below) */
    collect_convs(args[e->param].eig->op->body, args[e->param].eig->args, is, n, cap);
    return;
  }
  if (e->tag == EIN_CONV) {
    const MArg *img = &args[e->param], *ker = &args[e->param2];
    if (img->kind != MA_IMAGE || ker->kind != MA_KERNEL) return;
    for (int i = 0; i < *n; i++)
      if (is[i].img == img->var) {
        if (ker->k->support > is[i].s) is[i].s = ker->k->support;
        return;
      }
    if (*n < cap) is[(*n)++] = (ImgSupport){img->var, ker->k->support};
    return;
  }
  for (int i = 0; i < e->nkids; i++) collect_convs(e->kids[i], args, is, n, cap);
}

static IrVar *translate_inside(Tr *t, const IrInstr *in) {
  IrVar *x = resolve_value(t, in->args[0]);
  FieldDef *fd = x ? field_def(t, in->args[1]) : NULL;
  if (!fd) return NULL;
  for (int i = 0; i < fd->nargs; i++)
    if (fd->args[i].kind == MA_COMPOSE) { /* F's domain would be tested at G(x) */
      h2m_fail(t, "inside(x, F ∘ G)");
      return NULL;
    }
  ImgSupport is[32];
  int n = 0;
  collect_convs(fd->op->body, fd->args, is, &n, 32);
  if (t->st) t->st->insides++;
  if (n == 0) return ir_emit_bool(t->cur, true);
  IrVar *acc = NULL;
  for (int i = 0; i < n; i++) {
    IrVar *a2[2] = {is[i].img, x};
    IrVar *p = h2m_emit_op(t, "p", IR_MOP_WORLD_TO_INDEX, 2, a2, 0, NULL);
    if (!p) return NULL;
    a2[1] = p;
    IrVar *b = h2m_emit_op(t, "in", IR_MOP_INSIDE_IMAGE, 2, a2, 1, &is[i].s);
    if (!b) return NULL;
    acc = acc ? ir_emit2(t->cur, IR_OP_AND, acc, b) : b;
  }
  return acc;
}

/* ---- CFGs ----------------------------------------------------------------------------- */

static void translate_instr(Tr *t, IrInstr *in) {
  IrVar *dst = in->dst;
  if (dst && is_field(dst->ty)) return; /* symbolic: rebuilt where probed */
  if (in->kind == IR_I_GLOBAL_SET && !t->gmap[in->global->index]) return; /* a field global */
  IrVar *res = NULL;
  IrVar **args = NULL;
  if (in->kind != IR_I_LIT && in->nargs > 0 &&
      !(in->kind == IR_I_OP && (in->op == IR_HOP_EIN || in->op == IR_HOP_INSIDE))) {
    args = ARENA_NEW_ARRAY(t->a, IrVar *, in->nargs);
    for (int i = 0; i < in->nargs; i++) {
      if (is_field(in->args[i]->ty)) {
        h2m_fail(t, "a field used as a value");
        return;
      }
      if (!(args[i] = resolve_value(t, in->args[i]))) return;
    }
  }
  switch (in->kind) {
  case IR_I_LIT: res = emit_lit_copy(t, in); break;
  case IR_I_COPY: res = ir_emit_copy(t->cur, dst->name, args[0]); break;
  case IR_I_GLOBAL_GET:
    if (!t->gmap[in->global->index]) {
      h2m_internal(t, "a dropped global");
      return;
    }
    res = ir_emit_global_get(t->cur, dst->name, t->gmap[in->global->index]);
    break;
  case IR_I_GLOBAL_SET:
    if (t->gmap[in->global->index]) ir_emit_global_set(t->cur, t->gmap[in->global->index], args[0]);
    return;
  case IR_I_STATE_GET:
    res = ir_emit_state_get(t->cur, dst->name, t->smap[in->state->index],
                            in->nargs ? args[0] : NULL);
    break;
  case IR_I_STATE_SET: ir_emit_state_set(t->cur, t->smap[in->state->index], args[0]); return;
  case IR_I_PHI: return; /* created with the block */
  case IR_I_OP:
    if (in->op == IR_HOP_EIN) {
      res = translate_ein(t, in);
    } else if (in->op == IR_HOP_INSIDE) {
      res = translate_inside(t, in);
    } else if (in->op == IR_HOP_CONVOLVE) {
      return;
    } else if (in->op == IR_HOP_BORDER_CLAMP || in->op == IR_HOP_BORDER_MIRROR ||
               in->op == IR_HOP_BORDER_WRAP) {
      res = args[0]; /* the image itself; probes read the mode from the HighIR */
    } else if (in->op == IR_HOP_BORDER_CONST) {
      h2m_fail(t, "border(image, value)");
      return;
    } else if (in->op == IR_OP_STRAND_REDUCE) {
      IrCFG *fn = NULL;
      for (int c = 0; in->fn && c < t->high->ncfgs; c++)
        if (t->high->cfgs[c] == in->fn) fn = t->cfgmap[c];
      res = ir_emit_strand_reduce(t->cur, dst->name, (IrReduce)in->imm[0],
                                  (IrStrandSet)in->imm[1], fn, in->nargs, args);
      if (!res) h2m_internal(t, "strand_reduce");
    } else if (in->op == IR_OP_INPUT_GIVEN && in->nimm == 1 && t->gmap[in->imm[0]]) {
      int gi = t->gmap[in->imm[0]]->index; /* the input's index at this level */
      res = ir_emit_op(t->cur, dst->name, in->op, dst->ty, 0, NULL, 1, &gi);
      if (!res) h2m_internal(t, "input_given");
    } else if (!dst) {
      if (!ir_emit_effect(t->cur, in->op, in->nargs, args, in->nimm, in->imm))
        h2m_internal(t, ir_op_info(IR_HIGH, in->op)->name);
      return;
    } else {
      res = ir_emit_op(t->cur, dst->name, in->op, dst->ty, in->nargs, args, in->nimm, in->imm);
      if (!res) h2m_internal(t, ir_op_info(IR_HIGH, in->op)->name);
    }
    break;
  }
  if (dst) t->vmap[dst->id] = res;
}

/* order[0..n) by reverse-postorder number (distinct, each below
 * cfg->nblocks): placed in a table, not sorted (qsort's comparisons read a
 * block each, missing the cache on 10^5 blocks). */
static void sort_by_rpo(Arena *a, IrBlock **order, int n) {
  int cap = 0;
  for (int i = 0; i < n; i++)
    if (order[i]->rpo >= cap) cap = order[i]->rpo + 1;
  IrBlock **at = ARENA_NEW_ARRAY(a, IrBlock *, cap > 0 ? cap : 1);
  for (int i = 0; i < n; i++) at[order[i]->rpo] = order[i];
  int k = 0;
  for (int r = 0; r < cap; r++)
    if (at[r]) order[k++] = at[r];
}

static void translate_cfg(Tr *t, IrCFG *h, IrCFG *m) {
  t->hcfg = h;
  t->mcfg = m;
  memset(t->vmap, 0, sizeof *t->vmap * (size_t)t->high->next_var_id);
  int maxb = 0;
  for (int b = 0; b < h->nblocks; b++)
    if (h->blocks[b]->id >= maxb) maxb = h->blocks[b]->id + 1;
  t->bmap = ARENA_NEW_ARRAY(t->a, IrBlock *, maxb > 0 ? maxb : 1);
  for (int i = 0; i < h->nparams && i < m->nparams; i++) t->vmap[h->params[i]->id] = m->params[i];
  ir_cfg_compute_dominators(h);
  int nr = 0;
  IrBlock **order = ARENA_NEW_ARRAY(t->a, IrBlock *, h->nblocks > 0 ? h->nblocks : 1);
  for (int b = 0; b < h->nblocks; b++) {
    IrBlock *hb = h->blocks[b];
    if (hb->rpo < 0) continue;
    order[nr++] = hb;
    t->bmap[hb->id] = hb == h->entry ? m->entry : ir_block_new(m, hb->label);
    if (hb == h->entry && hb->label) m->entry->label = hb->label;
  }
  sort_by_rpo(t->a, order, nr);
  for (int i = 0; i < nr && !t->failed; i++) {
    IrBlock *hb = order[i];
    t->cur = t->bmap[hb->id];
    for (int k = 0; k < hb->nphis; k++) {
      IrVar *d = hb->phis[k]->dst;
      if (!is_field(d->ty)) t->vmap[d->id] = ir_phi_new(t->cur, d->name, d->ty);
    }
    for (int k = 0; k < hb->ninstrs && !t->failed; k++) {
      m->cur_line = hb->instrs[k]->line; /* the expansion keeps the source line */
      translate_instr(t, hb->instrs[k]);
    }
  }
  m->cur_line = 0;
  if (t->failed) return;
  for (int i = 0; i < nr; i++) {
    IrBlock *hb = order[i], *mb = t->bmap[hb->id];
    const IrTerm *tm = &hb->term;
    IrVar *v = tm->value ? t->vmap[tm->value->id] : NULL;
    if (tm->value && !v) {
      h2m_fail(t, "a field used as a value");
      return;
    }
    switch (tm->kind) {
    case IR_T_JUMP: ir_block_set_jump(mb, t->bmap[tm->succ[0]->id]); break;
    case IR_T_BRANCH:
      ir_block_set_branch(mb, v, t->bmap[tm->succ[0]->id], t->bmap[tm->succ[1]->id]);
      break;
    case IR_T_RETURN: ir_block_set_return(mb, v); break;
    case IR_T_STABILIZE:
    case IR_T_DIE:
    case IR_T_CONTINUE:
    case IR_T_ERROR: ir_block_set_exit(mb, tm->kind); break;
    case IR_T_NONE: break;
    }
  }
  for (int i = 0; i < nr; i++) {
    IrBlock *hb = order[i];
    for (int k = 0; k < hb->nphis; k++) {
      IrInstr *hp = hb->phis[k];
      IrVar *mv = t->vmap[hp->dst->id];
      if (!mv) continue;
      for (int j = 0; j < hp->nargs && j < hb->npreds; j++) {
        IrBlock *pred = hb->preds[j];
        if (pred->rpo < 0 || !hp->args[j]) continue;
        IrVar *a = t->vmap[hp->args[j]->id];
        if (!a) {
          h2m_internal(t, "a phi argument without translation");
          return;
        }
        ir_phi_set(mv->def, t->bmap[pred->id], a);
      }
    }
  }
  if (h->exit && h->exit->rpo >= 0) m->exit = t->bmap[h->exit->id];
}

IrModule *high_to_mid(IrModule *high, EinContext *ec, DiagCtx *diag, HighToMidStats *stats) {
  if (!high || !ec || high->level != IR_HIGH) return NULL;
  Tr t;
  memset(&t, 0, sizeof t);
  t.high = high;
  t.ec = ec;
  t.a = high->arena;
  t.diag = diag;
  t.st = stats;
  IrModule *m = t.mid = ir_module_next_level(high, IR_MID);
  t.gmap = ARENA_NEW_ARRAY(t.a, IrGlobal *, high->nglobals > 0 ? high->nglobals : 1);
  for (int i = 0; i < high->nglobals; i++) {
    IrGlobal *g = high->globals[i];
    if (!ir_type_allowed(IR_MID, g->ty)) continue;
    IrGlobal *ng = t.gmap[i] = ir_global_new(m, g->kind, g->name, g->ty);
    ng->desc = g->desc;
    ng->has_default = g->has_default;
    ng->value = g->value;
    ng->path = g->path;
    ng->proxy = g->proxy;
    ng->default_text = g->default_text;
    ng->choice_kind = g->choice_kind;
    ng->choices = g->choices;
    ng->nchoices = g->nchoices;
  }
  t.smap = ARENA_NEW_ARRAY(t.a, IrStateVar *, high->nstate > 0 ? high->nstate : 1);
  for (int i = 0; i < high->nstate; i++) {
    IrStateVar *s = high->state[i];
    if (!ir_type_allowed(IR_MID, s->ty)) {
      h2m_fail(&t, "a field as strand state");
      return NULL;
    }
    t.smap[i] = ir_state_new(m, s->name, s->ty, s->output);
    t.smap[i]->shared = s->shared;
    t.smap[i]->position = s->position;
  }
  t.cfgmap = ARENA_NEW_ARRAY(t.a, IrCFG *, high->ncfgs > 0 ? high->ncfgs : 1);
  /* all signatures first: strand_reduce checks its map function's */
  for (int c = 0; c < high->ncfgs && !t.failed; c++) {
    IrCFG *h = high->cfgs[c], *mc = t.cfgmap[c] = ir_cfg_new(m, h->kind, h->name);
    mc->result = h->result;
    for (int i = 0; i < h->nparams; i++) {
      if (is_field(h->params[i]->ty)) h2m_fail(&t, "a field passed as a parameter");
      ir_cfg_add_param(mc, h->params[i]->name, h->params[i]->ty);
    }
  }
  t.vmap = ARENA_NEW_ARRAY(t.a, IrVar *, high->next_var_id > 0 ? high->next_var_id : 1);
  for (int c = 0; c < high->ncfgs && !t.failed; c++)
    translate_cfg(&t, high->cfgs[c], t.cfgmap[c]);
  if (m->next_var_id < high->next_var_id) m->next_var_id = high->next_var_id;
  return t.failed ? NULL : m;
}

void high_to_mid_stats_print(FILE *out, const HighToMidStats *s) {
  fprintf(out, "mid-probes %lu\n", s->probes);
  fprintf(out, "mid-insides %lu\n", s->insides);
  fprintf(out, "mid-fused-fields %lu\n", s->fused_fields);
  fprintf(out, "mid-renormalized-ops %lu\n", s->norm.ops);
}
