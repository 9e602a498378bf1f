/* schedule.h -- the schedule record: every per-program decision of the back
 * end and the runtime in one typed struct (shared/docs/MDH.md §3.3).
 *
 * Until this record, those decisions were implicit: booleans of
 * EmitOptions (backend/core/emit_options.h), heuristics spread through
 * src/backend (lanes/emit_c_simd.c, lanes/emit_c_loops.c,
 * program/emit_c_step.c, core/emit_c_layout.c, cuda/emit_cuda.h) and
 * constants of the runtime (rt_world.c, rt_writer.c, rt_omp.c). Here each
 * is one parameter with a value, where the value came from (a default, a
 * heuristic over the program, a command-line flag or a schedule file) and
 * a one-line reason, so that `--dump=schedule` can show them, a file can
 * set them (`--schedule=FILE`) and the constraint checker can refuse the
 * combinations the back end cannot print (ATF-style predicates, checked
 * before any code is generated).
 *
 * The order of filling (doc/user-guide.md "Schedules"):
 *
 *   schedule_init                  every parameter unset
 *   schedule_read_file (optional)  the file's keys        (source FILE)
 *   schedule_apply_flags           today's flags, which override the file (FLAG)
 *   schedule_defaults              the rest: today's defaults and heuristics
 *                                  over SchedFacts         (DEFAULT, HEURISTIC)
 *   schedule_check                 the constraints
 *   (driver_tune.c)                a tuner cache entry or --tune's winner over
 *                                  the run-time keys the user did not set
 *                                  (CACHE, TUNER; src/tune), checked again
 *
 * Defaults come last because they depend on what was set: the default chunk
 * is a whole number of AoSoA blocks, loops run in lanes only with vector
 * code, and so on.
 *
 * This module knows nothing of the IR or the back end (it uses src/util and
 * the layout module's parsers only): the back end
 * describes the program in a SchedFacts (what its analyses found) and
 * reads the decisions back (schedule_emit_bits gives today's EmitOptions
 * booleans, schedule_runtime_c the run-time part). One exception of
 * timing: image-layout is consumed by mid_to_low (MidToLowOptions.brick),
 * before LowIR exists, and therefore depends on no fact.
 */
#ifndef DIDEROT_SCHEDULE_SCHEDULE_H
#define DIDEROT_SCHEDULE_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/arena.h"

/* ---- what the back end knows of the program ------------------------------------- */

/* SCHED_TARGET_MPI: the OpenMP target per rank of an MPI job (--target=mpi):
 * the omp- keys apply to it too */
typedef enum SchedTarget { SCHED_TARGET_SEQ, SCHED_TARGET_OMP, SCHED_TARGET_CUDA, SCHED_TARGET_MPI } SchedTarget;

/* Filled by the back end's analyses of the LowIR module (the field comments
 * say where each is computed today). Zero is a valid "nothing known" for
 * every field but target. */
typedef struct SchedFacts {
  /* the compilation */
  SchedTarget target;
  bool exec;          /* --exec: an executable (else a library) */
  bool snapshot;      /* --snapshot */
  bool double_real;   /* --double */
  bool long_int;      /* --long-int */
  int vec_bytes;      /* the widest native vector in bytes (EmitOptions.vec_bytes; 0: 32) */
  /* the strand's update (lanes/emit_c_simd.c, program/emit_c_step.c) */
  bool has_update;    /* the strand has an update method (emit_step_chunked) */
  bool update_probes; /* it loads image samples: LOAD/VLOAD (plan_pays) */
  bool update_again;  /* an exit of it continues: it can run again (plan_pays) */
  bool update_sphere; /* it queries sphere() (plan_pays) */
  /* it can run in across-strand groups: plan_build found a plan (the
   * if-conversion); otherwise groups_why says why not (EmitCtx.simd_why) */
  bool update_groupable;
  const char *groups_why;
  /* what strand code (start, update, stabilize and the functions they call)
   * does: the conditions of strand-wise runs (emit_step_strandwise) */
  bool strand_new;    /* `new` */
  bool strand_print;  /* print (its output order is by super-step) */
  bool strand_sphere; /* sphere() queries */
  bool strand_counts; /* numStrands/numActive/numStable */
  bool strand_dseq;   /* builds dynamic sequences (collected between steps) */
  bool shared_state;  /* strands read other strands' state (IrStateVar.shared) */
  bool global_update; /* a global update block (IR_CFG_GLOBAL_UPDATE) */
  bool reads_changing_globals; /* strands read globals that the global update writes */
  /* what the chunk size can change (rt/diderot_world.h): strands created by
   * `new` in both the start and the update method are ordered by chunk,
   * and a real sum, product or mean over strands is added in chunk order */
  bool new_in_start, new_in_update;
  bool real_reductions;
  /* loops over sequences whose independent work pays for lanes, planned as
   * with vector code (emit_loops_planned with scalar off) */
  int loops_paying;
} SchedFacts;

