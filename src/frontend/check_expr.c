/* check_expr.c -- typing of expressions (doc/language.md §4.2, §5, §6,
 * §9.1, §10):
 * overload resolution over basis.def, the special product rules, probes,
 * sphere, load_*, literals (subscripts, selections and comprehensions:
 * check_access.c). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "frontend/typecheck_impl.h"
#include "util/suggest.h"

#define ERRT (t->tc.t_error)

static const Type *set_ty(Expr *e, const Type *ty) {
  e->ty = (Type *)ty;
  return ty;
}

static const char *tstr(Tc *t, const Type *ty) { return type_str(t->arena, ty); }

/* The source text of a one-line span (for messages that quote code). */
static const char *span_text(Tc *t, Span sp) {
  const Source *src = diag_source(t->diag);
  if (!src || sp.begin.line <= 0 || sp.begin.line != sp.end.line) return "/";
  size_t len;
  const char *line = source_line(src, sp.begin.line, &len);
  if (!line) return "/";
  /* columns count code points: step over UTF-8 continuation bytes */
  size_t i = 0, b = 0, e = len;
  int col = 1;
  for (i = 0; i < len; i++) {
    if (((unsigned char)line[i] & 0xC0) == 0x80) continue;
    if (col == sp.begin.col) b = i;
    if (col == sp.end.col) {
      e = i;
      break;
    }
    col++;
  }
  if (e < b) return "/";
  return arena_strndup(t->arena, line + b, e - b);
}

/* The span of the operator glyph `op` between the operands of a binary
 * node (the AST keeps no token for it); the node's span if not found. */
static Span op_span(Tc *t, const Expr *e, const char *op) {
  const Source *src = diag_source(t->diag);
  Span sp = e->span;
  if (!src || !e->a || !e->b || e->a->span.end.line != e->b->span.begin.line) return sp;
  size_t len;
  const char *line = source_line(src, e->a->span.end.line, &len);
  if (!line) return sp;
  size_t ol = strlen(op);
  int col = 1;
  for (size_t i = 0; i < len; i++) {
    if (((unsigned char)line[i] & 0xC0) == 0x80) continue;
    if (col >= e->a->span.end.col && col < e->b->span.begin.col && i + ol <= len &&
        memcmp(line + i, op, ol) == 0) {
      sp.begin.line = sp.end.line = e->a->span.end.line;
      sp.begin.col = col;
      sp.end.col = col + 1;
      return sp;
    }
    col++;
  }
  return sp;
}

/* ----------------------------------------------------------- lookup */

/* ---- "did you mean": the closest spelling of what could stand there */

typedef struct SuggestCtx {
  Suggest s;
  unsigned kinds; /* TcSuggestKind bits */
} SuggestCtx;

static bool suggest_kind_ok(const Symbol *sym, unsigned kinds) {
  if (sym->name && sym->name[0] == '_') return false; /* hidden globals */
  switch (sym->kind) {
  case SYM_FUNC:
  case SYM_FIELD_FUNC: return kinds & (TC_SUGGEST_FUNCTION | TC_SUGGEST_VARIABLE);
  case SYM_STRAND: return kinds & TC_SUGGEST_STRAND;
  case SYM_KERNEL: return kinds & TC_SUGGEST_KERNEL;
  case SYM_BUILTIN: return kinds & TC_SUGGEST_FUNCTION;
  default: return (kinds & TC_SUGGEST_VARIABLE) != 0;
  }
}

static void suggest_sym(Symbol *sym, void *ctx) {
  SuggestCtx *c = ctx;
  if (suggest_kind_ok(sym, c->kinds)) suggest_offer(&c->s, sym->name);
}

const char *tc_suggest(Tc *t, const char *name, unsigned kinds) {
  SuggestCtx c;
  suggest_init(&c.s, name);
  c.kinds = kinds;
  env_each(t->env, suggest_sym, &c);
  if ((kinds & TC_SUGGEST_STRAND) && t->strand) suggest_offer(&c.s, t->strand->name);
  if ((kinds & TC_SUGGEST_VARIABLE) && t->strand && tc_in_strand(t))
    for (int i = 0; i < t->strand->nstate; i++) suggest_offer(&c.s, t->strand->state[i]->name);
  if (kinds & TC_SUGGEST_FUNCTION)
    for (int i = 0; i < BI__COUNT; i++) {
      const Builtin *b = &basis_table[i];
      /* names a program can call: identifiers, not operators or special forms */
      if ((b->name[0] >= 'a' && b->name[0] <= 'z') && !(b->flags & BF_SPECIAL))
        suggest_offer(&c.s, b->name);
    }
  if (kinds & TC_SUGGEST_KERNEL) {
    int n = 0;
    const Kernel *ks = kernel_all(&n);
    for (int i = 0; i < n; i++) suggest_offer(&c.s, ks[i].name);
  }
  return suggest_best(&c.s);
}

/* The built-in constant `real_is_double` (an extension, doc/language.md
 * §3): a bool constant, true when the program is compiled with --double
 * (reals are C doubles), so that a program can write what its reals are
 * (a NRRD header's type, a tolerance). A declaration of the name hides
 * it, as it hides a kernel. */
static Symbol *real_is_double(Tc *t) {
  if (!t->real_is_double) {
    Symbol *s = ARENA_NEW(t->arena, Symbol);
    s->kind = SYM_CONST;
    s->name = TC_REAL_IS_DOUBLE;
    s->ty = t->tc.t_bool;
    s->id = t->nsyms++;
    s->track = -1;
    s->cval = const_make_bool(&t->ce, t->opts->double_real);
    t->real_is_double = s;
  }
  return t->real_is_double;
}

