/* rt_sequence.c -- loading dynamic sequences (doc/language.md §10.6).
 *
 * Unlike the reference, which copies bytes when the sample size matches
 * the element size (a float file read into int[] was reinterpreted), the
 * samples are always converted by value (doc/differences.md, Q16). A scalar sequence may
 * also come as a 2-D array whose axis 0 has size 1: that is how Teem 1.12
 * reads a plain text file of one value per line.
 */
#include <stdlib.h>
#include <string.h>

#include <teem/biff.h>

#include "rt_internal.h"

static bool seq_from(DrtErrors *e, const DrtSeqSpec *spec, const char *file,
                     const Nrrd *n, DrtSequence *seq) {
  const char *what = spec->what;
  unsigned before = e->nerrors;
  if (!drt_type_ok(n->type)) {
    drt_error_at(e, what, file, "unsupported sample type '%s'",
                 drt_type_name(n->type));
    return true;
  }
  if (!n->data) {
    drt_error_at(e, what, file, "nrrd has no data");
    return true;
  }
  if (n->spaceDim != 0)
    drt_error_at(e, what, file,
                 "nrrd has space dimension %u; a sequence must have none",
                 n->spaceDim);
  size_t len = 0;
  if (spec->ncomp == 1) {
    /* Teem 1.12 reads a text file of one value per line as 1×N */
    if (n->dim == 2 && n->axis[0].size == 1)
      len = n->axis[1].size;
    else if (n->dim != 1)
      drt_error_at(e, what, file,
                   "nrrd has dimension %u, expected 1 for a sequence of "
                   "scalars", n->dim);
    else
      len = n->axis[0].size;
  } else if (n->dim != 2) {
    drt_error_at(e, what, file,
                 "nrrd has dimension %u, expected 2 (%u components by "
                 "elements)", n->dim, spec->ncomp);
  } else if (n->axis[0].size != spec->ncomp) {
    drt_error_at(e, what, file, "nrrd axis 0 has size %zu, expected %u",
                 n->axis[0].size, spec->ncomp);
  } else {
    len = n->axis[1].size;
  }
  if (e->nerrors != before) return true;

  size_t total = len * spec->ncomp;
  void *buf = malloc(total * nrrdTypeSize[spec->type] + 1);
  if (!buf) {
    drt_error_at(e, what, file, "out of memory");
    return true;
  }
  drt_convert(buf, spec->type, n->data, n->type, total, spec->is_bool);
  seq->len = len;
  seq->ncomp = spec->ncomp;
  seq->type = spec->type;
  seq->data = buf;
  return false;
}

static bool spec_ok(DrtErrors *e, const DrtSeqSpec *spec) {
  if (!drt_type_ok(spec->type) || spec->ncomp < 1 ||
      (spec->is_bool && spec->type != nrrdTypeUChar)) {
    drt_error(e, "%s: invalid sequence description (internal error)",
              spec->what ? spec->what : "sequence");
    return false;
  }
  return true;
}

bool drt_sequence_load_file(DrtErrors *e, const DrtSeqSpec *spec,
                            const char *file, DrtSequence *seq) {
  memset(seq, 0, sizeof *seq);
  if (!spec_ok(e, spec)) return true;
  Nrrd *n = drt_load_nrrd(e, spec->what, file);
  if (!n) return true;
  bool err = seq_from(e, spec, file, n, seq);
  nrrdNuke(n);
  return err;
}

bool drt_sequence_load_nrrd(DrtErrors *e, const DrtSeqSpec *spec,
                            const Nrrd *nin, DrtSequence *seq) {
  memset(seq, 0, sizeof *seq);
  if (!spec_ok(e, spec)) return true;
  if (!nin) {
    drt_error_at(e, spec->what, NULL, "no nrrd given");
    return true;
  }
  return seq_from(e, spec, NULL, nin, seq);
}

void drt_sequence_free(DrtSequence *seq) {
  free(seq->data);
  memset(seq, 0, sizeof *seq);
}

/* ---- allocation for generated code ---- */

/* n values of esz bytes: refused before trying when they pass size_t or
 * the room (a large malloc may succeed on overcommit and the pages fail
 * later, to the OOM killer), reported once when the allocation fails. */
static bool seq_refused(DrtWorld *w, uint64_t n, size_t esz, bool tried) {
  uint64_t bytes = drt_mem_mul(n, esz ? esz : 1);
  if (!w) return !tried && bytes > SIZE_MAX;
  if (!tried && !drt_mem_refuse(NULL, NULL, n, "values", bytes)) return false;
  if (drt_world_fail_first(w)) {
    if (tried) drt_mem_failed(drt_world_errors(w), "dynamic sequence", n, "values", bytes);
    else drt_mem_refuse(drt_world_errors(w), "dynamic sequence", n, "values", bytes);
  }
  return true;
}

void *drt_seq_alloc_n(DrtWorld *w, size_t n, size_t esz) {
  if (seq_refused(w, n, esz, false)) return NULL;
  void *p = drt_seq_alloc(w, n * esz);
  if (!p) seq_refused(w, n, esz, true);
  return p;
}

void *drt_seq_join_n(DrtWorld *w, const void *a, size_t na, const void *b, size_t nb, size_t esz) {
  uint64_t n = (uint64_t)na + nb; /* (counts below 2^32 each) */
  if (seq_refused(w, n, esz, false)) return NULL;
  void *p = drt_seq_join(w, a, na * esz, b, nb * esz);
  if (!p) seq_refused(w, n, esz, true);
  return p;
}
