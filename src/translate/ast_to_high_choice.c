/* ast_to_high_choice.c -- inputs chosen when the program runs (kernel#k
 * inputs, an extension, doc/language.md §6.9) in HighIR.
 *
 * Such an input is an int IrGlobal (the index of the chosen kernel in
 * g->choices) and never a kernel value at run time: a CFG whose code
 * uses it (through fields, globals and functions too) is translated once
 * per choice, behind a test of the index at its top. So the dispatch runs
 * once per method call, outside every probe, and each copy sees a kernel
 * literal: the probes are those of a program compiled with that kernel
 * (the lowering and the C compiler specialise them alike). With several
 * such inputs the copies nest (one per combination). A CFG that does not
 * use them is translated as before, and a program without them is
 * untouched. The tests and copies themselves are made by th_with_choices
 * (ast_to_high.c, with the other CFG building); this file knows the
 * choices, binds them and finds which code uses them, and calls nothing
 * of the rest of the translation. */
#include <string.h>

#include "translate/ast_to_high_impl.h"

static uint64_t sym_key(const Symbol *s) { return (uint64_t)(uintptr_t)s ^ 0x4000000000000000ULL; }

bool th_is_choice(const Symbol *s) {
  const Type *ty = s ? type_prune(s->ty) : NULL;
  return s && s->kind == SYM_INPUT && ty && (ty->kind == TY_KERNEL || ty->kind == TY_BORDER);
}

static bool is_border(const Symbol *s) { return type_prune(s->ty)->kind == TY_BORDER; }

/* The border controls, in the order of tc_border_index. */
static const int border_ops[] = {IR_HOP_BORDER_CLAMP, IR_HOP_BORDER_MIRROR, IR_HOP_BORDER_WRAP};
static const char *const border_names[] = {"clamp", "mirror", "wrap"};

/* What the input s may be (doc/language.md §6.9): its names and what each
 * binds it to (a Kernel, or an element of border_ops). */
const void **th_choices_of(Tr *t, const Symbol *s, const char ***names, int *n) {
  int all_n = 0;
  const Kernel *all = kernel_all(&all_n);
  const void **vs = ARENA_NEW_ARRAY(t->a, const void *, all_n + 3);
  *names = ARENA_NEW_ARRAY(t->a, const char *, all_n + 3);
  *n = 0;
  if (is_border(s)) {
    for (int i = 0; i < 3; i++, (*n)++) (*names)[*n] = border_names[i], vs[*n] = &border_ops[i];
    return vs;
  }
  for (int i = 0; i < all_n; i++)
    if (all[i].continuity >= type_prune(s->ty)->cont) (*names)[*n] = all[i].name, vs[(*n)++] = &all[i];
  return vs;
}

void th_choice_global(Tr *t, Decl *d) {
  Symbol *s = d->sym;
  int n = 0;
  const char **names = NULL;
  const void **vs = th_choices_of(t, s, &names, &n);
  const IrType *ity = ir_type_int(t->m);
  IrGlobal *g = ir_global_new(t->m, IR_GLOBAL_INPUT, s->name, ity);
  IrValue *v = ARENA_NEW(t->a, IrValue);
  v->ty = ity;
  const Expr *dflt = d->init;
  while (dflt && dflt->kind == E_PAREN) dflt = dflt->a;
  for (int i = 0; i < n; i++)
    if (is_border(s) ? dflt && dflt->name && strcmp(names[i], dflt->name) == 0 : vs[i] == s->kernel) v->i = i;
  g->desc = d->has_desc ? d->desc.text : NULL;
  g->has_default = true;
  g->value = v;
  g->choice_kind = is_border(s) ? "border" : "kernel";
  g->choices = names;
  g->nchoices = n;
  th_map_put(t->a, &t->globals, (uint64_t)(uintptr_t)s, g);
  if (t->nchoice == 64) { /* the masks of th_uses_choice_* */
    diag_report(t->d, ERR_CHOICE_COPIES, s->span, "program", TH_MAX_CHOICE_COPIES);
    t->failed = true;
    return;
  }
  if (t->nchoice == t->capchoice) {
    int cap = t->capchoice ? 2 * t->capchoice : 4;
    Symbol **ns = ARENA_NEW_ARRAY(t->a, Symbol *, cap);
    if (t->nchoice) memcpy(ns, t->choice_syms, (size_t)t->nchoice * sizeof *ns);
    t->choice_syms = ns;
    t->capchoice = cap;
  }
  t->choice_syms[t->nchoice++] = s;
}

