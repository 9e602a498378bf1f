/* var_uses.c -- definite initialization and use (doc/language.md §7.1, §8.1):
 * "possible use before initialization" errors, uninitialized outputs and
 * globals, unused variable/parameter/function warnings, and the warning
 * for an update method that never stabilizes or dies.
 *
 * Only variables declared without a value are tracked (a bit each); the
 * analysis joins if/else paths (a path that has left the method counts
 * as "everything initialized") and does not trust loop bodies to run. */
#include <stdint.h>
#include <string.h>

#include "frontend/typecheck_impl.h"

typedef struct State {
  uint64_t *bits;
  bool dead; /* control has left: the state of an unreachable point */
} State;

typedef struct VU {
  Tc *t;
  int nwords;
  TcWhere where;
  bool in_func;
  bool *reported; /* per tracked variable: use-before-init already reported */
  /* Bit vectors of finished branch copies, reused: memory stays
   * O(nesting x variables) instead of O(statements x variables). */
  uint64_t **spare;
  int nspare, spare_cap;
} VU;

static State st_new(VU *v) {
  State s;
  s.bits = ARENA_NEW_ARRAY(v->t->arena, uint64_t, v->nwords ? v->nwords : 1);
  s.dead = false;
  return s;
}

static State st_copy(VU *v, const State *a) {
  State s = v->nspare ? (State){v->spare[--v->nspare], false} : st_new(v);
  memcpy(s.bits, a->bits, sizeof(uint64_t) * (size_t)v->nwords);
  s.dead = a->dead;
  return s;
}

/* `s` (a copy from st_copy) is no longer used. */
static void st_release(VU *v, State *s) {
  if (v->nspare == v->spare_cap) {
    int cap = v->spare_cap ? 2 * v->spare_cap : 16;
    uint64_t **n = ARENA_NEW_ARRAY(v->t->arena, uint64_t *, cap);
    if (v->nspare) memcpy(n, v->spare, sizeof *n * (size_t)v->nspare);
    v->spare = n;
    v->spare_cap = cap;
  }
  v->spare[v->nspare++] = s->bits;
  s->bits = NULL;
}

/* a := join(a, b): initialized on both paths. */
static void st_join(VU *v, State *a, const State *b) {
  if (b->dead) return;
  if (a->dead) {
    memcpy(a->bits, b->bits, sizeof(uint64_t) * (size_t)v->nwords);
    a->dead = false;
    return;
  }
  for (int i = 0; i < v->nwords; i++) a->bits[i] &= b->bits[i];
}

static bool st_has(const State *s, int i) {
  return s->dead || (s->bits[i >> 6] >> (i & 63) & 1);
}

static void st_set(State *s, int i) { s->bits[i >> 6] |= (uint64_t)1 << (i & 63); }

static void use_sym(VU *v, Symbol *s, Span at, State *st) {
  if (!s) return;
  s->flags |= SF_USED;
  if (v->in_func && (s->kind == SYM_GLOBAL || s->kind == SYM_INPUT) && v->t->func)
    v->t->func->flags |= SF_FUNC_USES_GLOBALS;
  if (s->track < 0 || st_has(st, s->track)) return;
  if (!v->reported[s->track]) {
    v->reported[s->track] = true;
    diag_report(v->t->diag, ERR_USE_BEFORE_INIT, at, s->name);
  }
}

static void expr_uses(VU *v, Expr *e, State *st) {
  for (; e; e = NULL) {
    switch (e->kind) {
    case E_VAR:
      use_sym(v, e->sym, e->span, st);
      return;
    case E_KERNEL_CONT:
      if (e->sym) use_sym(v, e->sym, e->span, st);
      return;
    case E_APPLY:
      if (e->sym && (e->sym->kind == SYM_FUNC || e->sym->kind == SYM_BUILTIN))
        e->sym->flags |= SF_USED;
      if (e->a && !(e->a->kind == E_VAR && e->sym && e->sym->kind == SYM_FUNC)) expr_uses(v, e->a, st);
      break;
    default:
      expr_uses(v, e->a, st);
      expr_uses(v, e->b, st);
      expr_uses(v, e->c, st);
      break;
    }
    for (Expr *x = e->args.head; x; x = x->next) expr_uses(v, x, st);
    for (Iter *it = e->iters.head; it; it = it->next) expr_uses(v, it->src, st);
  }
}

