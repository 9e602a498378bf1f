/* index_expr_impl.h -- the representation shared by the two halves of the
 * index expressions: index_expr.c (the context, hash consing, ranges, the
 * canonical builders, evaluation and the C printer) and index_simplify.c
 * (provers, the div/mod simplifier, strength reduction and hoisting), which
 * reads variable facts from the context and rebuilds canonical nodes.
 * Not for use outside src/layout.
 */
#ifndef DIDEROT_LAYOUT_INDEX_EXPR_IMPL_H
#define DIDEROT_LAYOUT_INDEX_EXPR_IMPL_H

#include "layout/layout.h"

typedef struct {
  const char *name;
  int64_t lo, hi, align;
  const IxExpr *bound, *expr;
} IxVarInfo;

struct IxCtx {
  Arena *arena;
  IxExpr **tab; /* open addressing; capacity is a power of two */
  size_t cap, count;
  IxVarInfo *vars;
  int nvars, capvars;
  uint32_t next_id;
  bool overflow;
};

/* Floor division and modulo of int64 values (the semantics of IX_DIV and
 * IX_MOD), and log2 of a power of two (-1 otherwise). */
static inline int64_t fdiv64(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static inline int64_t fmod64(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

static inline int log2_exact(int64_t v) {
  if (v <= 0 || (v & (v - 1))) return -1;
  int k = 0;
  while (((int64_t)1 << k) != v) k++;
  return k;
}

/* ---- linear forms: a sum as a constant plus coefficient * monomial terms */
typedef struct { int64_t c; const IxExpr *m; } IxTerm;
typedef struct { int64_t k; IxTerm *t; int n, cap; } IxLin;

void ix_lin_push(IxCtx *c, IxLin *l, int64_t coef, const IxExpr *m);
/* The linear form of e (a sum, a term or an atom). */
void ix_lin_of(IxCtx *c, const IxExpr *e, IxLin *l);
/* The canonical node of a linear form (sorts and merges l's terms). */
const IxExpr *ix_lin_build(IxCtx *c, IxLin *l);
/* coef * m as a canonical term node (m a coefficient-1 monomial). */
const IxExpr *ix_term_node(IxCtx *c, int64_t coef, const IxExpr *m);

/* ---- nodes */
/* The one place nodes are made: no normalisation, only sharing. */
const IxExpr *ix_intern(IxCtx *c, IxOp op, int64_t k, const IxExpr *const *args, int n);
/* e's operator over new operands a, through the canonical builders. */
const IxExpr *ix_rebuild(IxCtx *c, const IxExpr *e, const IxExpr *const *a);
/* a + b, recording int64 overflow in the context. */
int64_t ix_ck_add(IxCtx *c, int64_t a, int64_t b);

#endif
