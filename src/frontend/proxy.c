/* proxy.c -- the header of a proxy NRRD, normalized as the runtime
 * normalizes an image it loads (doc/language.md §6.1).
 *
 * Only the axis kinds, sizes, the space dimension and the sample type
 * matter at compile time; the orientation rules (origin, space
 * directions: doc/language.md §6.1) are the runtime's business and cannot
 * fail on a header that Teem accepted, so they are not repeated here.
 */
#include "frontend/proxy.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <teem/nrrd.h>

#include "rt_nrrd_guard.h" /* rt/: what crashes Teem's reader, refused first */

/* Short sample-type names, indexed by Teem's nrrdType values. */
static const char *proxy_type_name(int type) {
  switch (type) {
  case nrrdTypeChar: return "char";
  case nrrdTypeUChar: return "uchar";
  case nrrdTypeShort: return "short";
  case nrrdTypeUShort: return "ushort";
  case nrrdTypeInt: return "int";
  case nrrdTypeUInt: return "uint";
  case nrrdTypeLLong: return "llong";
  case nrrdTypeULLong: return "ullong";
  case nrrdTypeFloat: return "float";
  case nrrdTypeDouble: return "double";
  default: return NULL;
  }
}

/* The number of components of an accepted component kind, or 0. 3-color
 * and RGB-color count as 3-vectors, 4-color and RGBA-color as 4-vectors;
 * symmetric matrices pass here and fail the component-count check later. */
static int proxy_component_kind_size(int kind) {
  switch (kind) {
  case nrrdKind2Vector: return 2;
  case nrrdKind3Vector:
  case nrrdKind3Color:
  case nrrdKindRGBColor: return 3;
  case nrrdKind4Vector:
  case nrrdKind4Color:
  case nrrdKindRGBAColor: return 4;
  case nrrdKind2DSymMatrix: return 3;
  case nrrdKind2DMatrix: return 4;
  case nrrdKind3DSymMatrix: return 6;
  case nrrdKind3DMatrix: return 9;
  default: return 0;
  }
}

/* The voxel shape a component kind stands for, used where the proxy alone
 * types an image (load_image inside an expression): full matrices are
 * square, everything else a vector of its components. */
static void kind_shape(int kind, int csize, int *order, int shape[2]) {
  if (kind == nrrdKind2DMatrix || kind == nrrdKind3DMatrix) {
    *order = 2;
    shape[0] = shape[1] = kind == nrrdKind2DMatrix ? 2 : 3;
  } else {
    *order = 1;
    shape[0] = csize;
  }
}

