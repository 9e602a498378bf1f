/* parser.c -- the parse driver: dialect choice, token feeding, syntax
 * errors, and the node-building helpers called by the grammar actions.
 *
 * Every token is checked against the parser tables before lemon sees it
 * (parser_would_shift simulates lemon's reductions on a side stack). So
 * a syntax error is reported in the state *before* lemon's default
 * reductions, with the full list of tokens that could have come next, and
 * lemon itself never sees a bad token: recovery is done here (see "error
 * recovery" below). The lexer is always drained so that all its own
 * errors are reported.
 */
#include "frontend/parser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lexer.h"
#include "frontend/parser_impl.h"
#include "util/suggest.h"

enum {
  /* Parser-stack entries before we refuse to go deeper (one per nested
   * parenthesis, six per nested else-if). Keeps the recursive later passes
   * far from the C stack limit on hostile input. */
  PARSER_MAX_DEPTH = 4000,
  /* Entries pushed by one simulated reduction sequence (a handful in
   * practice: chains of unit and empty rules). */
  PARSER_SIM_MAX = 256,
  /* Phrases in an "expected ..." list before it is cut short. */
  PARSER_MAX_EXPECTED = 8,
};

/* ------------------------------------------------------------ helpers */

const char *parser_name(const Token *t) { return t->text ? t->text : ""; }

/* Tree heights. Left-associative chains (a+b+c..., a[0][0]..., f(x)(y),
 * int[1][1]...) are built without growing lemon's stack, yet every later
 * pass recurses over the tree; so node heights are bounded too, by the
 * same limit. The node is kept; parser_token() reports and stops. */
static int parser_max(int d, const Expr *e) { return e && e->depth > d ? e->depth : d; }

static int parser_list_depth(int d, ExprList l) {
  for (const Expr *x = l.head; x; x = x->next) d = parser_max(d, x);
  return d;
}

static Expr *parser_nest(ParseState *st, Expr *e) {
  int d = parser_max(parser_max(parser_max(0, e->a), e->b), e->c);
  d = parser_list_depth(d, e->args);
  for (const Iter *it = e->iters.head; it; it = it->next) d = parser_max(d, it->src);
  e->depth = d + 1;
  if (e->depth > PARSER_MAX_DEPTH) st->too_deep = true;
  return e;
}

static AstType *parser_type_nest(ParseState *st, AstType *ty) {
  int d = parser_list_depth(parser_max(parser_max(0, ty->dim), ty->len), ty->shape);
  if (ty->elem && ty->elem->depth > d) d = ty->elem->depth;
  ty->depth = d + 1;
  if (ty->depth > PARSER_MAX_DEPTH) st->too_deep = true;
  return ty;
}

Expr *parser_leaf(ParseState *st, ExprKind k, Token t) {
  Expr *e = ast_expr(st->arena, k, t.span);
  e->tok = t;
  return e;
}

Expr *parser_var(ParseState *st, Token id) {
  Expr *e = ast_expr(st->arena, E_VAR, id.span);
  e->name = parser_name(&id);
  return e;
}

Expr *parser_kernel_cont(ParseState *st, Token id, Token k) {
  Expr *e = ast_expr(st->arena, E_KERNEL_CONT, span_join(id.span, k.span));
  e->name = parser_name(&id);
  e->tok = k;
  return e;
}

Expr *parser_bool(ParseState *st, Token t, bool v) {
  Expr *e = ast_expr(st->arena, E_BOOL, t.span);
  e->bval = v;
  return e;
}

Expr *parser_binary(ParseState *st, AstOp op, Expr *a, Expr *b) {
  Expr *e = ast_expr(st->arena, E_BINARY, span_join(a->span, b->span));
  e->op = op;
  e->a = a;
  e->b = b;
  return parser_nest(st, e);
}

Expr *parser_range(ParseState *st, Expr *lo, Expr *hi) {
  Expr *e = ast_expr(st->arena, E_RANGE, span_join(lo->span, hi->span));
  e->a = lo;
  e->b = hi;
  return parser_nest(st, e);
}

Expr *parser_unary(ParseState *st, AstOp op, Token optok, Expr *a) {
  Expr *e = ast_expr(st->arena, E_UNARY, span_join(optok.span, a->span));
  e->op = op;
  e->a = a;
  return parser_nest(st, e);
}

Expr *parser_cond(ParseState *st, Expr *then, Expr *cond, Expr *els) {
  Expr *e = ast_expr(st->arena, E_COND, span_join(then->span, els->span));
  e->a = then;
  e->b = els;
  e->c = cond;
  return parser_nest(st, e);
}

