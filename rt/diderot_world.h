/* diderot_world.h -- the world of a generated program and its
 * bulk-synchronous scheduler (doc/language.md §8, §14), part of libdiderot-rt
 * (rt_world.c).
 *
 * The generated code describes its strand (state size, methods, global
 * blocks) with a DrtProgram; the runtime owns the strand storage, the
 * status of every strand, the stage machine of the library API and the
 * super-step loop of doc/language.md §8.3:
 *
 *   step: [begin_step hook: spatial index] → start for fresh strands →
 *         update for active strands (a `stabilize` exit runs the stabilize
 *         method at once; `die` marks the strand dying) → finish: dying
 *         strands are removed, strands created by `new` are appended
 *         (active and fresh) → global update.
 *
 * Storage. Without a DrtStateLayout, strand states are stored
 * array-of-structs: strand i's state is state_size bytes at
 * drt_world_state(w, i) (the methods work on a pointer to their struct).
 * With one, the layout decides where each state word lives (see below). Alive strands are kept compacted in
 * creation order (doc/differences.md, Q15: dead strands are squeezed out
 * after each step, new strands are appended after all older ones, ordered by their
 * creator's position, then by creation order within one creator), so a
 * collection's stable strands are written in creation order. A grid never
 * loses or gains strands: storage order is loop order.
 *
 * Dual state (§6.3 visibility): when the program's strands read each
 * other's state (desc.shared), the runtime keeps a start-of-step copy of
 * every strand; drt_world_in_state() returns it. A strand sees its own
 * writes at once (it works on its current state).
 *
 * Parallelism. The runtime itself never creates threads: a parallel
 * target passes a parallel_for (e.g. an OpenMP loop over chunks) and the
 * runtime cuts every phase into chunks of `chunk` strands. All per-step
 * bookkeeping is kept per chunk (new strands, counts) and merged in chunk
 * order, so the result does not depend on the number of threads or on
 * which thread ran which chunk. Reductions over strand sets use the same
 * fixed chunks (partial results combined in chunk order): a real sum can
 * differ from a plain left-to-right sum by float reassociation, but never
 * between runs or thread counts.
 *
 * Errors follow diderot_rt.h: functions that can fail return true on
 * error after adding a message to the world's DrtErrors.
 */
#ifndef DIDEROT_WORLD_H
#define DIDEROT_WORLD_H

#include "diderot_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stage machine of §7.3. */
typedef enum DrtStage {
  DRT_STAGE_POST_NEW,
  DRT_STAGE_POST_INIT,
  DRT_STAGE_POST_CREATE,
  DRT_STAGE_RUNNING,
  DRT_STAGE_DONE
} DrtStage;

/* Strand status (one byte per strand). DRT_DYING lasts until the end of
 * the step; dead strands are then removed. */
enum { DRT_ACTIVE = 0, DRT_STABLE = 1, DRT_DYING = 2, DRT_DEAD = 3 };

/* How a start/update method ended. */
/* DRT_EXIT_ERROR: a run-time error was recorded (drt_world_probe_error);
 * the step ends and the run stops with that error. */
typedef enum DrtExit {
  DRT_EXIT_CONTINUE = 0,
  DRT_EXIT_STABILIZE = 1,
  DRT_EXIT_DIE = 2,
  DRT_EXIT_ERROR = 3
} DrtExit;

/* Strand sets of reductions (IrStrandSet order). */
typedef enum DrtSet { DRT_SET_ALL = 0, DRT_SET_ACTIVE = 1, DRT_SET_STABLE = 2 } DrtSet;

/* Reductions (IrReduce order). */
typedef enum DrtReduce {
  DRT_RED_ALL, DRT_RED_EXISTS, DRT_RED_SUM, DRT_RED_PRODUCT, DRT_RED_MIN, DRT_RED_MAX,
  DRT_RED_MEAN
} DrtReduce;

typedef struct DrtWorld DrtWorld;

/* What a strand method sees: the world, the program's globals, and the
 * chunk it runs in (strands created by `new` go to that chunk's list). */
typedef struct DrtCtx {
  DrtWorld *world;
  void *globals;
  uint32_t chunk;
} DrtCtx;

