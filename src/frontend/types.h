/* types.h -- Diderot types (doc/language.md §4.1, §4.2) and the type schemes
 * of the built-in operators (§5, §10 there).
 *
 * Two layers:
 *  - `Type`: the concrete types the typechecker stores on the AST
 *    (Expr.ty, AstType.resolved, Symbol.ty). Shapes are always normalised:
 *    dimensions of 1 are dropped, so tensor[1], tensor[1,1] and real are
 *    the same `Type` shape (order 0). Types are immutable once built, except
 *    for the one kind of meta-variable that can occur in a program's own
 *    expressions: the element type of `{}` (TY_VAR), bound by unification.
 *  - `Scheme`: a built-in signature from basis.def with meta-variables for
 *    types (T), dimensions (d n m p), shapes (σ α β; "σ extended by d" is
 *    the shape [σ,d]) and continuity (k, with an offset for k-1). A scheme
 *    is parsed once; every use matches it with a fresh `Subst`, which is
 *    what "fresh meta-variables per use" means here.
 *
 * Later phases read: kind, shape, dim, cont, elem/len, name. They never see
 * TY_VAR (the typechecker substitutes all bindings before it returns, see
 * type_zonk) and never see TY_ERROR in a program that typechecked.
 */
#ifndef DIDEROT_FRONTEND_TYPES_H
#define DIDEROT_FRONTEND_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"

typedef enum TypeKind {
  TY_ERROR,  /* an already reported error: absorbs further errors */
  TY_BOOL,
  TY_INT,
  TY_STRING,
  TY_TENSOR, /* shape; real is the order-0 tensor */
  TY_SEQ,    /* elem, len (TYPE_SEQ_DYNAMIC for T[]) */
  TY_IMAGE,  /* dim, shape */
  TY_FIELD,  /* cont, dim, shape */
  TY_KERNEL, /* cont */
  TY_BORDER, /* a border input (an extension, doc/language.md §6.9): clamp, mirror or wrap */
  TY_STRAND, /* name */
  TY_FUN,    /* params -> result (user functions; never written in source) */
  TY_VAR,    /* a type meta-variable (element type of `{}`) */
} TypeKind;

/* Continuity of `field(d)[σ]` with no #k: infinitely differentiable. */
#define TYPE_CONT_INF 0x3fffffff
#define TYPE_SEQ_DYNAMIC (-1)

/* Implementation limits (ERR_TYPE_LIMIT, ERR_TENSOR_TOO_LARGE): sizes and
 * their products stay far inside int, and constant folding and generated
 * code stay finite. The language itself sets no upper bounds. */
#define TYPE_MAX_DIM (1 << 20)        /* one tensor-shape dimension */
#define TYPE_MAX_COMPONENTS (1 << 20) /* product of a tensor shape */
#define TYPE_MAX_IDENTITY (1 << 10)   /* n of identity[n] */
#define TYPE_MAX_SEQ_LEN (1 << 30)    /* n of T[n] */
#define TYPE_MAX_CONT 1000            /* k of field#k, kernel#k, h#k */

/* A normalised tensor shape: every dimension is >= 2. */
typedef struct Shape {
  int order;
  const int *dims;
} Shape;

typedef struct TypeVarCell TypeVarCell;
typedef struct Type Type;

struct Type {
  TypeKind kind;
  Shape shape;            /* TENSOR; IMAGE, FIELD: the range shape */
  int dim;                /* IMAGE, FIELD: domain dimension 1..3 */
  int cont;               /* FIELD, KERNEL: k, or TYPE_CONT_INF */
  const Type *elem;       /* SEQ */
  int len;                /* SEQ: length, or TYPE_SEQ_DYNAMIC */
  const char *name;       /* STRAND */
  int nparams;            /* FUN */
  const Type *const *params;
  const Type *result;
  TypeVarCell *var;       /* VAR */
};

struct TypeVarCell {
  const Type *bound; /* NULL while unbound */
  int id;
};

/* Bindings made by a tentative unification, so that a failed overload
 * candidate can be undone. */
#define TYPE_TRAIL_MAX 32
typedef struct TypeTrail {
  TypeVarCell *cells[TYPE_TRAIL_MAX];
  int n;
} TypeTrail;

/* Per-compilation type factory: the arena and shared basic types. */
typedef struct TypeCtx {
  Arena *arena;
  const Type *t_error, *t_bool, *t_int, *t_string, *t_real;
  int next_var;
  /* shared tensor[n] and tensor[n,m] for n, m <= 4 (the common ones) */
  const Type *small_tensor[5][5];
} TypeCtx;

void type_ctx_init(TypeCtx *tc, Arena *a);

/* ---- construction (shapes are normalised here) ---- */
const Type *type_tensor(TypeCtx *tc, int order, const int *dims);
const Type *type_tensor_shape(TypeCtx *tc, Shape s);
const Type *type_vec(TypeCtx *tc, int n);      /* tensor[n] */
const Type *type_seq(TypeCtx *tc, const Type *elem, int len);
const Type *type_image(TypeCtx *tc, int dim, Shape s);
const Type *type_field(TypeCtx *tc, int cont, int dim, Shape s);
const Type *type_kernel(TypeCtx *tc, int cont);
const Type *type_border(TypeCtx *tc);
const Type *type_strand(TypeCtx *tc, const char *name);
const Type *type_fun(TypeCtx *tc, int nparams, const Type *const *params, const Type *result);
const Type *type_var(TypeCtx *tc);
/* `s` without its dimensions of 1, copied into the arena when needed. */
Shape shape_normalize(TypeCtx *tc, int order, const int *dims);
/* [a..., b...] (normalised: a and b already are). */
Shape shape_concat(TypeCtx *tc, Shape a, Shape b);
bool shape_equal(Shape a, Shape b);
/* Product of the dimensions (1 for scalars), saturated at INT_MAX. */
int shape_size(Shape s);
/* "[d1,d2,...]" (at most 32 dimensions, then ",..."), for messages. */
const char *shape_str(Arena *a, int order, const int *dims);

