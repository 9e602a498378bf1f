/* ast.c -- AST node construction (used by the grammar actions). */
#include "frontend/ast.h"

static const char *const ast_op_names[OP__COUNT] = {
    [OP_OR] = "||",      [OP_AND] = "&&",     [OP_LT] = "<",        [OP_LE] = "<=",
    [OP_EQ] = "==",      [OP_NE] = "!=",      [OP_GE] = ">=",       [OP_GT] = ">",
    [OP_ADD] = "+",      [OP_SUB] = "-",      [OP_AT] = "@",        [OP_MUL] = "*",
    [OP_DIV] = "/",      [OP_MOD] = "%",      [OP_CONVOLVE] = "⊛",  [OP_DOT] = "•",
    [OP_CROSS] = "×",    [OP_OUTER] = "⊗",    [OP_DDOT] = ":",      [OP_COMPOSE] = "∘",
    [OP_POW] = "^",      [OP_NEG] = "-",      [OP_NOT] = "!",       [OP_GRAD] = "∇",
    [OP_GRAD_OUTER] = "∇⊗", [OP_DIV_FIELD] = "∇•", [OP_CURL] = "∇×",
};

const char *ast_op_spelling(AstOp op) {
  return (op >= 0 && op < OP__COUNT) ? ast_op_names[op] : "=";
}

Expr *ast_expr(Arena *a, ExprKind k, Span sp) {
  Expr *e = ARENA_NEW(a, Expr);
  e->kind = k;
  e->span = sp;
  return e;
}

Stmt *ast_stmt(Arena *a, StmtKind k, Span sp) {
  Stmt *s = ARENA_NEW(a, Stmt);
  s->kind = k;
  s->span = sp;
  s->op = OP__COUNT;
  return s;
}

Decl *ast_decl(Arena *a, DeclKind k, Span sp) {
  Decl *d = ARENA_NEW(a, Decl);
  d->kind = k;
  d->span = sp;
  return d;
}

AstType *ast_type(Arena *a, AstTypeKind k, Span sp) {
  AstType *t = ARENA_NEW(a, AstType);
  t->kind = k;
  t->span = sp;
  return t;
}

Param *ast_param(Arena *a, AstType *ty, const char *name, Span name_span) {
  Param *p = ARENA_NEW(a, Param);
  p->type = ty;
  p->name = name;
  p->name_span = name_span;
  p->span = ty ? span_join(ty->span, name_span) : name_span;
  return p;
}

Iter *ast_iter(Arena *a, const char *name, Span name_span, Expr *src) {
  Iter *it = ARENA_NEW(a, Iter);
  it->name = name;
  it->name_span = name_span;
  it->src = src;
  it->span = src ? span_join(name_span, src->span) : name_span;
  return it;
}

#define AST_APPEND(fn, List, Elem)       \
  void fn(List *l, Elem *x) {            \
    x->next = NULL;                      \
    if (l->tail) l->tail->next = x;      \
    else l->head = x;                    \
    l->tail = x;                         \
    l->len++;                            \
  }
AST_APPEND(ast_expr_append, ExprList, Expr)
AST_APPEND(ast_stmt_append, StmtList, Stmt)
AST_APPEND(ast_decl_append, DeclList, Decl)
AST_APPEND(ast_param_append, ParamList, Param)
AST_APPEND(ast_iter_append, IterList, Iter)
