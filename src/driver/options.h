/* options.h -- the diderotc command line (doc/diderotc.1).
 *
 * Every option of the reference compiler is recognised. Options whose
 * phase is not built yet are accepted by the parser and then refused by
 * the driver with a "not yet supported" error: never silently ignored.
 */
#ifndef DIDEROT_DRIVER_OPTIONS_H
#define DIDEROT_DRIVER_OPTIONS_H

#include <stdbool.h>

#include "frontend/typecheck.h"
#include "util/arena.h"

typedef enum Target { TARGET_SEQ, TARGET_OMP, TARGET_CUDA, TARGET_MPI } Target;

/* What to print instead of (or before) compiling; a bit set. */
enum {
  DUMP_AST = 1 << 0,
  DUMP_HIGH = 1 << 1,
  DUMP_MID = 1 << 2,
  DUMP_LOW = 1 << 3,
  DUMP_TREE = 1 << 4,
  DUMP_SCHEDULE = 1 << 5, /* the schedule record (src/schedule: schedule_print) */
};

typedef enum ColorMode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorMode;

typedef struct DriverOptions {
  const char *file;       /* the one source file */
  const char *output;     /* -o */
  const char *ns;         /* --namespace, default "Diderot" */
  Target target;
  bool help, help_all, version, about;
  bool exec, static_lib, shared_lib, json;
  bool snapshot, debug, double_real, long_int, scalar;
  bool log, stats, verbose;
  int opt_level;          /* -O0 .. -O3 for the C compiler; -1: the default (-O3) */
  bool check;             /* stop after typechecking */
  bool strict;            /* --strict: the language extensions are errors */
  bool no_warnings, warnings_as_errors;
  ColorMode color;        /* --color=auto|always|never */
  unsigned dump;          /* DUMP_* */
  const char *strand_layout, *image_layout;
  const char *schedule;   /* --schedule=FILE (src/schedule: schedule_read_file) */
  bool cuda_emulate;      /* --cuda-emulate (or DIDEROT_CUDA_EMULATE=1) */
  bool simd_strands;      /* --simd=strands (emit_c_simd.c) */
  bool deterministic;     /* --deterministic: no schedule choice that changes results */
  bool simd_within;       /* --simd=within: no across-strand groups (default: auto) */
  int tune;               /* --tune: 0 none, 1 quick, 2 full (src/tune) */
  const char *tune_args;  /* --tune-args: the program's command line for the tuning runs */
  unsigned tune_steps;    /* --tune-steps: each run stops after this many super-steps (0: whole runs) */
  ConstOverride *consts;  /* --Cname=value, in command-line order */
  const char **defines;   /* --Dname[=value] */
  int ndefines;
  /* Internal controls (-H): recorded so that they can be refused or used. */
  const char *internal[16];
  int ninternal;
} DriverOptions;

/* Parse argv into *o. On a usage error prints "diderotc: error: ..." to
 * stderr and returns false. */
bool options_parse(Arena *a, int argc, char **argv, DriverOptions *o);
void options_print_usage(bool all);
const char *options_target_name(Target t);

#endif
