/* rt_mpi.c -- the runtime of `diderotc --target=mpi` executables: MPI
 * start and end, rank 0's command line and inputs broadcast, the world's
 * chunks over the ranks (DrtDistrib over MPI collectives), outputs written
 * by rank 0 (diderot_mpi.h says what each entry point does).
 *
 * State. MPI is per process, and so is this file's one record of it
 * (`mpi`, set once by drt_mpi_main before the program's body runs, as
 * rt_exec.c keeps the executable's name): the communicator, this rank, the
 * job's size, the placement, and whether a run is under way (loaders
 * called from strand code then load locally: only some ranks call them,
 * so they must not be collectives).
 *
 * Faults. Every collective is reached by every rank in the same order,
 * because every rank takes the same path: the same arguments, the same
 * loaded inputs (or the same errors), the same world after each step, the
 * same answer from each output save. A run-time error on one rank reaches
 * the others at the end of its step (DrtDistrib.agree). What cannot be
 * agreed on (an MPI failure) aborts the job through MPI's own error
 * handler. */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>
#include <teem/nrrd.h>

#include "diderot_mpi.h"
#include "rt_internal.h"

static struct {
  MPI_Comm comm;
  bool attached; /* comm is set: by drt_mpi_main, or a library's drt_mpi_attach */
  bool exec;     /* by drt_mpi_main: an executable, whose world ends on rank 0 */
  int err_fd;    /* this rank's own stderr, kept by quiet_rank for mpi_fatal (-1: stderr) */
  const char *prog; /* the executable's name for mpi_fatal (NULL: a library's "diderot") */
  int rank, size;
  DrtMpiPlacement placement;
  double rebalance; /* the imbalance that moves chunks (0: never) */
  bool running;     /* in drt_mpi_world_run: loaders are local */
  DrtDistrib dist;
  FILE *print;      /* the run's print file (rank 0 writes strands' prints there) */
  /* after a rebalance: every chunk's owner (map_n chunks; the placement
   * again when the world has another number of chunks), the last moves'
   * old and new owners, and per rank its work */
  int *map, *from, *to;
  uint64_t *load;
  uint32_t map_n;
} mpi = {.size = 1, .err_fd = -1};

int drt_mpi_rank(void) { return mpi.rank; }
int drt_mpi_size(void) { return mpi.size; }

/* A failure the ranks cannot agree on (an allocation inside an exchange
 * that has begun): "PROG: error: rank R: ..." on this rank's own stderr
 * (quiet_rank silences the others' for everything else), then the job
 * ends (MPI_Abort). */
static void mpi_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void mpi_fatal(const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  char line[600];
  int n = snprintf(line, sizeof line, "%s: error: rank %d: %s\n", mpi.prog ? mpi.prog : "diderot",
                   mpi.rank, msg);
  if (n > (int)sizeof line - 1) n = (int)sizeof line - 1;
  if (mpi.err_fd >= 0) {
    ssize_t w = write(mpi.err_fd, line, (size_t)n);
    (void)w;
  } else {
    fputs(line, stderr);
    fflush(stderr);
  }
  MPI_Abort(mpi.comm, 1);
  abort(); /* MPI_Abort does not return */
}

/* ---- collectives on bytes ------------------------------------------------------------ */

/* MPI counts are ints: big buffers go in pieces of 1 GiB. */
static void bcast_bytes(void *p, size_t n) {
  unsigned char *b = p;
  while (n) {
    int k = n > (1u << 30) ? 1 << 30 : (int)n;
    MPI_Bcast(b, k, MPI_BYTE, 0, mpi.comm);
    b += k, n -= (size_t)k;
  }
}

static void bcast_size(size_t *n) {
  unsigned long long v = *n;
  MPI_Bcast(&v, 1, MPI_UNSIGNED_LONG_LONG, 0, mpi.comm);
  *n = (size_t)v;
}

