/* ast.h -- the one abstract syntax tree for both Diderot dialects.
 *
 * The 1.0 and 2.0 grammars both build this tree; after parsing nothing
 * depends on the dialect except `Program.dialect` (kept for messages).
 * 1.0 forms map onto 2.0 ones: `initially [..]` -> create_array,
 * `initially {..}` -> create_collection, `global {..}` -> global update,
 * `load(..)` -> load_sequence, `image(..)` -> load_image, `T{n}` -> T[n],
 * `s{i}` -> s[i], `f{e | x in s}` -> f({e | x in s}) in both dialects.
 *
 * Nodes live in the compilation arena. Lists are intrusive (`next`) with a
 * head/tail wrapper so that grammar actions append in O(1).
 * Fields marked "typechecker" are zero after parsing and filled in by the
 * typechecker; the parser and printer never read them.
 */
#ifndef DIDEROT_FRONTEND_AST_H
#define DIDEROT_FRONTEND_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "frontend/token.h"
#include "util/arena.h"

struct Type;   /* frontend/types.h */
struct Symbol; /* frontend/typecheck.h */

typedef struct AstType AstType;
typedef struct Expr Expr;
typedef struct Stmt Stmt;
typedef struct Decl Decl;
typedef struct Param Param;
typedef struct Iter Iter;

#define AST_LIST(Name, Elem) \
  typedef struct Name {      \
    Elem *head, *tail;       \
    int len;                 \
  } Name
AST_LIST(ExprList, Expr);
AST_LIST(StmtList, Stmt);
AST_LIST(DeclList, Decl);
AST_LIST(ParamList, Param);
AST_LIST(IterList, Iter);

/* ---------------------------------------------------------------- types */

typedef enum AstTypeKind {
  AT_BOOL,
  AT_INT,
  AT_REAL,
  AT_STRING,
  AT_TENSOR, /* tensor[shape]          shape: dims (may be empty) */
  AT_VEC,    /* vec2/vec3/vec4         n */
  AT_MAT,    /* mat2/mat3/mat4         n */
  AT_IMAGE,  /* image(dim)[shape] */
  AT_FIELD,  /* field#k(dim)[shape]    has_cont: #k written */
  AT_KERNEL, /* kernel#k */
  AT_NAMED,  /* a strand name          name */
  AT_SEQ,    /* elem[len] / elem[]     len NULL = dynamic */
} AstTypeKind;

struct AstType {
  AstTypeKind kind;
  Span span;
  int n;             /* AT_VEC, AT_MAT */
  Expr *dim;         /* AT_IMAGE, AT_FIELD: the domain dimension */
  ExprList shape;    /* AT_TENSOR, AT_IMAGE, AT_FIELD */
  bool has_cont;     /* AT_FIELD: '#k' written; AT_KERNEL always true */
  Token cont;        /* AT_FIELD, AT_KERNEL: the INT token of k */
  AstType *elem;     /* AT_SEQ */
  Expr *len;         /* AT_SEQ: NULL for a dynamic sequence */
  const char *name;  /* AT_NAMED */
  int depth;         /* parser: height of this subtree, its expressions included */
  AstType *next;
  struct Type *resolved; /* typechecker */
};

/* ---------------------------------------------------------- expressions */

/* Operators of E_BINARY and E_UNARY. */
typedef enum AstOp {
  OP_OR, OP_AND,                                       /* || && */
  OP_LT, OP_LE, OP_EQ, OP_NE, OP_GE, OP_GT,            /* comparisons */
  OP_ADD, OP_SUB, OP_AT,                               /* + - @ */
  OP_MUL, OP_DIV, OP_MOD,                              /* * / % */
  OP_CONVOLVE, OP_DOT, OP_CROSS, OP_OUTER, OP_DDOT,    /* ⊛ • × ⊗ : */
  OP_COMPOSE,                                          /* ∘ (2.0, rejected later) */
  OP_POW,                                              /* ^ */
  OP_NEG, OP_NOT,                                      /* prefix - ! */
  OP_GRAD, OP_GRAD_OUTER, OP_DIV_FIELD, OP_CURL,       /* ∇ ∇⊗ ∇• ∇× */
  OP__COUNT
} AstOp;

