/* rt_image.c -- loading images at run time (doc/language.md §6.1).
 *
 * Teem 1.12 (the Debian snapshot) has no nrrdMetaDataNormalize, so the
 * normalization rules of §8.3 step 2 are implemented here directly on the
 * Nrrd struct. Then the image is checked against what the generated code
 * was compiled for, converted to the storage type, and its world-to-index
 * transform is built.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <teem/air.h>
#include <teem/biff.h>

#include "rt_internal.h"
#include "rt_nrrd_guard.h"

/* ---------------------------------------------------------------- types */

bool drt_type_ok(int type) {
  return type > nrrdTypeUnknown && type < nrrdTypeBlock;
}

const char *drt_type_name(int type) {
  return drt_type_ok(type) || type == nrrdTypeBlock ? airEnumStr(nrrdType, type)
                                                     : "unknown";
}

static const char *kind_name(int kind) {
  return kind > nrrdKindUnknown && kind < nrrdKindLast ? airEnumStr(nrrdKind, kind)
                                                       : "none";
}

/* ---------------------------------------------------------- conversion */

/* One sample, read exactly: integers keep all their bits. */
typedef struct Val {
  enum { V_S, V_U, V_D } k;
  long long s;
  unsigned long long u;
  double d;
} Val;

static Val get_val(const void *p, int type, size_t i) {
  Val v = {V_S, 0, 0, 0.0};
  switch (type) {
  case nrrdTypeChar: v.s = ((const signed char *)p)[i]; break;
  case nrrdTypeUChar: v.s = ((const unsigned char *)p)[i]; break;
  case nrrdTypeShort: v.s = ((const short *)p)[i]; break;
  case nrrdTypeUShort: v.s = ((const unsigned short *)p)[i]; break;
  case nrrdTypeInt: v.s = ((const int *)p)[i]; break;
  case nrrdTypeUInt: v.s = ((const unsigned int *)p)[i]; break;
  case nrrdTypeLLong: v.s = ((const long long *)p)[i]; break;
  case nrrdTypeULLong: v.k = V_U; v.u = ((const unsigned long long *)p)[i]; break;
  case nrrdTypeFloat: v.k = V_D; v.d = ((const float *)p)[i]; break;
  default: v.k = V_D; v.d = ((const double *)p)[i]; break;
  }
  return v;
}

/* Clamp to [lo, hi]; reals are truncated toward zero, NaN becomes 0. The
 * comparisons avoid every out-of-range conversion (undefined in C). */
static long long to_signed(Val v, long long lo, long long hi) {
  switch (v.k) {
  case V_S: return v.s < lo ? lo : v.s > hi ? hi : v.s;
  case V_U: return v.u > (unsigned long long)hi ? hi : (long long)v.u;
  default:
    if (isnan(v.d)) return 0;
    if (v.d <= (double)lo) return lo;       /* (double)lo is exact */
    if (v.d >= -(double)lo) return hi;      /* 2^(bits-1) > hi */
    {
      long long x = (long long)v.d;
      return x > hi ? hi : x;
    }
  }
}

static unsigned long long to_unsigned(Val v, unsigned long long hi) {
  switch (v.k) {
  case V_S: return v.s < 0 ? 0 : (unsigned long long)v.s > hi ? hi : (unsigned long long)v.s;
  case V_U: return v.u > hi ? hi : v.u;
  default:
    if (isnan(v.d) || v.d <= 0.0) return 0;
    /* hi + 1 is a power of two, exact in double */
    if (v.d >= (double)(hi / 2 + 1) * 2.0) return hi;
    return (unsigned long long)v.d;
  }
}

static double to_double(Val v) {
  return v.k == V_S ? (double)v.s : v.k == V_U ? (double)v.u : v.d;
}

static float to_float(Val v) {
  if (v.k == V_S) return (float)v.s;
  if (v.k == V_U) return (float)v.u;
  if (v.d > FLT_MAX) return HUGE_VALF;        /* avoid the undefined */
  if (v.d < -FLT_MAX) return -HUGE_VALF;      /* out-of-range narrowing */
  return (float)v.d;
}