Expr *parser_suffix(ParseState *st, ExprKind kind, Expr *a, PList args) {
  Expr *e = ast_expr(st->arena, kind, span_join(a->span, args.span));
  e->a = a;
  e->args = args.items;
  return parser_nest(st, e);
}

Expr *parser_select(ParseState *st, Expr *a, Token id) {
  Expr *e = ast_expr(st->arena, E_SELECT, span_join(a->span, id.span));
  e->a = a;
  e->name = parser_name(&id);
  return parser_nest(st, e);
}

Expr *parser_list_expr(ParseState *st, ExprKind kind, Token first, PList l) {
  Expr *e = ast_expr(st->arena, kind, span_join(first.span, l.span));
  e->args = l.items;
  e->has_shape = (kind == E_NAN);
  return parser_nest(st, e);
}

Expr *parser_wrap(ParseState *st, ExprKind kind, Token first, Expr *a, Token last) {
  Expr *e = ast_expr(st->arena, kind, span_join(first.span, last.span));
  e->a = a;
  return parser_nest(st, e);
}

Expr *parser_comprehension(ParseState *st, Token lbrace, Expr *body, IterList its, Token rbrace) {
  Expr *e = ast_expr(st->arena, E_COMPREHENSION, span_join(lbrace.span, rbrace.span));
  e->a = body;
  e->iters = its;
  return parser_nest(st, e);
}

Expr *parser_apply_comprehension(ParseState *st, Expr *f, Expr *comp) {
  Expr *e = ast_expr(st->arena, E_APPLY, span_join(f->span, comp->span));
  e->a = f;
  ast_expr_append(&e->args, comp);
  return parser_nest(st, e);
}

Expr *parser_nan(ParseState *st, Token t) { return ast_expr(st->arena, E_NAN, t.span); }

Iter *parser_iter(ParseState *st, Token id, Expr *src) {
  return ast_iter(st->arena, parser_name(&id), id.span, src);
}

PList parser_plist(Token open, ExprList items, Token close) {
  PList l = {items, span_join(open.span, close.span)};
  return l;
}

ExprList parser_list1(Expr *e) {
  ExprList l = {0};
  ast_expr_append(&l, e);
  return l;
}

/* -------------------------------------------------------------- types */

AstType *parser_type_simple(ParseState *st, AstTypeKind k, Token t, int n) {
  AstType *ty = ast_type(st->arena, k, t.span);
  ty->n = n;
  return ty;
}

AstType *parser_type_tensor(ParseState *st, Token kw, PList shape) {
  AstType *ty = ast_type(st->arena, AT_TENSOR, span_join(kw.span, shape.span));
  ty->shape = shape.items;
  return parser_type_nest(st, ty);
}

AstType *parser_type_image(ParseState *st, Token kw, Expr *dim, PList shape) {
  AstType *ty = ast_type(st->arena, AT_IMAGE, span_join(kw.span, shape.span));
  ty->dim = dim;
  ty->shape = shape.items;
  return parser_type_nest(st, ty);
}

AstType *parser_type_field(ParseState *st, Token kw, const Token *k, Expr *dim, PList shape) {
  AstType *ty = ast_type(st->arena, AT_FIELD, span_join(kw.span, shape.span));
  ty->dim = dim;
  ty->shape = shape.items;
  if (k) {
    ty->has_cont = true;
    ty->cont = *k;
  }
  return parser_type_nest(st, ty);
}

AstType *parser_type_kernel(ParseState *st, Token kw, Token k) {
  AstType *ty = ast_type(st->arena, AT_KERNEL, span_join(kw.span, k.span));
  ty->has_cont = true;
  ty->cont = k;
  return ty;
}

AstType *parser_type_named(ParseState *st, Token id) {
  AstType *ty = ast_type(st->arena, AT_NAMED, id.span);
  ty->name = parser_name(&id);
  return ty;
}

AstType *parser_type_seq(ParseState *st, AstType *elem, Expr *len, Token close) {
  AstType *ty = ast_type(st->arena, AT_SEQ, span_join(elem->span, close.span));
  ty->elem = elem;
  ty->len = len;
  return parser_type_nest(st, ty);
}

/* --------------------------------------------------------- statements */

Stmt *parser_block(ParseState *st, Token lbrace, StmtList body, Token rbrace) {
  Stmt *s = ast_stmt(st->arena, S_BLOCK, span_join(lbrace.span, rbrace.span));
  s->body = body;
  return s;
}