typedef DrtExit (*DrtMethod)(DrtCtx *ctx, uint32_t id, void *self);
typedef void (*DrtStabilize)(DrtCtx *ctx, uint32_t id, void *self);
typedef void (*DrtGlobalBlock)(DrtWorld *w, void *globals);
/* The update phase of one chunk, in the generated code: for every strand i
 * in [lo, hi) with status[i] == DRT_ACTIVE, clear fresh[i] and run update
 * (then stabilize on a `stabilize` exit, setting status[i] = DRT_STABLE and
 * counting it in *nstab; `die`: DRT_DYING, counted in *ndie), in order of i,
 * exactly as the runtime's own loop over DrtProgram.update would; with
 * limit > 1 each strand runs up to limit updates on its own (strand by
 * strand, see DrtProgram.strandwise), stopping at a run-time error. Returns
 * the most updates one strand ran (at least 1). `store` is the state store
 * (DrtStateLayout) and cap its capacity. The loop lives in the program so
 * that globals and invariant data are loaded once per chunk, not once per
 * strand, and so that the program may run several strands at a time
 * (--simd=strands). */
typedef uint32_t (*DrtUpdateChunk)(DrtCtx *ctx, uint32_t lo, uint32_t hi, void *store,
                                   uint32_t cap, unsigned char *status, unsigned char *fresh,
                                   uint32_t limit, uint32_t *nstab, uint32_t *ndie);
/* Run body(arg, c) for every chunk c in 0..nchunks-1, in any order and on
 * any threads; returns when all are done. */
typedef void (*DrtParallelFor)(uint32_t nchunks, void (*body)(void *arg, uint32_t c), void *arg,
                               uint32_t nworkers);

/* A strand-state layout chosen by the compiler (doc/layouts.md §4.1:
 * AoS, SoA, AoSoA; --strand-layout). With one, the runtime keeps every
 * state in an opaque store of bytes(cap) bytes, where cap (the number of
 * slots, drt_world_capacity) is a multiple of `pad` and is the column
 * stride of SoA-like layouts; only the generated code indexes the store.
 * A state crosses the runtime boundary as a packed record of state_size
 * bytes: creation and `new` fill packed records, put() scatters one into
 * slot i, get() gathers slot i (moves, growth, free_state). Methods and
 * reductions then receive the store itself as `self`. chunk_range, when
 * given, maps a parallel chunk to its strands [*lo, *hi) (the strand →
 * chunk layout), and `chunk` is the chunk size (a multiple of pad).
 * `packed_stride` is nonzero when the layout is the identity on packed
 * records (AoS: slot i is the packed record at store + i·packed_stride
 * bytes, whatever cap is): creation then writes states in place and
 * growth copies bytes, with no get/put per strand. */
typedef struct DrtStateLayout {
  uint32_t pad;
  uint32_t chunk;
  size_t (*bytes)(uint32_t cap);
  void (*get)(const void *store, uint32_t cap, uint32_t i, void *packed);
  void (*put)(void *store, uint32_t cap, uint32_t i, const void *packed);
  void (*chunk_range)(uint32_t c, uint32_t chunk, uint32_t n, uint32_t *lo, uint32_t *hi);
  size_t packed_stride;
} DrtStateLayout;

typedef struct DrtProgram {
  size_t state_size;           /* bytes of one strand's state (sizeof) */
  size_t state_align;          /* its alignment (0: max_align_t) */
  bool shared;                 /* strands read each other: keep in-copies */
  DrtMethod start;             /* NULL when the strand has no start method */
  DrtMethod update;            /* NULL when update_chunk runs the updates */
  DrtStabilize stabilize;      /* NULL when none */
  DrtGlobalBlock global_start; /* NULL when none */
  DrtGlobalBlock global_update;/* NULL when none */
  DrtGlobalBlock begin_step;   /* NULL; e.g. rebuild the spatial index */
  void (*free_state)(void *self); /* NULL; frees heap parts of a state */
  const DrtStateLayout *layout;   /* NULL: array-of-structs of state_size */
  /* NULL when the program has no dynamic sequences in globals or state
   * (every sequence is then garbage between steps); else marks
   * (drt_seq_mark) the sequences reachable from the globals and the alive
   * strands' states, between steps (see drt_seq_alloc). */
  DrtGlobalBlock seq_roots;
  /* NULL: the runtime calls update for each active strand of a chunk; else
   * the update phase of whole chunks (needs layout) */
  DrtUpdateChunk update_chunk;
  /* The program may run strand by strand (no-BSP mode, doc/language.md §8.3:
   * update_chunk with a limit above 1): no strand can tell it from
   * super-steps. diderotc --force-bsp leaves it false; the runtime uses
   * super-steps anyway while a progress callback or -v watches. */
  bool strandwise;
  /* Spread over processes (DrtDistrib): strands read strands that another
   * process may run (another strand's state, sphere(), strands collected
   * in a global block), so every strand's state goes to every process
   * after each step (diderotc --target=mpi sets it). */
  bool exchange_states;
} DrtProgram;

