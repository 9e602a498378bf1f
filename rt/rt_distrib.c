/* rt_distrib.c -- a world whose chunks are spread over processes
 * (DrtDistrib, diderot_world.h): which chunks this process runs, and what
 * the processes exchange so that each continues from the world one
 * process would have. Nothing here knows the transport (rt_mpi.c: MPI).
 *
 * Every exchange is by chunk: a buffer of nchunks equal slices, each
 * filled by the chunk's owner, handed to DrtDistrib.share. A chunk holds
 * at most sched.run.chunk strands, so a slice of `chunk` entries fits
 * every chunk, the last one included. */
#include <stdlib.h>
#include <string.h>

#include "rt_world_impl.h"

void drt_world_set_distrib(DrtWorld *w, const DrtDistrib *d) { w->dist = d; }

/* The strands [lo, hi) of chunk c: the layout's strand → chunk map, or
 * consecutive runs of `chunk` strands. */
void drt_world_chunk_range(const DrtWorld *w, uint32_t c, uint32_t *lo, uint32_t *hi) {
  if (w->lay && w->lay->chunk_range && w->sched.run.chunk == w->lay->chunk) {
    w->lay->chunk_range(c, w->sched.run.chunk, w->n, lo, hi);
    return;
  }
  *lo = c * w->sched.run.chunk;
  *hi = *lo + w->sched.run.chunk;
  if (*hi > w->n || *hi < *lo) *hi = w->n;
}

/* (this file calls nothing of rt_world.c, which calls it: no circle) */
static void drt_distrib_get(const DrtWorld *w, uint32_t i, void *packed) {
  if (w->lay) w->lay->get(w->state, w->cap, i, packed);
  else memcpy(packed, w->state + (size_t)i * w->ssz, w->prog.state_size);
}

static void drt_distrib_fail(DrtWorld *w) { __atomic_store_n(&w->failed, 1, __ATOMIC_RELEASE); }

bool drt_distrib_own(DrtWorld *w, uint32_t nchunks) {
  if (!w->dist) return true;
  if (nchunks > w->capown) {
    uint32_t *o = realloc(w->own, (size_t)nchunks * sizeof *o);
    if (!o) return false;
    w->own = o;
    w->capown = nchunks;
  }
  w->nown = 0;
  for (uint32_t c = 0; c < nchunks; c++)
    if (w->dist->owns(w->dist->ctx, c, nchunks)) w->own[w->nown++] = c;
  return true;
}

/* Entries [lo, hi) of an array of esz-byte entries per slot, for every
 * chunk, from the chunk's owner (status, fresh: esz 1). */
static void drt_distrib_slots(DrtWorld *w, uint32_t nchunks, unsigned char *arr, size_t esz,
                              unsigned char *buf) {
  size_t slice = (size_t)w->sched.run.chunk * esz;
  for (uint32_t k = 0; k < w->nown; k++) {
    uint32_t c = w->own[k], lo, hi;
    drt_world_chunk_range(w, c, &lo, &hi);
    memcpy(buf + c * slice, arr + (size_t)lo * esz, (size_t)(hi - lo) * esz);
  }
  w->dist->share(w->dist->ctx, buf, slice, nchunks);
  for (uint32_t c = 0; c < nchunks; c++) {
    uint32_t lo, hi;
    drt_world_chunk_range(w, c, &lo, &hi);
    memcpy(arr + (size_t)lo * esz, buf + c * slice, (size_t)(hi - lo) * esz);
  }
}

bool drt_distrib_step(DrtWorld *w, uint32_t nchunks, bool failed) {
  const DrtDistrib *d = w->dist;
  if (d->agree(d->ctx, &w->err, failed)) return true;
  if (!nchunks) return false;
  /* the counts: three words per chunk */
  size_t bytes = (size_t)nchunks * (3 * sizeof(uint32_t) + w->sched.run.chunk);
  unsigned char *buf = malloc(bytes);
  /* every process holds the same world, so this fails on all or none;
   * if it fails on some, they abort the job (rt_mpi.c: MPI_Abort) */
  if (d->agree(d->ctx, &w->err, !buf)) {
    if (!buf) drt_error(&w->err, "out of memory exchanging a step's results (%zu bytes)", bytes);
    free(buf);
    return true;
  }
  uint32_t *cnt = (uint32_t *)buf;
  for (uint32_t k = 0; k < w->nown; k++) {
    uint32_t c = w->own[k];
    cnt[3 * c] = w->bufs[c].nstab, cnt[3 * c + 1] = w->bufs[c].ndie, cnt[3 * c + 2] = w->bufs[c].most;
  }
  d->share(d->ctx, cnt, 3 * sizeof(uint32_t), nchunks);
  for (uint32_t c = 0; c < nchunks; c++)
    w->bufs[c].nstab = cnt[3 * c], w->bufs[c].ndie = cnt[3 * c + 1], w->bufs[c].most = cnt[3 * c + 2];
  drt_distrib_slots(w, nchunks, w->status, 1, buf);
  drt_distrib_slots(w, nchunks, w->fresh, 1, buf);
  free(buf);
  return false;
}

