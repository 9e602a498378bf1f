/* rt_writer.c -- snapshots saved behind the computation.
 *
 * A snapshot is a whole file every few super-steps, and saving one
 * atomically (a temporary file, an exchange of names, the old contents
 * removed) spends most of its time waiting on the file system, not on
 * the CPU: the sphere example's 330 snapshots waited about 50 ms of a
 * 0.25 s run. So the executable's main thread only copies a snapshot's
 * bytes into memory (the strands change in the next step) and hands the
 * file to one writer thread, which saves the files in the order given
 * under the rules of drt_output_save. Only plain targets go this way (a
 * new name or a regular file); a link, a FIFO, a device or our own
 * stdout is written by the main thread in order, after the writer has
 * caught up. Memory is bounded: while WRITER_MAX_BYTES are waiting, the
 * next snapshot waits for room.
 *
 * Small files are saved in batches: waking a thread that sleeps on an
 * idle core costs more than saving a small file (an interprocessor
 * interrupt; in a VM a trip through the hypervisor), so the writer starts
 * once WRITER_BATCH_JOBS files or WRITER_BATCH_BYTES wait, or the oldest
 * has waited WRITER_DELAY_MS, and then saves all that is queued.
 *
 * With one CPU to run on there is no writer: snapshots are saved in
 * place (-sched-writer on|off, DIDEROT_SCHED_WRITER, chooses otherwise:
 * diderot_world.h). A failed save stops the run at a later snapshot, the first one after
 * the writer met it (the writer drops what was queued after it, which a
 * synchronous run would never have written); drt_writer_finish waits for
 * the writer and moves its errors and warnings into the program's.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diderot_world.h"
#include "rt_internal.h"

enum {
  WRITER_MAX_BYTES = 256 << 20,
  WRITER_BATCH_JOBS = 16,
  WRITER_BATCH_BYTES = 4 << 20,
  WRITER_DELAY_MS = 20
};

typedef struct WriterJob {
  struct WriterJob *next;
  char *what, *file, *bytes; /* the file: nbytes from bytes + skip */
  size_t skip, nbytes;
  struct timespec due; /* queued + WRITER_DELAY_MS (CLOCK_MONOTONIC) */
} WriterJob;

struct DrtWriter {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t work; /* a job was queued, a batch is due, or stop */
  pthread_cond_t room; /* a job was done */
  WriterJob *head, *tail;
  size_t pending_bytes; /* queued or being saved */
  unsigned pending_jobs;
  bool stop, failed;
  bool sleeping; /* the writer waits on work */
  bool urgent;   /* the main thread waits for the queue: save it now */
  DrtErrors errs; /* the writer's messages, under mu */
};

static void job_free(WriterJob *j) {
  free(j->what);
  free(j->file);
  free(j->bytes);
  free(j);
}

static bool batch_full(const DrtWriter *w) {
  return w->pending_jobs >= WRITER_BATCH_JOBS || w->pending_bytes >= WRITER_BATCH_BYTES;
}

static bool past(const struct timespec *t) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

/* Under mu: sleep until a batch is due; false when stopped with nothing
 * queued. */
static bool await_batch(DrtWriter *w) {
  for (;;) {
    if (w->head && (w->stop || w->urgent || batch_full(w) || past(&w->head->due))) return true;
    if (!w->head && w->stop) return false;
    w->sleeping = true;
    if (w->head) pthread_cond_timedwait(&w->work, &w->mu, &w->head->due);
    else pthread_cond_wait(&w->work, &w->mu);
    w->sleeping = false;
  }
}