Symbol *tc_lookup(Tc *t, const char *name) {
  if (!name) return NULL;
  Symbol *s = env_lookup(t->env, name);
  if (s) return s;
  if (t->strand && strcmp(name, t->strand->name) == 0) return t->strand;
  if (strcmp(name, TC_REAL_IS_DOUBLE) == 0) return real_is_double(t);
  if (!t->builtins) t->builtins = symtab_new(t->arena, 160);
  s = symtab_get(t->builtins, name);
  if (s) return s;
  int n = 0;
  const Builtin *b = basis_lookup(name, &n);
  const Kernel *k = b ? NULL : kernel_lookup(name);
  if (!b && !k) return NULL;
  /* the table is sized for every built-in name; stop caching beyond */
  if (t->nbuiltins >= 300) return NULL;
  Span none = {{0, 0}, {0, 0}};
  if (b) {
    /* operators are not names a program can write, but the lookup is
     * only ever made with identifiers */
    s = tc_new_symbol(t, SYM_BUILTIN, b->name, none, NULL);
    s->overloads = b;
    s->noverloads = n;
  } else {
    s = tc_new_symbol(t, SYM_KERNEL, k->name, none, type_kernel(&t->tc, k->continuity));
    s->kernel = k;
  }
  symtab_put(t->builtins, s);
  t->nbuiltins++;
  return s;
}

const Scheme *tc_scheme(Tc *t, const Builtin *b) {
  if (!b || (b->flags & BF_SPECIAL)) return NULL;
  int id = (int)b->id;
  if (id < 0 || id >= BI__COUNT) return NULL;
  if (!t->scheme_done[id]) {
    char err[128];
    t->schemes[id] = basis_parse_signature(t->arena, b->sig, err, sizeof err);
    t->scheme_done[id] = true;
  }
  return t->schemes[id];
}

/* basis_lookup is a scan: remember the answers per name (operator
 * spellings are static strings; identifiers come from the AST). */
static const Builtin *tc_basis_lookup(Tc *t, const char *name, int *count) {
  unsigned h = env_hash(name) & (TC_BASIS_CACHE - 1);
  for (unsigned k = 0; k < TC_BASIS_CACHE; k++, h = (h + 1) & (TC_BASIS_CACHE - 1)) {
    TcBasisCache *c = &t->basis_cache[h];
    if (!c->name) {
      c->name = name;
      c->first = basis_lookup(name, &c->count);
      *count = c->count;
      return c->first;
    }
    if (c->name == name || strcmp(c->name, name) == 0) {
      *count = c->count;
      return c->first;
    }
  }
  return basis_lookup(name, count);
}

static const Builtin *special_entry(Tc *t, const char *name) {
  int n;
  return tc_basis_lookup(t, name, &n);
}

/* -------------------------------------------------------- coercions */

bool tc_coerce(Tc *t, Expr *e, const Type *to) {
  if (!e || !to) return false;
  Coercion c = type_coerce(e->ty, to, NULL);
  if (c == COERCE_FAIL) return false;
  if (c == COERCE_OK) {
    const Expr *inner = e;
    while (inner->kind == E_PAREN && inner->a) inner = inner->a;
    if (inner->kind == E_BINARY && inner->builtin &&
        ((const Builtin *)inner->builtin)->id == BI_DIV_II && type_is_real(to))
      diag_report(t->diag, WARN_INT_DIV_REAL, inner->span, span_text(t, inner->span));
    e->coerce_from = e->ty;
    e->ty = (Type *)to;
  }
  return true;
}

bool tc_check_against(Tc *t, Expr *e, const Type *to) {
  const Type *ty = check_expr(t, e, to);
  if (type_is_error(ty) || type_is_error(to)) return true;
  return tc_coerce(t, e, to);
}

/* ----------------------------------------------- overload resolution */

typedef enum { RK_BINOP, RK_UNOP, RK_FUNC } ResolveKind;

/* Resolve `name` applied to the (checked) args per §3.4 and insert the
 * coercions. Returns the result type (error type after a report). */
static const Type *resolve_q(Tc *t, Expr *e, const char *name, Expr **args, int n, ResolveKind rk,
                             bool report);

static const Type *resolve(Tc *t, Expr *e, const char *name, Expr **args, int n, ResolveKind rk) {
  return resolve_q(t, e, name, args, n, rk, true);
}