Stmt *parser_if(ParseState *st, Token kw, Expr *cond, Stmt *then, Stmt *els) {
  Stmt *s = ast_stmt(st->arena, S_IF, span_join(kw.span, (els ? els : then)->span));
  s->cond = cond;
  s->then = then;
  s->els = els;
  return s;
}

Stmt *parser_foreach(ParseState *st, Token kw, AstType *ty, Iter *it, Stmt *body) {
  Stmt *s = ast_stmt(st->arena, S_FOREACH, span_join(kw.span, body->span));
  s->type = ty;
  s->iter = it;
  s->then = body;
  return s;
}

Stmt *parser_args_stmt(ParseState *st, StmtKind k, Token kw, const Token *id, ExprList args,
                       Token semi) {
  Stmt *s = ast_stmt(st->arena, k, span_join(kw.span, semi.span));
  s->args = args;
  if (id) {
    s->name = parser_name(id);
    s->name_span = id->span;
  }
  return s;
}

Stmt *parser_simple_stmt(ParseState *st, StmtKind k, Token kw, Expr *e, Token semi) {
  Stmt *s = ast_stmt(st->arena, k, span_join(kw.span, semi.span));
  s->expr = e;
  return s;
}

Stmt *parser_decl_stmt(ParseState *st, AstType *ty, Token id, Expr *init, Token semi) {
  Stmt *s = ast_stmt(st->arena, S_DECL, span_join(ty->span, semi.span));
  s->type = ty;
  s->name = parser_name(&id);
  s->name_span = id.span;
  s->expr = init;
  return s;
}

Stmt *parser_assign(ParseState *st, Token id, AstOp op, Expr *e, Token semi) {
  Stmt *s = ast_stmt(st->arena, S_ASSIGN, span_join(id.span, semi.span));
  s->name = parser_name(&id);
  s->name_span = id.span;
  s->op = op;
  s->expr = e;
  return s;
}

/* ------------------------------------------------------- declarations */

Decl *parser_var_decl(ParseState *st, DeclKind k, Span begin, AstType *ty, Token id,
                      Expr *init, Token semi) {
  Span sp = {begin.begin, semi.span.end};
  Decl *d = ast_decl(st->arena, k, sp);
  d->type = ty;
  d->name = parser_name(&id);
  d->name_span = id.span;
  d->init = init;
  return d;
}

void parser_state_position(ParseState *st, Decl *d, Token q) {
  if (strcmp(parser_name(&q), "position") != 0) {
    diag_report(st->diag, ERR_STATE_QUALIFIER, q.span, parser_name(&q));
    return;
  }
  d->is_position = true;
  d->position_span = q.span;
}

Decl *parser_input_decl(ParseState *st, Token kw, AstType *ty, Token id, const Token *desc,
                        Expr *init, Token semi) {
  Decl *d = parser_var_decl(st, D_INPUT, kw.span, ty, id, init, semi);
  if (desc) {
    d->has_desc = true;
    d->desc = *desc;
  }
  return d;
}

Decl *parser_func_decl(ParseState *st, Token kw, AstType *ty, Token id, ParamList params,
                       Expr *body_expr, Stmt *body, Span end) {
  Decl *d = ast_decl(st->arena, D_FUNC, span_join(kw.span, end));
  d->type = ty;
  d->name = parser_name(&id);
  d->name_span = id.span;
  d->params = params;
  d->init = body_expr;
  d->body = body;
  return d;
}

Decl *parser_field_func(ParseState *st, AstType *ty, Token id, Param *p, Expr *e, Token semi) {
  Decl *d = ast_decl(st->arena, D_FIELD_FUNC, span_join(ty->span, semi.span));
  d->type = ty;
  d->name = parser_name(&id);
  d->name_span = id.span;
  ast_param_append(&d->params, p);
  d->init = e;
  return d;
}

StrandDecl *parser_strand_begin(ParseState *st) { return ARENA_NEW(st->arena, StrandDecl); }

void parser_strand_method(ParseState *st, StrandDecl *s, MethodKind k, Token kw, Stmt *body) {
  if (s->methods[k]) {
    /* Keep the first; the typechecker reports the first repetition. */
    if (!s->dup_method[k]) {
      s->dup_method[k] = true;
      s->dup_method_span[k] = kw.span;
    }
    return;
  }
  Method *m = ARENA_NEW(st->arena, Method);
  m->kind = k;
  m->span = span_join(kw.span, body->span);
  m->body = body;
  s->methods[k] = m;
}

