/* check_choice.c -- inputs chosen among names when the program runs (an
 * extension, doc/language.md §6.9): `input kernel#k h = bspln3;`.
 *
 * A kernel input's choices are the built-in kernels whose declared
 * continuity is at least k, so that every field made with it has the
 * derivatives its type promises whatever is chosen (the restriction is
 * made here, at compile time, so a run-time choice can never lack
 * continuity). The default must name one of them. Kept apart from
 * typecheck.c because the rule is the extension's own. */
#include <stdio.h>
#include <string.h>

#include "frontend/typecheck_impl.h"

/* "tent, ctmr, ..." of the kernels with continuity >= cont. */
const char *tc_kernel_choices_text(Arena *a, int cont) {
  int n = 0;
  const Kernel *all = kernel_all(&n);
  size_t len = 1;
  for (int i = 0; i < n; i++)
    if (all[i].continuity >= cont) len += strlen(all[i].name) + 2;
  char *buf = ARENA_NEW_ARRAY(a, char, len);
  buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    if (all[i].continuity < cont) continue;
    if (buf[0]) strcat(buf, ", ");
    strcat(buf, all[i].name);
  }
  return buf;
}

/* The built-in kernel a default names (`bspln3`, in parentheses or not). */
static const Kernel *named_kernel(Tc *t, Expr *e) {
  while (e && e->kind == E_PAREN) e = e->a;
  if (!e || e->kind != E_VAR || !e->name) return NULL;
  Symbol *s = tc_lookup(t, e->name);
  if (!s || s->kind != SYM_KERNEL) return NULL;
  return s->kernel;
}

void tc_kernel_input(Tc *t, Decl *d, Symbol *s) {
  const Type *ty = type_prune(s->ty);
  tc_extension(t, EXT_KERNEL_INPUT, d->type ? d->type->span : d->name_span);
  const char *choices = tc_kernel_choices_text(t->arena, ty->cont);
  const Kernel *k = d->init ? named_kernel(t, d->init) : NULL;
  if (!k) {
    diag_report(t->diag, ERR_KERNEL_INPUT_DEFAULT, d->init ? d->init->span : d->name_span, d->name,
                type_str(t->arena, ty), choices);
    s->ty = t->tc.t_error;
    return;
  }
  s->flags |= SF_HAS_INIT;
  (void)check_expr(t, d->init, NULL);
  if (k->continuity < ty->cont) {
    diag_report(t->diag, ERR_KERNEL_INPUT_CONT, d->init->span, k->name, d->name, k->continuity,
                ty->cont, type_str(t->arena, ty), choices);
    s->ty = t->tc.t_error;
    return;
  }
  s->kernel = k; /* the default */
}

/* ---- border inputs: `input border b = clamp;`, used as b(img) ---- */

static const char *const border_names[] = {"clamp", "mirror", "wrap"};

int tc_border_index(const char *name) {
  for (int i = 0; name && i < 3; i++)
    if (strcmp(name, border_names[i]) == 0) return i;
  return -1;
}

void tc_border_input(Tc *t, Decl *d, Symbol *s) {
  tc_extension(t, EXT_BORDER_INPUT, d->type ? d->type->span : d->name_span);
  Expr *e = d->init;
  while (e && e->kind == E_PAREN) e = e->a;
  /* the built-in border function of that name, not a program's own */
  Symbol *b = e && e->kind == E_VAR ? tc_lookup(t, e->name) : NULL;
  if (!b || b->kind != SYM_BUILTIN || tc_border_index(e->name) < 0) {
    diag_report(t->diag, ERR_BORDER_INPUT_DEFAULT, d->init ? d->init->span : d->name_span, d->name);
    s->ty = t->tc.t_error;
    return;
  }
  s->flags |= SF_HAS_INIT;
}
