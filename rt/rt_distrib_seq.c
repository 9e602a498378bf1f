/* rt_distrib_seq.c -- the dynamic sequences of strand states that go from
 * one process to the others (drt_world_set_seq_codec, diderot_world.h;
 * rt_world_impl.h drt_distrib_seqs). A packed record holds a sequence as
 * its length and a pointer into the owner's sequence heap; the pointer
 * means nothing elsewhere, so after the records went out their elements
 * follow, chunk by chunk: the owner of each chunk counts and packs the
 * elements of its records in record order, every process learns every
 * chunk's byte count (DrtDistrib.share) and gets the bytes
 * (DrtDistrib.share_var), and where it does not own the chunk puts them
 * into its own heap and points its copies of the records at them. Its
 * sequence heap collects the old ones between steps, as any garbage. */
#include <stdlib.h>

#include "rt_world_impl.h"

void drt_world_set_seq_codec(DrtWorld *w, DrtSeqPack pack, DrtSeqUnpack unpack) {
  w->seq_pack = pack, w->seq_unpack = unpack;
}

bool drt_distrib_seqs(DrtWorld *w, uint32_t nchunks, const uint64_t *count, DrtRecAt at, void *arg) {
  const DrtDistrib *d = w->dist;
  if (!d || !w->seq_pack || !nchunks) return false;
  uint64_t *sizes = calloc(nchunks, sizeof *sizes);
  if (!sizes) drt_mem_failed(&w->err, "exchanging the strands' sequences", nchunks, "chunks",
                             (uint64_t)nchunks * sizeof *sizes);
  if (d->agree(d->ctx, &w->err, !sizes)) {
    free(sizes);
    return true;
  }
  for (uint32_t c = 0; c < nchunks; c++)
    if (d->owns(d->ctx, c, nchunks))
      for (uint64_t j = 0; j < count[c]; j++) sizes[c] += w->seq_pack(at(arg, c, j), NULL);
  d->share(d->ctx, sizes, sizeof *sizes, nchunks);
  uint64_t total = 0;
  for (uint32_t c = 0; c < nchunks; c++) total += sizes[c];
  unsigned char *buf = total ? malloc(total) : NULL;
  if (total && !buf) drt_mem_failed(&w->err, "the sequences of other processes' strands", total,
                                    "bytes", total);
  if (d->agree(d->ctx, &w->err, total && !buf)) {
    free(buf);
    free(sizes);
    return true;
  }
  if (!total) {
    free(sizes);
    return false;
  }
  uint64_t off = 0;
  for (uint32_t c = 0; c < nchunks; off += sizes[c], c++)
    if (d->owns(d->ctx, c, nchunks)) {
      uint64_t o = off;
      for (uint64_t j = 0; j < count[c]; j++) o += w->seq_pack(at(arg, c, j), buf + o);
    }
  d->share_var(d->ctx, buf, sizes, nchunks);
  bool bad = false;
  off = 0;
  for (uint32_t c = 0; c < nchunks && !bad; off += sizes[c], c++) {
    if (d->owns(d->ctx, c, nchunks)) continue;
    uint64_t o = off;
    for (uint64_t j = 0; j < count[c] && !bad; j++) {
      unsigned char *rec = at(arg, c, j);
      /* the record's byte count first: seq_unpack points it elsewhere */
      uint64_t n = w->seq_pack(rec, NULL);
      bad = w->seq_unpack(w, rec, buf + o);
      o += n;
    }
  }
  free(buf);
  free(sizes);
  return d->agree(d->ctx, &w->err, bad);
}
