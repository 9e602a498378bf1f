/* unit.h -- a tiny unit-test harness shared by the C unit tests.
 *
 * Each CHECK counts one assertion; a failing one prints file:line and the
 * expression. main() returns non-zero when anything failed, and the last
 * line printed is "unit NAME: N checks, N failed" for tests/run.py.
 */
#ifndef DIDEROT_TESTS_UNIT_H
#define DIDEROT_TESTS_UNIT_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int unit_checks, unit_failures;

#define CHECK(cond)                                                      \
  do {                                                                   \
    unit_checks++;                                                       \
    if (!(cond)) {                                                       \
      unit_failures++;                                                   \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                    \
  } while (0)

#define CHECK_MSG(cond, ...)                                             \
  do {                                                                   \
    unit_checks++;                                                       \
    if (!(cond)) {                                                       \
      unit_failures++;                                                   \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                      \
      fputc('\n', stderr);                                               \
    }                                                                    \
  } while (0)

#define CHECK_STR(got, want)                                             \
  do {                                                                   \
    const char *g_ = (got), *w_ = (want);                                \
    unit_checks++;                                                       \
    if (!g_ || strcmp(g_, w_) != 0) {                                    \
      unit_failures++;                                                   \
      fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, \
              g_ ? g_ : "(null)", w_);                                   \
    }                                                                    \
  } while (0)

#define CHECK_NEAR(got, want, tol)                                       \
  do {                                                                   \
    double g_ = (got), w_ = (want);                                      \
    unit_checks++;                                                       \
    if (!(fabs(g_ - w_) <= (tol))) {                                     \
      unit_failures++;                                                   \
      fprintf(stderr, "%s:%d: got %.17g, want %.17g\n", __FILE__, __LINE__, g_, w_); \
    }                                                                    \
  } while (0)

static inline int unit_finish(const char *name) {
  printf("unit %s: %d checks, %d failed\n", name, unit_checks, unit_failures);
  return unit_failures != 0;
}

#endif
