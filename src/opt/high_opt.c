/* high_opt.c -- fusion, normalization, value numbering and DCE on HighIR. */
#include "opt/high_opt.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct HOpt {
  IrModule *m;
  EinContext *c;
  Arena *a;
  HighOptStats *st;
} HOpt;

static bool is_ein(const IrInstr *in) {
  return in && in->kind == IR_I_OP && in->op == IR_HOP_EIN && in->ein;
}

/* ---- parameter clean-up ------------------------------------------------------- */

static void mark_params(const EinExpr *e, bool *used, int np) {
  switch (e->tag) {
  case EIN_TENSOR:
  case EIN_FIELD:
  case EIN_PROBE:
    if (e->param >= 0 && e->param < np) used[e->param] = true;
    break;
  case EIN_CONV:
    if (e->param >= 0 && e->param < np) used[e->param] = true;
    if (e->param2 >= 0 && e->param2 < np) used[e->param2] = true;
    break;
  default: break;
  }
  for (int i = 0; i < e->nkids; i++) mark_params(e->kids[i], used, np);
}

static bool same_param(const EinParam *a, const EinParam *b) {
  if (a->kind != b->kind || a->rank != b->rank || a->dim != b->dim) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->shape[i] != b->shape[i]) return false;
  return true;
}

/* Drop parameters that the body does not use and merge parameters bound to
 * the same argument. */
static void compact(HOpt *h, IrInstr *in) {
  const EinOp *op = in->ein;
  int np = op->nparams;
  if (np == 0) return;
  bool *used = ARENA_NEW_ARRAY(h->a, bool, np);
  int *map = ARENA_NEW_ARRAY(h->a, int, np);
  mark_params(op->body, used, np);
  EinParam *ps = ARENA_NEW_ARRAY(h->a, EinParam, np);
  IrVar **args = ARENA_NEW_ARRAY(h->a, IrVar *, np);
  /* the kept parameters by argument, in an open-addressing table (an
   * operator of a sum of many globals has thousands of parameters: a
   * search of the kept ones per parameter was quadratic) */
  int cap = 16;
  while (cap < 2 * np) cap *= 2;
  int *slot = ARENA_NEW_ARRAY(h->a, int, cap); /* 1 + index into ps; 0: empty */
  int n = 0;
  for (int i = 0; i < np; i++) {
    map[i] = 0;
    if (!used[i]) continue;
    uintptr_t key = (uintptr_t)in->args[i];
    unsigned at = (unsigned)((key >> 4) * 2654435761u) & (unsigned)(cap - 1);
    int j = -1;
    for (; slot[at]; at = (at + 1) & (unsigned)(cap - 1)) {
      int k = slot[at] - 1;
      if (args[k] == in->args[i] && same_param(&ps[k], &op->params[i])) {
        j = k;
        break;
      }
    }
    if (j < 0) {
      j = n;
      slot[at] = n + 1;
      ps[n] = op->params[i];
      args[n++] = in->args[i];
    }
    map[i] = j;
  }
  if (n == np) return;
  h->st->pruned += (unsigned long)(np - n);
  const EinExpr *body = ein_map_params(h->c, op->body, map);
  const EinOp *nop = ein_op_new(h->c, n, ps, op->nsigma, op->sigma, body);
  ir_instr_set_op(in, IR_HOP_EIN, n, args, 0, NULL);
  in->ein = nop;
}

/* ---- fusion ------------------------------------------------------------------------ */

/* λV,H⟨V_α ⊛ H⟩_σ for convolve(img, h). */
static const EinOp *conv_op(HOpt *h, const IrInstr *cv) {
  const IrType *img = cv->args[0]->ty, *k = cv->args[1]->ty;
  if (!img || img->kind != IR_TY_IMAGE || !k || k->kind != IR_TY_KERNEL) return NULL;
  EinParam ps[2] = {ein_param_image(img->dim, img->order, img->dims), ein_param_kernel(k->cont)};
  EinIdx idx[EIN_MAX_RANK];
  for (int i = 0; i < img->order && i < EIN_MAX_RANK; i++) idx[i] = ein_ivar(i);
  const EinExpr *body = ein_conv(h->c, 0, 1, img->order, idx, 0, NULL);
  return ein_op_new(h->c, 2, ps, img->order, img->dims, body);
}

/* Should producer `def` (defining argument v) be substituted into `use`? */
static bool fusable(const IrInstr *def, const IrVar *v, const IrInstr *use) {
  if (def->dst && def->dst->ty && def->dst->ty->kind == IR_TY_FIELD) return true;
  if (def->ein->nparams == 0) return true; /* a constant */
  int uses = 0;
  for (int i = 0; i < use->nargs; i++)
    if (use->args[i] == v) uses++;
  return v->nuses == 1 && uses == 1 && def->block == use->block;
}

