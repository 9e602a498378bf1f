/* test_kernel.c -- the kernels of doc/language.md §6.2, checked exactly.
 *
 * The oracle is the table of doc/language.md §6.2: the right-half polynomials are transcribed
 * below in u = |x| (the outer B-spline pieces are expanded here from
 * (2-u)^3/6 and (3-u)^5/120 by the binomial theorem), and everything else
 * is computed with this file's own rational arithmetic.
 *
 * Polynomial reproduction, p(f) = sum_{i=1-s}^{s} i^m h(f-i) for f in [0,1)
 * (derived by hand, and what the program test-suite can rely on):
 *  - tent: reproduces degree <= 1 (linear interpolation); for m = 2 it gives
 *    (1-f)*0 + f*1 = f, not f^2.
 *  - ctmr: degree <= 2 (Catmull-Rom is third-order accurate), not 3.
 *  - bspln3, bspln5: only degree <= 1 from raw samples. By symmetry and
 *    partition of unity, sum i^2 h(f-i) = f^2 + M2 where M2 =
 *    sum (f-i)^2 h(f-i) is constant for a B-spline: the variance of the
 *    uniform B-spline of degree n is (n+1)/12, so M2 = 1/3 (bspln3:
 *    2*h(1) = 2/6 at f = 0) and 1/2 (bspln5: 2*(26/120 + 4/120) at f = 0).
 *  - c4hexic: degree <= 3, not 4 (at f = 0: sum i^2 h(-i) =
 *    2*(11/120 + 4*(-11/480)) = 0, but sum i^4 h(-i) =
 *    2*(11/120 + 16*(-11/480)) = -11/20 != 0).
 * The aliases c1tent, c2tent, c2ctmr behave as tent and ctmr.
 */
#include "common/kernel.h"

#include <stdlib.h>

#include "unit.h"

/* ---------------------------------------------------- exact rationals */

typedef struct {
  int64_t n, d;
} Q;

static int64_t gcd64(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a ? a : 1;
}

static void overflow(void) {
  unit_failures++;
  fprintf(stderr, "test_kernel: rational overflow\n");
}

static Q q(int64_t n, int64_t d) {
  if (d < 0) n = -n, d = -d;
  int64_t g = gcd64(n, d);
  return (Q){n / g, d / g};
}

static int64_t mul64(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) {
    overflow();
    return 0;
  }
  return r;
}

static int64_t add64(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) {
    overflow();
    return 0;
  }
  return r;
}

static Q qmul(Q a, Q b) {
  int64_t g1 = gcd64(a.n, b.d), g2 = gcd64(b.n, a.d);
  return q(mul64(a.n / g1, b.n / g2), mul64(a.d / g2, b.d / g1));
}

static Q qadd(Q a, Q b) {
  int64_t g = gcd64(a.d, b.d);
  int64_t l = mul64(a.d / g, b.d);
  return q(add64(mul64(a.n, l / a.d), mul64(b.n, l / b.d)), l);
}

static Q qsub(Q a, Q b) { return qadd(a, (Q){-b.n, b.d}); }
static bool qeq(Q a, Q b) { return a.n == b.n && a.d == b.d; }
static Q qint(int64_t n) { return (Q){n, 1}; }
static Q qpow(Q a, int m) {
  Q r = qint(1);
  for (int i = 0; i < m; i++) r = qmul(r, a);
  return r;
}

/* floor(a) for a rational. */
static int64_t qfloor(Q a) {
  int64_t f = a.n / a.d;
  if (a.n % a.d != 0 && a.n < 0) f--;
  return f;
}

/* ------------------------------------------------ §5, transcribed */

typedef struct {
  const char *name;
  int s, true_cont, declared, interp;
  Q right[3][7]; /* right-half pieces in u, constant term first */
} Spec;

static Spec specs[8];
static int nspecs;

/* (a - u)^n * c, expanded. */
static void binom_piece(Q *out, int a, int n, Q c) {
  int64_t binom = 1;
  for (int j = 0; j <= n; j++) {
    /* C(n,j) a^(n-j) (-1)^j */
    int64_t t = binom;
    for (int e = 0; e < n - j; e++) t *= a;
    out[j] = qmul(c, qint((j % 2) ? -t : t));
    binom = binom * (n - j) / (j + 1);
  }
}

