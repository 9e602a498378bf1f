/* emit_c_api.c -- a library's API (LANGUAGE.md §7.3): the NS_ functions
 * (world, inputs, running, outputs) printed into NAME.c, their
 * declarations as the header NAME.h, and NAME.json describing them. */
#include "backend/program/program.h"

#include <string.h>

#define OUT(...) emit_buf_printf(out, __VA_ARGS__)

static bool is_dynseq(const IrType *t) { return t->kind == IR_TY_SEQ && t->len == IR_SEQ_DYNAMIC; }

/* The NS_ prefix of library symbols. */
static const char *ns(EmitCtx *e) { return e->opt->ns ? e->opt->ns : "Diderot"; }

const char *emit_run_call(EmitCtx *e, const char *wrld, const char *limit) {
  if (e->glue && e->glue->run_call) return e->glue->run_call(e, wrld, limit);
  return arena_printf(e->a, "drt_world_run(%s->rt, %s)", wrld, limit);
}

const char *emit_created(EmitCtx *e, const char *wrld, const char *failed) {
  if (e->glue && e->glue->created) return e->glue->created(e, wrld, failed);
  return failed;
}

/* ---- the library API (§7.3) ---------------------------------------------------------------------- */

static const char *api_scalar_type(EmitCtx *e, const IrType *t) {
  switch (t->kind) {
  case IR_TY_BOOL: return "bool";
  case IR_TY_INT: return e->opt->long_int ? "int64_t" : "int32_t";
  case IR_TY_STRING: return "const char *";
  default: return e->opt->double_real ? "double" : "float";
  }
}

/* A header comment; "*" "/" in user text (an input's description) must not
 * end it early. */
static void emit_doc_comment(EmitBuf *out, const char *text) {
  emit_buf_puts(out, "\n/* ");
  for (const char *p = text; *p; p++) {
    emit_buf_printf(out, "%c", *p);
    if (p[0] == '*' && p[1] == '/') emit_buf_puts(out, " ");
  }
  emit_buf_puts(out, " */\n");
}

/* One declaration line per API function, shared by the header and the
 * definitions (`def` adds the body-opening brace). */

const char *emit_mpi_schedule_args(EmitCtx *e) {
  const Schedule *s = e->opt->schedule;
  bool block = s && s->mpi_placement == SCHED_MPI_BLOCK;
  int rebalance = s ? s->mpi_rebalance : SCHED_MPI_REBALANCE_DEFAULT;
  return arena_printf(e->a, "%s, %d.%02d", block ? "DRT_MPI_BLOCK" : "DRT_MPI_CYCLIC",
                      rebalance / 100, rebalance % 100);
}

