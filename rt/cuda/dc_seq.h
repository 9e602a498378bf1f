/* dc_seq.h -- dynamic sequences (T[] values) built by strand code on the
 * device, and kept in strand state, for the CUDA target. Included by the
 * generated device half after d_newctx when device code builds sequences
 * or strand state holds them (D_SEQ_ARENA, D_SEQ_STATE); the generated
 * parts before it: d_seq_field(k) (byte offset and element size of the
 * k-th dynamic-sequence state variable in a packed record) and
 * d_seq_strings (the host's canonical copies of the strings of elements).
 *
 * A sequence value is {len, v} as in the C targets, an immutable buffer
 * that copies share. The device keeps two kinds of memory:
 *  - the arena: everything a kernel allocates (`@`, comprehensions,
 *    literals and ranges of dynamic type) comes from one device buffer by
 *    an atomic bump counter in the step's counts. It is reset by every
 *    launch. An allocation that does not fit fails: the method leaves at
 *    once (d_newctx.sfail; the generated code checks after each
 *    allocation), the counter still records the demand, and the host
 *    undoes the step from the start-of-step copy and runs it again with an
 *    arena that fits (as for sphere results and print records, dc_run.h);
 *  - the heap (two semispaces, only with sequences in strand state): what
 *    the alive strands' states hold after a step. Between steps the
 *    sequences of the alive strands that are elsewhere (arena, a global's
 *    device copy) are appended to the heap and the state pointers updated
 *    (a size pass, a copy pass), so the arena and the globals' copies can
 *    be reused by the next step. When they do not fit, or the heap holds
 *    too much garbage (more than twice the live bytes, plus 1 MiB), every
 *    live sequence is copied into the other semispace instead (a copying
 *    collection). Copies that shared a buffer get one copy each there
 *    (values are immutable, so only memory differs from the C targets);
 *    empty sequences hold no buffer.
 * The host world gets host copies (drt_seq_alloc, collected by the host's
 * heap) when strands are downloaded, and strands created on the host
 * have theirs copied into the heap when they are uploaded (dc_run.h).
 */
#ifndef DIDEROT_CUDA_SEQ_H
#define DIDEROT_CUDA_SEQ_H

/* The representation of every dynamic sequence type of the generated code
 * (typedef struct { uint32_t len; T *v; }). */
typedef struct DcSeqRef {
  uint32_t len;
  void *v;
} DcSeqRef;

/* Allocation granule: keeps every element type aligned. */
static DC_HD inline unsigned long long dc_seq_round(unsigned long long n) {
  return n ? (n + 15u) & ~15ull : 16u;
}

/* `bytes` from the step's arena; NULL (and *fail set) when the arena is
 * full. */
static DC_DEV inline void *dc_seq_alloc(const DcStep *a, unsigned *fail, size_t bytes) {
  unsigned long long need = dc_seq_round(bytes);
  unsigned long long at = atomicAdd(&a->cnt->abytes, need);
  if (at > a->acap || need > a->acap - at) {
    *fail = 1u;
    return NULL;
  }
  return a->arena + at;
}

/* An allocation's address, which C++ converts to the element pointer the
 * C printer assigns it to (C converts void * implicitly). */
struct DcSeqPtr {
  void *p;
  template <typename T> DC_HD operator T *() const { return (T *)p; }
};

/* The device half's d_seq_alloc and d_seq_join (the C targets' names and
 * arguments, with the strand's context in place of the world: D_SEQ_RT is
 * nc_ in device code). */
static DC_DEV inline DcSeqPtr d_seq_alloc(d_newctx *nc, size_t n, size_t esz) {
  DcSeqPtr r = {dc_seq_alloc(nc->a, &nc->sfail, n * esz)};
  return r;
}
static DC_DEV inline DcSeqPtr d_seq_join(d_newctx *nc, const void *a, size_t na, const void *b,
                                         size_t nb, size_t esz) {
  DcSeqPtr r = {dc_seq_alloc(nc->a, &nc->sfail, (na + nb) * esz)};
  char *p = (char *)r.p;
  if (p && na) memcpy(p, a, na * esz);
  if (p && nb) memcpy(p + na * esz, b, nb * esz);
  return r;
}

#if D_SEQ_STATE
static DC_HD inline DcSeqRef dc_seq_get(const dreal *rec, int k, uint32_t *esz) {
  uint32_t off;
  d_seq_field(k, &off, esz);
  DcSeqRef r;
  memcpy(&r, (const char *)rec + off, sizeof r);
  return r;
}
static DC_HD inline void dc_seq_set(dreal *rec, int k, DcSeqRef r) {
  uint32_t off, esz;
  d_seq_field(k, &off, &esz);
  memcpy((char *)rec + off, &r, sizeof r);
}

static DC_HD inline bool dc_seq_alive(unsigned char s) { return s == DRT_ACTIVE || s == DRT_STABLE; }

/* The heap: live sequences in `buf` (the semispace in use), `used` bytes. */
typedef struct DcSeqHeap {
  char *buf, *other;
  unsigned long long cap, ocap, used;
  unsigned long long *top; /* device counter of the collection */
} DcSeqHeap;

