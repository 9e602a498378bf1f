/* index_expr.h -- integer index expressions for generated array indexing.
 *
 * Expressions are immutable, hash-consed DAGs owned by an IxCtx (structural
 * equality is pointer equality). Builders keep a canonical polynomial form:
 * a sum is a constant plus terms sorted by node id, a term is a coefficient
 * times a sorted product of atoms (variables, div/mod nodes, ...). Builders
 * only do exact algebra (constant folding, collecting like terms,
 * distribution); ix_simplify adds the rewrites that need range facts.
 *
 * Semantics are mathematical: / and % are FLOOR division and modulo (the
 * printer emits C's truncating operators only where the dividend is proven
 * non-negative and the divisor positive), shifts are multiplication /
 * floor division by powers of two, and & is two's-complement AND.
 *
 * Every variable has a range [lo, hi] (hi may be IX_INF, unknown) and may
 * carry a symbolic exclusive bound (`x < N` with N itself a variable) and a
 * known divisor (`align`, e.g. a size padded to a multiple of 16).
 */
#ifndef DIDEROT_LAYOUT_INDEX_EXPR_H
#define DIDEROT_LAYOUT_INDEX_EXPR_H

#include <stdbool.h>
#include <stdint.h>

#include "util/arena.h"

#define IX_INF INT64_MAX
#define IX_NINF INT64_MIN

typedef enum {
  IX_CONST,  /* k */
  IX_VAR,    /* k = variable id */
  IX_ADD,    /* k + arg[0] + ... + arg[n-1] */
  IX_MUL,    /* k * arg[0] * ... * arg[n-1] */
  IX_DIV,    /* floor(arg[0] / arg[1]) */
  IX_MOD,    /* arg[0] - arg[1] * floor(arg[0] / arg[1]) */
  IX_MIN,    /* min(arg[0], arg[1]) */
  IX_MAX,    /* max(arg[0], arg[1]) */
  IX_LT,     /* arg[0] < arg[1] ? 1 : 0 */
  IX_SELECT, /* arg[0] != 0 ? arg[1] : arg[2] */
  IX_ISQRT,  /* floor(sqrt(arg[0])), arg[0] >= 0 */
  IX_SHL,    /* arg[0] << k (only made by ix_lower) */
  IX_SHR,    /* arg[0] >> k (only made by ix_lower) */
  IX_AND     /* arg[0] & k  (only made by ix_lower) */
} IxOp;

typedef struct IxExpr IxExpr;
struct IxExpr {
  IxOp op;
  int n;                    /* number of operands */
  int64_t k;                /* see IxOp */
  const IxExpr *const *arg; /* operands */
  int64_t lo, hi;           /* value range (IX_NINF / IX_INF when unknown) */
  uint32_t hash, id;        /* id: creation order, the canonical sort key */
  const IxExpr *simp;       /* memo of ix_simplify (a cache, not identity) */
  const IxExpr *low;        /* memo of ix_lower */
};

typedef struct IxCtx IxCtx;

IxCtx *ix_ctx_new(Arena *arena);
Arena *ix_arena(IxCtx *c);
/* Set when constant folding overflowed int64; results are then unusable. */
bool ix_overflowed(const IxCtx *c);

/* ---- variables ----------------------------------------------------------
 * lo/hi inclusive (hi may be IX_INF). `bound`, if non-NULL, is an exclusive
 * symbolic upper bound (x < bound). `align` >= 1 is a known divisor of the
 * value (1 when nothing is known). Returns the variable's expression.
 */
const IxExpr *ix_var(IxCtx *c, const char *name, int64_t lo, int64_t hi);
const IxExpr *ix_var_full(IxCtx *c, const char *name, int64_t lo, int64_t hi,
                          const IxExpr *bound, int64_t align);
int ix_nvars(const IxCtx *c);
const char *ix_var_name(const IxCtx *c, int id);
const IxExpr *ix_var_by_name(const IxCtx *c, const char *name);
const IxExpr *ix_var_expr(const IxCtx *c, int id);

