/* test_rt_output.c -- output NRRD layouts (LANGUAGE.md §8.8, §7.2, §9.25-26).
 *
 * Every layout is written to a file, read back with Teem's nrrdLoad, and
 * checked against the §8.8 table: sample type, dimension, sizes (data
 * axis first, grid axes in reverse iterator order), kinds, no space
 * information, and the values at offsets computed by hand.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diderot_rt.h"
#include "unit.h"

static char tmpdir[64];

static void tmp_path(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s/%s", tmpdir, name);
}

static bool exists(const char *path) { return access(path, F_OK) == 0; }

/* Save n to tmpdir/name and load it back (NULL on failure). */
static Nrrd *round_trip(const char *name, const Nrrd *n) {
  char path[256];
  tmp_path(path, sizeof path, name);
  DrtErrors e;
  drt_errors_init(&e);
  bool err = drt_output_save(&e, "output 'x'", path, n);
  CHECK_MSG(!err, "%s", drt_errors_text(&e));
  drt_errors_free(&e);
  if (err) return NULL;
  Nrrd *back = nrrdNew();
  if (nrrdLoad(back, path, NULL)) {
    free(biffGetDone(NRRD));
    CHECK(!"nrrdLoad of our output");
    nrrdNuke(back);
    return NULL;
  }
  return back;
}

/* Check type, sizes and kinds of a loaded output, and that it has no
 * orientation. */
static void check_layout(const Nrrd *n, int type, unsigned dim, const size_t *sizes,
                         const int *kinds, const char *what) {
  CHECK_MSG(n->type == type, "%s: type %d, want %d", what, n->type, type);
  CHECK_MSG(n->dim == dim, "%s: dim %u, want %u", what, n->dim, dim);
  for (unsigned i = 0; i < dim && i < n->dim; i++) {
    CHECK_MSG(n->axis[i].size == sizes[i], "%s: axis %u size %zu, want %zu", what, i,
              n->axis[i].size, sizes[i]);
    CHECK_MSG(n->axis[i].kind == kinds[i], "%s: axis %u kind %d, want %d", what, i,
              n->axis[i].kind, kinds[i]);
    CHECK(isnan(n->axis[i].spaceDirection[0]));
  }
  CHECK_MSG(n->spaceDim == 0, "%s: has a space dimension", what);
}

static void test_kinds(void) {
  unsigned c;
  CHECK(drt_output_kind(0, 0, NULL, &c) == nrrdKindUnknown && c == 1);
  CHECK(drt_output_kind(0, 1, (unsigned[]){2}, &c) == nrrdKind2Vector && c == 2);
  CHECK(drt_output_kind(0, 1, (unsigned[]){3}, &c) == nrrdKind3Vector && c == 3);
  CHECK(drt_output_kind(0, 1, (unsigned[]){4}, &c) == nrrdKind4Vector && c == 4);
  CHECK(drt_output_kind(0, 1, (unsigned[]){5}, &c) == nrrdKindList && c == 5);
  CHECK(drt_output_kind(0, 2, (unsigned[]){2, 2}, &c) == nrrdKind2DMatrix && c == 4);
  CHECK(drt_output_kind(0, 2, (unsigned[]){3, 3}, &c) == nrrdKind3DMatrix && c == 9);
  CHECK(drt_output_kind(0, 2, (unsigned[]){2, 3}, &c) == nrrdKindList && c == 6);
  CHECK(drt_output_kind(0, 3, (unsigned[]){3, 3, 3}, &c) == nrrdKindList && c == 27);
  CHECK(drt_output_kind(3, 0, NULL, &c) == nrrdKindList && c == 3);        /* real[3] */
  CHECK(drt_output_kind(2, 1, (unsigned[]){3}, &c) == nrrdKindList && c == 6); /* vec3[2] */
  CHECK(drt_output_kind(1, 1, (unsigned[]){2}, &c) == nrrdKind2Vector && c == 2); /* vec2[1] */
  CHECK(drt_output_kind(1, 0, NULL, &c) == nrrdKindUnknown && c == 1);     /* real[1] */
}