const Kernel *th_choice_kernel(Fn *f, const Symbol *s) {
  return is_border(s) ? NULL : th_map_get(&f->t->choice_bind, sym_key(s));
}

const void *th_choice_bound(Fn *f, const Symbol *s) { return th_map_get(&f->t->choice_bind, sym_key(s)); }

void th_choice_bind(Tr *t, const Symbol *s, const void *v) {
  th_map_put(t->a, &t->choice_bind, sym_key(s), (void *)v);
}

int th_choice_count(Tr *t, const Symbol *s) {
  int n = 0;
  const char **names = NULL;
  (void)th_choices_of(t, s, &names, &n);
  return n;
}


/* ---- which code uses a choice --------------------------------------------------------- */

/* Masks of the choice inputs (bit i: t->choice_syms[i]) that code reads,
 * through the definitions translated again at each use (fields, kernels,
 * derived images, functions); a global with an IrGlobal is read, not
 * re-translated, so its initializer does not count. */
static uint64_t uses_stmt(Tr *t, const Stmt *s, int depth);
static uint64_t uses_expr(Tr *t, const Expr *e, int depth);

static uint64_t choice_bit(Tr *t, const Symbol *s) {
  for (int i = 0; i < t->nchoice; i++)
    if (t->choice_syms[i] == s) return (uint64_t)1 << i;
  return 0;
}

/* memo: 1 + the mask (a symbol being visited counts as 0: a cycle adds nothing) */
static uint64_t uses_sym(Tr *t, const Symbol *s, int depth) {
  if (!s) return 0;
  if (th_is_choice(s)) return choice_bit(t, s);
  if (!s->decl || depth > 200) return 0;
  if (s->kind == SYM_GLOBAL || s->kind == SYM_CONST || s->kind == SYM_INPUT) {
    if (th_map_get(&t->globals, (uint64_t)(uintptr_t)s)) return 0;
  } else if (s->kind != SYM_FUNC && s->kind != SYM_FIELD_FUNC) {
    return 0;
  }
  uint64_t *m = th_map_get(&t->choice_uses, sym_key(s));
  if (m) return *m;
  m = ARENA_NEW(t->a, uint64_t);
  *m = 0;
  th_map_put(t->a, &t->choice_uses, sym_key(s), m);
  *m = uses_expr(t, s->decl->init, depth + 1) | uses_stmt(t, s->decl->body, depth + 1);
  return *m;
}

static uint64_t uses_expr(Tr *t, const Expr *e, int depth) {
  if (!e) return 0;
  uint64_t m = uses_sym(t, e->sym, depth) | uses_expr(t, e->a, depth) | uses_expr(t, e->b, depth) |
               uses_expr(t, e->c, depth);
  for (const Expr *x = e->args.head; x; x = x->next) m |= uses_expr(t, x, depth);
  for (const Iter *it = e->iters.head; it; it = it->next) m |= uses_expr(t, it->src, depth);
  return m;
}

static uint64_t uses_stmt(Tr *t, const Stmt *s, int depth) {
  if (!s) return 0;
  uint64_t m = 0;
  for (const Stmt *x = s->body.head; x; x = x->next) m |= uses_stmt(t, x, depth);
  m |= uses_expr(t, s->cond, depth) | uses_expr(t, s->expr, depth);
  m |= uses_stmt(t, s->then, depth) | uses_stmt(t, s->els, depth);
  if (s->iter) m |= uses_expr(t, s->iter->src, depth);
  for (const Expr *x = s->args.head; x; x = x->next) m |= uses_expr(t, x, depth);
  return m;
}

uint64_t th_uses_choice_stmt(Tr *t, const Stmt *s) { return t->nchoice ? uses_stmt(t, s, 0) : 0; }
uint64_t th_uses_choice_expr(Tr *t, const Expr *e) { return t->nchoice ? uses_expr(t, e, 0) : 0; }

