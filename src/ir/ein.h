/* ein.h -- EIN operators λ params ⟨e⟩_σ and their index expressions.
 *
 * An EIN operator describes one tensor (or tensor field) by the expression e
 * that computes a single component; σ lists the extents of the result's index
 * variables, which are the variables 0..|σ|-1 in e. Every other index
 * variable is bound by a summation Σ inside e. (Seed paper 004, §4, Fig. 2.)
 *
 * Expressions are immutable and hash-consed in an EinContext: two
 * structurally equal expressions built in the same context are the same
 * pointer, so comparing, value-numbering and memoizing cost a pointer
 * compare. Operators are hash-consed as well.
 *
 * Index variables are plain integers. Constructors accept any scoped
 * numbering (a Σ binder shadows an equal outer variable); ein_op_new()
 * renumbers bound variables by binding site, i.e. by nesting depth: σ binds
 * 0..|σ|-1, and a Σ whose nearest enclosing binders bind variables 0..d-1
 * binds d, d+1, ... So α-equivalent operators are the same pointer and
 * ⟨Σ_k U_k V_k⟩ reads the same wherever it appears at the same depth.
 *
 * Constant factors are either exact rationals (int64 num/den, reduced) or
 * doubles. Nothing here simplifies: constructors build exactly what they are
 * asked for (except that a 1-element sum/product is its element); see
 * src/opt/ein_normalize.h for the rewrite system.
 */
#ifndef DIDEROT_IR_EIN_H
#define DIDEROT_IR_EIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/arena.h"

enum {
  EIN_MAX_RANK = 8,  /* tensor order of a parameter or an operator */
  EIN_MAX_DIM = 3,   /* field dimension */
  EIN_VAR_LIMIT = 63 /* index variables >= this are tracked conservatively */
};

/* One index: a variable (>= 0) or a constant c (stored as -1-c). */
typedef int32_t EinIdx;
static inline EinIdx ein_ivar(int v) { return (EinIdx)v; }
static inline EinIdx ein_icon(int c) { return (EinIdx)(-1 - c); }
static inline bool ein_idx_is_var(EinIdx x) { return x >= 0; }
/* The variable number or the constant. */
static inline int ein_idx_val(EinIdx x) { return x >= 0 ? (int)x : (int)(-1 - x); }

/* The math functions of EIN (lifted to scalar fields by the language). */
#define EIN_FUNS(X)                                                          \
  X(SQRT, "sqrt") X(EXP, "exp") X(LOG, "log") X(SIN, "sin") X(COS, "cos")    \
  X(TAN, "tan") X(ASIN, "asin") X(ACOS, "acos") X(ATAN, "atan")              \
  X(ABS, "abs") X(SIGN, "sign")

typedef enum EinFun {
#define EIN_X(id, name) EIN_FUN_##id,
  EIN_FUNS(EIN_X)
#undef EIN_X
  EIN_FUN_COUNT
} EinFun;

const char *ein_fun_name(EinFun f);

typedef enum EinTag {
  EIN_CONST,  /* c: rational or real constant */
  EIN_DELTA,  /* δ_ab (idx[0..2)) */
  EIN_EPS,    /* ε_ab or ε_abc (Levi-Civita, 2 or 3 indices) */
  EIN_TENSOR, /* T_α: tensor parameter `param` indexed by idx */
  EIN_FIELD,  /* F_α: field parameter `param` indexed by idx */
  EIN_CONV,   /* V_α ⊛ H^β: image `param`, kernel `param2`, α = idx, β = idx2 */
  EIN_LIFT,   /* lift(e): a tensor expression used as a constant field */
  EIN_FUN,    /* fun(e) */
  EIN_POW,    /* e^power (integer power) */
  EIN_NEG,    /* -e */
  EIN_ADD,    /* e1 + ... + en, n >= 2 */
  EIN_SUB,    /* e1 - e2 */
  EIN_MUL,    /* e1 * ... * en, n >= 2 */
  EIN_DIV,    /* e1 / e2 (componentwise scalar division) */
  EIN_SUM,    /* Σ_{bind} e */
  EIN_DIFF,   /* ∂/∂x_{idx[0]} e */
  EIN_PROBE,  /* e @ P: field e probed at the position held by tensor `param` */
  EIN_TAG_COUNT
} EinTag;

typedef struct EinConst {
  bool is_real;
  int64_t num, den; /* rational: den > 0, gcd(num, den) = 1 */
  double real;      /* is_real */
} EinConst;

/* A Σ binder: variable `var` ranges over lo..hi inclusive. */
typedef struct EinBinder {
  int var, lo, hi;
} EinBinder;

