/* rt_lapack.c -- the robust eigen path (--robust-eigen): LAPACK's
 * dsyev/ssyev (Householder tridiagonalization and implicit QL/QR) instead
 * of the closed forms of diderot_tensor.h.
 *
 * We call the _work entry points in column-major layout with a workspace
 * on the stack: LAPACKE's row-major and high-level wrappers malloc a
 * transposed copy and a workspace on every call, which generated code
 * would do once per strand per step.
 */
#include <math.h>

#include <lapacke.h>

#include "diderot_tensor.h"

/* dsyev needs lwork >= 3n-1; more only enables the blocked reduction,
 * which LAPACK does not use for n this small. */
enum { DRT_LAPACK_LWORK = 64 };

bool drt_eigen_lapack_d(int n, const double *m, double *evals, double *evecs) {
  if (n != 2 && n != 3) return true;
  double a[9] = {0}, w[3], work[DRT_LAPACK_LWORK];
  /* Column-major (i,j) is a[i + j*n]; LAPACK reads the upper triangle
   * i <= j, which we fill from the row-major upper triangle of m. */
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++) a[i + j * n] = m[i * n + j];
  lapack_int info = LAPACKE_dsyev_work(LAPACK_COL_MAJOR, evecs ? 'V' : 'N',
                                       'U', n, a, n, w, work, DRT_LAPACK_LWORK);
  if (info != 0) {
    for (int k = 0; k < n; k++) evals[k] = NAN;
    if (evecs)
      for (int k = 0; k < n * n; k++) evecs[k] = NAN;
    return true;
  }
  /* LAPACK sorts ascending with vectors in columns; we return them
   * descending with vectors in rows. */
  for (int k = 0; k < n; k++) {
    evals[k] = w[n - 1 - k];
    if (evecs)
      for (int i = 0; i < n; i++) evecs[k * n + i] = a[i + (n - 1 - k) * n];
  }
  return false;
}

bool drt_eigen_lapack_f(int n, const float *m, float *evals, float *evecs) {
  if (n != 2 && n != 3) return true;
  float a[9] = {0}, w[3], work[DRT_LAPACK_LWORK];
  /* Column-major (i,j) is a[i + j*n]; LAPACK reads the upper triangle
   * i <= j, which we fill from the row-major upper triangle of m. */
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++) a[i + j * n] = m[i * n + j];
  lapack_int info = LAPACKE_ssyev_work(LAPACK_COL_MAJOR, evecs ? 'V' : 'N',
                                       'U', n, a, n, w, work, DRT_LAPACK_LWORK);
  if (info != 0) {
    for (int k = 0; k < n; k++) evals[k] = NAN;
    if (evecs)
      for (int k = 0; k < n * n; k++) evecs[k] = NAN;
    return true;
  }
  /* LAPACK sorts ascending with vectors in columns; we return them
   * descending with vectors in rows. */
  for (int k = 0; k < n; k++) {
    evals[k] = w[n - 1 - k];
    if (evecs)
      for (int i = 0; i < n; i++) evecs[k * n + i] = a[i + (n - 1 - k) * n];
  }
  return false;
}