static void set(Q *out, const int64_t *nd, int npairs) {
  for (int j = 0; j < 7; j++) out[j] = j < npairs ? q(nd[2 * j], nd[2 * j + 1]) : qint(0);
}

static void build_specs(void) {
  static const int64_t tent0[] = {1, 1, -1, 1};
  static const int64_t ctmr0[] = {1, 1, 0, 1, -5, 2, 3, 2};
  static const int64_t ctmr1[] = {2, 1, -4, 1, 5, 2, -1, 2};
  static const int64_t b3_0[] = {2, 3, 0, 1, -1, 1, 1, 2};
  static const int64_t b5_0[] = {11, 20, 0, 1, -1, 2, 0, 1, 1, 4, -1, 12};
  static const int64_t b5_1[] = {17, 40, 5, 8, -7, 4, 5, 4, -3, 8, 1, 24};
  static const int64_t h0[] = {69, 80, 0, 1, -23, 16, 0, 1, 19, 16, -7, 12, 1, 16};
  static const int64_t h1[] = {3, 160, 35, 8, -341, 32, 10, 1, -147, 32, 25, 24, -3, 32};
  static const int64_t h2[] = {1539, 160, -189, 8, 747, 32, -12, 1, 109, 32, -61, 120, 1, 32};
  Spec *t;
  nspecs = 0;
  memset(specs, 0, sizeof specs);

  const char *tents[] = {"tent", "c1tent", "c2tent"};
  for (int i = 0; i < 3; i++) {
    t = &specs[nspecs++];
    *t = (Spec){tents[i], 1, 0, i, 1, {{{0, 1}}}};
    set(t->right[0], tent0, 2);
  }
  const char *ctmrs[] = {"ctmr", "c2ctmr"};
  for (int i = 0; i < 2; i++) {
    t = &specs[nspecs++];
    *t = (Spec){ctmrs[i], 2, 1, 1 + i, 1, {{{0, 1}}}};
    set(t->right[0], ctmr0, 4);
    set(t->right[1], ctmr1, 4);
  }
  t = &specs[nspecs++];
  *t = (Spec){"bspln3", 2, 2, 2, 0, {{{0, 1}}}};
  set(t->right[0], b3_0, 4);
  set(t->right[1], NULL, 0);
  binom_piece(t->right[1], 2, 3, q(1, 6));
  t = &specs[nspecs++];
  *t = (Spec){"bspln5", 3, 4, 4, 0, {{{0, 1}}}};
  set(t->right[0], b5_0, 6);
  set(t->right[1], b5_1, 6);
  set(t->right[2], NULL, 0);
  binom_piece(t->right[2], 3, 5, q(1, 120));
  t = &specs[nspecs++];
  *t = (Spec){"c4hexic", 3, 4, 4, 0, {{{0, 1}}}};
  set(t->right[0], h0, 7);
  set(t->right[1], h1, 7);
  set(t->right[2], h2, 7);
}

/* ------------------------------------------------ exact evaluation */

static Q horner(const KernelPiece *p, Q x) {
  Q v = qint(0);
  for (int j = p->degree; j >= 0; j--) v = qadd(qmul(v, x), (Q){p->coeff[j].num, p->coeff[j].den});
  return v;
}

/* h^(order)(x) from the module's pieces, with the piece [lo, lo+1)
 * containing x (0 outside [-s, s)). */
static Q eval_exact(const Kernel *k, int order, Q x) {
  int64_t lo = qfloor(x);
  if (lo < -k->support || lo >= k->support) return qint(0);
  KernelPiece p = kernel_derivative_piece(k, (int)(lo + k->support), order);
  return horner(&p, x);
}

/* The limit of h^(order) at the integer n from the left / right. */
static Q limit(const Kernel *k, int order, int n, bool from_left) {
  int lo = from_left ? n - 1 : n;
  if (lo < -k->support || lo >= k->support) return qint(0);
  KernelPiece p = kernel_derivative_piece(k, lo + k->support, order);
  return horner(&p, qint(n));
}

static double qd(Q a) { return (double)a.n / (double)a.d; }

/* ------------------------------------------------------------ tests */

