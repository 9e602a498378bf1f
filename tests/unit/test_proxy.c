/* test_proxy.c -- reading proxy NRRD headers (doc/language.md §6.1).
 *
 * Expected values for the sample files in tests/data come from their
 * headers as printed by `teem-unu head`:
 *   ddro-100.nrrd       type double, sizes 100 100, kinds space space
 *   sqflow2D-1608.nrrd  type float, sizes 2 192 64, kinds 2-vector space space
 *   gray.nrrd           type float, sizes 3 400, kinds 3-vector space
 * The small headers written below test the normalization rules (the
 * component axis first, kinds, orientation: doc/language.md §6.1 and
 * rt_image.c, which the compiler's reading of proxies follows).
 * The data directory is $DIDEROT_SRCDIR/tests/data (set by tests/run.py),
 * or ./tests/data.
 */
#include "frontend/proxy.h"

#include <stdlib.h>
#include <unistd.h>

#include "unit.h"

static char tmpdir[64];

static void data_path(char *buf, size_t n, const char *file) {
  const char *src = getenv("DIDEROT_SRCDIR");
  snprintf(buf, n, "%s/tests/data/%s", src && src[0] ? src : ".", file);
}

/* Writes `text` to tmpdir/name and returns the path in buf. */
static const char *write_file(char *buf, size_t n, const char *name, const char *text) {
  snprintf(buf, n, "%s/%s", tmpdir, name);
  FILE *f = fopen(buf, "wb");
  CHECK(f != NULL);
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  return buf;
}

static bool one_line(const char *s) { return s[0] && !strchr(s, '\n'); }

static void test_sample_files(void) {
  char path[512], err[256];
  ProxyInfo pi;

  data_path(path, sizeof path, "ddro-100.nrrd");
  memset(&pi, 0, sizeof pi);
  CHECK_MSG(proxy_read(path, &pi, err, sizeof err), "%s: %s", path, err);
  CHECK(pi.dim == 2);
  CHECK(pi.ncomp == 1);
  CHECK(pi.sizes[0] == 100 && pi.sizes[1] == 100);
  CHECK_STR(pi.type_name, "double");

  data_path(path, sizeof path, "sqflow2D-1608.nrrd");
  memset(&pi, 0, sizeof pi);
  CHECK_MSG(proxy_read(path, &pi, err, sizeof err), "%s: %s", path, err);
  CHECK(pi.dim == 2);
  CHECK(pi.ncomp == 2);
  CHECK(pi.sizes[0] == 192 && pi.sizes[1] == 64);
  CHECK_STR(pi.type_name, "float");

  data_path(path, sizeof path, "gray.nrrd");
  memset(&pi, 0, sizeof pi);
  CHECK_MSG(proxy_read(path, &pi, err, sizeof err), "%s: %s", path, err);
  CHECK(pi.dim == 1);
  CHECK(pi.ncomp == 3);
  CHECK(pi.sizes[0] == 400);
  CHECK_STR(pi.type_name, "float");
}

/* Accepted headers: kinds, sizes, type. */
typedef struct {
  const char *header;
  int dim, ncomp, s0, s1, s2;
  const char *type;
} Good;