/* Dynamic sequences. The buffers of T[] values (immutable, shared by
 * copies) come from the world: drt_seq_alloc (any thread; NULL when out of
 * memory). At the end of a super-step, once enough was allocated, the
 * world calls prog.seq_roots, which marks with drt_seq_mark (true the first
 * time a buffer is marked) every buffer reachable from the globals and the
 * alive strands; the others are freed. drt_world_free frees them all. */
void *drt_seq_alloc(DrtWorld *w, size_t bytes);
/* The buffer of a (na bytes) followed by b (nb bytes), which may be a's
 * own buffer extended in place (never changing a value that exists: what
 * a comprehension's appends need to take linear time); NULL when out of
 * memory. */
void *drt_seq_join(DrtWorld *w, const void *a, size_t na, const void *b, size_t nb);
/* What generated code calls: drt_seq_alloc and drt_seq_join of n (na, nb)
 * values of esz bytes, which on failure (a size beyond size_t or beyond
 * what the process may use, or no memory) record the memory error in the
 * world's terms ("dynamic sequence: N values of E bytes need X; ..."),
 * stop the world as a probe error does, and return NULL: the caller leaves
 * the method (DRT_EXIT_ERROR) and the run, or the library call, fails with
 * that message. Without a world (NULL) nothing is recorded. */
void *drt_seq_alloc_n(DrtWorld *w, size_t n, size_t esz);
void *drt_seq_join_n(DrtWorld *w, const void *a, size_t na, const void *b, size_t nb, size_t esz);
bool drt_seq_mark(DrtWorld *w, const void *data);
/* The memory error in the user's terms, for code compiled with the program
 * (the CUDA target's host side): `bytes` for `count` things could not be
 * allocated ("WHAT: out of memory: N THINGS of B bytes need X; the
 * allocation failed (this process may use Y: LIMIT)"); and the same for
 * the GPU's memory, with what cudaMemGetInfo says is free ("WHAT: N
 * THINGS of B bytes need X of the GPU's memory; it has Y free of Z"). */
void drt_mem_error(DrtErrors *e, const char *what, uint64_t count, const char *things,
                   uint64_t bytes);
void drt_mem_device_error(DrtErrors *e, const char *what, uint64_t count, const char *things,
                          uint64_t bytes, uint64_t free_bytes, uint64_t total_bytes);
/* The end-of-step collection (when due), for schedulers other than
 * drt_world_run (the CUDA target's run loop): call it between steps, after
 * the global update, never during a step. */
void drt_world_collect_seqs(DrtWorld *w);
/* Bytes the sequence heap holds now (buffers and their headers). */
size_t drt_world_seq_bytes(const DrtWorld *w);

/* A new world in stage POST_NEW (NULL when out of memory). `globals` is
 * the generated program's globals, handed to methods and blocks. */
DrtWorld *drt_world_new(const DrtProgram *prog, void *globals);
void drt_world_free(DrtWorld *w);

DrtErrors *drt_world_errors(DrtWorld *w);
DrtStage drt_world_stage(const DrtWorld *w);
void *drt_world_globals(const DrtWorld *w);
void drt_world_set_verbose(DrtWorld *w, bool v);
/* -trace: write to f (NULL: nothing) a line "STEP ID EVENT WHERE" for each
 * strand that stabilizes, dies or is born (rt_trace.c, doc/user-guide.md).
 * The run then goes super-step by super-step (not strand by strand) so
 * that every event has its step. The caller owns f. */
void drt_world_set_trace(DrtWorld *w, FILE *f);
bool drt_world_verbose(const DrtWorld *w);

/* Parallel execution: parallel_for NULL means sequential. nworkers is
 * handed to parallel_for; chunk is the number of strands per chunk (0:
 * the schedule's, see below; nonzero: as drt_world_set_schedule's chunk).
 * Callable before the first run. */
void drt_world_set_parallel(DrtWorld *w, DrtParallelFor pfor, uint32_t nworkers,
                            uint32_t chunk);