/* A string from rank `root` to every rank (malloc'd, NULL for none). */
static char *bcast_text(const char *s, int root) {
  unsigned long long n = s ? strlen(s) + 1 : 0;
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, root, mpi.comm);
  if (!n) return NULL;
  char *t = malloc(n);
  if (!t) mpi_fatal("out of memory for a message of %llu bytes", n);
  if (mpi.rank == root) memcpy(t, s, n);
  MPI_Bcast(t, (int)n, MPI_CHAR, root, mpi.comm);
  return t;
}

/* Rank 0's result of a load or save: whether it failed, and its errors on
 * every rank (rank 0 keeps its own, with its warnings). */
static bool agree_rank0(DrtErrors *e, bool bad) {
  int b = bad;
  MPI_Bcast(&b, 1, MPI_INT, 0, mpi.comm);
  char *t = bcast_text(b && mpi.rank == 0 ? drt_errors_text(e) : NULL, 0);
  if (mpi.rank != 0 && t) {
    /* the lines one by one: each is one message */
    for (char *line = t; *line;) {
      size_t k = strcspn(line, "\n");
      drt_error(e, "%.*s", (int)k, line);
      line += k + (line[k] == '\n');
    }
  }
  free(t);
  return b != 0;
}

/* ---- the distribution ------------------------------------------------------------------- */

static int placed(uint32_t c, uint32_t nchunks) {
  if (mpi.placement == DRT_MPI_CYCLIC) return (int)(c % (uint32_t)mpi.size);
  return (int)((uint64_t)c * (uint64_t)mpi.size / nchunks);
}

static void map_room(uint32_t nchunks);

/* The owner map follows the world's number of chunks: when strands were
 * appended (`new`) the chunks before keep their owners (their states are
 * there) and the new ones are placed; when it shrank (a compaction, which
 * gave every process every state) it starts again from the placement. */
static int owner(uint32_t c, uint32_t nchunks) {
  if (mpi.map_n != nchunks) map_room(nchunks);
  return mpi.map[c];
}

static bool mpi_owns(void *ctx, uint32_t c, uint32_t nchunks) {
  (void)ctx;
  return owner(c, nchunks) == mpi.rank;
}

/* Every chunk's slice from its owner: the owners' slices gathered in rank
 * order (each rank's in chunk order), then put back in chunk order; on
 * every rank, or with root on rank 0 alone (true where they arrived). */
static bool mpi_slices(void *buf, size_t size, uint32_t nchunks, bool root) {
  if (mpi.size == 1 || !nchunks) return true;
  if (size > INT_MAX)
    mpi_fatal("a chunk's data (%zu bytes) is beyond one MPI message; use a smaller chunk "
              "(-sched-chunk)", size);
  int *counts = calloc((size_t)mpi.size * 2, sizeof *counts), *displs = counts ? counts + mpi.size : NULL;
  if (!counts) mpi_fatal("out of memory exchanging %u chunks", (unsigned)nchunks);
  for (uint32_t c = 0; c < nchunks; c++) counts[owner(c, nchunks)]++;
  /* room for this rank's own slices, and for every slice where they arrive */
  bool here = !root || mpi.rank == 0;
  size_t own = (size_t)counts[mpi.rank];
  unsigned char *send = malloc(own ? own * size : 1);
  unsigned char *recv = here ? malloc((size_t)nchunks * size) : NULL;
  if (!send || (here && !recv))
    mpi_fatal("out of memory exchanging %u chunks of %zu bytes", (unsigned)nchunks, size);
  unsigned char *b = buf;
  int mine = 0;
  for (uint32_t c = 0; c < nchunks; c++)
    if (owner(c, nchunks) == mpi.rank) memcpy(send + (size_t)mine++ * size, b + (size_t)c * size, size);
  for (int r = 1; r < mpi.size; r++) displs[r] = displs[r - 1] + counts[r - 1];
  MPI_Datatype slice;
  MPI_Type_contiguous((int)size, MPI_BYTE, &slice);
  MPI_Type_commit(&slice);
  if (root) MPI_Gatherv(send, mine, slice, recv, counts, displs, slice, 0, mpi.comm);
  else MPI_Allgatherv(send, mine, slice, recv, counts, displs, slice, mpi.comm);
  MPI_Type_free(&slice);
  /* displs[r] now counts rank r's chunks placed so far */
  for (uint32_t c = 0; here && c < nchunks; c++) {
    int o = owner(c, nchunks);
    memcpy(b + (size_t)c * size, recv + (size_t)displs[o]++ * size, size);
  }
  free(counts);
  free(send);
  free(recv);
  return here;
}

