/* test_rt_output.c -- output NRRD layouts (doc/language.md §13).
 *
 * Every layout is written to a file, read back with Teem's nrrdLoad, and
 * checked against the table of doc/language.md §13: sample type, dimension, sizes (data
 * axis first, grid axes in reverse iterator order), kinds, no space
 * information, and the values at offsets computed by hand.
 *
 * test_special_targets: saving never replaces a file that is not a
 * regular one (a device, a FIFO, a socket, stdout) and writes through
 * symbolic links, which stay links.
 */
#define _DEFAULT_SOURCE /* mknod, makedev */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
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
    if (n->data) memset(n->data, 0, 2 * cases[k].c * sizeof(double)); /* the caller fills it */
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
  /* not zeroed: the caller writes every sample */
  memcpy(n->data, (long long[]){-1, 5000000000LL, 0}, 3 * sizeof(long long));
  back = round_trip("llong.nrrd", n);
  if (back) {
    check_layout(back, nrrdTypeLLong, 1, (size_t[]){3}, (int[]){nrrdKindList}, "llong");
    CHECK(((const long long *)back->data)[1] == 5000000000LL);
    CHECK(((const long long *)back->data)[0] == -1 && ((const long long *)back->data)[2] == 0);
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
  if (n->data) memset(n->data, 0, 6 * 4 * sizeof(float)); /* the caller fills it */
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
  if (ndata->data) memset(ndata->data, 0, 4 * sizeof(long long)); /* the caller fills it */
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
  if (n->data) memset(n->data, 0, 2 * sizeof(float)); /* the caller fills it */
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

/* ------------------------------------------------ special targets */

/* A fresh 3-sample float output holding v, v+1, v+2. */
static Nrrd *small_output(float v) {
  DrtErrors e;
  drt_errors_init(&e);
  DrtDomain dom = {0, NULL, 3};
  DrtOutSpec spec = {nrrdTypeFloat, 1, nrrdKindUnknown};
  Nrrd *n = nrrdNew();
  CHECK(!drt_output_alloc(&e, "output 'x'", n, &spec, &dom));
  drt_errors_free(&e);
  for (int i = 0; i < 3; i++) ((float *)n->data)[i] = v + (float)i;
  return n;
}

/* PATH loads as the output of small_output(v). */
static void check_small(const char *path, float v, const char *what) {
  Nrrd *b = load(path);
  CHECK_MSG(b && b->type == nrrdTypeFloat && b->dim == 1 && b->axis[0].size == 3,
            "%s: '%s' is not the output", what, path);
  if (b && b->type == nrrdTypeFloat && b->axis[0].size == 3)
    for (int i = 0; i < 3; i++)
      CHECK_MSG(((const float *)b->data)[i] == v + (float)i, "%s: value %d", what, i);
  if (b) nrrdNuke(b);
}

static bool save_ok(const char *path, const Nrrd *n) {
  DrtErrors e;
  drt_errors_init(&e);
  bool err = drt_output_save(&e, "output 'x'", path, n);
  CHECK_MSG(!err, "saving to '%s': %s", path, drt_errors_text(&e));
  drt_errors_free(&e);
  return !err;
}

static mode_t type_of(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

/* Copy everything read from fd to the new file OUT (in a child: _exit). */
static void drain_to(int fd, const char *out) {
  int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char buf[4096];
  ssize_t k;
  while (o >= 0 && (k = read(fd, buf, sizeof buf)) > 0)
    if (write(o, buf, (size_t)k) != k) _exit(2);
  _exit(o >= 0 && close(o) == 0 ? 0 : 2);
}

/* Wait for a reader child; it kills itself (alarm) if the writer never
 * comes, so a runtime that replaces the FIFO or socket fails, not hangs. */
static void reap(pid_t pid, const char *what) {
  int status = 0;
  CHECK_MSG(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                WEXITSTATUS(status) == 0,
            "%s: the reader got nothing (status %#x)", what, (unsigned)status);
}

static void test_devices(void) {
  char path[256], full[256];
  tmp_path(path, sizeof path, "null");
  tmp_path(full, sizeof full, "full");
  /* copies of /dev/null and /dev/full, never the real ones */
  if (mknod(path, S_IFCHR | 0666, makedev(1, 3)) != 0 ||
      mknod(full, S_IFCHR | 0666, makedev(1, 7)) != 0) {
    printf("note: rt_output: mknod: %s (not root?): the device checks did not run\n",
           strerror(errno));
    unlink(path);
    return;
  }
  Nrrd *n = small_output(1.0f);
  save_ok(path, n);
  CHECK_MSG(type_of(path) == S_IFCHR, "the null device was replaced");
  /* a write error on a device names the file and the reason */
  DrtErrors e;
  drt_errors_init(&e);
  CHECK(drt_output_save(&e, "output 'x'", full, n));
  CHECK_MSG(strstr(drt_errors_text(&e), full) &&
                strstr(drt_errors_text(&e), strerror(ENOSPC)),
            "%s", drt_errors_text(&e));
  CHECK_MSG(type_of(full) == S_IFCHR, "the full device was replaced");
  drt_errors_free(&e);
  nrrdNuke(n);
  unlink(path);
  unlink(full);
}

/* Make the FIFO path and a child that copies what it reads from it to
 * the new file got; the child's pid (negative: no child). */
static pid_t fifo_reader(const char *path, const char *got) {
  CHECK(mkfifo(path, 0644) == 0);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    alarm(5);
    int fd = open(path, O_RDONLY);
    if (fd < 0) _exit(1);
    drain_to(fd, got);
  }
  return pid;
}

static void test_fifo(void) {
  char path[256], got[256];
  tmp_path(path, sizeof path, "fifo.nrrd");
  tmp_path(got, sizeof got, "fifo-got");
  pid_t pid = fifo_reader(path, got);
  if (pid < 0) return;
  Nrrd *n = small_output(2.0f);
  save_ok(path, n);
  reap(pid, "fifo");
  check_small(got, 2.0f, "fifo");
  CHECK_MSG(type_of(path) == S_IFIFO, "the FIFO was replaced");
  nrrdNuke(n);
  unlink(path);
  unlink(got);
}

static void test_socket(void) {
  char path[256], got[256];
  tmp_path(path, sizeof path, "sock.nrrd");
  tmp_path(got, sizeof got, "sock-got");
  struct sockaddr_un sa;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  if (strlen(path) >= sizeof sa.sun_path) return;
  memcpy(sa.sun_path, path, strlen(path) + 1);
  int ls = socket(AF_UNIX, SOCK_STREAM, 0);
  CHECK(ls >= 0 && bind(ls, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(ls, 1) == 0);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    alarm(5);
    int c = accept(ls, NULL, NULL);
    if (c < 0) _exit(1);
    drain_to(c, got);
  }
  close(ls);
  if (pid < 0) return;
  Nrrd *n = small_output(3.0f);
  save_ok(path, n);
  reap(pid, "socket");
  check_small(got, 3.0f, "socket");
  CHECK_MSG(type_of(path) == S_IFSOCK, "the socket was replaced");
  nrrdNuke(n);
  unlink(path);
  unlink(got);
}

static void test_symlinks(void) {
  char dir[256], link[256], target[256], link2[256];
  tmp_path(dir, sizeof dir, "real");
  CHECK(mkdir(dir, 0777) == 0);
  tmp_path(link, sizeof link, "link.nrrd");
  tmp_path(target, sizeof target, "real/target.nrrd");
  /* a dangling relative link: its target is created */
  CHECK(symlink("real/target.nrrd", link) == 0);
  Nrrd *n = small_output(4.0f);
  save_ok(link, n);
  CHECK_MSG(type_of(link) == S_IFLNK, "the dangling link was replaced");
  CHECK(type_of(target) == S_IFREG);
  check_small(target, 4.0f, "dangling link");
  /* an existing target, through a chain of two links; its mode stays */
  tmp_path(link2, sizeof link2, "link2.nrrd");
  CHECK(symlink("link.nrrd", link2) == 0);
  CHECK(chmod(target, 0600) == 0);
  nrrdNuke(n);
  n = small_output(5.0f);
  save_ok(link2, n);
  CHECK(type_of(link) == S_IFLNK && type_of(link2) == S_IFLNK);
  char buf[64] = "";
  CHECK(readlink(link, buf, sizeof buf - 1) > 0 && strcmp(buf, "real/target.nrrd") == 0);
  check_small(target, 5.0f, "link chain");
  struct stat st;
  CHECK(stat(target, &st) == 0 && (st.st_mode & 0777) == 0600);
  /* a detached header through a link: the header through it, the data
   * file beside the link, where a reader of the link's name finds it */
  char dlink[256], dhdr[256], draw[256];
  tmp_path(dlink, sizeof dlink, "dlink.nhdr");
  tmp_path(dhdr, sizeof dhdr, "real/det.nhdr");
  tmp_path(draw, sizeof draw, "dlink.raw");
  CHECK(symlink("real/det.nhdr", dlink) == 0);
  save_ok(dlink, n);
  CHECK(type_of(dlink) == S_IFLNK && type_of(dhdr) == S_IFREG && type_of(draw) == S_IFREG);
  check_small(dlink, 5.0f, "detached header through a link");
  /* a link into a missing directory: an error naming the file */
  char bad[256];
  tmp_path(bad, sizeof bad, "bad.nrrd");
  CHECK(symlink("nowhere/x.nrrd", bad) == 0);
  DrtErrors e;
  drt_errors_init(&e);
  CHECK(drt_output_save(&e, "output 'x'", bad, n));
  CHECK_MSG(strstr(drt_errors_text(&e), bad) && strstr(drt_errors_text(&e), strerror(ENOENT)),
            "%s", drt_errors_text(&e));
  CHECK(type_of(bad) == S_IFLNK);
  drt_errors_free(&e);
  nrrdNuke(n);
  check_no_tmp_files();
  unlink(bad);
  unlink(dlink);
  unlink(dhdr);
  unlink(draw);
  unlink(link2);
  unlink(link);
  unlink(target);
  rmdir(dir);
}

/* -o /dev/stdout with stdout redirected to a file (`> out.nrrd`): written
 * through our stdout, the file is not replaced. The literal /dev/stdout
 * only once a link of our own to /proc/self/fd/1 (what /dev/stdout is)
 * came through intact: a runtime that replaces links must not replace
 * the machine's /dev/stdout. */
static void test_stdout(void) {
  char link[256], out[256];
  tmp_path(link, sizeof link, "stdout");
  tmp_path(out, sizeof out, "stdout-got.nrrd");
  if (symlink("/proc/self/fd/1", link) != 0 || access("/proc/self/fd/1", F_OK) != 0) {
    printf("note: rt_output: no /proc/self/fd: the stdout checks did not run\n");
    unlink(link);
    return;
  }
  Nrrd *n = small_output(6.0f);
  const char *names[] = {link, "/dev/stdout"};
  for (int k = 0; k < 2; k++) {
    if (k == 1 && (type_of(link) != S_IFLNK || type_of("/dev/stdout") != S_IFLNK)) break;
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    struct stat before, after;
    CHECK(saved >= 0 && fd >= 0 && fstat(fd, &before) == 0);
    if (saved < 0 || fd < 0) return;
    dup2(fd, STDOUT_FILENO);
    close(fd);
    save_ok(names[k], n);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    CHECK_MSG(type_of(names[k]) == S_IFLNK, "'%s' was replaced", names[k]);
    CHECK_MSG(stat(out, &after) == 0 && after.st_ino == before.st_ino,
              "'%s': the redirected stdout was replaced", names[k]);
    check_small(out, 6.0f, names[k]);
  }
  nrrdNuke(n);
  unlink(out);
  unlink(link);
}

/* ---- outputs in parts (drt_output_save_parts) ------------------------------------ */

/* The items of a parts output: item k is (k, k/2, -k) as floats; `stop`
 * items in all (fewer than the header says: the error case). */
typedef struct {
  size_t next, stop;
  size_t calls;
} Parts;

static size_t parts_fill(void *ctx, void *buf, size_t cap) {
  Parts *p = ctx;
  float *o = buf;
  size_t n = 0;
  for (; n < cap && p->next < p->stop; n++, p->next++) {
    o[3 * n] = (float)p->next;
    o[3 * n + 1] = (float)p->next / 2;
    o[3 * n + 2] = -(float)p->next;
  }
  p->calls++;
  return n;
}

/* The same output whole, as drt_output_save writes it, and its header
 * alone (axes, kinds, type; no data) for the parts. */
static void parts_outputs(size_t items, Nrrd *whole, Nrrd *head) {
  DrtOutSpec spec = {nrrdTypeFloat, 3, nrrdKind3Vector};
  DrtDomain dom = {0, NULL, items};
  DrtErrors e;
  drt_errors_init(&e);
  CHECK(!drt_output_alloc(&e, "output 'x'", whole, &spec, &dom));
  CHECK(!drt_output_head(&e, "output 'x'", head, &spec, &dom));
  CHECK(head->data == NULL);
  drt_errors_free(&e);
  Parts p = {0, items, 0};
  parts_fill(&p, whole->data, items);
}

static bool same_bytes(const char *a, const char *b) {
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  bool same = fa && fb;
  for (int ca = 0, cb = 0; same && ca != EOF; same = ca == cb) {
    ca = getc(fa);
    cb = getc(fb);
  }
  if (fa) fclose(fa);
  if (fb) fclose(fb);
  return same;
}

/* Parts give the bytes of the whole output in every kind of target: a new
 * file, one replaced, a detached header (written whole), through a link,
 * into a FIFO; more items than one buffer holds; fewer items than the
 * header promises is an error that leaves no file. */
static void test_parts(void) {
  const size_t items = 20000; /* 240 KB: four of the 64 KiB buffers */
  Nrrd *whole = nrrdNew(), *head = nrrdNew();
  parts_outputs(items, whole, head);
  char want[256], path[256], link_[256], raw[256];
  tmp_path(want, sizeof want, "parts-want.nrrd");
  save_ok(want, whole);
  const char *names[] = {"parts-new.nrrd", "parts-new.nrrd" /* again: replaced */, "parts.nhdr"};
  for (int t = 0; t < 3; t++) {
    tmp_path(path, sizeof path, names[t]);
    Parts p = {0, items, 0};
    DrtErrors e;
    drt_errors_init(&e);
    CHECK_MSG(!drt_output_save_parts(&e, "output 'x'", path, head, 12, parts_fill, &p),
              "%s: %s", names[t], drt_errors_text(&e));
    drt_errors_free(&e);
    CHECK(head->data == NULL);
    if (t < 2) {
      CHECK_MSG(same_bytes(path, want), "%s: not the bytes of the whole output", names[t]);
      CHECK_MSG(p.calls >= 4, "%s: %zu parts for 240 KB", names[t], p.calls);
    } else {
      Nrrd *b = load(path);
      CHECK_MSG(b && b->dim == 2 && b->axis[1].size == items &&
                    ((const float *)b->data)[3 * 777 + 1] == 388.5f,
                "%s: not the output", names[t]);
      if (b) nrrdNuke(b);
      tmp_path(raw, sizeof raw, "parts.raw");
      unlink(raw);
    }
  }
  /* through a symbolic link, which stays one */
  tmp_path(link_, sizeof link_, "parts-link.nrrd");
  tmp_path(path, sizeof path, "parts-new.nrrd");
  CHECK(symlink(path, link_) == 0);
  {
    Parts p = {0, items, 0};
    DrtErrors e;
    drt_errors_init(&e);
    CHECK(!drt_output_save_parts(&e, "output 'x'", link_, head, 12, parts_fill, &p));
    drt_errors_free(&e);
    CHECK(type_of(link_) == S_IFLNK && same_bytes(path, want));
  }
  /* into a FIFO */
  char fifo[256], got[256];
  tmp_path(fifo, sizeof fifo, "parts-fifo.nrrd");
  tmp_path(got, sizeof got, "parts-fifo-got");
  pid_t pid = fifo_reader(fifo, got);
  if (pid > 0) {
    Parts p = {0, items, 0};
    DrtErrors e;
    drt_errors_init(&e);
    CHECK(!drt_output_save_parts(&e, "output 'x'", fifo, head, 12, parts_fill, &p));
    drt_errors_free(&e);
    reap(pid, "parts fifo");
    CHECK_MSG(same_bytes(got, want), "FIFO: not the bytes of the whole output");
    CHECK(type_of(fifo) == S_IFIFO);
  }
  /* too few items, or too many: an error naming the output; the previous
   * file stays, a new name is not created */
  for (int t = 0; t < 4; t++) {
    tmp_path(path, sizeof path, t & 1 ? "parts-short.nrrd" : "parts-new.nrrd");
    Parts p = {0, t < 2 ? items - 1 : items + 1, 0};
    DrtErrors e;
    drt_errors_init(&e);
    CHECK(drt_output_save_parts(&e, "output 'x'", path, head, 12, parts_fill, &p));
    CHECK_MSG(strstr(drt_errors_text(&e), "output 'x'") && strstr(drt_errors_text(&e), "internal error"),
              "%s", drt_errors_text(&e));
    drt_errors_free(&e);
    CHECK_MSG(t & 1 ? !exists(path) : same_bytes(path, want), "a wrong output touched '%s'", path);
  }
  tmp_path(path, sizeof path, "parts-new.nrrd");
  unlink(path);
  unlink(link_);
  unlink(want);
  unlink(fifo);
  unlink(got);
  nrrdNuke(whole);
  nrrdNuke(head);
}

/* ---- snapshots saved by the writer thread (drt_output_save_parts_behind) ----------- */

/* stop: how many items the producer gives (the header's number: right) */
static bool save_behind(DrtWriter *w, DrtErrors *e, const char *path, Nrrd *head, size_t stop) {
  Parts p = {0, stop, 0};
  return drt_output_save_parts_behind(w, e, "snapshot of 'x'", path, head, 12, parts_fill, &p);
}

/* The writer saves the bytes drt_output_save_parts saves, new files and
 * files replaced, in order with the targets it leaves to the caller (a
 * link, a FIFO); a producer's error is the caller's at once; a save that
 * fails behind is reported by the next call or by drt_writer_finish, which
 * name the file, and what was queued after it is not written. */
static void test_behind(void) {
  enum { N = 24 };
  DrtWriter *probe = drt_writer_new();
  if (!probe) { /* one CPU: saved in place (test_parts covers that path) */
    printf("note: rt_output: one CPU, no writer thread: the writer checks did not run\n");
    return;
  }
  {
    DrtErrors e0;
    drt_errors_init(&e0);
    CHECK(!drt_writer_finish(probe, &e0));
    drt_errors_free(&e0);
  }
  char want[N][256], path[256], link_[256], fifo[256], got[256];
  Nrrd *heads[N];
  for (int k = 0; k < N; k++) {
    size_t items = 100 + 997 * (size_t)k; /* up to 23 * 12 KB */
    Nrrd *whole = nrrdNew();
    heads[k] = nrrdNew();
    parts_outputs(items, whole, heads[k]);
    char name[32];
    snprintf(name, sizeof name, "behind-want-%02d.nrrd", k);
    tmp_path(want[k], sizeof want[k], name);
    save_ok(want[k], whole);
    nrrdNuke(whole);
  }
  tmp_path(link_, sizeof link_, "behind-link.nrrd");
  tmp_path(path, sizeof path, "behind-07.nrrd");
  CHECK(symlink(path, link_) == 0);
  tmp_path(fifo, sizeof fifo, "behind-fifo.nrrd");
  tmp_path(got, sizeof got, "behind-fifo-got");
  for (int round = 0; round < 2; round++) { /* new files, then replaced */
    DrtWriter *w = drt_writer_new();
    CHECK(w != NULL);
    DrtErrors e;
    drt_errors_init(&e);
    pid_t pid = round ? fifo_reader(fifo, got) : -1;
    for (int k = 0; k < N; k++) {
      size_t items = heads[k]->axis[1].size;
      tmp_path(path, sizeof path, "");
      snprintf(path + strlen(path), sizeof path - strlen(path), "behind-%02d.nrrd", k);
      CHECK_MSG(!save_behind(w, &e, path, heads[k], items), "%s", drt_errors_text(&e));
      if (k == 10 && pid > 0) /* a FIFO among them: written in place, in order */
        CHECK(!save_behind(w, &e, fifo, heads[3], heads[3]->axis[1].size));
      if (k == 7) /* a link to the file just queued: written after it */
        CHECK(!save_behind(w, &e, link_, heads[2], heads[2]->axis[1].size));
    }
    /* too few items: the producer's error, now, and no file */
    tmp_path(path, sizeof path, "behind-short.nrrd");
    CHECK(save_behind(w, &e, path, heads[1], heads[1]->axis[1].size - 1));
    CHECK_MSG(strstr(drt_errors_text(&e), "internal error"), "%s", drt_errors_text(&e));
    drt_errors_free(&e);
    CHECK(!drt_writer_finish(w, &e));
    CHECK_MSG(!drt_any_errors(&e), "%s", drt_errors_text(&e));
    drt_errors_free(&e);
    CHECK(!exists(path));
    if (pid > 0) {
      reap(pid, "behind fifo");
      CHECK_MSG(same_bytes(got, want[3]), "FIFO: not the bytes of the output");
      CHECK(type_of(fifo) == S_IFIFO);
      unlink(fifo);
      unlink(got);
    }
    for (int k = 0; k < N; k++) {
      tmp_path(path, sizeof path, "");
      snprintf(path + strlen(path), sizeof path - strlen(path), "behind-%02d.nrrd", k);
      /* behind-07 was last written through the link, with output 2 */
      CHECK_MSG(same_bytes(path, want[k == 7 ? 2 : k]), "round %d: behind-%02d.nrrd", round, k);
    }
    CHECK(type_of(link_) == S_IFLNK);
  }
  /* a directory that does not exist: the save fails behind; the file after
   * it is not written; the error names the first */
  DrtWriter *w = drt_writer_new();
  DrtErrors e;
  drt_errors_init(&e);
  char bad[256], after[256];
  tmp_path(bad, sizeof bad, "no-such-dir/behind.nrrd");
  tmp_path(after, sizeof after, "behind-after.nrrd");
  size_t items = heads[0]->axis[1].size;
  bool failed = save_behind(w, &e, bad, heads[0], items);
  failed |= save_behind(w, &e, after, heads[0], items);
  failed |= drt_writer_finish(w, &e);
  CHECK(failed);
  CHECK_MSG(strstr(drt_errors_text(&e), "snapshot of 'x'") && strstr(drt_errors_text(&e), bad) &&
                strstr(drt_errors_text(&e), strerror(ENOENT)),
            "%s", drt_errors_text(&e));
  CHECK_MSG(e.nerrors == 1, "%u errors: %s", e.nerrors, drt_errors_text(&e));
  CHECK(!exists(after));
  drt_errors_free(&e);
  /* a lone small file (no batch fills up) is saved within the batch
   * delay, before drt_writer_finish */
  w = drt_writer_new();
  drt_errors_init(&e);
  CHECK(!save_behind(w, &e, after, heads[0], items));
  bool seen = false;
  for (int i = 0; i < 200 && !(seen = same_bytes(after, want[0])); i++) usleep(10000);
  CHECK_MSG(seen, "a lone snapshot was not saved within 2 s");
  CHECK(!drt_writer_finish(w, &e));
  drt_errors_free(&e);
  unlink(after);
  /* no writer (drt_writer_new failed): saved in place */
  drt_errors_init(&e);
  CHECK(!save_behind(NULL, &e, after, heads[0], items));
  CHECK(same_bytes(after, want[0]));
  drt_errors_free(&e);
  unlink(after);
  unlink(link_);
  for (int k = 0; k < N; k++) {
    tmp_path(path, sizeof path, "");
    snprintf(path + strlen(path), sizeof path - strlen(path), "behind-%02d.nrrd", k);
    unlink(path);
    unlink(want[k]);
    nrrdNuke(heads[k]);
  }
}

static void test_special_targets(void) {
  test_devices();
  test_fifo();
  test_socket();
  test_symlinks();
  test_stdout();
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
  test_special_targets();
  test_parts();
  test_behind();
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
