/* ast_to_high_stmt.c -- statements, loops, inlining, comprehensions,
 * reductions and strand creation to HighIR (contract: ast_to_high.c).
 *
 * Loops keep their index (and any accumulator) in fresh SSA slots, so the
 * phis in the loop header come from the same SSA construction as those of
 * source variables.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "translate/ast_to_high_impl.h"

static Expr *strip(Expr *e) {
  while (e && e->kind == E_PAREN && !e->coerce_from) e = e->a;
  return e;
}

/* A slot nobody else can name. */
static int fresh_slot(Fn *f, const IrType *ty, const char *name) {
  char *key = ARENA_NEW(f->t->a, char);
  return th_slot_key(f, key, ty, name);
}

static IrVar *emit_op(Fn *f, int code, int n, IrVar *const *args) {
  if (!f->cur) return NULL;
  for (int i = 0; i < n; i++)
    if (!args[i]) return NULL;
  IrVar *v = ir_emit(f->cur, code, n, args);
  if (!v) th_internal(f->t, "an operator rejected its arguments in a loop or statement");
  return v;
}

static IrVar *emit2(Fn *f, int code, IrVar *a, IrVar *b) {
  IrVar *args[2] = {a, b};
  return emit_op(f, code, 2, args);
}

/* ---- loops ---------------------------------------------------------------------- */

/* An evaluated iteration source: an int range lo..hi or a sequence. */
typedef struct IterSrc {
  bool range;
  IrVar *lo, *hi, *seq;
} IterSrc;

typedef struct Loop {
  IrBlock *header, *exit;
  int islot;
  IterSrc src;
} Loop;

static bool is_strand_set(const Expr *e) {
  return e && e->kind == E_SELECT && !e->sym && e->a && e->a->sym &&
         e->a->sym->kind == SYM_STRAND;
}

static bool eval_source(Fn *f, Expr *e, IterSrc *s) {
  memset(s, 0, sizeof *s);
  Expr *x = strip(e);
  if (x && x->kind == E_RANGE && !x->coerce_from) {
    s->range = true;
    s->lo = th_expr(f, x->a);
    s->hi = th_expr(f, x->b);
    return s->lo && s->hi;
  }
  s->seq = th_expr(f, e);
  return s->seq != NULL;
}

/* Opens the loop over `src`; the body starts in f->cur with the element
 * written to `elem_slot` (if >= 0). */
static bool loop_begin(Fn *f, Loop *L, IterSrc src, int elem_slot) {
  Tr *t = f->t;
  memset(L, 0, sizeof *L);
  L->src = src;
  if (!f->cur) return false;
  const IrType *ity = ir_type_int(t->m);
  IrVar *n = NULL, *i0;
  if (src.range) {
    i0 = src.lo;
  } else {
    /* a fixed-size source's length is a constant: with seq_length the
     * sequence stayed live (and its C variable set but never read) when
     * the body does not use the iterator */
    const IrType *st = src.seq->ty;
    n = st->kind == IR_TY_SEQ && st->len != IR_SEQ_DYNAMIC ? ir_emit_int(f->cur, st->len)
                                                           : emit_op(f, IR_OP_SEQ_LENGTH, 1, &src.seq);
    i0 = ir_emit_int(f->cur, 0);
  }
  L->islot = fresh_slot(f, ity, "i");
  th_write(f, L->islot, f->cur, i0);
  L->header = th_block(f, "loop");
  th_jump(f, L->header);
  f->cur = L->header;
  IrVar *i = th_read(f, L->islot, L->header);
  IrVar *cond = src.range ? emit2(f, IR_OP_LE, i, src.hi) : emit2(f, IR_OP_LT, i, n);
  IrBlock *body = th_block(f, "body");
  L->exit = th_block(f, "done");
  if (!cond) return false;
  ir_block_set_branch(L->header, cond, body, L->exit);
  th_seal(f, body);
  th_seal(f, L->exit);
  f->cur = body;
  if (elem_slot >= 0) {
    IrVar *x = src.range ? i : emit2(f, IR_OP_SEQ_INDEX, src.seq, i);
    th_write(f, elem_slot, body, x);
  }
  return true;
}

