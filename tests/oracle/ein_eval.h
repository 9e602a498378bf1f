/* ein_eval.h -- a reference evaluator for EIN operators (tests only).
 *
 * Evaluates an operator on concrete arguments in double precision. Fields
 * (field parameters, and images convolved with kernels) are closed-form
 * polynomials, so every derivative is known exactly: a convolution V ⊛ H^β
 * is taken to reconstruct V's polynomial exactly and H^β differentiates it.
 *
 * Derivatives of composite field expressions (∂ above +, *, /, sqrt, ...)
 * are computed by truncated multivariate Taylor arithmetic ("jets"), not by
 * symbolic rules, so the evaluator is an oracle independent of the
 * normalizer's differentiation rules: a jet of order K carries all partial
 * derivatives up to order K, and functions are composed through their
 * univariate Taylor series (power-series recurrences).
 */
#ifndef DIDEROT_TESTS_EIN_EVAL_H
#define DIDEROT_TESTS_EIN_EVAL_H

#include <stddef.h>

#include "ir/ein.h"

enum { EIN_POLY_MAX_TERMS = 40 };

typedef struct EinPolyTerm {
  double coef;
  int exp[3]; /* powers of x0, x1, x2 */
} EinPolyTerm;

typedef struct EinPoly {
  int nterms;
  EinPolyTerm terms[EIN_POLY_MAX_TERMS];
} EinPoly;

/* The polynomial differentiated deriv[a] times along axis a (deriv may be
 * NULL), at x; straight from the closed form of each monomial. */
double ein_poly_eval(const EinPoly *p, const double x[3], const int deriv[3]);

/* One argument per parameter. */
typedef struct EinEvalArg {
  const double *tensor; /* TENSOR: components in row-major order */
  const EinPoly *field; /* FIELD and IMAGE: one polynomial per component, row-major */
} EinEvalArg;

/* Components of the result (the product of σ). */
int ein_eval_size(const EinOp *op);

/* Evaluate every component of op into out (row-major over σ). A field-valued
 * operator is evaluated at `pos` (its dimension's worth of coordinates).
 * Returns 0, or -1 with a reason in err. */
int ein_eval(const EinOp *op, const EinEvalArg *args, const double *pos, double *out,
             char *err, size_t errlen);

#endif
