/* typecheck.c -- program structure: global and strand declarations,
 * functions, the creation clause, whole-program checks (doc/language.md
 * §3, §4). Symbols, scopes and types written in the source are in
 * check_type.c, expressions in check_expr.c and check_access.c,
 * statements in check_stmt.c, initialization and use analysis in
 * var_uses.c. */
#include <stdio.h>
#include <string.h>

#include "frontend/typecheck_impl.h"

/* -------------------------------------------------------- global decls */

typedef struct Override {
  const ConstOverride *o;
  bool used;
} Override;

static const ConstOverride *find_override(Tc *t, const char *name, Override *ov, int nov) {
  (void)t;
  const ConstOverride *hit = NULL;
  for (int i = 0; i < nov; i++)
    if (strcmp(ov[i].o->name, name) == 0) {
      ov[i].used = true;
      hit = ov[i].o; /* the last one on the command line wins */
    }
  return hit;
}

static bool is_load(const Expr *e, ExprKind k) {
  while (e && e->kind == E_PAREN) e = e->a;
  return e && e->kind == k;
}

static void check_const_decl(Tc *t, Decl *d, Override *ov, int nov) {
  const Type *ty = tc_resolve_type(t, d->type);
  Symbol *s = tc_new_symbol(t, SYM_CONST, d->name, d->name_span, ty);
  s->decl = d;
  d->sym = s;
  if (!type_is_error(ty) && !type_is_value(ty)) {
    diag_report(t->diag, ERR_CONST_TYPE, d->name_span, d->name, type_str(t->arena, ty));
    ty = s->ty = t->tc.t_error;
  }
  if (d->init) {
    s->flags |= SF_HAS_INIT;
    if (!tc_check_against(t, d->init, ty)) {
      diag_report(t->diag, ERR_DECL_TYPE_MISMATCH, d->name_span, d->name, type_str(t->arena, ty),
                  type_str(t->arena, d->init->coerce_from ? d->init->coerce_from : d->init->ty));
    } else if (const_check(&t->ce, d->init, true)) {
      s->cval = const_fold(&t->ce, d->init);
    }
  }
  const ConstOverride *o = find_override(t, d->name ? d->name : "", ov, nov);
  if (o && !type_is_error(ty)) {
    const ConstValue *v = const_parse_override(&t->ce, o->value, ty);
    if (!v) {
      Span none = {{0, 0}, {0, 0}};
      diag_report(t->diag, ERR_CONST_OVERRIDE_VALUE, none, o->name, o->value, type_str(t->arena, ty));
    } else {
      s->cval = v;
      s->flags |= SF_HAS_INIT;
    }
  }
  if (!d->init && !o) diag_report(t->diag, ERR_CONST_NO_VALUE, d->name_span, d->name, d->name);
  tc_declare(t, s);
}

