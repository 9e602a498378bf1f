/* test_tensor.c -- the tensor kernels of rt/diderot_tensor.h (det, inv,
 * evals, evecs; doc/language.md §10.1) and the LAPACK path of rt/rt_lapack.c.
 *
 * Oracles: reference LAPACK (dsyev for eigen-problems, dgetrf's LU product
 * for det, dgetri for inv); a cyclic Jacobi solver in long double, which
 * gives the exact eigen-decomposition to ~1e-19 and so separates our
 * errors from LAPACK's own; long-double evaluations of the defining
 * identities (A v = l v, V V^T = I, A X = I, the Cayley-Hamilton formula
 * of the original compiler's inv); and hand-derived values.  Matrices come from a fixed-seed
 * generator in classes chosen to stress closed forms: random entries,
 * prescribed spectra, nearly and exactly repeated eigenvalues, rank 1,
 * graded spectra and entries over many decades, extreme scales, negative
 * definite, ill-conditioned (for inv).  Float variants are checked on the
 * float-rounded matrix against double LAPACK, with float tolerances.
 *
 * Errors are measured in units of the type's epsilon: eigenvalues and
 * residuals relative to |A|_F, eigenvectors (sign-free distance to the
 * exact or LAPACK's) relative to |A|_F / gap, inverses relative to
 * gamma = |A|_F^n / |det A| (see inv_errors).  The maxima are printed as
 * the measured accuracy (documented in diderot_tensor.h).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <lapacke.h>

#include "diderot_tensor.h"
#include "unit.h"

typedef long double LD;

/* Failure thresholds, in units of epsilon, about twice the largest errors
 * measured (printed by the test). */
#define TOL_EV 8.0   /* |l - l_exact| / (eps |A|_F) */
#define TOL_RES 8.0  /* |A v - l v| / (eps |A|_F) */
#define TOL_ORTH 8.0 /* |V V^T - I|_max / eps */
#define TOL_VEC 8.0  /* dist(v, v_exact) gap / (eps |A|_F) */
#define TOL_PATH 32.0 /* the same four for the LAPACK path */
#define TOL_DET 4.0  /* |det - det_lu| / (eps prod_i |row_i|_1) */
#define TOL_INV 4.0  /* |X - X_lapack|_max / (eps gamma |X|_max) */
#define TOL_AXI 4.0  /* |A X - I|_max / (eps gamma), gamma = |A|_F^n/|det| */

enum { PER_CLASS = 500 };

/* ---- deterministic random numbers (splitmix64) ------------------------ */

typedef struct Rng {
  uint64_t s;
} Rng;

static uint64_t rng_u64(Rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static double rng_unit(Rng *r) { return (double)(rng_u64(r) >> 11) * 0x1.0p-53; }
static double rng_pm1(Rng *r) { return 2.0 * rng_unit(r) - 1.0; }
static int rng_int(Rng *r, int n) { return (int)(rng_u64(r) % (uint64_t)n); }
static double rng_sign(Rng *r) { return rng_int(r, 2) ? 1.0 : -1.0; }
/* 10^u, u uniform in [lo, hi] */
static double rng_decade(Rng *r, double lo, double hi) {
  return pow(10.0, lo + (hi - lo) * rng_unit(r));
}

/* A random rotation, row-major, in long double: from a unit quaternion
 * (n = 3) or an angle (n = 2). */
static void rand_rot(Rng *r, int n, LD q[9]) {
  if (n == 2) {
    LD a = 6.283185307179586476925L * (LD)rng_unit(r);
    q[0] = cosl(a), q[1] = -sinl(a), q[2] = sinl(a), q[3] = cosl(a);
    return;
  }
  LD w, x, y, z, s;
  do {
    w = rng_pm1(r), x = rng_pm1(r), y = rng_pm1(r), z = rng_pm1(r);
    s = w * w + x * x + y * y + z * z;
  } while (s > 1 || s < 1e-3L);
  s = sqrtl(s);
  w /= s, x /= s, y /= s, z /= s;
  q[0] = 1 - 2 * (y * y + z * z), q[1] = 2 * (x * y - z * w),
  q[2] = 2 * (x * z + y * w);
  q[3] = 2 * (x * y + z * w), q[4] = 1 - 2 * (x * x + z * z),
  q[5] = 2 * (y * z - x * w);
  q[6] = 2 * (x * z - y * w), q[7] = 2 * (y * z + x * w),
  q[8] = 1 - 2 * (x * x + y * y);
}

/* A = Q diag(l) Q^T with Q random, in long double, rounded once. */
static void from_spectrum(Rng *r, int n, const double *l, double *a) {
  LD q[9];
  rand_rot(r, n, q);
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++) {
      LD s = 0;
      for (int k = 0; k < n; k++) s += q[i * n + k] * (LD)l[k] * q[j * n + k];
      a[i * n + j] = a[j * n + i] = (double)s;
    }
}

/* ---- symmetric test matrices --------------------------------------------- */