/* `report` false: return NULL instead of reporting a failed resolution. */
static const Type *resolve_q(Tc *t, Expr *e, const char *name, Expr **args, int n, ResolveKind rk,
                             bool report) {
  int cnt = 0;
  const Builtin *cands = tc_basis_lookup(t, name, &cnt);
  const Type *at[16];
  if (n > 16) n = 16;
  for (int i = 0; i < n; i++) {
    at[i] = args[i]->ty;
    if (type_has_error(at[i])) return ERRT;
  }
  if (!cands) {
    diag_report(t->diag, ERR_UNKNOWN_FUNCTION, e->span, name);
    return ERRT;
  }
  /* memo (unary and binary only, and never with meta-variables) */
  TcResolved *memo = NULL;
  if (n >= 1 && n <= 2) {
    bool plain = true;
    uintptr_t h = (uintptr_t)cands;
    for (int i = 0; i < n; i++) {
      const Type *p = type_prune(at[i]);
      if (p->kind == TY_VAR || p->kind == TY_SEQ) plain = false;
      h = h * 31 + ((uintptr_t)p >> 4);
    }
    if (plain) {
      memo = &t->resolved[(h ^ (h >> 13)) & (TC_RESOLVE_CACHE - 1)];
      if (memo->cands == cands && memo->n == n && memo->args[0] == type_prune(at[0]) &&
          (n == 1 || memo->args[1] == type_prune(at[1]))) {
        e->builtin = memo->chosen;
        for (int i = 0; i < n; i++)
          if (memo->params[i] != memo->args[i]) tc_coerce(t, args[i], memo->params[i]);
        return memo->result;
      }
    }
  }
  const Type *params[16];
  for (int pass = 0; pass < 2; pass++) {
    for (int c = 0; c < cnt; c++) {
      const Builtin *b = &cands[c];
      const Scheme *s = tc_scheme(t, b);
      if (!s) continue;
      const Type *res = NULL;
      SchemeMatch m = scheme_match(&t->tc, s, at, n, pass == 1, params, &res);
      if (m == SCHEME_FAIL) continue;
      e->builtin = b;
      if (b->flags & BF_UNSUPPORTED) {
        diag_report(t->diag, ERR_UNSUPPORTED_BUILTIN, e->span, name);
        return ERRT;
      }
      if (m == SCHEME_NEG_CONT) {
        int k = 0;
        for (int i = 0; i < n; i++) {
          const Type *p = type_prune(at[i]);
          if (p->kind == TY_FIELD) {
            k = p->cont;
            break;
          }
        }
        const char *eig = n == 1 ? tc_eigen_field_of(args[0]) : NULL;
        if (eig) diag_report(t->diag, ERR_EIGEN_FIELD_DIFF, e->span, eig, name);
        else diag_report(t->diag, ERR_FIELD_CONTINUITY, e->span, k, name);
        return ERRT;
      }
      for (int i = 0; i < n; i++) {
        if (type_equal(at[i], params[i])) params[i] = type_prune(at[i]);
        else tc_coerce(t, args[i], params[i]);
      }
      if (memo) {
        memo->cands = cands;
        memo->n = n;
        memo->chosen = b;
        memo->result = res;
        for (int i = 0; i < n; i++) {
          memo->args[i] = type_prune(at[i]);
          memo->params[i] = params[i];
        }
      }
      return res;
    }
  }
  /* no match: say why */
  if (!report) return NULL;
  const char *shown = rk == RK_UNOP && strcmp(name, "unary-") == 0 ? "-" : name;
  if (cnt > 1) {
    diag_report(t->diag, ERR_OVERLOAD, e->span, shown, type_list_str(t->arena, at, n));
  } else if (rk == RK_BINOP && n == 2) {
    diag_report(t->diag, ERR_BINOP_TYPE, e->span, shown, tstr(t, at[0]), tstr(t, at[1]));
  } else if (rk == RK_UNOP && n == 1) {
    diag_report(t->diag, ERR_UNOP_TYPE, e->span, shown, tstr(t, at[0]));
  } else {
    const Scheme *s = tc_scheme(t, &cands[0]);
    if (!s || s->nparams != n) {
      diag_report(t->diag, ERR_ARG_COUNT, e->span, name, s ? s->nparams : 0, n);
    } else {
      /* the first argument that fails on its own (the others wildcards) */
      int bad = n - 1;
      for (int i = 0; i < n; i++) {
        const Type *one[16];
        for (int j = 0; j < n; j++) one[j] = j == i ? at[j] : ERRT;
        const Type *res;
        if (scheme_match(&t->tc, s, one, n, true, NULL, &res) == SCHEME_FAIL) {
          bad = i;
          break;
        }
      }
      diag_report(t->diag, ERR_ARG_TYPE, e->span, bad + 1, name, tstr(t, at[bad]),
                  scheme_type_str(t->arena, s->params[bad]));
    }
  }
  return ERRT;
}

/* ----------------------------------------------------- product rules */

/* • ⊗ : over tensors and fields (§3.5). */
static const Type *check_product(Tc *t, Expr *e) {
  const Type *A = type_prune(e->a->ty), *B = type_prune(e->b->ty);
  const char *op = ast_op_spelling(e->op);
  e->builtin = special_entry(t, op);
  if (type_has_error(A) || type_has_error(B)) return ERRT;
  if (A->kind == TY_INT) {
    tc_coerce(t, e->a, t->tc.t_real);
    A = t->tc.t_real;
  }
  if (B->kind == TY_INT) {
    tc_coerce(t, e->b, t->tc.t_real);
    B = t->tc.t_real;
  }
  bool fa = A->kind == TY_FIELD, fb = B->kind == TY_FIELD;
  if ((A->kind != TY_TENSOR && !fa) || (B->kind != TY_TENSOR && !fb) ||
      (fa && fb && A->dim != B->dim)) {
    if (e->op == OP_OUTER) diag_report(t->diag, ERR_OUTER_SHAPE, e->span, tstr(t, A), tstr(t, B));
    else diag_report(t->diag, ERR_BINOP_TYPE, e->span, op, tstr(t, A), tstr(t, B));
    return ERRT;
  }
  Shape sa = A->shape, sb = B->shape, r;
  if (e->op == OP_DOT) {
    if (sa.order < 1 || sb.order < 1 || sa.dims[sa.order - 1] != sb.dims[0]) {
      diag_report(t->diag, ERR_BINOP_TYPE, e->span, op, tstr(t, A), tstr(t, B));
      return ERRT;
    }
    Shape l = {sa.order - 1, sa.dims}, rr = {sb.order - 1, sb.dims + 1};
    r = shape_concat(&t->tc, l, rr);
  } else if (e->op == OP_OUTER) {
    if (sa.order < 1 || sb.order < 1) {
      diag_report(t->diag, ERR_OUTER_SHAPE, e->span, tstr(t, A), tstr(t, B));
      return ERRT;
    }
    r = shape_concat(&t->tc, sa, sb);
  } else {
    if (sa.order < 2 || sb.order < 2 || sa.dims[sa.order - 2] != sb.dims[0] ||
        sa.dims[sa.order - 1] != sb.dims[1]) {
      diag_report(t->diag, ERR_BINOP_TYPE, e->span, op, tstr(t, A), tstr(t, B));
      return ERRT;
    }
    Shape l = {sa.order - 2, sa.dims}, rr = {sb.order - 2, sb.dims + 2};
    r = shape_concat(&t->tc, l, rr);
  }
  if (!fa && !fb) return type_tensor_shape(&t->tc, r);
  /* continuity: the min rule (Q3), also for mixed field/tensor operands */
  int k = fa && fb ? (A->cont < B->cont ? A->cont : B->cont) : (fa ? A->cont : B->cont);
  return type_field(&t->tc, k, fa ? A->dim : B->dim, r);
}