static bool val_nonzero(Val v) {
  return v.k == V_S ? v.s != 0 : v.k == V_U ? v.u != 0 : v.d != 0.0;
}

static void put_val(void *p, int type, size_t i, Val v) {
  switch (type) {
  case nrrdTypeChar: ((signed char *)p)[i] = (signed char)to_signed(v, SCHAR_MIN, SCHAR_MAX); break;
  case nrrdTypeUChar: ((unsigned char *)p)[i] = (unsigned char)to_unsigned(v, UCHAR_MAX); break;
  case nrrdTypeShort: ((short *)p)[i] = (short)to_signed(v, SHRT_MIN, SHRT_MAX); break;
  case nrrdTypeUShort: ((unsigned short *)p)[i] = (unsigned short)to_unsigned(v, USHRT_MAX); break;
  case nrrdTypeInt: ((int *)p)[i] = (int)to_signed(v, INT_MIN, INT_MAX); break;
  case nrrdTypeUInt: ((unsigned *)p)[i] = (unsigned)to_unsigned(v, UINT_MAX); break;
  case nrrdTypeLLong: ((long long *)p)[i] = to_signed(v, LLONG_MIN, LLONG_MAX); break;
  case nrrdTypeULLong: ((unsigned long long *)p)[i] = to_unsigned(v, ULLONG_MAX); break;
  case nrrdTypeFloat: ((float *)p)[i] = to_float(v); break;
  default: ((double *)p)[i] = to_double(v); break;
  }
}

/* Tight loops for the conversions images need most (to float/double),
 * where the C conversion is always defined. */
#define WIDEN(ST, DT)                                                      \
  do {                                                                     \
    const ST *s_ = src;                                                    \
    DT *d_ = dst;                                                          \
    for (size_t i_ = 0; i_ < n; i_++) d_[i_] = (DT)s_[i_];                 \
  } while (0)

static bool widen_fast(void *dst, int dt, const void *src, int st, size_t n) {
  if (dt == nrrdTypeDouble) {
    switch (st) {
    case nrrdTypeFloat: WIDEN(float, double); return true;
    case nrrdTypeUChar: WIDEN(unsigned char, double); return true;
    case nrrdTypeShort: WIDEN(short, double); return true;
    case nrrdTypeUShort: WIDEN(unsigned short, double); return true;
    case nrrdTypeInt: WIDEN(int, double); return true;
    default: return false;
    }
  }
  if (dt == nrrdTypeFloat) {
    switch (st) {
    case nrrdTypeUChar: WIDEN(unsigned char, float); return true;
    case nrrdTypeShort: WIDEN(short, float); return true;
    case nrrdTypeUShort: WIDEN(unsigned short, float); return true;
    default: return false;
    }
  }
  return false;
}

bool drt_convert(void *dst, int dst_type, const void *src, int src_type,
                 size_t n, bool to_bool) {
  if (!drt_type_ok(dst_type) || !drt_type_ok(src_type)) return true;
  if (to_bool) {
    for (size_t i = 0; i < n; i++) {
      Val v = {V_S, val_nonzero(get_val(src, src_type, i)), 0, 0.0};
      put_val(dst, dst_type, i, v);
    }
    return false;
  }
  if (dst_type == src_type) {
    memcpy(dst, src, n * nrrdTypeSize[src_type]);
    return false;
  }
  if (widen_fast(dst, dst_type, src, src_type, n)) return false;
  for (size_t i = 0; i < n; i++) put_val(dst, dst_type, i, get_val(src, src_type, i));
  return false;
}

bool drt_type_exact_in(int from, int to) {
  if (from == to) return true;
  switch (to) {
  case nrrdTypeFloat: /* a 24-bit significand: integers of up to 16 bits */
    return from == nrrdTypeChar || from == nrrdTypeUChar || from == nrrdTypeShort ||
           from == nrrdTypeUShort;
  case nrrdTypeDouble: /* 53 bits: every type but the 64-bit integers */
    return from != nrrdTypeLLong && from != nrrdTypeULLong && drt_type_ok(from);
  default: return false;
  }
}