enum {
  S_UNIFORM,  /* entries uniform in [-1,1] times 10^[-3,3] */
  S_SPECTRUM, /* eigenvalues uniform in [-1,1], random eigenvectors */
  S_NEAR2,    /* two eigenvalues 10^-k apart, k in [1,16] */
  S_NEAR3,    /* all eigenvalues within 10^-k */
  S_EXACT,    /* exactly repeated eigenvalues in exactly stored matrices */
  S_RANK1,    /* c v v^T (+ s I) */
  S_GRADED,   /* eigenvalues +-10^[-12,12] */
  S_DSD,      /* D S D, D = diag(10^[-8,8]): entries over 32 decades */
  S_NEGDEF,   /* negative definite, eigenvalues -10^[-3,3] */
  S_SCALE,    /* S_SPECTRUM times 10^[-emax,emax] */
  S_NCLASS
};
static const char *const sym_class_name[S_NCLASS] = {
    "uniform", "spectrum", "near2",  "near3",  "exact",
    "rank1",   "graded",   "DSD",    "negdef", "scale"};

/* Permute rows and columns of the symmetric a by a random permutation. */
static void rand_permute(Rng *r, int n, double *a) {
  int p[3] = {0, 1, 2};
  for (int i = n - 1; i > 0; i--) {
    int j = rng_int(r, i + 1), t = p[i];
    p[i] = p[j], p[j] = t;
  }
  double b[9];
  for (int i = 0; i < n * n; i++) b[i] = a[i];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) a[i * n + j] = b[p[i] * n + p[j]];
}

static void gen_exact(Rng *r, int n, double *a) {
  memset(a, 0, sizeof(double) * (size_t)(n * n));
  double x = rng_pm1(r), y = rng_pm1(r), z = rng_pm1(r);
  switch (rng_int(r, 6)) {
  case 0: /* diagonal with a repeated value */
    a[0] = x, a[n + 1] = x, a[n * n - 1] = n == 3 ? y : x;
    break;
  case 1: /* diagonal, distinct */
    a[0] = x, a[n + 1] = y, a[n * n - 1] = n == 3 ? z : y;
    break;
  case 2: /* c I */
    for (int i = 0; i < n; i++) a[i * n + i] = x;
    break;
  case 3: /* [[x,y,y],[y,x,y],[y,y,x]]: x+2y, x-y, x-y; [[x,y],[y,x]]: x+-y */
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) a[i * n + j] = i == j ? x : y;
    for (int i = 0; i < n; i++) /* D M D, D = diag(+-1): same spectrum */
      if (rng_int(r, 2))
        for (int j = 0; j < n; j++)
          if (j != i) a[i * n + j] = -a[i * n + j], a[j * n + i] = -a[j * n + i];
    break;
  case 4: /* [[x+y,0,0],[0,x,y],[0,y,x]]: x+y twice, x-y */
    if (n == 2) {
      a[0] = a[3] = x;
      break;
    }
    a[0] = x + y, a[4] = a[8] = x, a[5] = a[7] = y;
    break;
  default: /* zero */
    break;
  }
  if (n == 3) rand_permute(r, n, a);
}

static void gen_sym(Rng *r, int n, int cls, double emax, double *a) {
  double l[3];
  switch (cls) {
  case S_UNIFORM: {
    double s = rng_decade(r, -3, 3);
    for (int i = 0; i < n; i++)
      for (int j = i; j < n; j++) a[i * n + j] = a[j * n + i] = s * rng_pm1(r);
    return;
  }
  case S_SPECTRUM:
  case S_SCALE: {
    double s = cls == S_SCALE ? rng_decade(r, -emax, emax) : 1.0;
    for (int k = 0; k < n; k++) l[k] = s * rng_pm1(r);
    break;
  }
  case S_NEAR2: {
    double d = pow(10.0, -1 - rng_int(r, 16));
    l[0] = rng_pm1(r), l[1] = l[0] + d * rng_sign(r), l[2] = rng_pm1(r);
    break;
  }
  case S_NEAR3: {
    double d = pow(10.0, -1 - rng_int(r, 16));
    l[0] = rng_pm1(r);
    l[1] = l[0] + d * rng_pm1(r), l[2] = l[0] + d * rng_pm1(r);
    break;
  }
  case S_EXACT:
    gen_exact(r, n, a);
    return;
  case S_RANK1: {
    /* c v v^T + s I, s = 0 half of the time: eigenvalues c+s, s, s */
    LD q[9];
    rand_rot(r, n, q);
    double c = rng_sign(r) * rng_decade(r, -3, 3);
    double s = rng_int(r, 2) ? rng_pm1(r) : 0.0;
    for (int i = 0; i < n; i++)
      for (int j = i; j < n; j++)
        a[i * n + j] = a[j * n + i] =
            (double)((LD)c * q[i * n] * q[j * n] + (i == j ? s : 0));
    return;
  }
  case S_GRADED:
    for (int k = 0; k < n; k++) l[k] = rng_sign(r) * rng_decade(r, -12, 12);
    break;
  case S_DSD: {
    double d[3];
    for (int i = 0; i < n; i++) d[i] = rng_decade(r, -8, 8);
    for (int i = 0; i < n; i++)
      for (int j = i; j < n; j++)
        a[i * n + j] = a[j * n + i] = d[i] * rng_pm1(r) * d[j];
    return;
  }
  case S_NEGDEF:
    for (int k = 0; k < n; k++) l[k] = -rng_decade(r, -3, 3);
    break;
  }
  from_spectrum(r, n, l, a);
}