/* Cached properties of a node. */
enum {
  EIN_FL_FIELD = 1u << 0,  /* a field expression: FIELD, CONV or LIFT not under a probe */
  EIN_FL_VARIES = 1u << 1, /* depends on the position: FIELD or CONV not under a probe */
  EIN_FL_BINDS = 1u << 2,  /* contains a Σ */
  EIN_FL_PROBE = 1u << 3,  /* contains a probe */
  EIN_FL_DIFF = 1u << 4    /* contains a ∂ */
};

typedef struct EinExpr EinExpr;
struct EinExpr {
  EinTag tag;
  uint16_t flags;
  uint8_t fun; /* EinFun for EIN_FUN */
  int power;   /* EIN_POW */
  int param;   /* TENSOR/FIELD: parameter; CONV: image; PROBE: position */
  int param2;  /* CONV: kernel parameter */
  int nkids;
  const EinExpr *const *kids;
  int nidx;
  const EinIdx *idx;
  int nidx2;
  const EinIdx *idx2;
  int nbind;
  const EinBinder *bind;
  EinConst c;
  uint32_t hash;
  uint32_t size; /* nodes as a tree (saturates at UINT32_MAX) */
  uint64_t fv;   /* free variables v < EIN_VAR_LIMIT; bit 63: some v >= 63 may be free */
};

typedef enum EinParamKind {
  EIN_PARAM_TENSOR, /* shape */
  EIN_PARAM_FIELD,  /* dim, shape */
  EIN_PARAM_IMAGE,  /* dim, shape (voxel shape) */
  EIN_PARAM_KERNEL  /* dim = continuity (informative only) */
} EinParamKind;

typedef struct EinParam {
  EinParamKind kind;
  int dim;
  int rank;
  int shape[EIN_MAX_RANK];
} EinParam;

EinParam ein_param_tensor(int rank, const int *shape);
EinParam ein_param_field(int dim, int rank, const int *shape);
EinParam ein_param_image(int dim, int rank, const int *shape);
EinParam ein_param_kernel(int continuity);

typedef struct EinOp {
  int nparams;
  const EinParam *params;
  int nsigma;
  const int *sigma; /* extent of result index variable v (0..sigma[v]-1) */
  const EinExpr *body;
  uint32_t hash;
} EinOp;

typedef struct EinContext EinContext;

/* The context and everything it builds live in arena `a`. */
EinContext *ein_context_new(Arena *a);
Arena *ein_context_arena(const EinContext *c);
/* Distinct expression nodes created so far (for --stats). */
size_t ein_context_node_count(const EinContext *c);

/* ---- constructors (all results are hash-consed) ---- */
const EinExpr *ein_const_int(EinContext *c, int64_t n);
const EinExpr *ein_const_rat(EinContext *c, int64_t num, int64_t den); /* den != 0 */
const EinExpr *ein_const_real(EinContext *c, double x);
const EinExpr *ein_const(EinContext *c, EinConst k);
const EinExpr *ein_delta(EinContext *c, EinIdx a, EinIdx b);
const EinExpr *ein_eps2(EinContext *c, EinIdx a, EinIdx b);
const EinExpr *ein_eps3(EinContext *c, EinIdx a, EinIdx b, EinIdx d);
const EinExpr *ein_eps(EinContext *c, int n, const EinIdx *idx); /* n = 2 or 3 */
const EinExpr *ein_tensor(EinContext *c, int param, int n, const EinIdx *idx);
const EinExpr *ein_field(EinContext *c, int param, int n, const EinIdx *idx);
const EinExpr *ein_conv(EinContext *c, int image, int kernel, int n, const EinIdx *alpha,
                        int nbeta, const EinIdx *beta);
const EinExpr *ein_lift(EinContext *c, const EinExpr *e);
const EinExpr *ein_fun(EinContext *c, EinFun f, const EinExpr *e);
const EinExpr *ein_pow(EinContext *c, const EinExpr *e, int power);
const EinExpr *ein_neg(EinContext *c, const EinExpr *e);
/* n == 0: the neutral element; n == 1: kids[0]. */
const EinExpr *ein_add(EinContext *c, int n, const EinExpr *const *kids);
const EinExpr *ein_mul(EinContext *c, int n, const EinExpr *const *kids);
const EinExpr *ein_add2(EinContext *c, const EinExpr *a, const EinExpr *b);
const EinExpr *ein_mul2(EinContext *c, const EinExpr *a, const EinExpr *b);
const EinExpr *ein_sub(EinContext *c, const EinExpr *a, const EinExpr *b);
const EinExpr *ein_div(EinContext *c, const EinExpr *a, const EinExpr *b);
/* n == 0 gives body. */
const EinExpr *ein_sum(EinContext *c, int n, const EinBinder *bind, const EinExpr *body);
const EinExpr *ein_sum1(EinContext *c, int var, int lo, int hi, const EinExpr *body);
const EinExpr *ein_diff(EinContext *c, EinIdx i, const EinExpr *e);
const EinExpr *ein_probe(EinContext *c, const EinExpr *e, int pos_param);

