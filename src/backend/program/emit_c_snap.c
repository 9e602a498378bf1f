/* emit_c_snap.c -- snapshots of the generated executable (--snapshot;
 * doc/language.md §12, §13; Q13 and Q24 of doc/differences.md).
 *
 * With --snapshot the executable takes -s N (period, default 0 = none in
 * every target, Q13) and one prefix option per output: -sp/--snapshot-prefix
 * with one output, -sp-NAME/--snapshot-prefix-NAME with several (default
 * prefix: the output's name). With N > 0 it writes PREFIX-0000.nrrd right
 * after strand creation (before the global start block), then runs in
 * chunks of N steps (the last one cut at the -l limit) and writes
 * PREFIX-SSSS.nrrd after each chunk, SSSS the total number of steps so far
 * (at least 4 digits). A dynamic-sequence output writes PREFIX-len-SSSS.nrrd
 * and PREFIX-data-SSSS.nrrd. A snapshot covers every alive strand (active
 * and stable, grid or collection), in storage order. The loop stops when a
 * chunk takes no step, at the limit, or on an error; a chunk after which
 * no strand is alive is the error "no alive strands, so no snapshot at
 * step N" (exit status 1), as in the reference. The library's
 * NS_snapshot_NAME functions are emitted with the outputs
 * (emit_c_program.c). The executable's snapshots are saved by a writer
 * thread while the strands go on (rt/rt_writer.c); a failed save stops
 * the run at a later snapshot. */
#include "backend/program/program.h"
#include "backend/lanes/lanes.h"

#define OUT(...) emit_buf_printf(out, __VA_ARGS__)

static bool is_dynseq(const IrType *t) { return t->kind == IR_TY_SEQ && t->len == IR_SEQ_DYNAMIC; }

static int count_outputs(const IrModule *m) {
  int n = 0;
  for (int i = 0; i < m->nstate; i++) n += m->state[i]->output;
  return n;
}

const char *emit_snapshot_cli_features(EmitCtx *e) {
  bool omp = e->opt->target == EMIT_TARGET_OMP;
  if (!e->opt->snapshot) return omp ? "DRT_CLI_PARALLEL" : "0";
  return omp ? "DRT_CLI_PARALLEL | DRT_CLI_SNAPSHOT" : "DRT_CLI_SNAPSHOT";
}

void emit_snapshot_options(EmitCtx *e, EmitBuf *out) {
  if (!e->opt->snapshot) return;
  IrModule *m = e->m;
  int nout = count_outputs(m), k = 0;
  OUT("  const char *spf[%d];\n", nout ? nout : 1);
  for (int i = 0; i < m->nstate; i++) {
    IrStateVar *s = m->state[i];
    if (!s->output) continue;
    const char *opt = nout == 1 ? "sp,snapshot-prefix"
                                : arena_printf(e->a, "sp-%s,snapshot-prefix-%s", s->name, s->name);
    OUT("  opts[nopts++] = (DrtOption){%s, DRT_OPT_FILE, 1, \"snapshot prefix\", %s, false, "
        "&spf[%d], NULL};\n",
        emit_string_lit(e, opt), emit_string_lit(e, s->name), k);
    k++;
  }
}

void emit_snapshot_fn(EmitCtx *e, EmitBuf *out) {
  if (!e->opt->snapshot || !e->opt->exec) return;
  IrModule *m = e->m;
  OUT("/* one snapshot of every output after `step` steps (§7.2) */\n"
      "static bool d_snapshot(d_world *wrld, const char *const *spf, DrtWriter *wr, uint32_t step) {\n"
      "  DrtErrors *err = drt_world_errors(wrld->rt);\n  bool bad_ = false;\n  (void)spf;\n  (void)wr;\n");
  int k = 0;
  for (int i = 0; i < m->nstate; i++) {
    IrStateVar *s = m->state[i];
    if (!s->output) continue;
    const char *f = emit_state_field(e, s);
    const char *what = emit_string_lit(e, arena_printf(e->a, "snapshot of '%s'", s->name));
    if (is_dynseq(s->ty))
      OUT("  { Nrrd *nl_ = nrrdNew(), *nd_ = nrrdNew();\n"
          "    bad_ |= d_output_%s(wrld, nl_, nd_, true) ||\n"
          "            drt_output_save_dynseq(err, %s, spf[%d], step, nl_, nd_);\n"
          "    nrrdNuke(nl_); nrrdNuke(nd_); }\n",
          f, what, k);
    else
      OUT("  { Nrrd *nd_ = nrrdNew();\n    d_out_cursor c_ = {wrld, true, 0};\n"
          "    char *fn_ = drt_output_filename(spf[%d], NULL, step);\n"
          "    if (!fn_) { drt_error(err, \"out of memory\"); bad_ = true; }\n"
          "    else bad_ |= d_output_shape_%s(wrld, nd_, true, false) ||\n"
          "                 drt_output_save_parts_behind(wr, err, %s, fn_, nd_, %s, d_output_part_%s, &c_);\n"
          "    free(fn_); nrrdNuke(nd_); }\n",
          k, f, what, emit_output_item_bytes(e, s), f);
    k++;
  }
  OUT("  return bad_;\n}\n\n");
}

/* The snapshot writer: the runtime's choice (drt_writer_new: a thread with
 * two CPUs), or the schedule's snapshot-writer through the world. */
static const char *writer_new(EmitCtx *e) {
  const Schedule *s = e->opt->schedule;
  if (!s || s->writer == SCHED_WRITER_AUTO) return "drt_writer_new()";
  return "drt_world_writer_new(wrld->rt)";
}

const char *emit_snapshot_run(EmitCtx *e, const char *run_limit, const char *run_chunk) {
  if (!e->opt->snapshot) return run_limit;
  return arena_printf(
      e->a,
      "if (so.snapshot == 0) {\n    %s;\n  } else {\n"
      "    /* §7.2: -0000 before the global start block, then every so.snapshot steps */\n"
      "    DrtWriter *wr_ = %s; /* files saved while the strands go on */\n"
      "    bool sbad_ = d_snapshot(wrld, spf, wr_, drt_world_total_steps(wrld->rt));\n"
      "    uint32_t done_ = 0;\n"
      "    while (!sbad_ && !drt_any_errors(err)) {\n"
      "      uint32_t chunk_ = so.snapshot;\n"
      "      if (so.limit && so.limit - done_ < chunk_) chunk_ = so.limit - done_;\n"
      "      uint32_t n_ = %s;\n"
      "      if (n_ == 0 || drt_any_errors(err)) break;\n"
      "      done_ += n_;\n"
      "      uint32_t at_ = drt_world_total_steps(wrld->rt);\n"
      "      if (drt_world_nstrands(wrld->rt) == 0) {\n"
      "        drt_error(err, \"no alive strands, so no snapshot at step %%u\", (unsigned)at_);\n"
      "        break;\n      }\n"
      "      sbad_ = d_snapshot(wrld, spf, wr_, at_);\n"
      "      if (so.limit && done_ >= so.limit) break;\n"
      "    }\n"
      "    (void)drt_writer_finish(wr_, err);\n  }",
      run_limit, writer_new(e), run_chunk);
}