/* ---- builders (exact algebra only) -------------------------------------- */
const IxExpr *ix_const(IxCtx *c, int64_t k);
const IxExpr *ix_add(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_sub(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_neg(IxCtx *c, const IxExpr *a);
const IxExpr *ix_mul(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_addk(IxCtx *c, const IxExpr *a, int64_t k);
const IxExpr *ix_mulk(IxCtx *c, const IxExpr *a, int64_t k);
const IxExpr *ix_div(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_mod(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_divk(IxCtx *c, const IxExpr *a, int64_t k);
const IxExpr *ix_modk(IxCtx *c, const IxExpr *a, int64_t k);
const IxExpr *ix_min(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_max(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_lt(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_le(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_select(IxCtx *c, const IxExpr *cond, const IxExpr *a,
                        const IxExpr *b);
const IxExpr *ix_isqrt(IxCtx *c, const IxExpr *a);
/* Shifts by constants and AND with a constant; these canonicalise to
 * mul/div/mod where that is exact (so the simplifier sees one form). */
const IxExpr *ix_shl(IxCtx *c, const IxExpr *a, int sh);
const IxExpr *ix_shr(IxCtx *c, const IxExpr *a, int sh);
const IxExpr *ix_and(IxCtx *c, const IxExpr *a, int64_t mask);

static inline bool ix_is_const(const IxExpr *e) { return e->op == IX_CONST; }
static inline bool ix_is_k(const IxExpr *e, int64_t k) {
  return e->op == IX_CONST && e->k == k;
}

/* ---- evaluation ---------------------------------------------------------
 * env[id] is the value of variable id. False on division by zero, a
 * negative isqrt argument or int64 overflow.
 */
bool ix_eval(const IxExpr *e, const int64_t *env, int64_t *out);
/* Replace variables: map[id] (NULL keeps the variable). */
const IxExpr *ix_subst(IxCtx *c, const IxExpr *e, const IxExpr *const *map);

/* ---- analysis ------------------------------------------------------------ */
/* Proofs from ranges (false means "not proven", not "false"). */
bool ix_prove_le(IxCtx *c, const IxExpr *a, const IxExpr *b);
bool ix_prove_lt(IxCtx *c, const IxExpr *a, const IxExpr *b);
/* a / b when b provably divides a (exact quotient), else NULL. */
const IxExpr *ix_exact_div(IxCtx *c, const IxExpr *a, const IxExpr *b);
/* Weighted operation count (div/mod >> mul > add/shift). */
int ix_cost(const IxExpr *e);
/* Number of nodes of a given op in the tree (for tests: "no div left"). */
int ix_count_op(const IxExpr *e, IxOp op);

/* ---- simplification ------------------------------------------------------ */
/* Range-based rewriting: LEGO's div/mod rules, nested div/mod fusion,
 * a*(x/a) + x%a -> x, min/max/select/compare decided by ranges. Sound on the
 * declared ranges, idempotent. */
const IxExpr *ix_simplify(IxCtx *c, const IxExpr *e);
/* Strength reduction for emission: /2^k, %2^k, *2^k become >>, &, << where
 * the operand is proven non-negative (never otherwise). Apply last. */
const IxExpr *ix_lower(IxCtx *c, const IxExpr *e);

/* ---- hoisting -------------------------------------------------------------- */
/* Does e mention any of vars[0..n)? */
bool ix_depends(const IxExpr *e, const int *vars, int n);
/* Additive split e = *inv + *dep, *inv independent of vars[0..n). */
void ix_split(IxCtx *c, const IxExpr *e, const int *vars, int n,
              const IxExpr **inv, const IxExpr **dep);
/* Maximal non-constant, non-variable subexpressions of e independent of
 * vars[0..n) (candidates for let-binding outside the loop); returns how many
 * were found, writing at most max of them. */
int ix_invariants(const IxExpr *e, const int *vars, int n, const IxExpr **out,
                  int max);

/* ---- printing -------------------------------------------------------------- */
/* C expression text. Uses ix_fdiv/ix_fmod/ix_min/ix_max/ix_isqrt from
 * IX_C_PRELUDE where plain C operators would be wrong or absent. */
const char *ix_to_c(IxCtx *c, const IxExpr *e);
extern const char IX_C_PRELUDE[];

#endif
