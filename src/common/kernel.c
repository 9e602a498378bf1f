/* kernel.c -- the built-in reconstruction kernels (doc/language.md §6.2).
 *
 * Each kernel's right half is written once, as polynomials in u = x >= 0
 * (the outer B-spline pieces (2-u)^3/6 and (3-u)^5/120 expanded by hand).
 * The left half on [-m-1,-m) is the same polynomial at -x: the macros below
 * flip the sign of the odd coefficients, so the table stays constant data
 * and the two halves cannot drift apart.
 */
#include "common/kernel.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* A coefficient list is 7 (num, den) pairs, constant term first. */
#define KP_RIGHT(lo, deg, n0, d0, n1, d1, n2, d2, n3, d3, n4, d4, n5, d5, n6, d6) \
  {(lo), (deg), {{n0, d0}, {n1, d1}, {n2, d2}, {n3, d3}, {n4, d4}, {n5, d5}, {n6, d6}}}
#define KP_LEFT(lo, deg, n0, d0, n1, d1, n2, d2, n3, d3, n4, d4, n5, d5, n6, d6) \
  {(lo), (deg), {{n0, d0}, {-(n1), d1}, {n2, d2}, {-(n3), d3}, {n4, d4}, {-(n5), d5}, {n6, d6}}}
/* Indirection so that a coefficient macro expands into its 14 arguments. */
#define KP_RIGHT_X(...) KP_RIGHT(__VA_ARGS__)
#define KP_LEFT_X(...) KP_LEFT(__VA_ARGS__)
#define RIGHT(lo, deg, coeffs) KP_RIGHT_X(lo, deg, coeffs)
#define LEFT(lo, deg, coeffs) KP_LEFT_X(lo, deg, coeffs)

/* tent, 0 <= u < 1: 1 - u */
#define TENT0 1, 1, -1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1
/* ctmr: 1 - 5/2 u^2 + 3/2 u^3;  2 - 4u + 5/2 u^2 - 1/2 u^3 */
#define CTMR0 1, 1, 0, 1, -5, 2, 3, 2, 0, 1, 0, 1, 0, 1
#define CTMR1 2, 1, -4, 1, 5, 2, -1, 2, 0, 1, 0, 1, 0, 1
/* bspln3: 2/3 - u^2 + 1/2 u^3;  (2-u)^3/6 = 4/3 - 2u + u^2 - 1/6 u^3 */
#define BSPLN3_0 2, 3, 0, 1, -1, 1, 1, 2, 0, 1, 0, 1, 0, 1
#define BSPLN3_1 4, 3, -2, 1, 1, 1, -1, 6, 0, 1, 0, 1, 0, 1
/* bspln5: 11/20 - 1/2 u^2 + 1/4 u^4 - 1/12 u^5;
 * 17/40 + 5/8 u - 7/4 u^2 + 5/4 u^3 - 3/8 u^4 + 1/24 u^5;
 * (3-u)^5/120 = 81/40 - 27/8 u + 9/4 u^2 - 3/4 u^3 + 1/8 u^4 - 1/120 u^5 */
#define BSPLN5_0 11, 20, 0, 1, -1, 2, 0, 1, 1, 4, -1, 12, 0, 1
#define BSPLN5_1 17, 40, 5, 8, -7, 4, 5, 4, -3, 8, 1, 24, 0, 1
#define BSPLN5_2 81, 40, -27, 8, 9, 4, -3, 4, 1, 8, -1, 120, 0, 1
/* c4hexic, the three pieces of doc/language.md §6.2 */
#define C4H_0 69, 80, 0, 1, -23, 16, 0, 1, 19, 16, -7, 12, 1, 16
#define C4H_1 3, 160, 35, 8, -341, 32, 10, 1, -147, 32, 25, 24, -3, 32
#define C4H_2 1539, 160, -189, 8, 747, 32, -12, 1, 109, 32, -61, 120, 1, 32

#define TENT_PIECES {LEFT(-1, 1, TENT0), RIGHT(0, 1, TENT0)}
#define CTMR_PIECES \
  {LEFT(-2, 3, CTMR1), LEFT(-1, 3, CTMR0), RIGHT(0, 3, CTMR0), RIGHT(1, 3, CTMR1)}