/* Whether p lies in the heap's used part [lo, lo + used). */
static DC_HD inline bool dc_seq_in(const void *p, const char *lo, unsigned long long used) {
  return lo && (const char *)p >= lo && (const char *)p < lo + used;
}

/* Bytes the non-empty sequences of the alive strands' states hold:
 * cnt[0] all of them, cnt[1] those outside [lo, lo + used) (size pass). */
static __global__ void dc_k_seq_size(DcStore st, uint32_t n, const unsigned char *status,
                                     const char *lo, unsigned long long used,
                                     unsigned long long *cnt) {
  uint32_t j = threadIdx.x + blockDim.x * blockIdx.x;
  if (j >= n || !dc_seq_alive(status[j])) return;
  dreal pk[D_STATE_WORDS];
  d_get(st.w, st.cap, j, pk);
  unsigned long long all = 0, out = 0;
  for (int k = 0; k < D_SEQ_STATE; k++) {
    uint32_t esz;
    DcSeqRef r = dc_seq_get(pk, k, &esz);
    if (!r.len) continue;
    unsigned long long b = dc_seq_round((unsigned long long)r.len * esz);
    all += b;
    if (!dc_seq_in(r.v, lo, used)) out += b;
  }
  if (all) atomicAdd(&cnt[0], all);
  if (out) atomicAdd(&cnt[1], out);
}

/* Copy the sequences outside [lo, lo + used) (all of them when lo is
 * NULL) to `to` at offsets from the bump counter *top, and point the states
 * at the copies; empty ones get no buffer (copy pass). */
static __global__ void dc_k_seq_move(DcStore st, uint32_t n, const unsigned char *status,
                                     const char *lo, unsigned long long used, char *to,
                                     unsigned long long *top) {
  uint32_t j = threadIdx.x + blockDim.x * blockIdx.x;
  if (j >= n || !dc_seq_alive(status[j])) return;
  dreal pk[D_STATE_WORDS];
  d_get(st.w, st.cap, j, pk);
  bool changed = false;
  for (int k = 0; k < D_SEQ_STATE; k++) {
    uint32_t esz;
    DcSeqRef r = dc_seq_get(pk, k, &esz);
    if (!r.len) {
      if (!r.v) continue;
      r.v = NULL;
    } else {
      if (dc_seq_in(r.v, lo, used)) continue;
      size_t bytes = (size_t)r.len * esz;
      unsigned long long at = atomicAdd(top, dc_seq_round(bytes));
      memcpy(to + at, r.v, bytes);
      r.v = to + at;
    }
    dc_seq_set(pk, k, r);
    changed = true;
  }
  if (changed) d_put(st.w, st.cap, j, pk);
}

/* Room for `bytes` in the free semispace (contents dropped): twice that,
 * so that steps can add to it before the next full collection. */
static inline bool dc_seq_other(DrtErrors *err, DcSeqHeap *h, unsigned long long bytes) {
  if (!h->top &&
      !dc_ok(err, cudaMalloc((void **)&h->top, 2 * sizeof *h->top), "sequence heap"))
    return false;
  if (h->other && bytes <= h->ocap) return true;
  cudaFree(h->other);
  h->other = NULL;
  h->ocap = 0;
  unsigned long long want = 2 * bytes;
  if (want < 65536) want = 65536;
  if (!dc_ok(err, cudaMalloc((void **)&h->other, want), "sequence heap allocation")) {
    h->other = NULL;
    return false;
  }
  h->ocap = want;
  return true;
}

static inline void dc_seq_swap(DcSeqHeap *h, unsigned long long used) {
  char *b = h->buf;
  unsigned long long c = h->cap;
  h->buf = h->other;
  h->cap = h->ocap;
  h->other = b;
  h->ocap = c;
  h->used = used;
}

/* Between steps, over the n slots of st: the sequences of the alive
 * strands that are not in the heap (built in the arena, a global's copy)
 * are appended to it; when they do not fit, or the heap holds more than
 * twice the live bytes (plus 1 MiB) of garbage, every live sequence is
 * copied into the other semispace instead (a full copying collection). */
