/* rt_internal.h -- helpers shared by the runtime's source files (not
 * installed). */
#ifndef DIDEROT_RT_INTERNAL_H
#define DIDEROT_RT_INTERNAL_H

#include "diderot_rt.h"
#include "diderot_world.h" /* DrtSchedule, DrtWorld */

/* Append from's errors and warnings to to's, in order, and free from
 * (the writer thread's messages joining the program's). */
void drt_errors_move(DrtErrors *to, DrtErrors *from);

/* Whole output files in memory, for the snapshot writer (rt_writer.c):
 * drt_output_plain says whether FILE would be saved as one NRRD stream
 * through a temporary file (a new name or a regular file that is not our
 * stdout or stderr; not "-", a link, a special file, another format or
 * a detached header); drt_output_to_memory writes what
 * drt_output_save_parts would write to such a file into *bytes (malloc'd;
 * the file's nbytes start *skip bytes in, so that the values are
 * aligned); drt_output_save_bytes saves bytes under the rules of
 * drt_output_save. */
bool drt_output_plain(const char *file);
bool drt_output_to_memory(DrtErrors *e, const char *what, const char *file, Nrrd *head,
                          size_t item_bytes, DrtOutFill fill, void *ctx, char **bytes,
                          size_t *skip, size_t *nbytes);
bool drt_output_save_bytes(DrtErrors *e, const char *what, const char *file,
                           const char *bytes, size_t nbytes);

/* A numeric scalar Teem type (not block, not unknown). */
bool drt_type_ok(int type);
/* Teem's name for a type, or "unknown". */
const char *drt_type_name(int type);
/* Load FILE into a new Nrrd (NULL and an error on failure). */
Nrrd *drt_load_nrrd(DrtErrors *e, const char *what, const char *file);
/* After a failed load: 1 and a reason in the user's terms in msg (the file
 * is missing, empty, not NRRD, truncated: expected and found sizes), or 0
 * when none of those explains it (rt_nrrd_explain.c). */
int drt_nrrd_explain(const char *file, char *msg, size_t len);
/* Otherwise: the innermost cause of Teem's error chain `biff`, without
 * Teem's function names (biff is modified). */
void drt_nrrd_reason(char *biff, char *msg, size_t len);

/* size bytes aligned to align (a power of two, at least sizeof(void *)),
 * released by free(); arrays of megabytes are 2 MiB-aligned and marked for
 * transparent huge pages, so that first touch faults once per 2 MiB
 * instead of once per 4 KiB (rt_mem.c). */
void *drt_big_alloc(size_t align, size_t size);
enum { DRT_HUGE = 2u << 20 }; /* a transparent huge page (x86-64, arm64 4K) */
/* posix_memalign of size (0: align) bytes; NULL when out of memory. */
void *drt_alloc_aligned(size_t align, size_t size);
/* Grow an aligned big array from old_bytes to new_bytes (contents kept,
 * the old one freed); false, with *p unchanged, when out of memory. */
bool drt_grow_aligned(unsigned char **p, size_t align, size_t old_bytes, size_t new_bytes);
/* Touch the pages of fresh memory from the world's threads (pfor), so that
 * the kernel zeroes them on every core: for arrays of 8 MiB or more. */
void drt_mem_first_touch(DrtParallelFor pfor, uint32_t nworkers, unsigned char *p, size_t bytes);

/* ---- memory planning (rt_mem.c) ----
 * 64-bit arithmetic that saturates at UINT64_MAX instead of wrapping. */
uint64_t drt_mem_mul(uint64_t a, uint64_t b);
uint64_t drt_mem_add(uint64_t a, uint64_t b);
/* The strands of a grid: the product of its sizes (0 when one is 0). */
uint64_t drt_mem_grid_count(unsigned naxes, const size_t *sizes);
/* The capacity (slots) to hold `need` strands when `cap` are there: cap
 * itself when enough, else (exact) need rounded up to a multiple of pad,
 * or doubling from cap (from 64 or pad when 0), rounded to pad; never above
 * max rounded down to pad. 0 when need is above that. */
uint64_t drt_mem_grow_cap(uint64_t cap, uint64_t need, uint64_t pad, bool exact, uint64_t max);
/* Bytes of a world's arrays for cap slots whose states take state_bytes
 * (status, fresh flag and id per slot; states twice when shared). */
uint64_t drt_mem_world_bytes(uint64_t cap, uint64_t state_bytes, bool shared);
/* "4e10", "4.29e9", "12345"; "960 GB", "7.2 MB", "512 bytes" (decimal units). */
void drt_mem_count_text(char *buf, size_t n, uint64_t count);
void drt_mem_bytes_text(char *buf, size_t n, uint64_t bytes);

