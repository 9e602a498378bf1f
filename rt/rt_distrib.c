/* rt_distrib.c -- a world whose chunks are spread over processes
 * (DrtDistrib, diderot_world.h): which chunks this process runs, and what
 * the processes exchange so that each continues from the world one
 * process would have. Nothing here knows the transport (rt_mpi.c: MPI).
 *
 * Every exchange is by chunk: a buffer of nchunks equal slices, each
 * filled by the chunk's owner, handed to DrtDistrib.share. A chunk holds
 * at most sched.run.chunk strands, so a slice of `chunk` entries fits
 * every chunk, the last one included. */
#include <stdio.h>
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

static void drt_distrib_put(DrtWorld *w, uint32_t i, const void *packed) {
  if (w->lay) w->lay->put(w->state, w->cap, i, packed);
  else memcpy(w->state + (size_t)i * w->ssz, packed, w->prog.state_size);
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

/* record j of chunk c's new strands; of the states gathered in a buffer */
static unsigned char *drt_distrib_new_at(void *arg, uint32_t c, uint64_t j) {
  DrtWorld *w = arg;
  return w->bufs[c].states + j * w->ssz;
}

typedef struct DrtSlices {
  unsigned char *buf;
  size_t slice, rec;
} DrtSlices;

static unsigned char *drt_distrib_slice_at(void *arg, uint32_t c, uint64_t j) {
  DrtSlices *s = arg;
  return s->buf + c * s->slice + j * s->rec;
}

/* The strands that `new` made in every chunk this step (DrtNewBuf, a
 * record of ssz bytes each), from the chunk's owner to every process, so
 * that every process appends the same strands in the same order
 * (drt_append_new: by chunk); and whether a chunk ran out of room for
 * them, so that every process reports it. True when some process could
 * not make room (the error agreed). */
static bool drt_distrib_new(DrtWorld *w, uint32_t nchunks) {
  const DrtDistrib *d = w->dist;
  uint64_t *cnt = malloc((size_t)nchunks * 3 * sizeof *cnt);
  if (!cnt) drt_mem_failed(&w->err, "exchanging new strands", nchunks, "chunks",
                           (uint64_t)nchunks * 3 * sizeof *cnt);
  if (d->agree(d->ctx, &w->err, !cnt)) {
    free(cnt);
    return true;
  }
  for (uint32_t k = 0; k < w->nown; k++) {
    DrtNewBuf *b = &w->bufs[w->own[k]];
    cnt[2 * w->own[k]] = b->n, cnt[2 * w->own[k] + 1] = b->oom ? b->oom_n : 0;
  }
  d->share(d->ctx, cnt, 2 * sizeof *cnt, nchunks);
  uint64_t *sizes = cnt + 2 * (size_t)nchunks, total = 0;
  bool bad = false;
  for (uint32_t c = 0; c < nchunks; c++) {
    DrtNewBuf *b = &w->bufs[c];
    sizes[c] = cnt[2 * c] * w->ssz;
    total += sizes[c];
    if (cnt[2 * c + 1]) b->oom = true, b->oom_n = cnt[2 * c + 1];
    if (!d->owns(d->ctx, c, nchunks) && cnt[2 * c] > b->cap) {
      if (drt_grow_aligned(&b->states, w->align, 0, sizes[c])) b->cap = cnt[2 * c];
      else bad = true;
    }
  }
  unsigned char *buf = total && !bad ? malloc(total) : NULL;
  if (total && !buf) {
    drt_mem_failed(&w->err, "new strands of other processes", total / w->ssz, "strands", total);
    bad = true;
  }
  if (d->agree(d->ctx, &w->err, bad)) {
    free(buf);
    free(cnt);
    return true;
  }
  if (total) {
    uint64_t at = 0;
    for (uint32_t c = 0; c < nchunks; at += sizes[c], c++)
      if (d->owns(d->ctx, c, nchunks) && sizes[c]) memcpy(buf + at, w->bufs[c].states, sizes[c]);
    d->share_var(d->ctx, buf, sizes, nchunks);
    at = 0;
    for (uint32_t c = 0; c < nchunks; at += sizes[c], c++)
      if (!d->owns(d->ctx, c, nchunks) && sizes[c]) {
        memcpy(w->bufs[c].states, buf + at, sizes[c]);
        w->bufs[c].n = cnt[2 * c];
      }
  }
  free(buf);
  /* their sequences (cnt[2c]: chunk c's new strands, every other word) */
  for (uint32_t c = 0; c < nchunks; c++) cnt[c] = cnt[2 * c];
  bool lost = total && drt_distrib_seqs(w, nchunks, cnt, drt_distrib_new_at, w);
  free(cnt);
  return lost;
}

bool drt_distrib_step(DrtWorld *w, uint32_t nchunks, bool failed) {
  const DrtDistrib *d = w->dist;
  if (d->stop) drt_interrupt_agreed(d->stop(d->ctx, drt_interrupt_caught()));
  if (d->prints) d->prints(d->ctx); /* the step's prints, even from a failed step */
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
  return w->dist->share_var && drt_distrib_new(w, nchunks);
}

/* Every chunk's states from its owner, on every process, or with root on
 * process 0 alone (DrtDistrib.gather). */
static void distrib_states(DrtWorld *w, uint32_t nchunks, bool root) {
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
  bool here = true;
  if (root) here = w->dist->gather(w->dist->ctx, buf, slice, nchunks);
  else w->dist->share(w->dist->ctx, buf, slice, nchunks);
  if (w->seq_pack) {
    /* the records' sequences: chunk c holds hi - lo records */
    uint64_t *count = malloc((size_t)nchunks * sizeof *count);
    bool bad = !count;
    if (bad) drt_mem_failed(&w->err, "exchanging the strands' sequences", nchunks, "chunks",
                            (uint64_t)nchunks * sizeof *count);
    if (!w->dist->agree(w->dist->ctx, &w->err, bad)) {
      for (uint32_t c = 0; c < nchunks; c++) {
        uint32_t lo, hi;
        drt_world_chunk_range(w, c, &lo, &hi);
        count[c] = hi - lo;
      }
      DrtSlices sl = {buf, slice, rec};
      bad = drt_distrib_seqs(w, nchunks, count, drt_distrib_slice_at, &sl);
    } else {
      bad = true;
    }
    free(count);
    if (bad) {
      free(buf);
      drt_distrib_fail(w);
      return;
    }
  }
  for (uint32_t c = 0; here && c < nchunks; c++) {
    if (w->dist->owns(w->dist->ctx, c, nchunks)) continue;
    uint32_t lo, hi;
    drt_world_chunk_range(w, c, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) drt_distrib_put(w, i, buf + c * slice + (i - lo) * rec);
  }
  free(buf);
}

void drt_distrib_states(DrtWorld *w, uint32_t nchunks) { distrib_states(w, nchunks, false); }

/* ---- moving chunks between processes -------------------------------------------------- */

/* Room for the per-chunk arrays of a rebalance; a collective (every
 * process has the same nchunks and the same history, so all allocate
 * together), false on every process when one could not. */
static bool drt_distrib_rebalance_room(DrtWorld *w, uint32_t nchunks) {
  bool bad = false;
  if (nchunks > w->capact) {
    size_t words = (size_t)nchunks * 2 * sizeof(uint32_t);
    unsigned char *b = malloc(words + nchunks);
    if (b) {
      free(w->act);
      w->act = (uint32_t *)b, w->moved = w->act + nchunks, w->role = b + words;
      w->capact = nchunks;
    } else {
      drt_mem_failed(&w->err, "rebalancing the ranks' work", nchunks, "chunks", words + nchunks);
      bad = true;
    }
  }
  return !w->dist->agree(w->dist->ctx, &w->err, bad);
}

void drt_distrib_rebalance(DrtWorld *w, uint32_t nchunks) {
  const DrtDistrib *d = w->dist;
  /* not with sequences in the state: their elements would have to travel
   * from the old owners alone (share_var takes them from the new ones) */
  if (!d || !d->rebalance || !nchunks || w->seq_pack) return;
  if (!drt_distrib_rebalance_room(w, nchunks)) {
    drt_distrib_fail(w);
    return;
  }
  /* the status is every process's after the step's exchange */
  for (uint32_t c = 0; c < nchunks; c++) {
    uint32_t lo, hi, k = 0;
    drt_world_chunk_range(w, c, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) k += w->status[i] == DRT_ACTIVE;
    w->act[c] = k;
  }
  uint32_t n = d->rebalance(d->ctx, w->act, nchunks, w->moved, w->role);
  if (!n) return;
  size_t rec = w->prog.state_size, slice = (size_t)w->sched.run.chunk * rec;
  unsigned char *buf = malloc((size_t)n * slice);
  if (!buf) drt_mem_failed(&w->err, "moving strands between ranks", (uint64_t)n * w->sched.run.chunk,
                           "strands", (uint64_t)n * slice);
  if (d->agree(d->ctx, &w->err, !buf)) {
    free(buf);
    drt_distrib_fail(w);
    return;
  }
  for (uint32_t k = 0; k < n; k++) {
    if (w->role[k] != DRT_MOVE_OUT) continue;
    uint32_t lo, hi;
    drt_world_chunk_range(w, w->moved[k], &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) drt_distrib_get(w, i, buf + k * slice + (i - lo) * rec);
  }
  d->move(d->ctx, buf, slice, n);
  for (uint32_t k = 0; k < n; k++) {
    if (w->role[k] != DRT_MOVE_IN) continue;
    uint32_t lo, hi;
    drt_world_chunk_range(w, w->moved[k], &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) drt_distrib_put(w, i, buf + k * slice + (i - lo) * rec);
  }
  free(buf);
  (void)drt_distrib_own(w, nchunks); /* cannot fail: this step made room for nchunks */
  if (w->verbose)
    fprintf(stderr, "step %u: %u chunks moved between processes\n", (unsigned)w->steps, (unsigned)n);
}

static uint32_t drt_nchunks(const DrtWorld *w) {
  return w->n ? (w->n - 1) / w->sched.run.chunk + 1 : 0;
}

void drt_world_distrib_sync(DrtWorld *w) {
  if (w->dist) drt_distrib_states(w, drt_nchunks(w));
}

void drt_world_distrib_gather(DrtWorld *w) {
  if (w->dist) distrib_states(w, drt_nchunks(w), w->dist->gather && !w->seq_pack);
}

/* ---- the map values of reductions ------------------------------------------------------ */


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
  /* the maps' prints, in strand order, before the block prints more */
  if (w->dist && w->dist->prints) w->dist->prints(w->dist->ctx);
  if (w->dist && nchunks) w->dist->share(w->dist->ctx, vals, (size_t)w->sched.run.chunk * esz, nchunks);
}

void drt_distrib_partials(DrtWorld *w, uint32_t nchunks, double *pr, int64_t *pi, uint32_t *cnt) {
  if (!nchunks) return;
  w->dist->share(w->dist->ctx, pr, sizeof *pr, nchunks);
  w->dist->share(w->dist->ctx, pi, sizeof *pi, nchunks);
  w->dist->share(w->dist->ctx, cnt, sizeof *cnt, nchunks);
}