static void loop_end(Fn *f, Loop *L) {
  if (!L->header) return;
  if (f->cur) {
    IrVar *i = th_read(f, L->islot, f->cur);
    IrVar *i1 = emit2(f, IR_OP_IADD, i, ir_emit_int(f->cur, 1));
    th_write(f, L->islot, f->cur, i1);
    th_jump(f, L->header);
  }
  th_seal(f, L->header);
  f->cur = L->exit;
}

/* ---- statements ---------------------------------------------------------------------- */

static void stmt_if(Fn *f, Stmt *s) {
  IrVar *c = th_expr(f, s->cond);
  if (!c || !f->cur) return;
  IrBlock *tb = th_block(f, "then"), *join = th_block(f, "join");
  IrBlock *eb = s->els ? th_block(f, "else") : join;
  ir_block_set_branch(f->cur, c, tb, eb);
  th_seal(f, tb);
  if (s->els) th_seal(f, eb);
  f->cur = tb;
  th_stmt(f, s->then);
  th_jump(f, join);
  if (s->els) {
    f->cur = eb;
    th_stmt(f, s->els);
    th_jump(f, join);
  }
  th_seal(f, join);
  f->cur = join->npreds ? join : NULL;
}

static void stmt_foreach(Fn *f, Stmt *s) {
  Iter *it = s->iter;
  Symbol *x = it ? it->sym : s->sym;
  IterSrc src;
  if (!it || !x || !eval_source(f, it->src, &src)) return;
  Loop L;
  if (!loop_begin(f, &L, src, th_slot_sym(f, x))) return;
  th_stmt(f, s->then);
  loop_end(f, &L);
}

static IrVar **expr_args(Fn *f, ExprList *l, int *n) {
  *n = l->len;
  IrVar **a = ARENA_NEW_ARRAY(f->t->a, IrVar *, *n > 0 ? *n : 1);
  int i = 0;
  for (Expr *x = l->head; x; x = x->next) {
    a[i] = th_expr(f, x);
    if (!a[i++]) return NULL;
  }
  return a;
}

static void effect(Fn *f, int code, ExprList *args) {
  int n;
  IrVar **a = expr_args(f, args, &n);
  if (!a || !f->cur) return;
  if (!ir_emit_effect(f->cur, code, n, a, 0, NULL))
    th_internal(f->t, "an effect operator rejected its arguments");
}

static void stmt_return(Fn *f, Stmt *s) {
  InlineFrame *fr = f->frame;
  IrVar *v = s->expr ? th_expr(f, s->expr) : NULL;
  if (!fr) {
    th_internal(f->t, "return outside of a function");
    return;
  }
  if (!f->cur) return;
  if (v && !ir_type_equal(v->ty, fr->ty)) th_internal(f->t, "a return value of the wrong type");
  th_write(f, fr->slot, f->cur, v);
  th_jump(f, fr->ret);
}

void th_stmt(Fn *f, Stmt *s) {
  if (!s || !f->cur || f->t->failed) return;
  /* the statement's line goes on its instructions (comments in generated C) */
  if (s->kind != S_BLOCK && s->span.begin.line) f->cfg->cur_line = s->span.begin.line;
  switch (s->kind) {
  case S_BLOCK:
    for (Stmt *x = s->body.head; x && f->cur; x = x->next) th_stmt(f, x);
    return;
  case S_DECL: {
    if (!s->sym) return;
    IrVar *v = s->expr ? th_expr(f, s->expr) : NULL;
    if (!f->cur) return;
    int slot = th_slot_sym(f, s->sym);
    if (v) th_write(f, slot, f->cur, v);
    if (type_prune(s->sym->ty)->kind == TY_KERNEL) th_bind_kernel(f, s->sym, s->expr);
    return;
  }
  case S_ASSIGN: {
    if (!s->sym) return;
    IrVar *v = th_expr(f, s->op != OP__COUNT && s->cond ? s->cond : s->expr);
    if (!v || !f->cur) return;
    int slot = th_slot_sym(f, s->sym);
    if (slot < 0) return;
    th_write(f, slot, f->cur, v);
    f->slots[slot].assigned = true;
    return;
  }
  case S_IF: stmt_if(f, s); return;
  case S_FOREACH: stmt_foreach(f, s); return;
  case S_PRINT: effect(f, IR_OP_PRINT, &s->args); return;
  case S_NEW: effect(f, IR_OP_NEW, &s->args); return;
  case S_STABILIZE:
  case S_DIE: {
    bool st = s->kind == S_STABILIZE;
    if (f->where == FW_METHOD) th_exit(f, st ? IR_T_STABILIZE : IR_T_DIE);
    else if (f->where == FW_GLOBAL) {
      /* the stabilize methods run now and read the globals written so far */
      if (st) th_flush_globals(f);
      ir_emit_effect(f->cur, st ? IR_OP_STABILIZE_ALL : IR_OP_DIE_ALL, 0, NULL, 0, NULL);
    }
    return;
  }
  case S_CONTINUE:
    if (f->where == FW_METHOD) th_exit(f, IR_T_CONTINUE);
    else if (f->where == FW_GLOBAL) th_exit(f, IR_T_RETURN);
    return;
  case S_RETURN: stmt_return(f, s); return;
  }
}

