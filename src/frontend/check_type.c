/* check_type.c -- the checker's context shared by every part of it:
 * symbols and scopes, the extensions --strict refuses, where in the program
 * a check is, types written in the source (shapes, dimensions, continuity)
 * and the types of images read from proxy files at compile time
 * (doc/language.md §3). Kept apart from typecheck.c, which walks the
 * program's declarations, so that the expression and statement checkers
 * call down into this file and never back up into the walk. */
#include <stdio.h>
#include <string.h>

#include "frontend/typecheck_impl.h"

Symbol *tc_new_symbol(Tc *t, SymKind k, const char *name, Span span, const Type *ty) {
  Symbol *s = ARENA_NEW(t->arena, Symbol);
  s->kind = k;
  s->name = name ? name : "";
  s->span = span;
  s->ty = ty ? ty : t->tc.t_error;
  s->id = t->nsyms++;
  s->track = -1;
  if (k != SYM_BUILTIN && k != SYM_KERNEL && k != SYM_STRAND) {
    if (t->ndecls == t->capdecls) {
      int cap = t->capdecls ? 2 * t->capdecls : 64;
      Symbol **nd = ARENA_NEW_ARRAY(t->arena, Symbol *, cap);
      if (t->ndecls) memcpy(nd, t->decls, sizeof *nd * (size_t)t->ndecls);
      t->decls = nd;
      t->capdecls = cap;
    }
    t->decls[t->ndecls++] = s;
  }
  return s;
}

void tc_declare(Tc *t, Symbol *s) {
  if (!s->name || !s->name[0]) return;
  Symbol *prev = env_lookup_local(t->env, s->name);
  if (prev) {
    diag_report(t->diag, ERR_REDEFINITION, s->span, s->name, prev->span.begin.line);
    return; /* keep the first definition visible */
  }
  env_bind(t->env, s);
}

void tc_extension(Tc *t, TcExtension x, Span at) {
  static const char *const what[EXT__COUNT + 1] = {
#define EXT(id, text) text,
#include "frontend/extensions.def"
#undef EXT
      NULL};
  if (t->opts->strict && x >= 0 && x < EXT__COUNT) diag_report(t->diag, ERR_EXTENSION, at, what[x]);
}

const char *tc_where_name(TcWhere w) {
  switch (w) {
  case W_GLOBAL_DECL: return "a global declaration";
  case W_FUNC: return "a function";
  case W_FIELD_FUNC: return "a field function";
  case W_GLOBAL_INIT: return "the global initialize block";
  case W_STRAND_STATE: return "a strand-state initializer";
  case W_STRAND_INIT: return "the strand initialize block";
  case W_START: return "the start method";
  case W_UPDATE: return "the update method";
  case W_STABILIZE: return "the stabilize method";
  case W_GLOBAL_START: return "the global start block";
  case W_GLOBAL_UPDATE: return "the global update block";
  case W_CREATE: return "the strand creation";
  }
  return "this context";
}

bool tc_in_strand(const Tc *t) {
  return t->where == W_STRAND_STATE || t->where == W_STRAND_INIT || t->where == W_START ||
         t->where == W_UPDATE || t->where == W_STABILIZE;
}

bool tc_in_global_block(const Tc *t) {
  return t->where == W_GLOBAL_START || t->where == W_GLOBAL_UPDATE;
}

/* -------------------------------------------------------------- types */

bool tc_const_int(Tc *t, Expr *e, const char *what, int64_t *out) {
  if (!e) return false;
  int errors = diag_error_count(t->diag);
  const Type *ty = check_expr(t, e, t->tc.t_int);
  /* an error inside (an out-of-range literal types as int) leaves no value */
  if (type_is_error(ty) || diag_error_count(t->diag) != errors) return false;
  if (type_prune(ty)->kind == TY_INT && !const_check(&t->ce, e, true)) return false;
  if (type_prune(ty)->kind != TY_INT || !const_int(&t->ce, e, out)) {
    diag_report(t->diag, ERR_DIM_NOT_INT, e->span, what);
    return false;
  }
  return true;
}

/* A dimension written in a shape: >= 2 (§3.1), within the limits of
 * types.h; dims[] holds 32 (the limit on the product allows 20). */
