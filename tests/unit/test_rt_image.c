/* test_rt_image.c -- image and sequence loading (doc/language.md §6.1, §10.6).
 *
 * Oracles:
 *  - the sample files' headers (tests/data, copies of /work/shared/data);
 *  - sample values read independently: ddro-100.nrrd is raw little-endian
 *    double, so the test reads the file bytes itself at the byte offset of
 *    the storage formula of doc/language.md §6.1; other values were printed by Teem's unu when the
 *    test was written (`teem-unu crop ... | teem-unu save -f text`);
 *  - world-to-index transforms computed by hand from the headers, e.g.
 *    index = (x - o)/0.02 for ddro-100.
 * The data directory is $DIDEROT_SRCDIR/tests/data (tests/run.py sets it)
 * or ./tests/data.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diderot_rt.h"
#include "rt_nrrd_guard.h"
#include "unit.h"

static char tmpdir[64];

static void data_path(char *buf, size_t n, const char *file) {
  const char *src = getenv("DIDEROT_SRCDIR");
  snprintf(buf, n, "%s/tests/data/%s", src && src[0] ? src : ".", file);
}

/* Write `text` to tmpdir/name; the path goes to path[0..n). */
static void write_tmp(char *path, size_t n, const char *name, const char *text) {
  snprintf(path, n, "%s/%s", tmpdir, name);
  FILE *f = fopen(path, "wb");
  if (!f) {
    perror(path);
    return;
  }
  fputs(text, f);
  fclose(f);
}

/* The whole file, and where its raw data starts (after the blank line). */
static unsigned char *read_raw(const char *path, size_t *len, size_t *data_at) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)n);
  if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    fclose(f);
    return NULL;
  }
  fclose(f);
  *len = (size_t)n;
  *data_at = 0;
  for (long i = 0; i + 1 < n; i++)
    if (b[i] == '\n' && b[i + 1] == '\n') {
      *data_at = (size_t)i + 2;
      break;
    }
  return b;
}