/* ------------------------------------------------------------- loading */

/* The header first: Teem allocates what the sizes announce before it
 * reads a sample, so a header of 10^19 samples (fuzz_nrrd found one) must
 * be refused here, in the user's terms, not by a failed or overcommitted
 * malloc inside Teem. The header is read with skipData from `f` (rewound
 * afterwards), or from `file` when f is NULL. True (and the error) when
 * its samples are beyond what the process may use. */
static bool drt_header_refused(DrtErrors *e, const char *what, const char *file, FILE *f) {
  NrrdIoState *nio = nrrdIoStateNew();
  Nrrd *h = nio ? nrrdNew() : NULL;
  bool refused = false;
  if (h) {
    nio->skipData = AIR_TRUE;
    /* a header Teem's checks refuse still has its sizes, and the full
     * load allocates them before it checks (fuzz_nrrd: 3.3e17 3-vectors) */
    if (f ? nrrdRead(h, f, nio) : nrrdLoad(h, file, nio))
      free(biffGetDone(NRRD)); /* the full load says why */
    if (h->type > nrrdTypeUnknown && h->type < nrrdTypeBlock) {
      uint64_t count = 1;
      for (unsigned a = 0; a < h->dim && a < NRRD_DIM_MAX; a++) count = drt_mem_mul(count, h->axis[a].size);
      refused = drt_mem_refuse(e, what, count, "samples", drt_mem_mul(count, nrrdTypeSize[h->type]));
    }
    nrrdNuke(h);
  }
  if (nio) nrrdIoStateNix(nio);
  if (f) rewind(f);
  return refused;
}

/* Standard input ("-"): copied to an unnamed temporary file (tmpfile:
 * removed when closed or when the process dies), so that, as for a named
 * file, the guard and the header are read before Teem reads the samples. */
static Nrrd *drt_load_stdin(DrtErrors *e, const char *what) {
  FILE *t = tmpfile();
  if (!t) {
    drt_error_at(e, what, "-", "cannot keep a copy of standard input: %s", strerror(errno));
    return NULL;
  }
  char block[1 << 16];
  size_t got;
  bool bad = false;
  while (!bad && (got = fread(block, 1, sizeof block, stdin)) > 0) bad = fwrite(block, 1, got, t) != got;
  if (bad || ferror(stdin) || fflush(t) != 0) {
    drt_error_at(e, what, "-", "cannot keep a copy of standard input: %s", strerror(errno));
    fclose(t);
    return NULL;
  }
  rewind(t);
  char why[1024];
  Nrrd *n = NULL;
  if (drt_nrrd_guard_stream(t, "-", why, sizeof why)) {
    drt_error_at(e, what, "-", "%s", why);
    fclose(t);
    return NULL;
  }
  bool refused = drt_header_refused(e, what, "-", t);
  if (!refused && !(n = nrrdNew())) drt_error_at(e, what, "-", "out of memory");
  if (n && nrrdRead(n, t, NULL)) {
    char *chain = biffGetDone(NRRD); /* Teem's internal chain: not for users */
    drt_nrrd_reason(chain ? chain : (char *)"", why, sizeof why);
    free(chain);
    drt_error_at(e, what, "-", "%s", why);
    n = nrrdNuke(n);
  }
  fclose(t);
  return n;
}

Nrrd *drt_load_nrrd(DrtErrors *e, const char *what, const char *file) {
  if (!file || !*file) {
    drt_error_at(e, what, file, "no file name given");
    return NULL;
  }
  if (strcmp(file, "-") == 0) return drt_load_stdin(e, what);
  char guard[512];
  if (drt_nrrd_guard(file, guard, sizeof guard)) {
    drt_error_at(e, what, file, "%s", guard);
    return NULL;
  }
  if (drt_header_refused(e, what, file, NULL)) return NULL;
  Nrrd *n = nrrdNew();
  if (!n) {
    drt_error_at(e, what, file, "out of memory");
    return NULL;
  }
  if (nrrdLoad(n, file, NULL)) {
    char why[1024];
    char *chain = biffGetDone(NRRD); /* Teem's internal chain: not for users */
    if (!drt_nrrd_explain(file, why, sizeof why)) drt_nrrd_reason(chain ? chain : (char *)"", why, sizeof why);
    free(chain);
    drt_error_at(e, what, file, "%s", why);
    nrrdNuke(n);
    return NULL;
  }
  return n;
}

