/* mid_opt.c -- the MidIR optimisation pipeline, the canonical emission of
 * EIN operators shared by the passes and high_to_mid, and the size
 * estimate reported by --stats (see mid_opt.h). */
#include "opt/mid_opt.h"

#include <string.h>

/* ---- canonical parameters --------------------------------------------------------- */

typedef struct Canon {
  Arena *a;
  const EinParam *params;
  IrVar *const *args;
  int *map;
  int n;
  EinParam *out;
  IrVar **oargs;
  const EinExpr **seen; /* open addressing over node pointers */
  size_t cap, count;
} Canon;

static bool param_same(const EinParam *a, const EinParam *b) {
  if (a->kind != b->kind || a->dim != b->dim || a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->shape[i] != b->shape[i]) return false;
  return true;
}

static bool seen_add(Canon *c, const EinExpr *e) {
  size_t h = ((uintptr_t)e >> 4) * 0x9e3779b97f4a7c15u;
  size_t j = h & (c->cap - 1);
  for (; c->seen[j]; j = (j + 1) & (c->cap - 1))
    if (c->seen[j] == e) return false;
  c->seen[j] = e;
  if (++c->count * 2 > c->cap) {
    size_t ncap = c->cap * 2;
    const EinExpr **ns = ARENA_NEW_ARRAY(c->a, const EinExpr *, ncap);
    for (size_t i = 0; i < c->cap; i++) {
      const EinExpr *p = c->seen[i];
      if (!p) continue;
      size_t k = (((uintptr_t)p >> 4) * 0x9e3779b97f4a7c15u) & (ncap - 1);
      while (ns[k]) k = (k + 1) & (ncap - 1);
      ns[k] = p;
    }
    c->seen = ns;
    c->cap = ncap;
  }
  return true;
}

static void canon_note(Canon *c, int p) {
  if (c->map[p] >= 0) return;
  for (int j = 0; j < c->n; j++)
    if (c->oargs[j] == c->args[p] && param_same(&c->out[j], &c->params[p])) {
      c->map[p] = j;
      return;
    }
  c->out[c->n] = c->params[p];
  c->oargs[c->n] = c->args[p];
  c->map[p] = c->n++;
}

/* Pre-order, left to right: the order of first use. */
static void canon_visit(Canon *c, const EinExpr *e) {
  if (!seen_add(c, e)) return;
  if (e->param >= 0) canon_note(c, e->param);
  if (e->param2 >= 0) canon_note(c, e->param2);
  for (int i = 0; i < e->nkids; i++) canon_visit(c, e->kids[i]);
}

static const EinOp *canonical(EinContext *ec, int np, const EinParam *params, IrVar *const *args,
                              int nsigma, const int *sigma, const EinExpr *body, int *nout,
                              IrVar ***aout) {
  Arena *a = ein_context_arena(ec);
  Canon c = {a, params, args, NULL, 0, NULL, NULL, NULL, 64, 0};
  int n1 = np > 0 ? np : 1;
  c.map = ARENA_NEW_ARRAY(a, int, n1);
  for (int i = 0; i < np; i++) c.map[i] = -1;
  c.out = ARENA_NEW_ARRAY(a, EinParam, n1);
  c.oargs = ARENA_NEW_ARRAY(a, IrVar *, n1);
  c.seen = ARENA_NEW_ARRAY(a, const EinExpr *, c.cap);
  canon_visit(&c, body);
  for (int i = 0; i < np; i++)
    if (c.map[i] < 0) c.map[i] = 0; /* unused: never looked up */
  const EinExpr *nb = np ? ein_map_params(ec, body, c.map) : body;
  *nout = c.n;
  *aout = c.oargs;
  return ein_op_new(ec, c.n, c.out, nsigma, sigma, nb);
}

IrVar *mid_emit_ein(IrBlock *b, int pos, const char *hint, EinContext *ec, int nparams,
                    const EinParam *params, IrVar *const *args, int nsigma, const int *sigma,
                    const EinExpr *body) {
  int n;
  IrVar **na;
  const EinOp *op = canonical(ec, nparams, params, args, nsigma, sigma, body, &n, &na);
  IrVar *v = ir_emit_ein(b, hint, op, NULL, n, na);
  if (v && pos >= 0 && pos < b->ninstrs - 1) {
    IrInstr *in = v->def;
    ir_instr_remove(in);
    ir_block_insert(b, pos, in);
  }
  return v;
}

void mid_set_ein(IrInstr *in, EinContext *ec, int nparams, const EinParam *params,
                 IrVar *const *args, int nsigma, const int *sigma, const EinExpr *body) {
  int n;
  IrVar **na;
  const EinOp *op = canonical(ec, nparams, params, args, nsigma, sigma, body, &n, &na);
  ir_instr_set_op(in, IR_MOP_EIN, n, na, 0, NULL);
  in->ein = op;
}

/* ---- size estimate ----------------------------------------------------------------- */

static unsigned long sat_add(unsigned long a, unsigned long b) {
  return a + b < a ? (unsigned long)-1 : a + b;
}

static unsigned long sat_mul(unsigned long a, unsigned long b) {
  if (a && b > (unsigned long)-1 / a) return (unsigned long)-1;
  return a * b;
}