/* What this process may still allocate (bytes; UINT64_MAX: no limit
 * known) and the limit that says so, in the user's terms. */
typedef struct DrtMemRoom {
  uint64_t bytes;
  const char *limit;
} DrtMemRoom;
/* Read under root ("" for the real /proc and /sys; a made-up tree in the
 * tests), with the soft RLIMIT_AS and RLIMIT_DATA (UINT64_MAX: none). */
DrtMemRoom drt_mem_room_at(const char *root, uint64_t rlim_as, uint64_t rlim_data);
DrtMemRoom drt_mem_room(void);
/* "COUNT THINGS of B bytes need N; this process may use R (LIMIT)", or
 * with failed "out of memory: ... the allocation failed (...)"; returns
 * what snprintf returns. */
int drt_mem_describe(char *buf, size_t n, uint64_t count, const char *things, uint64_t bytes,
                     const DrtMemRoom *room, bool failed);
/* The slots to allocate for `need` strands (things) when cap are there:
 * exactly need rounded up to pad (exact: a grid, allocated once), else
 * doubling, or as much as the room holds when a doubling does not fit,
 * but at least an eighth more than cap (a strand at a time every strand
 * would be copied each time). bytes(ctx, n): what n slots take. 0, with
 * the message in e, when need is above max or what it takes does not fit
 * the room (room->limit NULL: read drt_mem_room when needed). Pure given a
 * room: the unit tests plan 2^32 strands without allocating them. */
typedef struct DrtMemPlan {
  uint64_t cap, need, pad, max;
  bool exact;
  uint64_t (*bytes)(const void *ctx, uint64_t n);
  const void *ctx;
  const char *things;
} DrtMemPlan;
uint64_t drt_mem_plan(DrtErrors *e, const DrtMemPlan *p, DrtMemRoom *room);
/* Allocations from this size on are compared with drt_mem_room first. */
#define DRT_MEM_CHECK_BYTES ((uint64_t)64 << 20)
/* True, with that message (prefixed "WHAT: " when what is set) in e, when
 * `bytes` for `count` things do not fit the room (or not size_t). */
bool drt_mem_refuse(DrtErrors *e, const char *what, uint64_t count, const char *things,
                    uint64_t bytes);
/* Stop the world after an error; true for the first caller (of any
 * thread), which reports it. */
bool drt_world_fail_first(DrtWorld *w);
/* The message after an allocation of `bytes` failed. */
void drt_mem_failed(DrtErrors *e, const char *what, uint64_t count, const char *things,
                    uint64_t bytes);

/* The run-time schedule's values (rt_schedule.c; DrtSchedule is in
 * diderot_world.h). Keys: chunk, steps, writer. drt_sched_value parses
 * one value's text into its field of *s (true, with why, when bad);
 * drt_sched_env overlays the environment's DIDEROT_SCHED_* (true after
 * an error in e, which may be NULL); drt_sched_overlay copies from's
 * nonzero fields; drt_sched_cli checks -sched-NAME TEXT and puts it in
 * the environment (true, with why, when bad). */
enum { DRT_SCHED_CHUNK, DRT_SCHED_STEPS, DRT_SCHED_WRITER, DRT_SCHED_OMP, DRT_SCHED_NKEYS };
/* -schedule TEXT: KEY=VALUE words (spaces or commas between them) with the
 * schedule file's run-time keys (chunk, steps-per-visit, omp-schedule,
 * snapshot-writer), each checked as drt_sched_value does and against what
 * the executable is (parallel: an OpenMP one; snapshot: with snapshots);
 * all put in the environment when every one is good. True, with why, on
 * the first bad word (which it names). */
bool drt_sched_text(const char *text, bool parallel, bool snapshot, char *why, size_t n);
int drt_sched_key(const char *name);
const char *drt_sched_env_name(int key);
bool drt_sched_value(int key, const char *text, DrtSchedule *s, char *why, size_t n);
bool drt_sched_env(DrtSchedule *s, DrtErrors *e);
void drt_sched_overlay(DrtSchedule *to, const DrtSchedule *from);
bool drt_sched_cli(const char *name, const char *text, char *why, size_t n);
/* A world's run-time schedule (rt_schedule.c; one per world in
 * rt_world.c): the program's and the host's levels, and the values of the
 * run (run.chunk, run.steps with UINT32_MAX for all, run.writer), which
 * are the levels' before the first run and fixed as it begins. */
typedef struct DrtSchedState {
  DrtSchedule prog, api, run;
  uint32_t lay_chunk;  /* the layout's chunk (0: none) */
  bool fixed;
} DrtSchedState;
/* What the schedule is checked against: whether the program may run strand
 * by strand, whether it runs already, the layout's pad and chunk. */
