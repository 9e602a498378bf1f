/* rt_mpi_print.c -- `print` in strand code with --target=mpi: the text of
 * each print of a super-step's start, update and stabilize methods is kept
 * with its strand slot and phase, and at the end of the step's update
 * phase (drt_mpi_print_flush, a collective reached from DrtDistrib.prints)
 * every rank's texts go to rank 0, which writes them in the sequential
 * target's order: the start methods' prints in strand order, then the
 * update methods' (each followed by the stabilize method it leads to) in
 * strand order. Within one strand and phase the texts keep the order they
 * were printed in (one thread runs a strand's methods of a phase, and
 * appends under the lock in that order). The map of a reduction over
 * strands in a global block runs on the ranks that own the strands: its
 * prints are kept the same way (phase 2) and written, in strand order,
 * when the map's values are shared (drt_world_map_share), before the
 * block goes on.
 *
 * State. The texts of the step on this process (`pr`, as rt_mpi.c keeps
 * `mpi`: MPI is per process): records appended under a mutex by the
 * rank's OpenMP threads, drained by the collective on the thread that
 * runs the world. A print outside a step's phases (a stabilize method run
 * by a global block's stabilize_all, which every rank runs) writes to the
 * print file at once, as global blocks do: rank 0's text is the one seen. */
#define _GNU_SOURCE /* open_memstream (POSIX 2008) */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "diderot_mpi.h"
#include "rt_world_impl.h"

/* a record's header in the buffer, its text after it */
typedef struct PrRec {
  uint64_t key; /* phase << 32 | strand slot */
  uint64_t seq; /* its order on this rank */
  uint64_t len; /* the text's bytes */
} PrRec;

static struct {
  pthread_mutex_t lock;
  unsigned char *buf; /* records one after another */
  size_t n, cap;
  uint64_t seq;
  bool oom; /* a text could not be kept (said at the flush) */
} pr = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* the stream for one print's text, or direct when there is no memory for
 * one (the text then goes out at once, out of order, and the flush says so) */
static FILE *pr_open(FILE *direct, DrtMpiPrint *p) {
  p->f = open_memstream(&p->text, &p->len);
  if (p->f) return p->f;
  pthread_mutex_lock(&pr.lock);
  pr.oom = true;
  pthread_mutex_unlock(&pr.lock);
  return direct;
}

FILE *drt_mpi_print_begin(DrtCtx *ctx, FILE *direct, DrtMpiPrint *p) {
  p->f = NULL, p->text = NULL, p->len = 0;
  return ctx && ctx->world->in_step ? pr_open(direct, p) : direct;
}

FILE *drt_mpi_print_begin_map(DrtWorld *w, FILE *direct, DrtMpiPrint *p) {
  p->f = NULL, p->text = NULL, p->len = 0;
  return w && w->dist ? pr_open(direct, p) : direct;
}

void drt_mpi_print_end(DrtMpiPrint *p, uint32_t slot, unsigned phase) {
  if (!p->f) return;
  bool ok = fclose(p->f) == 0 && p->text;
  PrRec r = {(uint64_t)phase << 32 | slot, 0, ok ? p->len : 0};
  pthread_mutex_lock(&pr.lock);
  size_t need = pr.n + sizeof r + r.len;
  if (ok && need > pr.cap) {
    size_t cap = pr.cap ? pr.cap : 4096;
    while (cap < need) cap *= 2;
    unsigned char *b = realloc(pr.buf, cap);
    if (b) pr.buf = b, pr.cap = cap;
    else ok = false;
  }
  if (ok) {
    r.seq = pr.seq++;
    memcpy(pr.buf + pr.n, &r, sizeof r);
    memcpy(pr.buf + pr.n + sizeof r, p->text, r.len);
    pr.n = need;
  } else {
    pr.oom = true;
  }
  pthread_mutex_unlock(&pr.lock);
  free(p->text);
  p->f = NULL, p->text = NULL;
}

/* records of all ranks, in the order to write them */
typedef struct PrAt {
  uint64_t key, rank, seq;
  const unsigned char *text;
  uint64_t len;
} PrAt;

static int pr_cmp(const void *a, const void *b) {
  const PrAt *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void pr_abort(MPI_Comm comm, int rank, const char *what, size_t bytes) {
  fprintf(stderr, "diderot: error: rank %d: %s (%zu bytes of print text)\n", rank, what, bytes);
  MPI_Abort(comm, 1);
}

void drt_mpi_print_flush(MPI_Comm comm, int rank, int size, FILE *out) {
  /* whether any rank has text or lost some: most steps of most programs
   * print nothing, and then this is one small reduction */
  unsigned long long mine[2] = {pr.n, pr.oom}, all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
  if (all[1] && rank == 0)
    fprintf(stderr, "diderot: warning: out of memory keeping the text of a print: it was "
                    "written out of order or lost\n");
  pr.oom = false;
  if (!all[0]) return;
  if (pr.n > INT_MAX) pr_abort(comm, rank, "a step's prints are beyond one MPI message", pr.n);
  int n = (int)pr.n, *counts = NULL, *displs = NULL;
  unsigned char *recv = NULL;
  if (rank == 0) {
    counts = calloc((size_t)size * 2, sizeof *counts);
    if (!counts) pr_abort(comm, rank, "out of memory gathering the prints", (size_t)size);
    displs = counts + size;
  }
  MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
  size_t total = 0, nrec = 0;
  if (rank == 0) {
    for (int r = 0; r < size; r++) {
      if (total + (size_t)counts[r] > INT_MAX)
        pr_abort(comm, rank, "a step's prints are beyond one MPI message", total + counts[r]);
      displs[r] = (int)total;
      total += (size_t)counts[r];
    }
    recv = malloc(total ? total : 1);
    if (!recv) pr_abort(comm, rank, "out of memory gathering the prints", total);
  }
  MPI_Gatherv(pr.buf, n, MPI_BYTE, recv, counts, displs, MPI_BYTE, 0, comm);
  pr.n = 0, pr.seq = 0;
  if (rank != 0) return;
  for (size_t at = 0; at < total; nrec++) {
    PrRec h;
    memcpy(&h, recv + at, sizeof h);
    at += sizeof h + h.len;
  }
  PrAt *list = malloc((nrec ? nrec : 1) * sizeof *list);
  if (!list) pr_abort(comm, rank, "out of memory ordering the prints", nrec * sizeof *list);
  size_t k = 0;
  for (int r = 0; r < size; r++)
    for (size_t at = (size_t)displs[r]; at < (size_t)displs[r] + (size_t)counts[r];) {
      PrRec h;
      memcpy(&h, recv + at, sizeof h);
      list[k++] = (PrAt){h.key, (uint64_t)r, h.seq, recv + at + sizeof h, h.len};
      at += sizeof h + h.len;
    }
  qsort(list, k, sizeof *list, pr_cmp);
  for (size_t i = 0; i < k; i++) fwrite(list[i].text, 1, list[i].len, out);
  free(list);
  free(recv);
  free(counts);
}

void drt_mpi_print_free(void) {
  free(pr.buf);
  pr.buf = NULL, pr.n = pr.cap = 0, pr.seq = 0;
}