uint32_t drt_world_nworkers(const DrtWorld *w);

/* ---- one world over several processes (--target=mpi, rt_mpi.c) ----
 *
 * Every process holds the whole world (the same globals, the same strands
 * in the same slots) and runs only the chunks it owns; between the phases
 * of a step the owners' results are copied to every process, so that each
 * one continues from the same world, exactly as one process would. What
 * is exchanged (rt_distrib.c): after the start and update phases, every
 * chunk's stabilize/die counts, status and fresh flags and the strands its
 * `new` made (and whether some process failed, with its errors); before
 * strands move (dying strands of a collection squeezed out) and at the end
 * of a run, the strands' states; in a reduction, the per-chunk partials,
 * combined in chunk order on every process, so results are those of one
 * process whatever the number of processes; when the transport rebalances
 * (a process holds too much of the remaining work), the states of the
 * chunks that change owner. Reads of other strands' state and spatial
 * queries are not distributed (diderotc refuses them). The transport is
 * the caller's (rt_mpi.c: MPI collectives). */
typedef struct DrtDistrib {
  void *ctx;
  /* whether this process runs chunk c of nchunks (the same answer for
   * the same arguments on every process) */
  bool (*owns)(void *ctx, uint32_t c, uint32_t nchunks);
  /* on every process: the `size` bytes at buf + c*size of every chunk c
   * become those of c's owner (a collective call) */
  void (*share)(void *ctx, void *buf, size_t size, uint32_t nchunks);
  /* the same with a size per chunk: chunk c's sizes[c] bytes follow those
   * of the chunks before it in buf (a collective call; sizes the same on
   * every process) */
  void (*share_var)(void *ctx, void *buf, const uint64_t *sizes, uint32_t nchunks);
  /* a collective: whether any process failed; when one did, e holds the
   * errors of the lowest failing process, on every process */
  bool (*agree)(void *ctx, DrtErrors *e, bool failed);
  /* Optional (NULL: chunks stay where owns first put them). Between
   * super-steps, from the active strands of every chunk (the same array on
   * every process, so every process decides alike, without talking):
   * whether chunks move to even out the remaining work. Returns how many
   * move, listed in chunk order in chunks[] (room for nchunks), with
   * role[k] DRT_MOVE_OUT where this process gives chunks[k] up,
   * DRT_MOVE_IN where it takes it over, 0 otherwise; from then on owns
   * answers with the new owners. */
  uint32_t (*rebalance)(void *ctx, const uint32_t *active, uint32_t nchunks, uint32_t *chunks,
                        unsigned char *role);
  /* a collective after a rebalance that moved n chunks: the `size`-byte
   * slices buf + k*size filled where role[k] is DRT_MOVE_OUT arrive where
   * it is DRT_MOVE_IN (on the chunk's new owner) */
  void (*move)(void *ctx, void *buf, size_t size, uint32_t n);
  /* Optional (NULL: strand code's prints were written as they came). A
   * collective at the end of every step's update phase, before anything
   * else is exchanged, and in drt_world_map_share before the values: the
   * texts that the step's start, update and stabilize methods (or the
   * reduction's map) printed go out in strand order (rt_mpi_print.c). */
  void (*prints)(void *ctx);
  /* Optional (NULL: each process acts on its own signals). A collective
   * at the end of every step, before anything else: given the SIGINT or
   * SIGTERM this process caught (0: none), the one to act on, the same on
   * every process (the largest caught anywhere), so that every process
   * stops after the same step (rt_exec.c). */
  int (*stop)(void *ctx, int sig);
  /* Optional (NULL: drt_world_distrib_gather shares instead). share's
   * slices gathered on process 0 alone (a collective); true on the
   * process that received them. */
  bool (*gather)(void *ctx, void *buf, size_t size, uint32_t nchunks);
} DrtDistrib;

/* A distributed world whose strand state holds dynamic sequences
 * (diderotc --target=mpi gives them to drt_mpi_world_run): a packed
 * record's sequences are pointers into one process's memory, so a record
 * that goes to another process takes their elements along
 * (rt_distrib_seq.c), and its strings their bytes. pack writes what every
 * pointer of the record rec points at (elements of sequences, nested
 * ones after them; strings as drt_str_pack writes them), one after
 * another, to out (NULL: only counts them) and returns their bytes;
 * unpack puts them (read from in, as pack wrote them) into sequences and
 * strings of world w, points rec's pointers at them and sets *used to the
 * bytes it read; true when out of memory (the error recorded in w).
 * NULL, NULL: none. Such a world is not rebalanced (the elements would
 * have to come from the chunks' old owners). */
