/* emit_cuda_check.c -- what --target=cuda does not support yet, refused
 * before any code is generated (never a wrong result, never a silent CPU
 * fallback). The IR says what is used where (LowIR keeps no positions);
 * the typed AST gives the position: the first matching construct in the
 * source region the CFG came from (a method body, the strand's state and
 * initialisation, a global block), else that region's own span.
 *
 * Dynamic sequences of fixed-size values (strings are fixed-size there:
 * canonical host addresses, emit_cuda.c) run on the device: built in its
 * arena, kept in strand state in its heap (rt/cuda/dc_seq.h), read from
 * globals and load_sequence through device copies; strand sequences are
 * sphere results. Refused, as a guard (the language has no type for
 * them today, so no program reaches these): in strand code (methods,
 * `new`'s initialisation, the maps of reductions), sequences of dynamic
 * sequences; strand state holding them or strand sequences; a map whose
 * result is a dynamic sequence (collected to the host); and in global
 * blocks `new` (the frontend rejects it there: kept so that a change of
 * that rule cannot reach the device half unnoticed).
 */
#include <string.h>

#include "backend/cuda/emit_cuda.h"
#include "frontend/ast.h"
#include "frontend/env.h"
#include "frontend/types.h"

typedef enum Pred { P_NEW, P_DYNSEQ, P_DYNSTATE, P_MAPSEQ } Pred;

static const char *const pred_what[] = {
    "'new' in a global block with --target=cuda",
    "sequences of dynamic sequences in strand code with --target=cuda (the device keeps "
    "sequences of fixed-size values; use a fixed-size inner sequence, e.g. real[3][], or "
    "build it in a global block)",
    "strand state holding sequences of dynamic sequences or of strands with --target=cuda "
    "(use a sequence of fixed-size values, e.g. real[3][], or of strand ids as int[])",
    "collecting dynamic sequences from strands with --target=cuda (collect fixed-size "
    "values, e.g. the length or a real[N] prefix)",
};

static bool has_span(Span s) { return s.begin.line > 0; }

static bool callee_is(const Expr *e, const char *const *names, int n) {
  if (e->kind != E_APPLY || !e->a || e->a->kind != E_VAR || !e->a->name) return false;
  for (int i = 0; i < n; i++)
    if (!strcmp(e->a->name, names[i])) return true;
  return false;
}

/* A value in host memory: a dynamic sequence other than the strand
 * sequences of sphere queries (and strand sets), or a sequence of those.
 * By type, not syntax: fixed-size sequences and ranges run on the device,
 * and a variable or call can hold a dynamic sequence. */
static bool ty_dyn(const Type *t) {
  t = type_prune(t);
  if (!t) return false;
  if (t->kind != TY_SEQ) return false;
  const Type *el = type_prune(t->elem);
  if (t->len == TYPE_SEQ_DYNAMIC && !(el && el->kind == TY_STRAND)) return true;
  return ty_dyn(el);
}

/* A dynamic sequence of fixed-size values: what the device holds (in its
 * sequence arena and heap, rt/cuda/dc_seq.h, or a global's copy). */
static bool ty_flat(const Type *t) {
  t = type_prune(t);
  return t && t->kind == TY_SEQ && t->len == TYPE_SEQ_DYNAMIC && ty_dyn(t) && !ty_dyn(t->elem);
}

/* A dynamic value the device cannot hold: a sequence of dynamic ones. */
static bool ty_nested(const Type *t) { return ty_dyn(t) && !ty_flat(t); }

static bool is_nested_type(const AstType *t) { return t && ty_nested(t->resolved); }

static bool find_stmts(const Stmt *s, Pred p, Span *at, int depth);
static const Expr *find_expr_d(const Expr *e, Pred p, int depth);

/* A call of a user function whose body uses a construct p: the call is
 * what brings it into strand code (depth bounds the search; Diderot has
 * no recursion). */
static bool calls_matching(const Expr *e, Pred p, int depth) {
  if (e->kind != E_APPLY || !e->a || !e->a->sym || e->a->sym->kind != SYM_FUNC || depth > 16)
    return false;
  const Decl *d = e->a->sym->decl;
  if (!d) return false;
  Span at;
  for (const Param *q = d->params.head; q; q = q->next)
    if (p == P_DYNSEQ && q->sym && ty_nested(q->sym->ty)) return true;
  return (d->body && find_stmts(d->body, p, &at, depth + 1)) ||
         (d->init && find_expr_d(d->init, p, depth + 1));
}