StrandDecl *parser_strand_end(StrandDecl *s, Token kw, Token id, ParamList params,
                              DeclList state, Stmt *init, Token rbrace) {
  s->span = span_join(kw.span, rbrace.span);
  s->name = parser_name(&id);
  s->name_span = id.span;
  s->params = params;
  s->state = state;
  s->init = init;
  return s;
}

Create *parser_create(ParseState *st, CreateKind k, Token kw, Expr *e, IterList iters,
                      Token close) {
  Create *c = ARENA_NEW(st->arena, Create);
  c->kind = k;
  c->span = span_join(kw.span, close.span);
  c->expr = e;
  c->iters = iters;
  return c;
}

/* The first part of a 1.0 input initializer outside the allowed forms:
 * identity[n], zeros[σ], image(..), load(..), {..}, [..] (of allowed
 * forms), an optionally negated INT or REAL, STRING, true, false. */
static const Expr *parser_v1_bad_init(const Expr *e) {
  switch (e->kind) {
  case E_IDENTITY: case E_ZEROS: case E_LOAD_IMAGE: case E_LOAD_SEQ:
  case E_INT: case E_REAL: case E_STRING: case E_BOOL:
    return NULL;
  case E_UNARY:
    return (e->op == OP_NEG && (e->a->kind == E_INT || e->a->kind == E_REAL)) ? NULL : e;
  case E_SEQ: case E_TENSOR:
    for (const Expr *x = e->args.head; x; x = x->next) {
      const Expr *bad = parser_v1_bad_init(x);
      if (bad) return bad;
    }
    return NULL;
  default:
    return e;
  }
}

void parser_v1_check_input_init(Decl *d) {
  if (d && d->init) d->v1_nonliteral = parser_v1_bad_init(d->init);
}

/* ------------------------------------------------------- syntax errors */

/* Would lemon shift (or accept) the tokens la[0..n-1], one after the
 * other, from its current configuration? Replays lemon's reductions and
 * shifts with the popped part of the stack kept apart, without touching
 * the parser. */
/* Whether lemon would take the tokens la[0..n-1] from here; *kept (if
 * not NULL) is then how many entries at the bottom of the stack taking
 * them leaves as they are. */
static bool parser_would_shift_kept(const ParserTables *t, void *p, const int *la, int n,
                                    int *kept) {
  int pushed[PARSER_SIM_MAX];
  int npushed = 0, popped = 0, depth = t->depth(p);
  for (int i = 0; i < n; i++) {
    int state = npushed > 0 ? pushed[npushed - 1] : t->state_at(p, popped);
    for (;;) {
      int act = t->shift_action(state, la[i]);
      if (act == t->accept_action) return true;
      int rule;
      if (act <= t->max_shift) {                      /* shift: next token */
        if (npushed == PARSER_SIM_MAX) return false;
        pushed[npushed++] = act;
        break;
      } else if (act <= t->max_shift_reduce) {        /* shift, then reduce */
        if (npushed == PARSER_SIM_MAX) return false;
        pushed[npushed++] = state;                    /* the token's entry */
        rule = act - t->min_shift_reduce;
      } else if (act >= t->min_reduce) {
        rule = act - t->min_reduce;
      } else {
        return false;                                 /* error */
      }
      int len = t->rule_len(rule);
      int from_pushed = len < npushed ? len : npushed;
      npushed -= from_pushed;
      popped += len - from_pushed;
      if (popped > depth || npushed == PARSER_SIM_MAX) return false; /* cannot happen */
      int below = npushed > 0 ? pushed[npushed - 1] : t->state_at(p, popped);
      state = t->goto_action(below, t->rule_lhs(rule));
      pushed[npushed++] = state;
      if (act <= t->max_shift_reduce) break;          /* the token is in */
    }
  }
  if (kept) *kept = depth + 1 - popped;
  return true;
}

static bool parser_would_shift_seq(const ParserTables *t, void *p, const int *la, int n) {
  return parser_would_shift_kept(t, p, la, n, NULL);
}

static bool parser_would_shift(const ParserTables *t, void *p, int la) {
  return parser_would_shift_seq(t, p, &la, 1);
}

/* Groups that keep an "expected" list short. A group is named when all its
 * trigger tokens are possible; it then stands for all its members. */
typedef struct TokenGroup {
  const char *name;
  TokenKind trigger[4];
  TokenKind members[40];
} TokenGroup;