static void check_input_decl(Tc *t, Decl *d) {
  if (d->has_desc && d->desc.utf8) tc_extension(t, EXT_UTF8_STRING, d->desc.span);
  t->input_type = true;
  const Type *ty = tc_resolve_type(t, d->type);
  t->input_type = false;
  Symbol *s = tc_new_symbol(t, SYM_INPUT, d->name, d->name_span, ty);
  s->decl = d;
  d->sym = s;
  const Type *p = type_prune(ty);
  if (p && (p->kind == TY_KERNEL || p->kind == TY_BORDER)) {
    /* chosen when the program runs (check_choice.c) */
    if (p->kind == TY_KERNEL) tc_kernel_input(t, d, s);
    else tc_border_input(t, d, s);
    tc_declare(t, s);
    return;
  }
  if (!type_is_error(ty) && !type_is_value(ty) && p->kind != TY_IMAGE) {
    diag_report(t->diag, ERR_INPUT_TYPE, d->name_span, d->name, type_str(t->arena, ty));
    ty = s->ty = t->tc.t_error;
    p = ty;
  }
  if (d->init) {
    s->flags |= SF_HAS_INIT;
    t->input_default = d;
    /* 1.0 allows literals only; anything else is an extension, a constant
     * expression or a computed default as in 2.0 */
    if (d->v1_nonliteral) tc_extension(t, EXT_V1_INPUT_DEFAULT, d->v1_nonliteral->span);
    if (is_load(d->init, E_LOAD_IMAGE) || is_load(d->init, E_LOAD_SEQ)) {
      const Type *it = check_expr(t, d->init, ty);
      if (!type_is_error(it) && !type_is_error(ty) && !tc_coerce(t, d->init, ty))
        diag_report(t->diag, ERR_DECL_TYPE_MISMATCH, d->name_span, d->name,
                    type_str(t->arena, ty), type_str(t->arena, it));
      if (is_load(d->init, E_LOAD_SEQ)) s->flags |= SF_LOAD_SEQ;
      tc_proxy(t, s, d->init);
    } else if (!tc_check_against(t, d->init, ty)) {
      diag_report(t->diag, ERR_DECL_TYPE_MISMATCH, d->name_span, d->name, type_str(t->arena, ty),
                  type_str(t->arena, d->init->ty));
    } else if (p->kind == TY_IMAGE) {
      /* an image default other than load_image: nothing else has an
       * image type that is constant */
      const_check(&t->ce, d->init, true);
    } else if (const_check(&t->ce, d->init, false)) {
      s->cval = const_fold(&t->ce, d->init);
    } else if (type_has_fixed_size(ty)) {
      /* computed when the program starts, if the input is not given (an
       * extension, doc/language.md §3): global code like a global's
       * initializer, at its place in declaration order */
      if (!d->v1_nonliteral) tc_extension(t, EXT_INPUT_DEFAULT, d->init->span);
      s->flags |= SF_COMPUTED_DEFAULT;
    } else {
      const_check(&t->ce, d->init, true); /* dynamic sequences: constants only */
    }
  } else if (p->kind == TY_IMAGE) {
    diag_report(t->diag, WARN_ASSUME_FLOAT, d->name_span, d->name);
  }
  t->input_default = NULL;
  tc_declare(t, s);
}

/* Whether values of t refer to strands (a strand, or a sequence of them). */
static bool refers_to_strands(const Type *t) {
  t = type_prune(t);
  return t && (t->kind == TY_STRAND || (t->kind == TY_SEQ && refers_to_strands(t->elem)));
}

static void check_global_var(Tc *t, Decl *d) {
  const Type *ty = tc_resolve_type(t, d->type);
  Symbol *s = tc_new_symbol(t, SYM_GLOBAL, d->name, d->name_span, ty);
  s->decl = d;
  d->sym = s;
  if (refers_to_strands(ty)) {
    diag_report(t->diag, ERR_GLOBAL_STRAND_TYPE, d->name_span, d->name, type_str(t->arena, ty));
    ty = s->ty = t->tc.t_error;
  }
  if (d->init) {
    s->flags |= SF_HAS_INIT;
    const Type *it = check_expr(t, d->init, ty);
    if (!type_is_error(it) && !type_is_error(ty) && !tc_coerce(t, d->init, ty))
      diag_report(t->diag, ERR_DECL_TYPE_MISMATCH, d->name_span, d->name, type_str(t->arena, ty),
                  type_str(t->arena, it));
    if (is_load(d->init, E_LOAD_SEQ)) s->flags |= SF_LOAD_SEQ;
    tc_proxy(t, s, d->init);
  } else if (t->prog->dialect == DIALECT_V1) {
    diag_report(t->diag, ERR_GLOBAL_NEEDS_INIT, d->name_span, d->name);
    s->flags |= SF_HAS_INIT; /* reported: no "not initialized" on top */
  }
  tc_declare(t, s);
}