static void mpi_share(void *ctx, void *buf, size_t size, uint32_t nchunks) {
  (void)ctx;
  (void)mpi_slices(buf, size, nchunks, false);
}

static bool mpi_gather(void *ctx, void *buf, size_t size, uint32_t nchunks) {
  (void)ctx;
  return mpi_slices(buf, size, nchunks, true);
}

/* Every chunk's sizes[c] bytes from its owner, the chunks' bytes one after
 * another in buf: each rank's own chunks gathered in chunk order, then put
 * back in place. */
static void mpi_share_var(void *ctx, void *buf, const uint64_t *sizes, uint32_t nchunks) {
  (void)ctx;
  if (mpi.size == 1 || !nchunks) return;
  int R = mpi.size, *counts = calloc((size_t)R * 3, sizeof *counts);
  int *displs = counts ? counts + R : NULL, *used = counts ? counts + 2 * R : NULL;
  uint64_t mine = 0, total = 0, *per = calloc((size_t)R, sizeof *per);
  for (uint32_t c = 0; c < nchunks; c++) {
    total += sizes[c];
    if (per) per[owner(c, nchunks)] += sizes[c];
  }
  if (per) mine = per[mpi.rank];
  for (int r = 0; per && r < R; r++)
    if (per[r] > INT_MAX || total > INT_MAX) {
      mpi_fatal("the strands created in one step (%llu bytes) are beyond one MPI message",
                (unsigned long long)total);
    }
  unsigned char *send = malloc(mine ? mine : 1), *recv = malloc(total ? total : 1);
  if (!counts || !per || !send || !recv) {
    mpi_fatal("out of memory exchanging %llu bytes of new strands", (unsigned long long)total);
  }
  for (int r = 0; r < R; r++) counts[r] = (int)per[r];
  for (int r = 1; r < R; r++) displs[r] = displs[r - 1] + counts[r - 1];
  unsigned char *b = buf;
  uint64_t at = 0, put = 0;
  for (uint32_t c = 0; c < nchunks; at += sizes[c], c++)
    if (owner(c, nchunks) == mpi.rank) memcpy(send + put, b + at, sizes[c]), put += sizes[c];
  MPI_Allgatherv(send, (int)mine, MPI_BYTE, recv, counts, displs, MPI_BYTE, mpi.comm);
  at = 0;
  for (uint32_t c = 0; c < nchunks; at += sizes[c], c++) {
    int o = owner(c, nchunks);
    memcpy(b + at, recv + displs[o] + used[o], sizes[c]);
    used[o] += (int)sizes[c];
  }
  free(counts);
  free(per);
  free(send);
  free(recv);
}

/* ---- moving chunks ------------------------------------------------------------------------ */

/* The arrays of the owner map for nchunks chunks, the placement's owners
 * in them; every rank or none (MPI_Abort: the ranks could not go on
 * alike). */
static void map_room(uint32_t nchunks) {
  if (mpi.map_n == nchunks) return;
  uint32_t keep = nchunks > mpi.map_n ? mpi.map_n : 0;
  int *map = malloc((size_t)(nchunks ? nchunks : 1) * 3 * sizeof *map);
  if (!mpi.load) mpi.load = malloc((size_t)mpi.size * sizeof *mpi.load);
  int ok = map && mpi.load, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, mpi.comm);
  if (!all) {
    mpi_fatal("out of memory for the owners of %u chunks", (unsigned)nchunks);
  }
  for (uint32_t c = 0; c < nchunks; c++) map[c] = c < keep ? mpi.map[c] : placed(c, nchunks);
  free(mpi.map);
  mpi.map = map;
  mpi.from = map + nchunks, mpi.to = mpi.from + nchunks;
  mpi.map_n = nchunks;
}