/* ---- inlined functions ---------------------------------------------------------------- */

IrVar *th_inline_call(Fn *f, Expr *e) {
  Tr *t = f->t;
  Symbol *fs = e->sym;
  Decl *d = fs ? fs->decl : NULL;
  if (!d || (!d->init && !d->body) || t->depth > 64) {
    th_internal(t, "a call of a function without a body");
    return NULL;
  }
  int n;
  IrVar **args = expr_args(f, &e->args, &n);
  if (!args || !f->cur) return NULL;
  const Kernel **ks = ARENA_NEW_ARRAY(t->a, const Kernel *, n > 0 ? n : 1);
  int i = 0;
  for (Expr *x = e->args.head; x; x = x->next, i++) ks[i] = th_kernel_of(f, x);
  int saved = f->inst;
  InlineFrame *saved_frame = f->frame;
  f->inst = t->next_inst++;
  t->depth++;
  i = 0;
  for (Param *p = d->params.head; p && i < n; p = p->next, i++) {
    if (!p->sym) continue;
    th_write(f, th_slot_sym(f, p->sym), f->cur, args[i]);
    th_bind_kernel_k(f, p->sym, ks[i]);
  }
  const Type *rt = type_prune(fs->ty)->result;
  const IrType *rty = th_type(t, rt);
  IrVar *v = NULL;
  if (d->init) {
    v = th_expr(f, d->init);
    if (v && !ir_type_equal(v->ty, rty)) v = th_coerce(f, v, d->init->ty, rt);
  } else {
    InlineFrame fr = {th_block(f, "ret"), 0, rty, NULL};
    fr.slot = fresh_slot(f, rty, "ret");
    f->frame = &fr;
    int call_line = f->cfg->cur_line; /* the body has its own lines */
    th_stmt(f, d->body);
    f->cfg->cur_line = call_line;
    th_jump(f, fr.ret);
    th_seal(f, fr.ret);
    f->cur = fr.ret->npreds ? fr.ret : NULL;
    v = f->cur ? th_read(f, fr.slot, f->cur) : NULL;
  }
  t->depth--;
  f->inst = saved;
  f->frame = saved_frame;
  return v;
}

/* ---- strand sets: map functions ------------------------------------------------------------ */

typedef struct Captures {
  Symbol **syms;
  int n, cap;
} Captures;

static void capture_expr(Tr *t, const Expr *e, Symbol *self, Captures *c) {
  if (!e) return;
  if (e->kind == E_VAR && e->sym && e->sym != self &&
      (e->sym->kind == SYM_LOCAL || e->sym->kind == SYM_PARAM || e->sym->kind == SYM_ITER)) {
    for (int i = 0; i < c->n; i++)
      if (c->syms[i] == e->sym) return;
    if (c->n == c->cap) {
      int cap = c->cap ? c->cap * 2 : 8;
      Symbol **s = ARENA_NEW_ARRAY(t->a, Symbol *, cap);
      if (c->n) memcpy(s, c->syms, (size_t)c->n * sizeof *s);
      c->syms = s;
      c->cap = cap;
    }
    c->syms[c->n++] = e->sym;
  }
  capture_expr(t, e->a, self, c);
  capture_expr(t, e->b, self, c);
  capture_expr(t, e->c, self, c);
  for (const Expr *x = e->args.head; x; x = x->next) capture_expr(t, x, self, c);
  for (const Iter *it = e->iters.head; it; it = it->next) capture_expr(t, it->src, self, c);
}