typedef uint64_t (*DrtSeqPack)(const void *rec, unsigned char *out);
typedef bool (*DrtSeqUnpack)(DrtWorld *w, void *rec, const unsigned char *in, uint64_t *used);
void drt_world_set_seq_codec(DrtWorld *w, DrtSeqPack pack, DrtSeqUnpack unpack);
/* For the codec: the string whose pointer is at src (an unaligned
 * place in a record) as its length (4 bytes) and bytes, written at out
 * unless NULL; returns the bytes. drt_str_unpack reads one at in + *n,
 * stores w's copy of it (one per distinct text, kept until the world is
 * freed: a program's strings are its literals, inputs and globals) at
 * dst and adds its bytes to *n; true when out of memory (recorded in w). */
uint64_t drt_str_pack(const void *src, unsigned char *out);
bool drt_str_unpack(DrtWorld *w, const unsigned char *in, void *dst, uint64_t *n);

enum { DRT_MOVE_OUT = 1, DRT_MOVE_IN = 2 };

/* Reductions over strands in global blocks (generated code) combine the
 * map's values of every strand in storage order, as one loop (the same
 * bits for any number of threads or processes). In a distributed world
 * each process computes the values of the strands it owns: map_values
 * gives a buffer of one esz-byte value per slot (world scratch, valid
 * until the next call; a collective: NULL on every process, with the
 * error agreed, when one could not allocate it), map_owns says whether
 * this process computes slot i, and map_share (a collective) fills the
 * other slots from their owners, after the texts the maps printed
 * (DrtDistrib.prints). Without a distribution map_owns is always true and
 * map_share does nothing. */
void *drt_world_map_values(DrtWorld *w, size_t esz);
bool drt_world_map_owns(const DrtWorld *w, uint32_t i);
void drt_world_map_share(DrtWorld *w, void *vals, size_t esz);

/* Spread w's chunks as d says (NULL: this process runs them all); before
 * the first run. d must outlive the world. */
void drt_world_set_distrib(DrtWorld *w, const DrtDistrib *d);
/* A collective: every strand's state from its chunk's owner, so that any
 * process (the one writing outputs) holds the whole result. */
void drt_world_distrib_sync(DrtWorld *w);
/* The same on process 0 alone (DrtDistrib.gather), for a world that ends
 * there: the other processes keep only their own chunks' states, and must
 * not read the others' (an executable's last step, whose outputs process
 * 0 writes). A world with sequences in its state is synced on every
 * process (their elements travel by share_var). */
void drt_world_distrib_gather(DrtWorld *w);

/* ---- the run-time schedule (doc/user-guide.md "Schedules") ----
 *
 * The decisions of a run that need no other code (diderotc's schedule
 * record, src/schedule): the chunk (strands per work unit, the unit of
 * parallel_for and of the per-chunk bookkeeping above), the updates of one
 * strand per visit where the program may run strand by strand
 * (DrtProgram.strandwise), and the snapshot writer thread. In every field
 * 0 means "no choice here", so the levels overlay, lowest first:
 *
 *   1. the runtime's defaults: the layout's chunk (256), every update of a
 *      strand in one visit when strand-wise (else one per super-step), a
 *      writer thread when the process may use two CPUs;
 *   2. the program's own (drt_world_set_program_schedule: what diderotc
 *      prints for a non-default schedule);
 *   3. the environment, DIDEROT_SCHED_CHUNK, DIDEROT_SCHED_STEPS,
 *      DIDEROT_SCHED_WRITER and DIDEROT_SCHED_OMP, which an executable's
 *      -schedule "KEY=VALUE ..." option and its -sched-chunk, -sched-steps
 *      and -sched-writer options set (rt_cli.c);
 *   4. drt_world_set_schedule (a host program's choice).
 *
 * The schedule is fixed when the first run begins (drt_world_run or
 * drt_world_external_begin) and checked against the program then: a chunk
 * must be a multiple of the layout's pad (the AoSoA width), at most
 * DRT_SCHED_MAX_CHUNK; steps above 1 need a strand-wise program. A bad
 * value is an error of that run (the world's DrtErrors), naming where it
 * came from.
 *
 * What the values can change: the chunk orders the strands that `new`
 * creates in both start and update (by the creator's chunk, then phase),
 * and a real sum, product or mean over strands adds its per-chunk
 * partials in chunk order (float reassociation); nothing else. Steps per
 * visit and the writer change no result (strand-wise runs are only
 * allowed where no strand can tell; the writer saves the same bytes). */
