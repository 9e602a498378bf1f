/* diderot_tensor.h -- closed-form tensor kernels called by generated code:
 * det, inv, evals and evecs of 2x2 and 3x3 matrices (doc/language.md §10.1).
 *
 * Every function exists in a double (_d) and a float (_f) variant; the body
 * is written once, at the end of this file, and instantiated twice by
 * including the file into itself.  Matrices are flat row-major arrays
 * (m[3*i+j] is row i, column j).  Outputs may alias inputs: every input is
 * read before anything is written.
 *
 *   R    drt_det2_T  (const R m[4]);             determinant
 *   R    drt_det3_T  (const R m[9]);
 *   void drt_inv2_T  (const R m[4], R out[4]);   inverse, no singularity
 *   void drt_inv3_T  (const R m[9], R out[9]);   check (Q21): inf/NaN
 *   void drt_evals2_T(const R m[4], R ev[2]);    eigenvalues, descending
 *   void drt_evals3_T(const R m[9], R ev[3]);
 *   void drt_evecs2_T(const R m[4], R vec[4]);   unit eigenvectors, one
 *   void drt_evecs3_T(const R m[9], R vec[9]);   per row, in evals order
 *   void drt_eigen2_T(const R m[4], R ev[2], R vec[4]);   both at once
 *   void drt_eigen3_T(const R m[9], R ev[3], R vec[9]);
 *
 * evals/evecs assume a symmetric matrix and read only its upper triangle.
 * They always return an orthonormal set of vectors (up to rounding); when
 * an eigenvalue is repeated, any orthonormal basis of its eigenspace is
 * a correct answer and signs are arbitrary, as with LAPACK.
 *
 * inv3: the original compiler computes the inverse by Cayley-Hamilton,
 * adj(A) = ((tr^2 - tr(A.A))/2) I - tr A + A.A.  That identity is exact,
 * so we compute the same adjugate from its cofactors: fewer operations,
 * and no O(eps |A|^2) cancellation, which made the Cayley-Hamilton form
 * lose every digit of inv(diag(1e10, 1, 1e-10))[0][0].
 *
 * Method for the 3x3 eigen-problem (all arithmetic in the type R):
 *  1. shift by the mean eigenvalue tr/3 and scale the deviatoric part B
 *     to max |b_ij| = 1, so that squares and cubes neither overflow nor
 *     underflow, whatever the magnitude of A;
 *  2. the trigonometric (Cardano) solution of the traceless cubic gives
 *     the eigenvalue of largest magnitude mu1 = sign(r) 2p cos(acos|r|/3),
 *     r = det(B)/(2p^3), p^2 = tr(B^2)/6.  acos is ill-conditioned near
 *     |r| = 1 (a nearly double eigenvalue), but this root is not: its
 *     error is O(eps p).  The other two roots from the same formula would
 *     be wrong by O(sqrt(eps) p), so they are not used;
 *  3. mu1 is separated from the other two eigenvalues by at least |mu1| >=
 *     |B|/sqrt(3), so its eigenvector is well-conditioned: it is the
 *     largest of the three cross products of rows of B - mu1 I, normalized;
 *  4. B restricted to the plane orthogonal to that vector is a symmetric
 *     2x2 problem, solved in closed form without cancellation (below).
 *     Its eigenvalues are exact to O(eps |B|) however close they are, and
 *     its eigenvectors complete the orthonormal set.
 * The 2x2 solver: mean (a+c)/2, h = hypot((a-c)/2, b), eigenvalues
 * mean +- h; the eigenvector of mean + h is (h + (a-c)/2, b) when a >= c
 * and (b, h - (a-c)/2) otherwise (no cancellation in either).
 *
 * Measured accuracy (tests/unit/test_tensor.c: 5000 random matrices per
 * size and type, in classes: random entries, prescribed spectra, two or
 * three eigenvalues 1e-1..1e-16 apart, exactly repeated eigenvalues, rank
 * 1, graded spectra and entries over 24-32 decades, scales 1e-300..1e300
 * (double) and 1e-30..1e30 (float), negative definite; against a long-
 * double Jacobi solver and LAPACK dsyev), maxima in units of the type's
 * epsilon, double / float:
 *                                 2x2          3x3
 *   eigenvalue error / |A|_F      1.2 / 1.1    2.1 / 1.7
 *   residual |Av - lv| / |A|_F    1.3 / 1.2    2.2 / 1.9
 *   |V V^T - I|_max               2.5 / 2.4    4.3 / 4.4
 *   evec angle * gap / |A|_F      1.6 / 1.5    1.3 / 1.4
 * (LAPACK's dsyev on the same 3x3 matrices: 5.0, 5.5, 6.6, 4.0.)  The
 * test fails above 8.  det is within 1.3 eps prod_i |row_i|_1 of LAPACK's
 * LU product; inv is within 0.3 eps gamma |inv A| of dgetri, gamma =
 * |A|_F^n / |det A|, the accuracy of any adjugate formula (gamma = kappa
 * for 2x2, up to kappa^1.5 for a nearly rank-1 3x3).  Cost: evals3/evecs3
 * take about a tenth of the time of the LAPACK path.
 *
 * Degenerate input (Q21): no guards, except the epsilon guard of evecs:
 * a normalization whose length is below the smallest normal number yields
 * a coordinate axis instead of 0/0.  The original compiler's epsilon
 * is not documented; ours matters only at that threshold because the
 * vectors we normalize are never small unless the matrix (or the 2x2
 * sub-problem) is a multiple of the identity, where every vector is an
 * eigenvector.  NaN input gives NaN output, without a crash.
 *
 * The robust path behind --robust-eigen is LAPACK's dsyev/ssyev
 * (rt_lapack.c, in libdiderot-rt.a; link with -llapacke -llapack).
 *
 * For CUDA, define DRT_TENSOR_FN (e.g. as `static inline __host__
 * __device__`) before including this file.
 */