/* When the busiest rank holds more than `rebalance` times the mean of the
 * active strands, the chunks that have any are dealt again: contiguous
 * runs of about total/R active strands each, in chunk order, a chunk to
 * the rank where its middle strand falls. Chunks with none stay where they
 * are (their states need not travel). Every rank computes the same from
 * the same counts. */
static uint32_t mpi_rebalance(void *ctx, const uint32_t *active, uint32_t nchunks,
                              uint32_t *chunks, unsigned char *role) {
  (void)ctx;
  if (!nchunks) return 0;
  if (mpi.map_n != nchunks) map_room(nchunks);
  uint64_t total = 0, most = 0, R = (uint64_t)mpi.size;
  for (int r = 0; r < mpi.size; r++) mpi.load[r] = 0;
  for (uint32_t c = 0; c < nchunks; c++) mpi.load[mpi.map[c]] += active[c], total += active[c];
  for (int r = 0; r < mpi.size; r++) most = mpi.load[r] > most ? mpi.load[r] : most;
  if (!total || (double)most * (double)R <= mpi.rebalance * (double)total) return 0;
  uint32_t n = 0;
  uint64_t before = 0;
  for (uint32_t c = 0; c < nchunks; c++) {
    if (!active[c]) continue;
    uint64_t t = ((2 * before + active[c]) * R) / (2 * total);
    int to = t >= R ? mpi.size - 1 : (int)t;
    before += active[c];
    if (to == mpi.map[c]) continue;
    chunks[n] = c;
    mpi.from[n] = mpi.map[c], mpi.to[n] = to;
    role[n] = mpi.map[c] == mpi.rank ? DRT_MOVE_OUT : to == mpi.rank ? DRT_MOVE_IN : 0;
    mpi.map[c] = to;
    n++;
  }
  return n;
}

/* The slices of the last rebalance's moves, each from its old owner to its
 * new one (MPI_Alltoallv: each rank's outgoing slices grouped by
 * destination, in move order; incoming ones by source, in move order). */
static void mpi_move(void *ctx, void *buf, size_t size, uint32_t n) {
  (void)ctx;
  if (size > INT_MAX) {
    mpi_fatal("a chunk's state (%zu bytes) is beyond one MPI message; use a smaller chunk "
              "(-sched-chunk)", size);
  }
  int R = mpi.size, *cnt = calloc((size_t)R * 5, sizeof *cnt);
  uint32_t nout = 0, nin = 0;
  for (uint32_t k = 0; k < n; k++) nout += mpi.from[k] == mpi.rank, nin += mpi.to[k] == mpi.rank;
  unsigned char *send = malloc((size_t)(nout ? nout : 1) * size);
  unsigned char *recv = malloc((size_t)(nin ? nin : 1) * size);
  if (!cnt || !send || !recv) {
    mpi_fatal("out of memory moving %u chunks of %zu bytes", (unsigned)n, size);
  }
  int *scnt = cnt, *sdis = cnt + R, *rcnt = cnt + 2 * R, *rdis = cnt + 3 * R, *at = cnt + 4 * R;
  for (uint32_t k = 0; k < n; k++) {
    if (mpi.from[k] == mpi.rank) scnt[mpi.to[k]]++;
    if (mpi.to[k] == mpi.rank) rcnt[mpi.from[k]]++;
  }
  for (int r = 1; r < R; r++) sdis[r] = sdis[r - 1] + scnt[r - 1], rdis[r] = rdis[r - 1] + rcnt[r - 1];
  unsigned char *b = buf;
  for (uint32_t k = 0; k < n; k++)
    if (mpi.from[k] == mpi.rank) {
      int r = mpi.to[k];
      memcpy(send + (size_t)(sdis[r] + at[r]++) * size, b + (size_t)k * size, size);
    }
  MPI_Datatype slice;
  MPI_Type_contiguous((int)size, MPI_BYTE, &slice);
  MPI_Type_commit(&slice);
  MPI_Alltoallv(send, scnt, sdis, slice, recv, rcnt, rdis, slice, mpi.comm);
  MPI_Type_free(&slice);
  for (int r = 0; r < R; r++) at[r] = 0;
  for (uint32_t k = 0; k < n; k++)
    if (mpi.to[k] == mpi.rank) {
      int r = mpi.from[k];
      memcpy(b + (size_t)k * size, recv + (size_t)(rdis[r] + at[r]++) * size, size);
    }
  free(cnt);
  free(send);
  free(recv);
}