/* ------------------------------------------------------ applications */

void tc_check_args(Tc *t, ExprList *args) {
  for (Expr *x = args->head; x; x = x->next) check_expr(t, x, NULL);
}

static int collect(ExprList *l, Expr **out, int max) {
  int n = 0;
  for (Expr *x = l->head; x && n < max; x = x->next) out[n++] = x;
  return n;
}

static const Type *check_probe(Tc *t, Expr *e, const Type *F) {
  F = type_prune(F);
  int n = e->args.len;
  if (n != 1) {
    const Type *ts[16];
    int i = 0;
    for (Expr *x = e->args.head; x && i < 16; x = x->next) ts[i++] = x->ty;
    diag_report(t->diag, ERR_PROBE_TYPE, e->span, tstr(t, F), type_list_str(t->arena, ts, i));
    return ERRT;
  }
  Expr *x = e->args.head;
  if (type_has_error(x->ty)) return ERRT;
  const Type *pos = type_vec(&t->tc, F->dim); /* real when d = 1 */
  if (!tc_coerce(t, x, pos)) {
    diag_report(t->diag, ERR_PROBE_TYPE, e->span, tstr(t, F), tstr(t, x->ty));
    return ERRT;
  }
  return type_tensor_shape(&t->tc, F->shape);
}

static const Type *check_sphere(Tc *t, Expr *e, Symbol *bs) {
  e->builtin = bs->overloads;
  if (!tc_in_strand(t) || !t->strand) {
    diag_report(t->diag, ERR_SPHERE_CONTEXT, e->span);
    return ERRT;
  }
  Symbol *pos = t->strand->pos;
  if (!pos) {
    diag_report(t->diag, ERR_SPHERE_NO_POS, e->span, t->strand->name);
    return ERRT;
  }
  const Type *pt = type_prune(pos->ty);
  if (type_is_error(pt)) return ERRT;
  if (pt->kind != TY_TENSOR || pt->shape.order > 1 ||
      (pt->shape.order == 1 && pt->shape.dims[0] > 3)) {
    if (!pos->decl || !pos->decl->is_position)   /* else reported at its declaration */
      diag_report(t->diag, ERR_SPHERE_POS_TYPE, e->span, tstr(t, pt));
    return ERRT;
  }
  int n = e->args.len;
  if (n != 1 && n != 2) {
    diag_report(t->diag, ERR_ARG_COUNT, e->span, "sphere", 1, n);
    return ERRT;
  }
  Expr *x = e->args.head;
  int i = 1;
  bool ok = true;
  if (n == 2) {
    if (!type_has_error(x->ty) && !tc_coerce(t, x, pt)) {
      diag_report(t->diag, ERR_ARG_TYPE, e->span, 1, "sphere", tstr(t, x->ty), tstr(t, pt));
      ok = false;
    }
    x = x->next;
    i = 2;
  }
  if (!type_has_error(x->ty) && !tc_coerce(t, x, t->tc.t_real)) {
    diag_report(t->diag, ERR_ARG_TYPE, e->span, i, "sphere", tstr(t, x->ty), "real");
    ok = false;
  }
  t->strand->flags |= SF_STRAND_SPHERE;
  return ok ? type_seq(&t->tc, t->strand->ty, TYPE_SEQ_DYNAMIC) : ERRT;
}

static const Type *check_user_call(Tc *t, Expr *e, Symbol *f) {
  const Type *ft = type_prune(f->ty);
  if (!ft || ft->kind != TY_FUN) return ERRT;
  int n = e->args.len;
  if (n != ft->nparams) {
    diag_report(t->diag, ERR_ARG_COUNT, e->span, f->name, ft->nparams, n);
    return ERRT;
  }
  int i = 0;
  bool ok = true;
  for (Expr *x = e->args.head; x; x = x->next, i++) {
    if (type_has_error(x->ty) || type_has_error(ft->params[i])) {
      ok = false;
      continue;
    }
    if (!tc_coerce(t, x, ft->params[i])) {
      diag_report(t->diag, ERR_ARG_TYPE, e->span, i + 1, f->name, tstr(t, x->ty),
                  tstr(t, ft->params[i]));
      ok = false;
    }
  }
  return ok ? ft->result : ERRT;
}

static const Type *check_builtin_call(Tc *t, Expr *e, Symbol *bs, const char *name) {
  if (bs->overloads && (bs->overloads->flags & BF_SPECIAL)) {
    if (strcmp(name, "sphere") == 0) return check_sphere(t, e, bs);
    /* the other special names are syntax forms, not callable */
    diag_report(t->diag, ERR_UNKNOWN_FUNCTION, e->span, name);
    return ERRT;
  }
  Expr *args[16];
  int n = collect(&e->args, args, 16);
  if (e->args.len > 16) {
    diag_report(t->diag, ERR_ARG_COUNT, e->span, name, 16, e->args.len);
    return ERRT;
  }
  const Type *r = resolve(t, e, name, args, n, RK_FUNC);
  const Builtin *b = e->builtin;
  if (!type_is_error(r) && b) {
    int x = tc_builtin_extension(b);
    if (x >= 0) tc_extension(t, (TcExtension)x, e->span);
    if (b->id == BI_INSIDE && n == 2 && tc_has_compose(args[1])) {
      diag_report(t->diag, ERR_INSIDE_COMPOSE, e->span);
      return ERRT;
    }
    if (!tc_builtin_allowed(b, t->where)) {
      diag_report(t->diag, ERR_IMAGE_QUERY_WHERE, e->span, b->name, tc_where_name(t->where));
      return ERRT;
    }
  }
  if (!type_is_error(r) && b && (b->id == BI_NORMALIZE_T || b->id == BI_NORMALIZE_F) &&
      type_prune(r)->shape.order == 0) {
    diag_report(t->diag, ERR_NORMALIZE_SCALAR, e->span, tstr(t, args[0]->ty));
    return ERRT;
  }
  return r;
}