/* -------------------------------------------------------- normalization */

/* The component kind that a non-domain kind on axis 0 stands for, or
 * nrrdKindUnknown when it is not accepted (§8.3 step 2). */
static int component_kind(int kind) {
  switch (kind) {
  case nrrdKind2Vector:
  case nrrdKind3Vector:
  case nrrdKind4Vector:
  case nrrdKind2DSymMatrix:
  case nrrdKind2DMatrix:
  case nrrdKind3DSymMatrix:
  case nrrdKind3DMatrix:
    return kind;
  case nrrdKind3Color:
  case nrrdKindRGBColor:
    return nrrdKind3Vector;
  case nrrdKind4Color:
  case nrrdKindRGBAColor:
    return nrrdKind4Vector;
  default:
    return nrrdKindUnknown;
  }
}

static bool is_spatial_kind(int kind) {
  return kind == nrrdKindUnknown || nrrdKindIsDomain(kind);
}

static bool vec_exists(unsigned n, const double *v) {
  for (unsigned i = 0; i < n; i++)
    if (!isfinite(v[i])) return false;
  return true;
}

bool drt_nrrd_normalize(DrtErrors *e, const char *what, const char *file,
                        Nrrd *nrrd) {
  unsigned before = e->nerrors;
  unsigned dim = nrrd->dim;
  if (dim < 1 || dim > NRRD_DIM_MAX) {
    drt_error_at(e, what, file, "nrrd has dimension %u", dim);
    return true;
  }
  /* the component axis: at most one non-domain kind, on axis 0 */
  unsigned comp = 0;
  for (unsigned ax = 0; ax < dim; ax++) {
    int k = nrrd->axis[ax].kind;
    if (is_spatial_kind(k)) continue;
    if (ax != 0) {
      drt_error_at(e, what, file,
                   "nrrd axis %u has non-spatial kind '%s'; only axis 0 may "
                   "hold the components", ax, kind_name(k));
      continue;
    }
    int ck = component_kind(k);
    if (ck == nrrdKindUnknown) {
      drt_error_at(e, what, file,
                   "nrrd axis 0 has kind '%s', which is not a supported "
                   "component kind (2-vector, 3-vector, 4-vector, 2D-matrix, "
                   "3D-matrix and their symmetric forms)", kind_name(k));
      continue;
    }
    if (nrrd->axis[0].size != nrrdKindSize(ck)) {
      drt_error_at(e, what, file, "nrrd axis 0 has kind '%s' but size %zu",
                   kind_name(k), nrrd->axis[0].size);
      continue;
    }
    comp = 1;
    nrrd->axis[0].kind = ck;
  }
  if (e->nerrors != before) return true;
  unsigned nspatial = dim - comp;
  if (nspatial == 0) {
    drt_error_at(e, what, file, "nrrd has no spatial axes");
    return true;
  }
  if (nspatial > NRRD_SPACE_DIM_MAX) {
    drt_error_at(e, what, file, "nrrd has %u spatial axes", nspatial);
    return true;
  }

  /* orientation: cases (a), (b), (c) of §8.3 */
  double origin[NRRD_SPACE_DIM_MAX];
  double dir[NRRD_DIM_MAX][NRRD_SPACE_DIM_MAX];
  unsigned sd;
  if (nrrd->spaceDim > 0) { /* (a) */
    sd = nrrd->spaceDim;
    for (unsigned i = 0; i < sd; i++)
      origin[i] = vec_exists(sd, nrrd->spaceOrigin) ? nrrd->spaceOrigin[i] : 0.0;
    for (unsigned a = 0; a < nspatial; a++) {
      const double *v = nrrd->axis[comp + a].spaceDirection;
      for (unsigned i = 0; i < sd; i++)
        dir[a][i] = vec_exists(sd, v) ? v[i] : (i == a ? 1.0 : 0.0);
    }
    bool mf = false;
    for (unsigned i = 0; i < sd; i++)
      for (unsigned j = 0; j < sd; j++)
        if (!isnan(nrrd->measurementFrame[i][j])) mf = true;
    if (mf)
      drt_warning_at(e, what, file, "measurement frame ignored");
  } else {
    sd = nspatial;
    bool minmax = true;
    for (unsigned a = 0; a < nspatial; a++) {
      const NrrdAxisInfo *ai = &nrrd->axis[comp + a];
      if (!isfinite(ai->min) || !isfinite(ai->max)) minmax = false;
    }
    for (unsigned a = 0; a < nspatial; a++) {
      const NrrdAxisInfo *ai = &nrrd->axis[comp + a];
      double o = 0.0, sp = 1.0;
      if (minmax) { /* (b) */
        double n = (double)ai->size;
        if (ai->center == nrrdCenterNode) {
          o = ai->min;
          sp = ai->size > 1 ? (ai->max - ai->min) / (n - 1) : NAN;
        } else {
          o = ai->min + (ai->max - ai->min) / (2 * n);
          sp = (ai->max - ai->min) / n;
        }
      } else if (isfinite(ai->spacing)) { /* (c) */
        sp = ai->spacing;
      }
      origin[a] = o;
      for (unsigned i = 0; i < sd; i++) dir[a][i] = i == a ? sp : 0.0;
    }
  }

  /* write the normalized meta-data back */
  if (nrrd->spaceDim == 0 && nrrdSpaceDimensionSet(nrrd, sd)) {
    drt_error_biff(e, what, file, "cannot set the space dimension", NRRD);
    return true;
  }
  for (unsigned i = 0; i < NRRD_SPACE_DIM_MAX; i++) {
    nrrd->spaceOrigin[i] = i < sd ? origin[i] : AIR_NAN;
    for (unsigned j = 0; j < NRRD_SPACE_DIM_MAX; j++)
      nrrd->measurementFrame[i][j] = AIR_NAN;
  }
  for (unsigned ax = 0; ax < dim; ax++) {
    NrrdAxisInfo *ai = &nrrd->axis[ax];
    ai->spacing = ai->thickness = ai->min = ai->max = AIR_NAN;
    ai->center = nrrdCenterUnknown;
    ai->label = airFree(ai->label);
    ai->units = airFree(ai->units);
    for (unsigned i = 0; i < NRRD_SPACE_DIM_MAX; i++)
      ai->spaceDirection[i] = ax >= comp && i < sd ? dir[ax - comp][i] : AIR_NAN;
    if (ax >= comp) ai->kind = nrrdKindSpace;
  }
  nrrdCommentClear(nrrd);
  nrrdKeyValueClear(nrrd);

  if (dim != sd + comp) {
    drt_error_at(e, what, file,
                 "nrrd has %u spatial axes but space dimension %u", nspatial, sd);
    return true;
  }
  return false;
}

