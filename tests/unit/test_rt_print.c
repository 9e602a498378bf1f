/* test_rt_print.c -- print formatting (doc/language.md §7.2).
 *
 * Expected strings come from the spec text (0.1f prints 0.100000001, 1
 * prints 1, bools true/false, [a,b] and {a,b}) and from the decimal
 * expansions of the binary values: 0.1f = 0.100000001490116..., 0.1 =
 * 0.1000000000000000055511151231257827..., 1/3f = 0.333333343267...
 */
#include <stdlib.h>

#include "diderot_rt.h"
#include "unit.h"

/* A memory stream, read back as a string. */
typedef struct Buf {
  char *s;
  size_t n;
  FILE *f;
} Buf;

static void buf_open(Buf *b) {
  b->s = NULL;
  b->n = 0;
  b->f = open_memstream(&b->s, &b->n);
}

static const char *buf_str(Buf *b) {
  fflush(b->f);
  return b->s;
}

static void buf_close(Buf *b) {
  fclose(b->f);
  free(b->s);
}

#define EXPECT(stmt, want)                                                 \
  do {                                                                     \
    Buf b_;                                                                \
    buf_open(&b_);                                                         \
    FILE *f = b_.f;                                                        \
    stmt;                                                                  \
    CHECK_STR(buf_str(&b_), want);                                         \
    buf_close(&b_);                                                        \
  } while (0)

int main(void) {
  /* scalars */
  EXPECT(drt_print_float(f, 0.1f), "0.100000001");
  EXPECT(drt_print_float(f, 1.0f), "1");
  EXPECT(drt_print_float(f, 1.0f / 3.0f), "0.333333343");
  EXPECT(drt_print_float(f, -2.5f), "-2.5");
  EXPECT(drt_print_float(f, 1e20f), "1.00000002e+20");
  EXPECT(drt_print_double(f, 0.1), "0.10000000000000001");
  EXPECT(drt_print_double(f, 1.0), "1");
  EXPECT(drt_print_double(f, 0.5), "0.5");
  EXPECT(drt_print_double(f, 1e-7), "9.9999999999999995e-08");
  EXPECT(drt_print_double(f, 100.0), "100");
  EXPECT(drt_print_bool(f, true), "true");
  EXPECT(drt_print_bool(f, false), "false");
  EXPECT(drt_print_int(f, 42), "42");
  EXPECT(drt_print_int(f, -7), "-7");
  EXPECT(drt_print_int(f, INT64_MIN), "-9223372036854775808");
  EXPECT(drt_print_string(f, "hello\n"), "hello\n");
  /* no separators between successive prints */
  EXPECT((drt_print_int(f, 1), drt_print_string(f, " "), drt_print_bool(f, true)),
         "1 true");

  /* tensors: row-major, first index outermost */
  {
    float v3[3] = {1.0f, 0.5f, -2.0f};
    unsigned s3[1] = {3};
    EXPECT(drt_print_tensor_float(f, v3, 1, s3), "[1,0.5,-2]");
    float m[4] = {1, 2, 3, 4};
    unsigned s22[2] = {2, 2};
    EXPECT(drt_print_tensor_float(f, m, 2, s22), "[[1,2],[3,4]]");
    double t[8] = {1, 2, 3, 4, 5, 6, 7, 0.1};
    unsigned s222[3] = {2, 2, 2};
    EXPECT(drt_print_tensor_double(f, t, 3, s222),
           "[[[1,2],[3,4]],[[5,6],[7,0.10000000000000001]]]");
    float m23[6] = {1, 2, 3, 4, 5, 6};
    unsigned s23[2] = {2, 3};
    EXPECT(drt_print_tensor_float(f, m23, 2, s23), "[[1,2,3],[4,5,6]]");
    float x = 0.1f;
    EXPECT(drt_print_tensor_float(f, &x, 0, NULL), "0.100000001");
  }

  /* sequences */
  {
    int32_t iv[3] = {1, -2, 3};
    EXPECT(drt_print_seq_int32(f, iv, 3), "{1,-2,3}");
    EXPECT(drt_print_seq_int32(f, iv, 0), "{}");
    int64_t lv[2] = {5000000000LL, 0};
    EXPECT(drt_print_seq_int64(f, lv, 2), "{5000000000,0}");
    bool bv[2] = {true, false};
    EXPECT(drt_print_seq_bool(f, bv, 2), "{true,false}");
    float rv[2] = {0.1f, 2.0f};
    EXPECT(drt_print_seq_float(f, rv, 2, 0, NULL), "{0.100000001,2}");
    double vv[4] = {1, 2, 3, 0.1};
    unsigned s2[1] = {2};
    EXPECT(drt_print_seq_double(f, vv, 2, 1, s2), "{[1,2],[3,0.10000000000000001]}");
    float fv[4] = {1, 2, 3, 4};
    EXPECT(drt_print_seq_float(f, fv, 2, 1, s2), "{[1,2],[3,4]}");
  }
  return unit_finish("rt_print");
}