static void test_table(void) {
  int n = 0;
  const Kernel *all = kernel_all(&n);
  CHECK(n == 8);
  CHECK(all != NULL);
  for (int i = 0; i < nspecs; i++) {
    const Spec *sp = &specs[i];
    const Kernel *k = kernel_lookup(sp->name);
    CHECK_MSG(k != NULL, "%s missing", sp->name);
    if (!k) continue;
    CHECK_STR(k->name, sp->name);
    CHECK(k->support == sp->s);
    CHECK(k->npieces == 2 * sp->s);
    CHECK_MSG(k->continuity == sp->declared, "%s continuity", sp->name);
    CHECK_MSG(k->true_continuity == sp->true_cont, "%s true continuity", sp->name);
    CHECK(k->interpolating == (sp->interp != 0));
    CHECK(k >= all && k < all + n);
    for (int p = 0; p < k->npieces; p++) {
      const KernelPiece *kp = &k->pieces[p];
      CHECK(kp->lo == p - sp->s);
      /* Right piece m is spec piece m; left piece lo = -m-1 is spec piece
       * m at -x: odd coefficients flip sign. */
      int m = kp->lo >= 0 ? kp->lo : -kp->lo - 1;
      for (int j = 0; j <= KERNEL_MAX_DEGREE; j++) {
        Q want = sp->right[m][j];
        if (kp->lo < 0 && j % 2) want.n = -want.n;
        Q got = j <= kp->degree ? (Q){kp->coeff[j].num, kp->coeff[j].den} : qint(0);
        CHECK_MSG(qeq(got, want) && got.d > 0, "%s piece %d coeff %d: %lld/%lld", sp->name,
                  kp->lo, j, (long long)got.n, (long long)got.d);
      }
      CHECK(kp->degree >= 1 && kp->degree <= KERNEL_MAX_DEGREE);
      CHECK(!qeq((Q){kp->coeff[kp->degree].num, kp->coeff[kp->degree].den}, qint(0)));
    }
  }
  CHECK(kernel_lookup("tent#1") == NULL);
  CHECK(kernel_lookup("bspln") == NULL);
  CHECK(kernel_lookup("") == NULL);
  CHECK(kernel_lookup(NULL) == NULL);
}

/* kernel_derivative_piece against this file's own coefficient-wise
 * differentiation, for orders up to beyond the degree. */
static void test_derivatives(void) {
  int n = 0;
  const Kernel *all = kernel_all(&n);
  for (int i = 0; i < n; i++) {
    const Kernel *k = &all[i];
    for (int p = 0; p < k->npieces; p++) {
      Q c[KERNEL_MAX_DEGREE + 1];
      int deg = k->pieces[p].degree;
      for (int j = 0; j <= KERNEL_MAX_DEGREE; j++)
        c[j] = j <= deg ? (Q){k->pieces[p].coeff[j].num, k->pieces[p].coeff[j].den} : qint(0);
      for (int order = 0; order <= 8; order++) {
        KernelPiece d = kernel_derivative_piece(k, p, order);
        CHECK(d.lo == k->pieces[p].lo);
        CHECK_MSG(d.degree == (order <= deg ? deg - order : 0), "%s piece %d order %d",
                  k->name, p, order);
        for (int j = 0; j <= KERNEL_MAX_DEGREE; j++) {
          Q got = j <= d.degree ? (Q){d.coeff[j].num, d.coeff[j].den} : qint(0);
          CHECK_MSG(qeq(got, c[j]), "%s piece %d order %d coeff %d", k->name, p, order, j);
        }
        /* Differentiate c once for the next order. */
        for (int j = 0; j < KERNEL_MAX_DEGREE; j++) c[j] = qmul(c[j + 1], qint(j + 1));
        c[KERNEL_MAX_DEGREE] = qint(0);
      }
    }
    /* Out-of-range pieces give the zero polynomial, not garbage. */
    KernelPiece z = kernel_derivative_piece(k, k->npieces, 0);
    CHECK(z.degree == 0 && z.coeff[0].num == 0);
    z = kernel_derivative_piece(k, -1, 1);
    CHECK(z.degree == 0 && z.coeff[0].num == 0);
  }
  KernelPiece z = kernel_derivative_piece(NULL, 0, 0);
  CHECK(z.degree == 0 && z.coeff[0].num == 0);
}