/* ---- eigen checks --------------------------------------------------------- */

/* An eigen-decomposition in long double: eigenvalues descending, unit
 * eigenvectors in rows. */
typedef struct Eig {
  LD ev[3], v[9];
} Eig;

/* The exact answer, to ~1e-19 |A|: cyclic Jacobi in long double.  It is
 * independent of LAPACK and separates our errors from LAPACK's own. */
static void jacobi_ld(int n, const double *a, Eig *out) {
  LD m[9], v[9];
  for (int i = 0; i < n * n; i++) m[i] = a[i], v[i] = i % (n + 1) == 0;
  for (int sweep = 0; sweep < 100; sweep++) {
    LD off = 0, all = 0;
    for (int i = 0; i < n * n; i++) all += m[i] * m[i];
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) off += m[p * n + q] * m[p * n + q];
    if (off <= 1e-45L * all) break;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) {
        LD apq = m[p * n + q];
        if (apq == 0) continue;
        /* Golub & Van Loan's sym.schur2: zero (p,q) with J(p,q,theta) */
        LD tau = (m[q * n + q] - m[p * n + p]) / (2 * apq);
        LD t = (tau >= 0 ? 1 : -1) / (fabsl(tau) + sqrtl(1 + tau * tau));
        LD c = 1 / sqrtl(1 + t * t), s = t * c;
        for (int k = 0; k < n; k++) {
          LD x = m[k * n + p], y = m[k * n + q];
          m[k * n + p] = c * x - s * y, m[k * n + q] = s * x + c * y;
        }
        for (int k = 0; k < n; k++) {
          LD x = m[p * n + k], y = m[q * n + k];
          m[p * n + k] = c * x - s * y, m[q * n + k] = s * x + c * y;
        }
        for (int k = 0; k < n; k++) {
          LD x = v[k * n + p], y = v[k * n + q];
          v[k * n + p] = c * x - s * y, v[k * n + q] = s * x + c * y;
        }
        m[p * n + q] = m[q * n + p] = 0;
      }
  }
  int ord[3] = {0, 1, 2};
  for (int i = 0; i < n; i++) /* selection sort, descending */
    for (int j = i + 1; j < n; j++)
      if (m[ord[j] * (n + 1)] > m[ord[i] * (n + 1)]) {
        int t = ord[i];
        ord[i] = ord[j], ord[j] = t;
      }
  for (int k = 0; k < n; k++) {
    out->ev[k] = m[ord[k] * (n + 1)];
    for (int i = 0; i < n; i++) out->v[k * n + i] = v[i * n + ord[k]];
  }
}

/* LAPACK's dsyev, the oracle of the brief, in the same form. */
static bool lapack_syev(int n, const double *a, Eig *out) {
  double z[9], w[3];
  memcpy(z, a, sizeof(double) * (size_t)(n * n));
  if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', n, z, n, w) != 0) return false;
  for (int k = 0; k < n; k++) {
    out->ev[k] = w[n - 1 - k];
    for (int i = 0; i < n; i++) out->v[k * n + i] = z[i * n + (n - 1 - k)];
  }
  return true;
}

/* Errors of a computed (ev, v) for the symmetric a, in units of eps:
 * eigenvalues against ref relative to |A|_F; the residual |A v - l v|
 * relative to |A|_F; |V V^T - I|_max; the sign-free distance to ref's
 * eigenvector times the gap over |A|_F (Davis-Kahan: dist <~ |residual| /
 * gap, so this is O(1) whatever the gap, and needs no threshold). */
typedef struct Err {
  double ev, res, orth, vec;
} Err;

static double maxd(double a, double b) { return a > b ? a : b; }

static Err eigen_err(int n, const double *a, const Eig *ref, const double *ev,
                     const double *v, double eps) {
  Err e = {0, 0, 0, 0};
  LD nrm = 0;
  for (int i = 0; i < n * n; i++) nrm += (LD)a[i] * a[i];
  nrm = sqrtl(nrm);
  LD unit = eps * nrm;
  for (int k = 0; k < n; k++) {
    LD dev = fabsl((LD)ev[k] - ref->ev[k]);
    e.ev = maxd(e.ev, nrm > 0 ? (double)(dev / unit) : dev == 0 ? 0 : INFINITY);
    LD res = 0, dp = 0, dm = 0;
    for (int i = 0; i < n; i++) {
      LD s = -(LD)ev[k] * v[k * n + i];
      for (int j = 0; j < n; j++) s += (LD)a[i * n + j] * v[k * n + j];
      res += s * s;
      LD x = v[k * n + i], y = ref->v[k * n + i];
      dp += (x - y) * (x - y), dm += (x + y) * (x + y);
    }
    LD gap = INFINITY;
    for (int j = 0; j < n; j++)
      if (j != k) gap = fminl(gap, fabsl(ref->ev[j] - ref->ev[k]));
    if (nrm > 0) {
      e.res = maxd(e.res, (double)(sqrtl(res) / unit));
      e.vec = maxd(e.vec, (double)(sqrtl(fminl(dp, dm)) * gap / unit));
    }
    for (int l = 0; l < n; l++) {
      LD d = l == k ? -1 : 0;
      for (int i = 0; i < n; i++) d += (LD)v[k * n + i] * v[l * n + i];
      e.orth = maxd(e.orth, (double)(fabsl(d) / eps));
    }
  }
  return e;
}

