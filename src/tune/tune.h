/* tune.h -- the auto-tuner of run-time schedules (diderotc --tune) and its
 * cache (shared/docs/MDH.md §3.5; doc/user-guide.md "Tuning").
 *
 * The parameters a generated executable reads at run time (chunk,
 * omp-schedule, steps-per-visit; rt_schedule.c) are searched through one
 * build's -schedule option, with no recompiling; --tune=full first tries
 * the structural keys a back end build of the same LowIR can change
 * (strand-layout, simd), each built once by the driver (TuneRunner.build).
 * Four files, each one concern:
 *
 *   tune_inputs.c  the inputs' signature (files by their shape) and the
 *                  distance of two signatures (the nearest entry);
 *   tune_cache.c   the key (program, target, CPU and cores, precision,
 *                  inputs), the cache file: written atomically, read
 *                  back only when its checksum, format and key all match;
 *   tune_run.c     one run of the program on the user's arguments in a
 *                  directory of its own, timed, its outputs compared byte
 *                  for byte with the default schedule's;
 *   tune_search.c  the candidates and the coordinate descent (quick).
 *
 * This module reads no environment: the driver reads it once and passes
 * what is needed (TuneEnv). It knows the schedule record (src/schedule)
 * and src/util only; the driver builds the executable and hands its path.
 */
#ifndef DIDEROT_TUNE_TUNE_H
#define DIDEROT_TUNE_TUNE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "schedule/schedule.h"
#include "util/arena.h"

/* What the driver read once from the environment and the machine. */
typedef struct TuneEnv {
  const char *cache_dir;  /* $XDG_CACHE_HOME/diderot/tune or $HOME/.cache/diderot/tune; NULL: none */
  const char *tmp_dir;    /* $TMPDIR or /tmp */
  char *const *child_env; /* the environment of the program's runs (DIDEROT_SCHED_* removed) */
  const char *cpu_model;  /* /proc/cpuinfo "model name" ("unknown" when unreadable) */
  int ncpus;              /* online CPUs */
} TuneEnv;

/* ---- the key and the cache (tune_cache.c) ------------------------------------------ */

typedef struct TuneKey {
  uint64_t program;       /* the source text and the options that change the code */
  const char *target;     /* "seq" or "omp" */
  const char *cpu;        /* CPU model */
  int ncpus;
  const char *precision;  /* "float" or "double", with ",long-int" */
  const char *inputs;     /* tune_inputs_signature of the arguments; NULL: any (newest) */
} TuneKey;

/* FNV-1a, 64 bits, over n bytes, continuing from h (start: TUNE_HASH_INIT). */
#define TUNE_HASH_INIT 0xcbf29ce484222325ull
uint64_t tune_hash(uint64_t h, const void *p, size_t n);
uint64_t tune_hash_str(uint64_t h, const char *s);

/* The signature of a program's arguments (outputs already removed): every
 * argument that names a readable file is its kind and shape (a NRRD's
 * type and sizes, another file's byte count), the others are verbatim.
 * Two runs with inputs of the same types and sizes share a cache entry. */
const char *tune_inputs_signature(Arena *a, char *const *args, int nargs);
/* How far apart two signatures are: the sum of |ln(x/y)| over the sizes in
 * which they differ (NRRD sizes of the same type and axis count, other
 * files' byte counts, positive numbers); 0 when equal; -1 when they differ
 * in anything else (another word, type, axis count or number of words). */
double tune_inputs_distance(const char *a, const char *b);

/* A tuned schedule: the run-time keys' values (chunk 0: not tuned) and,
 * from --tune=full, structural ones, which need a build of their own: the
 * strand-state layout and the SIMD mode (back-end choices over the same
 * LowIR; has_*: set, else the default's). */
typedef struct TuneChoice {
  uint32_t chunk;
  SchedOmpSchedule omp;
  bool has_omp;
  uint32_t steps;         /* SCHED_STEPS_ALL or 1..; with has_steps */
  bool has_steps;
  bool has_layout;
  SchedStrandLayout layout;
  int aosoa_width;        /* with SCHED_AOSOA */
  bool has_simd;
  SchedSimd simd;         /* SCHED_SIMD_WITHIN or SCHED_SIMD_STRANDS */
} TuneChoice;

/* The schedule-file text of a choice ("chunk = 64\nomp-schedule = static\n"). */
const char *tune_choice_file_text(Arena *a, const TuneChoice *c);
/* The -schedule option text of a choice's run-time keys ("chunk=64
 * omp-schedule=static"). */
const char *tune_choice_option_text(Arena *a, const TuneChoice *c);
/* The whole choice for messages: the option text, then the structural
 * keys ("chunk=64 strand-layout=soa simd=within"). */
const char *tune_choice_text(Arena *a, const TuneChoice *c);
/* Whether two choices build the same program (their structural keys). */
bool tune_choice_same_build(const TuneChoice *x, const TuneChoice *y);

/* A cache entry found (tune_cache_lookup). */
typedef struct TuneEntry {
  const char *path;
  const char *inputs;     /* the inputs it was tuned for */
  const char *when;       /* the time of tuning (UTC) */
  const char *measured;   /* the tuner's line on it */
  Schedule values;        /* the run-time keys (source SCHED_FILE, at path) */
} TuneEntry;