static inline bool dc_seq_collect(DrtErrors *err, DcSeqHeap *h, DcStore st, uint32_t n,
                                  const unsigned char *status, uint32_t block) {
  unsigned long long cnt[2] = {0, 0};
  if (!dc_seq_other(err, h, 0) || !dc_ok(err, cudaMemset(h->top, 0, 2 * sizeof *h->top), "set"))
    return false;
  if (n) {
    DC_LAUNCH(dc_k_seq_size, dc_blocks(n, block), block, st, n, status, (const char *)h->buf,
              h->used, h->top);
    if (!dc_launched(err, "sequence collection") ||
        !dc_ok(err, cudaMemcpy(cnt, h->top, sizeof cnt, cudaMemcpyDeviceToHost), "copy"))
      return false;
  }
  unsigned long long live = cnt[0], out = cnt[1];
  bool full = !h->buf || h->used + out > h->cap || h->used + out > 2 * live + (1u << 20);
  if (!full) {
    if (!out) return true;
    unsigned long long at = h->used;
    if (!dc_ok(err, cudaMemcpy(h->top, &at, sizeof at, cudaMemcpyHostToDevice), "copy")) return false;
    DC_LAUNCH(dc_k_seq_move, dc_blocks(n, block), block, st, n, status, (const char *)h->buf,
              h->used, h->buf, h->top);
    h->used += out;
    return dc_launched(err, "sequence collection");
  }
  if (!dc_seq_other(err, h, live) || !dc_ok(err, cudaMemset(h->top, 0, sizeof *h->top), "set"))
    return false;
  if (n) {
    DC_LAUNCH(dc_k_seq_move, dc_blocks(n, block), block, st, n, status, (const char *)NULL, 0ull,
              h->other, h->top);
    if (!dc_launched(err, "sequence collection")) return false;
  }
  dc_seq_swap(h, live);
  return true;
}

/* Host records (n of them, D_STATE_WORDS each) to the device: the
 * sequences of the alive ones (status) are copied into a fresh heap and
 * the records pointed at the device copies; the others get empty
 * sequences. The strings of elements become their canonical copies. */
static inline bool dc_seq_state_upload(DrtErrors *err, DcSeqHeap *h, dreal *recs, uint32_t n,
                                 const unsigned char *status) {
  unsigned long long total = 0;
  for (uint32_t i = 0; i < n; i++)
    for (int k = 0; dc_seq_alive(status[i]) && k < D_SEQ_STATE; k++) {
      uint32_t esz;
      DcSeqRef r = dc_seq_get(recs + (size_t)i * D_STATE_WORDS, k, &esz);
      if (r.len) total += dc_seq_round((unsigned long long)r.len * esz);
    }
  char *stage = (char *)malloc(total ? total : 1);
  if (!stage) {
    drt_error(err, "out of memory");
    return false;
  }
  bool ok = dc_seq_other(err, h, total);
  unsigned long long at = 0;
  for (uint32_t i = 0; ok && i < n; i++)
    for (int k = 0; k < D_SEQ_STATE; k++) {
      dreal *rec = recs + (size_t)i * D_STATE_WORDS;
      uint32_t esz;
      DcSeqRef r = dc_seq_get(rec, k, &esz);
      if (!dc_seq_alive(status[i]) || !r.len) {
        r.len = 0;
        r.v = NULL;
      } else {
        size_t bytes = (size_t)r.len * esz;
        if (bytes) memcpy(stage + at, r.v, bytes);
        d_seq_strings(err, k, stage + at, r.len);
        r.v = h->other + at;
        at += dc_seq_round(bytes);
      }
      dc_seq_set(rec, k, r);
    }
  ok = ok && (!total || dc_ok(err, cudaMemcpy(h->other, stage, total, cudaMemcpyHostToDevice),
                              "sequence upload"));
  free(stage);
  if (ok) dc_seq_swap(h, total);
  return ok;
}

/* Device records (after dc_seq_collect: their sequences are in the heap)
 * to the host world: each sequence of an alive strand gets a host copy
 * from the world's sequence heap (drt_seq_alloc); the others, empty. */
static inline bool dc_seq_state_download(DrtErrors *err, DrtWorld *rt, const DcSeqHeap *h, dreal *recs,
                                   uint32_t n, const unsigned char *status) {
  char *stage = (char *)malloc(h->used ? h->used : 1);
  bool ok = stage != NULL;
  if (!ok) drt_error(err, "out of memory");
  ok = ok && (!h->used ||
              dc_ok(err, cudaMemcpy(stage, h->buf, h->used, cudaMemcpyDeviceToHost), "download"));
  for (uint32_t i = 0; ok && i < n; i++)
    for (int k = 0; ok && k < D_SEQ_STATE; k++) {
      dreal *rec = recs + (size_t)i * D_STATE_WORDS;
      uint32_t esz;
      DcSeqRef r = dc_seq_get(rec, k, &esz);
      size_t bytes = (size_t)r.len * esz;
      void *v = NULL;
      if (dc_seq_alive(status[i])) {
        v = drt_seq_alloc(rt, bytes);
        if (!v) {
          drt_error(err, "out of memory");
          ok = false;
        } else if (bytes) {
          const char *p = (const char *)r.v;
          if (h->buf && p >= h->buf && p + bytes <= h->buf + h->used)
            memcpy(v, stage + (p - h->buf), bytes);
          else /* not collected yet (a run that stopped on an error) */
            ok = dc_ok(err, cudaMemcpy(v, p, bytes, cudaMemcpyDeviceToHost), "download");
        }
      } else {
        r.len = 0;
      }
      r.v = v;
      dc_seq_set(rec, k, r);
    }
  free(stage);
  return ok;
}

static inline void dc_seq_heap_free(DcSeqHeap *h) {
  cudaFree(h->buf);
  cudaFree(h->other);
  cudaFree(h->top);
  memset(h, 0, sizeof *h);
}
#endif /* D_SEQ_STATE */

#endif