#define TYPE_STARTS                                                                      \
  TOK_ID, TOK_BOOL, TOK_KW_INT, TOK_KW_REAL, TOK_KW_STRING, TOK_TENSOR, TOK_VEC2, TOK_VEC3, \
      TOK_VEC4, TOK_MAT2, TOK_MAT3, TOK_MAT4, TOK_IMAGE, TOK_FIELD, TOK_KERNEL

static const TokenGroup parser_groups[] = {
    {"a statement",
     {TOK_IF, TOK_FOREACH, TOK_RETURN},
     {TOK_IF, TOK_FOREACH, TOK_PRINT, TOK_NEW, TOK_STABILIZE, TOK_DIE, TOK_CONTINUE, TOK_RETURN,
      TOK_LBRACE, TYPE_STARTS}},
    {"a declaration", {TOK_INPUT, TOK_FUNCTION}, {TOK_CONST, TOK_INPUT, TOK_FUNCTION, TYPE_STARTS}},
    {"an expression",
     {TOK_INT, TOK_STRING, TOK_LPAREN, TOK_MINUS},
     {TOK_ID, TOK_INT, TOK_REAL, TOK_STRING, TOK_TRUE, TOK_FALSE, TOK_LPAREN, TOK_LBRACKET,
      TOK_LBRACE, TOK_BAR, TOK_MINUS, TOK_BANG, TOK_NABLA, TOK_NABLA_OUTER, TOK_NABLA_DOT,
      TOK_NABLA_CROSS, TOK_KW_REAL, TOK_KW_INT, TOK_LOAD, TOK_LOAD_SEQUENCE, TOK_LOAD_IMAGE,
      TOK_IMAGE, TOK_IDENTITY, TOK_ZEROS, TOK_KW_NAN}},
    /* what may follow '^' or '∇': an expression without prefix - or ! */
    {"an operand",
     {TOK_INT, TOK_STRING, TOK_LPAREN},
     {TOK_ID, TOK_INT, TOK_REAL, TOK_STRING, TOK_TRUE, TOK_FALSE, TOK_LPAREN, TOK_LBRACKET,
      TOK_LBRACE, TOK_BAR, TOK_NABLA, TOK_NABLA_OUTER, TOK_NABLA_DOT, TOK_NABLA_CROSS,
      TOK_KW_REAL, TOK_KW_INT, TOK_LOAD, TOK_LOAD_SEQUENCE, TOK_LOAD_IMAGE, TOK_IMAGE,
      TOK_IDENTITY, TOK_ZEROS, TOK_KW_NAN}},
    {"a type", {TOK_TENSOR, TOK_BOOL}, {TYPE_STARTS}},
    /* binary operators and the suffixes that may follow an operand */
    {"an operator",
     {TOK_PLUS, TOK_STAR, TOK_ANDAND},
     {TOK_OROR, TOK_ANDAND, TOK_LT, TOK_LE, TOK_EQEQ, TOK_NEQ, TOK_GE, TOK_GT, TOK_PLUS,
      TOK_MINUS, TOK_STAR, TOK_SLASH, TOK_PERCENT, TOK_CARET, TOK_AT, TOK_CONVOLVE, TOK_DOT_PROD,
      TOK_CROSS, TOK_OUTER, TOK_COLON, TOK_COMPOSE, TOK_DOTDOT, TOK_IF, TOK_LPAREN, TOK_LBRACKET,
      TOK_LBRACE, TOK_DOT, TOK_HASH}},
};

/* "a statement or '}'": the tokens acceptable in the current state. */
static const char *parser_expected(Arena *a, const ParserTables *t, void *p, Dialect dialect) {
  bool ok[TOK_COUNT];
  for (int k = 0; k < TOK_COUNT; k++) ok[k] = parser_would_shift(t, p, k);
  /* In 1.0 '..' is no operator but the bound of an iterator: name it. */
  bool dotdot = dialect == DIALECT_V1 && ok[TOK_DOTDOT];
  const char *parts[TOK_COUNT + 8];
  int n = 0;
  for (size_t g = 0; g < sizeof parser_groups / sizeof parser_groups[0]; g++) {
    const TokenGroup *grp = &parser_groups[g];
    bool all = true;
    for (int i = 0; i < 4 && grp->trigger[i]; i++) all = all && ok[grp->trigger[i]];
    if (!all) continue;
    parts[n++] = grp->name;
    for (int i = 0; i < 40 && grp->members[i]; i++) ok[grp->members[i]] = false;
  }
  if (dotdot) ok[TOK_DOTDOT] = true;
  for (int k = 1; k < TOK_COUNT; k++)
    if (ok[k]) parts[n++] = token_kind_spelling((TokenKind)k);
  if (ok[TOK_EOF]) parts[n++] = token_kind_spelling(TOK_EOF);
  if (n == 0) return "nothing"; /* cannot happen: some token led here */
  bool cut = n > PARSER_MAX_EXPECTED;
  if (cut) n = PARSER_MAX_EXPECTED - 1;
  size_t len = 1;
  for (int i = 0; i < n; i++) len += strlen(parts[i]) + 4;
  len += cut ? 16 : 0;
  char *buf = arena_alloc(a, len), *q = buf;
  for (int i = 0; i < n; i++) {
    const char *sep = i == 0 ? "" : (i == n - 1 && !cut) ? " or " : ", ";
    q += sprintf(q, "%s%s", sep, parts[i]);
  }
  if (cut) strcpy(q, ", ...");
  return buf;
}