typedef enum DrtSchedWriter {
  DRT_WRITER_AUTO = 0, /* a writer thread with two CPUs or more */
  DRT_WRITER_ON = 1,   /* always a writer thread */
  DRT_WRITER_OFF = 2   /* snapshots saved in place by the main thread */
} DrtSchedWriter;

enum { DRT_SCHED_MAX_CHUNK = 1 << 30 };

/* The OpenMP loop schedule of the chunks (omp-schedule), chunks handed
 * out one at a time in every kind. DRT_OMP_DEFAULT: the kind compiled into
 * the program's parallel_for. The others need the program to have given
 * the loop in every kind (drt_world_set_parallel_kinds). */
typedef enum DrtSchedOmp {
  DRT_OMP_DEFAULT = 0,
  DRT_OMP_DYNAMIC = 1,
  DRT_OMP_STATIC = 2,
  DRT_OMP_GUIDED = 3
} DrtSchedOmp;

typedef struct DrtSchedule {
  uint32_t chunk;        /* strands per chunk; 0: the default */
  uint32_t steps;        /* updates per visit; 0: the default; 1: super-steps */
  DrtSchedWriter writer; /* DRT_WRITER_AUTO: the default */
  DrtSchedOmp omp;       /* DRT_OMP_DEFAULT: the program's parallel_for */
} DrtSchedule;

/* The program's parallel_for in each OpenMP kind (generated OpenMP
 * programs give them after drt_world_set_parallel): the run's omp value,
 * when not DRT_OMP_DEFAULT, picks one as the run begins. */
void drt_world_set_parallel_kinds(DrtWorld *w, DrtParallelFor dynamic_kind,
                                  DrtParallelFor static_kind, DrtParallelFor guided_kind);

/* Levels 2 and 4 above; s NULL clears the level. True (and an error) when
 * the world has begun running, or on a value out of range. */
bool drt_world_set_program_schedule(DrtWorld *w, const DrtSchedule *s);
bool drt_world_set_schedule(DrtWorld *w, const DrtSchedule *s);
/* The schedule of the run: fixed once it began, else what it would be
 * now (levels 1-4, the defaults filled in: chunk and steps are never 0
 * here, steps UINT32_MAX for "all"). True (and an error) when the
 * environment holds a bad value. */
bool drt_world_schedule(DrtWorld *w, DrtSchedule *out);
/* drt_writer_new under the world's schedule (drt_writer_new itself reads
 * only the environment: it knows no world). */
DrtWriter *drt_world_writer_new(DrtWorld *w);

/* ---- the stage machine (§7.3) ---- */

/* POST_NEW → POST_INIT ("multiple calls to init_world"). */
bool drt_world_init(DrtWorld *w);
/* Check that create_strands may run (POST_INIT; "must call init_world
 * before create_strands", "multiple calls to create_strands"). */
bool drt_world_create_begin(DrtWorld *w);
/* Declare the initial strands a grid of naxes iterator sizes (slowest
 * first); call between create_begin and create_end. Without it the
 * strands form a collection. */
bool drt_world_set_grid(DrtWorld *w, unsigned naxes, const size_t *sizes);
/* Append one initial strand (active, fresh) and return its zeroed state
 * for the generated initialisation; the pointer is valid until the next
 * call. NULL when out of memory (an error is recorded). */
void *drt_world_create_strand(DrtWorld *w);
/* → POST_CREATE; a grid must have exactly the product of its sizes. */
bool drt_world_create_end(DrtWorld *w);

/* Run up to max_steps super-steps (0: no limit); returns the number
 * taken. The first call runs the global start block. Returns 0 when the
 * world is done, and 0 with an error when it has no strands yet
 * ("attempt to run uninitialized program"). */
uint32_t drt_world_run(DrtWorld *w, uint32_t max_steps);

/* Progress of runs (the terminal display of executables, the library's
 * NS_set_progress_cb): fn(data, step, nactive, nstable, elapsed) is called
 * by drt_world_run after a super-step when at least `interval` seconds have
 * passed since its last call (0: after every step), and once more as the
 * run returns unless the last call already reported its final step. step
 * is drt_world_total_steps (so it never decreases), elapsed the seconds
 * since this drt_world_run began. When fn returns true the run stops after
 * that step (strands stay active; a later run continues). fn NULL: none. */