#ifndef DRT_TENSOR_BODY
#ifndef DIDEROT_TENSOR_H
#define DIDEROT_TENSOR_H

#include <float.h>
#include <math.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef DRT_TENSOR_FN
#define DRT_TENSOR_FN static inline
#endif

/* ---- instantiate the body for double ---------------------------------- */
#define DRT_TENSOR_BODY 1
#define DRT_R double
#define DRT_N(name) name##_d
#define DRT_K(lit) lit
#define DRT_SQRT sqrt
#define DRT_FABS fabs
#define DRT_ACOS acos
#define DRT_COS cos
#define DRT_TINY DBL_MIN
#include "diderot_tensor.h"
#undef DRT_R
#undef DRT_N
#undef DRT_K
#undef DRT_SQRT
#undef DRT_FABS
#undef DRT_ACOS
#undef DRT_COS
#undef DRT_TINY

/* ---- and for float ------------------------------------------------------ */
#define DRT_R float
#define DRT_N(name) name##_f
#define DRT_K(lit) lit##f
#define DRT_SQRT sqrtf
#define DRT_FABS fabsf
#define DRT_ACOS acosf
#define DRT_COS cosf
#define DRT_TINY FLT_MIN
#include "diderot_tensor.h"
#undef DRT_R
#undef DRT_N
#undef DRT_K
#undef DRT_SQRT
#undef DRT_FABS
#undef DRT_ACOS
#undef DRT_COS
#undef DRT_TINY
#undef DRT_TENSOR_BODY

/* ---- the robust path (rt_lapack.c) -------------------------------------- */

/* Eigenvalues (descending) and, when evecs is not NULL, unit eigenvectors
 * (one per row, same order) of the symmetric N x N row-major matrix M,
 * N = 2 or 3, of which only the upper triangle is read; by LAPACK's
 * dsyev/ssyev.  Allocates nothing and keeps no state (thread-safe).
 * Returns true on error: bad N (nothing written), or LAPACK did not
 * converge, which NaN input can cause (NaN in the outputs). */
bool drt_eigen_lapack_d(int n, const double *m, double *evals, double *evecs);
bool drt_eigen_lapack_f(int n, const float *m, float *evals, float *evecs);

#ifdef __cplusplus
}
#endif

#endif /* DIDEROT_TENSOR_H */

#else /* DRT_TENSOR_BODY: the body, once per type ------------------------- */

DRT_TENSOR_FN DRT_R DRT_N(drt_det2)(const DRT_R m[4]) {
  return m[0] * m[3] - m[1] * m[2];
}

/* Cofactor expansion along row 0; the same cofactors as inv3, so that
 * A inv(A) = I is consistent with det. */