static const Kernel kernel_table[] = {
    {"tent", 1, 0, 0, true, 2, TENT_PIECES},
    {"ctmr", 2, 1, 1, true, 4, CTMR_PIECES},
    {"bspln3", 2, 2, 2, false, 4,
     {LEFT(-2, 3, BSPLN3_1), LEFT(-1, 3, BSPLN3_0), RIGHT(0, 3, BSPLN3_0),
      RIGHT(1, 3, BSPLN3_1)}},
    {"bspln5", 3, 4, 4, false, 6,
     {LEFT(-3, 5, BSPLN5_2), LEFT(-2, 5, BSPLN5_1), LEFT(-1, 5, BSPLN5_0),
      RIGHT(0, 5, BSPLN5_0), RIGHT(1, 5, BSPLN5_1), RIGHT(2, 5, BSPLN5_2)}},
    {"c4hexic", 3, 4, 4, false, 6,
     {LEFT(-3, 6, C4H_2), LEFT(-2, 6, C4H_1), LEFT(-1, 6, C4H_0), RIGHT(0, 6, C4H_0),
      RIGHT(1, 6, C4H_1), RIGHT(2, 6, C4H_2)}},
    /* Teaching aliases: the same polynomials, a claimed (false) continuity. */
    {"c1tent", 1, 1, 0, true, 2, TENT_PIECES},
    {"c2tent", 1, 2, 0, true, 2, TENT_PIECES},
    {"c2ctmr", 2, 2, 1, true, 4, CTMR_PIECES},
};
#define KERNEL_COUNT ((int)(sizeof kernel_table / sizeof kernel_table[0]))

const Kernel *kernel_lookup(const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < KERNEL_COUNT; i++)
    if (strcmp(kernel_table[i].name, name) == 0) return &kernel_table[i];
  return NULL;
}

const Kernel *kernel_all(int *count) {
  if (count) *count = KERNEL_COUNT;
  return kernel_table;
}

static int64_t kernel_gcd(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* r * m for a positive integer m, in lowest terms; false on overflow
 * (impossible for the built-in degrees: |num| * 6! stays below 2^21). */
static bool kernel_rat_scale(Rational *r, int64_t m) {
  int64_t g = kernel_gcd(m, r->den);
  int64_t den = r->den / g;
  m /= g;
  if (m != 0 && (r->num > INT64_MAX / m || r->num < -INT64_MAX / m)) return false;
  r->num *= m;
  r->den = den;
  if (r->num == 0) r->den = 1;
  return true;
}

/* The piece is differentiated coefficient-wise: d^j/dx^j c x^p =
 * c p!/(p-j)! x^(p-j). Out-of-range arguments give the zero polynomial;
 * an overflow (which the built-in tables cannot reach) gives degree -1. */
KernelPiece kernel_derivative_piece(const Kernel *k, int piece, int order) {
  KernelPiece out = {0, 0, {{0, 1}}};
  for (int p = 0; p <= KERNEL_MAX_DEGREE; p++) out.coeff[p] = (Rational){0, 1};
  if (!k || piece < 0 || piece >= k->npieces) return out;
  const KernelPiece *src = &k->pieces[piece];
  out.lo = src->lo;
  if (order < 0) order = 0;
  if (order > src->degree) return out;
  out.degree = src->degree - order;
  for (int p = order; p <= src->degree; p++) {
    Rational c = src->coeff[p];
    int64_t fall = 1; /* p (p-1) ... (p-order+1) <= 6! */
    for (int q = p - order + 1; q <= p; q++) fall *= q;
    if (!kernel_rat_scale(&c, fall)) {
      out.degree = -1;
      return out;
    }
    out.coeff[p - order] = c;
  }
  return out;
}

double kernel_eval(const Kernel *k, int order, double x) {
  if (!k) return 0.0;
  double s = (double)k->support;
  /* Also rejects NaN before the float-to-int conversion below. */
  if (!(x > -s && x < s)) return 0.0;
  int piece = (int)floor(x) + k->support;
  if (piece < 0) piece = 0;
  if (piece >= k->npieces) piece = k->npieces - 1;
  KernelPiece d = kernel_derivative_piece(k, piece, order);
  if (d.degree < 0) return NAN;
  double v = 0.0;
  for (int p = d.degree; p >= 0; p--)
    v = v * x + (double)d.coeff[p].num / (double)d.coeff[p].den;
  return v;
}