/* A body grows by one producer at a time, and each substitution walks the
 * whole body so far: fusing a chain of N producers (a sum of N terms) into
 * one operator costs O(N^2) below the cap, and normalizing the result (a+b
 * flattened into the sum level by level) as much again. Past the cap a
 * producer stays an instruction of its own, which keeps both linear in N,
 * at a cost per term proportional to the cap. Field producers must reach
 * their probes (a field has no run-time value), so they get the large cap;
 * the tensor cap is the smaller one that costs the run-time code nothing:
 * a sum split into operators of ~60 terms is the same additions. Real
 * programs stay below both (the largest fused bodies of the conformance
 * corpus, examples/ and tests/: 79 nodes with a tensor producer and 41 with
 * a field producer, tests/programs/accept/coverage/field_functions and
 * v2/inv_forms); the 4,000-term sums of the parser's depth tests and the
 * `globals` family of bench/compile/scaling.py reach them (with a tensor
 * cap of 512 that family's HighIR took 3x as long at 256 terms as at 128;
 * bench/results.md). */
enum { FUSE_MAX_NODES = 512, FUSE_MAX_TENSOR_NODES = 128 };

static bool within_budget(const IrInstr *def, const EinOp *outer, const EinOp *inner) {
  bool field = def->dst && def->dst->ty && def->dst->ty->kind == IR_TY_FIELD;
  return (uint64_t)outer->body->size + inner->body->size <=
         (field ? FUSE_MAX_NODES : FUSE_MAX_TENSOR_NODES);
}

/* Substitute inner (with arguments iargs) for parameter p of `in`. */
static bool subst(HOpt *h, IrInstr *in, int p, const EinOp *inner, int ni, IrVar *const *iargs) {
  const EinOp *nop = ein_op_subst(h->c, in->ein, p, inner);
  if (!nop) return false;
  int n = in->nargs - 1 + ni;
  IrVar **args = ARENA_NEW_ARRAY(h->a, IrVar *, n > 0 ? n : 1);
  int k = 0;
  for (int i = 0; i < p; i++) args[k++] = in->args[i];
  for (int i = 0; i < ni; i++) args[k++] = iargs[i];
  for (int i = p + 1; i < in->nargs; i++) args[k++] = in->args[i];
  ir_instr_set_op(in, IR_HOP_EIN, n, args, 0, NULL);
  in->ein = nop;
  return true;
}