static void proxy_errf(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* Teem's biff message is a stack of "[nrrd] function: text" lines, outermost
 * first; the last line is the most specific cause. Keep only its text, on
 * one line. */
static void proxy_biff_reason(char *err, size_t errlen) {
  char *msg = biffGetDone(NRRD);
  const char *line = "";
  if (msg) {
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = '\0';
    char *last = strrchr(msg, '\n');
    line = last ? last + 1 : msg;
    if (line[0] == '[') { /* "[nrrd] " */
      const char *close = strchr(line, ']');
      if (close) line = close + 1;
    }
    while (*line == ' ') line++;
    /* "function: " */
    const char *colon = strstr(line, ": ");
    if (colon) {
      const char *p = line;
      while (p < colon && (isalnum((unsigned char)*p) || *p == '_')) p++;
      if (p == colon) line = colon + 2;
    }
  }
  proxy_errf(err, errlen, "invalid NRRD header: %s", line[0] ? line : "unknown error");
  free(msg);
}

bool proxy_read(const char *path, ProxyInfo *out, char *err, size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (!path || !out) {
    proxy_errf(err, errlen, "no file name");
    return false;
  }
  out->bad_type = false;
  /* Check readability first: Teem's message would name the file. */
  FILE *f = fopen(path, "rb");
  if (!f) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s", strerror(errno));
    buf[0] = (char)tolower((unsigned char)buf[0]);
    proxy_errf(err, errlen, "%s", buf);
    return false;
  }
  fclose(f);
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    proxy_errf(err, errlen, "is a directory");
    return false;
  }

  char why[512];
  if (drt_nrrd_guard(path, why, sizeof why)) {
    proxy_errf(err, errlen, "%s", why);
    return false;
  }
  Nrrd *nrrd = nrrdNew();
  NrrdIoState *nio = nrrdIoStateNew();
  if (!nrrd || !nio) {
    nrrdNuke(nrrd);
    nrrdIoStateNix(nio);
    proxy_errf(err, errlen, "out of memory");
    return false;
  }
  nio->skipData = AIR_TRUE; /* the header only: no sample memory */
  bool ok = false;
  if (nrrdLoad(nrrd, path, nio)) {
    proxy_biff_reason(err, errlen);
    goto done;
  }

  const char *tname = proxy_type_name(nrrd->type);
  if (!tname) {
    out->bad_type = true;
    out->type_name = airEnumStr(nrrdType, nrrd->type);
    proxy_errf(err, errlen, "unsupported sample type '%s'", out->type_name);
    goto done;
  }

  /* §8.3: at most one non-domain axis, and it must be axis 0. */
  unsigned dim = nrrd->dim;
  int ncomp = 1, nspatial = 0, order = 0, shape[2] = {0, 0};
  int sizes[3] = {0, 0, 0};
  for (unsigned a = 0; a < dim; a++) {
    int kind = nrrd->axis[a].kind;
    size_t size = nrrd->axis[a].size;
    if (size > INT_MAX) {
      proxy_errf(err, errlen, "axis %u is too large (%zu samples)", a, size);
      goto done;
    }
    if (kind == nrrdKindUnknown || nrrdKindIsDomain(kind)) {
      if (nspatial == 3) {
        int extra = 0;
        for (unsigned b = a; b < dim; b++)
          extra += nrrd->axis[b].kind == nrrdKindUnknown || nrrdKindIsDomain(nrrd->axis[b].kind);
        proxy_errf(err, errlen, "%d spatial axes; at most 3 are supported", 3 + extra);
        goto done;
      }
      sizes[nspatial++] = (int)size;
      continue;
    }
    const char *kname = airEnumStr(nrrdKind, kind);
    int csize = proxy_component_kind_size(kind);
    if (csize == 0) {
      proxy_errf(err, errlen, "axis %u has unsupported kind '%s'", a, kname);
      goto done;
    }
    if (a != 0) {
      proxy_errf(err, errlen,
                 "axis %u has non-spatial kind '%s'; only axis 0 may hold components", a,
                 kname);
      goto done;
    }
    if ((size_t)csize != size) { /* Teem checks this too; be safe */
      proxy_errf(err, errlen, "axis 0 of kind '%s' has %zu samples, not %d", kname, size,
                 csize);
      goto done;
    }
    ncomp = csize;
    kind_shape(kind, csize, &order, shape);
  }
  if (nspatial == 0) {
    proxy_errf(err, errlen, "no spatial axes");
    goto done;
  }
  /* total dimension = space dimension + (1 if there is a component axis) */
  if (nrrd->spaceDim > 0 && nrrd->spaceDim != (unsigned)nspatial) {
    proxy_errf(err, errlen, "space dimension %u does not match the %d spatial axes",
               nrrd->spaceDim, nspatial);
    goto done;
  }

  out->dim = nspatial;
  out->ncomp = ncomp;
  out->order = order;
  out->shape[0] = shape[0];
  out->shape[1] = shape[1];
  for (int i = 0; i < 3; i++) out->sizes[i] = sizes[i];
  out->nrrd_type = nrrd->type;
  out->type_name = tname;
  ok = true;

done:
  nrrdNuke(nrrd); /* frees the header fields; data is NULL with skipData */
  nrrdIoStateNix(nio);
  return ok;
}