bool tc_shape_dims(Tc *t, ExprList *l, Span at, int *dims, int *order) {
  bool ok = true;
  int n = 0;
  long long size = 1;
  for (Expr *x = l->head; x; x = x->next) {
    int64_t v;
    if (!tc_const_int(t, x, "a shape dimension", &v)) {
      ok = false;
      continue;
    }
    if (v < 2) {
      diag_report(t->diag, ERR_BAD_TENSOR_DIM, x->span, arena_printf(t->arena, "%lld", (long long)v));
      ok = false;
      continue;
    }
    if (v > TYPE_MAX_DIM) {
      diag_report(t->diag, ERR_TYPE_LIMIT, x->span, "tensor-shape dimension",
                  arena_printf(t->arena, "%lld", (long long)v), TYPE_MAX_DIM);
      ok = false;
      continue;
    }
    if (size <= TYPE_MAX_COMPONENTS) size *= v;
    if (n < 32) dims[n] = (int)v;
    n++;
  }
  if (ok && size > TYPE_MAX_COMPONENTS) {
    diag_report(t->diag, ERR_TENSOR_TOO_LARGE, at, shape_str(t->arena, n, dims),
                TYPE_MAX_COMPONENTS);
    ok = false;
  }
  *order = n < 32 ? n : 32;
  return ok;
}

static bool domain_dim(Tc *t, Expr *e, int *out) {
  int64_t v;
  if (!e || !tc_const_int(t, e, "the dimension", &v)) return false;
  if (v < 1 || v > 3) {
    diag_report(t->diag, ERR_BAD_DIMENSION, e->span, arena_printf(t->arena, "%lld", (long long)v));
    return false;
  }
  *out = (int)v;
  return true;
}

/* k of field#k / kernel#k: an INT token, so never negative; a literal
 * beyond int64 fails to convert and is just as much too large. */
bool tc_continuity(Tc *t, const Token *tok, Span at, int *out) {
  int64_t v;
  if (!tok->text || !const_int_literal(tok->text, false, false, &v) || v > TYPE_MAX_CONT) {
    diag_report(t->diag, ERR_TYPE_LIMIT, at, "differentiation level", tok->text ? tok->text : "?",
                TYPE_MAX_CONT);
    return false;
  }
  *out = (int)v;
  return true;
}

const Type *tc_resolve_type(Tc *t, AstType *at) {
  if (!at) return t->tc.t_error;
  if (at->resolved) return at->resolved;
  TypeCtx *tc = &t->tc;
  const Type *r = tc->t_error;
  int dims[32], order = 0, d = 0, k = 0;
  switch (at->kind) {
  case AT_BOOL: r = tc->t_bool; break;
  case AT_INT: r = tc->t_int; break;
  case AT_REAL: r = tc->t_real; break;
  case AT_STRING: r = tc->t_string; break;
  case AT_TENSOR:
    if (tc_shape_dims(t, &at->shape, at->span, dims, &order)) r = type_tensor(tc, order, dims);
    break;
  case AT_VEC:
    r = type_vec(tc, at->n);
    break;
  case AT_MAT:
    dims[0] = dims[1] = at->n;
    r = type_tensor(tc, 2, dims);
    break;
  case AT_IMAGE: {
    bool okd = domain_dim(t, at->dim, &d);
    bool oks = tc_shape_dims(t, &at->shape, at->span, dims, &order);
    if (okd && oks) r = type_image(tc, d, shape_normalize(tc, order, dims));
    break;
  }
  case AT_FIELD: {
    bool okk = true;
    k = TYPE_CONT_INF;
    if (at->has_cont) okk = tc_continuity(t, &at->cont, at->cont.span.begin.line ? at->cont.span : at->span, &k);
    bool okd = domain_dim(t, at->dim, &d);
    bool oks = tc_shape_dims(t, &at->shape, at->span, dims, &order);
    if (okk && okd && oks) r = type_field(tc, k, d, shape_normalize(tc, order, dims));
    break;
  }
  case AT_KERNEL:
    if (tc_continuity(t, &at->cont, at->cont.span.begin.line ? at->cont.span : at->span, &k))
      r = type_kernel(tc, k);
    break;
  case AT_NAMED:
    if (t->strand && at->name && strcmp(at->name, t->strand->name) == 0)
      r = t->strand->ty;
    else if (at->name && strcmp(at->name, "border") == 0) {
      if (t->input_type) r = type_border(tc); /* border inputs only (check_choice.c) */
      else diag_report(t->diag, ERR_BORDER_TYPE, at->span, at->name);
    } else {
      diag_report(t->diag, ERR_UNKNOWN_TYPE, at->span, at->name ? at->name : "?");
      diag_suggest(t->diag, tc_suggest(t, at->name, TC_SUGGEST_STRAND));
    }
    break;
  case AT_SEQ: {
    const Type *e = tc_resolve_type(t, at->elem);
    int64_t len = TYPE_SEQ_DYNAMIC;
    bool ok = !type_is_error(e);
    if (at->len) {
      if (!tc_const_int(t, at->len, "a sequence length", &len)) {
        ok = false;
      } else if (len < 0) {
        diag_report(t->diag, ERR_NEGATIVE_SEQ_LEN, at->len->span,
                    arena_printf(t->arena, "%lld", (long long)len));
        ok = false;
      } else if (len > TYPE_MAX_SEQ_LEN) {
        diag_report(t->diag, ERR_TYPE_LIMIT, at->len->span, "sequence length",
                    arena_printf(t->arena, "%lld", (long long)len), TYPE_MAX_SEQ_LEN);
        ok = false;
      }
    }
    if (ok && !type_is_value_or_strand_seq(e) && type_prune(e)->kind != TY_STRAND) {
      diag_report(t->diag, ERR_BAD_SEQ_ELEM, at->elem ? at->elem->span : at->span,
                  type_str(t->arena, e));
      ok = false;
    }
    if (ok && !at->len && !type_has_fixed_size(e)) {
      diag_report(t->diag, ERR_NESTED_DYN_SEQ, at->elem ? at->elem->span : at->span,
                  type_str(t->arena, e));
      ok = false;
    }
    if (ok) r = type_seq(tc, e, (int)len);
    break;
  }
  }
  at->resolved = (Type *)r;
  return r;
}