static const Good goods[] = {
    /* No kinds: every axis is spatial. */
    {"NRRD0004\ntype: uchar\ndimension: 3\nsizes: 4 5 6\nendian: little\nencoding: raw\n\n", 3, 1, 4, 5, 6,
     "uchar"},
    {"NRRD0004\ntype: short\ndimension: 1\nsizes: 7\nencoding: ascii\n\n1 2 3 4 5 6 7\n", 1, 1,
     7, 0, 0, "short"},
    /* Domain kinds (time, domain) are spatial too. */
    {"NRRD0004\ntype: float\ndimension: 2\nsizes: 3 2\nkinds: domain time\n"
     "encoding: ascii\n\n1 2 3 4 5 6\n",
     2, 1, 3, 2, 0, "float"},
    /* 3-color / RGB-color count as 3-vectors, 4-color / RGBA-color as 4. */
    {"NRRD0004\ntype: ushort\ndimension: 3\nsizes: 3 8 9\nkinds: RGB-color space space\n"
     "endian: little\nencoding: raw\n\n",
     2, 3, 8, 9, 0, "ushort"},
    {"NRRD0004\ntype: int\ndimension: 2\nsizes: 3 5\nkinds: 3-color space\nendian: little\nencoding: raw\n\n", 1,
     3, 5, 0, 0, "int"},
    {"NRRD0004\ntype: double\ndimension: 4\nsizes: 4 2 3 4\nkinds: RGBA-color space space space\n"
     "endian: little\nencoding: raw\n\n",
     3, 4, 2, 3, 4, "double"},
    {"NRRD0004\ntype: float\ndimension: 2\nsizes: 4 5\nkinds: 4-color space\nendian: little\nencoding: raw\n\n",
     1, 4, 5, 0, 0, "float"},
    {"NRRD0004\ntype: float\ndimension: 4\nsizes: 9 2 2 2\nkinds: 3D-matrix space space space\n"
     "endian: little\nencoding: raw\n\n",
     3, 9, 2, 2, 2, "float"},
    /* Symmetric matrices pass normalization (the count check fails later). */
    {"NRRD0004\ntype: float\ndimension: 3\nsizes: 3 2 2\n"
     "kinds: 2D-symmetric-matrix space space\nendian: little\nencoding: raw\n\n",
     2, 3, 2, 2, 0, "float"},
    {"NRRD0004\ntype: float\ndimension: 4\nsizes: 6 2 2 2\n"
     "kinds: 3D-symmetric-matrix space space space\nendian: little\nencoding: raw\n\n",
     3, 6, 2, 2, 2, "float"},
    {"NRRD0004\ntype: signed char\ndimension: 3\nsizes: 4 3 3\nkinds: 2D-matrix space space\n"
     "endian: little\nencoding: raw\n\n",
     2, 4, 3, 3, 0, "char"},
    {"NRRD0004\ntype: float\ndimension: 3\nsizes: 4 3 3\nkinds: 4-vector space space\n"
     "endian: little\nencoding: raw\n\n",
     2, 4, 3, 3, 0, "float"},
    /* A space dimension that matches the spatial axes. */
    {"NRRD0004\ntype: float\ndimension: 3\nspace dimension: 2\nsizes: 3 4 5\n"
     "space directions: none (1,0) (0,1)\nkinds: 3-vector space space\nendian: little\nencoding: raw\n\n",
     2, 3, 4, 5, 0, "float"},
};

/* Rejected headers, with a word the reason must contain. */
typedef struct {
  const char *header;
  const char *reason_word;
} Bad;

static const Bad bads[] = {
    /* A list axis 0 is not an accepted component kind. */
    {"NRRD0004\ntype: float\ndimension: 2\nsizes: 3 4\nkinds: list space\nendian: little\nencoding: raw\n\n",
     "list"},
    {"NRRD0004\ntype: float\ndimension: 2\nsizes: 1 4\nkinds: scalar space\nendian: little\nencoding: raw\n\n",
     "scalar"},
    {"NRRD0004\ntype: float\ndimension: 2\nsizes: 3 4\nkinds: vector space\nendian: little\nencoding: raw\n\n",
     "vector"},
    {"NRRD0004\ntype: float\ndimension: 2\nsizes: 3 4\nkinds: HSV-color space\n"
     "endian: little\nencoding: raw\n\n",
     "HSV"},
    /* The component axis must be axis 0. */
    {"NRRD0004\ntype: float\ndimension: 2\nsizes: 4 3\nkinds: space 3-vector\nendian: little\nencoding: raw\n\n",
     "axis 1"},
    {"NRRD0004\ntype: float\ndimension: 3\nsizes: 3 3 4\nkinds: 3-vector 3-vector space\n"
     "endian: little\nencoding: raw\n\n",
     "axis 1"},
    /* More than 3 spatial axes. */
    {"NRRD0004\ntype: float\ndimension: 4\nsizes: 2 2 2 2\nendian: little\nencoding: raw\n\n", "4 spatial"},
    {"NRRD0004\ntype: float\ndimension: 5\nsizes: 3 2 2 2 2\n"
     "kinds: 3-vector space space space space\nendian: little\nencoding: raw\n\n",
     "4 spatial"},
    /* No spatial axis at all. */
    {"NRRD0004\ntype: float\ndimension: 1\nsizes: 3\nkinds: 3-vector\nendian: little\nencoding: raw\n\n",
     "spatial"},
    /* total dimension != space dimension + 1 component axis */
    {"NRRD0004\ntype: float\ndimension: 2\nspace dimension: 3\nsizes: 4 5\n"
     "space directions: (1,0,0) (0,1,0)\nendian: little\nencoding: raw\n\n",
     "space dimension"},
    /* Truncated or corrupt headers. */
    {"NRRD0004\ntype: float\ndimen", "invalid NRRD header"},
    {"NRRD0004\ntype: float\ndimension: 2\n\n", "invalid NRRD header"},
    {"NRRD0004\ntype: flaot\ndimension: 1\nsizes: 2\nendian: little\nencoding: raw\n\n", "invalid NRRD header"},
    {"NRRD0004\ntype: float\ndimension: 2\nsizes: 3 4 5\nendian: little\nencoding: raw\n\n",
     "invalid NRRD header"},
    {"", "invalid NRRD header"},
    /* Not tested: a kind/size mismatch (3-vector of size 4). Teem rejects
     * it ("requires size 3"), but its error path leaks 88 bytes, which the
     * AddressSanitizer run would report. */
};