typedef bool (*DrtProgressFn)(void *data, uint32_t step, uint32_t nactive, uint32_t nstable,
                              double elapsed);
void drt_world_set_progress(DrtWorld *w, DrtProgressFn fn, void *data, double interval);

/* The progress line of an executable whose stderr is a terminal
 * (rt_progress.c): "PROG: step N, A active, S stable, T s[, about E s
 * left]", redrawn in place, first after half a second (a short run prints
 * nothing), at most four times a second. begin returns false, and sets
 * nothing, when f is not a terminal, or when `also` (the stream the
 * program's print statements write to, NULL when it has none) is one: a
 * line printed there would be mixed into the progress line; otherwise it
 * installs itself as w's progress function. limit is the run's step limit
 * (0: none), for the estimate. end erases the line (call it before
 * anything else is printed, and before t is gone). */
typedef struct DrtTtyProgress {
  FILE *f;
  const char *prog;
  uint32_t limit;
  double t0;            /* when begin was called */
  unsigned width;       /* of the terminal, or 80 */
  unsigned shown;       /* characters of the line drawn now (0: none) */
} DrtTtyProgress;
bool drt_progress_tty_begin(DrtTtyProgress *t, DrtWorld *w, FILE *f, FILE *also,
                            const char *prog, uint32_t limit);
void drt_progress_tty_end(DrtTtyProgress *t);

/* ---- queries ---- */
uint32_t drt_world_nstrands(const DrtWorld *w); /* alive: active + stable */
uint32_t drt_world_nactive(const DrtWorld *w);
uint32_t drt_world_nstable(const DrtWorld *w);
uint32_t drt_world_total_steps(const DrtWorld *w);
/* Storage slots (alive strands plus, mid-step, dying ones). */
uint32_t drt_world_nslots(const DrtWorld *w);
unsigned char drt_world_status(const DrtWorld *w, uint32_t id);
/* NULL with a DrtStateLayout (use the store and the layout instead). */
void *drt_world_state(const DrtWorld *w, uint32_t id);
/* Start-of-step state of strand id (the current state when the program
 * does not share state); NULL with a DrtStateLayout. */
const void *drt_world_in_state(const DrtWorld *w, uint32_t id);
/* With a DrtStateLayout: the store, its start-of-step copy (the store
 * itself when the program does not share state or outside a step), and
 * the capacity in slots that the layout's index expressions use. Stable
 * during a step's phases and global blocks. */
void *drt_world_store(const DrtWorld *w);
const void *drt_world_in_store(const DrtWorld *w);
uint32_t drt_world_capacity(const DrtWorld *w);
bool drt_world_is_grid(const DrtWorld *w);
unsigned drt_world_grid_axes(const DrtWorld *w, const size_t **sizes);

/* ---- effects from strands and global blocks ---- */

/* `new`: a zeroed state for the strand being created by `creator` (the
 * strand running in ctx), valid until the next call in the same chunk;
 * NULL when out of memory. It becomes visible after the step. Also
 * allowed in the global update block (ctx->chunk is then ignored). */
void *drt_world_new_strand(DrtCtx *ctx, uint32_t creator);
/* Global `stabilize` / `die` (§6.3): every active strand now. */
void drt_world_stabilize_all(DrtWorld *w);
void drt_world_kill_all(DrtWorld *w);

/* A probe without border control whose kernel support is not inside the
 * image (doc/language.md §6.4): records "strand ID: probe of a field outside
 * its image 'NAME' ..." (strand: the id, drt_world_strand_id; < 0: outside a strand) in the world's
 * errors, once per world (the first one, any thread); the run stops after
 * the current step and refuses to go on. n: the base index per axis, x:
 * the world position (NULL when unknown), size: the image's axis sizes,
 * line: the source line (0: unknown). Safe from parallel strands. */
#if defined(__GNUC__)
__attribute__((cold)) /* the branch to it is unlikely: the compiler lays it out so */
#endif
void drt_world_probe_error(DrtWorld *w, long long strand, const char *name, int line,
                           const int *size, int d, const long long *n, const double *x);
