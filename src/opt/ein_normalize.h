/* ein_normalize.h -- normalization of EIN operators as a named rewrite system.
 *
 * Normal form (seed paper 004, §5.3-5.4): field reconstructions (V_α ⊛ H^β,
 * with the derivative indices moved onto the kernel, or ∂...∂ F_α for field
 * parameters) at the leaves, probes directly above them, and tensor
 * arithmetic above the probes; summations pulled out of products and
 * flattened; ε/δ identities applied; constants folded.
 *
 * The system is innermost-first: children are normalized before the rules
 * of a node are tried, in table order, until none applies. Results are
 * memoized per call (structurally equal subterms are normalized once).
 * Termination is enforced by a bound on rewrite steps proportional to the
 * input size (ein_norm_step_bound); hitting it stops rewriting, returns the
 * partly normalized operator and reports ERR_EIN_STEP_LIMIT.
 *
 * Rule names are stable: --stats prints the firing counts by name.
 */
#ifndef DIDEROT_OPT_EIN_NORMALIZE_H
#define DIDEROT_OPT_EIN_NORMALIZE_H

#include <stdio.h>

#include "ir/ein.h"
#include "util/diag.h"

/* X(ID, "name", tag the rule applies to, function suffix). Order matters
 * within a tag: earlier rules are tried first. */
#define EIN_RULES(X)                                                     \
  /* constants, δ, ε */                                                  \
  X(DELTA_CONST, "delta-const", EIN_DELTA, delta_const)                  \
  X(EPS_CONST, "eps-const", EIN_EPS, eps_const)                          \
  /* probes pushed below lifted operators */                             \
  X(PROBE_TENSOR, "probe-tensor", EIN_PROBE, probe_tensor)               \
  X(PROBE_LIFT, "probe-lift", EIN_PROBE, probe_lift)                     \
  X(PROBE_NEG, "probe-neg", EIN_PROBE, probe_neg)                        \
  X(PROBE_ADD, "probe-add", EIN_PROBE, probe_add)                        \
  X(PROBE_SUB, "probe-sub", EIN_PROBE, probe_sub)                        \
  X(PROBE_MUL, "probe-mul", EIN_PROBE, probe_mul)                        \
  X(PROBE_DIV, "probe-div", EIN_PROBE, probe_div)                        \
  X(PROBE_FUN, "probe-fun", EIN_PROBE, probe_fun)                        \
  X(PROBE_POW, "probe-pow", EIN_PROBE, probe_pow)                        \
  X(PROBE_SUM, "probe-sum", EIN_PROBE, probe_sum)                        \
  /* differentiation pushed to the leaves */                             \
  X(DIFF_CONST, "diff-const", EIN_DIFF, diff_const)                      \
  X(DIFF_CONV, "diff-conv", EIN_DIFF, diff_conv)                         \
  X(DIFF_NEG, "diff-neg", EIN_DIFF, diff_neg)                            \
  X(DIFF_ADD, "diff-add", EIN_DIFF, diff_add)                            \
  X(DIFF_SUB, "diff-sub", EIN_DIFF, diff_sub)                            \
  X(DIFF_MUL, "diff-mul", EIN_DIFF, diff_mul)                            \
  X(DIFF_DIV, "diff-div", EIN_DIFF, diff_div)                            \
  X(DIFF_SUM, "diff-sum", EIN_DIFF, diff_sum)                            \
  X(DIFF_POW, "diff-pow", EIN_DIFF, diff_pow)                            \
  X(DIFF_SQRT, "diff-sqrt", EIN_DIFF, diff_sqrt)                         \
  X(DIFF_EXP, "diff-exp", EIN_DIFF, diff_exp)                            \
  X(DIFF_LOG, "diff-log", EIN_DIFF, diff_log)                            \
  X(DIFF_SIN, "diff-sin", EIN_DIFF, diff_sin)                            \
  X(DIFF_COS, "diff-cos", EIN_DIFF, diff_cos)                            \
  X(DIFF_TAN, "diff-tan", EIN_DIFF, diff_tan)                            \
  X(DIFF_ASIN, "diff-asin", EIN_DIFF, diff_asin)                         \
  X(DIFF_ACOS, "diff-acos", EIN_DIFF, diff_acos)                         \
  X(DIFF_ATAN, "diff-atan", EIN_DIFF, diff_atan)                         \
  X(DIFF_ABS, "diff-abs", EIN_DIFF, diff_abs)                            \
  X(DIFF_SIGN, "diff-sign", EIN_DIFF, diff_sign)                         \
  /* summations */                                                       \
  X(SUM_DEAD, "sum-dead", EIN_SUM, sum_dead)                             \
  X(SUM_FLATTEN, "sum-flatten", EIN_SUM, sum_flatten)                    \
  X(SUM_NEG, "sum-neg", EIN_SUM, sum_neg)                                \
  X(DELTA_CONTRACT, "delta-contract", EIN_SUM, delta_contract)           \
  X(EPS_SYMMETRIC, "eps-symmetric", EIN_SUM, eps_symmetric)              \
  X(EPS_EPS, "eps-eps", EIN_SUM, eps_eps)                                \
  X(EPS2_EPS2, "eps2-eps2", EIN_SUM, eps2_eps2)                          \
  /* products */                                                         \
  X(MUL_FLATTEN, "mul-flatten", EIN_MUL, mul_flatten)                    \
  X(MUL_ZERO, "mul-zero", EIN_MUL, mul_zero)                             \
  X(MUL_CONST, "mul-const", EIN_MUL, mul_const)                          \
  X(MUL_NEG, "mul-neg", EIN_MUL, mul_neg)                                \
  X(MUL_SUM, "mul-sum", EIN_MUL, mul_sum)                                \
  /* sums and differences */                                             \
  X(ADD_FLATTEN, "add-flatten", EIN_ADD, add_flatten)                    \
  X(ADD_ZERO, "add-zero", EIN_ADD, add_zero)                             \
  X(ADD_CONST, "add-const", EIN_ADD, add_const)                          \
  X(SUB_ZERO, "sub-zero", EIN_SUB, sub_zero)                             \
  X(SUB_SELF, "sub-self", EIN_SUB, sub_self)                             \
  X(SUB_NEG, "sub-neg", EIN_SUB, sub_neg)                                \
  X(SUB_CONST, "sub-const", EIN_SUB, sub_const)                          \
  X(NEG_NEG, "neg-neg", EIN_NEG, neg_neg)                                \
  X(NEG_CONST, "neg-const", EIN_NEG, neg_const)                          \
  /* quotients, functions, powers */                                     \
  X(DIV_ZERO, "div-zero", EIN_DIV, div_zero)                             \
  X(DIV_ONE, "div-one", EIN_DIV, div_one)                                \
  X(DIV_CONST, "div-const", EIN_DIV, div_const)                          \
  X(FUN_CONST, "fun-const", EIN_FUN, fun_const)                          \
  X(POW_ZERO, "pow-zero", EIN_POW, pow_zero)                             \
  X(POW_ONE, "pow-one", EIN_POW, pow_one)                                \
  X(POW_CONST, "pow-const", EIN_POW, pow_const)

