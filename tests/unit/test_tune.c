/* test_tune.c -- the tuner's cache keys (src/tune): the distance between two
 * inputs' signatures (tune_inputs.c), against values computed by hand
 * (sums of |ln(x/y)|), and every way two signatures are not comparable;
 * the splitting of --tune-args into words. */
#include <math.h>
#include <string.h>

#include "tune/tune.h"
#include "unit.h"

static bool near(double got, double want) { return fabs(got - want) < 1e-12; }

static void test_distance(void) {
  /* equal, whatever the words */
  CHECK(tune_inputs_distance("", "") == 0);
  CHECK(tune_inputs_distance("-vol nrrd(float;64 64 64) -n 10", "-vol nrrd(float;64 64 64) -n 10") == 0);
  /* a NRRD twice as large on each of three axes: 3 ln 2, either way */
  double d = tune_inputs_distance("-vol nrrd(float;64 64 64)", "-vol nrrd(float;128 128 128)");
  CHECK_MSG(near(d, 3 * log(2.0)), "%.17g", d);
  CHECK(near(tune_inputs_distance("-vol nrrd(float;128 128 128)", "-vol nrrd(float;64 64 64)"), 3 * log(2.0)));
  /* numbers: |ln(60/48)| + |ln(50/40)| */
  d = tune_inputs_distance("-imgResU 48 -imgResV 40", "-imgResU 60 -imgResV 50");
  CHECK_MSG(near(d, log(60.0 / 48) + log(50.0 / 40)), "%.17g", d);
  /* another file's bytes, and several kinds summed */
  d = tune_inputs_distance("file(100 bytes) nrrd(short;10 20) 2.5", "file(1000 bytes) nrrd(short;10 80) 5");
  CHECK_MSG(near(d, log(10.0) + log(4.0) + log(2.0)), "%.17g", d);
  /* not comparable: another word, type, axis count, word count, a size
   * that is not a positive number, a NRRD against a file */
  CHECK(tune_inputs_distance("-vol nrrd(float;64 64)", "-img nrrd(float;64 64)") < 0);
  CHECK(tune_inputs_distance("nrrd(float;64 64)", "nrrd(double;64 64)") < 0);
  CHECK(tune_inputs_distance("nrrd(float;64 64)", "nrrd(float;64 64 1)") < 0);
  CHECK(tune_inputs_distance("-n 10", "-n 10 -v") < 0);
  CHECK(tune_inputs_distance("-n 10 -v", "-n 10") < 0);
  CHECK(tune_inputs_distance("-t 0", "-t 1") < 0);
  CHECK(tune_inputs_distance("-t -1", "-t -2") < 0);
  CHECK(tune_inputs_distance("-x nan", "-x 1") < 0);
  CHECK(tune_inputs_distance("-x inf", "-x 1") < 0);
  CHECK(tune_inputs_distance("nrrd(float;64)", "file(64 bytes)") < 0);
  CHECK(tune_inputs_distance("file(0 bytes)", "file(5 bytes)") < 0);
  CHECK(tune_inputs_distance("nrrd(float;)", "nrrd(float;4)") < 0);
  /* equal words with zeros compare as words (0 == 0) */
  CHECK(tune_inputs_distance("-t 0 nrrd(float;0 4)", "-t 0 nrrd(float;0 4)") == 0);
  /* a malformed word (no closing parenthesis) compares as itself */
  CHECK(tune_inputs_distance("nrrd(float;4", "nrrd(float;4") == 0);
  CHECK(tune_inputs_distance("nrrd(float;4", "nrrd(float;8") < 0);
}

static void test_split(Arena *a) {
  char **w;
  int n;
  char why[256];
  CHECK(tune_split_args(a, "-vol 'a b.nrrd' \"c d\" e\\ f", &w, &n, why, sizeof why));
  CHECK_MSG(n == 4, "%d words", n);
  if (n == 4) {
    CHECK_STR(w[0], "-vol");
    CHECK_STR(w[1], "a b.nrrd");
    CHECK_STR(w[2], "c d");
    CHECK_STR(w[3], "e f");
  }
  CHECK(!tune_split_args(a, "-vol 'a", &w, &n, why, sizeof why));
}

int main(void) {
  Arena *a = arena_new();
  test_distance();
  test_split(a);
  arena_free(a);
  return unit_finish("tune");
}