/* "identifier 'x'", "integer literal '3'", "'+'"; long texts are cut
 * (at a UTF-8 character boundary). */
static const char *parser_found(Arena *a, const Token *t) {
  if ((t->kind != TOK_ID && t->kind != TOK_INT && t->kind != TOK_REAL) || !t->text)
    return token_kind_spelling(t->kind);
  size_t n = strlen(t->text), keep = n;
  if (n > 40) {
    keep = 40;
    while (keep > 0 && ((unsigned char)t->text[keep] & 0xC0) == 0x80) keep--;
  }
  return arena_printf(a, "%s '%.*s%s'", token_kind_spelling(t->kind), (int)keep, t->text,
                      keep < n ? "..." : "");
}

/* ------------------------------------------------------ error recovery
 *
 * After a syntax error the parser goes back to the last statement or
 * declaration boundary seen in the same block (a saved copy of lemon's
 * stack), skips tokens up to the ';' that ends the broken statement or the
 * '}' that closes the block, and goes on. Only braces are counted: no ';'
 * can be inside parentheses or brackets, so an unclosed one ends there. A further error is reported only
 * once three tokens have been accepted since, and a syntax error right
 * after a lexical error is taken for its echo. When no boundary is known
 * (or the block of the last one was left) parsing stops: better one
 * message than a cascade.
 */
typedef struct Driver {
  const ParserTables *t;
  void *p;
  ParseState *st;
  void *snap;     /* saved stack entries (malloc'd) */
  size_t snap_cap;
  int snap_n;     /* entries saved; 0 = no usable boundary */
  int filled;     /* entries in snap (snap_n or, past the boundary's block, more) */
  int same;       /* the first `same` of them are the stack's */
  int depth;      /* brace depth since the boundary */
  int good;       /* tokens accepted since the last error */
  int errs_mark;  /* error count at the last boundary, report or resync */
  bool erred;     /* a syntax error was seen (reported or not) */
  bool has_prev;  /* prev holds the last token accepted */
  Token prev;
  bool syncing;   /* skipping the rest of a broken statement */
  bool stopped;
} Driver;

/* After `k` was accepted: remember the stack if this is a statement or
 * declaration boundary (a statement, global declaration or state
 * declaration may start here). */
static void parser_boundary(Driver *D, TokenKind k) {
  if (k == TOK_LBRACE) D->depth++;
  if (k == TOK_RBRACE && --D->depth < 0) D->snap_n = 0; /* left its block */
  if (k != TOK_SEMI && k != TOK_LBRACE && k != TOK_RBRACE && k != TOK_VERSION) return;
  const ParserTables *t = D->t;
  if (!parser_would_shift(t, D->p, TOK_RETURN) && !parser_would_shift(t, D->p, TOK_INPUT) &&
      !parser_would_shift(t, D->p, TOK_OUTPUT))
    return;
  size_t n = (size_t)t->depth(D->p) + 1;
  if (n * t->entry_size > D->snap_cap) {
    size_t cap = 2 * n * t->entry_size;
    void *q = realloc(D->snap, cap);
    if (!q) return;
    D->snap = q;
    D->snap_cap = cap;
  }
  /* only what changed since the last copy: the whole stack at every
   * boundary would be quadratic in the nesting depth */
  size_t same = (size_t)(D->same < D->filled ? D->same : D->filled);
  if (same > n) same = n;
  memcpy((char *)D->snap + same * t->entry_size, (char *)t->stack_base(D->p) + same * t->entry_size,
         (n - same) * t->entry_size);
  D->snap_n = D->filled = D->same = (int)n;
  D->depth = 0;
}