/* Test positions f in [0,1). */
static const Q fs[] = {{0, 1}, {1, 2}, {1, 3}, {1, 4}, {2, 5}, {3, 4}, {4, 5}};
#define NFS ((int)(sizeof fs / sizeof fs[0]))

/* sum_{i=1-s}^{s} i^m h^(order)(f - i) */
static Q tap_sum(const Kernel *k, int order, int m, Q f) {
  Q sum = qint(0);
  for (int i = 1 - k->support; i <= k->support; i++)
    sum = qadd(sum, qmul(qpow(qint(i), m), eval_exact(k, order, qsub(f, qint(i)))));
  return sum;
}

static int reproduced_degree(const char *name) {
  if (strstr(name, "tent")) return 1;
  if (strstr(name, "ctmr")) return 2;
  if (strcmp(name, "c4hexic") == 0) return 3;
  return 1; /* B-splines */
}

static void test_reproduction(void) {
  int n = 0;
  const Kernel *all = kernel_all(&n);
  for (int i = 0; i < n; i++) {
    const Kernel *k = &all[i];
    int deg = reproduced_degree(k->name);
    for (int m = 0; m <= deg + 1; m++) {
      bool all_equal = true;
      for (int t = 0; t < NFS; t++) {
        Q got = tap_sum(k, 0, m, fs[t]);
        if (m <= deg)
          CHECK_MSG(qeq(got, qpow(fs[t], m)), "%s: degree %d at f=%lld/%lld", k->name, m,
                    (long long)fs[t].n, (long long)fs[t].d);
        all_equal = all_equal && qeq(got, qpow(fs[t], m));
        /* B-splines: f^2 plus the variance (n+1)/12. */
        if (m == 2 && strcmp(k->name, "bspln3") == 0)
          CHECK(qeq(got, qadd(qpow(fs[t], 2), q(1, 3))));
        if (m == 2 && strcmp(k->name, "bspln5") == 0)
          CHECK(qeq(got, qadd(qpow(fs[t], 2), q(1, 2))));
      }
      if (m == deg + 1) CHECK_MSG(!all_equal, "%s reproduces degree %d", k->name, m);
    }
    /* Partition of unity holds as a polynomial identity on (0,1), so every
     * derivative of it vanishes there. */
    for (int order = 1; order <= 7; order++)
      for (int t = 1; t < NFS; t++)
        CHECK_MSG(qeq(tap_sum(k, order, 0, fs[t]), qint(0)), "%s: sum of h^(%d)", k->name,
                  order);
  }
}

static void test_values(void) {
  const char *interp[] = {"tent", "ctmr", "c1tent", "c2tent", "c2ctmr"};
  for (int i = 0; i < 5; i++) {
    const Kernel *k = kernel_lookup(interp[i]);
    if (!k) continue;
    CHECK(qeq(eval_exact(k, 0, qint(0)), qint(1)));
    for (int x = 1; x <= 3; x++) {
      CHECK(qeq(eval_exact(k, 0, qint(x)), qint(0)));
      CHECK(qeq(eval_exact(k, 0, qint(-x)), qint(0)));
    }
  }
  const Kernel *b3 = kernel_lookup("bspln3"), *b5 = kernel_lookup("bspln5");
  const Kernel *c4 = kernel_lookup("c4hexic"), *ct = kernel_lookup("ctmr");
  if (!b3 || !b5 || !c4 || !ct) {
    CHECK(false);
    return;
  }
  /* §5 */
  CHECK(qeq(eval_exact(b3, 0, qint(0)), q(2, 3)));
  CHECK(qeq(eval_exact(c4, 0, qint(0)), q(69, 80)));
  CHECK(qeq(eval_exact(c4, 0, qint(2)), q(-11, 480)));
  CHECK(qeq(eval_exact(c4, 0, qint(-2)), q(-11, 480)));
  /* Uniform B-spline knot values: 1/6 and 1/120, 26/120, 66/120. */
  CHECK(qeq(eval_exact(b3, 0, qint(1)), q(1, 6)));
  CHECK(qeq(eval_exact(b3, 0, qint(-1)), q(1, 6)));
  CHECK(qeq(eval_exact(b5, 0, qint(0)), q(66, 120)));
  CHECK(qeq(eval_exact(b5, 0, qint(1)), q(26, 120)));
  CHECK(qeq(eval_exact(b5, 0, qint(-2)), q(1, 120)));
  /* ctmr(1/2) = 1 - 5/8 + 3/16 = 9/16; ctmr(3/2) = 2 - 6 + 45/8 - 27/16 = -1/16 */
  CHECK(qeq(eval_exact(ct, 0, q(1, 2)), q(9, 16)));
  CHECK(qeq(eval_exact(ct, 0, q(-3, 2)), q(-1, 16)));
  /* ctmr'(x) at 1/2: -5x + 9/2 x^2 = -5/2 + 9/8 = -11/8, odd in x. */
  CHECK(qeq(eval_exact(ct, 1, q(1, 2)), q(-11, 8)));
  CHECK(qeq(eval_exact(ct, 1, q(-1, 2)), q(11, 8)));
}