/* The lowest failing rank's errors, as "rank R: MESSAGE", on every rank. */
static bool mpi_agree(void *ctx, DrtErrors *e, bool failed) {
  (void)ctx;
  int mine = failed ? mpi.rank : mpi.size, low = mine;
  MPI_Allreduce(&mine, &low, 1, MPI_INT, MPI_MIN, mpi.comm);
  if (low == mpi.size) return false;
  char *own = mpi.rank == low ? drt_errors_take(e) : NULL;
  char *t = bcast_text(mpi.rank == low ? (own ? own : "") : NULL, low);
  free(own);
  if (mpi.rank != low) free(drt_errors_take(e)); /* one job, one message */
  for (char *line = t; line && *line;) {
    size_t k = strcspn(line, "\n");
    if (mpi.size > 1) drt_error(e, "rank %d: %.*s", low, (int)k, line);
    else drt_error(e, "%.*s", (int)k, line);
    line += k + (line[k] == '\n');
  }
  free(t);
  return true;
}

/* mpi_agree, but where every rank failed each keeps its own errors:
 * the same on every rank where they come from what every rank shares
 * (inputs are rank 0's, broadcast), so no "rank R: " then. */
static bool agree_unless_all(DrtErrors *e, bool failed) {
  int mine[2] = {failed, !failed}, all[2];
  MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, mpi.comm);
  if (all[0]) return true;  /* all failed */
  if (all[1]) return false; /* none */
  return mpi_agree(NULL, e, failed);
}

bool drt_mpi_agree_created(DrtErrors *e, bool failed) {
  if (!mpi.attached) return failed; /* drt_mpi_attach said why */
  return agree_unless_all(e, failed);
}

bool drt_mpi_attach(DrtErrors *e, MPI_Comm comm, DrtMpiPlacement placement, double rebalance) {
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  if (!up || down) {
    drt_error(e, "MPI is %s: call MPI_Init before creating a world of a --target=mpi library",
              down ? "finalized" : "not initialized");
    return true;
  }
  if (mpi.attached) {
    int same = MPI_UNEQUAL;
    MPI_Comm_compare(mpi.comm, comm, &same);
    if (same != MPI_IDENT && same != MPI_CONGRUENT) {
      drt_error(e, "the worlds of one process must use one MPI communicator (an earlier world "
                   "used another)");
      return true;
    }
    return false;
  }
  mpi.comm = comm;
  MPI_Comm_rank(comm, &mpi.rank);
  MPI_Comm_size(comm, &mpi.size);
  mpi.placement = placement;
  mpi.rebalance = rebalance;
  mpi.attached = true;
  return false;
}

/* The signal every rank acts on: the largest any rank caught. */
static int mpi_stop(void *ctx, int sig) {
  (void)ctx;
  int all = sig;
  MPI_Allreduce(&sig, &all, 1, MPI_INT, MPI_MAX, mpi.comm);
  return all;
}

/* The step's prints of strand code, from every rank, written by rank 0. */
static void mpi_prints(void *ctx) {
  (void)ctx;
  drt_mpi_print_flush(mpi.comm, mpi.rank, mpi.size, mpi.print ? mpi.print : stdout);
}