void emit_api_glue(EmitCtx *e, EmitBuf *out, bool header) {
  IrModule *m = e->m;
  const char *N = ns(e);
  bool omp = e->opt->target == EMIT_TARGET_OMP;
  const char *W = arena_printf(e->a, "%s_world_t", N);
#define DECL(...) \
  do { OUT(__VA_ARGS__); OUT(header ? ";\n" : " {\n"); } while (0)
  /* the header says what each call does; functions returning bool return
   * true on ERROR (the messages then come from NS_get_errors) */
#define DOC(...) \
  do { if (header) emit_doc_comment(out, arena_printf(e->a, __VA_ARGS__)); } while (0)
  DOC("Call order: %s_new_world, %s_init_world, the %s_input_set_* calls (inputs without a "
      "default must be set), %s_create_strands, %s_run (as often as wanted), the "
      "%s_output_get_* calls, %s_shutdown. Every function returning bool returns true on "
      "ERROR and false on success; %s_get_errors then says what went wrong.",
      N, N, N, N, N, N, N, N);
  bool mpi = e->opt->mpi;
  if (!mpi) {
    DOC("A new world, or NULL when out of memory.");
    DECL("%s *%s_new_world(void)", W, N);
    if (!header) OUT("  d_world *w = d_world_new();\n  return (%s *)w;\n}\n", W);
  } else {
    /* --target=mpi (rt/diderot_mpi.h drt_mpi_attach) */
    DOC("A new world whose strands are spread over the ranks of comm (--target=mpi), or NULL "
        "when out of memory. MPI must be running (MPI_Init_thread, MPI_THREAD_FUNNELED or "
        "more), every rank of comm must make the same calls with the same inputs, and the "
        "outputs are then on every rank; one communicator per process. An error (MPI not "
        "running, another communicator) makes %s_init_world fail with its message.", N);
    DECL("%s *%s_new_world_comm(MPI_Comm comm)", W, N);
    if (!header)
      OUT("  d_world *w = d_world_new();\n"
          "  if (w) (void)drt_mpi_attach(drt_world_errors(w->rt), comm, %s);\n"
          "  return (%s *)w;\n}\n", emit_mpi_schedule_args(e), W);
    DOC("%s_new_world_comm(MPI_COMM_WORLD).", N);
    DECL("%s *%s_new_world(void)", W, N);
    if (!header) OUT("  return %s_new_world_comm(MPI_COMM_WORLD);\n}\n", N);
  }
  DOC("Initialise the world and set every input to its default. true on error.");
  DECL("bool %s_init_world(%s *w)", N, W);
  if (!header)
    OUT("  d_world *wrld = (d_world *)w;\n%s"
        "  if (drt_world_init(wrld->rt)) return true;\n  d_set_defaults(wrld);\n  return false;\n}\n",
        mpi ? "  if (drt_any_errors(drt_world_errors(wrld->rt))) return true; /* new_world_comm's */\n"
            : "");
  DOC("Compute the globals from the inputs and create the initial strands. true on error.");
  DECL("bool %s_create_strands(%s *w)", N, W);
  if (!header)
    OUT("  return %s;\n}\n", emit_created(e, "((d_world *)w)", "d_create_strands((d_world *)w)"));
  DOC("Run at most max_nsteps super-steps (0: until every strand is stable or dead); returns "
      "the number of steps taken. Check %s_any_errors afterwards.", N);
  DECL("uint32_t %s_run(%s *w, uint32_t max_nsteps)", N, W);
  if (!header) OUT("  return %s;\n}\n", emit_run_call(e, "((d_world *)w)", "max_nsteps"));
  DOC("Free the world and everything it holds.");
  DECL("void %s_shutdown(%s *w)", N, W);
  if (!header) OUT("  d_world_free((d_world *)w);\n}\n");
  static const char *counts[3][2] = {{"num_strands", "nstrands"}, {"num_active_strands", "nactive"},
                                     {"num_stable_strands", "nstable"}};
  DOC("Strand counts: alive, active, stable.");
  for (int i = 0; i < 3; i++) {
    DECL("uint32_t %s_%s(%s *w)", N, counts[i][0], W);
    if (!header) OUT("  return drt_world_%s(((d_world *)w)->rt);\n}\n", counts[i][1]);
  }
  DOC("true when errors are recorded (not an error code: a question).");
  DECL("bool %s_any_errors(%s *w)", N, W);
  if (!header) OUT("  return drt_any_errors(drt_world_errors(((d_world *)w)->rt));\n}\n");
  DOC("The recorded error messages, one per line, or NULL when there are none; the caller "
      "frees the string, and the record is cleared.");
  DECL("char *%s_get_errors(%s *w)", N, W);
  if (!header) OUT("  return drt_errors_take(drt_world_errors(((d_world *)w)->rt));\n}\n");
  DOC("Progress of %s_run: cb(data, step, nactive, nstable, elapsed) is called after a "
      "super-step when at least interval seconds have passed since its last call (0: after "
      "every step), and once more as %s_run returns (unless the last call already reported "
      "that step); step is the number of super-steps so far (it never decreases), elapsed "
      "the seconds since this %s_run began. A true return stops the run after that step "
      "(a later %s_run continues). cb NULL: no calls.", N, N, N, N);
  OUT("typedef bool (*%s_progress_cb_t)(void *data, uint32_t step, uint32_t nactive, "
        "uint32_t nstable, double elapsed);\n", N);
  DECL("void %s_set_progress_cb(%s *w, %s_progress_cb_t cb, void *data, double interval)", N, W, N);
  if (!header)
    OUT("  drt_world_set_progress(((d_world *)w)->rt, cb, data, interval);\n}\n");
  DOC("Progress messages on stderr while running.");
  DECL("void %s_set_verbose(%s *w, bool v)", N, W);
  if (!header) OUT("  drt_world_set_verbose(((d_world *)w)->rt, v);\n}\n");
  DECL("bool %s_get_verbose(%s *w)", N, W);
  if (!header) OUT("  return drt_world_verbose(((d_world *)w)->rt);\n}\n");
  DOC("Not implemented: print output always goes to stdout. Returns true.");
  DECL("bool %s_set_printer_cb(%s *w, bool (*pr)(void *, char *), void *data)", N, W);
  if (!header) OUT("  (void)w; (void)pr; (void)data;\n  return true; /* not implemented (§10 Q12) */\n}\n");
  if (omp) {
    DOC("OpenMP: the processors available, and the worker threads to use (0: all; set "
        "after %s_init_world, before %s_create_strands; true on error).", N, N);
    DECL("uint32_t %s_get_num_cores(%s *w)", N, W);
    if (!header) OUT("  (void)w;\n  return (uint32_t)omp_get_num_procs();\n}\n");
    DECL("bool %s_set_num_workers(%s *w, uint32_t n)", N, W);
    if (!header)
      OUT("  d_world *wrld = (d_world *)w;\n"
          "  if (drt_world_stage(wrld->rt) != DRT_STAGE_POST_INIT) return true;\n"
          "  drt_world_set_parallel(wrld->rt, d_pfor, n ? n : (uint32_t)omp_get_num_procs(), 0);\n"
          "  return false;\n}\n");
    DECL("uint32_t %s_get_num_workers(%s *w)", N, W);
    if (!header) OUT("  return drt_world_nworkers(((d_world *)w)->rt);\n}\n");
  }
  for (int i = 0; i < m->nglobals; i++) {
    IrGlobal *g = m->globals[i];
    if (g->kind != IR_GLOBAL_INPUT) continue;
    const char *f = emit_global_field(e, g);
    const char *gn = emit_mangle(e, "", g->name);
    {
      char ty[128];
      ir_type_snprint(ty, sizeof ty, g->ty);
      bool file_input = g->ty->kind == IR_TY_IMAGE || is_dynseq(g->ty);
      DOC("input %s %s%s%s%s: %s", ty, g->name, g->desc ? " (\"" : "", g->desc ? g->desc : "",
          g->desc ? "\")" : "",
          file_input ? arena_printf(e->a, "set from a NRRD file by name, or from a Nrrd (copied); "
                                          "true on error (a missing file, or the wrong sample "
                                          "type, shape or dimension)%s",
                                    g->has_default ? "; optional, it has a default" : "")
          : g->default_text
              ? arena_printf(e->a, "optional (when it is not set, %s_create_strands computes its "
                                   "default, %s): get the current value (the computed default "
                                   "once the strands are created), set it (returns false)",
                             N, g->default_text)
          : g->has_default ? "optional (it has a default): get the current value, set it "
                             "(returns false)"
                           : arena_printf(e->a, "must be set before %s_create_strands (returns false)", N));
    }
    if (g->desc) {
      if (header) OUT("extern const char *%s_input_desc_%s;\n", N, gn);
      else OUT("const char *%s_input_desc_%s = %s;\n", N, gn, emit_string_lit(e, g->desc));
    }
    const char *what = emit_string_lit(e, arena_printf(e->a, "input '%s'", g->name));
    if (g->ty->kind == IR_TY_IMAGE || is_dynseq(g->ty)) {
      bool img = g->ty->kind == IR_TY_IMAGE;
      for (int by_name = 1; by_name >= 0; by_name--) {
        DECL("bool %s_input_set%s_%s(%s *w, %s)", N, by_name ? "_by_name" : "", gn, W,
             by_name ? "const char *file" : "Nrrd *nin");
        if (header) continue;
        OUT("  d_world *wrld = (d_world *)w;\n  DrtErrors *err = drt_world_errors(wrld->rt);\n"
            "  unsigned before = err->nerrors;\n");
        const char *file = by_name ? "file" : "NULL", *nin = by_name ? "NULL" : "nin";
        if (img)
          OUT("  wrld->%s = d_load_image(wrld, %s, %s, %s, %s);\n", f, what, file, nin, emit_image_spec_args(e, g));
        else
          OUT("  %s;\n", emit_load_seq_call(e, g->ty, what, file, nin, arena_printf(e->a, "wrld->%s", f)));
        /* a failed set leaves the input unset (create_strands says so),
         * never half-set with no image, nor quietly back at its default */
        OUT("  if (err->nerrors != before) {\n    wrld->def_%s = false;\n    wrld->path_%s = NULL;\n"
            "    return true;\n  }\n  wrld->def_%s = true;\n  return false;\n}\n",
            f, f, f);
      }
      continue;
    }
    EmitElemInfo ei = emit_elem_info(g->ty);
    /* a fixed sequence (int[3], vec2[4]) is passed as its elements' values
     * (ncomp counts them all) */
    unsigned nval = ei.ncomp;
    bool arr = nval > 1 || ei.seqlen;
    const IrType *et = g->ty->kind == IR_TY_SEQ ? g->ty->elem : g->ty;
    const char *st = api_scalar_type(e, et->kind == IR_TY_TENSOR ? ir_type_real(m) : et);
    if (g->has_default) {
      DECL("void %s_input_get_%s(%s *w, %s%s *v)", N, gn, W, st, "");
      if (!header) {
        if (arr) OUT("  memcpy(v, &((d_world *)w)->%s, %u * sizeof *v);\n}\n", f, nval);
        else OUT("  *v = ((d_world *)w)->%s;\n}\n", f);
      }
    }
    if (arr) DECL("bool %s_input_set_%s(%s *w, const %s *v)", N, gn, W, st);
    else DECL("bool %s_input_set_%s(%s *w, %s v)", N, gn, W, st);
    if (!header) {
      if (arr) OUT("  d_world *wrld = (d_world *)w;\n  memcpy(&wrld->%s, v, %u * sizeof *v);\n", f, nval);
      else if (ei.is_string) OUT("  d_world *wrld = (d_world *)w;\n  wrld->%s = v; /* the caller keeps v alive */\n", f);
      else OUT("  d_world *wrld = (d_world *)w;\n  wrld->%s = v;\n", f);
      if (g->nchoices) /* the index of a choice (names in --json's "choices") */
        OUT("  if (v < 0 || v >= %d) {\n    wrld->%s = 0;\n    wrld->def_%s = false;\n"
            "    drt_error(drt_world_errors(wrld->rt), \"input '%%s': %%lld is not the index of one of its %d %s choices\", %s, (long long)v);\n"
            "    return true;\n  }\n",
            g->nchoices, f, f, g->nchoices, g->choice_kind, emit_string_lit(e, g->name));
      OUT("  wrld->def_%s = true;\n  return false;\n}\n", f);
    }
  }
  for (int i = 0; i < m->nstate; i++) {
    IrStateVar *s = m->state[i];
    if (!s->output) continue;
    const char *sn = emit_mangle(e, "", s->name);
    bool dyn = is_dynseq(s->ty);
    {
      char ty[128];
      ir_type_snprint(ty, sizeof ty, s->ty);
      DOC("output %s %s: fill data (a Nrrd the caller allocated with nrrdNew) with its values "
          "for the stable strands (%s axes as in diderot-api(3))%s; true on error%s",
          ty, s->name, dyn ? "lengths + data" : "grid or collection",
          dyn ? " and lengths with the number of values per strand" : "",
          e->opt->snapshot ? ". The snapshot form gives every alive strand's current value" : "");
    }
    for (int snap = 0; snap <= (e->opt->snapshot ? 1 : 0); snap++) {
      if (dyn) DECL("bool %s_%s_%s(%s *w, Nrrd *lengths, Nrrd *data)", N, snap ? "snapshot" : "output_get", sn, W);
      else DECL("bool %s_%s_%s(%s *w, Nrrd *data)", N, snap ? "snapshot" : "output_get", sn, W);
      if (!header)
        OUT("  return d_output_%s((d_world *)w, %s, data, %s);\n}\n", emit_state_field(e, s),
            dyn ? "lengths" : "NULL", snap ? "true" : "false");
    }
  }
#undef DOC
#undef DECL
}