/* A little-endian double at byte offset `at`. */
static double le_double(const unsigned char *b, size_t at) {
  uint64_t u = 0;
  for (int k = 7; k >= 0; k--) u = (u << 8) | b[at + (size_t)k];
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

static bool has(const DrtErrors *e, const char *needle) {
  return strstr(drt_errors_text(e), needle) != NULL;
}

/* Expect loading `file` against spec to fail with a message containing
 * every one of the needles (NULL-terminated). */
static void expect_fail(const DrtImageSpec *spec, const char *file, ...) {
  DrtErrors e;
  drt_errors_init(&e);
  DrtImage img;
  bool err = drt_image_load_file(&e, spec, file, &img);
  CHECK_MSG(err, "loading %s should fail", file);
  CHECK(drt_any_errors(&e));
  CHECK(img.data == NULL && img.nrrd == NULL);
  CHECK_MSG(has(&e, spec->what), "%s", drt_errors_text(&e));
  va_list ap;
  va_start(ap, file);
  for (const char *s; (s = va_arg(ap, const char *));)
    CHECK_MSG(has(&e, s), "want \"%s\" in: %s", s, drt_errors_text(&e));
  va_end(ap);
  drt_image_free(&img);
  drt_errors_free(&e);
}

/* Load a file expected to be fine. */
static bool load_ok(const DrtImageSpec *spec, const char *file, DrtImage *img) {
  DrtErrors e;
  drt_errors_init(&e);
  bool err = drt_image_load_file(&e, spec, file, img);
  CHECK_MSG(!err && !drt_any_errors(&e), "%s: %s", file, drt_errors_text(&e));
  drt_errors_free(&e);
  return !err;
}

static void test_ddro(void) {
  char path[512];
  data_path(path, sizeof path, "ddro-100.nrrd");
  DrtImageSpec spec = {"input 'img'", 2, 1, nrrdTypeDouble, nrrdTypeDouble};
  DrtImage img;
  if (!load_ok(&spec, path, &img)) return;
  CHECK(img.dim == 2 && img.ncomp == 1);
  CHECK(img.size[0] == 100 && img.size[1] == 100 && img.size[2] == 1);
  CHECK(img.nelems == 10000);
  CHECK(img.type == nrrdTypeDouble && img.file_type == nrrdTypeDouble);
  /* samples: raw bytes at 8*(i0 + 100*i1), and unu's values */
  size_t len, at;
  unsigned char *raw = read_raw(path, &len, &at);
  CHECK(raw && at > 0 && len - at == 80000);
  const double *d = img.data;
  if (raw) {
    static const int idx[][2] = {{0, 0}, {3, 50}, {4, 50}, {99, 99}, {17, 82}, {60, 5}};
    for (size_t k = 0; k < sizeof idx / sizeof idx[0]; k++) {
      size_t off = (size_t)idx[k][0] + 100 * (size_t)idx[k][1];
      CHECK(d[off] == le_double(raw, at + 8 * off));
    }
  }
  free(raw);
  CHECK(d[0] == 0.13439896064711435);
  CHECK(d[3 + 100 * 50] == 0.17545792328504176);
  CHECK(d[4 + 100 * 50] == 0.14263078926519646);
  CHECK(d[99 + 100 * 99] == 0.3794179551871959);
  /* index = (x - o)/0.02 = 50 x + 49.5 (o = -0.99) */
  CHECK_NEAR(img.W[0], 50.0, 1e-9);
  CHECK_NEAR(img.W[1], 0.0, 1e-12);
  CHECK_NEAR(img.W[2], 0.0, 1e-12);
  CHECK_NEAR(img.W[3], 50.0, 1e-9);
  CHECK_NEAR(img.t[0], 49.5, 1e-9);
  CHECK_NEAR(img.t[1], 49.5, 1e-9);
  CHECK_NEAR(img.WT[0], 50.0, 1e-9);
  CHECK_NEAR(img.WT[3], 50.0, 1e-9);
  CHECK_NEAR(img.Wf[0], 50.0f, 1e-4);
  CHECK_NEAR(img.tf[1], 49.5f, 1e-4);
  CHECK_NEAR(img.origin[0], -0.99, 1e-12);
  /* a world point: x = (0.01, -0.5) -> index (50, 24.5) */
  double x[2] = {0.01, -0.5}, p[2];
  for (int i = 0; i < 2; i++) p[i] = img.W[2 * i] * x[0] + img.W[2 * i + 1] * x[1] + img.t[i];
  CHECK_NEAR(p[0], 50.0, 1e-9);
  CHECK_NEAR(p[1], 24.5, 1e-9);
  /* normalized meta-data: kinds space, centerings dropped */
  CHECK(img.nrrd->axis[0].kind == nrrdKindSpace && img.nrrd->axis[1].kind == nrrdKindSpace);
  CHECK(img.nrrd->axis[0].center == nrrdCenterUnknown);
  drt_image_free(&img);
  CHECK(img.nrrd == NULL && img.data == NULL);
  drt_image_free(&img); /* twice is fine */

  /* no proxy: any type, converted to the real type (float) */
  DrtImageSpec any = {"input 'img'", 2, 1, nrrdTypeDefault, nrrdTypeFloat};
  if (load_ok(&any, path, &img)) {
    const float *fd = img.data;
    CHECK(img.type == nrrdTypeFloat && img.file_type == nrrdTypeDouble);
    CHECK(fd[3 + 100 * 50] == (float)0.17545792328504176);
    CHECK(fd[99 + 100 * 99] == (float)0.3794179551871959);
    CHECK(img.nrrd->type == nrrdTypeFloat);
    drt_image_free(&img);
  }

  /* from a caller's Nrrd, which stays as it was */
  Nrrd *nin = nrrdNew();
  if (nrrdLoad(nin, path, NULL) == 0) {
    DrtErrors e;
    drt_errors_init(&e);
    CHECK(!drt_image_load_nrrd(&e, &spec, nin, &img));
    CHECK(img.data != nin->data);
    CHECK(((const double *)img.data)[3 + 100 * 50] == 0.17545792328504176);
    CHECK_NEAR(img.t[0], 49.5, 1e-9);
    CHECK(nin->axis[0].center == nrrdCenterCell); /* untouched */
    drt_image_free(&img);
    /* mismatch reported as coming from a nrrd, not a file */
    DrtImageSpec s2 = spec;
    s2.dim = 3;
    CHECK(drt_image_load_nrrd(&e, &s2, nin, &img));
    CHECK_STR(drt_errors_text(&e),
              "input 'img' (nrrd): the image is 2-D, but the program declares a 3-D image\n");
    drt_errors_free(&e);
  } else {
    CHECK(!"nrrdLoad ddro-100");
  }
  nrrdNuke(nin);
}

static void test_sqflow(void) {
  char path[512];
  data_path(path, sizeof path, "sqflow2D-1608.nrrd");
  DrtImageSpec spec = {"input 'flow'", 2, 2, nrrdTypeFloat, nrrdTypeFloat};
  DrtImage img;
  if (!load_ok(&spec, path, &img)) return;
  CHECK(img.dim == 2 && img.ncomp == 2 && img.size[0] == 192 && img.size[1] == 64);
  CHECK(img.nrrd->axis[0].kind == nrrdKind2Vector);
  const float *v = img.data;
#define AT(c, i0, i1) v[(c) + 2 * ((i0) + 192 * (i1))]
  CHECK_NEAR(AT(0, 5, 7), 0.38957235, 1e-8);
  CHECK_NEAR(AT(1, 5, 7), 0.00079092995, 1e-11);
  CHECK_NEAR(AT(0, 6, 7), 0.38927045, 1e-8);
  CHECK_NEAR(AT(1, 6, 7), 0.00039869809, 1e-11);
  CHECK_NEAR(AT(0, 191, 63), 0.00043535559, 1e-11);
  CHECK_NEAR(AT(1, 191, 63), 0.00023285464, 1e-11);
#undef AT
  /* spacings 1/6 and 1/8; t = -o/spacing = (11.91666*6, 3.9375*8) */
  CHECK_NEAR(img.W[0], 6.0, 1e-9);
  CHECK_NEAR(img.W[3], 8.0, 1e-9);
  CHECK_NEAR(img.W[1], 0.0, 1e-12);
  CHECK_NEAR(img.t[0], 71.5, 1e-9);
  CHECK_NEAR(img.t[1], 31.5, 1e-9);
  drt_image_free(&img);
}

static void test_gray(void) {
  char path[512];
  data_path(path, sizeof path, "gray.nrrd");
  DrtImageSpec spec = {"input 'cmap'", 1, 3, nrrdTypeFloat, nrrdTypeFloat};
  DrtImage img;
  if (!load_ok(&spec, path, &img)) return;
  CHECK(img.dim == 1 && img.ncomp == 3 && img.size[0] == 400);
  const float *v = img.data;
  for (int c = 0; c < 3; c++) {
    CHECK(v[c] == 0.0f);
    CHECK_NEAR(v[3 * 2 + c], 0.0025188916, 1e-10);
    CHECK_NEAR(v[3 * 3 + c], 0.0050377832, 1e-10);
    CHECK_NEAR(v[3 * 200 + c], 0.50125945, 1e-8);
    CHECK(v[3 * 399 + c] == 1.0f);
  }
  /* spacing 1/398, origin -1/796: index = 398 x + 0.5 */
  CHECK_NEAR(img.W[0], 398.0, 1e-9);
  CHECK_NEAR(img.WT[0], 398.0, 1e-9);
  CHECK_NEAR(img.t[0], 0.5, 1e-12);
  drt_image_free(&img);
}

/* ---- normalization cases (a) (b) (c) on small ASCII files ------------- */

static void check_transform(const char *name, const char *text, unsigned d,
                            unsigned ncomp, const double *W, const double *t) {
  char path[512];
  write_tmp(path, sizeof path, name, text);
  DrtImageSpec spec = {"input 'x'", d, ncomp, nrrdTypeFloat, nrrdTypeFloat};
  DrtImage img;
  if (!load_ok(&spec, path, &img)) return;
  for (unsigned i = 0; i < d * d; i++) {
    CHECK_MSG(fabs(img.W[i] - W[i]) < 1e-12, "%s: W[%u] = %g, want %g", name, i,
              img.W[i], W[i]);
    unsigned r = i / d, c = i % d;
    CHECK_MSG(fabs(img.WT[c * d + r] - W[i]) < 1e-12, "%s: WT", name);
  }
  for (unsigned i = 0; i < d; i++)
    CHECK_MSG(fabs(img.t[i] - t[i]) < 1e-12, "%s: t[%u] = %g, want %g", name, i,
              img.t[i], t[i]);
  for (unsigned a = ncomp > 1; a < img.nrrd->dim; a++)
    CHECK(img.nrrd->axis[a].kind == nrrdKindSpace);
  drt_image_free(&img);
}

static void test_normalize(void) {
  /* (a) space directions given, origin missing -> 0 */
  check_transform("a1.nrrd",
                  "NRRD0004\ntype: float\ndimension: 2\nsizes: 2 2\n"
                  "space dimension: 2\nspace directions: (2,0) (0,4)\n"
                  "encoding: ascii\n\n1 2 3 4\n",
                  2, 1, (double[]){0.5, 0, 0, 0.25}, (double[]){0, 0});
  /* (a) sheared: M = [[1,1],[0,2]] (columns (1,0), (1,2)), o = (1,2):
   * W = [[1,-1/2],[0,1/2]], t = -W o = (0,-1) */
  check_transform("a2.nrrd",
                  "NRRD0004\ntype: float\ndimension: 2\nsizes: 2 2\n"
                  "space dimension: 2\nspace directions: (1,0) (1,2)\n"
                  "space origin: (1,2)\nencoding: ascii\n\n1 2 3 4\n",
                  2, 1, (double[]){1, -0.5, 0, 0.5}, (double[]){0, -1});
  /* (a) 3-D permutation with scales: columns (0,2,0) (0,0,4) (1,0,0), so
   * x = o + (p2, 2 p0, 4 p1): p0 = x1/2, p1 = x2/4, p2 = x0; o = (1,2,3) */
  check_transform("a3.nrrd",
                  "NRRD0004\ntype: float\ndimension: 3\nsizes: 2 2 2\n"
                  "space: right-anterior-superior\n"
                  "space directions: (0,2,0) (0,0,4) (1,0,0)\n"
                  "space origin: (1,2,3)\nencoding: ascii\n\n1 2 3 4 5 6 7 8\n",
                  3, 1, (double[]){0, 0.5, 0, 0, 0, 0.25, 1, 0, 0},
                  (double[]){-1, -0.75, -1});
  /* (a) an RGB-color axis becomes a 3-vector component axis */
  {
    char path[512];
    write_tmp(path, sizeof path, "rgb.nrrd",
              "NRRD0004\ntype: float\ndimension: 2\nsizes: 3 2\n"
              "kinds: RGB-color space\nspace dimension: 1\n"
              "space directions: none (0.5)\nspace origin: (1)\n"
              "encoding: ascii\n\n1 2 3 4 5 6\n");
    DrtImageSpec spec = {"input 'x'", 1, 3, nrrdTypeFloat, nrrdTypeFloat};
    DrtImage img;
    if (load_ok(&spec, path, &img)) {
      CHECK(img.nrrd->axis[0].kind == nrrdKind3Vector);
      CHECK_NEAR(img.W[0], 2.0, 1e-12);
      CHECK_NEAR(img.t[0], -2.0, 1e-12);
      CHECK(((const float *)img.data)[4] == 5.0f);
      drt_image_free(&img);
    }
  }
  /* (b) min/max: node-centred axis 0 (o = 0, spacing 10/4 = 2.5), cell-
   * centred axis 1 (o = -1 + 2/8 = -0.75, spacing 2/4 = 0.5) */
  check_transform("b1.nrrd",
                  "NRRD0004\ntype: float\ndimension: 2\nsizes: 5 4\n"
                  "axis mins: 0 -1\naxis maxs: 10 1\ncenters: node cell\n"
                  "encoding: ascii\n\n"
                  "1 2 3 4 5 1 2 3 4 5 1 2 3 4 5 1 2 3 4 5\n",
                  2, 1, (double[]){0.4, 0, 0, 2}, (double[]){0, 1.5});
  /* (b) no centering counts as cell: o = 0 + 10/10 = 1, spacing 2 */
  check_transform("b2.nrrd",
                  "NRRD0004\ntype: float\ndimension: 1\nsizes: 5\n"
                  "axis mins: 0\naxis maxs: 10\nencoding: ascii\n\n1 2 3 4 5\n",
                  1, 1, (double[]){0.5}, (double[]){-0.5});
  /* (c) spacings: axis 0 spacing 2, axis 1 none (1); origin 0 */
  check_transform("c1.nrrd",
                  "NRRD0004\ntype: float\ndimension: 2\nsizes: 3 3\n"
                  "spacings: 2 nan\nencoding: ascii\n\n1 2 3 4 5 6 7 8 9\n",
                  2, 1, (double[]){0.5, 0, 0, 1}, (double[]){0, 0});
  /* (c) nothing at all: identity; a component axis does not count */
  check_transform("c2.nrrd",
                  "NRRD0004\ntype: float\ndimension: 2\nsizes: 2 3\n"
                  "kinds: 2-vector domain\nencoding: ascii\n\n1 2 3 4 5 6\n",
                  1, 2, (double[]){1}, (double[]){0});
  /* min/max only on some axes: falls to (c), using the spacing */
  check_transform("c3.nrrd",
                  "NRRD0004\ntype: float\ndimension: 2\nsizes: 2 2\n"
                  "axis mins: 0 nan\naxis maxs: 4 nan\nspacings: 4 4\n"
                  "encoding: ascii\n\n1 2 3 4\n",
                  2, 1, (double[]){0.25, 0, 0, 0.25}, (double[]){0, 0});
}

/* ---- bad inputs --------------------------------------------------------- */

static void test_bad(void) {
  char ddro[512], sq[512], path[512];
  data_path(ddro, sizeof ddro, "ddro-100.nrrd");
  data_path(sq, sizeof sq, "sqflow2D-1608.nrrd");
  DrtImageSpec ok = {"input 'img'", 2, 1, nrrdTypeDouble, nrrdTypeDouble};

  /* missing file */
  expect_fail(&ok, "/nonexistent/dir/none.nrrd",
              "input 'img' (file '/nonexistent/dir/none.nrrd'): the file cannot be opened: "
              "No such file or directory",
              NULL);
  /* not a NRRD at all */
  write_tmp(path, sizeof path, "garbage.nrrd", "hello, world\n");
  expect_fail(&ok, path, "the file is not a NRRD file (it starts with \"hello, world\"",
              "garbage.nrrd", NULL);
  /* truncated: the header promises 100x100 doubles, 100 bytes follow */
  {
    char text[512];
    int n = snprintf(text, sizeof text,
                     "NRRD0004\ntype: double\ndimension: 2\nsizes: 100 100\n"
                     "endian: little\nencoding: raw\n\n");
    memset(text + n, 'x', 100);
    text[n + 100] = '\0';
    write_tmp(path, sizeof path, "short.nrrd", text);
    /* 10000 doubles = 80000 bytes; the header is cut after 100 data bytes */
    expect_fail(&ok, path,
                "the file is truncated: its header promises 10000 double samples (80000 bytes "
                "of data), but only 100 bytes follow the header",
                "short.nrrd", NULL);
  }
  /* wrong dimension */
  DrtImageSpec d3 = {"input 'img'", 3, 1, nrrdTypeDouble, nrrdTypeDouble};
  expect_fail(&d3, ddro, "the image is 2-D, but the program declares a 3-D image", NULL);
  /* wrong component count, both ways */
  DrtImageSpec c2 = {"input 'img'", 2, 2, nrrdTypeDouble, nrrdTypeDouble};
  expect_fail(&c2, ddro, "nrrd has 1 component per sample (no component axis), expected 2",
              NULL);
  DrtImageSpec c1 = {"input 'flow'", 2, 1, nrrdTypeDefault, nrrdTypeFloat};
  expect_fail(&c1, sq, "input 'flow'",
              "nrrd has 2 components per sample (axis 0, kind '2-vector'), expected 1",
              NULL);
  /* a sample type that the real type does not hold exactly (double into
   * float) is refused, naming both types and what to do */
  DrtImageSpec tf = {"input 'img'", 2, 1, nrrdTypeFloat, nrrdTypeFloat};
  expect_fail(&tf, ddro,
              "the samples are double, but the program was compiled for float samples (the "
              "type of its proxy image) and computes in float, which does not hold every "
              "double exactly: convert the file (unu convert -t float) or recompile with "
              "--double or with a proxy of type double",
              NULL);
  /* exactly one message for one mismatch, in the documented form */
  {
    DrtErrors e;
    drt_errors_init(&e);
    DrtImage img;
    CHECK(drt_image_load_file(&e, &tf, ddro, &img));
    CHECK(e.nerrors == 1);
    char *taken = drt_errors_take(&e);
    CHECK(taken && strstr(taken, "input 'img' (file '") == taken);
    free(taken);
    CHECK(!drt_any_errors(&e));
    CHECK_STR(drt_errors_text(&e), "");
    drt_errors_free(&e);
  }
  /* component axis not first */
  write_tmp(path, sizeof path, "notfirst.nrrd",
            "NRRD0004\ntype: float\ndimension: 2\nsizes: 4 3\n"
            "kinds: space 3-vector\nencoding: ascii\n\n"
            "1 2 3 4 5 6 7 8 9 10 11 12\n");
  DrtImageSpec v3 = {"input 'img'", 1, 3, nrrdTypeFloat, nrrdTypeFloat};
  expect_fail(&v3, path, "nrrd axis 1 has non-spatial kind '3-vector'", NULL);
  /* unsupported component kind */
  write_tmp(path, sizeof path, "list.nrrd",
            "NRRD0004\ntype: float\ndimension: 2\nsizes: 3 4\n"
            "kinds: list space\nencoding: ascii\n\n"
            "1 2 3 4 5 6 7 8 9 10 11 12\n");
  expect_fail(&v3, path, "nrrd axis 0 has kind 'list'", "not a supported component kind",
              NULL);
  /* spatial axes do not match the space dimension */
  write_tmp(path, sizeof path, "sd.nrrd",
            "NRRD0004\ntype: float\ndimension: 3\nsizes: 3 2 2\n"
            "space dimension: 2\nspace directions: (1,0) (0,1) (1,1)\n"
            "encoding: ascii\n\n1 2 3 4 5 6 7 8 9 10 11 12\n");
  expect_fail(&v3, path, "3 spatial axes but space dimension 2", NULL);
  /* singular directions */
  write_tmp(path, sizeof path, "sing.nrrd",
            "NRRD0004\ntype: float\ndimension: 2\nsizes: 2 2\n"
            "space dimension: 2\nspace directions: (1,0) (2,0)\n"
            "encoding: ascii\n\n1 2 3 4\n");
  DrtImageSpec s2 = {"input 'img'", 2, 1, nrrdTypeFloat, nrrdTypeFloat};
  expect_fail(&s2, path, "not invertible", NULL);
  /* symmetric matrices pass normalization but not the tensor[3,3] count */
  write_tmp(path, sizeof path, "sym.nrrd",
            "NRRD0004\ntype: float\ndimension: 2\nsizes: 6 1\n"
            "kinds: 3D-symmetric-matrix space\nencoding: ascii\n\n1 2 3 4 5 6\n");
  DrtImageSpec m3 = {"input 'img'", 1, 9, nrrdTypeFloat, nrrdTypeFloat};
  expect_fail(&m3, path, "nrrd has 6 components per sample", NULL);
  /* an empty file name */
  expect_fail(&ok, "", "no file name", NULL);
  /* several problems at once are all reported */
  {
    DrtErrors e;
    drt_errors_init(&e);
    DrtImage img;
    DrtImageSpec many = {"input 'flow'", 3, 3, nrrdTypeUChar, nrrdTypeUChar};
    CHECK(drt_image_load_file(&e, &many, sq, &img));
    CHECK_MSG(e.nerrors == 1, "%s", drt_errors_text(&e));
    CHECK(has(&e, "the image is 2-D"));
    drt_errors_free(&e);
    DrtImageSpec two = {"input 'flow'", 2, 3, nrrdTypeUChar, nrrdTypeUChar};
    CHECK(drt_image_load_file(&e, &two, sq, &img));
    CHECK_MSG(e.nerrors == 2, "%s", drt_errors_text(&e));
    CHECK(has(&e, "components") && has(&e, "the samples are float"));
    drt_errors_free(&e);
  }
}

/* ---- sequences (§8.7) --------------------------------------------------- */

static void test_sequences(void) {
  char path[512];
  DrtErrors e;
  drt_errors_init(&e);
  DrtSequence s;

  /* int file into real[] */
  write_tmp(path, sizeof path, "ints.nrrd",
            "NRRD0004\ntype: int\ndimension: 1\nsizes: 4\nencoding: ascii\n\n1 2 -3 4\n");
  DrtSeqSpec reals = {"input 'xs'", nrrdTypeFloat, 1, false};
  CHECK(!drt_sequence_load_file(&e, &reals, path, &s));
  CHECK(s.len == 4 && s.ncomp == 1 && s.type == nrrdTypeFloat);
  if (s.data) {
    const float *f = s.data;
    CHECK(f[0] == 1.0f && f[2] == -3.0f && f[3] == 4.0f);
  }
  drt_sequence_free(&s);
  /* float file into int[]: converted by value (truncated), not reinterpreted */
  write_tmp(path, sizeof path, "floats.nrrd",
            "NRRD0004\ntype: float\ndimension: 1\nsizes: 4\nencoding: ascii\n\n"
            "0.5 2.75 -1.25 1e12\n");
  DrtSeqSpec ints = {"input 'ns'", nrrdTypeInt, 1, false};
  CHECK(!drt_sequence_load_file(&e, &ints, path, &s));
  if (s.data) {
    const int32_t *n = s.data;
    CHECK(n[0] == 0 && n[1] == 2 && n[2] == -1 && n[3] == INT32_MAX);
  }
  drt_sequence_free(&s);
  /* bool[]: non-zero is true */
  DrtSeqSpec bools = {"input 'bs'", nrrdTypeUChar, 1, true};
  CHECK(!drt_sequence_load_file(&e, &bools, path, &s));
  if (s.data) {
    const unsigned char *b = s.data;
    CHECK(b[0] == 1 && b[1] == 1 && b[2] == 1 && b[3] == 1);
  }
  drt_sequence_free(&s);
  /* vec2[]: 2-D, axis 0 of size 2 */
  write_tmp(path, sizeof path, "vecs.nrrd",
            "NRRD0004\ntype: double\ndimension: 2\nsizes: 2 3\nencoding: ascii\n\n"
            "1 2 3 4 5 6\n");
  DrtSeqSpec vecs = {"input 'ps'", nrrdTypeDouble, 2, false};
  CHECK(!drt_sequence_load_file(&e, &vecs, path, &s));
  CHECK(s.len == 3 && s.ncomp == 2);
  if (s.data) CHECK(((const double *)s.data)[3] == 4.0 && ((const double *)s.data)[5] == 6.0);
  drt_sequence_free(&s);
  /* a plain text file, one value per line */
  write_tmp(path, sizeof path, "vals.txt", "1.5\n2.5\n3\n");
  CHECK(!drt_sequence_load_file(&e, &reals, path, &s));
  CHECK_MSG(s.len == 3, "len %zu: %s", s.len, drt_errors_text(&e));
  if (s.data && s.len == 3) CHECK(((const float *)s.data)[1] == 2.5f);
  drt_sequence_free(&s);
  /* from a Nrrd */
  {
    Nrrd *n = nrrdNew();
    double vals[3] = {7, 8, 9};
    nrrdWrap_va(n, vals, nrrdTypeDouble, 1, (size_t)3);
    CHECK(!drt_sequence_load_nrrd(&e, &ints, n, &s));
    CHECK(s.len == 3 && s.data && ((const int32_t *)s.data)[2] == 9);
    drt_sequence_free(&s);
    nrrdNix(n);
  }
  CHECK_MSG(!drt_any_errors(&e), "%s", drt_errors_text(&e));

  /* wrong shapes */
  write_tmp(path, sizeof path, "vecs.nrrd",
            "NRRD0004\ntype: double\ndimension: 2\nsizes: 3 2\nencoding: ascii\n\n"
            "1 2 3 4 5 6\n");
  CHECK(drt_sequence_load_file(&e, &reals, path, &s));
  CHECK(s.data == NULL && s.len == 0);
  CHECK(has(&e, "input 'xs' (file '") &&
        has(&e, "nrrd has dimension 2, expected 1 for a sequence of scalars"));
  drt_errors_free(&e);
  CHECK(drt_sequence_load_file(&e, &vecs, path, &s));
  CHECK_STR(strstr(drt_errors_text(&e), "): ") + 3, "nrrd axis 0 has size 3, expected 2\n");
  drt_errors_free(&e);
  write_tmp(path, sizeof path, "ints.nrrd",
            "NRRD0004\ntype: int\ndimension: 1\nsizes: 4\nencoding: ascii\n\n1 2 -3 4\n");
  CHECK(drt_sequence_load_file(&e, &vecs, path, &s));
  CHECK(has(&e, "input 'ps'") && has(&e, "nrrd has dimension 1, expected 2"));
  drt_errors_free(&e);
  char gray[512];
  data_path(gray, sizeof gray, "gray.nrrd");
  DrtSeqSpec v3 = {"input 'cs'", nrrdTypeFloat, 3, false};
  CHECK(drt_sequence_load_file(&e, &v3, gray, &s));
  CHECK(has(&e, "space dimension 1; a sequence must have none"));
  drt_errors_free(&e);
  CHECK(drt_sequence_load_file(&e, &v3, "/nonexistent.nrrd", &s));
  CHECK(has(&e, "input 'cs' (file '/nonexistent.nrrd'): the file cannot be opened"));
  drt_errors_free(&e);
}

/* ---- conversion rules --------------------------------------------------- */

static void test_convert(void) {
  double src[6] = {300.0, -5.0, NAN, 1e300, -1e300, 2.9};
  unsigned char uc[6];
  CHECK(!drt_convert(uc, nrrdTypeUChar, src, nrrdTypeDouble, 6, false));
  CHECK(uc[0] == 255 && uc[1] == 0 && uc[2] == 0 && uc[3] == 255 && uc[4] == 0 &&
        uc[5] == 2);
  long long ll[6];
  drt_convert(ll, nrrdTypeLLong, src, nrrdTypeDouble, 6, false);
  CHECK(ll[3] == INT64_MAX && ll[4] == INT64_MIN && ll[5] == 2 && ll[1] == -5);
  float fl[6];
  drt_convert(fl, nrrdTypeFloat, src, nrrdTypeDouble, 6, false);
  CHECK(fl[0] == 300.0f && isnan(fl[2]) && isinf(fl[3]) && fl[4] < 0 && isinf(fl[4]));
  unsigned char u8[3] = {0, 128, 255};
  double d3[3];
  drt_convert(d3, nrrdTypeDouble, u8, nrrdTypeUChar, 3, false);
  CHECK(d3[0] == 0.0 && d3[1] == 128.0 && d3[2] == 255.0); /* no scaling */
  unsigned long long big = 18446744073709551615ULL;
  int32_t i32;
  drt_convert(&i32, nrrdTypeInt, &big, nrrdTypeULLong, 1, false);
  CHECK(i32 == INT32_MAX);
  CHECK(drt_convert(&i32, nrrdTypeBlock, &big, nrrdTypeULLong, 1, false));
}

/* ---- one build, any image: sizes are free, sample types convert when the
 * real type holds them exactly ------------------------------------------ */

static void test_any_image(void) {
  /* the lossless table: float's 24-bit significand, double's 53 */
  static const int fits_float[] = {nrrdTypeChar, nrrdTypeUChar, nrrdTypeShort, nrrdTypeUShort,
                                   nrrdTypeFloat};
  static const int not_float[] = {nrrdTypeInt, nrrdTypeUInt, nrrdTypeLLong, nrrdTypeULLong,
                                  nrrdTypeDouble};
  for (size_t i = 0; i < 5; i++) {
    CHECK(drt_type_exact_in(fits_float[i], nrrdTypeFloat));
    CHECK(drt_type_exact_in(fits_float[i], nrrdTypeDouble));
    CHECK(!drt_type_exact_in(not_float[i], nrrdTypeFloat));
  }
  CHECK(drt_type_exact_in(nrrdTypeInt, nrrdTypeDouble) && drt_type_exact_in(nrrdTypeUInt, nrrdTypeDouble));
  CHECK(!drt_type_exact_in(nrrdTypeLLong, nrrdTypeDouble) && !drt_type_exact_in(nrrdTypeULLong, nrrdTypeDouble));
  CHECK(!drt_type_exact_in(nrrdTypeFloat, nrrdTypeUChar));

  char path[512];
  DrtImage img;
  /* a float proxy: images of two sizes, and uchar/short samples converted */
  DrtImageSpec f2 = {"input 'img'", 2, 1, nrrdTypeFloat, nrrdTypeFloat};
  write_tmp(path, sizeof path, "u3x2.nrrd",
            "NRRD0004\ntype: uchar\ndimension: 2\nsizes: 3 2\nencoding: ascii\n\n"
            "0 1 2 253 254 255\n");
  if (load_ok(&f2, path, &img)) {
    CHECK(img.size[0] == 3 && img.size[1] == 2 && img.file_type == nrrdTypeUChar);
    CHECK(img.type == nrrdTypeFloat && ((const float *)img.data)[5] == 255.0f);
    drt_image_free(&img);
  }
  write_tmp(path, sizeof path, "s2x5.nrrd",
            "NRRD0004\ntype: short\ndimension: 2\nsizes: 2 5\nencoding: ascii\n\n"
            "-32768 32767 1 2 3 4 5 6 7 8\n");
  if (load_ok(&f2, path, &img)) {
    CHECK(img.size[0] == 2 && img.size[1] == 5);
    CHECK(((const float *)img.data)[0] == -32768.0f && ((const float *)img.data)[1] == 32767.0f);
    drt_image_free(&img);
  }
  /* int samples into float: 16777217 has no float */
  write_tmp(path, sizeof path, "i2x2.nrrd",
            "NRRD0004\ntype: int\ndimension: 2\nsizes: 2 2\nencoding: ascii\n\n"
            "16777217 0 1 2\n");
  expect_fail(&f2, path, "input 'img' (file '",
              "the samples are int, but the program was compiled for float samples (the type of "
              "its proxy image) and computes in float, which does not hold every int exactly: "
              "convert the file (unu convert -t float) or recompile with --double or with a "
              "proxy of type int",
              NULL);
  /* with --double (store double) the same file converts exactly */
  DrtImageSpec fd = {"input 'img'", 2, 1, nrrdTypeFloat, nrrdTypeDouble};
  if (load_ok(&fd, path, &img)) {
    CHECK(((const double *)img.data)[0] == 16777217.0);
    drt_image_free(&img);
  }
  /* but 64-bit integers never: no --double hint then */
  write_tmp(path, sizeof path, "l2x2.nrrd",
            "NRRD0004\ntype: long long\ndimension: 2\nsizes: 2 2\nencoding: ascii\n\n"
            "1 2 3 4\n");
  expect_fail(&fd, path,
              "the samples are long long int, but the program was compiled for float samples "
              "(the type of its proxy image) and computes in double, which does not hold every "
              "long long int exactly: convert the file (unu convert -t float) or recompile with "
              "a proxy of type long long int",
              NULL);
  /* the proxy's own type is always accepted (an int proxy: the user chose it) */
  DrtImageSpec ip = {"input 'img'", 2, 1, nrrdTypeInt, nrrdTypeFloat};
  write_tmp(path, sizeof path, "i2x2.nrrd",
            "NRRD0004\ntype: int\ndimension: 2\nsizes: 2 2\nencoding: ascii\n\n"
            "1 0 1 2\n");
  if (load_ok(&ip, path, &img)) drt_image_free(&img);
}

/* What would overrun Teem 1.12's 1 KB message buffers is refused before
 * Teem reads the file (rt_nrrd_guard.c; the e2e test bad_input has the
 * header lines and ascii samples): a file name, and the path of a
 * detached data file, beyond 512 bytes. */
static void test_guard(void) {
  DrtImageSpec ok = {"input 'img'", 2, 1, nrrdTypeFloat, nrrdTypeFloat};
  char name[700], dir1[512], dir2[1024], path[1100], msg[512];
  memset(name, 'n', 600);
  snprintf(name + 600, sizeof name - 600, ".nrrd");
  expect_fail(&ok, name, "the file name is 605 bytes long", NULL);
  /* a header in tmpdir/D1/D2 (200 bytes each) naming a 150-byte data file */
  char d[201];
  memset(d, 'd', 200);
  d[200] = '\0';
  snprintf(dir1, sizeof dir1, "%s/%s", tmpdir, d);
  snprintf(dir2, sizeof dir2, "%s/%s", dir1, d);
  CHECK(mkdir(dir1, 0700) == 0 && mkdir(dir2, 0700) == 0);
  snprintf(path, sizeof path, "%s/h.nhdr", dir2);
  char raw[151];
  memset(raw, 'r', 150);
  raw[150] = '\0';
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (f) {
    fprintf(f, "NRRD0004\ntype: float\ndimension: 2\nsizes: 2 2\nencoding: raw\ndata file: %s\n\n", raw);
    fclose(f);
  }
  size_t want = strlen(dir2) + 1 + 150;
  char text[96];
  snprintf(text, sizeof text, "the path of its data file is %zu bytes long", want);
  CHECK(want > 512 && strlen(path) < 512);
  CHECK_MSG(drt_nrrd_guard(path, msg, sizeof msg) == 1 && strstr(msg, text), "%s", msg);
  expect_fail(&ok, path, text, NULL);
  /* a short name beside it passes the guard (and fails in Teem: no data) */
  f = fopen(path, "wb");
  if (f) {
    fprintf(f, "NRRD0004\ntype: float\ndimension: 2\nsizes: 2 2\nencoding: raw\ndata file: r.raw\n\n");
    fclose(f);
  }
  CHECK(drt_nrrd_guard(path, msg, sizeof msg) == 0);
  unlink(path);
  CHECK(rmdir(dir2) == 0 && rmdir(dir1) == 0);
  /* lines Teem keeps unparsed may be long; others may not */
  char line[1200];
  memset(line, 'c', 1100);
  line[1100] = '\0';
  char body[1400];
  snprintf(body, sizeof body, "NRRD0004\n# %s\ntype: float\ndimension: 2\nsizes: 2 2\nencoding: ascii\n\n1 2 3 4\n", line);
  write_tmp(path, sizeof path, "c1.nrrd", body);
  CHECK(drt_nrrd_guard(path, msg, sizeof msg) == 0);
  snprintf(body, sizeof body, "NRRD0004\nk:=%s\ntype: float\ndimension: 2\nsizes: 2 2\nencoding: ascii\n\n1 2 3 4\n", line);
  write_tmp(path, sizeof path, "c2.nrrd", body);
  CHECK(drt_nrrd_guard(path, msg, sizeof msg) == 0);
  snprintf(body, sizeof body, "NRRD0004\nunits: \"%s\"\ntype: float\ndimension: 2\nsizes: 2 2\nencoding: ascii\n\n1 2 3 4\n", line);
  write_tmp(path, sizeof path, "c3.nrrd", body);
  CHECK_MSG(drt_nrrd_guard(path, msg, sizeof msg) == 1 && strstr(msg, "header line 2 is 1109 bytes long"), "%s", msg);
  /* standard input ("-") goes through the same guard (its copy), and a
   * good image still loads from it */
  CHECK(freopen(path, "rb", stdin) != NULL);
  expect_fail(&ok, "-", "input 'img' (file '-'): header line 2 is 1109 bytes long", NULL);
  write_tmp(path, sizeof path, "c3.nrrd",
            "NRRD0004\ntype: float\ndimension: 2\nsizes: 2 2\nencoding: ascii\n\n1 2 3 4\n");
  CHECK(freopen(path, "rb", stdin) != NULL);
  DrtImage img;
  if (load_ok(&ok, "-", &img)) {
    CHECK(img.size[0] == 2 && img.size[1] == 2 && ((const float *)img.data)[3] == 4.0f);
    drt_image_free(&img);
  }
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/test_rt_image-XXXXXX");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  test_ddro();
  test_sqflow();
  test_gray();
  test_normalize();
  test_bad();
  test_sequences();
  test_convert();
  test_any_image();
  test_guard();
  /* remove the temporary files */
  static const char *const files[] = {
      "a1.nrrd", "a2.nrrd", "a3.nrrd", "rgb.nrrd", "b1.nrrd", "b2.nrrd", "c1.nrrd",
      "c2.nrrd", "c3.nrrd", "garbage.nrrd", "short.nrrd", "notfirst.nrrd",
      "list.nrrd", "sd.nrrd", "sing.nrrd", "sym.nrrd", "ints.nrrd", "floats.nrrd",
      "vecs.nrrd", "vals.txt"};
  char path[512];
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", tmpdir, files[i]);
    unlink(path);
  }
  if (rmdir(tmpdir) != 0) perror(tmpdir);
  return unit_finish("rt_image");
}
