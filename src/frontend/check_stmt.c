/* check_stmt.c -- statements (doc/language.md §7.1): scopes, assignment
 * rules, the control-flow table (including Q17 of doc/differences.md),
 * foreach, print, new, return, unreachable statements. */
#include <string.h>

#include "frontend/typecheck_impl.h"

static const char *tstr(Tc *t, const Type *ty) { return type_str(t->arena, ty); }

/* Does `s` leave the enclosing method/function on every path? Global
 * stabilize/die are not exits (§3.6). */
static bool stmt_exits(const Tc *t, const Stmt *s) {
  if (!s) return false;
  switch (s->kind) {
  case S_RETURN: return true;
  case S_STABILIZE:
  case S_DIE: return t->where == W_START || t->where == W_UPDATE;
  case S_CONTINUE:
    return t->where == W_START || t->where == W_UPDATE || t->where == W_GLOBAL_UPDATE ||
           t->where == W_GLOBAL_START;
  case S_BLOCK:
    for (const Stmt *b = s->body.head; b; b = b->next)
      if (stmt_exits(t, b)) return true;
    return false;
  case S_IF: return s->els && stmt_exits(t, s->then) && stmt_exits(t, s->els);
  default: return false;
  }
}

bool stmt_always_returns(const Stmt *s) {
  if (!s) return false;
  switch (s->kind) {
  case S_RETURN: return true;
  case S_BLOCK:
    for (const Stmt *b = s->body.head; b; b = b->next)
      if (stmt_always_returns(b)) return true;
    return false;
  case S_IF: return s->els && stmt_always_returns(s->then) && stmt_always_returns(s->els);
  default: return false;
  }
}

void check_block(Tc *t, Stmt *s) {
  if (!s) return;
  env_push(t->env);
  if (s->kind == S_BLOCK) {
    bool dead = false, warned = false;
    for (Stmt *b = s->body.head; b; b = b->next) {
      if (dead && !warned) {
        diag_report(t->diag, WARN_UNREACHABLE, b->span);
        warned = true; /* once per block */
      }
      check_stmt(t, b);
      if (stmt_exits(t, b)) dead = true;
    }
  } else {
    check_stmt(t, s);
  }
  env_pop(t->env);
}

static bool context_ok(Tc *t, Stmt *s, const char *what, bool ok) {
  if (!ok) diag_report(t->diag, ERR_STMT_CONTEXT, s->span, what, tc_where_name(t->where));
  return ok;
}

static void check_decl(Tc *t, Stmt *s) {
  const Type *ty = tc_resolve_type(t, s->type);
  Symbol *sym = tc_new_symbol(t, SYM_LOCAL, s->name, s->name_span, ty);
  s->sym = sym;
  if (s->expr) {
    sym->flags |= SF_HAS_INIT;
    const Type *it = check_expr(t, s->expr, ty);
    if (!type_has_error(it) && !type_is_error(ty) && !tc_coerce(t, s->expr, ty))
      diag_report(t->diag, ERR_DECL_TYPE_MISMATCH, s->name_span, s->name ? s->name : "?",
                  tstr(t, ty), tstr(t, it));
    tc_proxy(t, sym, s->expr);
  }
  tc_declare(t, sym); /* after the initializer: `real x = x;` sees the outer x */
}

static bool global_block(TcWhere w) {
  return w == W_GLOBAL_INIT || w == W_GLOBAL_START || w == W_GLOBAL_UPDATE;
}

static bool strand_block(TcWhere w) {
  return w == W_STRAND_INIT || w == W_START || w == W_UPDATE || w == W_STABILIZE;
}

