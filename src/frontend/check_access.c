/* check_access.c -- typing of what reads inside a value (doc/language.md
 * §5.6, §6, §9.1): subscripts and slices of tensors, fields and
 * sequences, strand state selections, strand sets and comprehensions. */
#include <stdint.h>
#include <string.h>

#include "frontend/typecheck_impl.h"
#include "util/suggest.h"

#define ERRT (t->tc.t_error)

static const Type *set_ty(Expr *e, const Type *ty) {
  e->ty = (Type *)ty;
  return ty;
}

static const char *tstr(Tc *t, const Type *ty) { return type_str(t->arena, ty); }

/* --------------------------------------------------------- subscripts */

/* One index of a tensor or field subscript. A constant is checked
 * against the axis here; a tensor also takes an int expression that is
 * not constant (an extension, doc/language.md §5.6: checked at run time),
 * *out = -1 then. A field's indices stay constant (the original's rule). */
static bool slice_index(Tc *t, Expr *x, int size, bool tensor, int *out) {
  const Type *it = check_expr(t, x, t->tc.t_int);
  if (type_has_error(it)) return false;
  if (type_prune(it)->kind != TY_INT) {
    diag_report(t->diag, ERR_INDEX_NOT_INT, x->span, tstr(t, it));
    return false;
  }
  int64_t v;
  if (!const_check(&t->ce, x, false) || !const_int(&t->ce, x, &v)) {
    if (!tensor) {
      diag_report(t->diag, ERR_INDEX_NOT_CONST, x->span);
      return false;
    }
    tc_extension(t, EXT_TENSOR_INDEX, x->span);
    *out = -1;
    return true;
  }
  if (v < 0 || v >= size) {
    diag_report(t->diag, ERR_INDEX_RANGE, x->span, (long long)v, size);
    return false;
  }
  *out = (int)v;
  return true;
}

const Type *tc_check_subscript(Tc *t, Expr *e) {
  const Type *bt = type_prune(check_expr(t, e->a, NULL));
  int n = e->args.len;
  if (type_has_error(bt)) {
    for (Expr *x = e->args.head; x; x = x->next)
      if (x->kind != E_SLICE_ALL) check_expr(t, x, NULL);
    return ERRT;
  }
  if (bt->kind == TY_SEQ) {
    if (n != 1) {
      diag_report(t->diag, ERR_SEQ_INDEX_COUNT, e->span);
      tc_check_args(t, &e->args);
      return ERRT;
    }
    Expr *x = e->args.head;
    if (x->kind == E_SLICE_ALL) {
      diag_report(t->diag, ERR_SEQ_SLICE, x->span);
      return ERRT;
    }
    const Type *it = check_expr(t, x, t->tc.t_int);
    if (type_has_error(it)) return ERRT;
    if (type_prune(it)->kind != TY_INT) {
      diag_report(t->diag, ERR_INDEX_NOT_INT, x->span, tstr(t, it));
      return ERRT;
    }
    return bt->elem;
  }
  if (bt->kind != TY_TENSOR && bt->kind != TY_FIELD) {
    diag_report(t->diag, ERR_SLICE_NON_TENSOR, e->span, tstr(t, bt));
    tc_check_args(t, &e->args);
    return ERRT;
  }
  Shape s = bt->shape;
  if (n != s.order) {
    diag_report(t->diag, ERR_INDEX_ORDER, e->span, tstr(t, bt), s.order, n);
    for (Expr *x = e->args.head; x; x = x->next)
      if (x->kind != E_SLICE_ALL) check_expr(t, x, NULL);
    return ERRT;
  }
  int dims[32], nd = 0, i = 0;
  bool ok = true;
  for (Expr *x = e->args.head; x; x = x->next, i++) {
    if (x->kind == E_SLICE_ALL) {
      set_ty(x, t->tc.t_int);
      if (nd < 32) dims[nd++] = s.dims[i];
      continue;
    }
    int v;
    if (!slice_index(t, x, s.dims[i], bt->kind == TY_TENSOR, &v)) ok = false;
  }
  if (!ok) return ERRT;
  Shape r = shape_normalize(&t->tc, nd, dims);
  if (bt->kind == TY_TENSOR) return type_tensor_shape(&t->tc, r);
  return type_field(&t->tc, bt->cont, bt->dim, r);
}

/* ------------------------------------------------------- strand sets */

static bool is_strand_set(Tc *t, const Expr *e) {
  if (!e || e->kind != E_SELECT || !e->a || e->a->kind != E_VAR) return false;
  Symbol *s = tc_lookup(t, e->a->name);
  return s && s->kind == SYM_STRAND;
}

