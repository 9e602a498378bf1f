/* parser_impl.h -- what the two lemon grammars and parser.c share.
 *
 * Both grammars declare every token of tokens.def with %token in the same
 * order, so a lemon terminal code equals its TokenKind (TOK_EOF is lemon's
 * end-of-input code 0); each grammar checks this with static assertions.
 * Grammar actions only build nodes, through the helpers below.
 */
#ifndef DIDEROT_FRONTEND_PARSER_IMPL_H
#define DIDEROT_FRONTEND_PARSER_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "frontend/ast.h"
#include "util/diag.h"

/* The %extra_argument of both parsers. */
typedef struct ParseState {
  Arena *arena;
  DiagCtx *diag;
  Dialect dialect;
  Program *prog; /* set when the start rule is reduced */
  bool lemon_failed; /* lemon itself saw an error (a safety net: tokens are
                        checked before they are fed) or ran out of memory */
  bool too_deep;     /* a node was built above PARSER_MAX_DEPTH (parser.c) */
} ParseState;

/* A bracketed list with the span of its brackets (shapes, argument lists). */
typedef struct PList {
  ExprList items;
  Span span;
} PList;

/* One generated parser, seen through its tables. parser.c uses the tables
 * to check a token before handing it to lemon (so that the reported
 * expected-token list is the one of the state before lemon's default
 * reductions) and to list the tokens acceptable in the current state. */
typedef struct ParserTables {
  void *(*alloc)(void *(*malloc_fn)(size_t));
  void (*free)(void *parser, void (*free_fn)(void *));
  void (*parse)(void *parser, int major, Token minor, ParseState *st);
  int (*depth)(void *parser);               /* entries above the bottom */
  int (*state_at)(void *parser, int i);     /* i = 0 is the top */
  int (*shift_action)(int state, int lookahead);
  int (*goto_action)(int state, int lhs);
  int (*rule_lhs)(int rule);
  int (*rule_len)(int rule);                /* symbols on the right-hand side */
  /* Error recovery saves and restores the stack (entries 0..depth). */
  void *(*stack_base)(void *parser);
  void (*set_depth)(void *parser, int depth);
  size_t entry_size;
  int max_shift, min_shift_reduce, max_shift_reduce;
  int error_action, accept_action, min_reduce;
} ParserTables;

extern const ParserTables parser_v1_tables;
extern const ParserTables parser_v2_tables;

/* ----------------------------------------------- node-building helpers */

const char *parser_name(const Token *t);
Expr *parser_leaf(ParseState *st, ExprKind k, Token t); /* INT REAL STRING */
Expr *parser_var(ParseState *st, Token id);
Expr *parser_kernel_cont(ParseState *st, Token id, Token k);
Expr *parser_bool(ParseState *st, Token t, bool v);
Expr *parser_binary(ParseState *st, AstOp op, Expr *a, Expr *b);
Expr *parser_unary(ParseState *st, AstOp op, Token optok, Expr *a);
Expr *parser_cond(ParseState *st, Expr *then, Expr *cond, Expr *els);
Expr *parser_range(ParseState *st, Expr *lo, Expr *hi);
/* `kind` applied to `a` with bracketed `args`: E_APPLY, E_SUBSCRIPT. */
Expr *parser_suffix(ParseState *st, ExprKind kind, Expr *a, PList args);
Expr *parser_select(ParseState *st, Expr *a, Token id);
/* E_SEQ, E_TENSOR, E_ZEROS, E_NAN (with shape) from a bracketed list. */
Expr *parser_list_expr(ParseState *st, ExprKind kind, Token first, PList l);
/* E_REAL_CONV, E_INT_CONV, E_LOAD_SEQ, E_LOAD_IMAGE, E_IDENTITY, E_NORM, E_PAREN. */
Expr *parser_wrap(ParseState *st, ExprKind kind, Token first, Expr *a, Token last);
/* {body | iterators}: several iterators are an extension (doc/language.md §5.6). */
Expr *parser_comprehension(ParseState *st, Token lbrace, Expr *body, IterList its, Token rbrace);
/* f{e | x in s}: the same tree as f({e | x in s}). */
Expr *parser_apply_comprehension(ParseState *st, Expr *f, Expr *comp);
Expr *parser_nan(ParseState *st, Token t);
Iter *parser_iter(ParseState *st, Token id, Expr *src);

PList parser_plist(Token open, ExprList items, Token close);
/* A one-element list (an INT literal as a 1.0 dimension). */
ExprList parser_list1(Expr *e);

AstType *parser_type_simple(ParseState *st, AstTypeKind k, Token t, int n);
AstType *parser_type_tensor(ParseState *st, Token kw, PList shape);
AstType *parser_type_image(ParseState *st, Token kw, Expr *dim, PList shape);
AstType *parser_type_field(ParseState *st, Token kw, const Token *k, Expr *dim, PList shape);
AstType *parser_type_kernel(ParseState *st, Token kw, Token k);
AstType *parser_type_named(ParseState *st, Token id);
AstType *parser_type_seq(ParseState *st, AstType *elem, Expr *len, Token close);

Stmt *parser_block(ParseState *st, Token lbrace, StmtList body, Token rbrace);
Stmt *parser_if(ParseState *st, Token kw, Expr *cond, Stmt *then, Stmt *els);
Stmt *parser_foreach(ParseState *st, Token kw, AstType *ty, Iter *it, Stmt *body);
Stmt *parser_args_stmt(ParseState *st, StmtKind k, Token kw, const Token *id, ExprList args,
                       Token semi);
Stmt *parser_simple_stmt(ParseState *st, StmtKind k, Token kw, Expr *e, Token semi);
Stmt *parser_decl_stmt(ParseState *st, AstType *ty, Token id, Expr *init, Token semi);
Stmt *parser_assign(ParseState *st, Token id, AstOp op, Expr *e, Token semi);

Decl *parser_var_decl(ParseState *st, DeclKind k, Span begin, AstType *ty, Token id,
                      Expr *init, Token semi);
/* Mark d as the strand's position variable (the word q must be
 * 'position'; anything else is an error at q). */
void parser_state_position(ParseState *st, Decl *d, Token q);
Decl *parser_input_decl(ParseState *st, Token kw, AstType *ty, Token id, const Token *desc,
                        Expr *init, Token semi);
Decl *parser_func_decl(ParseState *st, Token kw, AstType *ty, Token id, ParamList params,
                       Expr *body_expr, Stmt *body, Span end);
Decl *parser_field_func(ParseState *st, AstType *ty, Token id, Param *p, Expr *e, Token semi);

StrandDecl *parser_strand_begin(ParseState *st);
void parser_strand_method(ParseState *st, StrandDecl *s, MethodKind k, Token kw, Stmt *body);
StrandDecl *parser_strand_end(StrandDecl *s, Token kw, Token id, ParamList params,
                              DeclList state, Stmt *init, Token rbrace);
Create *parser_create(ParseState *st, CreateKind k, Token kw, Expr *e, IterList iters,
                      Token close);

/* 1.0 restricts input initializers to literals (doc/language.md §11):
 * records the first sub-expression beyond them in d->v1_nonliteral (the
 * typechecker accepts it as an extension, rejected by --strict). */
void parser_v1_check_input_init(Decl *d);

#endif