static void check_assign(Tc *t, Stmt *s) {
  Symbol *x = tc_lookup(t, s->name);
  bool compound = s->op != OP__COUNT;
  if (!x) {
    diag_report(t->diag, ERR_UNDECLARED_VAR, s->name_span, s->name ? s->name : "?");
    diag_suggest(t->diag, tc_suggest(t, s->name, TC_SUGGEST_VARIABLE));
    if (s->expr) check_expr(t, s->expr, NULL);
    return;
  }
  s->sym = x;
  bool ok = true;
  switch (x->kind) {
  case SYM_LOCAL: break;
  case SYM_STATE:
    if (!strand_block(t->where)) {
      diag_report(t->diag, ERR_ASSIGN_IMMUTABLE, s->span, sym_kind_name(x->kind), x->name);
      ok = false;
    }
    break;
  case SYM_GLOBAL:
  case SYM_INPUT:
    if (!global_block(t->where)) {
      diag_report(t->diag, ERR_ASSIGN_GLOBAL, s->span, x->name, tc_where_name(t->where));
      ok = false;
    }
    break;
  default:
    diag_report(t->diag, ERR_ASSIGN_IMMUTABLE, s->span, sym_kind_name(x->kind), x->name);
    ok = false;
  }
  const Type *xt = type_prune(x->ty);
  if (ok && !type_is_error(xt) &&
      (xt->kind == TY_FIELD || xt->kind == TY_IMAGE || xt->kind == TY_KERNEL)) {
    diag_report(t->diag, ERR_ASSIGN_FIELD, s->span, x->name);
    ok = false;
  }
  x->flags |= SF_ASSIGNED;
  if (!s->expr) return;
  if (!compound) {
    const Type *rt = check_expr(t, s->expr, xt);
    if (ok && !type_has_error(rt) && !type_is_error(xt) && !tc_coerce(t, s->expr, xt))
      diag_report(t->diag, ERR_ASSIGN_TYPE, s->span, x->name, tstr(t, xt), tstr(t, rt));
    return;
  }
  /* x op= e is x = x op e, resolved over the same table (§3.6); the
   * result must fit x without converting x itself (Q6) */
  Expr *lhs = ast_expr(t->arena, E_VAR, s->name_span);
  lhs->name = s->name;
  lhs->sym = x;
  lhs->ty = (Type *)x->ty;
  Expr *bin = ast_expr(t->arena, E_BINARY, span_join(s->name_span, s->expr->span));
  bin->op = s->op;
  bin->a = lhs;
  bin->b = s->expr;
  s->cond = bin;
  /* an int x: e is where an int is expected (int ^ int, check_binary) */
  const Type *xp = type_prune(xt);
  const Type *rt = check_expr(t, s->expr, xp && xp->kind == TY_INT ? xt : NULL);
  if (!ok || type_has_error(rt) || type_is_error(xt)) {
    bin->ty = (Type *)t->tc.t_error;
    return;
  }
  const Type *r = tc_resolve_compound(t, bin);
  if (!r) {
    const char *opname = arena_printf(t->arena, "%s=", ast_op_spelling(s->op));
    diag_report(t->diag, ERR_COMPOUND_ASSIGN, s->span, opname, x->name, tstr(t, xt), tstr(t, rt));
    bin->ty = (Type *)t->tc.t_error;
    return;
  }
  bin->ty = (Type *)r;
  if (lhs->coerce_from || !tc_coerce(t, bin, xt)) {
    const char *opname = arena_printf(t->arena, "%s=", ast_op_spelling(s->op));
    diag_report(t->diag, ERR_COMPOUND_ASSIGN, s->span, opname, x->name, tstr(t, xt), tstr(t, rt));
  }
}

static void check_foreach(Tc *t, Stmt *s) {
  const Type *ty = tc_resolve_type(t, s->type);
  Iter *it = s->iter;
  const Type *st = it && it->src ? check_expr(t, it->src, NULL) : t->tc.t_error;
  const Type *p = type_prune(st);
  if (!type_has_error(p)) {
    if (p->kind != TY_SEQ) {
      diag_report(t->diag, ERR_ITER_NOT_SEQ, it->span, it->name ? it->name : "?", tstr(t, p));
    } else if (!type_is_error(ty) && !type_unify(p->elem, ty, NULL)) {
      /* equal types only: no int -> real here (§3.3) */
      diag_report(t->diag, ERR_FOREACH_TYPE, s->span, tstr(t, ty), tstr(t, p->elem));
    }
  }
  env_push(t->env);
  if (it) {
    Symbol *sym = tc_new_symbol(t, SYM_ITER, it->name, it->name_span, ty);
    it->sym = sym;
    s->sym = sym;
    tc_declare(t, sym);
  }
  t->loop_depth++;
  check_block(t, s->then);
  t->loop_depth--;
  env_pop(t->env);
}