static void check_params(Tc *t, ParamList *pl, SymKind k, bool value_only, Symbol **out) {
  int i = 0;
  for (Param *p = pl->head; p; p = p->next, i++) {
    const Type *ty = tc_resolve_type(t, p->type);
    if (value_only && !type_is_error(ty) && !type_is_value(ty)) {
      diag_report(t->diag, ERR_PARAM_NOT_VALUE, p->name_span, p->name, type_str(t->arena, ty));
      ty = t->tc.t_error;
    }
    Symbol *s = tc_new_symbol(t, k, p->name, p->name_span, ty);
    p->sym = s;
    out[i] = s;
    tc_declare(t, s);
  }
}

static void check_function(Tc *t, Decl *d) {
  const Type *rt = tc_resolve_type(t, d->type);
  int n = d->params.len;
  Symbol **ps = ARENA_NEW_ARRAY(t->arena, Symbol *, n ? n : 1);
  const Type **pts = ARENA_NEW_ARRAY(t->arena, const Type *, n ? n : 1);
  Symbol *f = tc_new_symbol(t, SYM_FUNC, d->name, d->name_span, NULL);
  f->decl = d;
  d->sym = f;
  env_push(t->env);
  check_params(t, &d->params, SYM_PARAM, t->prog->dialect == DIALECT_V1, ps);
  for (int i = 0; i < n; i++) pts[i] = ps[i]->ty;
  f->ty = type_fun(&t->tc, n, pts, rt);
  f->params = ps;
  f->nparams = n;
  TcWhere saved = t->where;
  Symbol *saved_f = t->func;
  t->where = W_FUNC;
  t->func = f;
  if (d->init) {
    const Type *bt = check_expr(t, d->init, rt);
    if (!type_is_error(bt) && !type_is_error(rt) && !tc_coerce(t, d->init, rt))
      diag_report(t->diag, ERR_RETURN_TYPE_MISMATCH, d->name_span, d->name,
                  type_str(t->arena, rt), type_str(t->arena, bt));
  } else if (d->body) {
    check_block(t, d->body);
    if (!stmt_always_returns(d->body))
      diag_report(t->diag, ERR_MISSING_RETURN, d->name_span, d->name);
  }
  t->where = saved;
  t->func = saved_f;
  env_pop(t->env);
  /* bound only now: no recursion (§3.6) */
  tc_declare(t, f);
}

static void check_field_func(Tc *t, Decl *d) {
  const Type *ty = tc_resolve_type(t, d->type);
  const Type *p = type_prune(ty);
  Symbol *f = tc_new_symbol(t, SYM_FIELD_FUNC, d->name, d->name_span, ty);
  f->decl = d;
  d->sym = f;
  if (!type_is_error(ty) && p->kind != TY_FIELD) {
    diag_report(t->diag, ERR_FIELD_FUNC_NOT_FIELD, d->name_span, d->name, type_str(t->arena, ty));
    f->ty = ty = t->tc.t_error;
    p = ty;
  }
  env_push(t->env);
  int n = d->params.len;
  Symbol **ps = ARENA_NEW_ARRAY(t->arena, Symbol *, n ? n : 1);
  const Type *pos = p->kind == TY_FIELD ? type_vec(&t->tc, p->dim) : t->tc.t_error;
  int i = 0;
  for (Param *pa = d->params.head; pa; pa = pa->next, i++) {
    /* the parameter is implicitly tensor[d]; a written type must agree */
    const Type *pt = pa->type ? tc_resolve_type(t, pa->type) : pos;
    if (pa->type && !type_is_error(pt) && !type_is_error(pos) && !type_equal(pt, pos))
      diag_report(t->diag, ERR_PARAM_NOT_VALUE, pa->name_span, pa->name, type_str(t->arena, pt));
    Symbol *s = tc_new_symbol(t, SYM_PARAM, pa->name, pa->name_span, pos);
    pa->sym = s;
    ps[i] = s;
    tc_declare(t, s);
  }
  f->params = ps;
  f->nparams = n;
  TcWhere saved = t->where;
  t->where = W_FIELD_FUNC;
  if (d->init) {
    const Type *want = p->kind == TY_FIELD ? type_tensor_shape(&t->tc, p->shape) : t->tc.t_error;
    const Type *bt = check_expr(t, d->init, want);
    if (!type_is_error(bt) && !type_is_error(want) && !tc_coerce(t, d->init, want))
      diag_report(t->diag, ERR_DECL_TYPE_MISMATCH, d->name_span, d->name,
                  type_str(t->arena, want), type_str(t->arena, bt));
  }
  t->where = saved;
  env_pop(t->env);
  tc_declare(t, f);
}