static void test_grid(void) {
  /* create_array { f(x,y) | y in 0..H-1, x in 0..W-1 }, output vec3:
   * sizes 3 W H, kinds 3-vector space space (§8.8's example) */
  enum { W = 4, H = 3 };
  size_t iters[2] = {H, W};
  DrtDomain dom = {2, iters, 0};
  CHECK(drt_domain_count(&dom) == W * H);
  DrtOutSpec spec = {nrrdTypeFloat, 3, nrrdKind3Vector};
  DrtErrors e;
  drt_errors_init(&e);
  Nrrd *n = nrrdNew();
  CHECK(!drt_output_alloc(&e, "output 'rgb'", n, &spec, &dom));
  float *v = n->data;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (int c = 0; c < 3; c++) v[3 * (y * W + x) + c] = (float)(c + 10 * x + 100 * y);
  Nrrd *back = round_trip("rgb.nrrd", n);
  if (back) {
    check_layout(back, nrrdTypeFloat, 3, (size_t[]){3, W, H},
                 (int[]){nrrdKind3Vector, nrrdKindSpace, nrrdKindSpace}, "vec3 grid");
    const float *b = back->data;
    /* voxel (x,y) component c at c + 3*(x + W*y) */
    CHECK(b[2 + 3 * (1 + W * 2)] == 2 + 10 + 200);
    CHECK(b[0 + 3 * (3 + W * 0)] == 30);
    CHECK(b[1 + 3 * (0 + W * 1)] == 101);
    nrrdNuke(back);
  }
  nrrdNuke(n);

  /* scalar real (double) over a 3-D grid: no data axis, axes reversed */
  size_t it3[3] = {2, 3, 5}; /* i1, i2, i3 */
  DrtDomain d3 = {3, it3, 0};
  DrtOutSpec sd = {nrrdTypeDouble, 1, nrrdKindUnknown};
  n = nrrdNew();
  CHECK(!drt_output_alloc(&e, "output 'v'", n, &sd, &d3));
  double *dv = n->data;
  for (size_t i = 0; i < 30; i++) dv[i] = 0.5 * (double)i;
  back = round_trip("scalar.nrrd", n);
  if (back) {
    check_layout(back, nrrdTypeDouble, 3, (size_t[]){5, 3, 2},
                 (int[]){nrrdKindSpace, nrrdKindSpace, nrrdKindSpace}, "double grid");
    CHECK(((const double *)back->data)[29] == 14.5);
    nrrdNuke(back);
  }
  nrrdNuke(n);

  /* "hello world": one strand, scalar -> a 1-element 1-D array */
  size_t one[1] = {1};
  DrtDomain d1 = {1, one, 0};
  DrtOutSpec si = {nrrdTypeInt, 1, nrrdKindUnknown};
  n = nrrdNew();
  CHECK(!drt_output_alloc(&e, "output 'x'", n, &si, &d1));
  *(int32_t *)n->data = -42;
  back = round_trip("hello.nrrd", n);
  if (back) {
    check_layout(back, nrrdTypeInt, 1, (size_t[]){1}, (int[]){nrrdKindSpace}, "hello");
    CHECK(*(const int32_t *)back->data == -42);
    nrrdNuke(back);
  }
  nrrdNuke(n);
  CHECK_MSG(!drt_any_errors(&e), "%s", drt_errors_text(&e));
  drt_errors_free(&e);
}