bool emit_c_header(Arena *a, IrModule *m, const EmitOptions *opt, const char **out_text) {
  EmitCtx e;
  emit_ctx_init(&e, a, m, opt); /* declarations only */
  EmitBuf b;
  emit_buf_init(&b, a);
  EmitBuf *out = &b;
  const char *N = ns(&e);
  OUT("/* %s.h -- generated by diderotc from %s: the library API (man 3 diderot-api). */\n"
      "#ifndef %s_H_\n#define %s_H_\n\n#include <stdbool.h>\n#include <stdint.h>\n"
      "#include <teem/nrrd.h>\n%s\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
      "typedef struct %s_world_s %s_world_t;\n\n",
      opt->name ? opt->name : "program", opt->source ? opt->source : "a Diderot program",
      emit_mangle(&e, "", opt->name ? opt->name : "DIDEROT"), emit_mangle(&e, "", opt->name ? opt->name : "DIDEROT"),
      opt->mpi ? "#include <mpi.h> /* --target=mpi: NS_new_world_comm */\n" : "", N, N);
  emit_api_glue(&e, out, true);
  OUT("\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
  *out_text = emit_buf_str(&b);
  return !e.failed;
}

/* s as a JSON string: '"' and '\\' escaped, control characters as
 * \\u00XX, other bytes as they are (a description or a choice may hold
 * UTF-8, an extension; C's octal escapes, which emit_string_lit writes, are
 * not JSON). */
static const char *json_lit(Arena *a, const char *s) {
  EmitBuf b;
  emit_buf_init(&b, a);
  emit_buf_puts(&b, "\"");
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') emit_buf_printf(&b, "\\%c", *p);
    else if (*p < 0x20 || *p == 0x7f) emit_buf_printf(&b, "\\u%04x", *p);
    else emit_buf_printf(&b, "%c", *p);
  }
  emit_buf_puts(&b, "\"");
  return emit_buf_str(&b);
}