static const Type *check_apply(Tc *t, Expr *e) {
  Expr *callee = e->a;
  if (!callee) {
    tc_check_args(t, &e->args);
    return ERRT;
  }
  if (callee->kind == E_VAR) {
    Symbol *s = tc_lookup(t, callee->name);
    tc_check_args(t, &e->args);
    if (!s) {
      diag_report(t->diag, ERR_UNKNOWN_FUNCTION, e->span, callee->name ? callee->name : "?");
      diag_suggest(t->diag, tc_suggest(t, callee->name, TC_SUGGEST_FUNCTION | TC_SUGGEST_STRAND));
      set_ty(callee, ERRT);
      return ERRT;
    }
    callee->sym = s;
    e->sym = s;
    set_ty(callee, s->ty);
    switch (s->kind) {
    case SYM_FUNC: return check_user_call(t, e, s);
    case SYM_BUILTIN: return check_builtin_call(t, e, s, callee->name);
    case SYM_STRAND:
      diag_report(t->diag, ERR_STRAND_CALL, e->span, s->name);
      return ERRT;
    default: {
      const Type *ft = type_prune(s->ty);
      if (type_is_error(ft)) return ERRT;
      if (ft->kind == TY_FIELD) return check_probe(t, e, ft);
      if (ft->kind == TY_BORDER) return tc_border_apply(t, e, s); /* check_choice.c */
      diag_report(t->diag, ERR_NOT_A_FUNCTION, e->span, tstr(t, ft));
      return ERRT;
    }
    }
  }
  const Type *ct = check_expr(t, callee, NULL);
  tc_check_args(t, &e->args);
  if (type_has_error(ct)) return ERRT;
  if (type_prune(ct)->kind == TY_FIELD) return check_probe(t, e, ct);
  diag_report(t->diag, ERR_NOT_A_FUNCTION, e->span, tstr(t, ct));
  return ERRT;
}

bool tc_check_strand_args(Tc *t, Symbol *strand, ExprList *args, DiagId err, Span at) {
  const Type *ts[64];
  int n = 0;
  bool bad = false;
  for (Expr *x = args->head; x; x = x->next) {
    const Type *ty = check_expr(t, x, NULL);
    if (type_has_error(ty)) bad = true;
    if (n < 64) ts[n++] = ty;
  }
  if (bad) return false;
  bool ok = args->len == strand->nparams;
  int i = 0;
  for (Expr *x = args->head; ok && x; x = x->next, i++) {
    const Type *pt = strand->params[i]->ty;
    if (type_has_error(pt)) return false;
    if (!tc_coerce(t, x, pt)) ok = false;
  }
  if (!ok) {
    const Type *ps[64];
    int np = 0;
    for (int j = 0; j < strand->nparams && np < 64; j++) ps[np++] = strand->params[j]->ty;
    diag_report(t->diag, err, at, strand->name, type_list_str(t->arena, ts, n),
                type_list_str(t->arena, ps, np));
  }
  return ok;
}

/* -------------------------------------------------- sequence, tensor */

static const Type *check_seq(Tc *t, Expr *e, const Type *hint) {
  if (e->args.len == 0) {
    const Type *h = type_prune(hint);
    const Type *el = h && h->kind == TY_SEQ ? h->elem : NULL;
    if (!el) {
      el = type_var(&t->tc);
      t->has_tyvars = true;
    }
    return type_seq(&t->tc, el, 0);
  }
  const Type *h = type_prune(hint);
  const Type *helem = h && h->kind == TY_SEQ ? h->elem : NULL;
  const Type *common = NULL;
  bool err = false;
  for (Expr *x = e->args.head; x; x = x->next) {
    const Type *ty = check_expr(t, x, helem);
    if (type_has_error(ty)) {
      err = true;
      continue;
    }
    if (!common) {
      common = ty;
      continue;
    }
    const Type *j = type_join(common, ty, NULL);
    if (!j) {
      diag_report(t->diag, ERR_SEQ_ELEM_MISMATCH, e->span, tstr(t, common), tstr(t, ty));
      return ERRT;
    }
    common = j;
  }
  if (err || !common) return ERRT;
  const Type *p = type_prune(common);
  if (!type_is_value_or_strand_seq(p) && p->kind != TY_STRAND) {
    diag_report(t->diag, ERR_SEQ_NOT_VALUE, e->span, tstr(t, common));
    return ERRT;
  }
  for (Expr *x = e->args.head; x; x = x->next) tc_coerce(t, x, common);
  return type_seq(&t->tc, common, e->args.len);
}