/* ------------------------------------------------------------- strand */

static void check_strand(Tc *t, StrandDecl *sd) {
  Symbol *ss = t->strand;
  env_push(t->env);
  int np = sd->params.len;
  Symbol **ps = ARENA_NEW_ARRAY(t->arena, Symbol *, np ? np : 1);
  check_params(t, &sd->params, SYM_STRAND_PARAM, true, ps);
  ss->params = ps;
  ss->nparams = np;

  env_push(t->env);
  int ns = sd->state.len, i = 0;
  Symbol **st = ARENA_NEW_ARRAY(t->arena, Symbol *, ns ? ns : 1);
  ss->state_index = symtab_new(t->arena, ns);
  TcWhere saved = t->where;
  t->where = W_STRAND_STATE;
  bool any_output = false;
  for (Decl *d = sd->state.head; d; d = d->next, i++) {
    const Type *ty = tc_resolve_type(t, d->type);
    if (!type_is_error(ty) && !type_is_value(ty)) {
      diag_report(t->diag, ERR_STATE_NOT_VALUE, d->name_span, d->name, type_str(t->arena, ty));
      ty = t->tc.t_error;
    }
    Symbol *s = tc_new_symbol(t, SYM_STATE, d->name, d->name_span, ty);
    s->decl = d;
    d->sym = s;
    if (d->is_output) {
      s->flags |= SF_OUTPUT;
      any_output = true;
    }
    if (d->init) {
      s->flags |= SF_HAS_INIT;
      const Type *it = check_expr(t, d->init, ty);
      if (!type_is_error(it) && !type_is_error(ty) && !tc_coerce(t, d->init, ty))
        diag_report(t->diag, ERR_DECL_TYPE_MISMATCH, d->name_span, d->name,
                    type_str(t->arena, ty), type_str(t->arena, it));
    }
    st[i] = s;
    tc_declare(t, s);
    symtab_put(ss->state_index, s);
    tc_state_position(t, ss, d, s);
  }
  ss->state = st;
  ss->nstate = ns;
  if (sd->init) {
    t->where = W_STRAND_INIT;
    check_block(t, sd->init);
  }
  static const TcWhere mw[M__COUNT] = {W_START, W_UPDATE, W_STABILIZE};
  static const char *const mname[M__COUNT] = {"start", "update", "stabilize"};
  for (int m = 0; m < M__COUNT; m++) {
    if (sd->dup_method[m]) diag_report(t->diag, ERR_DUP_METHOD, sd->name_span, mname[m]);
    if (!sd->methods[m] || !sd->methods[m]->body) continue;
    t->where = mw[m];
    check_block(t, sd->methods[m]->body);
  }
  t->where = saved;
  env_pop(t->env);
  env_pop(t->env);
  if (!sd->methods[M_UPDATE]) diag_report(t->diag, ERR_NO_UPDATE, sd->name_span, sd->name);
  if (!any_output) diag_report(t->diag, ERR_NO_OUTPUTS, sd->name_span, sd->name);
}

/* ------------------------------------------------------------- create */

static bool expr_mentions(const Expr *e, Symbol *const *syms, int n, const char **which) {
  if (!e) return false;
  if (e->kind == E_VAR && e->sym)
    for (int i = 0; i < n; i++)
      if (e->sym == syms[i]) {
        *which = syms[i]->name;
        return true;
      }
  if (expr_mentions(e->a, syms, n, which) || expr_mentions(e->b, syms, n, which) ||
      expr_mentions(e->c, syms, n, which))
    return true;
  for (const Expr *x = e->args.head; x; x = x->next)
    if (expr_mentions(x, syms, n, which)) return true;
  for (const Iter *it = e->iters.head; it; it = it->next)
    if (expr_mentions(it->src, syms, n, which)) return true;
  return false;
}