static void test_collection(void) {
  DrtErrors e;
  drt_errors_init(&e);
  /* mat3 over 5 stable strands: sizes 9 5, kinds 3D-matrix list;
   * m[i,j] at 3i+j of the data axis (§9.1) */
  DrtDomain dom = {0, NULL, 5};
  unsigned c;
  int kind = drt_output_kind(0, 2, (unsigned[]){3, 3}, &c);
  DrtOutSpec spec = {nrrdTypeFloat, c, kind};
  Nrrd *n = nrrdNew();
  CHECK(!drt_output_alloc(&e, "output 'm'", n, &spec, &dom));
  float *v = n->data;
  for (int s = 0; s < 5; s++)
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) v[9 * s + 3 * i + j] = (float)(100 * s + 10 * i + j);
  Nrrd *back = round_trip("mat3.nrrd", n);
  if (back) {
    check_layout(back, nrrdTypeFloat, 2, (size_t[]){9, 5},
                 (int[]){nrrdKind3DMatrix, nrrdKindList}, "mat3 collection");
    CHECK(((const float *)back->data)[9 * 4 + 3 * 1 + 2] == 412);
    nrrdNuke(back);
  }
  nrrdNuke(n);

  /* mat2 -> 2D-matrix; tensor[2,3] -> list of 6; vec2/vec4 */
  struct { unsigned rank, shape[2]; int kind; unsigned c; } cases[] = {
      {2, {2, 2}, nrrdKind2DMatrix, 4}, {2, {2, 3}, nrrdKindList, 6},
      {1, {2, 0}, nrrdKind2Vector, 2},  {1, {4, 0}, nrrdKind4Vector, 4}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    DrtOutSpec s = {nrrdTypeDouble, 0, 0};
    s.kind = drt_output_kind(0, cases[k].rank, cases[k].shape, &s.ncomp);
    DrtDomain d = {0, NULL, 2};
    n = nrrdNew();
    CHECK(!drt_output_alloc(&e, "output 't'", n, &s, &d));
    back = round_trip("t.nrrd", n);
    if (back) {
      check_layout(back, nrrdTypeDouble, 2, (size_t[]){cases[k].c, 2},
                   (int[]){cases[k].kind, nrrdKindList}, "tensor collection");
      nrrdNuke(back);
    }
    nrrdNuke(n);
  }

  /* bool -> uchar 0/1, one list axis */
  DrtOutSpec sb = {nrrdTypeUChar, 1, nrrdKindUnknown};
  DrtDomain d3 = {0, NULL, 3};
  n = nrrdNew();
  CHECK(!drt_output_alloc(&e, "output 'b'", n, &sb, &d3));
  bool flags[3] = {true, false, true};
  memcpy(n->data, flags, sizeof flags); /* C bool is one byte, 0 or 1 */
  back = round_trip("bool.nrrd", n);
  if (back) {
    check_layout(back, nrrdTypeUChar, 1, (size_t[]){3}, (int[]){nrrdKindList}, "bool");
    const unsigned char *b = back->data;
    CHECK(b[0] == 1 && b[1] == 0 && b[2] == 1);
    nrrdNuke(back);
  }
  nrrdNuke(n);

  /* int with --long-int -> long long */
  DrtOutSpec sl = {nrrdTypeLLong, 1, nrrdKindUnknown};
  n = nrrdNew();
  CHECK(!drt_output_alloc(&e, "output 'i'", n, &sl, &d3));
  ((long long *)n->data)[1] = 5000000000LL;
  back = round_trip("llong.nrrd", n);
  if (back) {
    check_layout(back, nrrdTypeLLong, 1, (size_t[]){3}, (int[]){nrrdKindList}, "llong");
    CHECK(((const long long *)back->data)[1] == 5000000000LL);
    CHECK(((const long long *)back->data)[0] == 0); /* zeroed */
    nrrdNuke(back);
  }
  nrrdNuke(n);

  /* fixed sequence vec3[2] -> list of 6 over a grid */
  size_t it[1] = {4};
  DrtDomain dg = {1, it, 0};
  DrtOutSpec sq = {nrrdTypeFloat, 0, 0};
  sq.kind = drt_output_kind(2, 1, (unsigned[]){3}, &sq.ncomp);
  n = nrrdNew();
  CHECK(!drt_output_alloc(&e, "output 's'", n, &sq, &dg));
  back = round_trip("seq.nrrd", n);
  if (back) {
    check_layout(back, nrrdTypeFloat, 2, (size_t[]){6, 4},
                 (int[]){nrrdKindList, nrrdKindSpace}, "vec3[2] grid");
    nrrdNuke(back);
  }
  nrrdNuke(n);
  CHECK_MSG(!drt_any_errors(&e), "%s", drt_errors_text(&e));

  /* no stable strands: nothing to write, an error */
  DrtDomain d0 = {0, NULL, 0};
  n = nrrdNew();
  CHECK(drt_output_alloc(&e, "output 'm'", n, &spec, &d0));
  CHECK(strstr(drt_errors_text(&e), "output 'm': no strands") != NULL);
  nrrdNuke(n);
  drt_errors_free(&e);
}

static Nrrd *load(const char *path) {
  Nrrd *n = nrrdNew();
  if (nrrdLoad(n, path, NULL)) {
    free(biffGetDone(NRRD));
    nrrdNuke(n);
    return NULL;
  }
  return n;
}