/* ---- the parameters ----------------------------------------------------------- */

/* Keys of the schedule file and lines of --dump=schedule, in this order. */
typedef enum SchedParam {
  SCHED_P_STRAND_LAYOUT,   /* strand-layout = aos | soa | aosoa:W */
  SCHED_P_IMAGE_LAYOUT,    /* image-layout = linear | brick:B | halo:B */
  SCHED_P_SIMD,            /* simd = off | within | strands */
  SCHED_P_SIMD_WIDTH,      /* simd-width = auto | N (lanes per group) */
  SCHED_P_LOOP_LANES,      /* loop-lanes = on | off */
  SCHED_P_RUN,             /* run = bsp | strandwise */
  SCHED_P_STEPS,           /* steps-per-visit = all | N */
  SCHED_P_CHUNK,           /* chunk = N (strands per work chunk) */
  SCHED_P_OMP_SCHEDULE,    /* omp-schedule = dynamic | static | guided (omp) */
  SCHED_P_OMP_WAIT,        /* omp-wait = passive | system (omp executables) */
  SCHED_P_WRITER,          /* snapshot-writer = auto | on | off (executables with --snapshot) */
  SCHED_P_CUDA_BLOCK,      /* cuda-block = N (threads per block; cuda) */
  SCHED_P_COMPACTION,      /* compaction = always (cuda) */
  SCHED_P_MPI_PLACEMENT,   /* mpi-placement = block | cyclic (chunks on ranks; mpi) */
  SCHED_P_MPI_REBALANCE,   /* mpi-rebalance = off | R (the imbalance that moves chunks; mpi) */
  SCHED_NPARAMS
} SchedParam;

typedef enum SchedSource {
  SCHED_UNSET = 0,     /* not decided yet (before schedule_defaults) */
  SCHED_DEFAULT,       /* a fixed default of today's compiler or runtime */
  SCHED_HEURISTIC,     /* decided from the program (SchedFacts) */
  SCHED_FLAG,          /* a command-line flag */
  SCHED_FILE,          /* a --schedule file */
  SCHED_CACHE,         /* the tuner's cache (src/tune: an earlier diderotc --tune) */
  SCHED_TUNER          /* this compilation's --tune */
} SchedSource;

/* Where one parameter's value came from. */
typedef struct SchedWhy {
  SchedSource source;
  const char *reason;  /* one line, arena memory */
  /* SCHED_FILE: the value's position, for constraint errors */
  const char *file;
  int line, col;
  const char *line_text;
} SchedWhy;

typedef enum SchedStrandLayout { SCHED_AOS = 0, SCHED_SOA = 1, SCHED_AOSOA = 2 } SchedStrandLayout;
/* off: no vector extensions (--scalar); within: vectors within a strand;
 * strands: also the update of several strands at once (across-strand groups) */
typedef enum SchedSimd { SCHED_SIMD_OFF, SCHED_SIMD_WITHIN, SCHED_SIMD_STRANDS } SchedSimd;
/* What was asked for the groups (the --simd flag or the file's simd key):
 * EmitOptions.simd_auto/simd_strands come from it, not from the resolved
 * SchedSimd (schedule_emit_bits). */