bool emit_c_json(Arena *a, IrModule *m, const EmitOptions *opt, const char **out_text) {
  EmitCtx e;
  emit_ctx_init(&e, a, m, opt); /* declarations only */
  EmitBuf b;
  emit_buf_init(&b, a);
  EmitBuf *out = &b;
  const char *N = ns(&e);
  OUT("{\n  \"program\": %s,\n  \"source-file\": %s,\n  \"version\": \"%s\",\n"
      "  \"real-type\": \"%s\",\n  \"int-type\": \"%s\",\n  \"target\": \"%s\",\n"
      "  \"namespace\": %s,\n  \"inputs\": [",
      json_lit(a, opt->name ? opt->name : "program"),
      json_lit(a, opt->source ? opt->source : ""), "1", opt->double_real ? "double" : "float",
      opt->long_int ? "int64_t" : "int32_t", opt->target == EMIT_TARGET_OMP ? "parallel" : opt->target == EMIT_TARGET_CUDA ? "cuda" : "sequential",
      json_lit(a, N));
  int k = 0;
  for (int i = 0; i < m->nglobals; i++) {
    IrGlobal *g = m->globals[i];
    if (g->kind != IR_GLOBAL_INPUT) continue;
    char ty[128];
    ir_type_snprint(ty, sizeof ty, g->ty);
    const char *gn = emit_mangle(&e, "", g->name);
    OUT("%s\n    {\"name\": %s, \"type\": %s, \"description\": %s, \"has-default\": %s,\n"
        "     \"setter\": \"%s_input_set_%s\"%s%s",
        k++ ? "," : "", json_lit(a, g->name), json_lit(a, ty),
        g->desc ? json_lit(a, g->desc) : "null", g->has_default ? "true" : "false", N, gn,
        g->has_default && g->ty->kind != IR_TY_IMAGE && !is_dynseq(g->ty)
            ? arena_printf(a, ", \"getter\": \"%s_input_get_%s\"", N, gn)
            : "",
        /* a default the program computes when the strands are created
         * (the getter has it only then): its source */
        g->default_text
            ? arena_printf(a, ",\n     \"computed-default\": %s", json_lit(a, g->default_text))
            : "");
    if (g->nchoices) { /* a run-time choice: the int is the index of a name */
      OUT(",\n     \"choice-kind\": %s, \"choices\": [", json_lit(a, g->choice_kind));
      for (int c = 0; c < g->nchoices; c++) OUT("%s%s", c ? ", " : "", json_lit(a, g->choices[c]));
      OUT("]");
    }
    OUT("}");
  }
  OUT("\n  ],\n  \"outputs\": [");
  k = 0;
  for (int i = 0; i < m->nstate; i++) {
    IrStateVar *s = m->state[i];
    if (!s->output) continue;
    char ty[128];
    ir_type_snprint(ty, sizeof ty, s->ty);
    OUT("%s\n    {\"name\": %s, \"type\": %s, \"getter\": \"%s_output_get_%s\"}", k++ ? "," : "",
        json_lit(a, s->name), json_lit(a, ty), N, emit_mangle(&e, "", s->name));
  }
  OUT("\n  ],\n  \"runtime\": [\n");
  EmitBuf api;
  emit_buf_init(&api, a);
  emit_api_glue(&e, &api, true);
  /* one JSON string per declaration line */
  const char *p = emit_buf_str(&api);
  bool first = true;
  while (p && *p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len && strncmp(p, "/*", 2) != 0) { /* declarations only, not the header's comments */
      OUT("%s    %s", first ? "" : ",\n", json_lit(a, arena_strndup(a, p, len)));
      first = false;
    }
    p = nl ? nl + 1 : NULL;
  }
  OUT("\n  ]\n}\n");
  *out_text = emit_buf_str(&b);
  return !e.failed;
}