void check_stmt(Tc *t, Stmt *s) {
  if (!s || diag_too_many(t->diag)) return;
  TcWhere w = t->where;
  switch (s->kind) {
  case S_BLOCK:
    check_block(t, s);
    break;
  case S_IF: {
    const Type *c = s->cond ? check_expr(t, s->cond, t->tc.t_bool) : t->tc.t_error;
    if (!type_has_error(c) && type_prune(c)->kind != TY_BOOL)
      diag_report(t->diag, ERR_COND_NOT_BOOL, s->cond->span, tstr(t, c));
    check_block(t, s->then);
    check_block(t, s->els);
    break;
  }
  case S_FOREACH:
    check_foreach(t, s);
    break;
  case S_PRINT:
    for (Expr *x = s->args.head; x; x = x->next) {
      const Type *ty = check_expr(t, x, NULL);
      if (!type_has_error(ty) && !type_is_value(ty))
        diag_report(t->diag, ERR_PRINT_NOT_VALUE, x->span, tstr(t, ty));
    }
    break;
  case S_NEW: {
    bool ok = context_ok(t, s, "new", w == W_START || w == W_UPDATE);
    Symbol *st = t->strand && s->name && strcmp(s->name, t->strand->name) == 0 ? t->strand : NULL;
    if (!st) {
      diag_report(t->diag, ERR_NEW_UNKNOWN_STRAND, s->span, s->name ? s->name : "?");
      diag_suggest(t->diag, tc_suggest(t, s->name, TC_SUGGEST_STRAND));
      for (Expr *x = s->args.head; x; x = x->next) check_expr(t, x, NULL);
      break;
    }
    s->sym = st;
    if (ok) st->flags |= SF_STRAND_NEW;
    tc_check_strand_args(t, st, &s->args, ERR_NEW_ARGS, s->span);
    break;
  }
  case S_STABILIZE:
  case S_DIE: {
    const char *what = s->kind == S_DIE ? "die" : "stabilize";
    bool ok = context_ok(t, s, what,
                         w == W_START || w == W_UPDATE || w == W_GLOBAL_START || w == W_GLOBAL_UPDATE);
    if (ok && t->strand) {
      if (s->kind == S_DIE) t->strand->flags |= SF_STRAND_DIE;
      else if (w == W_GLOBAL_START || w == W_GLOBAL_UPDATE) t->strand->flags |= SF_GLOBAL_STABILIZE;
    }
    break;
  }
  case S_CONTINUE:
    /* Q17: only where it means "end this step's method/block" */
    context_ok(t, s, "continue",
               w == W_START || w == W_UPDATE || w == W_GLOBAL_START || w == W_GLOBAL_UPDATE);
    break;
  case S_RETURN: {
    bool ok = context_ok(t, s, "return", w == W_FUNC && t->func);
    if (!s->expr) break;
    const Type *rt = ok ? type_prune(t->func->ty)->result : NULL;
    const Type *et = check_expr(t, s->expr, rt);
    if (ok && !type_has_error(et) && !type_is_error(rt) && !tc_coerce(t, s->expr, rt))
      diag_report(t->diag, ERR_RETURN_MISMATCH, s->span, tstr(t, rt), tstr(t, et));
    break;
  }
  case S_DECL:
    check_decl(t, s);
    break;
  case S_ASSIGN:
    check_assign(t, s);
    break;
  }
}