static void test_written_headers(void) {
  char path[512], err[256];
  for (size_t i = 0; i < sizeof goods / sizeof goods[0]; i++) {
    const Good *g = &goods[i];
    ProxyInfo pi;
    memset(&pi, 0, sizeof pi);
    write_file(path, sizeof path, "good.nrrd", g->header);
    bool ok = proxy_read(path, &pi, err, sizeof err);
    CHECK_MSG(ok, "good header %zu rejected: %s", i, err);
    if (!ok) continue;
    CHECK_MSG(pi.dim == g->dim && pi.ncomp == g->ncomp, "header %zu: dim %d ncomp %d", i,
              pi.dim, pi.ncomp);
    CHECK_MSG(pi.sizes[0] == g->s0 && pi.sizes[1] == g->s1 && pi.sizes[2] == g->s2,
              "header %zu: sizes %d %d %d", i, pi.sizes[0], pi.sizes[1], pi.sizes[2]);
    CHECK_STR(pi.type_name, g->type);
  }
  for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
    const Bad *b = &bads[i];
    ProxyInfo pi;
    memset(&pi, 0, sizeof pi);
    strcpy(err, "");
    write_file(path, sizeof path, "bad.nrrd", b->header);
    bool ok = proxy_read(path, &pi, err, sizeof err);
    CHECK_MSG(!ok, "bad header %zu accepted", i);
    CHECK_MSG(one_line(err), "bad header %zu: reason '%s'", i, err);
    CHECK_MSG(strstr(err, b->reason_word) != NULL, "bad header %zu: reason '%s'", i, err);
    CHECK_MSG(strstr(err, tmpdir) == NULL, "reason names the file: %s", err);
  }
}

static void test_missing_and_buffers(void) {
  char path[512], err[256];
  ProxyInfo pi;
  snprintf(path, sizeof path, "%s/no-such-file.nrrd", tmpdir);
  CHECK(!proxy_read(path, &pi, err, sizeof err));
  CHECK(one_line(err));
  CHECK(strstr(err, "no-such-file") == NULL);
  CHECK(!proxy_read(tmpdir, &pi, err, sizeof err)); /* a directory */
  CHECK(strstr(err, "directory") != NULL);
  CHECK(one_line(err));
  /* A short buffer is truncated, not overrun; no buffer at all is fine. */
  char small[8];
  memset(small, 'x', sizeof small);
  CHECK(!proxy_read(path, &pi, small, sizeof small));
  CHECK(memchr(small, '\0', sizeof small) != NULL);
  CHECK(!proxy_read(path, &pi, NULL, 0));
  CHECK(!proxy_read(NULL, &pi, err, sizeof err));
  write_file(path, sizeof path, "ok.nrrd",
             "NRRD0004\ntype: float\ndimension: 1\nsizes: 2\nendian: little\nencoding: raw\n\n");
  CHECK(!proxy_read(path, NULL, err, sizeof err));
  CHECK(proxy_read(path, &pi, NULL, 0));
}

static void cleanup(void) {
  const char *names[] = {"good.nrrd", "bad.nrrd", "ok.nrrd"};
  char path[512];
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
    unlink(path);
  }
  rmdir(tmpdir);
}

int main(void) {
  const char *t = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/proxyXXXXXX", t && t[0] && strlen(t) < 40 ? t : "/tmp");
  if (!mkdtemp(tmpdir)) {
    CHECK_MSG(false, "mkdtemp failed");
    return unit_finish("proxy");
  }
  test_sample_files();
  test_written_headers();
  test_missing_and_buffers();
  cleanup();
  return unit_finish("proxy");
}
