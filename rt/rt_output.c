/* rt_output.c -- output NRRDs in the layouts of LANGUAGE.md §8.8.
 *
 * The generated code asks for a Nrrd with the right axes, fills the data
 * strand by strand, and saves it. Saving goes through a temporary file in
 * the target's directory and rename(2), so a failure (disk full, bad
 * directory, a Teem error) never leaves a truncated output behind and
 * never destroys a previous good file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <teem/biff.h>

#include "rt_internal.h"

int drt_output_kind(unsigned seqlen, unsigned rank, const unsigned *shape,
                    unsigned *ncomp) {
  unsigned c = 1;
  for (unsigned r = 0; r < rank; r++) c *= shape[r];
  int kind = nrrdKindList;
  if (rank == 1 && shape[0] == 2) kind = nrrdKind2Vector;
  else if (rank == 1 && shape[0] == 3) kind = nrrdKind3Vector;
  else if (rank == 1 && shape[0] == 4) kind = nrrdKind4Vector;
  else if (rank == 2 && shape[0] == 2 && shape[1] == 2) kind = nrrdKind2DMatrix;
  else if (rank == 2 && shape[0] == 3 && shape[1] == 3) kind = nrrdKind3DMatrix;
  if (seqlen > 1) { /* T[n]: the elements one after the other, a list */
    c *= seqlen;
    kind = nrrdKindList;
  }
  if (ncomp) *ncomp = c;
  return c > 1 ? kind : nrrdKindUnknown;
}

size_t drt_domain_count(const DrtDomain *dom) {
  if (dom->naxes == 0) return dom->count;
  size_t n = 1;
  for (unsigned i = 0; i < dom->naxes; i++) n *= dom->sizes[i];
  return n;
}

/* Append the domain axes (reversed grid axes of kind space, or one list
 * axis) to sizes/kinds starting at axis `at`; returns the new dimension,
 * or 0 after an error. */
static unsigned domain_axes(DrtErrors *e, const char *what,
                            const DrtDomain *dom, unsigned at, size_t *sizes,
                            int *kinds) {
  if (dom->naxes == 0) {
    if (dom->count == 0) {
      drt_error(e, "%s: no strands, so nothing to write", what);
      return 0;
    }
    sizes[at] = dom->count;
    kinds[at] = nrrdKindList;
    return at + 1;
  }
  if (at + dom->naxes > NRRD_DIM_MAX || !dom->sizes) {
    drt_error(e, "%s: cannot write a grid of %u axes", what, dom->naxes);
    return 0;
  }
  for (unsigned i = 0; i < dom->naxes; i++) {
    size_t s = dom->sizes[dom->naxes - 1 - i]; /* last iterator fastest */
    if (s == 0) {
      drt_error(e, "%s: no strands, so nothing to write", what);
      return 0;
    }
    sizes[at + i] = s;
    kinds[at + i] = nrrdKindSpace;
  }
  return at + dom->naxes;
}

/* Allocate n as a fresh, zeroed array of `type` with the given axes. */
static bool alloc(DrtErrors *e, const char *what, Nrrd *n, int type,
                  unsigned dim, const size_t *sizes, const int *kinds) {
  size_t total = nrrdTypeSize[type];
  for (unsigned i = 0; i < dim; i++) {
    if (sizes[i] != 0 && total > SIZE_MAX / sizes[i]) {
      drt_error(e, "%s: output too large", what);
      return true;
    }
    total *= sizes[i];
  }
  nrrdEmpty(n);
  if (nrrdMaybeAlloc_nva(n, type, dim, sizes)) {
    drt_error_biff(e, what, NULL, "cannot allocate the output", NRRD);
    return true;
  }
  memset(n->data, 0, total);
  for (unsigned i = 0; i < dim; i++) n->axis[i].kind = kinds[i];
  return false;
}

static bool out_type_ok(DrtErrors *e, const char *what, const DrtOutSpec *spec) {
  if (!drt_type_ok(spec->type) || spec->ncomp < 1) {
    drt_error(e, "%s: invalid output description (internal error)", what);
    return false;
  }
  return true;
}

