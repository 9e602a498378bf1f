/* mid_split.c -- Split (seed paper 004, §5.7.1): maximal Σ subterms that are
 * operands of other operators become operators of their own (see mid_opt.h).
 *
 * The extracted operator's index space is the subterm's free variables in
 * binding order (variables are numbered by binding site, so that is
 * increasing order), each with the extent of its binder; the subterm is
 * replaced by T_{free variables}. The extracted body is split in turn. */
#include <string.h>

#include "opt/mid_opt.h"

enum {
  SPLIT_MAX_COMPONENTS = 4096, /* do not materialise larger tensors */
  ENV_MAX = 64
};

typedef struct Env {
  int n;
  int var[ENV_MAX], ext[ENV_MAX];
} Env;

typedef struct Split {
  EinContext *ec;
  Arena *a;
  IrBlock *b;
  int *pos; /* insertion point, shared by nested splits */
  int n, cap;
  EinParam *params;
  IrVar **args;
  MidOptStats *st;
  int count;
} Split;

static int add_param(Split *s, EinParam p, IrVar *arg) {
  if (s->n == s->cap) {
    int cap = s->cap ? s->cap * 2 : 8;
    EinParam *np = ARENA_NEW_ARRAY(s->a, EinParam, cap);
    IrVar **na = ARENA_NEW_ARRAY(s->a, IrVar *, cap);
    if (s->n) {
      memcpy(np, s->params, sizeof *np * (size_t)s->n);
      memcpy(na, s->args, sizeof *na * (size_t)s->n);
    }
    s->params = np;
    s->args = na;
    s->cap = cap;
  }
  s->params[s->n] = p;
  s->args[s->n] = arg;
  return s->n++;
}

static void split_init(Split *s, EinContext *ec, IrBlock *b, int *pos, int np,
                       const EinParam *params, IrVar *const *args, MidOptStats *st) {
  memset(s, 0, sizeof *s);
  s->ec = ec;
  s->a = ein_context_arena(ec);
  s->b = b;
  s->pos = pos;
  s->st = st;
  for (int i = 0; i < np; i++) add_param(s, params[i], args[i]);
}

static int env_extent(const Env *env, int v) {
  for (int k = env->n - 1; k >= 0; k--)
    if (env->var[k] == v) return env->ext[k];
  return -1;
}

static const EinExpr *split_rec(Split *s, const EinExpr *e, Env *env, bool protect);

/* e as its own operator, or NULL when it should stay. */
static const EinExpr *extract(Split *s, const EinExpr *e, Env *env) {
  if (e->fv & ((uint64_t)1 << EIN_VAR_LIMIT)) return NULL;
  int free[EIN_MAX_RANK], ext[EIN_MAX_RANK], nf = 0;
  long total = 1;
  for (int v = 0; v < EIN_VAR_LIMIT; v++) {
    if (!ein_free_in(e, v)) continue;
    int x = env_extent(env, v);
    if (x < 1 || nf == EIN_MAX_RANK) return NULL;
    free[nf] = v;
    ext[nf++] = x;
    total *= x;
    if (total > SPLIT_MAX_COMPONENTS) return NULL;
  }
  EinIdx to[EIN_MAX_RANK], fidx[EIN_MAX_RANK];
  for (int k = 0; k < nf; k++) {
    to[k] = ein_ivar(k);
    fidx[k] = ein_ivar(free[k]);
  }
  const EinExpr *body = ein_subst(s->ec, e, nf, free, to);
  /* split the new operator's body (its root Σ stays) */
  Split sub;
  split_init(&sub, s->ec, s->b, s->pos, s->n, s->params, s->args, s->st);
  Env env2;
  env2.n = nf;
  for (int k = 0; k < nf; k++) {
    env2.var[k] = k;
    env2.ext[k] = ext[k];
  }
  const EinExpr *nb = split_rec(&sub, body, &env2, true);
  if (!nb) return NULL;
  IrVar *v = mid_emit_ein(s->b, *s->pos, "t", s->ec, sub.n, sub.params, sub.args, nf, ext, nb);
  if (!v) return NULL;
  (*s->pos)++;
  s->count += sub.count + 1;
  if (s->st) s->st->split_ops++;
  int p = add_param(s, ein_param_tensor(nf, ext), v);
  return ein_tensor(s->ec, p, nf, fidx);
}

static const EinExpr *split_rec(Split *s, const EinExpr *e, Env *env, bool protect) {
  if (!(e->flags & EIN_FL_BINDS)) return e;
  if (e->tag == EIN_SUM && !protect) {
    const EinExpr *r = extract(s, e, env);
    if (r) return r;
  }
  const EinExpr *buf[8];
  const EinExpr **kids = e->nkids <= 8 ? buf : ARENA_NEW_ARRAY(s->a, const EinExpr *, e->nkids);
  bool same = true;
  if (e->tag == EIN_SUM) {
    int saved = env->n;
    if (env->n + e->nbind > ENV_MAX) return e;
    for (int b = 0; b < e->nbind; b++) {
      env->var[env->n] = e->bind[b].var;
      env->ext[env->n] = e->bind[b].hi + 1;
      env->n++;
    }
    const EinExpr *body = e->kids[0];
    kids[0] = split_rec(s, body, env, body->tag == EIN_SUM);
    env->n = saved;
    if (!kids[0]) return NULL;
    same = kids[0] == body;
  } else {
    for (int i = 0; i < e->nkids; i++) {
      if (!(kids[i] = split_rec(s, e->kids[i], env, false))) return NULL;
      same = same && kids[i] == e->kids[i];
    }
  }
  return same ? e : ein_with_kids(s->ec, e, kids);
}

int mid_split_cfg(IrCFG *cfg, EinContext *ec, MidOptStats *stats) {
  if (cfg->module->level != IR_MID) return 0;
  int total = 0;
  for (int bi = 0; bi < cfg->nblocks; bi++) {
    IrBlock *b = cfg->blocks[bi];
    for (int i = 0; i < b->ninstrs; i++) {
      IrInstr *in = b->instrs[i];
      if (in->kind != IR_I_OP || in->op != IR_MOP_EIN || !in->ein) continue;
      const EinOp *op = in->ein;
      if (!(op->body->flags & EIN_FL_BINDS)) continue;
      int pos = i;
      Split s;
      split_init(&s, ec, b, &pos, op->nparams, op->params, in->args, stats);
      Env env;
      env.n = op->nsigma < ENV_MAX ? op->nsigma : ENV_MAX;
      for (int v = 0; v < env.n; v++) {
        env.var[v] = v;
        env.ext[v] = op->sigma[v];
      }
      const EinExpr *nb = split_rec(&s, op->body, &env, true);
      i = pos; /* the instruction moved past the extracted ones */
      if (!nb || !s.count) continue;
      mid_set_ein(in, ec, s.n, s.params, s.args, op->nsigma, op->sigma, nb);
      total += s.count;
    }
  }
  return total;
}