DRT_TENSOR_FN DRT_R DRT_N(drt_det3)(const DRT_R m[9]) {
  return m[0] * (m[4] * m[8] - m[5] * m[7]) -
         m[1] * (m[3] * m[8] - m[5] * m[6]) +
         m[2] * (m[3] * m[7] - m[4] * m[6]);
}

/* Adjugate over determinant (§4.4); a singular matrix gives inf/NaN. */
DRT_TENSOR_FN void DRT_N(drt_inv2)(const DRT_R m[4], DRT_R out[4]) {
  DRT_R a = m[0], b = m[1], c = m[2], d = m[3];
  DRT_R det = a * d - b * c;
  out[0] = d / det;
  out[1] = -b / det;
  out[2] = -c / det;
  out[3] = a / det;
}

/* inv(A)[i][j] = cofactor(j,i)/det; see the top of the file for why not
 * the Cayley-Hamilton form.  Dividing each entry (rather than multiplying
 * by 1/det) keeps subnormal determinants from overflowing to inf. */
DRT_TENSOR_FN void DRT_N(drt_inv3)(const DRT_R m[9], DRT_R out[9]) {
  DRT_R c00 = m[4] * m[8] - m[5] * m[7];
  DRT_R c01 = m[5] * m[6] - m[3] * m[8];
  DRT_R c02 = m[3] * m[7] - m[4] * m[6];
  DRT_R c10 = m[2] * m[7] - m[1] * m[8];
  DRT_R c11 = m[0] * m[8] - m[2] * m[6];
  DRT_R c12 = m[1] * m[6] - m[0] * m[7];
  DRT_R c20 = m[1] * m[5] - m[2] * m[4];
  DRT_R c21 = m[2] * m[3] - m[0] * m[5];
  DRT_R c22 = m[0] * m[4] - m[1] * m[3];
  DRT_R det = m[0] * c00 + m[1] * c01 + m[2] * c02;
  out[0] = c00 / det;
  out[1] = c10 / det;
  out[2] = c20 / det;
  out[3] = c01 / det;
  out[4] = c11 / det;
  out[5] = c21 / det;
  out[6] = c02 / det;
  out[7] = c12 / det;
  out[8] = c22 / det;
}

/* sqrt(x^2 + y^2) without intermediate overflow or underflow (scaled by
 * the larger magnitude); NaN in, NaN out. */
DRT_TENSOR_FN DRT_R DRT_N(drt_tensor_hypot)(DRT_R x, DRT_R y) {
  DRT_R ax = DRT_FABS(x), ay = DRT_FABS(y);
  DRT_R big = ax > ay ? ax : ay, small = ax > ay ? ay : ax;
  if (!(big > 0)) return big + small; /* 0, or NaN */
  DRT_R q = small / big;
  return big * DRT_SQRT(DRT_K(1.0) + q * q);
}

/* |x| for the maximum search, NaN-propagating so that a NaN entry cannot
 * be mistaken for a zero deviatoric part. */
DRT_TENSOR_FN DRT_R DRT_N(drt_tensor_amax)(DRT_R acc, DRT_R x) {
  DRT_R ax = DRT_FABS(x);
  return (ax > acc || ax != ax) ? ax : acc;
}

/* The symmetric 2x2 [[a,b],[b,c]]: ev[0] >= ev[1]; when vec is not NULL,
 * (vec[0], vec[1]) is the unit eigenvector of ev[0], and (-vec[1], vec[0])
 * is that of ev[1].  Halving before adding avoids overflow. */
DRT_TENSOR_FN void DRT_N(drt_tensor_sym2)(DRT_R a, DRT_R b, DRT_R c,
                                         DRT_R ev[2], DRT_R vec[2]) {
  DRT_R mean = DRT_K(0.5) * a + DRT_K(0.5) * c;
  DRT_R d = DRT_K(0.5) * a - DRT_K(0.5) * c;
  DRT_R h = DRT_N(drt_tensor_hypot)(d, b);
  ev[0] = mean + h;
  ev[1] = mean - h;
  if (vec) {
    DRT_R x, y;
    if (d >= 0) {
      x = h + d;
      y = b;
    } else {
      x = b;
      y = h - d;
    }
    DRT_R n = DRT_N(drt_tensor_hypot)(x, y);
    if (n >= DRT_TINY) { /* the evecs epsilon guard (Q21) */
      x /= n;
      y /= n;
    } else if (n == n) { /* a multiple of the identity: any basis */
      x = DRT_K(1.0);
      y = DRT_K(0.0);
    }
    vec[0] = x;
    vec[1] = y;
  }
}