static const Type *check_tensor_cons(Tc *t, Expr *e) {
  const Type *first = NULL;
  bool err = false, any_field = false, any_tensor = false;
  for (Expr *x = e->args.head; x; x = x->next) {
    const Type *ty = type_prune(check_expr(t, x, NULL));
    if (type_has_error(ty)) {
      err = true;
      continue;
    }
    if (ty->kind == TY_INT) ty = t->tc.t_real;
    if (ty->kind == TY_FIELD) any_field = true;
    else if (ty->kind == TY_TENSOR) any_tensor = true;
    else {
      if (!err) diag_report(t->diag, ERR_TENSOR_CONS_TYPE, e->span, tstr(t, ty));
      err = true;
      continue;
    }
    if (!first) first = ty;
  }
  if (err || !first) return ERRT;
  if (any_field && any_tensor) {
    diag_report(t->diag, ERR_FIELD_TENSOR_MIX, e->span);
    return ERRT;
  }
  int kmin = TYPE_CONT_INF;
  for (Expr *x = e->args.head; x; x = x->next) {
    const Type *ty = type_prune(x->ty);
    if (any_field) {
      if (ty->dim != first->dim || !shape_equal(ty->shape, first->shape)) {
        diag_report(t->diag, ERR_TENSOR_CONS_MISMATCH, e->span, tstr(t, first), tstr(t, ty));
        return ERRT;
      }
      if (ty->cont < kmin) kmin = ty->cont;
    } else if (!tc_coerce(t, x, first)) {
      diag_report(t->diag, ERR_TENSOR_CONS_MISMATCH, e->span, tstr(t, first), tstr(t, ty));
      return ERRT;
    }
  }
  Shape nsh = shape_normalize(&t->tc, 1, &e->args.len);
  Shape r = shape_concat(&t->tc, nsh, first->shape);
  if (!any_field) return type_tensor_shape(&t->tc, r);
  /* fields of different continuity meet at the lowest (min rule) */
  const Type *ft = type_field(&t->tc, kmin, first->dim, first->shape);
  for (Expr *x = e->args.head; x; x = x->next) tc_coerce(t, x, ft);
  return type_field(&t->tc, kmin, first->dim, r);
}

/* ------------------------------------------------------------- misc */

static const Type *check_shape_form(Tc *t, Expr *e) {
  int dims[32], n = 0;
  return tc_shape_dims(t, &e->args, e->span, dims, &n) ? type_tensor(&t->tc, n, dims) : ERRT;
}

static const Type *check_load(Tc *t, Expr *e, const Type *hint) {
  bool img = e->kind == E_LOAD_IMAGE;
  const char *what = img ? "load_image" : "load_sequence";
  e->builtin = special_entry(t, what);
  const Type *pt = e->a ? check_expr(t, e->a, t->tc.t_string) : ERRT;
  if (!e->a || (!type_has_error(pt) && (type_prune(pt)->kind != TY_STRING ||
                                        !const_check(&t->ce, e->a, false)))) {
    diag_report(t->diag, ERR_LOAD_PATH, e->span, what);
    return ERRT;
  }
  const Type *h = type_prune(hint);
  if (type_is_error(h) && hint) return ERRT;
  bool fits = h && (img ? h->kind == TY_IMAGE
                        : (h->kind == TY_SEQ && h->len == TYPE_SEQ_DYNAMIC));
  /* no declaration types it (an operand of ⊛, an argument): its proxy does */
  if (!fits && img && !h && !type_has_error(pt)) return tc_expr_proxy(t, e);
  if (!fits) {
    diag_report(t->diag, ERR_LOAD_NO_CONTEXT, e->span, what);
    return ERRT;
  }
  return type_has_error(pt) ? ERRT : h;
}

static const Type *check_var(Tc *t, Expr *e) {
  Symbol *s = tc_lookup(t, e->name);
  if (!s || s->kind == SYM_FUNC || s->kind == SYM_BUILTIN || s->kind == SYM_STRAND) {
    diag_report(t->diag, ERR_UNDECLARED_VAR, e->span, e->name ? e->name : "?");
    const Decl *later = tc_default_reads(t, e->name);
    if (later && later == t->input_default)
      diag_report(t->diag, NOTE_DEFAULT_SELF, later->name_span, e->name);
    else if (later)
      diag_report(t->diag, NOTE_DECLARED_LATER, later->name_span, e->name, t->input_default->name);
    else diag_suggest(t->diag, tc_suggest(t, e->name, TC_SUGGEST_VARIABLE | TC_SUGGEST_KERNEL));
    return ERRT;
  }
  if (s == t->real_is_double) tc_extension(t, EXT_REAL_IS_DOUBLE, e->span);
  e->sym = s;
  return s->ty;
}

static const Type *check_kernel_cont(Tc *t, Expr *e) {
  Symbol *s = tc_lookup(t, e->name);
  if (!s) {
    diag_report(t->diag, ERR_UNKNOWN_KERNEL, e->span, e->name ? e->name : "?");
    diag_suggest(t->diag, tc_suggest(t, e->name, TC_SUGGEST_KERNEL));
    return ERRT;
  }
  const Type *kt = type_prune(s->ty);
  if (type_is_error(kt)) return ERRT;
  if (kt->kind != TY_KERNEL) {
    diag_report(t->diag, ERR_EXPECTED_KERNEL, e->span, e->name);
    return ERRT;
  }
  e->sym = s;
  int k;
  if (!tc_continuity(t, &e->tok, e->span, &k)) return ERRT;
  /* lowering is fine; raising makes claims the polynomials do not keep
   * (Q7); the built-in aliases c1tent etc. simply are kernels with that k */
  if (k > kt->cont)
    diag_report(t->diag, WARN_KERNEL_RAISE, e->span, e->name, k, e->name, kt->cont);
  return type_kernel(&t->tc, k);
}

static const Type *check_int_literal(Tc *t, Expr *e, bool negated) {
  int64_t v;
  const char *txt = e->tok.text ? e->tok.text : "0";
  if (!const_int_literal(txt, t->opts->long_int, negated, &v))
    diag_report(t->diag, ERR_INT_LITERAL_RANGE, e->span, txt, t->opts->long_int ? 64 : 32);
  return set_ty(e, t->tc.t_int);
}