static bool exits(VU *v, const Stmt *s) {
  switch (s->kind) {
  case S_RETURN: return true;
  case S_STABILIZE:
  case S_DIE: return v->where == W_START || v->where == W_UPDATE;
  case S_CONTINUE:
    return v->where == W_START || v->where == W_UPDATE || v->where == W_GLOBAL_START ||
           v->where == W_GLOBAL_UPDATE;
  default: return false;
  }
}

static void stmt_uses(VU *v, Stmt *s, State *st);

static void block_uses(VU *v, Stmt *s, State *st) {
  if (!s) return;
  if (s->kind != S_BLOCK) {
    stmt_uses(v, s, st);
    return;
  }
  for (Stmt *b = s->body.head; b; b = b->next) stmt_uses(v, b, st);
}

static void stmt_uses(VU *v, Stmt *s, State *st) {
  if (!s) return;
  switch (s->kind) {
  case S_BLOCK:
    block_uses(v, s, st);
    break;
  case S_IF: {
    expr_uses(v, s->cond, st);
    State e = st_copy(v, st);
    block_uses(v, s->then, st);
    block_uses(v, s->els, &e);
    st_join(v, st, &e);
    st_release(v, &e);
    break;
  }
  case S_FOREACH: {
    if (s->iter) expr_uses(v, s->iter->src, st);
    State body = st_copy(v, st);
    block_uses(v, s->then, &body);
    st_release(v, &body);
    break; /* the body may not run: nothing it assigns counts */
  }
  case S_PRINT:
  case S_NEW:
    for (Expr *x = s->args.head; x; x = x->next) expr_uses(v, x, st);
    break;
  case S_STABILIZE:
  case S_DIE:
  case S_CONTINUE:
  case S_RETURN:
    expr_uses(v, s->expr, st);
    if (exits(v, s)) st->dead = true;
    break;
  case S_DECL:
    expr_uses(v, s->expr, st);
    if (s->sym && s->sym->track >= 0 && s->expr) st_set(st, s->sym->track);
    break;
  case S_ASSIGN:
    /* x op= e reads x: the synthesized x op e is in cond */
    expr_uses(v, s->cond ? s->cond : s->expr, st);
    if (s->sym && s->sym->track >= 0) st_set(st, s->sym->track);
    break;
  }
}

static bool has_exit(const Stmt *s) {
  if (!s) return false;
  if (s->kind == S_STABILIZE || s->kind == S_DIE) return true;
  for (const Stmt *b = s->body.head; b; b = b->next)
    if (has_exit(b)) return true;
  return has_exit(s->then) || has_exit(s->els);
}

static void warn_unused(Tc *t) {
  for (int i = 0; i < t->ndecls; i++) {
    Symbol *s = t->decls[i];
    if ((s->flags & SF_USED) || !s->name[0] || !s->span.begin.line) continue;
    if (s->kind != SYM_FUNC && type_has_error(s->ty)) continue; /* already reported */
    switch (s->kind) {
    case SYM_LOCAL:
    case SYM_GLOBAL: diag_report(t->diag, WARN_UNUSED_VAR, s->span, s->name); break;
    case SYM_PARAM: diag_report(t->diag, WARN_UNUSED_PARAM, s->span, s->name); break;
    case SYM_FUNC: diag_report(t->diag, WARN_UNUSED_FUNC, s->span, s->name); break;
    default: break;
    }
  }
}

