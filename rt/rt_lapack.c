/* rt_lapack.c -- the robust eigen path (--robust-eigen): LAPACK's
 * dsyev/ssyev (Householder tridiagonalization and implicit QL/QR) instead
 * of the closed forms of diderot_tensor.h.
 *
 * We call the _work entry points in column-major layout with a workspace
 * on the stack: LAPACKE's row-major and high-level wrappers malloc a
 * transposed copy and a workspace on every call, which generated code
 * would do once per strand per step.
 *
 * The body is written once and included twice (as diderot_tensor.h does),
 * for double (dsyev) and float (ssyev).
 */
#ifndef DRT_LAPACK_BODY
#include <math.h>

#include <lapacke.h>

#include "diderot_tensor.h"

/* dsyev needs lwork >= 3n-1; more only enables the blocked reduction,
 * which LAPACK does not use for n this small. */
enum { DRT_LAPACK_LWORK = 64 };

#define DRT_LAPACK_BODY 1
#define DRT_R double
#define DRT_EIGEN drt_eigen_lapack_d
#define DRT_SYEV LAPACKE_dsyev_work
#include "rt_lapack.c"
#undef DRT_R
#undef DRT_EIGEN
#undef DRT_SYEV

#define DRT_R float
#define DRT_EIGEN drt_eigen_lapack_f
#define DRT_SYEV LAPACKE_ssyev_work
#include "rt_lapack.c"
#undef DRT_R
#undef DRT_EIGEN
#undef DRT_SYEV
#undef DRT_LAPACK_BODY

#else /* DRT_LAPACK_BODY: the body, once per type ------------------------- */

bool DRT_EIGEN(int n, const DRT_R *m, DRT_R *evals, DRT_R *evecs) {
  if (n != 2 && n != 3) return true;
  DRT_R a[9] = {0}, w[3], work[DRT_LAPACK_LWORK];
  /* Column-major (i,j) is a[i + j*n]; LAPACK reads the upper triangle
   * i <= j, which we fill from the row-major upper triangle of m. */
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++) a[i + j * n] = m[i * n + j];
  lapack_int info = DRT_SYEV(LAPACK_COL_MAJOR, evecs ? 'V' : 'N', 'U', n, a, n, w, work,
                             DRT_LAPACK_LWORK);
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

#endif /* DRT_LAPACK_BODY */