static void check_create(Tc *t, Create *c) {
  TcWhere saved = t->where;
  t->where = W_CREATE;
  env_push(t->env);
  int n = c->iters.len, i = 0;
  Symbol **its = ARENA_NEW_ARRAY(t->arena, Symbol *, n ? n : 1);
  for (Iter *it = c->iters.head; it; it = it->next, i++) {
    const Type *st = it->src ? check_expr(t, it->src, NULL) : t->tc.t_error;
    const Type *elem = t->tc.t_error;
    const char *which = NULL;
    if (it->src && expr_mentions(it->src, its, i, &which))
      diag_report(t->diag, ERR_ITER_DEPENDS, it->span, which);
    const Type *p = type_prune(st);
    if (p && p->kind == TY_SEQ) {
      elem = p->elem;
    } else if (!type_is_error(st)) {
      diag_report(t->diag, ERR_ITER_NOT_SEQ, it->span, it->name ? it->name : "?",
                  type_str(t->arena, st));
    }
    Symbol *s = tc_new_symbol(t, SYM_ITER, it->name, it->name_span, elem);
    it->sym = s;
    its[i] = s;
    tc_declare(t, s);
  }
  Expr *e = c->expr;
  while (e && e->kind == E_PAREN) e = e->a;
  if (!e || e->kind != E_APPLY || !e->a || e->a->kind != E_VAR) {
    diag_report(t->diag, ERR_EXPECTED_CREATION, c->span);
    if (e) check_expr(t, e, NULL);
  } else {
    Symbol *s = t->strand && e->a->name && strcmp(e->a->name, t->strand->name) == 0 ? t->strand : NULL;
    if (!s) {
      diag_report(t->diag, ERR_NOT_STRAND_NAME, c->span, e->a->name ? e->a->name : "?");
      for (Expr *x = e->args.head; x; x = x->next) check_expr(t, x, NULL);
    } else {
      e->sym = s;
      e->a->sym = s;
      e->a->ty = (Type *)s->ty;
      e->ty = (Type *)s->ty;
      tc_check_strand_args(t, s, &e->args, ERR_CREATE_ARGS, c->span);
    }
  }
  env_pop(t->env);
  t->where = saved;
}

/* ------------------------------------------------------------ zonking */

static void zonk_expr(Tc *t, Expr *e);

static void zonk_list(Tc *t, ExprList *l) {
  for (Expr *x = l->head; x; x = x->next) zonk_expr(t, x);
}

static void zonk_stmt(Tc *t, Stmt *s) {
  for (; s; s = NULL) {
    for (Stmt *b = s->body.head; b; b = b->next) zonk_stmt(t, b);
    zonk_expr(t, s->cond);
    zonk_stmt(t, s->then);
    zonk_stmt(t, s->els);
    if (s->iter) zonk_expr(t, s->iter->src);
    zonk_list(t, &s->args);
    zonk_expr(t, s->expr);
  }
}

/* Unbound element types of `{}` default to int: nothing observes them. */
static void zonk_expr(Tc *t, Expr *e) {
  if (!e) return;
  e->ty = (Type *)type_zonk(&t->tc, e->ty, t->tc.t_int);
  e->coerce_from = (Type *)type_zonk(&t->tc, e->coerce_from, t->tc.t_int);
  zonk_expr(t, e->a);
  zonk_expr(t, e->b);
  zonk_expr(t, e->c);
  zonk_list(t, &e->args);
  for (Iter *it = e->iters.head; it; it = it->next) {
    zonk_expr(t, it->src);
    if (it->sym) it->sym->ty = type_zonk(&t->tc, it->sym->ty, t->tc.t_int);
  }
}

