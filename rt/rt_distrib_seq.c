/* rt_distrib_seq.c -- the dynamic sequences and strings of strand states
 * that go from one process to the others (drt_world_set_seq_codec, diderot_world.h;
 * rt_world_impl.h drt_distrib_seqs). A packed record holds a sequence as
 * its length and a pointer into the owner's sequence heap; the pointer
 * means nothing elsewhere, so after the records went out their elements
 * follow, chunk by chunk: the owner of each chunk counts and packs the
 * elements of its records in record order, every process learns every
 * chunk's byte count (DrtDistrib.share) and gets the bytes
 * (DrtDistrib.share_var), and where it does not own the chunk puts them
 * into its own heap and points its copies of the records at them. Its
 * sequence heap collects the old ones between steps, as any garbage.
 * A string goes as its bytes; the receiver keeps one copy of each text
 * (a program's strings are its literals, inputs and globals: few, and
 * met again at every exchange), so a pointer can be kept as long as the
 * world lives. */
#include <stdlib.h>
#include <string.h>

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
      uint64_t n = 0;
      bad = w->seq_unpack(w, rec, buf + o, &n);
      o += n;
    }
  }
  free(buf);
  free(sizes);
  return d->agree(d->ctx, &w->err, bad);
}

uint64_t drt_str_pack(const void *src, unsigned char *out) {
  const char *s;
  memcpy(&s, src, sizeof s);
  size_t len = s ? strlen(s) : 0;
  uint32_t l = (uint32_t)len; /* a program's strings are far below 4 GB */
  if (out) {
    memcpy(out, &l, sizeof l);
    if (l) memcpy(out + sizeof l, s, l);
  }
  return sizeof l + (uint64_t)l;
}

/* FNV-1a of the len bytes at p. */
static size_t str_hash(const char *p, size_t len) {
  uint64_t h = 1469598103934665603u;
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211u;
  return (size_t)h;
}

/* The slot of the text p[0..len) in the set (an empty one if absent). */
static char **str_slot(char **tab, size_t cap, const char *p, size_t len) {
  size_t i = str_hash(p, len) & (cap - 1);
  while (tab[i] && !(strlen(tab[i]) == len && memcmp(tab[i], p, len) == 0)) i = (i + 1) & (cap - 1);
  return &tab[i];
}

/* Twice the slots (the set stays at most half full); false without memory. */
static bool strs_grow(DrtWorld *w) {
  size_t cap = w->capstrs ? 2 * w->capstrs : 64;
  char **tab = calloc(cap, sizeof *tab);
  if (!tab) return false;
  for (size_t i = 0; i < w->capstrs; i++)
    if (w->strs[i]) *str_slot(tab, cap, w->strs[i], strlen(w->strs[i])) = w->strs[i];
  free(w->strs);
  w->strs = tab, w->capstrs = cap;
  return true;
}

bool drt_str_unpack(DrtWorld *w, const unsigned char *in, void *dst, uint64_t *n) {
  uint32_t l;
  memcpy(&l, in + *n, sizeof l);
  const char *p = (const char *)in + *n + sizeof l;
  *n += sizeof l + (uint64_t)l;
  if (2 * (w->nstrs + 1) > w->capstrs && !strs_grow(w)) {
    drt_mem_failed(&w->err, "the strings of other processes' strands", 1, "set",
                   (uint64_t)(w->capstrs ? 2 * w->capstrs : 64) * sizeof(char *));
    return true;
  }
  char **slot = str_slot(w->strs, w->capstrs, p, l);
  if (!*slot) {
    char *c = malloc((size_t)l + 1);
    if (!c) {
      drt_mem_failed(&w->err, "the strings of other processes' strands", 1, "string", (uint64_t)l + 1);
      return true;
    }
    memcpy(c, p, l);
    c[l] = 0;
    *slot = c;
    w->nstrs++;
  }
  const char *s = *slot;
  memcpy(dst, &s, sizeof s);
  return false;
}

void drt_distrib_strs_free(DrtWorld *w) {
  for (size_t i = 0; i < w->capstrs; i++) free(w->strs[i]);
  free(w->strs);
  w->strs = NULL, w->nstrs = w->capstrs = 0;
}