/* S.all / S.active / S.stable; `as_source`: the source of a comprehension. */
static const Type *check_strand_set(Tc *t, Expr *e, bool as_source) {
  Symbol *s = tc_lookup(t, e->a->name);
  e->a->sym = s;
  set_ty(e->a, s->ty);
  const char *n = e->name ? e->name : "";
  if (strcmp(n, "all") != 0 && strcmp(n, "active") != 0 && strcmp(n, "stable") != 0) {
    diag_report(t->diag, ERR_UNKNOWN_STRAND_SET, e->span, n);
    return ERRT;
  }
  if (!tc_in_global_block(t)) {
    diag_report(t->diag, ERR_STRAND_SET_CONTEXT, e->span);
    return ERRT;
  }
  if (!as_source) {
    diag_report(t->diag, ERR_STRAND_SET_NOT_COMPREHENSION, e->span, n);
    return ERRT;
  }
  s->flags |= SF_STRAND_SETS;
  return type_seq(&t->tc, s->ty, TYPE_SEQ_DYNAMIC);
}

const Type *tc_check_select(Tc *t, Expr *e) {
  if (is_strand_set(t, e)) return check_strand_set(t, e, false);
  const Type *bt = type_prune(check_expr(t, e->a, NULL));
  if (type_has_error(bt)) return ERRT;
  if (bt->kind != TY_STRAND || !t->strand) {
    diag_report(t->diag, ERR_SELECT_NON_STRAND, e->span, e->name ? e->name : "?", tstr(t, bt));
    return ERRT;
  }
  Symbol *sv = symtab_get(t->strand->state_index, e->name);
  if (!sv) {
    diag_report(t->diag, ERR_UNKNOWN_STATE_VAR, e->span, t->strand->name, e->name ? e->name : "?");
    {
      Suggest sg;
      suggest_init(&sg, e->name);
      for (int i = 0; i < t->strand->nstate; i++) suggest_offer(&sg, t->strand->state[i]->name);
      diag_suggest(t->diag, suggest_best(&sg));
    }
    return ERRT;
  }
  e->sym = sv;
  t->strand->flags |= SF_STRAND_SELECT;
  return sv->ty;
}

/* An iteration source: a sequence (or a strand set where allowed);
 * returns the element type. */
static const Type *check_iter_source(Tc *t, Expr *src, Span whole) {
  if (!src) return ERRT;
  const Type *st;
  if (is_strand_set(t, src)) {
    st = set_ty(src, check_strand_set(t, src, true));
    if (!type_is_error(st) && t->loop_depth > 0) {
      diag_report(t->diag, ERR_STRAND_COMPREHENSION_LOOP, whole);
      return ERRT;
    }
  } else {
    st = check_expr(t, src, NULL);
  }
  const Type *p = type_prune(st);
  if (type_has_error(p)) return ERRT;
  if (p->kind != TY_SEQ) {
    diag_report(t->diag, ERR_COMPREHENSION_SOURCE, src->span, tstr(t, p));
    return ERRT;
  }
  return p->elem;
}

/* {e | x1 in s1, ..., xn in sn}: several iterators are an extension
 * (doc/language.md §5.6), the same as nested comprehensions flattened:
 * the iterators are bound one after the other in one scope, so the
 * source of x2 may use x1 (`b in 0..a`) and two of one name are a
 * redefinition; a strand set must be the only iterator (its reduction is
 * a pass over the strands, not a loop). */
const Type *tc_check_comprehension(Tc *t, Expr *e) {
  if (!e->iters.head) return ERRT;
  bool bad = false;
  env_push(t->env);
  for (Iter *it = e->iters.head; it; it = it->next) {
    if (it == e->iters.head->next) {
      Span sp = it->name_span;
      if (it->src) sp.end = it->src->span.end;
      tc_extension(t, EXT_MULTI_ITER, sp);
    }
    const Type *elem;
    if (e->iters.len > 1 && is_strand_set(t, it->src)) {
      diag_report(t->diag, ERR_STRAND_SET_SEVERAL, it->src->span);
      elem = ERRT;
    } else {
      elem = check_iter_source(t, it->src, e->span);
    }
    if (type_is_error(elem)) bad = true;
    it->sym = tc_new_symbol(t, SYM_ITER, it->name, it->name_span, elem);
    tc_declare(t, it->sym);
  }
  const Type *bt = check_expr(t, e->a, NULL);
  env_pop(t->env);
  if (type_has_error(bt) || bad) return ERRT;
  const Type *p = type_prune(bt);
  if (!type_has_fixed_size(p) || (!type_is_value_or_strand_seq(p) && p->kind != TY_STRAND)) {
    diag_report(t->diag, ERR_SEQ_NOT_VALUE, e->a->span, tstr(t, bt));
    return ERRT;
  }
  return type_seq(&t->tc, bt, TYPE_SEQ_DYNAMIC);
}