typedef enum SchedSimdAsk { SCHED_ASK_AUTO, SCHED_ASK_WITHIN, SCHED_ASK_STRANDS } SchedSimdAsk;
typedef enum SchedRun { SCHED_RUN_BSP, SCHED_RUN_STRANDWISE } SchedRun;
typedef enum SchedOmpSchedule { SCHED_OMP_DYNAMIC, SCHED_OMP_STATIC, SCHED_OMP_GUIDED } SchedOmpSchedule;
typedef enum SchedOmpWait { SCHED_WAIT_PASSIVE, SCHED_WAIT_SYSTEM } SchedOmpWait;
typedef enum SchedWriter { SCHED_WRITER_AUTO, SCHED_WRITER_ON, SCHED_WRITER_OFF } SchedWriter;
typedef enum SchedCompaction { SCHED_COMPACT_ALWAYS } SchedCompaction;
/* values of rt/diderot_mpi.h DrtMpiPlacement */
typedef enum SchedMpiPlacement { SCHED_MPI_BLOCK = 0, SCHED_MPI_CYCLIC = 1 } SchedMpiPlacement;

enum {
  SCHED_STEPS_ALL = 0,          /* steps-per-visit = all */
  SCHED_CHUNK_MAX = 1 << 30,
  SCHED_CUDA_BLOCK_DEFAULT = 128, /* CUDA_BLOCK of src/backend/cuda/emit_cuda.h */
  SCHED_MPI_REBALANCE_DEFAULT = 125 /* mpi-rebalance = 1.25 */
};

typedef struct Schedule {
  SchedTarget target;              /* from the facts (schedule_defaults): which keys apply */
  bool exec, snapshot;             /* the same */
  SchedStrandLayout strand_layout;
  int aosoa_width;                 /* 1 unless aosoa (EmitOptions.aosoa_width) */
  int image_brick;                 /* 0: linear */
  bool image_halo;                 /* halo:B (the halo's width is the program's widest kernel support) */
  SchedSimd simd;
  SchedSimdAsk simd_ask;
  bool scalar_asked;               /* --scalar, --simd=off or simd = off */
  int simd_width;                  /* 0: auto (the C compiler's width, D_SIMD_W) */
  int simd_width_auto;             /* what auto gives for vec_bytes (reports) */
  bool loop_lanes;
  SchedRun run;
  uint32_t steps;                  /* SCHED_STEPS_ALL or 1.. */
  uint32_t chunk;
  SchedOmpSchedule omp_schedule;
  SchedOmpWait omp_wait;
  SchedWriter writer;
  int cuda_block;
  SchedCompaction compaction;
  SchedMpiPlacement mpi_placement;
  int mpi_rebalance; /* in hundredths: 125 is 1.25; 0: off */
  SchedWhy why[SCHED_NPARAMS];
} Schedule;

/* ---- messages ----------------------------------------------------------------- */

/* Errors of the file parser, the flags and the constraints, printed as
 *   FILE:LINE:COL: error: MESSAGE          (a value from a schedule file)
 *     the line
 *     ^~~~
 *   diderotc: error: MESSAGE               (anything else)
 */
typedef struct SchedMsg {
  struct SchedMsg *next;
  const char *file;      /* NULL: no position */
  int line, col, len;    /* len: characters the caret marks */
  const char *line_text;
  const char *text;
} SchedMsg;

typedef struct SchedDiag {
  Arena *arena;
  SchedMsg *head, *tail;
  int nerrors;
} SchedDiag;

void schedule_diag_init(SchedDiag *d, Arena *a);
/* Print every message on f; returns how many. */
int schedule_diag_print(const SchedDiag *d, FILE *f);

/* ---- filling and checking ----------------------------------------------------- */

/* Every parameter unset. */
void schedule_init(Schedule *s);

/* The values of today's flags as DriverOptions holds them (src/driver):
 * NULL/false means "not given". */
typedef struct SchedFlags {
  const char *strand_layout; /* --strand-layout */
  const char *image_layout;  /* --image-layout */
  bool scalar;               /* --scalar or --simd=off */
  bool simd_strands;         /* --simd=strands (the last --simd wins, as parsed today) */
  bool simd_within;          /* --simd=within */
  bool no_loop_lanes;        /* -H --no-loop-lanes */
  bool force_bsp;            /* -H --force-bsp */
  bool deterministic;        /* refuse choices that change results (no flag yet) */
} SchedFlags;

/* Set the parameters the flags give (source FLAG), over what a file set.
 * False, with the driver's existing messages ("bad --strand-layout '...'
 * (expected ...)"), on a malformed layout. */
bool schedule_apply_flags(Arena *a, const SchedFlags *fl, Schedule *s, SchedDiag *d);

