/* emit_c_mpi.c -- the MPI target's program glue (mpi.h): the C targets'
 * program with
 *
 *   - after the structs, rt/diderot_mpi.h and #defines that bind the
 *     runtime's image and sequence loaders, output savers and command-line
 *     parser to their MPI versions (rank 0 reads and writes, every rank
 *     gets the result; only rank 0 opens the -print file), so
 *     the shared glue (program/) prints the same calls for every target;
 *   - creation's failure agreed over the ranks (drt_mpi_agree_created:
 *     one rank may run out of memory alone);
 *   - the run through drt_mpi_world_run (the chunks spread over the ranks);
 *   - the program's main made static (d_main) under MPI's main,
 *     drt_mpi_main, with the schedule's placement of chunks on ranks.
 *
 * Nothing of the strands' code differs from --target=omp: each rank runs
 * the same functions on its own chunks. */
#include "backend/mpi/mpi.h"

#include "backend/cpu/cpu.h"
#include "backend/program/program.h"

#define OUT(...) emit_buf_printf(out, __VA_ARGS__)

static void mpi_decls(EmitCtx *e, EmitBuf *out) {
  OUT("/* --target=mpi (rt/diderot_mpi.h): rank 0 loads inputs and writes outputs;\n"
      " * the world's chunks are spread over the ranks */\n"
      "#include <mpi.h> /* first: diderot_mpi.h declares drt_mpi_attach after it */\n"
      "#include \"diderot_mpi.h\"\n"
      "#define drt_image_load_file drt_mpi_image_load_file\n"
      "#define drt_sequence_load_file drt_mpi_sequence_load_file\n"
      "#define drt_output_save_parts drt_mpi_output_save_parts\n"
      "#define drt_output_save_dynseq drt_mpi_output_save_dynseq\n"
      "#define drt_output_save_parts_behind drt_mpi_output_save_parts_behind\n"
      "#define drt_cli_parse drt_mpi_cli_parse\n\n");
  emit_mpi_seq_codec(e, out); /* emit_mpi_seq.c */
}

static const char *mpi_run_call(EmitCtx *e, const char *wrld, const char *limit) {
  /* the print file: rank 0 writes strand code's prints there (rt_mpi_print.c);
   * the state's sequences, packed where strands go to other ranks */
  return arena_printf(e->a, "drt_mpi_world_run(%s->rt, %s, %s->print, %s)", wrld, limit, wrld,
                      mpi_has_pointer_state(e) ? "d_seq_pack, d_seq_unpack" : "NULL, NULL");
}

static const char *mpi_created(EmitCtx *e, const char *wrld, const char *failed) {
  return arena_printf(e->a, "drt_mpi_agree_created(drt_world_errors(%s->rt), %s)", wrld, failed);
}

static void mpi_main(EmitCtx *e, EmitBuf *out) {
  OUT("\n/* one process per rank: rank 0's command line, the job's exit status */\n"
      "int main(int argc, char **argv) {\n"
      "  return drt_mpi_main(argc, argv, d_main, %s);\n}\n",
      emit_mpi_schedule_args(e));
}

static bool mpi_exchange_states(EmitCtx *e) { return mpi_exchanges_states(e->a, e->m); }

static const EmitGlueHooks mpi_glue = {
    .after_structs = mpi_decls,
    .run_call = mpi_run_call,
    .main_name = "d_main",
    .after_main = mpi_main,
    .exchange_states = mpi_exchange_states,
    .created = mpi_created,
};

bool emit_mpi_program(Arena *a, IrModule *m, const EmitOptions *opt, const char **out,
                      EmitInfo *info, char *err, size_t errlen) {
  return emit_c_program_glue(a, m, opt, &mpi_glue, true, out, info, err, errlen);
}