uint32_t drt_mpi_world_run(DrtWorld *w, uint32_t max_steps, FILE *print, DrtSeqPack pack,
                           DrtSeqUnpack unpack) {
  if (!mpi.attached) {
    drt_error(drt_world_errors(w), "internal: the world of a --target=mpi program has no MPI "
                                   "communicator");
    return 0;
  }
  /* the chunk is the unit of placement: every rank must cut the world
   * alike (the environment, DIDEROT_SCHED_CHUNK, is each rank's own) */
  DrtSchedule s;
  /* a bad DIDEROT_SCHED_* value on some ranks only: all stop */
  if (agree_unless_all(drt_world_errors(w), drt_world_schedule(w, &s))) return 0;
  unsigned mine[2] = {s.chunk, ~s.chunk}, all[2];
  MPI_Allreduce(mine, all, 2, MPI_UNSIGNED, MPI_MAX, mpi.comm);
  if (all[0] != mine[0] || all[1] != mine[1]) {
    drt_error(drt_world_errors(w), "the ranks do not agree on the chunk size (%u here): give "
              "every rank the same DIDEROT_SCHED_CHUNK, or none", mine[0]);
    return 0;
  }
  /* no rebalance hook where nothing can move: the runtime then does not
   * count each chunk's active strands after every step */
  bool moves = mpi.size > 1 && mpi.rebalance > 0;
  mpi.dist = (DrtDistrib){NULL, mpi_owns, mpi_share, mpi_share_var, mpi_agree,
                          moves ? mpi_rebalance : NULL, moves ? mpi_move : NULL, mpi_prints,
                          mpi_stop, mpi_gather};
  mpi.print = print;
  drt_world_set_seq_codec(w, pack, unpack);
  mpi.map_n = 0; /* a run starts from the placement */
  drt_world_set_distrib(w, &mpi.dist);
  mpi.running = true;
  uint32_t steps = drt_world_run(w, max_steps);
  mpi.running = false;
  /* errors before any step (a bad schedule, the global start block) are
   * the same on every rank; a step's were agreed; and so is the world.
   * An executable's world that has finished (no active strand) ends on
   * rank 0, which writes the outputs: the states go there alone. Every
   * rank gets them where the run may go on (the snapshots' runs of a
   * period each start again from the placement, so a rank may take over
   * chunks that moved) and in a library, whose caller may read any rank.
   * One rank holds them all already */
  if (mpi.size > 1 && !drt_world_failed(w) && !drt_any_errors(drt_world_errors(w))) {
    if (mpi.exec && drt_world_nactive(w) == 0) drt_world_distrib_gather(w);
    else drt_world_distrib_sync(w);
  }
  return steps;
}

/* ---- inputs ------------------------------------------------------------------------------- */

bool drt_mpi_image_load_file(DrtErrors *e, const DrtImageSpec *spec, const char *file,
                             DrtImage *img) {
  if (mpi.running || mpi.size == 1) return drt_image_load_file(e, spec, file, img);
  bool bad = mpi.rank == 0 ? drt_image_load_file(e, spec, file, img) : false;
  if (agree_rank0(e, bad)) return true;
  /* the loaded image: its fields (pointers excepted), the NRRD's axes
   * that the image queries read (rt_image_query.c: whether a component
   * axis leads, each spatial axis's space direction), then its samples */
  DrtImage head = *img;
  bcast_bytes(&head, sizeof head);
  struct { unsigned comp; double dir[3][NRRD_SPACE_DIM_MAX]; } axes = {0, {{0}}};
  if (mpi.rank == 0) {
    axes.comp = img->nrrd->dim - img->dim;
    for (unsigned a = 0; a < img->dim; a++)
      for (unsigned r = 0; r < img->dim; r++)
        axes.dir[a][r] = img->nrrd->axis[axes.comp + a].spaceDirection[r];
  }
  bcast_bytes(&axes, sizeof axes);
  size_t bytes = head.nelems * nrrdTypeSize[head.type];
  void *data = NULL;
  Nrrd *n = NULL;
  if (mpi.rank != 0) {
    /* a NRRD of the samples, as rank 0's (the queries and drt_image_free
     * read it; nrrdNuke frees the samples) */
    data = malloc(bytes ? bytes : 1);
    n = data ? nrrdNew() : NULL;
    size_t sz[4];
    unsigned nd = 0;
    if (axes.comp) sz[nd++] = head.ncomp;
    for (unsigned a = 0; a < head.dim; a++) sz[nd++] = (size_t)head.size[a];
    bad = !n || nrrdWrap_nva(n, data, head.type, nd, sz) != 0;
    if (bad)
      drt_error(e, "out of memory for the samples of %s (%zu bytes)",
                spec->what ? spec->what : "an image", bytes);
  }
  /* a rank without room for the samples (its own memory limit): every
   * rank fails with its message */
  if (mpi_agree(NULL, e, bad)) {
    if (n) nrrdNix(n);
    free(data);
    if (mpi.rank == 0) drt_image_free(img);
    return true;
  }
  if (mpi.rank != 0) {
    n->spaceDim = head.dim;
    for (unsigned a = 0; a < head.dim; a++)
      for (unsigned r = 0; r < head.dim; r++) n->axis[axes.comp + a].spaceDirection[r] = axes.dir[a][r];
    *img = head;
    img->nrrd = n;
    img->data = data;
    img->layout_data = NULL;
  }
  bcast_bytes((void *)img->data, bytes);
  return false;
}