static void test_continuity(void) {
  int n = 0;
  const Kernel *all = kernel_all(&n);
  for (int i = 0; i < n; i++) {
    const Kernel *k = &all[i];
    int tc = k->true_continuity;
    for (int j = 0; j <= tc + 1; j++) {
      bool all_agree = true;
      for (int knot = -k->support; knot <= k->support; knot++) {
        bool agree = qeq(limit(k, j, knot, true), limit(k, j, knot, false));
        if (j <= tc) CHECK_MSG(agree, "%s: h^(%d) jumps at %d", k->name, j, knot);
        all_agree = all_agree && agree;
      }
      if (j == tc + 1) CHECK_MSG(!all_agree, "%s is C%d", k->name, j);
    }
    /* The aliases claim more than is true. */
    if (k->name[0] == 'c' && k->name[1] >= '1' && k->name[1] <= '2')
      CHECK(k->continuity > k->true_continuity);
    else
      CHECK(k->continuity == k->true_continuity);
  }
}

static void test_even_and_support(void) {
  static const Q xs[] = {{1, 3}, {1, 2}, {5, 4}, {7, 4}, {9, 4}, {11, 4}, {3, 8}};
  int n = 0;
  const Kernel *all = kernel_all(&n);
  for (int i = 0; i < n; i++) {
    const Kernel *k = &all[i];
    double s = k->support;
    for (int order = 0; order <= 5; order++) {
      for (size_t t = 0; t < sizeof xs / sizeof xs[0]; t++) {
        Q x = xs[t], mx = {-x.n, x.d};
        Q a = eval_exact(k, order, x), b = eval_exact(k, order, mx);
        if (order % 2) b.n = -b.n;
        CHECK_MSG(qeq(a, b), "%s^(%d) not even/odd at %g", k->name, order, qd(x));
        /* kernel_eval agrees with the exact value. */
        double want = qd(eval_exact(k, order, x));
        CHECK_NEAR(kernel_eval(k, order, qd(x)), want, 1e-12 * (1 + fabs(want)));
        want = qd(eval_exact(k, order, mx));
        CHECK_NEAR(kernel_eval(k, order, qd(mx)), want, 1e-12 * (1 + fabs(want)));
      }
      const double outside[] = {s, -s, s + 0.25, -s - 0.5, 10.0, -1e30, INFINITY, -INFINITY,
                                NAN};
      for (size_t t = 0; t < sizeof outside / sizeof outside[0]; t++)
        CHECK_MSG(kernel_eval(k, order, outside[t]) == 0.0, "%s^(%d)(%g) != 0", k->name,
                  order, outside[t]);
    }
    /* A central difference agrees with the derivative away from knots. */
    for (double x = -s + 0.1; x < s; x += 0.37) {
      double e = 1e-6;
      double fd = (kernel_eval(k, 0, x + e) - kernel_eval(k, 0, x - e)) / (2 * e);
      CHECK_NEAR(kernel_eval(k, 1, x), fd, 1e-6);
    }
  }
  CHECK(kernel_eval(NULL, 0, 0.0) == 0.0);
}

int main(void) {
  build_specs();
  test_table();
  test_derivatives();
  test_reproduction();
  test_values();
  test_continuity();
  test_even_and_support();
  return unit_finish("kernel");
}