static void err_max(Err *acc, Err e) {
  acc->ev = maxd(acc->ev, e.ev), acc->res = maxd(acc->res, e.res);
  acc->orth = maxd(acc->orth, e.orth), acc->vec = maxd(acc->vec, e.vec);
}

/* Largest errors seen: ours against the exact answer and against LAPACK,
 * and the LAPACK path (drt_eigen_lapack_*) against the exact answer. */
typedef struct EigenStats {
  Err exact, lapack, path;
  long nmat;
} EigenStats;

static bool same_bits(const void *x, const void *y, size_t n) {
  return memcmp(x, y, n) == 0;
}

/* One matrix: a is the double image of the matrix in the type under test
 * (eps), ev/v our result, pev/pv the LAPACK path's. */
static void eigen_judge(int n, const double *a, const double *ev,
                        const double *v, const double *pev, const double *pv,
                        double eps, EigenStats *st, const char *what) {
  Eig exact, lap;
  jacobi_ld(n, a, &exact);
  if (!lapack_syev(n, a, &lap)) {
    CHECK_MSG(0, "%s: dsyev failed", what);
    return;
  }
  for (int k = 0; k + 1 < n; k++)
    CHECK_MSG(ev[k] >= ev[k + 1], "%s: not descending: %g %g", what, ev[k],
              ev[k + 1]);
  Err e = eigen_err(n, a, &exact, ev, v, eps);
  CHECK_MSG(e.ev <= TOL_EV, "%s: eigenvalue error %.3g eps|A|", what, e.ev);
  CHECK_MSG(e.res <= TOL_RES, "%s: residual %.3g eps|A|", what, e.res);
  CHECK_MSG(e.orth <= TOL_ORTH, "%s: orthonormality %.3g eps", what, e.orth);
  CHECK_MSG(e.vec <= TOL_VEC, "%s: eigenvector error %.3g eps|A|/gap", what,
            e.vec);
  err_max(&st->exact, e);
  /* against LAPACK: our error plus LAPACK's own */
  e = eigen_err(n, a, &lap, ev, v, eps);
  CHECK_MSG(e.ev <= 2 * TOL_EV, "%s: eigenvalue differs from LAPACK by %.3g "
            "eps|A|", what, e.ev);
  CHECK_MSG(e.vec <= 2 * TOL_VEC, "%s: eigenvector differs from LAPACK by "
            "%.3g eps|A|/gap", what, e.vec);
  err_max(&st->lapack, e);
  e = eigen_err(n, a, &exact, pev, pv, eps);
  CHECK_MSG(e.ev <= TOL_PATH && e.res <= TOL_PATH && e.orth <= TOL_PATH &&
                e.vec <= TOL_PATH,
            "%s: LAPACK path errors %.3g %.3g %.3g %.3g", what, e.ev, e.res,
            e.orth, e.vec);
  err_max(&st->path, e);
  st->nmat++;
}

static void check_eigen_d(int n, const double *a, EigenStats *st,
                          const char *what) {
  double ev[3], v[9], ev2[3], v2[9], ev3[3], v3[9];
  if (n == 2) {
    drt_eigen2_d(a, ev, v);
    drt_evals2_d(a, ev2);
    drt_evecs2_d(a, v2);
  } else {
    drt_eigen3_d(a, ev, v);
    drt_evals3_d(a, ev2);
    drt_evecs3_d(a, v2);
  }
  CHECK_MSG(same_bits(ev, ev2, sizeof(double) * (size_t)n) &&
                same_bits(v, v2, sizeof(double) * (size_t)(n * n)),
            "%s: evals/evecs differ from eigen", what);
  /* only the upper triangle is read: NaN below it changes nothing */
  double g[9];
  memcpy(g, a, sizeof g);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++) g[i * n + j] = NAN;
  if (n == 2)
    drt_eigen2_d(g, ev2, v2);
  else
    drt_eigen3_d(g, ev2, v2);
  CHECK_MSG(same_bits(ev, ev2, sizeof(double) * (size_t)n) &&
                same_bits(v, v2, sizeof(double) * (size_t)(n * n)),
            "%s: the lower triangle was read", what);
  CHECK_MSG(!drt_eigen_lapack_d(n, g, ev3, v3), "%s: LAPACK path failed", what);
  eigen_judge(n, a, ev, v, ev3, v3, DBL_EPSILON, st, what);
}