bool drt_mpi_sequence_load_file(DrtErrors *e, const DrtSeqSpec *spec, const char *file,
                                DrtSequence *seq) {
  if (mpi.running || mpi.size == 1) return drt_sequence_load_file(e, spec, file, seq);
  bool bad = mpi.rank == 0 ? drt_sequence_load_file(e, spec, file, seq) : false;
  if (agree_rank0(e, bad)) return true;
  size_t len = seq->len, ncomp = seq->ncomp, type = (size_t)seq->type;
  bcast_size(&len);
  bcast_size(&ncomp);
  bcast_size(&type);
  size_t bytes = len * ncomp * nrrdTypeSize[type];
  if (mpi.rank != 0) {
    seq->len = len, seq->ncomp = (unsigned)ncomp, seq->type = (int)type;
    seq->data = malloc(bytes ? bytes : 1);
    bad = !seq->data;
    if (bad)
      drt_error(e, "out of memory for the elements of %s (%zu bytes)",
                spec->what ? spec->what : "a sequence", bytes);
  }
  if (mpi_agree(NULL, e, bad)) {
    drt_sequence_free(seq);
    return true;
  }
  bcast_bytes(seq->data, bytes);
  return false;
}

/* ---- outputs ------------------------------------------------------------------------------ */

bool drt_mpi_output_save_parts(DrtErrors *e, const char *what, const char *file, Nrrd *head,
                               size_t item_bytes, DrtOutFill fill, void *ctx) {
  bool bad = mpi.rank == 0 ? drt_output_save_parts(e, what, file, head, item_bytes, fill, ctx)
                           : false;
  return mpi.size > 1 ? agree_rank0(e, bad) : bad;
}

bool drt_mpi_output_save_parts_behind(DrtWriter *w, DrtErrors *e, const char *what,
                                      const char *file, Nrrd *head, size_t item_bytes,
                                      DrtOutFill fill, void *ctx) {
  bool bad = mpi.rank == 0
                 ? drt_output_save_parts_behind(w, e, what, file, head, item_bytes, fill, ctx)
                 : false;
  return mpi.size > 1 ? agree_rank0(e, bad) : bad;
}

bool drt_mpi_output_save_dynseq(DrtErrors *e, const char *what, const char *prefix,
                                long long step, const Nrrd *nlen, const Nrrd *ndata) {
  bool bad = mpi.rank == 0 ? drt_output_save_dynseq(e, what, prefix, step, nlen, ndata) : false;
  return mpi.size > 1 ? agree_rank0(e, bad) : bad;
}