static IrStrandSet set_of(const Expr *src) {
  const char *n = src->name ? src->name : "all";
  if (!strcmp(n, "active")) return IR_SET_ACTIVE;
  if (!strcmp(n, "stable")) return IR_SET_STABLE;
  return IR_SET_ALL;
}

/* strand_reduce[red, set](captured...) with the body of comprehension e as
 * the map function. */
static IrVar *strand_reduce(Fn *f, Expr *e, IrReduce red) {
  Tr *t = f->t;
  Iter *it = e->iters.head;
  Symbol *self = it ? it->sym : NULL;
  if (!self || !f->cur) return NULL;
  Captures cap = {0};
  capture_expr(t, e->a, self, &cap);
  IrVar **args = ARENA_NEW_ARRAY(t->a, IrVar *, cap.n > 0 ? cap.n : 1);
  for (int i = 0; i < cap.n; i++)
    if (!(args[i] = th_var(f, cap.syms[i], e->span))) return NULL;

  Fn *g = th_fn_new(t, IR_CFG_FUNC, arena_printf(t->a, "reduce_%d", t->nreduce++), FW_FUNC);
  g->inst = f->inst; /* captured symbols keep their slots' keys */
  IrVar *sp = ir_cfg_add_param(g->cfg, self->name, ir_module_strand_type(t->m));
  th_write(g, th_slot_sym(g, self), g->cur, sp);
  for (int i = 0; i < cap.n; i++) {
    IrVar *p = ir_cfg_add_param(g->cfg, cap.syms[i]->name, args[i]->ty);
    th_write(g, th_slot_sym(g, cap.syms[i]), g->cur, p);
  }
  IrVar *v = th_expr(g, e->a);
  if (!v || !g->cur) return NULL;
  g->cfg->result = v->ty;
  ir_block_set_return(g->cur, v);
  g->cur = NULL;
  th_fn_finish(g);

  th_flush_globals(f);
  IrVar *r = ir_emit_strand_reduce(f->cur, NULL, red, set_of(strip(it->src)), g->cfg, cap.n, args);
  if (!r) th_internal(t, "a strand-set reduction that does not type");
  return r;
}

/* ---- comprehensions and reductions ----------------------------------------------------------- */

/* The loops of a comprehension's iterators (several: an extension,
 * doc/language.md §5.6), nested with the first outermost, as nested
 * comprehensions would be. A source that uses an earlier iterator
 * (`b in 0..a`) is evaluated in that iterator's loop, once per element;
 * the others once, before the first loop. */
typedef struct Loops {
  int n;
  Loop *l;
} Loops;

/* Whether e reads one of the iterators from `first` up to (not including) `stop`. */
static bool uses_iters(const Expr *e, const Iter *first, const Iter *stop) {
  if (!e) return false;
  if (e->kind == E_VAR && e->sym)
    for (const Iter *it = first; it && it != stop; it = it->next)
      if (it->sym == e->sym) return true;
  if (uses_iters(e->a, first, stop) || uses_iters(e->b, first, stop) ||
      uses_iters(e->c, first, stop))
    return true;
  for (const Expr *x = e->args.head; x; x = x->next)
    if (uses_iters(x, first, stop)) return true;
  for (const Iter *it = e->iters.head; it; it = it->next)
    if (uses_iters(it->src, first, stop)) return true;
  return false;
}

