/* cpu.h -- the C targets (--target=seq and --target=omp): the program as
 * one C translation unit, with the lanes printers for across-strand groups
 * and loops in lanes. A sibling of the CUDA target (cuda/emit_cuda.h):
 * both print the program glue (program/) on the core (core/). */
#ifndef DIDEROT_BACKEND_CPU_H
#define DIDEROT_BACKEND_CPU_H

#include "backend/core/emit_options.h"

struct EmitGlueHooks; /* program/program.h */

/* The whole program as C text into *out (arena memory), and what its
 * compilation needs into *info (may be NULL). Returns false (with a
 * message in err) on LowIR this back end cannot print. */
bool emit_c_program(Arena *a, IrModule *m, const EmitOptions *opt, const char **out, EmitInfo *info,
                    char *err, size_t errlen);
/* The same with a target's program glue hooks (program/program.h; the MPI
 * target's, mpi/): the C targets' code with what the hooks add; with
 * distributed, reductions over strands as EmitHooks.distributed says. */
bool emit_c_program_glue(Arena *a, IrModule *m, const EmitOptions *opt, const struct EmitGlueHooks *glue,
                         bool distributed, const char **out, EmitInfo *info, char *err, size_t errlen);

/* How many loops over sequences of m would run their iterations in lanes
 * under opt (the schedule's facts). */
int emit_c_loops_planned(Arena *a, IrModule *m, const EmitOptions *opt);

/* For tests: the prelude (types, helpers) followed by each function CFG of
 * cfgs as `static RESULT NAME(params...)` (FUNC CFGs only, no globals or
 * state). */
bool emit_c_functions(Arena *a, IrModule *m, IrCFG *const *cfgs, int ncfgs,
                      const EmitOptions *opt, const char **out, char *err, size_t errlen);

#endif