/* Only rank 0 opens the -print file; the others print to "-" (their
 * stdout is /dev/null). Where rank 0 cannot open it, every rank must end
 * as rank 0 will (the glue's fopen fails, the message, exit status 1),
 * not wait for it in the run: rank 0 tries first ("a": nothing of the
 * file is lost yet), and the others are given "", which no fopen opens. */
int drt_mpi_cli_parse(DrtCli *cli, int argc, const char *const *argv, FILE *out, FILE *err) {
  int r = drt_cli_parse(cli, argc, argv, out, err);
  for (unsigned i = 0; r == DRT_CLI_OK && i < cli->nopts; i++) {
    if (strcmp(cli->opts[i].name, "print") != 0) continue;
    const char **file = (const char **)cli->opts[i].dest;
    int ok = 1;
    if (mpi.rank == 0 && strcmp(*file, "-") != 0) {
      FILE *f = fopen(*file, "a");
      ok = f != NULL;
      if (f) fclose(f);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, mpi.comm);
    if (mpi.rank != 0) *file = ok ? "-" : "";
  }
  return r;
}

/* ---- main --------------------------------------------------------------------------------- */

/* Rank 0's arguments on every rank: one buffer of NUL-terminated strings
 * (av[0] points at its start; freed by drt_mpi_main after the body). */
static const char **bcast_argv(int argc, char **argv, int *out_argc) {
  size_t n = 0;
  if (mpi.rank == 0)
    for (int i = 0; i < argc; i++) n += strlen(argv[i]) + 1;
  bcast_size(&n);
  char *buf = malloc(n ? n : 1);
  if (!buf) mpi_fatal("out of memory for the command line (%zu bytes)", n);
  if (mpi.rank == 0) {
    char *p = buf;
    for (int i = 0; i < argc; i++) p = stpcpy(p, argv[i]) + 1;
  }
  bcast_bytes(buf, n);
  int k = 0;
  for (size_t i = 0; i < n; i++) k += buf[i] == '\0';
  const char **av = calloc((size_t)k + 1, sizeof *av);
  if (!av) mpi_fatal("out of memory for the command line's %d words", k);
  for (size_t i = 0, j = 0; i < n && (int)j < k; j++) {
    av[j] = buf + i;
    i += strlen(buf + i) + 1;
  }
  *out_argc = k;
  return av;
}

/* Ranks other than 0 say nothing: rank 0 prints every message and every
 * `print` once (the ranks take the same path and hold the same errors). */
static void quiet_rank(void) {
  fflush(stdout);
  fflush(stderr);
  int fd = open("/dev/null", O_WRONLY);
  if (fd < 0) return;
  mpi.err_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  dup2(fd, STDOUT_FILENO);
  dup2(fd, STDERR_FILENO);
  close(fd);
}

int drt_mpi_main(int argc, char **argv, int (*body)(int argc, const char **argv),
                 DrtMpiPlacement placement, double rebalance) {
  int provided = 0;
  /* OpenMP threads inside a rank never call MPI */
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "%s: error: MPI could not start\n", argc > 0 ? argv[0] : "diderot");
    return 1;
  }
  mpi.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(mpi.comm, &mpi.rank);
  MPI_Comm_size(mpi.comm, &mpi.size);
  mpi.placement = placement;
  mpi.rebalance = rebalance;
  mpi.attached = true;
  mpi.exec = true;
  if (argc > 0 && argv[0]) {
    const char *slash = strrchr(argv[0], '/');
    mpi.prog = slash ? slash + 1 : argv[0];
  }
  int n = 0;
  const char **av = bcast_argv(argc, argv, &n);
  if (mpi.rank != 0) quiet_rank();
  drt_exec_agree_interrupts(); /* a signal stops every rank after one step */
  int status = body(n, av);
  free((void *)av[0]);
  free(av);
  fflush(NULL);
  int worst = status;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, mpi.comm);
  free(mpi.map);
  free(mpi.load);
  mpi.map = NULL, mpi.load = NULL, mpi.map_n = 0;
  drt_mpi_print_free();
  MPI_Finalize();
  return worst;
}