static bool loops_begin(Fn *f, Expr *e, Loops *ls) {
  int n = e->iters.len, i = 0;
  IterSrc *srcs = ARENA_NEW_ARRAY(f->t->a, IterSrc, n > 0 ? n : 1);
  bool *inner = ARENA_NEW_ARRAY(f->t->a, bool, n > 0 ? n : 1);
  ls->n = 0;
  ls->l = ARENA_NEW_ARRAY(f->t->a, Loop, n > 0 ? n : 1);
  for (Iter *it = e->iters.head; it; it = it->next, i++) {
    if (!it->sym) return false;
    inner[i] = uses_iters(it->src, e->iters.head, it);
    if (!inner[i] && !eval_source(f, it->src, &srcs[i])) return false;
  }
  i = 0;
  for (Iter *it = e->iters.head; it; it = it->next, i++) {
    if (inner[i] && !eval_source(f, it->src, &srcs[i])) return false;
    if (!loop_begin(f, &ls->l[i], srcs[i], th_slot_sym(f, it->sym))) return false;
    ls->n++;
  }
  return true;
}

static void loops_end(Fn *f, Loops *ls) {
  for (int i = ls->n - 1; i >= 0; i--) loop_end(f, &ls->l[i]);
}

IrVar *th_comprehension(Fn *f, Expr *e) {
  Iter *it = e->iters.head;
  if (!it || !it->sym) return NULL;
  if (is_strand_set(strip(it->src))) return strand_reduce(f, e, IR_REDUCE_COLLECT);
  const IrType *sty = th_type(f->t, e->coerce_from ? e->coerce_from : e->ty);
  int acc = fresh_slot(f, sty, "seq");
  th_write(f, acc, f->cur, ir_emit_op(f->cur, "seq", IR_OP_SEQ_CONS, sty, 0, NULL, 0, NULL));
  Loops L;
  if (!loops_begin(f, e, &L)) return NULL;
  IrVar *x = th_expr(f, e->a);
  if (f->cur) th_write(f, acc, f->cur, emit2(f, IR_OP_SEQ_APPEND, th_read(f, acc, f->cur), x));
  loops_end(f, &L);
  return th_read(f, acc, f->cur);
}

static IrReduce reduce_kind(BuiltinId id) {
  switch (id) {
  case BI_ALL: return IR_REDUCE_ALL;
  case BI_EXISTS: return IR_REDUCE_EXISTS;
  case BI_SUM_I: case BI_SUM_R: return IR_REDUCE_SUM;
  case BI_PRODUCT_I: case BI_PRODUCT_R: return IR_REDUCE_PRODUCT;
  case BI_MIN_SEQ_I: case BI_MIN_SEQ_R: return IR_REDUCE_MIN;
  case BI_MAX_SEQ_I: case BI_MAX_SEQ_R: return IR_REDUCE_MAX;
  default: return IR_REDUCE_MEAN;
  }
}

/* acc op x for the reduction kind (ints use integer operators). */
static IrVar *combine(Fn *f, IrReduce r, bool is_int, IrVar *acc, IrVar *x) {
  EinContext *c = f->t->ein;
  EinParam s = ein_param_tensor(0, NULL);
  IrVar *a[2] = {acc, x};
  switch (r) {
  case IR_REDUCE_ALL: return emit_op(f, IR_OP_AND, 2, a);
  case IR_REDUCE_EXISTS: return emit_op(f, IR_OP_OR, 2, a);
  case IR_REDUCE_MIN: return emit_op(f, IR_OP_MIN, 2, a);
  case IR_REDUCE_MAX: return emit_op(f, IR_OP_MAX, 2, a);
  case IR_REDUCE_PRODUCT:
    return is_int ? emit_op(f, IR_OP_IMUL, 2, a) : th_ein(f, eb_scale(c, s, s), NULL, 2, a);
  default: return is_int ? emit_op(f, IR_OP_IADD, 2, a) : th_ein(f, eb_add(c, s, s), NULL, 2, a);
  }
}

static IrVar *identity_of(Fn *f, IrReduce r, bool is_int) {
  IrBlock *b = f->cur;
  bool wide = f->t->opts->long_int;
  switch (r) {
  case IR_REDUCE_ALL: return ir_emit_bool(b, true);
  case IR_REDUCE_EXISTS: return ir_emit_bool(b, false);
  case IR_REDUCE_PRODUCT: return is_int ? ir_emit_int(b, 1) : ir_emit_real(b, 1.0);
  case IR_REDUCE_MIN:
    return is_int ? ir_emit_int(b, wide ? INT64_MAX : INT32_MAX) : ir_emit_real(b, INFINITY);
  case IR_REDUCE_MAX:
    return is_int ? ir_emit_int(b, wide ? INT64_MIN : INT32_MIN) : ir_emit_real(b, -INFINITY);
  default: return is_int ? ir_emit_int(b, 0) : ir_emit_real(b, 0.0);
  }
}