static bool expr_matches(const Expr *e, Pred p, int depth) {
  switch (p) {
  /* a range is a loop, not a sequence in memory */
  case P_DYNSEQ:
    return e->kind != E_RANGE && (e->kind != E_VAR || !e->sym || e->sym->kind != SYM_FUNC) &&
           (ty_nested(e->ty) || calls_matching(e, p, depth));
  case P_MAPSEQ: {
    const Type *t = type_prune(e->ty);
    return e->kind == E_COMPREHENSION && t && t->kind == TY_SEQ && ty_dyn(t->elem);
  }
  default: return false;
  }
}

static const Expr *find_exprs(const Expr *e, Pred p, int depth) {
  for (; e; e = e->next) {
    const Expr *r = find_expr_d(e, p, depth);
    if (r) return r;
  }
  return NULL;
}

static const Expr *find_expr_d(const Expr *e, Pred p, int depth) {
  static const char *const reductions[] = {"sum", "mean", "product", "min", "max", "all", "exists"};
  if (!e) return NULL;
  const Expr *r;
  /* a reduction's comprehension is reduced where it runs, not collected */
  if (callee_is(e, reductions, 7) && e->args.head && e->args.head->kind == E_COMPREHENSION) {
    const Expr *c = e->args.head;
    if ((r = find_expr_d(c->a, p, depth))) return r;
    for (const Iter *it = c->iters.head; it; it = it->next)
      if ((r = find_expr_d(it->src, p, depth))) return r;
    return NULL;
  }
  if (expr_matches(e, p, depth)) return e;
  if ((r = find_expr_d(e->a, p, depth)) || (r = find_expr_d(e->b, p, depth)) ||
      (r = find_expr_d(e->c, p, depth)) || (r = find_exprs(e->args.head, p, depth)))
    return r;
  for (const Iter *it = e->iters.head; it; it = it->next)
    if ((r = find_expr_d(it->src, p, depth))) return r;
  return NULL;
}

static const Expr *find_expr(const Expr *e, Pred p) { return find_expr_d(e, p, 0); }

/* The span of the first construct matching p in s and what follows it. */
static bool find_stmts(const Stmt *s, Pred p, Span *at, int depth) {
  for (; s; s = s->next) {
    bool hit = (p == P_NEW && s->kind == S_NEW) ||
               (p == P_DYNSEQ && ((s->kind == S_FOREACH && s->iter && s->iter->src &&
                                   s->iter->src->kind != E_RANGE && ty_nested(s->iter->src->ty)) ||
                                  (s->kind == S_DECL && is_nested_type(s->type))));
    if (hit) {
      *at = s->span;
      return true;
    }
    const Expr *e = NULL;
    if ((e = find_expr_d(s->cond, p, depth)) || (e = find_expr_d(s->expr, p, depth)) ||
        (s->iter && (e = find_expr_d(s->iter->src, p, depth)))) {
      *at = e->span;
      return true;
    }
    for (const Expr *a = s->args.head; a; a = a->next)
      if ((e = find_expr_d(a, p, depth))) {
        *at = e->span;
        return true;
      }
    if (find_stmts(s->body.head, p, at, depth) || (s->then && find_stmts(s->then, p, at, depth)) ||
        (s->els && find_stmts(s->els, p, at, depth)))
      return true;
  }
  return false;
}

/* The first construct p inside the map of a reduction in e (the maps are
 * the device functions of global blocks). */
static const Expr *find_in_maps(const Expr *e, Pred p) {
  static const char *const reductions[] = {"sum", "mean", "product", "min", "max", "all", "exists"};
  if (!e) return NULL;
  const Expr *r;
  if (callee_is(e, reductions, 7) && e->args.head && e->args.head->kind == E_COMPREHENSION &&
      (r = find_expr(e->args.head->a, p)))
    return r;
  if ((r = find_in_maps(e->a, p)) || (r = find_in_maps(e->b, p)) || (r = find_in_maps(e->c, p)))
    return r;
  for (const Expr *a = e->args.head; a; a = a->next)
    if ((r = find_in_maps(a, p))) return r;
  for (const Iter *it = e->iters.head; it; it = it->next)
    if ((r = find_in_maps(it->src, p))) return r;
  return NULL;
}