/* Give lemon one token, which leaves the bottom `kept` entries of the
 * stack as they are (parser_would_shift_kept said so): the saved copy
 * stays the stack's up to there (parser_boundary copies only the rest). */
static void parser_feed(Driver *D, int kind, Token tok, int kept) {
  if (kept < D->same) D->same = kept;
  D->t->parse(D->p, kind, tok, D->st);
}

/* Every reserved word with its token, for "did you mean" on a misspelled
 * keyword (`stabilise`). */
static const struct {
  TokenKind kind;
  const char *word;
} parser_keywords[] = {
#define TOK(name, spelling)
#define KEYWORD(name, word, dialects) {TOK_##name, word},
#include "frontend/tokens.def"
#undef KEYWORD
#undef TOK
};

/* The keyword that an identifier found at a syntax error was probably
 * meant to be: one the parser could take here, spelled closely. */
static const char *parser_keyword_for(const Driver *D, const Token *tok) {
  if (tok->kind != TOK_ID || !tok->text) return NULL;
  Suggest s;
  suggest_init(&s, tok->text);
  for (size_t i = 0; i < sizeof parser_keywords / sizeof parser_keywords[0]; i++)
    if (parser_would_shift(D->t, D->p, (int)parser_keywords[i].kind))
      suggest_offer(&s, parser_keywords[i].word);
  return suggest_best(&s);
}

static void parser_report(Driver *D, const Token *tok) {
  ParseState *st = D->st;
  bool quiet = (D->erred && D->good < 3) || diag_error_count(st->diag) != D->errs_mark;
  D->erred = true;
  if (quiet) return;
  const char *expected = parser_expected(st->arena, D->t, D->p, st->dialect);
  if (tok->kind == TOK_EOF) {
    diag_report(st->diag, ERR_SYNTAX_EOF, tok->span, expected);
  } else {
    diag_report(st->diag, ERR_SYNTAX, tok->span, parser_found(st->arena, tok), expected);
    diag_suggest(st->diag, parser_keyword_for(D, tok));
    /* `stabilise;` parses as the start of an assignment: the error comes
     * one token late, so name the misspelled word itself */
    bool position = D->has_prev && D->prev.kind == TOK_ID && D->prev.text &&
                    !strcmp(D->prev.text, "position");
    if (position && tok->kind != TOK_ID)   /* 'position vec2 x' outside the strand state */
      diag_report(st->diag, NOTE_POSITION_CONTEXT, D->prev.span);
    else if (tok->kind != TOK_ID && D->has_prev && D->prev.kind == TOK_ID && D->prev.text) {
      Suggest s;
      suggest_init(&s, D->prev.text);
      for (size_t i = 0; i < sizeof parser_keywords / sizeof parser_keywords[0]; i++)
        suggest_offer(&s, parser_keywords[i].word);
      if (suggest_best(&s))
        diag_report(st->diag, NOTE_KEYWORD_TYPO, D->prev.span, D->prev.text, suggest_best(&s));
    }
  }
  D->errs_mark = diag_error_count(st->diag);
}

/* A ';' forgotten at the end of a line: the parser could take ';' here and
 * the offending token starts a later line. Reported right after the
 * previous token (where the ';' belongs, not at the next line's first
 * token); a ';' is then supplied so that the next statement still parses. */
static bool parser_missing_semi(Driver *D, const Token *tok) {
  int kept = 0;
  if (!D->has_prev || tok->kind == TOK_SEMI || D->prev.kind == TOK_LBRACE ||
      tok->span.begin.line <= D->prev.span.end.line ||
      !parser_would_shift_kept(D->t, D->p, &(int){TOK_SEMI}, 1, &kept))
    return false;
  /* After a block's '}' a ';' is optional punctuation, so a forgotten one
   * can only follow the '}' of an expression (a sequence literal): then
   * the token goes in once the ';' is supplied. */
  int semi_then_tok[2] = {TOK_SEMI, (int)tok->kind};
  if (D->prev.kind == TOK_RBRACE && !parser_would_shift_seq(D->t, D->p, semi_then_tok, 2))
    return false;
  ParseState *st = D->st;
  bool quiet = (D->erred && D->good < 3) || diag_error_count(st->diag) != D->errs_mark;
  D->erred = true;
  SrcPos after = D->prev.span.end;
  Span at = {after, after};
  if (!quiet) diag_report(st->diag, ERR_MISSING_SEMI, at, parser_found(st->arena, &D->prev));
  D->errs_mark = diag_error_count(st->diag);
  Token semi = *tok;
  semi.kind = TOK_SEMI;
  semi.span = at;
  semi.text = NULL;
  parser_feed(D, TOK_SEMI, semi, kept);
  if (st->lemon_failed || st->too_deep) return false;
  D->good = 0;
  parser_boundary(D, TOK_SEMI);
  return true;
}