/* The same node with its children (nkids of them) replaced. */
const EinExpr *ein_with_kids(EinContext *c, const EinExpr *e, const EinExpr *const *kids);

/* ---- queries ---- */
bool ein_is_const(const EinExpr *e);
bool ein_is_int(const EinExpr *e, int64_t n); /* the rational constant n */
bool ein_is_field(const EinExpr *e);
bool ein_varies(const EinExpr *e);
/* Whether variable v may be free in e (exact for v < EIN_VAR_LIMIT). */
bool ein_free_in(const EinExpr *e, int v);
/* A variable (< EIN_VAR_LIMIT) in none of `avoid` (a bit set); -1 if none is left. */
int ein_fresh_var(uint64_t avoid);
static inline uint64_t ein_var_bit(int v) {
  return v < EIN_VAR_LIMIT ? (uint64_t)1 << v : (uint64_t)1 << EIN_VAR_LIMIT;
}
/* The largest variable occurring anywhere in e (free, bound or binding,
 * including those past EIN_VAR_LIMIT); -1 if none. */
int ein_max_var(const EinExpr *e);
/* Value of a constant node as a double. */
double ein_const_value(const EinExpr *e);

/* Exact rational arithmetic on constants; a result that overflows int64
 * becomes real. Division by an exact 0 returns false. */
EinConst ein_k_add(EinConst a, EinConst b);
EinConst ein_k_mul(EinConst a, EinConst b);
EinConst ein_k_neg(EinConst a);
bool ein_k_div(EinConst a, EinConst b, EinConst *out);
EinConst ein_k_int(int64_t n);

/* ---- substitution on index variables ---- */
/* Simultaneous, capture-avoiding substitution of variables from[k] by to[k]
 * (k < n) in the free variables of e. Bound variables that would capture a
 * substituted variable are renamed. */
const EinExpr *ein_subst(EinContext *c, const EinExpr *e, int n, const int *from,
                         const EinIdx *to);
/* Renumber Σ binders by binding site, given that variables 0..depth-1 are
 * bound outside e. */
const EinExpr *ein_canon_vars(EinContext *c, const EinExpr *e, int depth);
/* Replace every parameter number p by map[p] (map covers every parameter). */
const EinExpr *ein_map_params(EinContext *c, const EinExpr *e, const int *map);

/* ---- operators ---- */
/* Builds (and hash-conses) λ params ⟨body⟩_σ; renumbers body's Σ binders
 * by binding site. */
const EinOp *ein_op_new(EinContext *c, int nparams, const EinParam *params, int nsigma,
                        const int *sigma, const EinExpr *body);
/* Whether the operator yields a field (its body is a field expression). */
bool ein_op_is_field(const EinOp *op);
/* The dimension of the fields in op (0 when it has none). */
int ein_op_field_dim(const EinOp *op);
/* Well-formedness: parameter references in range and of the right kind and
 * rank, no free variables beyond σ, sane Σ bounds, probes applied to field
 * expressions at a tensor[d] position, ∂ and ⊛ only in field expressions.
 * On failure writes a reason to err (if non-NULL) and returns false. */
bool ein_op_check(const EinOp *op, char *err, size_t errlen);
/* Fusion: substitute operator `inner` for parameter `param` of `outer`.
 * The parameters of inner take param's place in the list (the later ones
 * shift). Returns NULL if inner's result does not match the parameter's
 * type (tensor shape, or field dimension and shape), or if the parameter is
 * a probe position (positions are parameters, never expressions). */
const EinOp *ein_op_subst(EinContext *c, const EinOp *outer, int param, const EinOp *inner);
/* Nodes in the body counted as a tree (saturating). */
size_t ein_op_size(const EinOp *op);

/* ---- printing (ein_print.c) ----
 * A stable, readable form, e.g. λT0,T1⟨Σ_{k=0..2} T0[k]*T1[k]⟩_{}.
 * Parameters print as a kind letter (T tensor, F field, V image, H kernel)
 * and their position; index variables as i j k l m n p q r s t u v w, then
 * i14, i15, ...; constant indices as numbers. EIN_PRINT_ASCII avoids
 * non-ASCII characters (\ for λ, <...>, sum, d_, delta, eps, (*)). */
enum { EIN_PRINT_ASCII = 1 };
char *ein_expr_str(Arena *a, const EinExpr *e, unsigned flags);
char *ein_op_str(Arena *a, const EinOp *op, unsigned flags);
void ein_op_fprint(FILE *out, const EinOp *op, unsigned flags);

#endif