typedef enum EinRuleId {
#define EIN_X(id, name, tag, fn) EIN_RULE_##id,
  EIN_RULES(EIN_X)
#undef EIN_X
  EIN_RULE_COUNT
} EinRuleId;

const char *ein_rule_name(EinRuleId r);

/* Counters accumulated over calls (zero-initialise before the first). */
typedef struct EinNormStats {
  unsigned long fired[EIN_RULE_COUNT];
  unsigned long ops;        /* operators normalized */
  unsigned long steps;      /* rewrite steps, all operators */
  unsigned long max_steps;  /* most steps spent on one operator */
  unsigned long limit_hits; /* operators that hit the step bound */
  unsigned long nodes_in, nodes_out; /* tree sizes before and after */
} EinNormStats;

typedef struct EinNormOpts {
  unsigned long max_steps; /* 0: ein_norm_step_bound(input size) */
  DiagCtx *diag;           /* where to report a hit bound; NULL: nowhere */
  Span span;               /* the position reported */
} EinNormOpts;

/* The default step bound for an input of `size` nodes. */
unsigned long ein_norm_step_bound(size_t size);

/* Normalize an operator. opts and stats may be NULL. *limit_hit (if
 * non-NULL) tells whether the bound stopped the rewriting. */
const EinOp *ein_normalize(EinContext *c, const EinOp *op, const EinNormOpts *opts,
                           EinNormStats *stats, bool *limit_hit);
/* Normalize an expression in which variables 0..depth-1 are bound outside;
 * the result's Σ binders are renumbered by binding site from depth. */
const EinExpr *ein_normalize_expr(EinContext *c, const EinExpr *e, int depth,
                                  const EinNormOpts *opts, EinNormStats *stats,
                                  bool *limit_hit);

/* Print the non-zero counters, one "name count" per line. */
void ein_norm_stats_print(FILE *out, const EinNormStats *s);

#endif