static void check_eigen_f(int n, const double *a0, EigenStats *st,
                          const char *what) {
  float af[9], ev[3], v[9], ev2[3], v2[9], g[9];
  double a[9], evd[3], vd[9], pev[3], pv[9];
  for (int i = 0; i < n * n; i++) a[i] = af[i] = (float)a0[i];
  if (n == 2) {
    drt_eigen2_f(af, ev, v);
    drt_evals2_f(af, ev2);
    drt_evecs2_f(af, v2);
  } else {
    drt_eigen3_f(af, ev, v);
    drt_evals3_f(af, ev2);
    drt_evecs3_f(af, v2);
  }
  CHECK_MSG(same_bits(ev, ev2, sizeof(float) * (size_t)n) &&
                same_bits(v, v2, sizeof(float) * (size_t)(n * n)),
            "%s: evals/evecs differ from eigen", what);
  memcpy(g, af, sizeof g);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++) g[i * n + j] = NAN;
  CHECK_MSG(!drt_eigen_lapack_f(n, g, ev2, v2), "%s: LAPACK path failed", what);
  for (int i = 0; i < n; i++) evd[i] = ev[i], pev[i] = ev2[i];
  for (int i = 0; i < n * n; i++) vd[i] = v[i], pv[i] = v2[i];
  eigen_judge(n, a, evd, vd, pev, pv, FLT_EPSILON, st, what);
}

static void report_eigen(const char *name, const EigenStats *st) {
  printf("%s: %ld matrices, max errors in eps (evals, residual, "
         "orthonormality, evecs):\n"
         "  vs exact %.2f %.2f %.2f %.2f; vs LAPACK %.2f - - %.2f; "
         "LAPACK path vs exact %.2f %.2f %.2f %.2f\n",
         name, st->nmat, st->exact.ev, st->exact.res, st->exact.orth,
         st->exact.vec, st->lapack.ev, st->lapack.vec, st->path.ev,
         st->path.res, st->path.orth, st->path.vec);
}

static void test_eigen_random(void) {
  Rng rng = {20240611u};
  for (int n = 2; n <= 3; n++) {
    EigenStats sd = {0}, sf = {0};
    char what[96];
    for (int cls = 0; cls < S_NCLASS; cls++)
      for (int it = 0; it < PER_CLASS; it++) {
        double a[9];
        gen_sym(&rng, n, cls, 300, a);
        snprintf(what, sizeof what, "%dx%d double %s #%d", n, n,
                 sym_class_name[cls], it);
        check_eigen_d(n, a, &sd, what);
        gen_sym(&rng, n, cls, 30, a);
        snprintf(what, sizeof what, "%dx%d float %s #%d", n, n,
                 sym_class_name[cls], it);
        check_eigen_f(n, a, &sf, what);
      }
    report_eigen(n == 2 ? "eigen2_d" : "eigen3_d", &sd);
    report_eigen(n == 2 ? "eigen2_f" : "eigen3_f", &sf);
  }
}