/* ---------------------------------------------------- check and build */

/* Invert the d×d matrix M (row-major) into W; false when singular or not
 * finite. Cofactors keep the d = 3 case exact for permutations/scalings. */
static bool invert(unsigned d, const double *M, double *W) {
  double det;
  if (d == 1) {
    det = M[0];
    W[0] = 1.0 / det;
  } else if (d == 2) {
    det = M[0] * M[3] - M[1] * M[2];
    W[0] = M[3] / det;
    W[1] = -M[1] / det;
    W[2] = -M[2] / det;
    W[3] = M[0] / det;
  } else {
    double c[9];
    c[0] = M[4] * M[8] - M[5] * M[7];
    c[1] = M[2] * M[7] - M[1] * M[8];
    c[2] = M[1] * M[5] - M[2] * M[4];
    c[3] = M[5] * M[6] - M[3] * M[8];
    c[4] = M[0] * M[8] - M[2] * M[6];
    c[5] = M[2] * M[3] - M[0] * M[5];
    c[6] = M[3] * M[7] - M[4] * M[6];
    c[7] = M[1] * M[6] - M[0] * M[7];
    c[8] = M[0] * M[4] - M[1] * M[3];
    det = M[0] * c[0] + M[1] * c[3] + M[2] * c[6];
    for (int i = 0; i < 9; i++) W[i] = c[i] / det;
  }
  if (det == 0.0 || !isfinite(det)) return false;
  for (unsigned i = 0; i < d * d; i++)
    if (!isfinite(W[i])) return false;
  return true;
}