bool drt_output_alloc(DrtErrors *e, const char *what, Nrrd *nout,
                      const DrtOutSpec *spec, const DrtDomain *dom) {
  if (!what) what = "output";
  if (!out_type_ok(e, what, spec)) return true;
  size_t sizes[NRRD_DIM_MAX];
  int kinds[NRRD_DIM_MAX];
  unsigned at = 0;
  if (spec->ncomp > 1) {
    sizes[0] = spec->ncomp;
    kinds[0] = spec->kind;
    at = 1;
  }
  unsigned dim = domain_axes(e, what, dom, at, sizes, kinds);
  if (dim == 0) return true;
  return alloc(e, what, nout, spec->type, dim, sizes, kinds);
}

bool drt_output_alloc_dynseq(DrtErrors *e, const char *what, Nrrd *nlen,
                             Nrrd *ndata, const DrtOutSpec *spec,
                             const DrtDomain *dom, const uint32_t *lengths) {
  if (!what) what = "output";
  if (!out_type_ok(e, what, spec)) return true;
  size_t sizes[NRRD_DIM_MAX];
  int kinds[NRRD_DIM_MAX];
  sizes[0] = 2;
  kinds[0] = nrrdKind2Vector;
  unsigned dim = domain_axes(e, what, dom, 1, sizes, kinds);
  if (dim == 0) return true;
  if (!lengths) {
    drt_error(e, "%s: no sequence lengths (internal error)", what);
    return true;
  }
  /* allocating first also rejects a strand count that overflows */
  if (alloc(e, what, nlen, nrrdTypeInt, dim, sizes, kinds)) return true;
  size_t nstrands = drt_domain_count(dom);
  /* (offset, length) pairs; offsets must fit the 32-bit int of the file */
  uint64_t total = 0;
  for (size_t i = 0; i < nstrands; i++) total += lengths[i];
  if (total > INT32_MAX) {
    drt_error(e, "%s: %llu sequence elements in all, more than the lengths "
              "file can index", what, (unsigned long long)total);
    nrrdEmpty(nlen);
    return true;
  }
  int32_t *pairs = nlen->data;
  int32_t off = 0;
  for (size_t i = 0; i < nstrands; i++) {
    pairs[2 * i] = off;
    pairs[2 * i + 1] = (int32_t)lengths[i];
    off += (int32_t)lengths[i];
  }
  if (total == 0) {
    nrrdEmpty(ndata);
    return false;
  }
  unsigned at = 0;
  if (spec->ncomp > 1) {
    sizes[0] = spec->ncomp;
    kinds[0] = spec->kind;
    at = 1;
  }
  sizes[at] = (size_t)total;
  kinds[at] = nrrdKindList;
  if (alloc(e, what, ndata, spec->type, at + 1, sizes, kinds)) {
    nrrdEmpty(nlen);
    return true;
  }
  return false;
}

/* ------------------------------------------------------------- saving */

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* nrrdSave's choice of format: the first available one whose name
 * pattern matches, NRRD otherwise. */
static const NrrdFormat *format_for(const char *file) {
  for (int f = nrrdFormatTypeUnknown + 1; f < nrrdFormatTypeLast; f++) {
    const NrrdFormat *fmt = nrrdFormatArray[f];
    if (fmt && fmt->available() && fmt->nameLooksLike(file)) return fmt;
  }
  return nrrdFormatNRRD;
}

static NrrdIoState *io_state(const NrrdFormat *fmt) {
  NrrdIoState *nio = nrrdIoStateNew();
  if (nio) {
    nio->format = fmt;
    nio->encoding = nrrdEncodingRaw;
  }
  return nio;
}

