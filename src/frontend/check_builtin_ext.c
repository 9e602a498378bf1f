/* check_builtin_ext.c -- the rules of extension built-ins that their
 * signatures in basis.def cannot state (doc/language.md §6.1, §6.6):
 * which extension a built-in is, where the image queries may be used, and
 * whether a field is built from evals/evecs of a field (which have no
 * derivatives); and which declaration an input's default names that is
 * not visible yet (§3). Facts only: check_expr.c reports. */
#include <string.h>

#include "frontend/typecheck_impl.h"

static bool is_image_query(const Builtin *b) {
  return b->id == BI_WORLD_MIN || b->id == BI_WORLD_MAX || b->id == BI_SAMPLE_MIN ||
         b->id == BI_SAMPLE_MAX;
}

static bool is_eigen_field(const Builtin *b) {
  return b && (b->id == BI_EVALS2_F || b->id == BI_EVALS3_F || b->id == BI_EVECS2_F ||
               b->id == BI_EVECS3_F);
}

int tc_builtin_extension(const Builtin *b) {
  if (b->id == BI_WORLD_MIN || b->id == BI_WORLD_MAX) return EXT_IMAGE_EXTENT;
  if (b->id == BI_SAMPLE_MIN || b->id == BI_SAMPLE_MAX) return EXT_IMAGE_RANGE;
  if (is_eigen_field(b)) return EXT_EIGEN_FIELD;
  return -1;
}

/* world_min, world_max, sample_min, sample_max (an extension, doc/language.md
 * §6.1): global code only, where they are evaluated once on the host
 * (sample_min reads every sample) and not in code a strand or a function
 * (callable from strands) runs. */
bool tc_builtin_allowed(const Builtin *b, TcWhere w) {
  if (!is_image_query(b)) return true;
  return w == W_GLOBAL_DECL || w == W_GLOBAL_INIT || w == W_GLOBAL_START || w == W_GLOBAL_UPDATE;
}

static bool is_field_node(const Expr *x) {
  const Type *t = x && x->ty ? type_prune(x->ty) : NULL;
  return t && t->kind == TY_FIELD;
}

/* "evals" or "evecs" when the field `x` is built from one of them: the
 * call, or a field operand of x's operators, calls, component fields and
 * field variables initialized with such an expression (as written; depth
 * bounded); NULL otherwise. Only for the message: any field of continuity
 * 0 refuses derivatives, and one built from evals has continuity 0. */
/* compose: look for F ∘ G instead of evals/evecs */
static const char *eigen_in(const Expr *x, int depth, bool compose) {
  if (!is_field_node(x) || depth > 32) return NULL;
  if (!compose && x->kind == E_APPLY && is_eigen_field(x->builtin))
    return ((const Builtin *)x->builtin)->name;
  if (compose && x->kind == E_BINARY && x->op == OP_COMPOSE) return "∘";
  const char *r = NULL;
  switch (x->kind) {
  case E_VAR:
    if (x->sym && x->sym->decl && (x->sym->kind == SYM_GLOBAL || x->sym->kind == SYM_LOCAL))
      r = eigen_in(x->sym->decl->init, depth + 1, compose);
    return r;
  case E_APPLY:
  case E_TENSOR:
    for (const Expr *y = x->args.head; y && !r; y = y->next) r = eigen_in(y, depth + 1, compose);
    return r;
  default:
    if (x->a) r = eigen_in(x->a, depth + 1, compose);
    if (!r && x->b) r = eigen_in(x->b, depth + 1, compose);
    return r;
  }
}

const char *tc_eigen_field_of(const Expr *x) { return eigen_in(x, 0, false); }

bool tc_has_compose(const Expr *x) { return eigen_in(x, 0, true) != NULL; }

/* F ∘ G (an extension, doc/language.md §6.6): F : field#k(n)[σ] and
 * G : field#m(d)[n] (field#m(d)[] when n = 1), the composition is
 * field#c(d)[σ] with c = min(k, m, 1): the chain rule gives its first
 * derivative only. NULL when the operands do not compose. */
const Type *tc_compose_type(Tc *t, const Type *F, const Type *G) {
  F = type_prune(F);
  G = type_prune(G);
  if (F->kind != TY_FIELD || G->kind != TY_FIELD) return NULL;
  int n = F->dim;
  bool pos = n == 1 ? G->shape.order == 0 : G->shape.order == 1 && G->shape.dims[0] == n;
  if (!pos) return NULL;
  int c = F->cont < G->cont ? F->cont : G->cont;
  return type_field(&t->tc, c < 1 ? c : 1, G->dim, F->shape);
}

const Decl *tc_default_reads(const Tc *t, const char *name) {
  const Decl *in = t->input_default;
  for (const Decl *d = in && name ? t->prog->globals.head : NULL; d; d = d->next)
    if (d->name && strcmp(d->name, name) == 0 && d->span.begin.line >= in->span.begin.line)
      return d;
  return NULL;
}

/* b(img) of a border input b (an extension, doc/language.md §6.9; the
 * input itself is check_choice.c's): one image, typed like clamp(img). */
const Type *tc_border_apply(Tc *t, Expr *e, Symbol *s) {
  const Expr *x = e->args.head;
  const Type *xt = x ? type_prune(x->ty) : NULL;
  if (e->args.len == 1 && xt && type_is_error(xt)) return t->tc.t_error;
  if (e->args.len != 1 || !xt || xt->kind != TY_IMAGE) {
    const char *what = "no argument";
    if (e->args.len > 1) what = "several arguments";
    else if (xt) what = type_str(t->arena, xt);
    diag_report(t->diag, ERR_BORDER_APPLY, e->span, s->name, what);
    return t->tc.t_error;
  }
  return xt;
}