static const Type *check_unary(Tc *t, Expr *e, const Type *hint) {
  if (!e->a) return ERRT;
  if (e->op == OP_NEG && e->a->kind == E_INT) check_int_literal(t, e->a, true);
  else check_expr(t, e->a, e->op == OP_NEG ? hint : NULL); /* -(2^k): int ^ int */
  Expr *args[1] = {e->a};
  switch (e->op) {
  case OP_NEG: return resolve(t, e, "unary-", args, 1, RK_UNOP);
  case OP_NOT: return resolve(t, e, "!", args, 1, RK_UNOP);
  case OP_GRAD:
  case OP_GRAD_OUTER:
  case OP_DIV_FIELD:
  case OP_CURL: {
    const char *op = ast_op_spelling(e->op);
    const Type *a = type_prune(e->a->ty);
    /* ∇⊗ needs a non-scalar range (∇ is the scalar form) */
    if (e->op == OP_GRAD_OUTER && a->kind == TY_FIELD && a->shape.order == 0) {
      diag_report(t->diag, ERR_UNOP_TYPE, e->span, op, tstr(t, a));
      return ERRT;
    }
    /* Q10: the contracted index must be the domain dimension */
    if (e->op == OP_DIV_FIELD && a->kind == TY_FIELD && a->shape.order >= 1 &&
        a->shape.dims[a->shape.order - 1] != a->dim && a->dim != 1) {
      diag_report(t->diag, ERR_DIVERGENCE_SHAPE, e->span, a->shape.dims[a->shape.order - 1], a->dim);
      return ERRT;
    }
    return resolve(t, e, op, args, 1, RK_UNOP);
  }
  default:
    return ERRT;
  }
}

/* Where an int is expected (hint), `a ^ b` of two ints is the int power
 * (BI_POW_II, an extension); elsewhere it is the original's real power.
 * The hint reaches the operands of int arithmetic, so `int n = 2^k + 1;`
 * is an int too. A program the original accepts never has an int^int
 * where an int is expected (its real result would not convert), so none
 * changes meaning. */
static bool is_int_hint(const Type *hint) {
  const Type *h = type_prune(hint);
  return h && h->kind == TY_INT;
}

static const Type *check_binary(Tc *t, Expr *e, const Type *hint) {
  if (!e->a || !e->b) {
    if (e->a) check_expr(t, e->a, NULL);
    if (e->b) check_expr(t, e->b, NULL);
    return ERRT;
  }
  bool int_ctx = is_int_hint(hint) && (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL ||
                                       e->op == OP_DIV || e->op == OP_MOD || e->op == OP_POW);
  const Type *A = check_expr(t, e->a, int_ctx ? hint : NULL);
  const Type *B = check_expr(t, e->b, int_ctx ? hint : NULL);
  const char *op = ast_op_spelling(e->op);
  if (int_ctx && e->op == OP_POW && !type_has_error(A) && !type_has_error(B) &&
      type_prune(A)->kind == TY_INT && type_prune(B)->kind == TY_INT) {
    tc_extension(t, EXT_INT_POW, e->span);
    e->builtin = special_entry(t, "^int");
    return t->tc.t_int;
  }
  switch (e->op) {
  case OP_OR:
  case OP_AND:
    e->builtin = special_entry(t, op);
    if (type_has_error(A) || type_has_error(B)) return ERRT;
    if (type_prune(A)->kind != TY_BOOL || type_prune(B)->kind != TY_BOOL) {
      diag_report(t->diag, ERR_LOGIC_NOT_BOOL, e->span, op, tstr(t, A), tstr(t, B));
      return ERRT;
    }
    return t->tc.t_bool;
  case OP_DOT:
  case OP_OUTER:
  case OP_DDOT:
    return check_product(t, e);
  case OP_COMPOSE: { /* an extension (doc/language.md §6.6) */
    const Type *r = type_has_error(A) || type_has_error(B) ? ERRT : tc_compose_type(t, A, B);
    if (!r) diag_report(t->diag, ERR_COMPOSE_TYPE, op_span(t, e, "∘"), tstr(t, A), tstr(t, B));
    else if (!type_is_error(r)) tc_extension(t, EXT_COMPOSE, op_span(t, e, "∘"));
    return r ? r : ERRT;
  }
  default: {
    Expr *args[2] = {e->a, e->b};
    const Type *r = resolve(t, e, op, args, 2, RK_BINOP);
    const Builtin *b = e->builtin;
    if (!type_is_error(r) && b && b->id == BI_POW_SI) {
      int64_t v;
      if (!const_check(&t->ce, e->b, false) || !const_int(&t->ce, e->b, &v)) {
        diag_report(t->diag, ERR_FIELD_POW_EXP, e->span);
        return ERRT;
      }
    }
    return r;
  }
  }
}

static const Type *check_cond(Tc *t, Expr *e, const Type *hint) {
  const Type *c = e->c ? check_expr(t, e->c, t->tc.t_bool) : ERRT;
  const Type *a = e->a ? check_expr(t, e->a, hint) : ERRT;
  const Type *b = e->b ? check_expr(t, e->b, hint) : ERRT;
  bool bad = false;
  if (!type_has_error(c) && type_prune(c)->kind != TY_BOOL) {
    diag_report(t->diag, ERR_COND_NOT_BOOL, e->c->span, tstr(t, c));
    bad = true;
  }
  if (type_has_error(a) || type_has_error(b) || bad) return ERRT;
  const Type *j = type_join(a, b, NULL);
  if (!j) {
    diag_report(t->diag, ERR_COND_BRANCHES, e->span, tstr(t, a), tstr(t, b));
    return ERRT;
  }
  if (!type_is_value(j)) {
    diag_report(t->diag, ERR_COND_NOT_VALUE, e->span, tstr(t, j));
    return ERRT;
  }
  tc_coerce(t, e->a, j);
  tc_coerce(t, e->b, j);
  return j;
}

/* ------------------------------------------------------------ driver */

