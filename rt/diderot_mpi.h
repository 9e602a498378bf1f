/* diderot_mpi.h -- what a program built with `diderotc --target=mpi`
 * calls (rt_mpi.c, in libdiderot-rt-mpi.a; needs Open MPI's mpi.h only in
 * rt_mpi.c, not here).
 *
 * The executable is the OpenMP target's, run once per rank of an MPI job
 * (`mpirun -np R ./prog ARGS`), with these entry points in place of the
 * runtime's own (the generated file binds them with #defines, so the
 * program glue is the one every C target prints):
 *
 *  - main: drt_mpi_main initialises MPI, gives every rank rank 0's command
 *    line (so ranks cannot disagree), sends the output of ranks other than
 *    0 to /dev/null (every message and print comes from rank 0 once), runs
 *    the program and ends the job with the highest exit status of a rank;
 *  - inputs: rank 0 loads each image and sequence file (stdin included)
 *    and broadcasts the loaded samples, or its errors;
 *  - the run: drt_mpi_world_run spreads the world's chunks over the ranks
 *    (DrtDistrib, diderot_world.h; block or cyclic placement), each rank
 *    updating its chunks with its threads, and gathers every strand to
 *    every rank at the end; a run-time error on any rank (a probe outside
 *    an image) stops all of them at the end of that step, with the message
 *    of the lowest failing rank, "rank R: ...";
 *  - outputs: rank 0 writes each file (atomically, as always) and tells the
 *    others whether it could; so with the `-print` file.
 */
#ifndef DIDEROT_MPI_H
#define DIDEROT_MPI_H

#include "diderot_rt.h"
#include "diderot_world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How chunks are placed on ranks (the schedule's mpi-placement): block:
 * rank r runs the r-th of R contiguous runs of chunks; cyclic: chunk c
 * runs on rank c mod R (ranks whose strands finish early get a share of
 * the rest). */
typedef enum DrtMpiPlacement { DRT_MPI_BLOCK = 0, DRT_MPI_CYCLIC = 1 } DrtMpiPlacement;

/* The executable's main (body: the program's own, with rank 0's
 * arguments). The job's exit status: the highest of the ranks'.
 * rebalance (the schedule's mpi-rebalance; 0: never): between
 * super-steps, when the rank with the most active strands has more than
 * rebalance times the mean, the chunks with active strands are dealt again
 * in contiguous runs of equal work, and their states move to their new
 * ranks (results are the same bits: only who computes a strand changes). */
int drt_mpi_main(int argc, char **argv, int (*body)(int argc, const char **argv),
                 DrtMpiPlacement placement, double rebalance);
/* This process's rank and the job's size. */
int drt_mpi_rank(void);
int drt_mpi_size(void);

/* drt_world_run over the job's ranks (a collective); then every rank
 * holds every strand. */
uint32_t drt_mpi_world_run(DrtWorld *w, uint32_t max_steps);

/* diderot_rt.h's loaders and savers, done by rank 0 and broadcast (the
 * same arguments and results on every rank; collectives). In strand code
 * (a run under way) the loaders load on the calling rank alone. */
bool drt_mpi_image_load_file(DrtErrors *e, const DrtImageSpec *spec, const char *file,
                             DrtImage *img);
bool drt_mpi_sequence_load_file(DrtErrors *e, const DrtSeqSpec *spec, const char *file,
                                DrtSequence *seq);
/* drt_cli_parse, then on ranks other than 0 `-print FILE` becomes their
 * stdout (/dev/null): one rank opens, and writes, the print file. */
int drt_mpi_cli_parse(DrtCli *cli, int argc, const char *const *argv, FILE *out, FILE *err);
bool drt_mpi_output_save_parts(DrtErrors *e, const char *what, const char *file, Nrrd *head,
                               size_t item_bytes, DrtOutFill fill, void *ctx);
bool drt_mpi_output_save_dynseq(DrtErrors *e, const char *what, const char *prefix,
                                long long step, const Nrrd *nlen, const Nrrd *ndata);

#ifdef __cplusplus
}
#endif

#endif