static void zonk_program(Tc *t, Program *p) {
  for (Decl *d = p->globals.head; d; d = d->next) {
    zonk_expr(t, d->init);
    zonk_stmt(t, d->body);
  }
  zonk_stmt(t, p->global_init);
  if (p->strand) {
    for (Decl *d = p->strand->state.head; d; d = d->next) zonk_expr(t, d->init);
    zonk_stmt(t, p->strand->init);
    for (int m = 0; m < M__COUNT; m++)
      if (p->strand->methods[m]) zonk_stmt(t, p->strand->methods[m]->body);
  }
  zonk_stmt(t, p->global_start);
  zonk_stmt(t, p->global_update);
  if (p->create) {
    zonk_expr(t, p->create->expr);
    for (Iter *it = p->create->iters.head; it; it = it->next) zonk_expr(t, it->src);
  }
  for (int i = 0; i < t->ndecls; i++)
    t->decls[i]->ty = type_zonk(&t->tc, t->decls[i]->ty, t->tc.t_int);
}

/* ------------------------------------------------------------ program */

bool typecheck_program(Arena *a, DiagCtx *d, Program *p, const TypecheckOptions *opts) {
  if (!p) return false;
  int errors0 = diag_error_count(d);
  Tc *t = ARENA_NEW(a, Tc);
  t->arena = a;
  t->diag = d;
  t->prog = p;
  static const TypecheckOptions no_opts;
  t->opts = opts ? opts : &no_opts;
  type_ctx_init(&t->tc, a);
  t->ce.arena = a;
  t->ce.tc = &t->tc;
  t->ce.diag = d;
  t->ce.long_int = t->opts->long_int;
  t->env = env_new(a);
  t->where = W_GLOBAL_DECL;

  /* the strand name is a type everywhere (globals may mention it) */
  if (p->strand && p->strand->name) {
    Symbol *s = tc_new_symbol(t, SYM_STRAND, p->strand->name, p->strand->name_span, NULL);
    s->ty = type_strand(&t->tc, p->strand->name);
    s->strand = p->strand;
    t->strand = s;
  }

  int nov = 0;
  for (const ConstOverride *o = t->opts->consts; o; o = o->next) nov++;
  Override *ov = ARENA_NEW_ARRAY(a, Override, nov ? nov : 1);
  nov = 0;
  for (const ConstOverride *o = t->opts->consts; o; o = o->next)
    if (o->name) ov[nov++].o = o;

  for (Decl *g = p->globals.head; g && !diag_too_many(d); g = g->next) {
    t->where = W_GLOBAL_DECL;
    switch (g->kind) {
    case D_CONST: check_const_decl(t, g, ov, nov); break;
    case D_INPUT: check_input_decl(t, g); break;
    case D_VAR: check_global_var(t, g); break;
    case D_FUNC: check_function(t, g); break;
    case D_FIELD_FUNC: check_field_func(t, g); break;
    }
  }
  for (int i = 0; i < nov; i++)
    if (!ov[i].used) {
      Span none = {{0, 0}, {0, 0}};
      diag_report(d, ERR_CONST_OVERRIDE_UNKNOWN, none, ov[i].o->name, ov[i].o->name);
    }

  if (p->global_init) {
    t->where = W_GLOBAL_INIT;
    check_block(t, p->global_init);
  }
  if (p->strand) check_strand(t, p->strand);
  if (p->global_start) {
    t->where = W_GLOBAL_START;
    check_block(t, p->global_start);
  }
  if (p->global_update) {
    t->where = W_GLOBAL_UPDATE;
    check_block(t, p->global_update);
  }
  if (p->create) {
    check_create(t, p->create);
    if (p->create->kind == CREATE_ARRAY && t->strand) {
      if (t->strand->flags & SF_STRAND_DIE)
        diag_report(d, ERR_ARRAY_WITH_DIE, p->create->span);
      if (t->strand->flags & SF_STRAND_NEW)
        diag_report(d, ERR_ARRAY_WITH_NEW, p->create->span);
    }
  }
  t->where = W_GLOBAL_DECL;
  if (!diag_too_many(d)) tc_var_uses(t);
  if (t->has_tyvars) zonk_program(t, p);
  return diag_error_count(d) == errors0;
}