static void *writer_main(void *arg) {
  DrtWriter *w = arg;
  pthread_mutex_lock(&w->mu);
  while (await_batch(w)) {
    for (WriterJob *j; (j = w->head);) { /* everything queued, new files too */
      w->head = j->next;
      if (!w->head) w->tail = NULL;
      bool skip = w->failed;
      pthread_mutex_unlock(&w->mu);
      DrtErrors je;
      drt_errors_init(&je);
      bool err = !skip && drt_output_save_bytes(&je, j->what, j->file, j->bytes + j->skip, j->nbytes);
      pthread_mutex_lock(&w->mu);
      drt_errors_move(&w->errs, &je);
      w->failed |= err;
      w->pending_bytes -= j->nbytes;
      w->pending_jobs--;
      pthread_cond_broadcast(&w->room);
      job_free(j);
    }
    w->urgent = false;
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

DrtWriter *drt_writer_new(void) { return drt_writer_new_mode(drt_sched_env_writer()); }

DrtWriter *drt_world_writer_new(DrtWorld *w) { return drt_writer_new_mode(drt_world_sched_writer(w)); }

/* writer: a DrtSchedWriter (-sched-writer, diderot_world.h) */
DrtWriter *drt_writer_new_mode(int writer) {
  if (writer == DRT_WRITER_OFF) return NULL;
  /* on one CPU the writer would only take turns with the strands (auto) */
  cpu_set_t cpus;
  if (writer != DRT_WRITER_ON && sched_getaffinity(0, sizeof cpus, &cpus) == 0 &&
      CPU_COUNT(&cpus) < 2)
    return NULL;
  DrtWriter *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  if (pthread_mutex_init(&w->mu, NULL) != 0) goto no_mutex;
  /* timed waits on the monotonic clock (the deadlines are) */
  pthread_condattr_t ca;
  if (pthread_condattr_init(&ca) != 0) goto no_work;
  bool work_ok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
                 pthread_cond_init(&w->work, &ca) == 0;
  pthread_condattr_destroy(&ca);
  if (!work_ok) goto no_work;
  if (pthread_cond_init(&w->room, NULL) != 0) goto no_room;
  if (pthread_create(&w->thread, NULL, writer_main, w) != 0) goto no_thread;
  return w;
no_thread:
  pthread_cond_destroy(&w->room);
no_room:
  pthread_cond_destroy(&w->work);
no_work:
  pthread_mutex_destroy(&w->mu);
no_mutex:
  free(w);
  return NULL; /* the callers then save in place */
}

/* Wait until no more than `limit` bytes are queued (0: the writer idle);
 * true when a save has failed, its messages moved into e. */
static bool writer_wait(DrtWriter *w, DrtErrors *e, size_t limit) {
  pthread_mutex_lock(&w->mu);
  if (w->pending_jobs && (limit == 0 || w->pending_bytes > limit)) {
    w->urgent = true; /* no waiting for a full batch */
    if (w->sleeping) pthread_cond_signal(&w->work);
  }
  while (!w->failed && w->pending_jobs && (limit == 0 || w->pending_bytes > limit))
    pthread_cond_wait(&w->room, &w->mu);
  bool failed = w->failed;
  if (failed) drt_errors_move(e, &w->errs);
  pthread_mutex_unlock(&w->mu);
  return failed;
}

bool drt_output_save_parts_behind(DrtWriter *w, DrtErrors *e, const char *what,
                                  const char *file, Nrrd *head, size_t item_bytes,
                                  DrtOutFill fill, void *ctx) {
  if (!w) return drt_output_save_parts(e, what, file, head, item_bytes, fill, ctx);
  if (!drt_output_plain(file) || !head) {
    /* in order: after everything queued before it */
    return writer_wait(w, e, 0) || drt_output_save_parts(e, what, file, head, item_bytes, fill, ctx);
  }
  char *bytes = NULL;
  size_t skip = 0, nbytes = 0;
  if (drt_output_to_memory(e, what, file, head, item_bytes, fill, ctx, &bytes, &skip, &nbytes))
    return true;
  WriterJob *j = calloc(1, sizeof *j);
  if (j) {
    j->what = strdup(what ? what : "output");
    j->file = strdup(file);
  }
  if (!j || !j->what || !j->file) {
    if (j) job_free(j);
    free(bytes);
    drt_error_at(e, what, file, "cannot write the output: out of memory");
    return true;
  }
  j->bytes = bytes;
  j->skip = skip;
  j->nbytes = nbytes;
  clock_gettime(CLOCK_MONOTONIC, &j->due);
  j->due.tv_nsec += WRITER_DELAY_MS * 1000000L;
  if (j->due.tv_nsec >= 1000000000L) {
    j->due.tv_sec++;
    j->due.tv_nsec -= 1000000000L;
  }
  /* room for it: at most WRITER_MAX_BYTES queued, or the writer idle */
  size_t limit = nbytes >= WRITER_MAX_BYTES ? 0 : WRITER_MAX_BYTES - nbytes;
  if (writer_wait(w, e, limit)) {
    job_free(j);
    return true;
  }
  pthread_mutex_lock(&w->mu);
  if (w->tail) w->tail->next = j;
  else w->head = j;
  w->tail = j;
  w->pending_bytes += nbytes;
  w->pending_jobs++;
  /* a sleeping writer wakes for the first file (to time the batch) and
   * for a full batch */
  if (w->sleeping && (w->head == j || batch_full(w))) pthread_cond_signal(&w->work);
  pthread_mutex_unlock(&w->mu);
  return false;
}

bool drt_writer_finish(DrtWriter *w, DrtErrors *e) {
  if (!w) return false;
  pthread_mutex_lock(&w->mu);
  w->stop = true;
  pthread_cond_signal(&w->work);
  pthread_mutex_unlock(&w->mu);
  pthread_join(w->thread, NULL);
  bool failed = w->failed;
  drt_errors_move(e, &w->errs);
  pthread_cond_destroy(&w->room);
  pthread_cond_destroy(&w->work);
  pthread_mutex_destroy(&w->mu);
  free(w);
  return failed;
}
