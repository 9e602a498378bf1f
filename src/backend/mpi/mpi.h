/* mpi.h -- the MPI target (--target=mpi): the OpenMP target's program
 * (cpu/) run once per rank of an MPI job, with program glue hooks
 * (program/program.h EmitGlueHooks) that hand the run, the inputs, the
 * outputs and main() to the runtime's MPI part (rt/diderot_mpi.h). A
 * sibling of cpu/ above it: it prints nothing of the strands' code. */
#ifndef DIDEROT_BACKEND_MPI_H
#define DIDEROT_BACKEND_MPI_H

#include "backend/core/core.h"
#include "backend/core/emit_options.h"
#include "util/diag.h"

/* The whole program as C text into *out, as emit_c_program (cpu.h) with
 * the MPI glue; opt->mpi, opt->exec and target EMIT_TARGET_OMP. */
bool emit_mpi_program(Arena *a, IrModule *m, const EmitOptions *opt, const char **out,
                      EmitInfo *info, char *err, size_t errlen);

/* Whether strands read strands another rank may own (another strand's
 * state, sphere(), strands collected in a global block): then every
 * state goes to every rank after each step (DrtProgram.exchange_states). */
bool mpi_exchanges_states(Arena *a, const IrModule *m);

/* Whether values of type t hold pointers that another rank cannot read:
 * strings, dynamic sequences (emit_mpi_state.c). */
bool mpi_type_has_pointer(const IrType *t);
/* Whether the strand state holds pointers: strings, dynamic sequences
 * (emit_mpi_seq.c); then emit_mpi_seq_codec prints d_seq_pack
 * and d_seq_unpack (rt/diderot_world.h DrtSeqPack, DrtSeqUnpack), which
 * the run call gives the runtime. */
bool mpi_has_pointer_state(EmitCtx *e);
void emit_mpi_seq_codec(EmitCtx *e, EmitBuf *out);

#endif