/* Hand-derived eigen-decompositions. */
static void test_eigen_hand(void) {
  const double eps = DBL_EPSILON;
  double ev[3], v[9];
  /* [[2,1],[1,2]]: 3 with (1,1)/sqrt2, 1 with (1,-1)/sqrt2 */
  const double m2[4] = {2, 1, 1, 2};
  drt_eigen2_d(m2, ev, v);
  CHECK_NEAR(ev[0], 3, 4 * eps);
  CHECK_NEAR(ev[1], 1, 4 * eps);
  CHECK_NEAR(fabs(v[0]), sqrt(0.5), 4 * eps);
  CHECK_NEAR(v[0] * v[1], 0.5, 4 * eps);
  CHECK_NEAR(v[2] * v[3], -0.5, 4 * eps);
  /* [[2,1,1],[1,2,1],[1,1,2]]: 4 with (1,1,1)/sqrt3, then 1 twice */
  const double m3[9] = {2, 1, 1, 1, 2, 1, 1, 1, 2};
  drt_eigen3_d(m3, ev, v);
  CHECK_NEAR(ev[0], 4, 8 * eps);
  CHECK_NEAR(ev[1], 1, 8 * eps);
  CHECK_NEAR(ev[2], 1, 8 * eps);
  for (int i = 0; i < 3; i++) CHECK_NEAR(v[0] * v[i], 1.0 / 3, 8 * eps);
  for (int k = 1; k < 3; k++) /* orthogonal to (1,1,1) */
    CHECK_NEAR(v[3 * k] + v[3 * k + 1] + v[3 * k + 2], 0, 8 * eps);
  /* diag(1,3,2): 3, 2, 1 with axes e1, e2, e0 */
  const double d3[9] = {1, 0, 0, 0, 3, 0, 0, 0, 2};
  drt_eigen3_d(d3, ev, v);
  CHECK_NEAR(ev[0], 3, 8 * eps);
  CHECK_NEAR(ev[1], 2, 8 * eps);
  CHECK_NEAR(ev[2], 1, 8 * eps);
  CHECK_NEAR(fabs(v[1]), 1, 8 * eps);
  CHECK_NEAR(fabs(v[5]), 1, 8 * eps);
  CHECK_NEAR(fabs(v[6]), 1, 8 * eps);
  /* the zero and identity matrices: exact values, the axes as vectors */
  const double z3[9] = {0}, i3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  drt_eigen3_d(z3, ev, v);
  CHECK(ev[0] == 0 && ev[1] == 0 && ev[2] == 0);
  CHECK(v[0] == 1 && v[4] == 1 && v[8] == 1 && v[1] == 0 && v[5] == 0);
  drt_eigen3_d(i3, ev, v);
  CHECK(ev[0] == 1 && ev[1] == 1 && ev[2] == 1);
  CHECK(v[0] == 1 && v[4] == 1 && v[8] == 1 && v[3] == 0 && v[7] == 0);
  float evf[2], vf[4];
  const float i2[4] = {5, 0, 0, 5};
  drt_eigen2_f(i2, evf, vf);
  CHECK(evf[0] == 5 && evf[1] == 5 && vf[0] == 1 && vf[1] == 0 &&
        vf[2] == 0 && vf[3] == 1);
  /* near overflow: the scaled forms neither overflow nor underflow */
  const double big[9] = {1e307, 5e306, 0, 5e306, 1e307, 0, 0, 0, -1e307};
  drt_eigen3_d(big, ev, v);
  CHECK_NEAR(ev[0] / 1.5e307, 1, 8 * eps);
  CHECK_NEAR(ev[1] / 5e306, 1, 16 * eps);
  CHECK_NEAR(ev[2] / -1e307, 1, 8 * eps);
  const float bigf[4] = {1e38f, 1e38f, 1e38f, 1e38f}; /* 2e38, 0 */
  drt_eigen2_f(bigf, evf, vf);
  CHECK_NEAR(evf[0] / 2e38, 1, 4 * FLT_EPSILON);
  CHECK(fabsf(evf[1]) <= 1e38f * 4 * FLT_EPSILON);
  CHECK_NEAR(fabsf(vf[0]), sqrt(0.5), 4 * FLT_EPSILON);
  const double tiny[4] = {3e-310, 1e-310, 1e-310, 3e-310}; /* subnormal */
  drt_eigen2_d(tiny, ev, v);
  CHECK(ev[0] >= ev[1] && isfinite(v[0]) && isfinite(v[1]));
  /* NaN in, NaN out, no crash */
  const double nan3[9] = {1, NAN, 0, NAN, 1, 0, 0, 0, 1};
  drt_eigen3_d(nan3, ev, v);
  CHECK(isnan(ev[0]) && isnan(ev[1]) && isnan(ev[2]));
  const double nan2[4] = {NAN, 0, 0, 1};
  drt_eigen2_d(nan2, ev, v);
  CHECK(isnan(ev[0]) && isnan(ev[1]));
  const double inf3[9] = {INFINITY, 1, 0, 1, 1, 0, 0, 0, 1};
  drt_eigen3_d(inf3, ev, v); /* only: no crash, no sanitizer report */
  /* the LAPACK path rejects sizes other than 2 and 3 */
  CHECK(drt_eigen_lapack_d(4, m3, ev, v));
  CHECK(drt_eigen_lapack_f(1, i2, evf, vf));
  /* and reports non-convergence (NaN input) with NaN outputs */
  if (drt_eigen_lapack_d(3, nan3, ev, v)) CHECK(isnan(ev[0]) && isnan(v[0]));
}

/* ---- det and inv ------------------------------------------------------------ */

enum {
  G_UNIFORM, /* entries uniform in [-1,1] */
  G_COND,    /* U diag(1, s, s^2) V^T, s = 10^-[0,kmax/2]: kappa up to 10^kmax */
  G_SCALED,  /* D1 A D2, D = diag(10^[-6,6]) */
  G_SCALE,   /* uniform times 10^[-emax,emax] */
  G_INTEGER, /* integers in [-5,5]: det exact */
  G_NCLASS
};
static const char *const gen_class_name[G_NCLASS] = {
    "uniform", "cond", "scaled", "scale", "integer"};

static void gen_general(Rng *r, int n, int cls, double emax, double kmax,
                        double *a) {
  switch (cls) {
  case G_COND: {
    LD u[9], v[9];
    rand_rot(r, n, u);
    rand_rot(r, n, v);
    double s = pow(10.0, -0.5 * kmax * rng_unit(r));
    double sv[3] = {1, s, s * s};
    if (n == 2) sv[1] = s * s;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        LD t = 0;
        for (int k = 0; k < n; k++) t += u[i * n + k] * (LD)sv[k] * v[j * n + k];
        a[i * n + j] = (double)t;
      }
    return;
  }
  case G_INTEGER:
    for (int i = 0; i < n * n; i++) a[i] = rng_int(r, 11) - 5;
    return;
  default: {
    double s = cls == G_SCALE ? rng_decade(r, -emax, emax) : 1.0;
    double d1[3], d2[3];
    for (int i = 0; i < n; i++) {
      d1[i] = cls == G_SCALED ? rng_decade(r, -6, 6) : 1.0;
      d2[i] = cls == G_SCALED ? rng_decade(r, -6, 6) : 1.0;
    }
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) a[i * n + j] = s * d1[i] * rng_pm1(r) * d2[j];
  }
  }
}

typedef struct InvStats {
  double det, inv, axi, ch;
  long nmat;
} InvStats;

/* The inverse by the Cayley-Hamilton formula of §4.4, in long double:
 * ((tr^2 - tr(A.A))/2 I - tr A + A.A) / det. */
