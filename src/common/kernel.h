/* kernel.h -- Diderot's reconstruction kernels (doc/language.md §6.2).
 *
 * A kernel is an even piecewise polynomial h with support s: 2s pieces, one
 * per unit interval [-s,-s+1) ... [s-1,s), each a polynomial in the global
 * coordinate x with exact rational coefficients. Derivatives of any order
 * are exact (rational) too. The typechecker needs names and continuity;
 * the middle end needs the pieces (Horner evaluation of h^(j)(f - i)).
 */
#ifndef DIDEROT_COMMON_KERNEL_H
#define DIDEROT_COMMON_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#define KERNEL_MAX_SUPPORT 3
#define KERNEL_MAX_DEGREE 6

/* An exact rational num/den, den > 0, in lowest terms. */
typedef struct Rational {
  int64_t num, den;
} Rational;

/* One piece: sum_{p=0..degree} coeff[p] * x^p on [lo, lo+1). */
typedef struct KernelPiece {
  int lo;
  int degree;
  Rational coeff[KERNEL_MAX_DEGREE + 1];
} KernelPiece;

typedef struct Kernel {
  const char *name;    /* "tent", "ctmr", ..., "c2ctmr" */
  int support;         /* s */
  int continuity;      /* declared k (the aliases claim more than is true) */
  int true_continuity; /* the real smoothness of the polynomials */
  bool interpolating;  /* h(0) = 1, h(n) = 0 for integers n != 0 */
  int npieces;         /* 2s, ordered by lo = -s ... s-1 */
  KernelPiece pieces[2 * KERNEL_MAX_SUPPORT];
} Kernel;

/* The built-in kernel called `name`, or NULL. */
const Kernel *kernel_lookup(const char *name);
/* All built-in kernels; *count receives how many. */
const Kernel *kernel_all(int *count);
/* Piece j of the `order`-th derivative of k (exact). */
KernelPiece kernel_derivative_piece(const Kernel *k, int piece, int order);
/* h^(order)(x) in double (0 outside the support). */
double kernel_eval(const Kernel *k, int order, double x);

#endif