static bool find_stmts_maps(const Stmt *s, Pred p, Span *at) {
  for (; s; s = s->next) {
    const Expr *e = NULL;
    if ((e = find_in_maps(s->cond, p)) || (e = find_in_maps(s->expr, p)) ||
        (s->iter && (e = find_in_maps(s->iter->src, p)))) {
      *at = e->span;
      return true;
    }
    for (const Expr *a = s->args.head; a; a = a->next)
      if ((e = find_in_maps(a, p))) {
        *at = e->span;
        return true;
      }
    if (find_stmts_maps(s->body.head, p, at) || (s->then && find_stmts_maps(s->then, p, at)) ||
        (s->els && find_stmts_maps(s->els, p, at)))
      return true;
  }
  return false;
}

/* The span for a construct of kind p used by a CFG of kind k. */
static Span locate(const Program *prog, IrCfgKind k, Pred p) {
  Span none = {{0, 0}, {0, 0}};
  if (!prog) return none;
  const StrandDecl *sd = prog->strand;
  Span at;
  switch (k) {
  case IR_CFG_START:
  case IR_CFG_UPDATE:
  case IR_CFG_STABILIZE: {
    MethodKind mk = k == IR_CFG_START ? M_START : k == IR_CFG_UPDATE ? M_UPDATE : M_STABILIZE;
    const Method *me = sd ? sd->methods[mk] : NULL;
    if (!me) break;
    if (me->body && find_stmts(me->body, p, &at, 0)) return at;
    return me->span;
  }
  case IR_CFG_STRAND_INIT:
    if (!sd) break;
    for (const Decl *d = sd->state.head; d; d = d->next) {
      const Expr *e = find_expr(d->init, p);
      if (e) return e->span;
    }
    if (sd->init && find_stmts(sd->init, p, &at, 0)) return at;
    return sd->name_span;
  case IR_CFG_FUNC:          /* the maps of reductions: written in global blocks */
  case IR_CFG_GLOBAL_START:
  case IR_CFG_GLOBAL_UPDATE: {
    const Stmt *blocks[2] = {k == IR_CFG_GLOBAL_UPDATE ? NULL : prog->global_start,
                             k == IR_CFG_GLOBAL_START ? NULL : prog->global_update};
    for (int i = 0; i < 2; i++)
      if (blocks[i] && (k == IR_CFG_FUNC && p != P_MAPSEQ ? find_stmts_maps(blocks[i], p, &at)
                                         : find_stmts(blocks[i], p, &at, 0)))
        return at;
    for (int i = 0; i < 2; i++)
      if (blocks[i]) return blocks[i]->span;
    break;
  }
  default: break;
  }
  return sd ? sd->name_span : none;
}

/* One report per (construct, position). */
typedef struct Seen {
  Pred p[64];
  Span at[64];
  int n;
} Seen;

static void report(DiagCtx *diag, Seen *seen, Pred p, Span at) {
  for (int i = 0; i < seen->n; i++)
    if (seen->p[i] == p && seen->at[i].begin.line == at.begin.line &&
        seen->at[i].begin.col == at.begin.col)
      return;
  if (seen->n < 64) {
    seen->p[seen->n] = p;
    seen->at[seen->n] = at;
    seen->n++;
  }
  diag_report(diag, ERR_NOT_YET, at, pred_what[p]);
}

static bool is_dyn(const IrType *t) {
  return t && ((t->kind == IR_TY_SEQ && t->len == IR_SEQ_DYNAMIC) ||
               (t->kind == IR_TY_SEQ && is_dyn(t->elem)));
}


/* Sphere results: slot lists in the device's result pool (dc_sphere.h). */
static bool is_strand_seq(const IrType *t) {
  return t && t->kind == IR_TY_SEQ && t->len == IR_SEQ_DYNAMIC && t->elem &&
         t->elem->kind == IR_TY_STRAND;
}

/* A dynamic sequence of fixed-size values: what the device holds (built
 * in its arena, kept in its heap, rt/cuda/dc_seq.h; a global's uploaded
 * with the globals; strings as their canonical copies). */
bool cuda_device_flat_seq(const IrType *t) {
  return t && t->kind == IR_TY_SEQ && t->len == IR_SEQ_DYNAMIC && t->elem && !is_dyn(t->elem) &&
         t->elem->kind != IR_TY_STRAND;
}

/* Dynamic values the device cannot hold: sequences of dynamic sequences. */
static bool is_dyn_device(const IrType *t) {
  return is_dyn(t) && !is_strand_seq(t) && !cuda_device_flat_seq(t);
}