static void test_dynseq(void) {
  DrtErrors e;
  drt_errors_init(&e);
  char prefix[256], path[256];
  /* vec2[] over a collection of 3 strands with 2, 0, 3 elements */
  DrtDomain dom = {0, NULL, 3};
  uint32_t lens[3] = {2, 0, 3};
  DrtOutSpec spec = {nrrdTypeFloat, 2, nrrdKind2Vector};
  Nrrd *nlen = nrrdNew(), *ndata = nrrdNew();
  CHECK(!drt_output_alloc_dynseq(&e, "output 'y'", nlen, ndata, &spec, &dom, lens));
  if (ndata->data) {
    float *v = ndata->data;
    for (int i = 0; i < 10; i++) v[i] = (float)i;
  }
  tmp_path(prefix, sizeof prefix, "y");
  CHECK(!drt_output_save_dynseq(&e, "output 'y'", prefix, -1, nlen, ndata));
  CHECK(e.nwarnings == 0);
  tmp_path(path, sizeof path, "y-len.nrrd");
  Nrrd *b = load(path);
  CHECK(b != NULL);
  if (b) {
    check_layout(b, nrrdTypeInt, 2, (size_t[]){2, 3},
                 (int[]){nrrdKind2Vector, nrrdKindList}, "y-len");
    const int32_t *p = b->data;
    CHECK(p[0] == 0 && p[1] == 2 && p[2] == 2 && p[3] == 0 && p[4] == 2 && p[5] == 3);
    nrrdNuke(b);
  }
  tmp_path(path, sizeof path, "y-data.nrrd");
  b = load(path);
  CHECK(b != NULL);
  if (b) {
    check_layout(b, nrrdTypeFloat, 2, (size_t[]){2, 5},
                 (int[]){nrrdKind2Vector, nrrdKindList}, "y-data");
    CHECK(((const float *)b->data)[9] == 9.0f);
    nrrdNuke(b);
  }

  /* int[] over a 2x2 grid, as a snapshot at step 5: int lengths even
   * with --long-int data */
  size_t it[2] = {2, 2};
  DrtDomain dg = {2, it, 0};
  uint32_t l4[4] = {1, 2, 0, 1};
  DrtOutSpec si = {nrrdTypeLLong, 1, nrrdKindUnknown};
  CHECK(!drt_output_alloc_dynseq(&e, "output 'z'", nlen, ndata, &si, &dg, l4));
  tmp_path(prefix, sizeof prefix, "z");
  CHECK(!drt_output_save_dynseq(&e, "output 'z'", prefix, 5, nlen, ndata));
  tmp_path(path, sizeof path, "z-len-0005.nrrd");
  b = load(path);
  CHECK(b != NULL);
  if (b) {
    check_layout(b, nrrdTypeInt, 3, (size_t[]){2, 2, 2},
                 (int[]){nrrdKind2Vector, nrrdKindSpace, nrrdKindSpace}, "z-len");
    const int32_t *p = b->data;
    CHECK(p[6] == 3 && p[7] == 1); /* last strand: offset 1+2+0, length 1 */
    nrrdNuke(b);
  }
  tmp_path(path, sizeof path, "z-data-0005.nrrd");
  b = load(path);
  CHECK(b != NULL);
  if (b) {
    check_layout(b, nrrdTypeLLong, 1, (size_t[]){4}, (int[]){nrrdKindList}, "z-data");
    nrrdNuke(b);
  }

  /* every sequence empty: the lengths file only, and a warning */
  uint32_t l0[2] = {0, 0};
  DrtDomain d2 = {0, NULL, 2};
  CHECK(!drt_output_alloc_dynseq(&e, "output 'w'", nlen, ndata, &si, &d2, l0));
  CHECK(ndata->data == NULL);
  tmp_path(prefix, sizeof prefix, "w");
  CHECK(!drt_output_save_dynseq(&e, "output 'w'", prefix, -1, nlen, ndata));
  CHECK(e.nwarnings == 1 && strstr(drt_warnings_text(&e), "every sequence is empty"));
  tmp_path(path, sizeof path, "w-len.nrrd");
  b = load(path);
  CHECK(b != NULL);
  if (b) {
    check_layout(b, nrrdTypeInt, 2, (size_t[]){2, 2},
                 (int[]){nrrdKind2Vector, nrrdKindList}, "w-len");
    const int32_t *p = b->data;
    CHECK(p[0] == 0 && p[1] == 0 && p[2] == 0 && p[3] == 0);
    nrrdNuke(b);
  }
  tmp_path(path, sizeof path, "w-data.nrrd");
  CHECK(!exists(path));
  CHECK_MSG(!drt_any_errors(&e), "%s", drt_errors_text(&e));
  nrrdNuke(nlen);
  nrrdNuke(ndata);
  drt_errors_free(&e);
}