static bool spec_ok(DrtErrors *e, const DrtImageSpec *spec) {
  if (spec->dim < 1 || spec->dim > 3 || spec->ncomp < 1 ||
      !drt_type_ok(spec->store_type) ||
      (spec->file_type != nrrdTypeDefault && !drt_type_ok(spec->file_type))) {
    drt_error(e, "%s: invalid image description (internal error)",
              spec->what ? spec->what : "image");
    return false;
  }
  return true;
}

/* Normalize, check and convert the owned Nrrd n into img; n is consumed. */
static bool finish(DrtErrors *e, const DrtImageSpec *spec, const char *file,
                   Nrrd *n, DrtImage *img) {
  const char *what = spec->what;
  unsigned before = e->nerrors;
  if (!drt_type_ok(n->type)) {
    drt_error_at(e, what, file, "unsupported sample type '%s'",
                 drt_type_name(n->type));
    goto fail;
  }
  if (!n->data) {
    drt_error_at(e, what, file, "nrrd has no data");
    goto fail;
  }
  if (drt_nrrd_normalize(e, what, file, n)) goto fail;

  unsigned d = n->spaceDim;
  unsigned comp = n->dim - d;
  size_t ncomp = comp ? n->axis[0].size : 1;
  if (d != spec->dim) {
    drt_error_at(e, what, file, "the image is %u-D, but the program declares a %u-D image", d,
                 spec->dim);
    goto fail;
  }
  if (ncomp != spec->ncomp) {
    if (comp)
      drt_error_at(e, what, file,
                   "nrrd has %zu components per sample (axis 0, kind '%s'), "
                   "expected %u", ncomp, kind_name(n->axis[0].kind), spec->ncomp);
    else
      drt_error_at(e, what, file,
                   "nrrd has 1 component per sample (no component axis), "
                   "expected %u", spec->ncomp);
  }
  /* The proxy fixes the sample type, not the sizes (§8.2): another type
   * is converted when the real type holds all its values exactly;
   * otherwise say what to do in the user's terms. */
  if (spec->file_type != nrrdTypeDefault && n->type != spec->file_type &&
      !drt_type_exact_in(n->type, spec->store_type)) {
    const char *want = drt_type_name(spec->file_type), *have = drt_type_name(n->type);
    bool dbl = spec->store_type == nrrdTypeFloat && drt_type_exact_in(n->type, nrrdTypeDouble);
    drt_error_at(e, what, file,
                 "the samples are %s, but the program was compiled for %s samples (the type "
                 "of its proxy image) and computes in %s, which does not hold every %s "
                 "exactly: convert the file (unu convert -t %s) or recompile %swith a proxy "
                 "of type %s",
                 have, want, drt_type_name(spec->store_type), have, want,
                 dbl ? "with --double or " : "", have);
  }
  for (unsigned a = 0; a < d; a++) {
    size_t sz = n->axis[comp + a].size;
    if (sz > INT_MAX)
      drt_error_at(e, what, file, "axis %u is too large (%zu samples)", comp + a, sz);
  }
  if (e->nerrors != before) goto fail;

  /* world-to-index transform, in double */
  double M[9], W[9];
  for (unsigned i = 0; i < d; i++)
    for (unsigned a = 0; a < d; a++)
      M[i * d + a] = n->axis[comp + a].spaceDirection[i]; /* column a */
  if (!invert(d, M, W) || !vec_exists(d, n->spaceOrigin)) {
    drt_error_at(e, what, file,
                 "the space directions are not invertible (or not finite)");
    goto fail;
  }

  /* convert to the storage type */
  size_t nelems = nrrdElementNumber(n);
  if (n->type != spec->store_type) {
    /* the converted copy, against what the process may use (rt_mem.c) */
    char who[512];
    if (file) snprintf(who, sizeof who, "%s (file '%s')", what ? what : "image", file);
    else snprintf(who, sizeof who, "%s (nrrd)", what ? what : "image");
    uint64_t bytes = (uint64_t)nelems * nrrdTypeSize[spec->store_type] + 1;
    bool refused = drt_mem_refuse(e, who, nelems, "samples", bytes);
    void *buf = refused ? NULL : malloc(bytes);
    if (!buf) {
      if (!refused) drt_mem_failed(e, who, nelems, "samples", bytes);
      goto fail;
    }
    drt_convert(buf, spec->store_type, n->data, n->type, nelems, false);
    free(n->data); /* Teem allocates data with malloc/calloc */
    n->data = buf;
  }

  memset(img, 0, sizeof *img);
  img->dim = d;
  img->ncomp = (unsigned)ncomp;
  for (unsigned a = 0; a < 3; a++)
    img->size[a] = a < d ? (int)n->axis[comp + a].size : 1;
  img->nelems = nelems;
  img->file_type = n->type;
  img->type = n->type = spec->store_type;
  img->data = n->data;
  for (unsigned i = 0; i < d; i++) {
    double t = 0.0;
    for (unsigned j = 0; j < d; j++) {
      img->W[i * d + j] = W[i * d + j];
      img->WT[j * d + i] = W[i * d + j];
      t -= W[i * d + j] * n->spaceOrigin[j];
    }
    img->t[i] = t;
    img->origin[i] = n->spaceOrigin[i];
  }
  for (unsigned i = 0; i < 9; i++) {
    img->Wf[i] = (float)img->W[i];
    img->WTf[i] = (float)img->WT[i];
  }
  for (unsigned i = 0; i < 3; i++) img->tf[i] = (float)img->t[i];
  img->nrrd = n;
  return false;

fail:
  nrrdNuke(n);
  memset(img, 0, sizeof *img);
  return true;
}