static const Type *check_raw(Tc *t, Expr *e, const Type *hint) {
  switch (e->kind) {
  case E_VAR: return check_var(t, e);
  case E_KERNEL_CONT: return check_kernel_cont(t, e);
  case E_INT: return check_int_literal(t, e, false);
  case E_REAL: return t->tc.t_real;
  case E_STRING:
    if (e->tok.utf8) tc_extension(t, EXT_UTF8_STRING, e->span);
    return t->tc.t_string;
  case E_BOOL: return t->tc.t_bool;
  case E_BINARY: return check_binary(t, e, hint);
  case E_UNARY: return check_unary(t, e, hint);
  case E_COND: return check_cond(t, e, hint);
  case E_RANGE: {
    /* 1.0 writes lo .. hi only in the initially clause's iterators (§11) */
    if (t->prog->dialect == DIALECT_V1 && t->where != W_CREATE) tc_extension(t, EXT_V1_RANGE, e->span);
    const Type *a = e->a ? check_expr(t, e->a, t->tc.t_int) : ERRT;
    const Type *b = e->b ? check_expr(t, e->b, t->tc.t_int) : ERRT;
    if (type_has_error(a) || type_has_error(b)) return ERRT;
    if (type_prune(a)->kind != TY_INT || type_prune(b)->kind != TY_INT) {
      diag_report(t->diag, ERR_RANGE_NOT_INT, e->span, tstr(t, a), tstr(t, b));
      return ERRT;
    }
    return type_seq(&t->tc, t->tc.t_int, TYPE_SEQ_DYNAMIC);
  }
  case E_APPLY: return check_apply(t, e);
  case E_SUBSCRIPT: return tc_check_subscript(t, e);
  case E_SLICE_ALL:
    diag_report(t->diag, ERR_NOT_YET, e->span, "':' outside of an index");
    return ERRT;
  case E_SELECT: return tc_check_select(t, e);
  case E_REAL_CONV: {
    e->builtin = special_entry(t, "real");
    const Type *a = e->a ? check_expr(t, e->a, NULL) : ERRT;
    if (type_has_error(a)) return ERRT;
    if (type_prune(a)->kind != TY_INT) {
      diag_report(t->diag, ERR_REAL_CONV_ARG, e->span, tstr(t, a));
      return ERRT;
    }
    return t->tc.t_real;
  }
  case E_INT_CONV: {
    tc_extension(t, EXT_INT_CONV, e->span);
    const Type *a = e->a ? check_expr(t, e->a, NULL) : ERRT;
    if (type_has_error(a)) return ERRT;
    const Type *p = type_prune(a);
    if (p->kind != TY_INT && !type_is_real(p)) {
      diag_report(t->diag, ERR_INT_CONV_ARG, e->span, tstr(t, a));
      return ERRT;
    }
    return t->tc.t_int;
  }
  case E_LOAD_SEQ:
  case E_LOAD_IMAGE: return check_load(t, e, hint);
  case E_IDENTITY: {
    e->builtin = special_entry(t, "identity");
    int64_t n;
    if (!e->a || !tc_const_int(t, e->a, "the size of 'identity'", &n)) return ERRT;
    if (n < 2) {
      diag_report(t->diag, ERR_BAD_TENSOR_DIM, e->a->span, arena_printf(t->arena, "%lld", (long long)n));
      return ERRT;
    }
    if (n > TYPE_MAX_IDENTITY) {
      diag_report(t->diag, ERR_TYPE_LIMIT, e->a->span, "size of 'identity'",
                  arena_printf(t->arena, "%lld", (long long)n), TYPE_MAX_IDENTITY);
      return ERRT;
    }
    int d[2] = {(int)n, (int)n};
    return type_tensor(&t->tc, 2, d);
  }
  case E_ZEROS:
    e->builtin = special_entry(t, "zeros");
    return check_shape_form(t, e);
  case E_NAN:
    e->builtin = special_entry(t, "nan");
    return e->has_shape ? check_shape_form(t, e) : t->tc.t_real;
  case E_SEQ: return check_seq(t, e, hint);
  case E_TENSOR: return check_tensor_cons(t, e);
  case E_COMPREHENSION: return tc_check_comprehension(t, e);
  case E_NORM: {
    if (!e->a) return ERRT;
    check_expr(t, e->a, NULL);
    Expr *args[1] = {e->a};
    return resolve(t, e, "|·|", args, 1, RK_UNOP);
  }
  case E_PAREN: return e->a ? check_expr(t, e->a, hint) : ERRT;
  }
  return ERRT;
}

const Type *check_expr(Tc *t, Expr *e, const Type *hint) {
  if (!e) return ERRT;
  const Type *ty = check_raw(t, e, hint);
  /* Operators can grow shapes (⊗, ∇⊗, [..]); stop at the first node past
   * the limit, before constant folding or later phases see its size. */
  const Type *p = ty ? type_prune(ty) : NULL;
  if (p && (p->kind == TY_TENSOR || p->kind == TY_FIELD) &&
      shape_size(p->shape) > TYPE_MAX_COMPONENTS) {
    diag_report(t->diag, ERR_TENSOR_TOO_LARGE, e->span,
                shape_str(t->arena, p->shape.order, p->shape.dims), TYPE_MAX_COMPONENTS);
    ty = NULL;
  }
  return set_ty(e, ty ? ty : ERRT);
}

/* `x op= e` (§3.6): `bin` is the binary node x op e, already holding the
 * checked operands. NULL (no report) when the operator does not resolve. */
const Type *tc_resolve_compound(Tc *t, Expr *bin) {
  if (bin->op == OP_DOT || bin->op == OP_OUTER || bin->op == OP_DDOT || bin->op == OP_AND ||
      bin->op == OP_OR || bin->op == OP_COMPOSE)
    return NULL;
  Expr *args[2] = {bin->a, bin->b};
  const Type *r = resolve_q(t, bin, ast_op_spelling(bin->op), args, 2, RK_BINOP, false);
  if (r && bin->builtin && ((const Builtin *)bin->builtin)->id == BI_POW_SI) return NULL;
  return r;
}