/* ---- queries ---- */
/* Follow meta-variable bindings. */
const Type *type_prune(const Type *t);
bool type_is_error(const Type *t);
/* Contains an error type anywhere (e.g. an element). */
bool type_has_error(const Type *t);
bool type_is_real(const Type *t);   /* tensor[] */
bool type_is_scalar_field(const Type *t);
/* Value types (§3.1): bool int string tensors, fixed sequences of value
 * types, dynamic sequences of fixed-size value types. Strands are allowed
 * only as sequence elements (`strand_elems`). */
bool type_is_value(const Type *t);
bool type_is_value_or_strand_seq(const Type *t);
/* Fixed size: every value type except dynamic sequences (and none inside). */
bool type_has_fixed_size(const Type *t);
/* Structural equality after pruning (unbound variables equal only
 * themselves). */
bool type_equal(const Type *a, const Type *b);

/* ---- unification and coercion (§3.3) ---- */
/* Make a and b equal by binding meta-variables (recorded in `trail` when
 * non-NULL). Error types unify with anything. */
bool type_unify(const Type *a, const Type *b, TypeTrail *trail);
void type_trail_undo(TypeTrail *trail, int mark);

typedef enum Coercion {
  COERCE_FAIL,  /* no conversion exists */
  COERCE_EQUAL, /* the types are equal (after unification) */
  COERCE_OK,    /* int -> real, T[n] -> T[] (elementwise int->real inside
                   fixed sequences), field#k -> field#k' with k' <= k */
} Coercion;
Coercion type_coerce(const Type *from, const Type *to, TypeTrail *trail);
/* The common type of a and b for conditional branches and sequence
 * elements: whichever the other coerces to; NULL if none. */
const Type *type_join(const Type *a, const Type *b, TypeTrail *trail);

/* Replace bound meta-variables by their values, deeply; unbound ones
 * become `dflt`. Returns t itself when it contains no variable. */
const Type *type_zonk(TypeCtx *tc, const Type *t, const Type *dflt);

/* ---- printing (the convention of diagnostics.def) ---- */
/* Writes into buf (always NUL-terminated); returns buf. */
char *type_print(const Type *t, char *buf, size_t n);
const char *type_str(Arena *a, const Type *t);
/* "(t1, t2)" */
const char *type_list_str(Arena *a, const Type *const *ts, int n);

/* ---- built-in type schemes ---- */

enum { SCHEME_NDIMVARS = 4, SCHEME_NSHAPEVARS = 3 };

/* A dimension in a scheme: a constant (var < 0) or a dimension variable
 * (d n m p = 0 1 2 3). */
typedef struct PDim {
  int value;
  int var;
} PDim;

/* Items of a shape, with at most one shape variable (σ α β = 0 1 2)
 * standing for any list of dimensions before items[spos]. */
typedef struct PShape {
  int n;
  PDim *items;
  int svar; /* -1: none */
  int spos;
} PShape;

typedef enum PContKind { PC_CONST, PC_INF, PC_VAR } PContKind;
typedef struct PCont {
  PContKind kind;
  int value;  /* PC_CONST */
  int offset; /* PC_VAR: k + offset (0 or -1) */
} PCont;

typedef struct PType PType;
struct PType {
  TypeKind kind; /* TY_VAR: the type variable T */
  PShape shape;  /* TENSOR, IMAGE, FIELD */
  PDim dim;      /* IMAGE, FIELD */
  PCont cont;    /* FIELD, KERNEL */
  const PType *elem; /* SEQ */
  bool dynamic;      /* SEQ */
  PDim len;          /* SEQ, fixed */
};

typedef struct Scheme {
  int nparams;
  const PType **params;
  const PType *result;
} Scheme;

/* Parse a basis.def signature (grammar in basis.h). On a syntax error
 * returns NULL and writes a one-line reason into err. */
Scheme *basis_parse_signature(Arena *a, const char *sig, char *err, size_t errlen);

/* The bindings of one use of a scheme. */
typedef struct Subst {
  bool dim_set[SCHEME_NDIMVARS];
  int dim[SCHEME_NDIMVARS];
  bool shape_set[SCHEME_NSHAPEVARS];
  Shape shape[SCHEME_NSHAPEVARS];
  bool cont_set;   /* k fixed exactly (exact pass, or by a kernel) */
  int cont;
  bool cont_bounded; /* coercion pass: k <= cont_upper (field arguments) */
  int cont_upper;
  const Type *tvar;
  TypeTrail trail;
} Subst;

typedef enum SchemeMatch {
  SCHEME_OK,
  SCHEME_FAIL,
  SCHEME_NEG_CONT, /* matched, but the result continuity is < 0 */
} SchemeMatch;

/* Match the parameters of `s` against the argument types, exactly
 * (coerce = false) or allowing the coercions of §3.3. With coercions, a
 * continuity variable shared by field arguments becomes the minimum of
 * their continuities (the min rule of Q3). On success `params_out[i]`
 * (may be NULL) receives the instantiated parameter types (an argument
 * needs a coercion where it differs) and *result_out the result type.
 * Meta-variables bound in failed attempts are undone. */
SchemeMatch scheme_match(TypeCtx *tc, const Scheme *s, const Type *const *args, int nargs,
                         bool coerce, const Type **params_out, const Type **result_out);

/* A scheme type printed with its variable names ("tensor[σ]"), for
 * messages about single-signature built-ins. */
const char *scheme_type_str(Arena *a, const PType *p);

#endif