typedef struct DrtSchedFacts {
  bool strandwise, running;
  bool omp_kinds; /* the program gave its loop in every OpenMP kind */
  uint32_t pad, lay_chunk;
} DrtSchedFacts;
void drt_sched_init(DrtSchedState *st, uint32_t lay_chunk);
void drt_sched_host_chunk(DrtSchedState *st, uint32_t chunk);
/* rt_world.c: a world's state and facts, and where its errors go */
DrtSchedState *drt_world_sched(DrtWorld *w, DrtSchedFacts *f, DrtErrors **err);
/* As the first run begins (true after an error: the run must not begin). */
bool drt_world_sched_fix(DrtWorld *w);
/* The writer choice of the environment, and of a world's schedule
 * (DRT_WRITER_AUTO when unset or bad), and a writer under a given one
 * (rt_writer.c). */
int drt_sched_env_writer(void);
int drt_world_sched_writer(DrtWorld *w);
DrtWriter *drt_writer_new_mode(int writer);

/* A monotonic clock in seconds (rt_progress.c). */
double drt_seconds(void);

/* The world's heap of dynamic sequences (rt_seqheap.c): allocation from
 * any thread; between steps begin, mark every live buffer (mark returns
 * true the first time, so nested sequences are traversed once), sweep. */
typedef struct DrtSeqHeap DrtSeqHeap;
DrtSeqHeap *drt_seqheap_new(void);
void drt_seqheap_free(DrtSeqHeap *h);
void *drt_seqheap_alloc(DrtSeqHeap *h, size_t bytes);
/* a (na bytes) followed by b (nb bytes): a's buffer extended in place
 * where that is safe (rt_seqheap.c), else a new one; NULL when out of
 * memory */
void *drt_seqheap_join(DrtSeqHeap *h, const void *a, size_t na, const void *b, size_t nb);
bool drt_seqheap_due(const DrtSeqHeap *h);
size_t drt_seqheap_bytes(const DrtSeqHeap *h); /* held now, headers included */
bool drt_seqheap_begin(DrtSeqHeap *h);
bool drt_seqheap_mark(DrtSeqHeap *h, const void *p);
void drt_seqheap_sweep(DrtSeqHeap *h);

/* ---- executables (rt_exec.c) ----
 * drt_cli_parse calls drt_exec_begin: the process is an executable named
 * prog, whose first SIGINT/SIGTERM stops the run (drt_interrupted: that
 * signal, 0 before one; always 0 in a library) and which ends by that
 * signal at exit. */
void drt_exec_begin(const char *prog);
const char *drt_exec_prog(void);
int drt_interrupted(void);
/* A rank of an MPI job: drt_interrupted answers only what
 * drt_interrupt_agreed was told (the signal every rank agreed on at the
 * end of a step, from each one's drt_interrupt_caught). */
void drt_exec_agree_interrupts(void);
int drt_interrupt_caught(void);
void drt_interrupt_agreed(int sig);
const char *drt_signal_name(int sig);
/* After an interrupt: true, and (unless *told) the message "stopped by
 * SIGINT after step N; ..." (step UINT32_MAX: while creating strands). */
bool drt_interrupt_stop(DrtErrors *e, bool *told, uint32_t step);

/* ---- temporaries (rt_tmpfile.c) ----
 * An unnamed file in target's directory (O_TMPFILE), or -1 with errno
 * where there is none; drt_tmp_link names it (linkat; EEXIST when the
 * name exists); drt_tmp_name is the temporary name for target
 * ("TARGET.diderot-PID-K.tmp", malloc'd); drt_tmp_sweep removes the
 * temporaries of dead processes from target's directory (once per
 * directory and process; drt_tmp_sweep_dir: now, the tests' entry);
 * drt_tmp_set_unnamed(false) makes saves use named temporaries, as on
 * file systems without O_TMPFILE (for the tests). */
int drt_tmp_open_unnamed(const char *target);
/* Save nrrd as the detached header `file` (".nhdr") and its data file,
 * both replaced as one (rt_nhdr.c); true after an error in e. */
/* The file at the end of path's symbolic links (malloc'd; NULL with errno
 * on error); *magic: a /proc link was followed (rt_output.c). */
char *drt_output_follow_links(const char *path, bool *magic);
bool drt_nhdr_save(DrtErrors *e, const char *what, const char *file, const Nrrd *nrrd,
                   NrrdIoState *nio);
int drt_tmp_link(int fd, const char *name);
char *drt_tmp_name(const char *target, unsigned k);
void drt_tmp_sweep(const char *target);
void drt_tmp_sweep_dir(const char *dir);
void drt_tmp_set_unnamed(bool on);

#endif
