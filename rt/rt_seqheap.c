/* rt_seqheap.c -- the world-owned heap of dynamic sequences (see
 * diderot_world.h, "Dynamic sequences").
 *
 * Generated code treats a T[] value as an immutable buffer that copies
 * share, so no single owner can free it. Instead every buffer comes from
 * this heap, and the world collects it between super-steps, where the only
 * live sequences are those reachable from the globals and from the state of
 * the alive strands (method temporaries are dead): the program's seq_roots
 * hook marks those, everything else is freed (mark and sweep). Allocation
 * is a lock-free push, so OpenMP threads allocate concurrently; collection
 * runs single-threaded at the end of a step. drt_seqheap_free releases
 * every buffer with the world.
 *
 * Appending to a sequence copies it (values are immutable and shared), so
 * a comprehension, which appends its elements one at a time, would copy
 * O(n^2) bytes. drt_seqheap_join extends the buffer in place instead when
 * it is the last one this thread allocated and the value ends where that
 * buffer's contents end: no other value can see the new bytes (every value
 * of the buffer is a prefix no longer than the contents), and no other
 * thread extends it (its own last buffer is another). A buffer made by an
 * append gets room to double. The thread's record is tied to an epoch that
 * changes with every heap and every collection, so that a buffer freed or
 * reallocated since is never taken for it.
 */
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

/* The header in front of every buffer (keeps the data max-aligned). */
typedef union SeqHdr {
  struct {
    union SeqHdr *next;
    size_t bytes; /* capacity */
  } h;
  max_align_t align;
} SeqHdr;

/* Epochs: unique over the heaps and collections of the process. */
static atomic_uint_fast64_t seq_epochs = 1;

/* The last buffer this thread allocated from a heap, and how much of it
 * is used (drt_seqheap_join). */
static _Thread_local struct {
  const DrtSeqHeap *heap;
  uint_fast64_t epoch;
  char *data;
  size_t used, cap;
} seq_last;

/* Collect once this many bytes were allocated since the last collection
 * (or as many as survived it, whichever is larger): amortised O(1). */
enum { SEQ_MIN_COLLECT = 1 << 20 };

struct DrtSeqHeap {
  _Atomic(SeqHdr *) head;
  atomic_size_t since; /* bytes allocated since the last collection */
  size_t live;         /* bytes kept by the last collection */
  uint_fast64_t epoch; /* a new one at each collection (seq_last) */
  /* during a collection: an open-addressing set of the buffers' data
   * pointers, with a mark per slot */
  const void **keys;
  unsigned char *marks;
  size_t cap;
};

DrtSeqHeap *drt_seqheap_new(void) {
  DrtSeqHeap *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  atomic_init(&h->head, NULL);
  atomic_init(&h->since, 0);
  h->epoch = atomic_fetch_add(&seq_epochs, 1);
  return h;
}

void drt_seqheap_free(DrtSeqHeap *h) {
  if (!h) return;
  SeqHdr *b = atomic_load(&h->head);
  while (b) {
    SeqHdr *next = b->h.next;
    free(b);
    b = next;
  }
  free(h->keys);
  free(h->marks);
  free(h);
}

/* A buffer of cap bytes whose first `used` are the contents. */
static void *seqheap_alloc_cap(DrtSeqHeap *h, size_t used, size_t cap) {
  SeqHdr *b = malloc(sizeof(SeqHdr) + (cap ? cap : 1));
  if (!b) return NULL;
  b->h.bytes = cap;
  seq_last.heap = h;
  seq_last.epoch = h->epoch;
  seq_last.data = (char *)(b + 1);
  seq_last.used = used;
  seq_last.cap = cap;
  SeqHdr *old = atomic_load_explicit(&h->head, memory_order_relaxed);
  do {
    b->h.next = old;
  } while (!atomic_compare_exchange_weak_explicit(&h->head, &old, b, memory_order_release,
                                                  memory_order_relaxed));
  atomic_fetch_add_explicit(&h->since, sizeof(SeqHdr) + cap, memory_order_relaxed);
  return b + 1;
}

void *drt_seqheap_alloc(DrtSeqHeap *h, size_t bytes) { return seqheap_alloc_cap(h, bytes, bytes); }

void *drt_seqheap_join(DrtSeqHeap *h, const void *a, size_t na, const void *b, size_t nb) {
  char *p;
  if (a && na && seq_last.heap == h && seq_last.epoch == h->epoch && seq_last.data == a &&
      seq_last.used == na && nb <= seq_last.cap - na) {
    p = seq_last.data;
    seq_last.used += nb;
  } else {
    size_t n = na + nb;
    p = seqheap_alloc_cap(h, n, na && n <= SIZE_MAX / 2 ? 2 * n : n);
    if (!p) return NULL;
    if (na) memcpy(p, a, na);
  }
  if (nb) memcpy(p + na, b, nb);
  return p;
}

bool drt_seqheap_due(const DrtSeqHeap *h) {
  size_t since = atomic_load_explicit(&((DrtSeqHeap *)h)->since, memory_order_relaxed);
  return since >= SEQ_MIN_COLLECT && since >= h->live;
}

size_t drt_seqheap_bytes(const DrtSeqHeap *h) {
  if (!h) return 0;
  return h->live + atomic_load_explicit(&((DrtSeqHeap *)h)->since, memory_order_relaxed);
}

static size_t seq_slot(const DrtSeqHeap *h, const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p >> 4;
  x *= 0x9E3779B97F4A7C15ull;
  return (size_t)(x >> 17) & (h->cap - 1);
}

bool drt_seqheap_begin(DrtSeqHeap *h) {
  size_t n = 0;
  for (SeqHdr *b = atomic_load(&h->head); b; b = b->h.next) n++;
  size_t cap = 16;
  while (cap < 2 * n) cap *= 2;
  const void **keys = calloc(cap, sizeof *keys);
  unsigned char *marks = calloc(cap, 1);
  if (!keys || !marks) { /* no collection this time: nothing is freed */
    free(keys);
    free(marks);
    return false;
  }
  h->keys = keys;
  h->marks = marks;
  h->cap = cap;
  for (SeqHdr *b = atomic_load(&h->head); b; b = b->h.next) {
    size_t k = seq_slot(h, b + 1);
    while (h->keys[k]) k = (k + 1) & (cap - 1);
    h->keys[k] = b + 1;
  }
  return true;
}

bool drt_seqheap_mark(DrtSeqHeap *h, const void *p) {
  if (!p || !h->keys) return false;
  for (size_t k = seq_slot(h, p); h->keys[k]; k = (k + 1) & (h->cap - 1))
    if (h->keys[k] == p) {
      bool first = !h->marks[k];
      h->marks[k] = 1;
      return first;
    }
  return false; /* not a heap buffer (e.g. NULL data of an empty sequence) */
}

void drt_seqheap_sweep(DrtSeqHeap *h) {
  if (!h->keys) return;
  SeqHdr *kept = NULL;
  size_t live = 0;
  for (size_t k = 0; k < h->cap; k++) {
    if (!h->keys[k]) continue;
    SeqHdr *b = (SeqHdr *)h->keys[k] - 1;
    if (h->marks[k]) {
      b->h.next = kept;
      kept = b;
      live += sizeof(SeqHdr) + b->h.bytes;
    } else {
      free(b);
    }
  }
  atomic_store(&h->head, kept);
  atomic_store(&h->since, 0);
  h->live = live;
  h->epoch = atomic_fetch_add(&seq_epochs, 1);
  free(h->keys);
  free(h->marks);
  h->keys = NULL;
  h->marks = NULL;
  h->cap = 0;
}