static void fuse_instr(HOpt *h, IrInstr *in) {
  /* bounded: each substitution removes one producer edge. After one at
   * parameter p the scan goes on from p (the substituted producer's own
   * arguments are there): a parameter before it that could not be fused
   * cannot become fusable, so restarting from 0 only cost a scan per
   * substitution (quadratic in a long sum's terms). */
  int from = 0;
  for (int round = 0; round < 256; round++) {
    bool changed = false;
    for (int p = from; p < in->nargs && !changed; p++) {
      from = p;
      IrVar *v = in->args[p];
      IrInstr *def = v ? v->def : NULL;
      if (!def) continue;
      if (is_ein(def) && fusable(def, v, in) && within_budget(def, in->ein, def->ein)) {
        if (subst(h, in, p, def->ein, def->nargs, def->args)) {
          h->st->fused++;
          changed = true;
        }
      } else if (def->kind == IR_I_LIT && def->lit.kind == IR_LIT_REAL && isfinite(def->lit.r) &&
                 in->ein->params[p].kind == EIN_PARAM_TENSOR && in->ein->params[p].rank == 0) {
        /* a real literal becomes a constant of the body (normalization folds it) */
        const EinOp *k = ein_op_new(h->c, 0, NULL, 0, NULL, ein_const_real(h->c, def->lit.r));
        if (subst(h, in, p, k, 0, NULL)) {
          h->st->literals++;
          changed = true;
        }
      } else if (def->kind == IR_I_OP && def->op == IR_HOP_CONVOLVE && p < in->ein->nparams &&
                 in->ein->params[p].kind == EIN_PARAM_FIELD) {
        const EinOp *cv = conv_op(h, def);
        if (cv && subst(h, in, p, cv, 2, def->args)) {
          h->st->convolves++;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  compact(h, in);
}

static void fuse_cfg(HOpt *h, IrCFG *cfg) {
  int nreach = ir_cfg_compute_dominators(cfg);
  ir_cfg_build_uses(cfg);
  /* the reachable blocks by their reverse-postorder number (a dense
   * numbering: placed, not sorted; qsort's comparisons chased a block
   * pointer each, missing the cache on 10^5 blocks) */
  IrBlock **order = ARENA_NEW_ARRAY(h->a, IrBlock *, nreach > 0 ? nreach : 1);
  for (int i = 0; i < cfg->nblocks; i++) {
    IrBlock *b = cfg->blocks[i];
    if (b->rpo >= 0 && b->rpo < nreach) order[b->rpo] = b;
  }
  /* producers come before their consumers in reverse postorder */
  for (int i = 0; i < nreach; i++) {
    IrBlock *b = order[i];
    if (!b) continue;
    for (int j = 0; j < b->ninstrs; j++)
      if (is_ein(b->instrs[j])) fuse_instr(h, b->instrs[j]);
  }
}

/* ---- normalization ------------------------------------------------------------------ */

static bool has_conv(const EinExpr *e, int img, int ker) {
  if (e->tag == EIN_CONV && e->param == img && e->param2 == ker) return true;
  for (int i = 0; i < e->nkids; i++)
    if (has_conv(e->kids[i], img, ker)) return true;
  return false;
}

/* Whether every convolution of a field body survives in its normal form.
 * A field's domain is where all its convolutions are defined (inside()
 * reads it from them), so a normal form that proves a term zero, e.g.
 * det(F ⊗ F), must not drop that term's images from the domain. */
static bool convs_kept(const EinExpr *before, const EinExpr *after) {
  if (before->tag == EIN_CONV) return has_conv(after, before->param, before->param2);
  for (int i = 0; i < before->nkids; i++)
    if (!convs_kept(before->kids[i], after)) return false;
  return true;
}

static bool normalize_cfg(HOpt *h, IrCFG *cfg, DiagCtx *diag) {
  bool ok = true;
  EinNormOpts o = {0, diag, {{0, 0}, {0, 0}}};
  for (int i = 0; i < cfg->nblocks; i++) {
    IrBlock *b = cfg->blocks[i];
    for (int j = 0; j < b->ninstrs; j++) {
      IrInstr *in = b->instrs[j];
      if (!is_ein(in)) continue;
      bool hit = false;
      const EinOp *n = ein_normalize(h->c, in->ein, &o, &h->st->norm, &hit);
      if (hit) ok = false;
      /* a field that loses a convolution keeps its unnormalised form:
       * its probes are normalised again when lowered to MidIR */
      if (n && ein_is_field(in->ein->body) && !convs_kept(in->ein->body, n->body)) continue;
      if (n && n != in->ein) {
        in->ein = n;
        compact(h, in);
      }
    }
  }
  return ok;
}

/* ---- driver ---------------------------------------------------------------------------- */

static void after(const IrPassHook *hook, const char *pass, IrModule *m) {
  if (hook && hook->after) hook->after(hook->ctx, pass, m);
}

bool high_opt(IrModule *m, EinContext *ein, DiagCtx *diag, HighOptStats *stats) {
  return high_opt_hooked(m, ein, diag, stats, NULL);
}

bool high_opt_hooked(IrModule *m, EinContext *ein, DiagCtx *diag, HighOptStats *stats,
                     const IrPassHook *hook) {
  HighOptStats local;
  HOpt h = {m, ein, arena_new(), stats ? stats : &local};
  memset(h.st, 0, sizeof *h.st);
  h.st->before = ir_module_size(m);
  for (int i = 0; i < m->ncfgs; i++) fuse_cfg(&h, m->cfgs[i]);
  /* the fused producers are dead now; counting after DCE shows the gain */
  ir_dce_module(m);
  h.st->after_fusion = ir_module_size(m);
  after(hook, "high.fusion", m);
  bool ok = true;
  for (int i = 0; i < m->ncfgs; i++) ok &= normalize_cfg(&h, m->cfgs[i], diag);
  h.st->after_norm = ir_module_size(m);
  after(hook, "high.normalize", m);
  h.st->vn_removed = (unsigned long)ir_vn_module(m);
  h.st->after_vn = ir_module_size(m);
  after(hook, "high.vn", m);
  h.st->dce_removed = (unsigned long)ir_dce_module(m);
  h.st->after_dce = ir_module_size(m);
  after(hook, "high.dce", m);
  arena_free(h.a);
  return ok;
}

/* "stats: count high.NAME N" and "stats: rule high RULE N" lines (the sizes
 * after each phase come from the hook; doc/user-guide.md has the format). */
void high_opt_stats_print(FILE *out, const HighOptStats *s) {
  const struct {
    const char *name;
    unsigned long n;
  } counts[] = {
      {"fused", s->fused},
      {"convolves-fused", s->convolves},
      {"literals-fused", s->literals},
      {"params-dropped", s->pruned},
      {"vn-removed", s->vn_removed},
      {"dce-removed", s->dce_removed},
      {"norm-ops", s->norm.ops},
      {"norm-steps", s->norm.steps},
      {"norm-max-steps", s->norm.max_steps},
      {"norm-limit-hits", s->norm.limit_hits},
      {"norm-nodes-in", s->norm.nodes_in},
      {"norm-nodes-out", s->norm.nodes_out},
  };
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
    fprintf(out, "stats: count high.%s %lu\n", counts[i].name, counts[i].n);
  for (int k = 0; k < EIN_RULE_COUNT; k++)
    if (s->norm.fired[k])
      fprintf(out, "stats: rule high %s %lu\n", ein_rule_name((EinRuleId)k), s->norm.fired[k]);
}