/* The source spelling of an operator ("+", "•", "∇⊗", ...). */
const char *ast_op_spelling(AstOp op);

typedef enum ExprKind {
  E_VAR,          /* name */
  E_KERNEL_CONT,  /* name#k           name, cont */
  E_INT,          /* token: text is the digits */
  E_REAL,         /* token: real value, text the spelling */
  E_STRING,       /* token: decoded bytes */
  E_BOOL,         /* bval */
  E_BINARY,       /* op a b */
  E_UNARY,        /* op a           (-, !, ∇, ∇⊗, ∇•, ∇×) */
  E_COND,         /* a if c else b  a=then, b=else, c=cond */
  E_RANGE,        /* a .. b */
  E_APPLY,        /* a(args)        call, probe, or strand-constructor */
  E_SUBSCRIPT,    /* a[args]        an E_SLICE_ALL element stands for ':' */
  E_SLICE_ALL,    /* ':' inside a subscript */
  E_SELECT,       /* a.name         strand state or strand set */
  E_REAL_CONV,    /* real(a) */
  E_INT_CONV,     /* int(a): real -> int, toward zero (an extension) */
  E_LOAD_SEQ,     /* load_sequence(a) / 1.0 load(a) */
  E_LOAD_IMAGE,   /* load_image(a) / 1.0 image(a) */
  E_IDENTITY,     /* identity[a] */
  E_ZEROS,        /* zeros[args] */
  E_NAN,          /* nan[args]; has_shape false for plain nan */
  E_SEQ,          /* {args}  (possibly empty) */
  E_TENSOR,       /* [args] */
  E_COMPREHENSION,/* {a | iters}    several iterators: an extension */
  E_NORM,         /* |a| */
  E_PAREN,        /* (a): kept so that printing is exact; no semantics */
} ExprKind;

struct Expr {
  ExprKind kind;
  Span span;
  AstOp op;
  Expr *a, *b, *c;
  ExprList args;
  IterList iters;
  const char *name; /* E_VAR, E_KERNEL_CONT, E_SELECT */
  Token tok;        /* E_INT, E_REAL, E_STRING, E_KERNEL_CONT (the k) */
  bool bval;        /* E_BOOL */
  bool has_shape;   /* E_NAN */
  int depth;        /* parser: height of this subtree (bounded, see parser.c) */
  Expr *next;

  /* typechecker */
  struct Type *ty;        /* type after coercion of this node */
  struct Type *coerce_from; /* non-NULL when a coercion was inserted */
  struct Symbol *sym;     /* E_VAR / E_APPLY callee / E_SELECT target */
  const void *builtin;    /* resolved built-in or operator overload */
};

/* An iterator `x in e` (comprehensions, creation, foreach). */
struct Iter {
  Span span;
  const char *name;
  Span name_span;
  Expr *src;
  Iter *next;
  struct Symbol *sym; /* typechecker */
};

/* ----------------------------------------------------------- statements */

typedef enum StmtKind {
  S_BLOCK,     /* body */
  S_IF,        /* cond, then, els (NULL when absent) */
  S_FOREACH,   /* type, iter, then=body */
  S_PRINT,     /* args */
  S_NEW,       /* name, args */
  S_STABILIZE,
  S_DIE,
  S_CONTINUE,
  S_RETURN,    /* expr */
  S_DECL,      /* type, name, expr (NULL = no initializer) */
  S_ASSIGN,    /* name, op (OP__COUNT for plain '='), expr */
} StmtKind;

struct Stmt {
  StmtKind kind;
  Span span;
  StmtList body;
  Expr *cond;
  Stmt *then, *els;
  AstType *type;
  Iter *iter;
  ExprList args;
  const char *name;
  Span name_span;
  AstOp op;
  Expr *expr;
  Stmt *next;
  struct Symbol *sym; /* typechecker: declared / assigned variable */
};

/* ---------------------------------------------------------- declarations */