/* While syncing: true when `tok` ends the skip and must be fed. */
static bool parser_skip(Driver *D, const Token *tok) {
  if (tok->kind == TOK_LBRACE) {
    D->depth++;
  } else if (tok->kind == TOK_RBRACE) {
    if (D->depth == 0) {
      D->syncing = false; /* closes the block of the boundary */
      D->errs_mark = diag_error_count(D->st->diag);
      return true;
    }
    D->depth--;
  } else if (tok->kind == TOK_SEMI && D->depth == 0) {
    D->syncing = false; /* the broken statement is over */
    D->errs_mark = diag_error_count(D->st->diag);
  }
  return false;
}

/* `resumed`: the token ends a skip; if it fails too, give up. */
static void parser_token(Driver *D, const Token *tok, bool resumed) {
  const ParserTables *t = D->t;
  if (D->stopped) return;
  if (D->syncing) {
    if (tok->kind == TOK_EOF) {
      D->stopped = true;
      return;
    }
    if (!parser_skip(D, tok)) return;
    resumed = true;
  }
  if (t->depth(D->p) >= PARSER_MAX_DEPTH) {
    diag_report(D->st->diag, ERR_NESTING_TOO_DEEP, tok->span);
    D->stopped = true;
    return;
  }
  int kind = (int)tok->kind, kept = 0;
  if (kind < 0 || kind >= TOK_COUNT || !parser_would_shift_kept(t, D->p, &kind, 1, &kept)) {
    if (!resumed && parser_missing_semi(D, tok) && parser_would_shift(t, D->p, (int)tok->kind)) {
      parser_token(D, tok, false);
      return;
    }
    parser_report(D, tok);
    if (resumed || D->snap_n == 0 || tok->kind == TOK_EOF) {
      D->stopped = true;
      return;
    }
    memcpy(t->stack_base(D->p), D->snap, (size_t)D->snap_n * t->entry_size);
    t->set_depth(D->p, D->snap_n - 1);
    D->same = D->snap_n;
    D->good = 0;
    D->syncing = true;
    if (parser_skip(D, tok)) parser_token(D, tok, true); /* a '}' closing the block */
    return;
  }
  parser_feed(D, kind, *tok, kept);
  if (D->st->too_deep) diag_report(D->st->diag, ERR_NESTING_TOO_DEEP, tok->span);
  if (D->st->lemon_failed || D->st->too_deep) {
    D->stopped = true;
    return;
  }
  D->good++;
  D->prev = *tok;
  D->has_prev = true;
  /* a lexical error before this point belongs to a finished statement */
  if (tok->kind == TOK_SEMI || tok->kind == TOK_LBRACE || tok->kind == TOK_RBRACE)
    D->errs_mark = diag_error_count(D->st->diag);
  parser_boundary(D, tok->kind);
}

Program *parse_program(Arena *a, DiagCtx *d, const Source *src) {
  int errors_before = diag_error_count(d);
  Span version_span = {{0, 0}, {0, 0}};
  Dialect dialect = lexer_detect_dialect(src, d, &version_span);
  if (dialect != DIALECT_V1 && dialect != DIALECT_V2) return NULL;
  const ParserTables *t = dialect == DIALECT_V2 ? &parser_v2_tables : &parser_v1_tables;
  ParseState st = {.arena = a, .diag = d, .dialect = dialect};
  Lexer *lx = lexer_new(a, d, src, dialect);
  Driver D = {.t = t, .p = t->alloc(malloc), .st = &st, .errs_mark = errors_before};
  if (!D.p) {
    fprintf(stderr, "diderotc: out of memory\n");
    exit(70);
  }
  parser_boundary(&D, TOK_SEMI); /* the start of a 1.0 file is one */
  for (;;) {
    Token tok = lexer_next(lx);
    parser_token(&D, &tok, false);
    if (tok.kind == TOK_EOF || diag_too_many(d)) break;
  }
  t->free(D.p, free);
  free(D.snap);
  if (diag_error_count(d) > errors_before) return NULL;
  if (!st.prog) { /* a safety net: some error must have been reported */
    diag_report(d, ERR_SYNTAX_EOF, version_span, "a complete program");
    return NULL;
  }
  st.prog->version_span = version_span;
  return st.prog;
}