static void inv3_cayley_hamilton(const double *a, LD *x) {
  LD aa[9], tr = (LD)a[0] + a[4] + a[8], tr2 = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      LD s = 0;
      for (int k = 0; k < 3; k++) s += (LD)a[i * 3 + k] * a[k * 3 + j];
      aa[i * 3 + j] = s;
    }
  tr2 = aa[0] + aa[4] + aa[8];
  LD det = (LD)a[0] * ((LD)a[4] * a[8] - (LD)a[5] * a[7]) -
           (LD)a[1] * ((LD)a[3] * a[8] - (LD)a[5] * a[6]) +
           (LD)a[2] * ((LD)a[3] * a[7] - (LD)a[4] * a[6]);
  for (int i = 0; i < 9; i++)
    x[i] = ((i % 4 == 0 ? (tr * tr - tr2) / 2 : 0) - tr * a[i] + aa[i]) / det;
}

/* Check det and inv (computed in the type with epsilon eps, passed here
 * as double) against dgetrf/dgetri on a (already rounded to the type). */
static void inv_errors(int n, const double *a, double det, const double *x,
                       double eps, bool cayley, InvStats *st,
                       const char *what) {
  double lu[9], xl[9];
  lapack_int ipiv[3];
  memcpy(lu, a, sizeof(double) * (size_t)(n * n));
  /* LU can miss an exact singularity by rounding; for small integers the
   * long-double cofactor expansion is exact and catches it */
  LD dx = n == 2 ? (LD)a[0] * a[3] - (LD)a[1] * a[2]
                 : (LD)a[0] * ((LD)a[4] * a[8] - (LD)a[5] * a[7]) -
                       (LD)a[1] * ((LD)a[3] * a[8] - (LD)a[5] * a[6]) +
                       (LD)a[2] * ((LD)a[3] * a[7] - (LD)a[4] * a[6]);
  if (LAPACKE_dgetrf(LAPACK_ROW_MAJOR, n, n, lu, n, ipiv) != 0 || dx == 0) {
    /* exactly singular: det must be 0, inv must not be finite */
    CHECK_MSG(det == 0, "%s: det %g of a singular matrix", what, det);
    bool finite = true;
    for (int i = 0; i < n * n; i++) finite = finite && isfinite(x[i]);
    CHECK_MSG(!finite, "%s: finite inverse of a singular matrix", what);
    return;
  }
  LD dl = 1, rows = 1;
  for (int i = 0; i < n; i++) {
    dl *= lu[i * n + i] * (ipiv[i] != i + 1 ? -1 : 1);
    LD r1 = 0;
    for (int j = 0; j < n; j++) r1 += fabsl((LD)a[i * n + j]);
    rows *= r1;
  }
  double e_det = (double)(fabsl(det - dl) / (eps * rows));
  CHECK_MSG(e_det <= TOL_DET, "%s: det %.17g, LU %.17Lg: %.3g eps", what, det,
            dl, e_det);
  st->det = maxd(st->det, e_det);
  memcpy(xl, lu, sizeof xl);
  if (LAPACKE_dgetri(LAPACK_ROW_MAJOR, n, xl, n, ipiv) != 0) {
    CHECK_MSG(0, "%s: dgetri failed", what);
    return;
  }
  /* Any adjugate/determinant (Cramer) inverse, the Cayley-Hamilton one of
   * §4.4 included, has errors of order eps gamma with gamma =
   * |A|_F^n / |det A| = kappa (sigma_1/sigma_2 for n = 3): the cofactors
   * and det carry absolute errors eps |A|^(n-1) and eps |A|^n.  gamma >=
   * kappa_2; for a nearly rank-1 3x3 it exceeds LU's kappa. */
  LD fro = 0, xmax = 0;
  for (int i = 0; i < n * n; i++) {
    fro += (LD)a[i] * a[i];
    xmax = fmaxl(xmax, fabsl((LD)xl[i]));
  }
  fro = sqrtl(fro);
  LD gamma = (n == 2 ? fro * fro : fro * fro * fro) / fabsl(dl);
  LD d_inv = 0, d_axi = 0, d_ch = 0, xch[9];
  if (cayley) inv3_cayley_hamilton(a, xch);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      d_inv = fmaxl(d_inv, fabsl((LD)x[i * n + j] - xl[i * n + j]));
      LD s = i == j ? -1 : 0;
      for (int k = 0; k < n; k++) s += (LD)a[i * n + k] * x[k * n + j];
      d_axi = fmaxl(d_axi, fabsl(s));
      if (cayley) d_ch = fmaxl(d_ch, fabsl(x[i * n + j] - xch[i * n + j]));
    }
  double e_inv = (double)(d_inv / (eps * gamma * xmax));
  double e_axi = (double)(d_axi / (eps * gamma));
  double e_ch = (double)(d_ch / (eps * gamma * xmax));
  CHECK_MSG(e_inv <= TOL_INV, "%s: inverse error %.3g eps gamma (gamma %.3Lg)",
            what, e_inv, gamma);
  CHECK_MSG(e_axi <= TOL_AXI, "%s: |A inv(A) - I| %.3g eps gamma", what, e_axi);
  CHECK_MSG(e_ch <= TOL_INV, "%s: differs from Cayley-Hamilton by %.3g eps "
            "gamma", what, e_ch);
  st->inv = maxd(st->inv, e_inv);
  st->axi = maxd(st->axi, e_axi);
  st->ch = maxd(st->ch, e_ch);
  st->nmat++;
}