typedef enum DeclKind {
  D_CONST,      /* const T x = e; */
  D_INPUT,      /* input T x ("desc") = e; */
  D_VAR,        /* T x = e;  (global or strand state) */
  D_FUNC,       /* function T f(params) = e;  or  { ... } */
  D_FIELD_FUNC, /* field#k(d)[σ] F(tensor[d] x) = e; */
} DeclKind;

struct Param {
  Span span;
  AstType *type; /* NULL for the implicit parameter of a field function */
  const char *name;
  Span name_span;
  Param *next;
  struct Symbol *sym; /* typechecker */
};

struct Decl {
  DeclKind kind;
  Span span;
  AstType *type;       /* declared type, or function return type */
  const char *name;
  Span name_span;
  bool is_output;      /* strand state: 'output' */
  bool is_position;    /* strand state: 'position' (an extension) */
  Span position_span;  /* the word 'position' */
  bool has_desc;       /* D_INPUT */
  Token desc;          /* D_INPUT: the description STRING */
  Expr *init;          /* initializer / expression body (NULL if none) */
  const Expr *v1_nonliteral; /* D_INPUT in 1.0: the first part of init that is not a 1.0 literal */
  ParamList params;    /* D_FUNC, D_FIELD_FUNC */
  Stmt *body;          /* D_FUNC with a block body (then init is NULL) */
  Decl *next;
  struct Symbol *sym;  /* typechecker */
};

/* ------------------------------------------------------------- program */

typedef enum MethodKind { M_START, M_UPDATE, M_STABILIZE, M__COUNT } MethodKind;

typedef struct Method {
  MethodKind kind;
  Span span;
  Stmt *body; /* an S_BLOCK */
} Method;

typedef struct StrandDecl {
  Span span;
  const char *name;
  Span name_span;
  ParamList params;
  DeclList state;       /* D_VAR, is_output marks outputs */
  Stmt *init;           /* strand 'initialize' block (2.0) or NULL */
  Method *methods[M__COUNT];
  /* A method written twice: the parser keeps the first and records the
   * span of the duplicate here so the typechecker can report it. */
  Span dup_method_span[M__COUNT];
  bool dup_method[M__COUNT];
} StrandDecl;

typedef enum CreateKind { CREATE_ARRAY, CREATE_COLLECTION } CreateKind;

typedef struct Create {
  CreateKind kind;
  Span span;
  Expr *expr;     /* normally S(args) */
  IterList iters; /* outermost first */
} Create;

typedef struct Program {
  Dialect dialect;
  Span version_span; /* zero when there is no #version line */
  DeclList globals;  /* const, input, globals, functions, field functions */
  Stmt *global_init;   /* 2.0 'initialize' block, or NULL */
  StrandDecl *strand;
  Stmt *global_start;  /* 2.0 'start' block, or NULL */
  Stmt *global_update; /* 2.0 'update' / 1.0 'global' block, or NULL */
  Create *create;
  /* typechecker: one hidden global per file that load_image reads inside
   * an expression (ctmr ⊛ clamp(image("f.nrrd"))), in first-use order;
   * such an E_LOAD_IMAGE has its sym set to it */
  struct Symbol **image_loads;
  int nimage_loads;
} Program;

/* ------------------------------------------------ construction helpers */

Expr *ast_expr(Arena *a, ExprKind k, Span sp);
Stmt *ast_stmt(Arena *a, StmtKind k, Span sp);
Decl *ast_decl(Arena *a, DeclKind k, Span sp);
AstType *ast_type(Arena *a, AstTypeKind k, Span sp);
Param *ast_param(Arena *a, AstType *ty, const char *name, Span name_span);
Iter *ast_iter(Arena *a, const char *name, Span name_span, Expr *src);

void ast_expr_append(ExprList *l, Expr *e);
void ast_stmt_append(StmtList *l, Stmt *s);
void ast_decl_append(DeclList *l, Decl *d);
void ast_param_append(ParamList *l, Param *p);
void ast_iter_append(IterList *l, Iter *it);

#endif
