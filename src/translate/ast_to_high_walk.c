/* ast_to_high_walk.c -- walks of the AST that declare_state (ast_to_high.c)
 * makes before translating: the strand parameters that methods read (they
 * get hidden state copies) and the state read through other strands
 * (shared). Apart from ast_to_high.c to keep it under 1000 lines. */
#include "translate/ast_to_high_impl.h"

/* Does `e` (or a statement) read strand parameter symbols? Marks them. */
static void mark_params_expr(Tr *t, const Expr *e, bool *used, Symbol *const *ps, int np);
static void mark_params_list(Tr *t, const Expr *e, bool *used, Symbol *const *ps, int np) {
  for (; e; e = e->next) mark_params_expr(t, e, used, ps, np);
}
static void mark_params_expr(Tr *t, const Expr *e, bool *used, Symbol *const *ps, int np) {
  if (!e) return;
  if (e->kind == E_VAR && e->sym && e->sym->kind == SYM_STRAND_PARAM)
    for (int i = 0; i < np; i++)
      if (ps[i] == e->sym) used[i] = true;
  mark_params_expr(t, e->a, used, ps, np);
  mark_params_expr(t, e->b, used, ps, np);
  mark_params_expr(t, e->c, used, ps, np);
  mark_params_list(t, e->args.head, used, ps, np);
  for (Iter *it = e->iters.head; it; it = it->next) mark_params_expr(t, it->src, used, ps, np);
}
void th_mark_params_stmt(Tr *t, const Stmt *s, bool *used, Symbol *const *ps, int np) {
  for (; s; s = s->next) {
    mark_params_expr(t, s->cond, used, ps, np);
    mark_params_expr(t, s->expr, used, ps, np);
    mark_params_list(t, s->args.head, used, ps, np);
    if (s->iter) mark_params_expr(t, s->iter->src, used, ps, np);
    th_mark_params_stmt(t, s->body.head, used, ps, np);
    th_mark_params_stmt(t, s->then, used, ps, np);
    th_mark_params_stmt(t, s->els, used, ps, np);
  }
}

/* State read through other strands (n.x): shared. */
void th_mark_shared_stmt(Tr *t, const Stmt *s) {
  for (; s; s = s->next) {
    th_mark_shared_expr(t, s->cond);
    th_mark_shared_expr(t, s->expr);
    for (const Expr *x = s->args.head; x; x = x->next) th_mark_shared_expr(t, x);
    if (s->iter) th_mark_shared_expr(t, s->iter->src);
    th_mark_shared_stmt(t, s->body.head);
    th_mark_shared_stmt(t, s->then);
    th_mark_shared_stmt(t, s->els);
  }
}
void th_mark_shared_expr(Tr *t, const Expr *e) {
  if (!e) return;
  if (e->kind == E_SELECT && e->sym && e->sym->kind == SYM_STATE) {
    IrStateVar *sv = th_map_get(&t->states, (uint64_t)(uintptr_t)e->sym);
    if (sv) sv->shared = true;
  }
  th_mark_shared_expr(t, e->a);
  th_mark_shared_expr(t, e->b);
  th_mark_shared_expr(t, e->c);
  for (const Expr *x = e->args.head; x; x = x->next) th_mark_shared_expr(t, x);
  for (Iter *it = e->iters.head; it; it = it->next) th_mark_shared_expr(t, it->src);
  /* functions called from strand code */
  if (e->kind == E_APPLY && e->sym && e->sym->kind == SYM_FUNC && e->sym->decl && t->depth < 64) {
    t->depth++;
    th_mark_shared_expr(t, e->sym->decl->init);
    th_mark_shared_stmt(t, e->sym->decl->body);
    t->depth--;
  }
}

