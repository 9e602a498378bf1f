/* rt_world_impl.h -- the fields of a DrtWorld (diderot_world.h), private
 * to the scheduler (rt_world.c) and to its distribution over processes
 * (rt_distrib.c), which exchanges the per-chunk bookkeeping and the strand
 * store between the phases of a step. */
#ifndef DIDEROT_RT_WORLD_IMPL_H
#define DIDEROT_RT_WORLD_IMPL_H

#include "diderot_world.h"
#include "rt_internal.h"

enum { DRT_MAX_AXES = 15 };
/* The most strands of a world: slots and counts are uint32_t, and
 * drt_world_create_strand keeps UINT32_MAX unused. */
#define DRT_MAX_STRANDS ((uint64_t)UINT32_MAX - 1)

/* Strands created by `new` in one chunk during one step, in creation
 * order; creators are ascending because a chunk runs its strands in
 * order. */
typedef struct DrtNewBuf {
  unsigned char *states;
  size_t n, cap;
  uint32_t nstab, ndie; /* the chunk's status changes this step */
  uint32_t most;        /* strand-wise: the most updates a strand ran */
  bool oom;
  size_t oom_n;         /* the strands it could not hold (the message's count) */
} DrtNewBuf;

struct DrtWorld {
  DrtProgram prog;
  void *globals;
  DrtErrors err;
  DrtStage stage;
  bool verbose;
  DrtParallelFor pfor;
  DrtParallelFor pfor_kinds[3]; /* dynamic, static, guided (drt_world_set_parallel_kinds) */
  uint32_t nworkers;
  /* the run-time schedule (rt_schedule.c): sched.run.chunk strands per
   * chunk, sched.run.steps updates per strand-wise visit */
  DrtSchedState sched;
  size_t ssz, align;       /* state size rounded to the alignment */
  const DrtStateLayout *lay; /* NULL: AoS slots of ssz bytes */
  unsigned char *state;    /* cap slots of ssz bytes, or the layout's store */
  unsigned char *tmp;      /* one packed record (layout moves) */
  bool pending;            /* layout: tmp holds created strand n-1 */
  unsigned char *in_state; /* start-of-step copies (shared programs) */
  unsigned char *status;   /* DRT_ACTIVE ... per slot */
  unsigned char *fresh;    /* 1: start method still to run */
  uint32_t *ids;           /* each slot's strand id: its place in creation order */
  uint32_t next_id;        /* the id of the next strand created */
  uint32_t n, cap, in_cap;
  uint32_t nactive, nstable;
  bool grid;
  bool create_failed;      /* creation failed: later strands are refused at once */
  unsigned naxes;
  size_t sizes[DRT_MAX_AXES];
  uint32_t steps;
  DrtNewBuf *bufs;         /* one per chunk */
  uint32_t nbufs;
  bool in_step;
  DrtSeqPack seq_pack;     /* drt_world_set_seq_codec (rt_distrib_seq.c) */
  DrtSeqUnpack seq_unpack;
  char **strs;             /* drt_str_unpack's copies: an open-addressing set */
  size_t nstrs, capstrs;
  bool in_global;          /* in a global block: a global `die` defers compaction */
  DrtSeqHeap *seqs;        /* buffers of dynamic sequences (rt_seqheap.c) */
  DrtProgressFn progress;  /* drt_world_set_progress */
  void *progress_data;
  double progress_interval;
  double progress_t0, progress_last; /* this run's start, the last call */
  bool progress_reported;  /* the last call reported the current step */
  int failed;              /* a run-time error of the program (atomic: set once) */
  const DrtDistrib *dist;  /* NULL: one process holds every chunk (rt_distrib.c) */
  uint32_t *own;           /* with dist: the chunks this process runs this step */
  uint32_t nown, capown;
  /* with dist->rebalance: per chunk, its active strands, and the moves of
   * the last rebalance (chunks and this process's role in each) */
  uint32_t *act, *moved;
  unsigned char *role;
  uint32_t capact;
  unsigned char *mapbuf;   /* drt_world_map_values's scratch */
  size_t mapcap;
  bool interrupt_told;     /* drt_world_interrupted has said so */
  /* -trace (rt_trace.c): NULL, or where each strand's stabilize, die and
   * birth is written; trace_prev holds the statuses before a phase */
  FILE *trace;
  unsigned char *trace_prev;
  uint32_t trace_n, trace_cap;
};

/* ---- rt_trace.c: the record of -trace ---- */

/* Before a step's phases or a global block: the statuses now. */
void drt_trace_snap(DrtWorld *w);
/* After them, before compaction: a line for each strand that was active
 * and no longer is (step: the super-step; where: "update" or "global"). */
void drt_trace_changes(DrtWorld *w, uint32_t step, const char *where);
/* A line for each strand in the slots from `from` on (just born). */
void drt_trace_new(DrtWorld *w, uint32_t from, uint32_t step, const char *where);

/* ---- rt_distrib.c: a world whose chunks are spread over processes ---- */

/* The chunks of this process among nchunks into w->own (all of them
 * without a distribution); false when out of memory. */
bool drt_distrib_own(DrtWorld *w, uint32_t nchunks);
/* After the phases of a step: every process agrees whether one failed
 * (the lowest failing process's errors become every process's), then
 * takes the owners' counts, status and fresh flags of every chunk. True
 * when the step failed somewhere. */
bool drt_distrib_step(DrtWorld *w, uint32_t nchunks, bool failed);
/* Before strands move (compaction): the owners' states of every chunk. */
void drt_distrib_states(DrtWorld *w, uint32_t nchunks);
/* A collective between super-steps: where the transport moves chunks to
 * other processes (DrtDistrib.rebalance), their states go with them. */
void drt_distrib_rebalance(DrtWorld *w, uint32_t nchunks);
/* rt_distrib_seq.c: after records of the chunks of nchunks went from
 * their owners to every process (count[c] records of chunk c, record j at
 * at(arg, c, j)), the elements of their dynamic sequences follow
 * (drt_world_set_seq_codec), and the records of the chunks this
 * process does not own point at its own copies. A collective; true
 * when a process ran out of memory (the error agreed). Nothing without
 * a codec. */
typedef unsigned char *(*DrtRecAt)(void *arg, uint32_t c, uint64_t j);
bool drt_distrib_seqs(DrtWorld *w, uint32_t nchunks, const uint64_t *count, DrtRecAt at, void *arg);
/* drt_world_free: the strings drt_str_unpack made. */
void drt_distrib_strs_free(DrtWorld *w);
/* A reduction's per-chunk partials from their owners. */
void drt_distrib_partials(DrtWorld *w, uint32_t nchunks, double *pr, int64_t *pi, uint32_t *cnt);
/* The strands [lo, hi) of chunk c (rt_distrib.c). */
void drt_world_chunk_range(const DrtWorld *w, uint32_t c, uint32_t *lo, uint32_t *hi);

#endif