DRT_TENSOR_FN void DRT_N(drt_eigen2)(const DRT_R m[4], DRT_R ev[2],
                                    DRT_R vec[4]) {
  DRT_R v[2];
  DRT_N(drt_tensor_sym2)(m[0], m[1], m[3], ev, v);
  vec[0] = v[0];
  vec[1] = v[1];
  vec[2] = -v[1];
  vec[3] = v[0];
}

DRT_TENSOR_FN void DRT_N(drt_evals2)(const DRT_R m[4], DRT_R ev[2]) {
  DRT_R e[2];
  DRT_N(drt_tensor_sym2)(m[0], m[1], m[3], e, (DRT_R *)0);
  ev[0] = e[0];
  ev[1] = e[1];
}

DRT_TENSOR_FN void DRT_N(drt_evecs2)(const DRT_R m[4], DRT_R vec[4]) {
  DRT_R e[2];
  DRT_N(drt_eigen2)(m, e, vec);
}

/* The 3x3 solver (method at the top of the file); vec may be NULL. */
DRT_TENSOR_FN void DRT_N(drt_eigen3)(const DRT_R m[9], DRT_R ev[3],
                                    DRT_R vec[9]) {
  const DRT_R a00 = m[0], a01 = m[1], a02 = m[2];
  const DRT_R a11 = m[4], a12 = m[5], a22 = m[8];

  /* 1. shift and scale */
  const DRT_R mean = (a00 + a11 + a22) / DRT_K(3.0);
  DRT_R b00 = a00 - mean, b11 = a11 - mean, b22 = a22 - mean;
  DRT_R t = DRT_K(0.0);
  t = DRT_N(drt_tensor_amax)(t, b00);
  t = DRT_N(drt_tensor_amax)(t, b11);
  t = DRT_N(drt_tensor_amax)(t, b22);
  t = DRT_N(drt_tensor_amax)(t, a01);
  t = DRT_N(drt_tensor_amax)(t, a02);
  t = DRT_N(drt_tensor_amax)(t, a12);
  if (t == 0) { /* a multiple of the identity: any basis */
    ev[0] = ev[1] = ev[2] = mean;
    if (vec) {
      for (int i = 0; i < 9; i++) vec[i] = DRT_K(0.0);
      vec[0] = vec[4] = vec[8] = DRT_K(1.0);
    }
    return;
  }
  b00 /= t;
  b11 /= t;
  b22 /= t;
  const DRT_R b01 = a01 / t, b02 = a02 / t, b12 = a12 / t;

  /* 2. the root of largest magnitude; p >= 1/sqrt(6) after scaling */
  DRT_R p2 = (b00 * b00 + b11 * b11 + b22 * b22 +
              DRT_K(2.0) * (b01 * b01 + b02 * b02 + b12 * b12)) /
             DRT_K(6.0);
  DRT_R p = DRT_SQRT(p2);
  DRT_R det = b00 * (b11 * b22 - b12 * b12) - b01 * (b01 * b22 - b12 * b02) +
              b02 * (b01 * b12 - b11 * b02);
  DRT_R r = det / (DRT_K(2.0) * p2 * p);
  DRT_R ar = DRT_FABS(r);
  if (ar > DRT_K(1.0)) ar = DRT_K(1.0);
  DRT_R mu1 = DRT_K(2.0) * p * DRT_COS(DRT_ACOS(ar) / DRT_K(3.0));
  if (r < 0) mu1 = -mu1;

  /* 3. its eigenvector: the largest cross product of rows of B - mu1 I */
  const DRT_R c00 = b00 - mu1, c11 = b11 - mu1, c22 = b22 - mu1;
  DRT_R x[3] = {b01 * b12 - b02 * c11, b02 * b01 - c00 * b12,
                c00 * c11 - b01 * b01};
  const DRT_R y[3] = {b01 * c22 - b02 * b12, b02 * b02 - c00 * c22,
                      c00 * b12 - b01 * b02};
  const DRT_R z[3] = {c11 * c22 - b12 * b12, b12 * b02 - b01 * c22,
                      b01 * b12 - c11 * b02};
  DRT_R nx = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
  const DRT_R ny = y[0] * y[0] + y[1] * y[1] + y[2] * y[2];
  const DRT_R nz = z[0] * z[0] + z[1] * z[1] + z[2] * z[2];
  if (ny > nx) {
    nx = ny;
    x[0] = y[0];
    x[1] = y[1];
    x[2] = y[2];
  }
  if (nz > nx) {
    nx = nz;
    x[0] = z[0];
    x[1] = z[1];
    x[2] = z[2];
  }
  DRT_R v1[3] = {DRT_K(1.0), DRT_K(0.0), DRT_K(0.0)};
  /* Both nonzero eigenvalues of B - mu1 I exceed |mu1| >= 1/sqrt(3) in
   * magnitude, so nx >= 1/27: the guard only matters for NaN input */
  if (!(nx < DRT_TINY)) {
    DRT_R n = DRT_SQRT(nx);
    v1[0] = x[0] / n;
    v1[1] = x[1] / n;
    v1[2] = x[2] / n;
  }

  /* 4. an orthonormal basis u, w of the plane orthogonal to v1: u is v1
   * crossed with the axis where v1 is smallest, so |u| >= sqrt(2/3) */
  DRT_R u[3], w[3];
  {
    DRT_R f0 = DRT_FABS(v1[0]), f1 = DRT_FABS(v1[1]), f2 = DRT_FABS(v1[2]);
    if (f0 <= f1 && f0 <= f2) {
      u[0] = DRT_K(0.0);
      u[1] = v1[2];
      u[2] = -v1[1];
    } else if (f1 <= f2) {
      u[0] = -v1[2];
      u[1] = DRT_K(0.0);
      u[2] = v1[0];
    } else {
      u[0] = v1[1];
      u[1] = -v1[0];
      u[2] = DRT_K(0.0);
    }
    DRT_R n = DRT_SQRT(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    u[0] /= n;
    u[1] /= n;
    u[2] /= n;
    w[0] = v1[1] * u[2] - v1[2] * u[1];
    w[1] = v1[2] * u[0] - v1[0] * u[2];
    w[2] = v1[0] * u[1] - v1[1] * u[0];
  }
  const DRT_R bu[3] = {b00 * u[0] + b01 * u[1] + b02 * u[2],
                       b01 * u[0] + b11 * u[1] + b12 * u[2],
                       b02 * u[0] + b12 * u[1] + b22 * u[2]};
  const DRT_R bw[3] = {b00 * w[0] + b01 * w[1] + b02 * w[2],
                       b01 * w[0] + b11 * w[1] + b12 * w[2],
                       b02 * w[0] + b12 * w[1] + b22 * w[2]};
  DRT_R mu[2], q[2];
  DRT_N(drt_tensor_sym2)(u[0] * bu[0] + u[1] * bu[1] + u[2] * bu[2],
                         u[0] * bw[0] + u[1] * bw[1] + u[2] * bw[2],
                         w[0] * bw[0] + w[1] * bw[1] + w[2] * bw[2], mu,
                         vec ? q : (DRT_R *)0);

  /* mu1 is the largest eigenvalue when positive, else the smallest */
  const int first = r >= 0 ? 0 : 2; /* slot of mu1 */
  const int pair = r >= 0 ? 1 : 0;   /* slot of mu[0]; mu[1] follows */
  ev[first] = mean + t * mu1;
  ev[pair] = mean + t * mu[0];
  ev[pair + 1] = mean + t * mu[1];
  if (vec) {
    for (int i = 0; i < 3; i++) {
      vec[3 * first + i] = v1[i];
      vec[3 * pair + i] = q[0] * u[i] + q[1] * w[i];
      vec[3 * (pair + 1) + i] = q[0] * w[i] - q[1] * u[i];
    }
  }
}

DRT_TENSOR_FN void DRT_N(drt_evals3)(const DRT_R m[9], DRT_R ev[3]) {
  DRT_R e[3];
  DRT_N(drt_eigen3)(m, e, (DRT_R *)0);
  ev[0] = e[0];
  ev[1] = e[1];
  ev[2] = e[2];
}

DRT_TENSOR_FN void DRT_N(drt_evecs3)(const DRT_R m[9], DRT_R vec[9]) {
  DRT_R e[3];
  DRT_N(drt_eigen3)(m, e, vec);
}

#endif /* DRT_TENSOR_BODY */