/* -------------------------------------------------------------- proxy */

/* The path of load_image's literal file name as the compiler reads it
 * (relative to the program's directory). */
static const char *proxy_resolve(Tc *t, const char *file) {
  if (file[0] != '/' && t->opts && t->opts->proxy_dir && t->opts->proxy_dir[0])
    return arena_printf(t->arena, "%s/%s", t->opts->proxy_dir, file);
  return file;
}

/* Read the header of the proxy `file` (as written) for a load at `at`;
 * NULL after reporting why it cannot be used. */
static ProxyInfo *proxy_load(Tc *t, const char *file, const char *path, Span at) {
  ProxyInfo *pi = ARENA_NEW(t->arena, ProxyInfo);
  char err[256];
  err[0] = 0;
  if (proxy_read(path, pi, err, sizeof err)) return pi;
  if (pi->bad_type) diag_report(t->diag, ERR_PROXY_TYPE, at, file, pi->type_name);
  else diag_report(t->diag, ERR_PROXY_MISSING, at, file, err[0] ? err : "unknown error");
  return NULL;
}

void tc_proxy(Tc *t, Symbol *s, Expr *init) {
  while (init && init->kind == E_PAREN) init = init->a;
  if (!init || init->kind != E_LOAD_IMAGE) return;
  s->flags |= SF_LOAD_IMAGE;
  const Type *ty = type_prune(s->ty);
  if (!ty || ty->kind != TY_IMAGE) return;
  const ConstValue *pv = const_fold(&t->ce, init->a);
  if (!pv || pv->kind != CV_STRING) return; /* reported by check_expr */
  s->proxy_path = proxy_resolve(t, pv->s);
  ProxyInfo *pi = proxy_load(t, pv->s, s->proxy_path, init->span);
  if (!pi) return;
  bool ok = true;
  if (pi->dim != ty->dim) {
    diag_report(t->diag, ERR_PROXY_DIM, init->span, pv->s, pi->dim, ty->dim);
    ok = false;
  }
  int want = shape_size(ty->shape);
  if (pi->ncomp != want) {
    diag_report(t->diag, ERR_PROXY_SHAPE, init->span, pv->s, pi->ncomp, type_str(t->arena, ty), want);
    ok = false;
  }
  if (ok) s->proxy = pi;
}

const Type *tc_expr_proxy(Tc *t, Expr *e) {
  const ConstValue *pv = const_fold(&t->ce, e->a);
  if (!pv || pv->kind != CV_STRING) return t->tc.t_error;
  const char *path = proxy_resolve(t, pv->s);
  Program *p = t->prog;
  for (int i = 0; i < p->nimage_loads; i++) /* one load per file */
    if (strcmp(p->image_loads[i]->proxy_path, path) == 0) {
      e->sym = p->image_loads[i];
      return e->sym->ty;
    }
  ProxyInfo *pi = proxy_load(t, pv->s, path, e->span);
  if (!pi) return t->tc.t_error;
  const Type *ty = type_image(&t->tc, pi->dim, shape_normalize(&t->tc, pi->order, pi->shape));
  /* a name no program can spell, so it cannot clash */
  const char *name = arena_printf(t->arena, "_image%d", p->nimage_loads);
  Symbol *s = tc_new_symbol(t, SYM_GLOBAL, name, e->span, ty);
  s->flags |= SF_LOAD_IMAGE | SF_HAS_INIT | SF_USED;
  s->proxy = pi;
  s->proxy_path = path;
  s->load_file = pv->s;
  Symbol **grown = ARENA_NEW_ARRAY(t->arena, Symbol *, p->nimage_loads + 1);
  for (int i = 0; i < p->nimage_loads; i++) grown[i] = p->image_loads[i];
  grown[p->nimage_loads] = s;
  p->image_loads = grown;
  p->nimage_loads++;
  e->sym = s;
  return ty;
}