/* Parse schedule-file text (name: for messages) into s (source FILE):
 * `key = value` lines, `#` comments (doc/user-guide.md). Every error is
 * reported (unknown key, with a suggestion; bad value, with the accepted
 * ones; duplicate key; missing '=' or value; trailing text); false if any. */
bool schedule_parse_text(Arena *a, const char *name, const char *text, Schedule *s,
                         SchedDiag *d);
/* The same from a file (an error when it cannot be read). */
bool schedule_read_file(Arena *a, const char *path, Schedule *s, SchedDiag *d);

/* Fill every unset parameter with today's choice for the program: the
 * defaults and heuristics of src/backend and rt/, mirrored rule for rule
 * (each rule's comment in schedule.c cites where it lives). Also resolves
 * what was asked into what happens (simd = strands asked by --simd=strands
 * on an update that cannot run in groups stays within, as today). */
void schedule_defaults(Arena *a, const SchedFacts *f, Schedule *s);

/* The constraints (schedule.c, "constraints"): false, with one error per
 * broken rule naming the parameter and the rule, when the back end or the
 * runtime could not carry the schedule out. deterministic: also refuse a
 * non-default chunk where the chunk changes results. */
bool schedule_check(Arena *a, const SchedFacts *f, const Schedule *s, bool deterministic,
                    SchedDiag *d);

/* The whole pipeline above: file (may be NULL), flags, defaults, check. */
bool schedule_build(Arena *a, const SchedFacts *f, const char *file, const SchedFlags *fl,
                    Schedule *s, SchedDiag *d);

/* ---- reading the decisions ---------------------------------------------------- */

/* --dump=schedule: a comment header, then for every parameter that applies
 * to the target one line `key = value   # source: reason`. The text is a
 * valid schedule file that gives the same values back. */
const char *schedule_print(Arena *a, const Schedule *s);

/* Key and value texts (the file's spellings). */
const char *schedule_key(SchedParam p);
const char *schedule_value_text(Arena *a, const Schedule *s, SchedParam p);
const char *schedule_source_name(SchedSource src);
/* Whether parameter p means anything for the target, an executable or a
 * library, with or without --snapshot: the others are not printed, and a
 * file that sets one is refused by schedule_check. */
bool schedule_applies(SchedTarget t, bool exec, bool snapshot, SchedParam p);

/* Today's EmitOptions and MidToLowOptions fields, exactly as the driver
 * computes them from the flags (src/driver/main.c driver_codegen): so a
 * default schedule prints byte-identical code. */
typedef struct SchedEmitBits {
  bool scalar, simd_auto, simd_strands, loop_lanes, force_bsp;
  int strand_layout;  /* EmitStrandLayout's values: 0 aos, 1 soa, 2 aosoa */
  int aosoa_width;    /* 1 unless aosoa */
  int image_brick;    /* 0: linear; EmitOptions.image_brick and MidToLowOptions.brick */
  bool image_halo;    /* bricks with a halo (the driver sizes it: mid_to_low_widest_support) */
} SchedEmitBits;
void schedule_emit_bits(const Schedule *s, SchedEmitBits *out);

/* The run-time part (rt/diderot_world.h DrtSchedule): NULL when every
 * run-time value is the runtime's own default for this program (print
 * nothing then), else the C initializer of a `static const DrtSchedule`,
 * e.g. "{.chunk = 64, .steps = 0, .writer = DRT_WRITER_AUTO}", for
 * drt_world_set_program_schedule. */
const char *schedule_runtime_c(Arena *a, const Schedule *s);
/* The default chunk of a strand layout of AoSoA width w (1: aos, soa). */
uint32_t schedule_default_chunk(int aosoa_width);

/* Helpers shared by schedule.c and schedule_file.c (also the parsers of
 * --strand-layout / --image-layout; the image layouts are src/layout's). */
bool schedule_parse_strand_layout(const char *text, SchedStrandLayout *kind, int *width);
bool schedule_parse_image_layout(const char *text, int *brick, bool *halo);
void schedule_set(Schedule *s, SchedParam p, SchedSource src, const char *reason);
void schedule_error(SchedDiag *d, const SchedWhy *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void schedule_error_at(SchedDiag *d, const char *file, int line, int col, int len,
                       const char *line_text, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

#endif
