/* ein_normalize_impl.h -- shared by the files of the EIN rewrite system
 * (ein_normalize.c: driver; ein_rules_arith.c, ein_rules_calc.c,
 * ein_rules_index.c: the rule families). Not for use outside src/opt.
 */
#ifndef DIDEROT_OPT_EIN_NORMALIZE_IMPL_H
#define DIDEROT_OPT_EIN_NORMALIZE_IMPL_H

#include "opt/ein_normalize.h"

/* State of one normalization call. */
typedef struct EinNorm {
  EinContext *c;
  Arena *arena;
  unsigned long steps, limit;
  bool stopped;
  unsigned long fired[EIN_RULE_COUNT];
  /* memo: expression -> its normal form (open addressing on the node hash) */
  const EinExpr **mkey, **mval;
  size_t mcap, mcount;
} EinNorm;

/* A rule: the rewritten expression, or NULL when it does not apply. Rules
 * may build non-normal subterms; the driver normalizes the result. */
typedef const EinExpr *(*EinRuleFn)(EinNorm *n, const EinExpr *e);

#define EIN_X(id, name, tag, fn) const EinExpr *ein_rule_##fn(EinNorm *n, const EinExpr *e);
EIN_RULES(EIN_X)
#undef EIN_X

/* ---- helpers shared by the rule families ---- */
static inline const EinExpr *ein_n_int(EinNorm *n, int64_t k) { return ein_const_int(n->c, k); }

/* Exact zero / one (rational or real). */
static inline bool ein_n_is_zero(const EinExpr *e) {
  return e->tag == EIN_CONST && (e->c.is_real ? e->c.real == 0.0 : e->c.num == 0);
}
static inline bool ein_n_is_one(const EinExpr *e) {
  return e->tag == EIN_CONST && (e->c.is_real ? e->c.real == 1.0 : (e->c.num == 1 && e->c.den == 1));
}

/* Arena array of n expression pointers. */
static inline const EinExpr **ein_n_kids(EinNorm *n, int count) {
  return ARENA_NEW_ARRAY(n->arena, const EinExpr *, count > 0 ? count : 1);
}

/* The binder of variable v in e (a SUM), or NULL. */
static inline const EinBinder *ein_n_binder(const EinExpr *e, int v) {
  for (int b = 0; b < e->nbind; b++)
    if (e->bind[b].var == v) return &e->bind[b];
  return NULL;
}

/* Σ_{e's binders minus variable v} body. */
const EinExpr *ein_n_sum_without(EinNorm *n, const EinExpr *sum, int v, const EinExpr *body);
/* Rename the binders of sum that are in `avoid` (a variable bit set) to
 * fresh variables; NULL if no fresh variable is left. */
const EinExpr *ein_n_rename_binders(EinNorm *n, const EinExpr *sum, uint64_t avoid);
/* e with ∂ and ⊛ derivative indices sorted and the operands of + and *
 * sorted (a form for equality tests modulo commutativity). */
const EinExpr *ein_n_comm_canon(EinNorm *n, const EinExpr *e);

#endif