bool drt_output_save(DrtErrors *e, const char *what, const char *file,
                     const Nrrd *nrrd) {
  if (!what) what = "output";
  if (!file || !*file) {
    drt_error(e, "%s: no output file name", what);
    return true;
  }
  if (!nrrd || !nrrd->data) {
    drt_error(e, "%s: nothing to write to '%s'", what, file);
    return true;
  }
  const NrrdFormat *fmt = strcmp(file, "-") == 0 ? nrrdFormatNRRD : format_for(file);
  NrrdIoState *nio = io_state(fmt);
  if (!nio) {
    drt_error(e, "%s: out of memory writing '%s'", what, file);
    return true;
  }
  bool err = false;
  if (strcmp(file, "-") == 0) {
    if (nrrdWrite(stdout, nrrd, nio)) {
      drt_error_biff(e, what, "-", "cannot write the output", NRRD);
      err = true;
    }
    nrrdIoStateNix(nio);
    return err;
  }
  if (fmt == nrrdFormatNRRD && ends_with(file, ".nhdr")) {
    /* a detached header names its data file, so it cannot be renamed:
     * write in place and clean up on failure */
    if (nrrdSave(file, nrrd, nio)) {
      drt_error_biff(e, what, file, "cannot write the output", NRRD);
      unlink(file);
      size_t n = strlen(file);
      char *raw = malloc(n + 1);
      if (raw) {
        memcpy(raw, file, n - 5);
        strcpy(raw + n - 5, ".raw");
        unlink(raw);
        free(raw);
      }
      err = true;
    }
    nrrdIoStateNix(nio);
    return err;
  }

  /* temporary name next to the target, created exclusively */
  size_t n = strlen(file) + 48;
  char *tmp = malloc(n);
  int fd = -1;
  for (unsigned k = 0; tmp && k < 100 && fd < 0; k++) {
    snprintf(tmp, n, "%s.%ld-%u.tmp", file, (long)getpid(), k);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    drt_error_at(e, what, file, "cannot create the output: %s",
                 tmp ? strerror(errno) : "out of memory");
    free(tmp);
    nrrdIoStateNix(nio);
    return true;
  }
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    close(fd);
    err = true;
    drt_error_at(e, what, file, "cannot write the output: %s", strerror(errno));
  } else {
    if (nrrdWrite(f, nrrd, nio)) {
      drt_error_biff(e, what, file, "cannot write the output", NRRD);
      err = true;
    }
    if (fflush(f) != 0 || ferror(f)) {
      if (!err) drt_error_at(e, what, file, "cannot write the output: %s", strerror(errno));
      err = true;
    }
    if (fclose(f) != 0 && !err) {
      drt_error_at(e, what, file, "cannot write the output: %s", strerror(errno));
      err = true;
    }
  }
  if (!err && rename(tmp, file) != 0) {
    drt_error_at(e, what, file, "cannot write the output: %s", strerror(errno));
    err = true;
  }
  if (err) unlink(tmp);
  free(tmp);
  nrrdIoStateNix(nio);
  return err;
}

char *drt_output_filename(const char *prefix, const char *part,
                          long long step) {
  size_t n = strlen(prefix) + (part ? strlen(part) : 0) + 32;
  char *s = malloc(n);
  if (!s) return NULL;
  int k = snprintf(s, n, "%s", prefix);
  if (part) k += snprintf(s + k, n - (size_t)k, "-%s", part);
  if (step >= 0) k += snprintf(s + k, n - (size_t)k, "-%04lld", step);
  snprintf(s + k, n - (size_t)k, ".nrrd");
  return s;
}

bool drt_output_save_dynseq(DrtErrors *e, const char *what,
                            const char *prefix, long long step,
                            const Nrrd *nlen, const Nrrd *ndata) {
  if (!what) what = "output";
  char *lname = drt_output_filename(prefix, "len", step);
  char *dname = drt_output_filename(prefix, "data", step);
  bool err = false;
  if (!lname || !dname) {
    drt_error(e, "%s: out of memory", what);
    err = true;
  } else if (drt_output_save(e, what, lname, nlen)) {
    err = true;
  } else if (!ndata || !ndata->data) {
    drt_warning(e, "%s: every sequence is empty, so '%s' is not written",
                what, dname);
  } else {
    err = drt_output_save(e, what, dname, ndata);
  }
  free(lname);
  free(dname);
  return err;
}