void tc_var_uses(Tc *t) {
  Program *p = t->prog;
  /* number the variables declared without a value */
  int ntrack = 0;
  for (int i = 0; i < t->ndecls; i++) {
    Symbol *s = t->decls[i];
    s->track = -1;
    bool tracked = (s->kind == SYM_LOCAL || s->kind == SYM_GLOBAL || s->kind == SYM_STATE) &&
                   !(s->flags & SF_HAS_INIT) && !type_has_error(s->ty);
    if (tracked) s->track = ntrack++;
  }
  VU v = {t, (ntrack + 63) / 64, W_GLOBAL_DECL, false, NULL, NULL, 0, 0};
  v.reported = ARENA_NEW_ARRAY(t->arena, bool, ntrack ? ntrack : 1);

  /* what a function body starts from: everything but locals */
  State nonlocal = st_new(&v);
  for (int i = 0; i < t->ndecls; i++)
    if (t->decls[i]->track >= 0 && t->decls[i]->kind != SYM_LOCAL)
      st_set(&nonlocal, t->decls[i]->track);

  /* globals, in order, then the global initialize block */
  State g = st_new(&v);
  for (Decl *d = p->globals.head; d; d = d->next) {
    if (d->kind == D_FUNC || d->kind == D_FIELD_FUNC) {
      /* functions see every global as initialized (they run later) */
      VU fv = v;
      fv.where = d->kind == D_FUNC ? W_FUNC : W_FIELD_FUNC;
      fv.in_func = true;
      Symbol *saved = t->func;
      t->func = d->sym;
      /* ...but their own locals start uninitialized */
      State loc = st_copy(&fv, &nonlocal);
      expr_uses(&fv, d->init, &loc);
      block_uses(&fv, d->body, &loc);
      st_release(&fv, &loc);
      v.spare = fv.spare, v.nspare = fv.nspare, v.spare_cap = fv.spare_cap;
      t->func = saved;
      continue;
    }
    expr_uses(&v, d->init, &g);
  }
  v.where = W_GLOBAL_INIT;
  block_uses(&v, p->global_init, &g);
  for (Decl *d = p->globals.head; d; d = d->next) {
    Symbol *s = d->sym;
    if (d->kind == D_VAR && s && s->track >= 0 && !st_has(&g, s->track))
      diag_report(t->diag, ERR_GLOBAL_UNINIT, d->name_span, s->name);
  }
  /* from here on every global counts as initialized */
  State all = st_new(&v);
  for (int i = 0; i < t->ndecls; i++)
    if (t->decls[i]->track >= 0 && t->decls[i]->kind == SYM_GLOBAL) st_set(&all, t->decls[i]->track);

  StrandDecl *sd = p->strand;
  if (sd) {
    State s = st_copy(&v, &all);
    v.where = W_STRAND_STATE;
    for (Decl *d = sd->state.head; d; d = d->next) {
      expr_uses(&v, d->init, &s);
      if (d->sym && d->sym->track >= 0 && d->init) st_set(&s, d->sym->track);
    }
    v.where = W_STRAND_INIT;
    block_uses(&v, sd->init, &s);
    s.dead = false;
    for (Decl *d = sd->state.head; d; d = d->next) {
      Symbol *sy = d->sym;
      if (sy && (sy->flags & SF_OUTPUT) && sy->track >= 0 && !st_has(&s, sy->track))
        diag_report(t->diag, ERR_OUTPUT_UNINIT, d->name_span, sy->name);
    }
    static const TcWhere mw[M__COUNT] = {W_START, W_UPDATE, W_STABILIZE};
    for (int m = 0; m < M__COUNT; m++) {
      if (!sd->methods[m]) continue;
      State ms = st_copy(&v, &s);
      v.where = mw[m];
      block_uses(&v, sd->methods[m]->body, &ms);
    }
    Method *up = sd->methods[M_UPDATE];
    if (up && !has_exit(up->body))
      diag_report(t->diag, WARN_UPDATE_NO_EXIT, up->span, sd->name);
  }
  v.where = W_GLOBAL_START;
  State gs = st_copy(&v, &all);
  block_uses(&v, p->global_start, &gs);
  v.where = W_GLOBAL_UPDATE;
  State gu = st_copy(&v, &all);
  block_uses(&v, p->global_update, &gu);
  if (p->create) {
    v.where = W_CREATE;
    State cs = st_copy(&v, &all);
    for (Iter *it = p->create->iters.head; it; it = it->next) expr_uses(&v, it->src, &cs);
    expr_uses(&v, p->create->expr, &cs);
  }
  warn_unused(t);
}
