/* backend.h -- the last step of diderotc, and the driver's one view of the
 * back end: LowIR → NAME.c (and NAME.cu) → the executable (--exec) or the
 * library (NAME.h + NAME.o, or NAME.so with --shared; NAME.json with
 * --json), LANGUAGE.md §7.1.
 *
 * The back end is a tree (doc/backend.md §1): core/ (buffers, names, LowIR
 * instructions and CFGs, data layouts) at the root; lanes/ (SIMD lanes)
 * and program/ (the program glue) on it; the targets cpu/ (C, OpenMP) and
 * cuda/ (CUDA) as siblings at the top; this file's target.c and cc.c (the
 * C compiler) above them. Nothing calls up the tree: what a target prints
 * differently reaches shared code through hook tables (EmitHooks,
 * EmitGlueHooks). */
#ifndef DIDEROT_BACKEND_BACKEND_H
#define DIDEROT_BACKEND_BACKEND_H

#include <stdbool.h>

#include "backend/cc.h"
#include "backend/core/emit_c_layout.h"
#include "backend/core/emit_options.h"
#include "ir/ir.h"
#include "schedule/schedule.h"
#include "util/arena.h"
#include "util/diag.h"

struct Program;

typedef struct TargetOptions {
  EmitOptions emit;      /* exec, precision, target, namespace, ... */
  const char *source;    /* the source file */
  const char *output;    /* -o, or NULL */
  bool shared_lib, json;
  const char *const *defines; /* --D options */
  int ndefines;
  bool verbose;          /* print phases and commands */
  const char *opt_flag;  /* "-O0" .. "-O3" for the C compiler; NULL: the default, -O3 */
  bool keep_c;           /* keep NAME.c after a successful build */
  FILE *log;             /* --log: NAME.log (files written, C compiler commands), or NULL */
  CcEnv env;             /* the environment of the C compiler runs (cc.h) */
  /* Called when a phase of the build ends ("emit": the C text written;
   * "cc": the C compiler done), for the driver's --stats lines; NULL: none. */
  void (*phase_done)(void *ctx, const char *phase);
  void *phase_ctx;
} TargetOptions;

/* The output stem: -o (an executable's name, or a library stem with a .o
 * / .so / .obj extension removed), else the source without .diderot/.ddro
 * in the source's directory. */
const char *target_stem(Arena *a, const char *source, const char *output, bool exec);

/* Generate and compile. Returns the exit status: 0 on success, 1 when the
 * program cannot be compiled by this back end (message printed), 70 when
 * the C compiler failed ("diderotc: internal error: C compiler failed",
 * with the kept generated file named). */
int target_build(Arena *a, IrModule *low, const TargetOptions *o);

/* What the back end's analyses find in m, for the schedule record
 * (facts.c): opt holds the target and the options asked for. */
void target_schedule_facts(Arena *a, IrModule *m, const EmitOptions *opt, SchedFacts *f);

/* Whether target t can print module m: the CUDA target refuses what the
 * device cannot run, one ERR_NOT_YET per construct at its position in
 * `prog` (the typed AST m came from; NULL: no positions). */
bool target_check_module(EmitTarget t, IrModule *m, DiagCtx *diag, const struct Program *prog);

#endif