bool drt_image_load_file(DrtErrors *e, const DrtImageSpec *spec,
                         const char *file, DrtImage *img) {
  memset(img, 0, sizeof *img);
  if (!spec_ok(e, spec)) return true;
  Nrrd *n = drt_load_nrrd(e, spec->what, file);
  if (!n) return true;
  return finish(e, spec, file, n, img);
}

bool drt_image_load_nrrd(DrtErrors *e, const DrtImageSpec *spec,
                         const Nrrd *nin, DrtImage *img) {
  memset(img, 0, sizeof *img);
  if (!spec_ok(e, spec)) return true;
  if (!nin) {
    drt_error_at(e, spec->what, NULL, "no nrrd given");
    return true;
  }
  if (!nin->data || !drt_type_ok(nin->type)) {
    drt_error_at(e, spec->what, NULL, nin->data ? "unsupported sample type '%s'"
                                                : "nrrd has no data (type '%s')",
                 drt_type_name(nin->type));
    return true;
  }
  Nrrd *n = nrrdNew();
  if (!n) {
    drt_error_at(e, spec->what, NULL, "out of memory");
    return true;
  }
  if (nrrdCopy(n, nin)) {
    drt_error_biff(e, spec->what, NULL, "cannot copy the nrrd", NRRD);
    nrrdNuke(n);
    return true;
  }
  return finish(e, spec, NULL, n, img);
}

void drt_image_adopt_data(DrtImage *img, void *data, size_t nelems) {
  free(img->layout_data);
  img->layout_data = data;
  img->layout_nelems = nelems;
  img->data = data;
}

void drt_image_free(DrtImage *img) {
  free(img->layout_data);
  if (img->nrrd) nrrdNuke(img->nrrd);
  memset(img, 0, sizeof *img);
}