bool cuda_seq_builds(const IrInstr *in) {
  if (in->kind != IR_I_OP || !in->dst || !in->dst->ty || in->dst->ty->kind != IR_TY_SEQ ||
      in->dst->ty->len != IR_SEQ_DYNAMIC)
    return false;
  return in->op == IR_OP_SEQ_APPEND || in->op == IR_OP_SEQ_PREPEND || in->op == IR_OP_SEQ_CONCAT ||
         in->op == IR_OP_RANGE;
}

bool cuda_module_has_new(const IrModule *m) {
  for (int c = 0; c < m->ncfgs; c++) {
    const IrCFG *cfg = m->cfgs[c];
    if (cfg->kind != IR_CFG_START && cfg->kind != IR_CFG_UPDATE) continue;
    for (int b = 0; b < cfg->nblocks; b++)
      for (int i = 0; i < cfg->blocks[b]->ninstrs; i++) {
        const IrInstr *in = cfg->blocks[b]->instrs[i];
        if (in->kind == IR_I_OP && in->op == IR_OP_NEW) return true;
      }
  }
  return false;
}

bool cuda_device_cfg(IrCfgKind k, bool has_new) {
  return k == IR_CFG_START || k == IR_CFG_UPDATE || k == IR_CFG_STABILIZE || k == IR_CFG_FUNC ||
         (k == IR_CFG_STRAND_INIT && has_new);
}

bool cuda_device_value(const IrInstr *in) { return !in->dst || !is_dyn_device(in->dst->ty); }

/* What instruction `in` of a device CFG (else a global block) needs that
 * is refused, or -1. */
static int refused(const IrInstr *in, bool device) {
  if (device) {
    if (!cuda_device_value(in)) return P_DYNSEQ;
    for (int i = 0; i < in->nargs; i++)
      if (in->args[i] && is_dyn_device(in->args[i]->ty)) return P_DYNSEQ;
    return -1;
  }
  if (in->kind != IR_I_OP) return -1;
  return in->op == IR_OP_NEW ? P_NEW : -1;
}

bool cuda_check_module(IrModule *m, DiagCtx *diag, const Program *prog) {
  Seen seen = {.n = 0};
  bool has_new = cuda_module_has_new(m);
  int errors = 0;
  for (int c = 0; c < m->ncfgs; c++) {
    const IrCFG *cfg = m->cfgs[c];
    IrCfgKind k = cfg->kind;
    bool device = cuda_device_cfg(k, has_new);
    bool global = k == IR_CFG_GLOBAL_START || k == IR_CFG_GLOBAL_UPDATE;
    if (!device && !global) continue;
    if (k == IR_CFG_FUNC && is_dyn(cfg->result)) {
      /* a map's result goes to the host: not the device's sequences */
      report(diag, &seen, P_MAPSEQ, locate(prog, k, P_MAPSEQ));
      errors++;
    }
    for (int b = 0; b < cfg->nblocks; b++) {
      const IrBlock *blk = cfg->blocks[b];
      for (int i = 0; i < blk->nphis + blk->ninstrs; i++) {
        const IrInstr *in = i < blk->nphis ? blk->phis[i] : blk->instrs[i - blk->nphis];
        int p = refused(in, device);
        if (p < 0) continue;
        report(diag, &seen, (Pred)p, locate(prog, k, (Pred)p));
        errors++;
      }
    }
  }
  /* state kept on the device */
  for (int i = 0; i < m->nstate; i++) {
    const IrStateVar *s = m->state[i];
    if (!is_dyn(s->ty) || cuda_device_flat_seq(s->ty)) continue; /* dc_seq.h */
    Span at = {{0, 0}, {0, 0}};
    if (prog && prog->strand) {
      at = prog->strand->name_span;
      for (const Decl *d = prog->strand->state.head; d; d = d->next)
        if (d->name && s->name && !strcmp(d->name, s->name) && has_span(d->name_span)) at = d->name_span;
      for (const Param *q = prog->strand->params.head; q; q = q->next)
        /* a parameter the methods read is the state variable _p_NAME */
        if (q->name && s->name && !strncmp(s->name, "_p_", 3) && !strcmp(q->name, s->name + 3) &&
            has_span(q->name_span))
          at = q->name_span;
    }
    report(diag, &seen, P_DYNSTATE, at);
    errors++;
  }
  return errors == 0;
}