/* s[i] with i outside 0..n-1 (index_fail; tensor: a tensor's index outside
 * its axis of size n, at line:col): recorded as a probe error is. */
#if defined(__GNUC__)
__attribute__((cold))
#endif
void drt_world_index_error(DrtWorld *w, long long strand, int line, int col, int tensor, long long i,
                           long long n);
/* Whether a run-time error of the program (above) stopped the world. */
bool drt_world_failed(const DrtWorld *w);
/* Stop the world after an error recorded elsewhere (a sequence file that
 * cannot be loaded in strand code): as a probe error does. */
void drt_world_fail(DrtWorld *w);

/* ---- reductions over strand sets (global blocks) ---- */
typedef double (*DrtMapReal)(void *env, uint32_t id, const void *state);
typedef int64_t (*DrtMapInt)(void *env, uint32_t id, const void *state);
/* Whether strand id belongs to set. */
bool drt_world_in_set(const DrtWorld *w, uint32_t id, DrtSet set);
/* Reduce map(id) over the set, in fixed chunks combined in chunk order.
 * The _float form rounds every partial to float (the program's real type
 * is float), the _double form keeps doubles. all/exists read the map's
 * value as a truth value. mean of nothing is NaN (doc/differences.md, Q20). */
float drt_world_reduce_float(DrtWorld *w, DrtSet set, DrtReduce op, DrtMapReal map, void *env);
double drt_world_reduce_double(DrtWorld *w, DrtSet set, DrtReduce op, DrtMapReal map, void *env);
int64_t drt_world_reduce_int(DrtWorld *w, DrtSet set, DrtReduce op, DrtMapInt map, void *env);

/* ---- outputs and snapshots (§6.5, §8.8) ---- */

/* The strands an output covers: a grid (every slot), the stable strands
 * of a collection, or with `snapshot` every alive strand. dom->sizes
 * points into the world. */
void drt_world_output_domain(const DrtWorld *w, bool snapshot, DrtDomain *dom);
/* Whether strand id is written by such an output. */
bool drt_world_output_includes(const DrtWorld *w, uint32_t id, bool snapshot);

/* ---- super-steps run elsewhere (the CUDA target, rt/cuda) ---- */

/* Progress reports (drt_world_set_progress) of such a run, as
 * drt_world_run makes them: begin as it starts, step after each super-step
 * with the total step number and the counts (true: stop the run there),
 * end as it returns. No-ops when no progress function is set. */
void drt_world_progress_begin(DrtWorld *w);
bool drt_world_progress_step(DrtWorld *w, uint32_t step, uint32_t nactive, uint32_t nstable);
void drt_world_progress_end(DrtWorld *w, uint32_t step, uint32_t nactive, uint32_t nstable);

/* The checks of drt_world_run before a run whose steps another engine
 * executes: true (with an error when uninitialized) when it must not run
 * (also when the world is done); POST_CREATE becomes RUNNING with *first
 * set (the caller runs the global start block). */
bool drt_world_external_begin(DrtWorld *w, bool *first);
/* The packed record (state_size bytes) of strand id. */
void drt_world_external_get(const DrtWorld *w, uint32_t id, void *packed);
/* Replace every strand by n packed records with their status, fresh
 * flags and ids (in storage order; next_id: the next strand's id),
 * recount, add `steps` to the step count and finish the run stage when no
 * strand is active. True on error. */
bool drt_world_external_sync(DrtWorld *w, uint32_t n, const void *packed,
                             const unsigned char *status, const unsigned char *fresh,
                             const uint32_t *ids, uint32_t next_id, uint32_t steps);
/* The id of the strand in storage slot `slot`: its place in creation order
 * (slots move when a collection's dead strands go; ids do not), as the
 * run-time errors name strands; and the id the next strand will get. */
long long drt_world_strand_id(const DrtWorld *w, uint32_t slot);
uint32_t drt_world_next_id(const DrtWorld *w);
/* The chunk size: strands created by `new` are ordered by the creator's
 * chunk, then phase (start before update), then creator and order. */
uint32_t drt_world_chunk(const DrtWorld *w);

/* OpenMP executables (rt_omp.c), from a constructor before main: unless
 * the user chose a wait policy, run the program again with
 * OMP_WAIT_POLICY=passive, so idle threads sleep at the super-step barrier
 * instead of spinning (they collapse a loaded machine otherwise). */
void drt_omp_default_wait_policy(void);

#ifdef __cplusplus
}
#endif

#endif