IrVar *th_reduce(Fn *f, Expr *e, BuiltinId id) {
  Tr *t = f->t;
  Iter *it = e->iters.head;
  if (!it || !it->sym || !f->cur) return NULL;
  IrReduce r = reduce_kind(id);
  if (is_strand_set(strip(it->src))) return strand_reduce(f, e, r);
  const Type *et = type_prune(e->a->ty);
  bool is_int = et->kind == TY_INT;
  const IrType *ety = th_type(t, et);
  int acc = fresh_slot(f, ety, "acc");
  th_write(f, acc, f->cur, identity_of(f, r, is_int));
  int cnt = -1;
  if (r == IR_REDUCE_MEAN) {
    cnt = fresh_slot(f, ir_type_int(t->m), "n");
    th_write(f, cnt, f->cur, ir_emit_int(f->cur, 0));
  }
  Loops L;
  if (!loops_begin(f, e, &L)) return NULL;
  IrVar *x = th_expr(f, e->a);
  if (f->cur) {
    th_write(f, acc, f->cur, combine(f, r, is_int, th_read(f, acc, f->cur), x));
    if (cnt >= 0)
      th_write(f, cnt, f->cur,
               emit2(f, IR_OP_IADD, th_read(f, cnt, f->cur), ir_emit_int(f->cur, 1)));
  }
  loops_end(f, &L);
  IrVar *v = th_read(f, acc, f->cur);
  if (cnt < 0) return v;
  IrVar *n = emit_op(f, IR_OP_INT_TO_REAL, 1, (IrVar *[]){th_read(f, cnt, f->cur)});
  EinParam s = ein_param_tensor(0, NULL);
  IrVar *a[2] = {v, n};
  return th_ein(f, eb_div(t->ein, s, s), NULL, 2, a);
}

/* ---- strand creation ------------------------------------------------------------------------ */

void th_create(Fn *f, Create *c) {
  Tr *t = f->t;
  int n = c->iters.len;
  IterSrc *srcs = ARENA_NEW_ARRAY(t->a, IterSrc, n > 0 ? n : 1);
  int i = 0;
  for (Iter *it = c->iters.head; it; it = it->next, i++)
    if (!eval_source(f, it->src, &srcs[i])) return;
  if (t->m->create_array && n > 0) {
    IrVar **g = ARENA_NEW_ARRAY(t->a, IrVar *, 2 * n);
    for (i = 0; i < n; i++) {
      IterSrc *s = &srcs[i];
      if (s->range) {
        IrVar *d = emit2(f, IR_OP_ISUB, s->hi, s->lo);
        d = emit2(f, IR_OP_IADD, d, ir_emit_int(f->cur, 1));
        g[i] = emit2(f, IR_OP_MAX, d, ir_emit_int(f->cur, 0));
        g[n + i] = s->lo;
      } else {
        g[i] = emit_op(f, IR_OP_SEQ_LENGTH, 1, &s->seq);
        g[n + i] = ir_emit_int(f->cur, 0);
      }
      if (!g[i]) return;
    }
    if (!ir_emit_effect(f->cur, IR_OP_CREATE_GRID, 2 * n, g, 0, NULL))
      th_internal(t, "create_grid rejected its arguments");
  }
  Loop *loops = ARENA_NEW_ARRAY(t->a, Loop, n > 0 ? n : 1);
  i = 0;
  for (Iter *it = c->iters.head; it; it = it->next, i++)
    if (!it->sym || !loop_begin(f, &loops[i], srcs[i], th_slot_sym(f, it->sym))) return;
  if (c->expr) effect(f, IR_OP_NEW, &c->expr->args);
  for (i = n - 1; i >= 0; i--) loop_end(f, &loops[i]);
}