static void test_inv_random(void) {
  Rng rng = {77u};
  for (int n = 2; n <= 3; n++) {
    InvStats sd = {0}, sf = {0};
    char what[96];
    for (int cls = 0; cls < G_NCLASS; cls++)
      for (int it = 0; it < PER_CLASS; it++) {
        double a[9], x[9], det;
        /* det of a 3x3 scales as 10^(3e): keep it in range */
        gen_general(&rng, n, cls, 90, 12, a);
        snprintf(what, sizeof what, "%dx%d double %s #%d", n, n,
                 gen_class_name[cls], it);
        det = n == 2 ? drt_det2_d(a) : drt_det3_d(a);
        if (n == 2)
          drt_inv2_d(a, x);
        else
          drt_inv3_d(a, x);
        /* Cayley-Hamilton in long double is itself inaccurate when the
         * entries span many decades (the reason inv3 uses cofactors) */
        bool ch = n == 3 && (cls == G_UNIFORM || cls == G_COND ||
                             cls == G_INTEGER || cls == G_SCALE);
        inv_errors(n, a, det, x, DBL_EPSILON, ch, &sd, what);

        float af[9], xf[9];
        gen_general(&rng, n, cls, 10, 5, a);
        for (int i = 0; i < n * n; i++) a[i] = af[i] = (float)a[i];
        snprintf(what, sizeof what, "%dx%d float %s #%d", n, n,
                 gen_class_name[cls], it);
        det = n == 2 ? drt_det2_f(af) : drt_det3_f(af);
        if (n == 2)
          drt_inv2_f(af, xf);
        else
          drt_inv3_f(af, xf);
        for (int i = 0; i < n * n; i++) x[i] = xf[i];
        inv_errors(n, a, det, x, FLT_EPSILON, ch, &sf, what);
      }
    for (int p = 0; p < 2; p++) {
      const InvStats *s = p ? &sf : &sd;
      printf("det/inv%d_%c: %ld matrices; max error (eps units): det %.2f, "
             "inv %.2f gamma, A inv(A) - I %.2f gamma",
             n, p ? 'f' : 'd', s->nmat, s->det, s->inv, s->axi);
      if (n == 3) printf(", vs Cayley-Hamilton %.2f gamma", s->ch);
      printf("\n");
    }
  }
}

/* Hand-derived inverses and determinants (exact in binary). */
static void test_inv_hand(void) {
  const double a2[4] = {1, 2, 3, 4}, want2[4] = {-2, 1, 1.5, -0.5};
  double x[9];
  CHECK(drt_det2_d(a2) == -2);
  drt_inv2_d(a2, x);
  for (int i = 0; i < 4; i++) CHECK(x[i] == want2[i]);
  /* det 1, integer inverse */
  const double a3[9] = {1, 2, 3, 0, 1, 4, 5, 6, 0};
  const double want3[9] = {-24, 18, 5, 20, -15, -4, -5, 4, 1};
  CHECK(drt_det3_d(a3) == 1);
  drt_inv3_d(a3, x);
  for (int i = 0; i < 9; i++) CHECK(x[i] == want3[i]);
  float xf[9];
  const float a3f[9] = {2, 0, 0, 0, 4, 0, 0, 0, 8};
  CHECK(drt_det3_f(a3f) == 64);
  drt_inv3_f(a3f, xf);
  CHECK(xf[0] == 0.5f && xf[4] == 0.25f && xf[8] == 0.125f && xf[1] == 0);
  /* the case that defeats Cayley-Hamilton in floating point */
  const double g3[9] = {1e10, 0, 0, 0, 1, 0, 0, 0, 1e-10};
  drt_inv3_d(g3, x);
  CHECK_NEAR(x[0], 1e-10, 1e-10 * DBL_EPSILON);
  CHECK_NEAR(x[4], 1, DBL_EPSILON);
  CHECK_NEAR(x[8], 1e10, 1e10 * DBL_EPSILON);
  /* in place */
  double y[9];
  memcpy(y, a3, sizeof y);
  drt_inv3_d(y, y);
  for (int i = 0; i < 9; i++) CHECK(y[i] == want3[i]);
  /* singular: no check (Q21), the result is not finite */
  const double s2[4] = {1, 2, 2, 4};
  CHECK(drt_det2_d(s2) == 0);
  drt_inv2_d(s2, x);
  CHECK(!isfinite(x[0]));
  const double s3[9] = {1, 2, 3, 2, 4, 6, 0, 1, 1};
  CHECK(drt_det3_d(s3) == 0);
  drt_inv3_d(s3, x);
  CHECK(!isfinite(x[0]) || !isfinite(x[1]));
}

int main(void) {
  test_eigen_hand();
  test_inv_hand();
  test_eigen_random();
  test_inv_random();
  return unit_finish("tensor");
}