/* The cache file of key k (NULL without a cache directory or inputs). */
const char *tune_cache_path(Arena *a, const TuneEnv *env, const TuneKey *k);
/* The entry for k: with k->inputs the exact one, or when there is none and
 * nearest is true, the entry whose inputs are nearest (tune_inputs_distance;
 * comparable ones only, the newest of equals); without k->inputs the newest
 * entry of the program, target, CPU and precision. A file that is not one of ours,
 * truncated, changed, for another key or with values the schedule parser
 * refuses is ignored with a warning on warn ("diderotc: warning: schedule
 * cache 'PATH': WHY: ignored"). False when none is usable. */
bool tune_cache_lookup(Arena *a, const TuneEnv *env, const TuneKey *k, bool nearest,
                       TuneEntry *out, FILE *warn);
/* Write the entry of k atomically (a temporary file in the directory, then
 * rename): the cache directory is created if missing. False, with why,
 * on failure (nothing half-written is left). */
bool tune_cache_write(Arena *a, const TuneEnv *env, const TuneKey *k, const TuneChoice *c,
                      const char *measured, const char **path_out, char *why, size_t n);

/* ---- one run (tune_run.c) ---------------------------------------------------------- */

/* Split --tune-args text into words (spaces separate; '...' and "..." quote;
 * backslash escapes one character outside single quotes). False with why
 * on an unterminated quote. */
bool tune_split_args(Arena *a, const char *text, char ***words, int *nwords, char *why,
                     size_t n);
/* The arguments as the tuner runs them: output options (-o, -o-NAME,
 * --output..., -sp..., --snapshot-prefix...) and their values removed (each
 * run writes its outputs in its own directory), and every other argument
 * that names an existing file made absolute (the runs are elsewhere).
 * False with why when the arguments set the schedule themselves
 * (-schedule, -sched-*). */
bool tune_prepare_args(Arena *a, char **in, int nin, char ***out, int *nout, char *why,
                       size_t n);

/* Builds the executable of a choice's structural keys (--tune=full):
 * returns its path, or NULL with why. */
typedef const char *(*TuneBuild)(void *ctx, const TuneChoice *c, char *why, size_t n);

typedef struct TuneRunner {
  Arena *arena;
  const TuneEnv *env;
  const char *exe;        /* the default build's executable */
  TuneBuild build;        /* NULL: no structural candidates */
  void *build_ctx;
  char **args;
  int nargs;
  const char *work;       /* a fresh directory of the tuner's own */
  unsigned steps;         /* > 0: each run stops after this many super-steps (-l) */
  /* the reference: the default schedule's outputs (filled by the first run) */
  const char *ref_dir;
  double ref_seconds;
  int nruns;
} TuneRunner;

typedef enum TuneRunStatus { TUNE_RUN_OK, TUNE_RUN_FAILED, TUNE_RUN_DIFFERS } TuneRunStatus;

/* Run the program (exe: the default build's when NULL) once with
 * -schedule sched (NULL: the default, which becomes the reference the
 * first time). *seconds: the run's own --timing
 * (the whole process's wall time when it prints none). why: a failure or
 * the first difference from the reference. */
TuneRunStatus tune_run_once(TuneRunner *r, const char *exe, const char *sched, double *seconds,
                            char *why, size_t n);
/* Remove the tuner's work directory (its own files only). */
void tune_run_cleanup(TuneRunner *r);

/* ---- the search (tune_search.c) ---------------------------------------------------- */

typedef enum TuneMode { TUNE_OFF, TUNE_QUICK, TUNE_FULL } TuneMode;

/* What the candidates may be: from the default schedule of the program. */
typedef struct TuneSpace {
  bool omp;               /* omp-schedule applies */
  bool strandwise;        /* run = strandwise: steps-per-visit may vary */
  uint32_t pad;           /* chunks are multiples of it */
  TuneChoice deflt;       /* the compiled-in default */
  /* --tune=full with a builder: the strand layout may vary (the user set
   * none), and the SIMD mode (the default runs groups; none set) */
  bool layouts, groups;
  SchedStrandLayout layout; /* the default's */
  int aosoa_width;
} TuneSpace;

typedef struct TuneOutcome {
  TuneChoice best;
  double t_default, t_best; /* the minimum of the confirming runs */
  int runs, candidates, refused;
  double seconds;           /* the tuning's wall time */
  bool budget_hit;
  const char *refusal;      /* the first refused candidate's reason */
} TuneOutcome;

/* The space of a default schedule s (from schedule_defaults). */
void tune_space_of(const Schedule *s, TuneSpace *sp);
/* Search the space (coordinate descent for quick and full: full repeats
 * every timing more, tries more chunks and, first, the structural keys of
 * the space through r->build). log (may be NULL): one line per candidate.
 * False, with why, when the default schedule's own run fails. */
bool tune_search(TuneRunner *r, const TuneSpace *sp, TuneMode mode, double budget_s,
                 FILE *log, TuneOutcome *out, char *why, size_t n);

/* The choice into s as source src (SCHED_CACHE or SCHED_TUNER) with reason,
 * for the parameters that the user did not set (flag or file). */
void tune_apply(const TuneChoice *c, SchedSource src, const char *reason, Schedule *s);
/* A cache entry's values as a choice. */
void tune_choice_of_entry(const TuneEntry *e, TuneChoice *c);

#endif