void drt_distrib_states(DrtWorld *w, uint32_t nchunks) {
  if (!nchunks || !drt_distrib_own(w, nchunks)) return;
  size_t rec = w->prog.state_size, slice = (size_t)w->sched.run.chunk * rec;
  unsigned char *buf = malloc((size_t)nchunks * slice);
  if (w->dist->agree(w->dist->ctx, &w->err, !buf)) {
    if (!buf) drt_error(&w->err, "out of memory gathering the strands' states (%zu bytes)",
                        (size_t)nchunks * slice);
    free(buf);
    drt_distrib_fail(w);
    return;
  }
  for (uint32_t k = 0; k < w->nown; k++) {
    uint32_t c = w->own[k], lo, hi;
    drt_world_chunk_range(w, c, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) drt_distrib_get(w, i, buf + c * slice + (i - lo) * rec);
  }
  w->dist->share(w->dist->ctx, buf, slice, nchunks);
  for (uint32_t c = 0; c < nchunks; c++) {
    if (w->dist->owns(w->dist->ctx, c, nchunks)) continue;
    uint32_t lo, hi;
    drt_world_chunk_range(w, c, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) {
      const unsigned char *p = buf + c * slice + (i - lo) * rec;
      if (w->lay) w->lay->put(w->state, w->cap, i, p);
      else memcpy(w->state + (size_t)i * w->ssz, p, rec);
    }
  }
  free(buf);
}

void drt_world_distrib_sync(DrtWorld *w) {
  if (!w->dist) return;
  uint32_t n = w->n, nchunks = n ? (n - 1) / w->sched.run.chunk + 1 : 0;
  drt_distrib_states(w, nchunks);
}

/* ---- the map values of reductions ------------------------------------------------------ */

static uint32_t drt_nchunks(const DrtWorld *w) {
  return w->n ? (w->n - 1) / w->sched.run.chunk + 1 : 0;
}

void *drt_world_map_values(DrtWorld *w, size_t esz) {
  /* room for every chunk's whole slice (the last chunk's too) */
  size_t need = ((size_t)drt_nchunks(w) * w->sched.run.chunk + 1) * esz;
  bool bad = false;
  if (need > w->mapcap) {
    unsigned char *b = realloc(w->mapbuf, need);
    if (b) w->mapbuf = b, w->mapcap = need;
    else bad = true;
  }
  if (bad) drt_error(&w->err, "out of memory for a reduction's values (%zu bytes)", need);
  if (w->dist ? w->dist->agree(w->dist->ctx, &w->err, bad) : bad) {
    drt_distrib_fail(w);
    return NULL;
  }
  return w->mapbuf;
}

bool drt_world_map_owns(const DrtWorld *w, uint32_t i) {
  return !w->dist || w->dist->owns(w->dist->ctx, i / w->sched.run.chunk, drt_nchunks(w));
}

void drt_world_map_share(DrtWorld *w, void *vals, size_t esz) {
  uint32_t nchunks = drt_nchunks(w);
  if (w->dist && nchunks) w->dist->share(w->dist->ctx, vals, (size_t)w->sched.run.chunk * esz, nchunks);
}

void drt_distrib_partials(DrtWorld *w, uint32_t nchunks, double *pr, int64_t *pi, uint32_t *cnt) {
  if (!nchunks) return;
  w->dist->share(w->dist->ctx, pr, sizeof *pr, nchunks);
  w->dist->share(w->dist->ctx, pi, sizeof *pi, nchunks);
  w->dist->share(w->dist->ctx, cnt, sizeof *cnt, nchunks);
}