static unsigned long expr_cost(const EinExpr *e) {
  unsigned long c = 0;
  for (int i = 0; i < e->nkids && e->tag != EIN_SUM; i++) c = sat_add(c, expr_cost(e->kids[i]));
  switch (e->tag) {
  case EIN_CONST:
  case EIN_DELTA:
  case EIN_EPS:
  case EIN_TENSOR:
  case EIN_FIELD:
  case EIN_CONV:
  case EIN_LIFT: return c;
  case EIN_ADD:
  case EIN_MUL: return sat_add(c, (unsigned long)(e->nkids - 1));
  case EIN_SUM: {
    unsigned long n = 1;
    for (int b = 0; b < e->nbind; b++)
      n = sat_mul(n, (unsigned long)(e->bind[b].hi - e->bind[b].lo + 1));
    return sat_add(sat_mul(n, expr_cost(e->kids[0])), n - 1);
  }
  default: return sat_add(c, 1);
  }
}

unsigned long mid_ein_cost(const EinOp *op) {
  unsigned long n = 1;
  for (int i = 0; i < op->nsigma; i++) n = sat_mul(n, (unsigned long)op->sigma[i]);
  return sat_mul(n, expr_cost(op->body));
}

unsigned long mid_module_cost(const IrModule *m) {
  unsigned long c = 0;
  int eop = ir_op_ein(m->level);
  for (int k = 0; k < m->ncfgs; k++) {
    const IrCFG *cfg = m->cfgs[k];
    for (int b = 0; b < cfg->nblocks; b++) {
      const IrBlock *bl = cfg->blocks[b];
      for (int i = 0; i < bl->ninstrs; i++) {
        const IrInstr *in = bl->instrs[i];
        bool ein = in->kind == IR_I_OP && in->op == eop && in->ein;
        c = sat_add(c, ein ? mid_ein_cost(in->ein) : 1);
      }
    }
  }
  return c;
}

/* ---- the pipeline ------------------------------------------------------------------- */

MidOptOpts mid_opt_defaults(void) {
  MidOptOpts o = {true, true, true, true, true};
  return o;
}

static void after(const IrPassHook *hook, const char *pass, IrModule *m) {
  if (hook && hook->after) hook->after(hook->ctx, pass, m);
}

static void vn(IrModule *m, const MidOptOpts *o, MidOptStats *st, const IrPassHook *hook,
               const char *pass) {
  if (!o->vn) return;
  for (int k = 0; k < m->ncfgs; k++) {
    int n = ir_vn_cfg(m->cfgs[k]);
    if (st) st->vn_removed += (unsigned long)n;
  }
  after(hook, pass, m);
}

typedef int (*MidPass)(IrCFG *, EinContext *, MidOptStats *);

static void run(IrModule *m, EinContext *ec, MidOptStats *st, const IrPassHook *hook,
                MidPass pass, const char *name) {
  for (int k = 0; k < m->ncfgs; k++) pass(m->cfgs[k], ec, st);
  after(hook, name, m);
}

void mid_optimize(IrModule *m, EinContext *ec, const MidOptOpts *opts, MidOptStats *stats) {
  mid_optimize_hooked(m, ec, opts, stats, NULL);
}

/* Pass by pass over all CFGs (the passes are local to a CFG, so this is the
 * same as CFG by CFG) so that the hook sees the module after each step. */

void mid_optimize_hooked(IrModule *m, EinContext *ec, const MidOptOpts *opts, MidOptStats *stats,
                         const IrPassHook *hook) {
  MidOptOpts o = opts ? *opts : mid_opt_defaults();
  if (stats) {
    stats->before = ir_module_size(m);
    stats->cost_before = mid_module_cost(m);
  }
  if (o.split) {
    run(m, ec, stats, hook, mid_split_cfg, "mid.split");
    vn(m, &o, stats, hook, "mid.split-vn");
  }
  if (o.slice) {
    run(m, ec, stats, hook, mid_slice_cfg, "mid.slice");
    vn(m, &o, stats, hook, "mid.slice-vn");
  }
  if (o.sum_binding) run(m, ec, stats, hook, mid_sumbind_cfg, "mid.sum-binding");
  vn(m, &o, stats, hook, "mid.vn");
  if (o.dce) {
    for (int k = 0; k < m->ncfgs; k++) {
      int n = ir_dce_cfg(m->cfgs[k]);
      if (stats) stats->dce_removed += (unsigned long)n;
    }
    after(hook, "mid.dce", m);
  }
  if (stats) {
    stats->after = ir_module_size(m);
    stats->cost_after = mid_module_cost(m);
  }
}

/* "stats: count mid.NAME N" lines (doc/user-guide.md has the format). */
void mid_opt_stats_print(FILE *out, const MidOptStats *s) {
  const struct {
    const char *name;
    unsigned long n;
  } counts[] = {
      {"split-ops", s->split_ops},
      {"slice-ops", s->slice_ops},
      {"sum-binding-hoists", s->sumbind_hoist},
      {"sum-binding-nests", s->sumbind_nest},
      {"vn-removed", s->vn_removed},
      {"dce-removed", s->dce_removed},
      {"expanded-before", s->cost_before},
      {"expanded-after", s->cost_after},
  };
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
    fprintf(out, "stats: count mid.%s %lu\n", counts[i].name, counts[i].n);
}