static void test_names(void) {
  struct { const char *prefix, *part; long long step; const char *want; } cases[] = {
      {"state", NULL, 0, "state-0000.nrrd"},   {"state", NULL, 5, "state-0005.nrrd"},
      {"state", NULL, 12345, "state-12345.nrrd"}, {"out", NULL, -1, "out.nrrd"},
      {"y", "len", -1, "y-len.nrrd"},          {"y", "data", 40, "y-data-0040.nrrd"},
      {"dir/p", "len", 9999, "dir/p-len-9999.nrrd"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *s = drt_output_filename(cases[i].prefix, cases[i].part, cases[i].step);
    CHECK_STR(s, cases[i].want);
    free(s);
  }
}

/* No temporary file is left in tmpdir. */
static void check_no_tmp_files(void) {
  DIR *d = opendir(tmpdir);
  if (!d) return;
  for (struct dirent *de; (de = readdir(d));)
    CHECK_MSG(!strstr(de->d_name, ".tmp"), "left behind: %s", de->d_name);
  closedir(d);
}

static void test_save_errors(void) {
  DrtErrors e;
  drt_errors_init(&e);
  DrtDomain dom = {0, NULL, 2};
  DrtOutSpec spec = {nrrdTypeFloat, 1, nrrdKindUnknown};
  Nrrd *n = nrrdNew();
  CHECK(!drt_output_alloc(&e, "output 'x'", n, &spec, &dom));
  /* a directory that does not exist */
  CHECK(drt_output_save(&e, "output 'x'", "/nonexistent/dir/x.nrrd", n));
  CHECK(strstr(drt_errors_text(&e), "output 'x' (file '/nonexistent/dir/x.nrrd'): "
                                    "cannot create the output"));
  CHECK(!exists("/nonexistent/dir/x.nrrd"));
  drt_errors_free(&e);
  /* the target is a directory: the rename fails, the temp file goes */
  char path[256];
  tmp_path(path, sizeof path, "isdir.nrrd");
  CHECK(mkdir(path, 0777) == 0);
  CHECK(drt_output_save(&e, "output 'x'", path, n));
  CHECK(drt_any_errors(&e));
  check_no_tmp_files();
  rmdir(path);
  drt_errors_free(&e);
  /* an existing file is replaced */
  tmp_path(path, sizeof path, "replace.nrrd");
  FILE *f = fopen(path, "w");
  if (f) {
    fputs("old junk\n", f);
    fclose(f);
  }
  ((float *)n->data)[1] = 7.0f;
  CHECK(!drt_output_save(&e, "output 'x'", path, n));
  Nrrd *b = load(path);
  CHECK(b && b->type == nrrdTypeFloat && ((const float *)b->data)[1] == 7.0f);
  if (b) nrrdNuke(b);
  /* a detached header writes .nhdr + .raw */
  tmp_path(path, sizeof path, "det.nhdr");
  CHECK(!drt_output_save(&e, "output 'x'", path, n));
  b = load(path);
  CHECK(b && b->dim == 1 && ((const float *)b->data)[1] == 7.0f);
  if (b) nrrdNuke(b);
  /* nothing to save */
  Nrrd *empty = nrrdNew();
  CHECK(drt_output_save(&e, "output 'x'", path, empty));
  nrrdNuke(empty);
  check_no_tmp_files();
  nrrdNuke(n);
  drt_errors_free(&e);
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/test_rt_output-XXXXXX");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  test_kinds();
  test_grid();
  test_collection();
  test_dynseq();
  test_names();
  test_save_errors();
  check_no_tmp_files();
  /* clean up everything written */
  DIR *d = opendir(tmpdir);
  if (d) {
    char path[512];
    for (struct dirent *de; (de = readdir(d));) {
      if (de->d_name[0] == '.') continue;
      snprintf(path, sizeof path, "%s/%s", tmpdir, de->d_name);
      unlink(path);
    }
    closedir(d);
  }
  rmdir(tmpdir);
  return unit_finish("rt_output");
}
