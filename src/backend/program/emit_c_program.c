/* emit_c_program.c -- the program glue around the CFG functions: the state
 * and world structs, input defaults and setters, global initialisation,
 * strand creation, outputs (doc/language.md §13), the DrtProgram descriptor
 * for the runtime scheduler (rt/diderot_world.h), and either main() with
 * the executable's command line (§12 there) or the library API (§14,
 * doc/diderot-api.3). */
#include "backend/program/program.h"
#include "backend/lanes/lanes.h"

#include <inttypes.h>
#include <string.h>

#define OUT(...) emit_buf_printf(out, __VA_ARGS__)
/* DRT_CLI_MAX_NAME of rt/diderot_rt.h: longer option names would overflow
 * hest's fixed buffers, and the runtime refuses them */
#define CLI_MAX_NAME 200

/* ---- small helpers ------------------------------------------------------------- */

static bool is_dynseq(const IrType *t) { return t->kind == IR_TY_SEQ && t->len == IR_SEQ_DYNAMIC; }

/* The NS_ prefix of library symbols. */
static const char *ns(EmitCtx *e) { return e->opt->ns ? e->opt->ns : "Diderot"; }

/* ---- the state and world structs ----------------------------------------------- */

static void emit_structs(EmitCtx *e, EmitBuf *out, const char *wtag) {
  IrModule *m = e->m;
  EmitBuf st;
  emit_buf_init(&st, e->a);
  /* one strand's state: words of a layout (emit_c_layout.c) */
  emit_buf_printf(&st, "enum { D_STATE_WORDS = %d };\n", emit_state_words(e));
  emit_layout_glue(e, &st);
  emit_buf_printf(&st,
                  "/* the world: runtime world, program globals, inputs */\n"
                  "typedef struct %s {\n  DrtWorld *rt;\n  FILE *print;\n  bool print_owned;\n"
                  "  DrtImage **imgs;\n  unsigned nimgs, capimgs;\n",
                  wtag);
  for (int i = 0; i < m->nglobals; i++) {
    IrGlobal *g = m->globals[i];
    emit_buf_printf(&st, "  %s %s; /* %s %s */\n", emit_type(e, g->ty), emit_global_field(e, g),
                    g->kind == IR_GLOBAL_INPUT ? "input" : g->kind == IR_GLOBAL_CONST ? "const" : "global",
                    g->name);
    if (g->kind == IR_GLOBAL_INPUT) {
      emit_buf_printf(&st, "  bool def_%s;\n", emit_global_field(e, g));
      if (g->ty->kind == IR_TY_IMAGE || is_dynseq(g->ty))
        emit_buf_printf(&st, "  const char *path_%s;\n", emit_global_field(e, g));
    }
  }
  if (emit_sphere_used(e)) emit_buf_puts(&st, "  struct DrtSphere *sphere; /* emit_c_sphere.c */\n");
  if (e->glue && e->glue->world_field) emit_buf_puts(&st, e->glue->world_field);
  emit_buf_printf(&st, "} d_world;\n\n");
  OUT("%s", emit_buf_str(&st));
}

/* ---- CFG functions ----------------------------------------------------------------- */

static const char *cfg_signature(EmitCtx *e, IrCFG *cfg) {
  const char *name = emit_cfg_name(e, cfg);
  EmitBuf b;
  emit_buf_init(&b, e->a);
  switch (cfg->kind) {
  case IR_CFG_FUNC:
  case IR_CFG_STRAND_INIT:
    emit_buf_printf(&b, "static %s %s(d_world *wrld%s",
                    cfg->kind == IR_CFG_FUNC ? emit_type(e, cfg->result) : "void", name,
                    cfg->kind == IR_CFG_STRAND_INIT ? ", dreal *self" : "");
    for (int p = 0; p < cfg->nparams; p++)
      emit_buf_printf(&b, ", %s %s", emit_type(e, cfg->params[p]->ty), emit_var(e, cfg->params[p]));
    emit_buf_puts(&b, ")");
    break;
  case IR_CFG_GLOBAL_INIT:
  case IR_CFG_CREATE:
    /* run once, and never inlined: gcc contracts a*b+c into FMAs per
     * function after inlining, so that the same text inlined into the
     * different callers of the seq, OpenMP and MPI programs' set-up gave
     * different bits (conformance fs3d's globals under --target=mpi:
     * tests/mpi/conformance.py); a function of its own is compiled alike
     * in every target */
    emit_buf_printf(&b, "__attribute__((noinline)) static void %s(d_world *wrld)", name);
    break;
  case IR_CFG_UPDATE:
    if (emit_step_chunked(e)) return emit_step_update_signature(e); /* emit_c_step.c */
    /* fall through */
  case IR_CFG_START:
    emit_buf_printf(&b, "static DrtExit %s(DrtCtx *ctx, uint32_t id, void *self_)", name);
    break;
  case IR_CFG_STABILIZE:
    emit_buf_printf(&b, "static void %s(DrtCtx *ctx, uint32_t id, void *self_)", name);
    break;
  case IR_CFG_GLOBAL_START:
  case IR_CFG_GLOBAL_UPDATE:
    emit_buf_printf(&b, "static void %s(DrtWorld *rt_, void *wrld_)", name);
    break;
  }
  return emit_buf_str(&b);
}

/* A sequence that cannot be allocated leaves the function: the runtime's
 * drt_seq_alloc_n/drt_seq_join_n have then recorded the memory error and
 * stopped the world, and the function leaves as after a run-time error
 * (DRT_EXIT_ERROR from a method; emit_leave_on_error). The prelude's
 * d_seq_alloc/d_seq_join (core/emit_c.c) end the process instead, which a
 * library must not do; within the CFG functions these macros take their
 * place (creation returns at a refused strand or grid: emit_c_expr.c). */
static bool has_dynseq(const IrType *t) {
  for (; t && t->kind == IR_TY_SEQ; t = t->elem)
    if (t->len == IR_SEQ_DYNAMIC) return true;
  return false;
}

/* Whether cfg makes a dynamic sequence (the only code that allocates
 * one): the guards are printed only there. */
static bool cfg_makes_seq(const IrCFG *cfg) {
  for (int b = 0; b < cfg->nblocks; b++)
    for (int i = 0; i < cfg->blocks[b]->ninstrs; i++) {
      const IrInstr *in = cfg->blocks[b]->instrs[i];
      if (in->dst && has_dynseq(in->dst->ty)) return true;
    }
  return false;
}

static void emit_seq_guards(EmitCtx *e, EmitBuf *out, IrCFG *cfg, bool on) {
  if (!cfg_makes_seq(cfg)) return;
  if (!on) {
    OUT("#undef d_seq_alloc\n#undef d_seq_join\n#undef D_SEQ_FAIL\n\n");
    return;
  }
  IrCFG *was = e->cfg;
  e->cfg = cfg;
  OUT("#define D_SEQ_FAIL() ");
  emit_leave_on_error(e, out, "");
  e->cfg = was;
  OUT("#define d_seq_alloc(rt_, n_, esz_) __extension__({ \\\n"
      "  void *q_ = drt_seq_alloc_n(rt_, n_, esz_); if (!q_) D_SEQ_FAIL(); q_; })\n"
      "#define d_seq_join(rt_, a_, na_, b_, nb_, esz_) __extension__({ \\\n"
      "  void *q_ = drt_seq_join_n(rt_, a_, na_, b_, nb_, esz_); if (!q_) D_SEQ_FAIL(); q_; })\n");
}

static void emit_cfgs(EmitCtx *e, EmitBuf *protos, EmitBuf *out) {
  for (int i = 0; i < e->m->ncfgs; i++) {
    IrCFG *cfg = e->m->cfgs[i];
    /* the maps of strand-set reductions run only on the device (NAME.cu):
     * a host copy would be unused (-Wunused-function) */
    if (cfg->kind == IR_CFG_FUNC && e->opt->target == EMIT_TARGET_CUDA) continue;
    const char *sig = cfg_signature(e, cfg);
    emit_buf_printf(protos, "%s;\n", sig);
    emit_seq_guards(e, out, cfg, true);
    OUT("/* %s */\n%s {\n", ir_cfg_kind_name(cfg->kind), sig);
    /* wrld, and the strand's state through its layout (emit_c_layout.c) */
    if (cfg->kind == IR_CFG_FUNC || cfg->kind == IR_CFG_STRAND_INIT ||
        cfg->kind == IR_CFG_GLOBAL_INIT || cfg->kind == IR_CFG_CREATE)
      OUT("  (void)wrld;\n");
    /* a parameter the body never reads (-Wunused-parameter) */
    for (int p = 0; p < cfg->nparams; p++) OUT("  (void)%s;\n", emit_var(e, cfg->params[p]));
    emit_layout_prologue(e, out, cfg);
    emit_cfg_body(e, out, cfg);
    OUT("}\n\n");
    emit_seq_guards(e, out, cfg, false);
  }
  emit_step_glue(e, out); /* emit_c_step.c (and emit_c_simd.c's group) */
}

/* The OpenMP loop schedule of the chunks (the schedule's omp-schedule). */
static const char *omp_schedule_name(EmitCtx *e) {
  const Schedule *s = e->opt->schedule;
  if (!s) return "dynamic";
  return s->omp_schedule == SCHED_OMP_STATIC ? "static"
         : s->omp_schedule == SCHED_OMP_GUIDED ? "guided"
                                               : "dynamic";
}

/* ---- helpers of the generated program ------------------------------------------------ */

static void emit_helpers(EmitCtx *e, EmitBuf *out) {
  const char *relayout =
      emit_image_relayout_call(e, "drt_world_errors(wrld->rt)", "what", "img", "dim", "ncomp");
  OUT("/* images: loaded into world-owned storage (freed at shutdown); helpers are\n"
      " * inline so that a program without images or sequences has no unused code */\n"
      "static inline const DrtImage *d_load_image(d_world *wrld, const char *what, const char *file,\n"
      "    const Nrrd *nin, unsigned dim, unsigned ncomp, int file_type) {\n"
      /* out of memory: the error in the world (a library returns it), and
       * an image without samples in place of the one not loaded */
      "  static const DrtImage none_;\n"
      "  DrtImage *img = calloc(1, sizeof *img);\n"
      "  if (img && wrld->nimgs == wrld->capimgs) {\n"
      "    unsigned cap_ = 2 * wrld->capimgs + 4;\n"
      "    DrtImage **imgs_ = realloc(wrld->imgs, cap_ * sizeof *imgs_);\n"
      "    if (imgs_) wrld->imgs = imgs_, wrld->capimgs = cap_;\n"
      "    else free(img), img = NULL;\n  }\n"
      "  if (!img) {\n"
      "    drt_error(drt_world_errors(wrld->rt), \"%%s: out of memory\", what);\n"
      "    drt_world_fail(wrld->rt);\n    return &none_;\n  }\n"
      "  wrld->imgs[wrld->nimgs++] = img;\n"
      "  DrtImageSpec spec = {what, dim, ncomp, file_type, D_REAL_NRRD};\n"
      "  if (nin) drt_image_load_nrrd(drt_world_errors(wrld->rt), &spec, nin, img);\n"
      "  else drt_image_load_file(drt_world_errors(wrld->rt), &spec, file, img);\n"
      "%s  return img;\n}\n\n"
      "/* dynamic sequences from a file or a Nrrd (§8.7) */\n"
      "static inline bool d_load_dseq(d_world *wrld, const char *what, const char *file, const Nrrd *nin,\n"
      "    int type, unsigned ncomp, bool is_bool, uint32_t *len, void **data) {\n"
      "  DrtSeqSpec spec = {what, type, ncomp, is_bool};\n  DrtSequence s;\n"
      "  memset(&s, 0, sizeof s);\n"
      "  bool bad = nin ? drt_sequence_load_nrrd(drt_world_errors(wrld->rt), &spec, nin, &s)\n"
      "                 : drt_sequence_load_file(drt_world_errors(wrld->rt), &spec, file, &s);\n"
      "  /* into the world's sequence heap (collected between steps) */\n"
      "  size_t n_ = bad ? 0 : s.len * ncomp, esz_ = (size_t)nrrdTypeSize[type];\n"
      "  *len = bad ? 0 : (uint32_t)s.len;\n  *data = drt_seq_alloc_n(wrld->rt, n_, esz_);\n"
      "  if (!*data) *len = 0, bad = true; /* the memory error is in the world */\n"
      "  else if (n_) memcpy(*data, s.data, n_ * esz_);\n  free(s.data);\n  return bad;\n}\n\n",
      relayout ? arena_printf(e->a, "  %s;\n", relayout) : "");
  if (e->opt->target == EMIT_TARGET_OMP)
    OUT("/* the parallel loop of the scheduler: chunks of strands over OpenMP threads */\n"
        "static void d_pfor(uint32_t n, void (*body)(void *, uint32_t), void *arg, uint32_t nw) {\n"
        "#pragma omp parallel for schedule(%s, 1) num_threads(nw)\n"
        "  for (uint32_t c = 0; c < n; c++) body(arg, c);\n}\n\n",
        omp_schedule_name(e));
  /* the same loop in every kind, for the run-time schedule's omp-schedule
   * (-schedule omp-schedule=KIND: no recompiling) */
  if (e->opt->target == EMIT_TARGET_OMP)
    for (int k = 0; k < 3; k++) {
      static const char *const kinds[] = {"dynamic", "static", "guided"};
      OUT("static void d_pfor_%s(uint32_t n, void (*body)(void *, uint32_t), void *arg, uint32_t nw) {\n"
          "#pragma omp parallel for schedule(%s, 1) num_threads(nw)\n"
          "  for (uint32_t c = 0; c < n; c++) body(arg, c);\n}\n\n", kinds[k], kinds[k]);
    }
}

/* ---- input defaults ------------------------------------------------------------------- */

static void emit_value_assign(EmitCtx *e, EmitBuf *out, const char *lhs, const IrValue *v,
                              const IrType *t) {
  switch (t->kind) {
  case IR_TY_BOOL: OUT("  %s = %s;\n", lhs, v->b ? "true" : "false"); return;
  case IR_TY_INT: OUT("  %s = (dint)%" PRId64 "LL;\n", lhs, v->i); return;
  case IR_TY_STRING: OUT("  %s = %s;\n", lhs, emit_string_lit(e, v->s)); return;
  case IR_TY_TENSOR:
    if (t->order == 0) {
      OUT("  %s = %s;\n", lhs, emit_real_lit(e, v->nr > 0 && v->r ? v->r[0] : 0));
    } else {
      for (int i = 0; i < v->nr && i < emit_tensor_size(t); i++)
        OUT("  %s.v[%d] = %s;\n", lhs, i, emit_real_lit(e, v->r[i]));
    }
    return;
  case IR_TY_SEQ:
    if (t->len == IR_SEQ_DYNAMIC) {
      /* (d_set_defaults: out of memory, the error is in the world) */
      OUT("  %s.len = %d;\n  if (!(%s.v = drt_seq_alloc_n(wrld->rt, %d, sizeof(%s)))) return;\n", lhs,
          v->n, lhs, v->n, emit_type(e, t->elem));
    }
    for (int i = 0; i < v->n; i++)
      emit_value_assign(e, out, arena_printf(e->a, "%s.v[%d]", lhs, i), v->elems[i], t->elem);
    return;
  default: emit_fail(e, "a default value of this type is not supported");
  }
}

/* Command-line text of a default (hest's syntax: words separated by spaces). */
static void value_text(EmitCtx *e, EmitBuf *b, const IrValue *v, const IrType *t) {
  switch (t->kind) {
  case IR_TY_BOOL: emit_buf_puts(b, v->b ? "true" : "false"); return;
  case IR_TY_INT: emit_buf_printf(b, "%" PRId64, v->i); return;
  case IR_TY_STRING: emit_buf_puts(b, v->s ? v->s : ""); return;
  case IR_TY_TENSOR:
    for (int i = 0; i < v->nr; i++) emit_buf_printf(b, "%s%.17g", i ? " " : "", v->r[i]);
    return;
  case IR_TY_SEQ:
    for (int i = 0; i < v->n; i++) {
      if (i) emit_buf_puts(b, " ");
      value_text(e, b, v->elems[i], t->elem);
    }
    return;
  default: return;
  }
}

/* init_world's part: constants with values and the input defaults. */
static void emit_defaults(EmitCtx *e, EmitBuf *out) {
  OUT("static void d_set_defaults(d_world *wrld) {\n  (void)wrld;\n");
  for (int i = 0; i < e->m->nglobals; i++) {
    IrGlobal *g = e->m->globals[i];
    const char *f = emit_global_field(e, g);
    if (g->kind == IR_GLOBAL_VAR) continue;
    if (g->ty->kind == IR_TY_IMAGE || is_dynseq(g->ty)) {
      if (g->kind == IR_GLOBAL_INPUT && g->path)
        OUT("  wrld->path_%s = %s;\n", f, emit_string_lit(e, g->path));
      continue;
    }
    if (g->value) {
      emit_value_assign(e, out, arena_printf(e->a, "wrld->%s", f), g->value, g->ty);
      if (g->kind == IR_GLOBAL_INPUT) OUT("  wrld->def_%s = true;\n", f);
    }
  }
  OUT("}\n\n");
}

/* ---- create_strands ---------------------------------------------------------------------- */

static void emit_create(EmitCtx *e, EmitBuf *out) {
  IrModule *m = e->m;
  OUT("/* create_strands (§6.1 steps 3-5); true on error */\n"
      "static bool d_create_strands(d_world *wrld) {\n"
      "  DrtErrors *err = drt_world_errors(wrld->rt);\n"
      "  if (drt_world_create_begin(wrld->rt)) return true;\n");
  for (int i = 0; i < m->nglobals; i++) {
    IrGlobal *g = m->globals[i];
    if (g->kind != IR_GLOBAL_INPUT) continue;
    const char *f = emit_global_field(e, g);
    if (g->ty->kind == IR_TY_IMAGE) {
      OUT("  if (!wrld->def_%s && wrld->path_%s) {\n"
          "    wrld->%s = d_load_image(wrld, %s, wrld->path_%s, NULL, %s);\n"
          "    wrld->def_%s = true;\n  }\n",
          f, f, f, emit_string_lit(e, arena_printf(e->a, "input '%s'", g->name)), f,
          emit_image_spec_args(e, g), f);
    } else if (is_dynseq(g->ty)) {
      OUT("  if (!wrld->def_%s && wrld->path_%s) {\n    %s;\n    wrld->def_%s = true;\n  }\n", f, f,
          emit_load_seq_call(e, g->ty, emit_string_lit(e, arena_printf(e->a, "input '%s'", g->name)),
                             arena_printf(e->a, "wrld->path_%s", f), "NULL",
                             arena_printf(e->a, "wrld->%s", f)),
          f);
    }
    if (!g->default_text) /* a computed default is set in global_init when not given */
      OUT("  if (!wrld->def_%s) drt_error(err, \"undefined input '%%s'\", %s);\n", f,
          emit_string_lit(e, g->name));
  }
  OUT("  if (drt_any_errors(err)) return true;\n");
  if (ir_module_find_cfg(m, IR_CFG_GLOBAL_INIT)) OUT("  d_global_init(wrld);\n");
  OUT("  if (drt_any_errors(err)) return true;\n");
  if (ir_module_find_cfg(m, IR_CFG_CREATE)) OUT("  d_create(wrld);\n");
  else OUT("  drt_error(err, \"the program creates no strands\");\n");
  OUT("  return drt_world_create_end(wrld->rt);\n}\n\n");
}

/* ---- outputs ------------------------------------------------------------------------------ */

/* Per output with a fixed number of values per strand:
 *   d_output_part_X   the values of the strands from a cursor on into a
 *                     buffer (DrtOutFill: drt_output_save_parts streams an
 *                     output to its file through it)
 *   d_output_shape_X  the output's Nrrd: axes only, or with its data array
 *   d_output_X        the whole output in a Nrrd (the library's getters)
 * and for a dynamic sequence only d_output_X. */
static void emit_outputs(EmitCtx *e, EmitBuf *out) {
  IrModule *m = e->m;
  OUT("/* where an output's copy has got to */\n"
      "typedef struct { d_world *wrld; bool snap; uint32_t slot; } d_out_cursor;\n\n");
  for (int i = 0; i < m->nstate; i++) {
    IrStateVar *s = m->state[i];
    if (!s->output) continue;
    const char *f = emit_state_field(e, s);
    bool dyn = is_dynseq(s->ty);
    EmitElemInfo ei = emit_elem_info(dyn ? s->ty->elem : s->ty);
    if (!ei.ok) {
      emit_fail(e, "output '%s' has a type that cannot be written", s->name);
      return;
    }
    const char *what = emit_string_lit(e, arena_printf(e->a, "output '%s'", s->name));
    if (!dyn) {
      OUT("/* output %s */\nstatic size_t d_output_part_%s(void *ctx_, void *buf, size_t cap) {\n"
          "  d_out_cursor *c_ = ctx_;\n  d_world *wrld = c_->wrld;\n  const bool snap = c_->snap;\n"
          "  DrtWorld *rt = wrld->rt;\n  uint32_t ns_ = drt_world_nslots(rt);\n"
          "  size_t esz_ = %d * sizeof(%s);\n",
          s->name, f, (int)ei.ncomp, ei.ctype);
      emit_layout_output_copy(e, out, s, ei.ctype, (int)ei.ncomp);
      OUT("  (void)esz_;\n  return (size_t)d_k;\n}\n\n");
      OUT("static bool d_output_shape_%s(d_world *wrld, Nrrd *nout, bool snap, bool data) {\n", f);
    } else {
      OUT("/* output %s */\nstatic bool d_output_%s(d_world *wrld, Nrrd *nlen, Nrrd *nout, bool snap) {\n",
          s->name, f);
    }
    OUT("  DrtWorld *rt = wrld->rt;\n  DrtErrors *err = drt_world_errors(rt);\n"
        "  static const unsigned shp_[] = {0");
    for (unsigned k = 0; k < ei.rank; k++) OUT(", %d", ei.shape[k]);
    OUT("};\n  unsigned nc_;\n  int kind_ = drt_output_kind(%u, %u, shp_ + 1, &nc_);\n"
        "  DrtOutSpec spec = {%s, nc_, kind_};\n  DrtDomain dom;\n"
        "  drt_world_output_domain(rt, snap, &dom);\n"
        "  uint32_t ns_ = drt_world_nslots(rt);\n  size_t esz_ = nc_ * sizeof(%s);\n",
        ei.seqlen, ei.rank, ei.nrrd, ei.ctype);
    if (!dyn) {
      OUT("  (void)esz_;\n  (void)ns_;\n"
          "  return data ? drt_output_alloc(err, %s, nout, &spec, &dom)\n"
          "              : drt_output_head(err, %s, nout, &spec, &dom);\n}\n\n", what, what);
      /* inline: an executable does not use it */
      OUT("static inline bool d_output_%s(d_world *wrld, Nrrd *nlen, Nrrd *nout, bool snap) {\n"
          "  (void)nlen;\n  if (d_output_shape_%s(wrld, nout, snap, true)) return true;\n"
          "  d_out_cursor c_ = {wrld, snap, 0};\n"
          "  (void)d_output_part_%s(&c_, nout->data, SIZE_MAX);\n  return false;\n}\n\n", f, f, f);
    } else {
      const char *vt = emit_type(e, s->ty);
      emit_layout_store_decl(e, out, "rt");
      OUT("  uint32_t *lens_ = malloc((ns_ ? ns_ : 1) * sizeof *lens_), k_ = 0;\n"
          "  if (!lens_) { drt_error(err, \"out of memory\"); return true; }\n"
          "  for (uint32_t i = 0; i < ns_; i++)\n"
          "    if (drt_world_output_includes(rt, i, snap)) {\n      %s v_;\n", vt);
      emit_state_read(e, out, s, "d_in", "i", "v_", "      ");
      OUT("      lens_[k_++] = v_.len;\n    }\n"
          "  bool bad_ = drt_output_alloc_dynseq(err, %s, nlen, nout, &spec, &dom, lens_);\n"
          "  free(lens_);\n  if (bad_) return true;\n  char *p_ = nout->data;\n"
          "  for (uint32_t i = 0; i < ns_ && p_; i++) {\n"
          "    if (!drt_world_output_includes(rt, i, snap)) continue;\n    %s v_;\n",
          what, vt);
      emit_state_read(e, out, s, "d_in", "i", "v_", "    ");
      OUT("    if (v_.len) memcpy(p_, v_.v, v_.len * esz_);\n"
          "    p_ += v_.len * esz_;\n  }\n  return false;\n}\n\n");
    }
  }
}

/* ---- dynamic sequences: the roots of the sequence heap ---------------------------------------- */


/* drt_seq_mark every buffer of the value x (C lvalue text) of type t; the
 * elements of a sequence of sequences only when it is marked first. */
static void emit_seq_mark(EmitCtx *e, EmitBuf *out, const IrType *t, const char *x, int depth) {
  if (!emit_type_has_dseq(t)) return;
  int ind = 2 * depth + 4;
  const char *k = arena_printf(e->a, "k%d_", depth);
  const char *el = arena_printf(e->a, "%s.v[%s]", x, k);
  if (t->len == IR_SEQ_DYNAMIC && !emit_type_has_dseq(t->elem)) {
    OUT("%*sdrt_seq_mark(rt, %s.v);\n", ind, "", x);
    return;
  }
  if (t->len == IR_SEQ_DYNAMIC)
    OUT("%*sif (drt_seq_mark(rt, %s.v))\n%*s  for (uint32_t %s = 0; %s < %s.len; %s++) {\n", ind, "",
        x, ind, "", k, k, x, k);
  else
    OUT("%*s{\n%*s  for (int %s = 0; %s < %d; %s++) {\n", ind, "", ind, "", k, k, t->len, k);
  emit_seq_mark(e, out, t->elem, el, depth + 2);
  OUT("%*s  }\n", ind, "");
  if (t->len != IR_SEQ_DYNAMIC) OUT("%*s}\n", ind, "");
}

/* d_seq_roots (DrtProgram.seq_roots): the sequences of the globals and of
 * the alive strands' states, between steps. false when there are none. */
static bool emit_seq_roots(EmitCtx *e, EmitBuf *out) {
  IrModule *m = e->m;
  bool any = false;
  for (int i = 0; i < m->nglobals; i++) any |= emit_type_has_dseq(m->globals[i]->ty);
  for (int i = 0; i < m->nstate; i++) any |= emit_type_has_dseq(m->state[i]->ty);
  if (!any) return false;
  OUT("/* the live dynamic sequences between steps (rt/diderot_world.h) */\n"
      "static void d_seq_roots(DrtWorld *rt, void *wrld_) {\n  d_world *wrld = wrld_;\n"
      "  (void)wrld;\n");
  for (int i = 0; i < m->nglobals; i++)
    if (emit_type_has_dseq(m->globals[i]->ty))
      emit_seq_mark(e, out, m->globals[i]->ty,
                    arena_printf(e->a, "wrld->%s", emit_global_field(e, m->globals[i])), -1);
  bool state = false;
  for (int i = 0; i < m->nstate; i++) state |= emit_type_has_dseq(m->state[i]->ty);
  if (state) {
    emit_layout_store_decl(e, out, "rt");
    OUT("  uint32_t ns_ = drt_world_nslots(rt);\n  for (uint32_t i = 0; i < ns_; i++) {\n"
        "    if (!drt_world_output_includes(rt, i, true)) continue; /* alive */\n");
    for (int i = 0; i < m->nstate; i++) {
      IrStateVar *sv = m->state[i];
      if (!emit_type_has_dseq(sv->ty)) continue;
      OUT("    {\n      %s v_;\n", emit_type(e, sv->ty));
      emit_state_read(e, out, sv, "d_in", "i", "v_", "      ");
      emit_seq_mark(e, out, sv->ty, "v_", 1);
      OUT("    }\n");
    }
    OUT("  }\n");
  }
  OUT("}\n\n");
  return true;
}

/* ---- world management ------------------------------------------------------------------------ */

static void emit_world_fns(EmitCtx *e, EmitBuf *out) {
  IrModule *m = e->m;
  bool has = ir_module_find_cfg(m, IR_CFG_START) != NULL;
  bool shared = false;
  for (int i = 0; i < m->nstate; i++) shared |= m->state[i]->shared;
  bool sphere = emit_sphere_used(e);
  bool roots = emit_seq_roots(e, out);
  bool exchange = e->glue && e->glue->exchange_states && e->glue->exchange_states(e);
  OUT("static const DrtProgram d_program = {\n  D_STATE_WORDS * sizeof(dreal), sizeof(dreal), %s,\n"
      "  %s, %s, %s, %s, %s, %s, NULL, &d_layout, %s, %s, %s, %s\n};\n\n",
      shared ? "true" : "false", has ? "d_strand_start" : "NULL",
      ir_module_find_cfg(m, IR_CFG_UPDATE) && !emit_step_chunked(e) ? "d_strand_update" : "NULL",
      ir_module_find_cfg(m, IR_CFG_STABILIZE) ? "d_strand_stabilize" : "NULL",
      ir_module_find_cfg(m, IR_CFG_GLOBAL_START) ? "d_global_start" : "NULL",
      ir_module_find_cfg(m, IR_CFG_GLOBAL_UPDATE) ? "d_global_update" : "NULL",
      sphere ? "d_sphere_begin_step" : "NULL", roots ? "d_seq_roots" : "NULL",
      emit_step_chunked(e) ? "d_update_chunk" : "NULL",
      emit_step_strandwise(e) ? "true" : "false", exchange ? "true" : "false");
  OUT("static d_world *d_world_new(void) {\n  d_world *wrld = calloc(1, sizeof *wrld);\n"
      "  if (!wrld) return NULL;\n  wrld->rt = drt_world_new(&d_program, wrld);\n"
      "  if (!wrld->rt) { free(wrld); return NULL; }\n  wrld->print = stdout;\n");
  if (sphere) OUT("  if (d_sphere_init(wrld)) { drt_world_free(wrld->rt); free(wrld); return NULL; }\n");
  if (e->opt->target == EMIT_TARGET_OMP)
    OUT("  drt_world_set_parallel(wrld->rt, d_pfor, (uint32_t)omp_get_num_procs(), 0);\n"
        "  drt_world_set_parallel_kinds(wrld->rt, d_pfor_dynamic, d_pfor_static, d_pfor_guided);\n");
  if (e->opt->schedule_runtime) /* the schedule's run-time part, where it is not the default */
    OUT("  static const DrtSchedule d_sched = %s;\n"
        "  if (drt_world_set_program_schedule(wrld->rt, &d_sched)) {\n"
        "    drt_world_free(wrld->rt); free(wrld); return NULL;\n  }\n",
        e->opt->schedule_runtime);
  OUT("  return wrld;\n}\n\n"
      "static void d_world_free(d_world *wrld) {\n  if (!wrld) return;\n"
      "  for (unsigned i = 0; i < wrld->nimgs; i++) { drt_image_free(wrld->imgs[i]); free(wrld->imgs[i]); }\n"
      "  free(wrld->imgs);\n  if (wrld->print_owned) fclose(wrld->print);\n"
      "  drt_world_free(wrld->rt);\n%s%s  free(wrld);\n}\n\n",
      sphere ? "  drt_sphere_free(wrld->sphere);\n" : "",
      e->opt->target == EMIT_TARGET_CUDA ? "  d_cuda_free(wrld->cuda);\n" : "");
}

/* ---- the executable ------------------------------------------------------------------------ */

static int noutputs(const IrModule *m) {
  int n = 0;
  for (int i = 0; i < m->nstate; i++) n += m->state[i]->output;
  return n;
}

/* Whether the program has print statements (their lines on a terminal
 * would run into the progress line). */
static bool module_prints(const IrModule *m) {
  for (int c = 0; c < m->ncfgs; c++)
    for (int b = 0; b < m->cfgs[c]->nblocks; b++) {
      const IrBlock *bl = m->cfgs[c]->blocks[b];
      for (int i = 0; i < bl->ninstrs; i++)
        if (bl->instrs[i]->kind == IR_I_OP && bl->instrs[i]->op == IR_OP_PRINT) return true;
    }
  return false;
}

static void emit_main(EmitCtx *e, EmitBuf *out) {
  IrModule *m = e->m;
  const char *name = e->opt->name ? e->opt->name : "program";
  int nout = noutputs(m);
  bool omp = e->opt->target == EMIT_TARGET_OMP;
  emit_snapshot_fn(e, out); /* d_snapshot (emit_c_snap.c) */
  const char *main_name = e->glue && e->glue->main_name ? e->glue->main_name : NULL;
  /* -trace where the C runtime runs the strands (rt_trace.c): not the
   * CUDA target's device loop, nor the MPI target's main */
  bool trace = (e->opt->target == EMIT_TARGET_SEQ || omp) && !main_name;
  OUT("%s(int argc, const char **argv) {\n"
      /* messages name the program as a compiler's do: "mip: error: ..." */
      "  const char *prog_ = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];\n"
      "  d_world *wrld = d_world_new();\n"
      "  if (!wrld || drt_world_init(wrld->rt)) {\n"
      "    fprintf(stderr, \"%%s: error: out of memory creating the world\\n\", prog_);\n"
      "    return 1;\n  }\n"
      "  DrtErrors *err = drt_world_errors(wrld->rt);\n"
      "  d_set_defaults(wrld);\n"
      "  DrtStdOptions so;\n  DrtOption opts[DRT_CLI_MAX_STD + %d];\n"
      "  unsigned nopts = drt_cli_std_options(opts, &so, %s);\n",
      main_name ? arena_printf(e->a, "static int %s", main_name) : "int main", m->nglobals + 2 * nout + 1,
      trace ? arena_printf(e->a, "%s | DRT_CLI_TRACE", emit_snapshot_cli_features(e))
            : emit_snapshot_cli_features(e));
  for (int i = 0; i < m->nglobals; i++) {
    IrGlobal *g = m->globals[i];
    if (g->kind != IR_GLOBAL_INPUT) continue;
    const char *f = emit_global_field(e, g);
    const char *desc = g->desc ? emit_string_lit(e, g->desc) : "NULL";
    const char *oname = emit_string_lit(e, g->name);
    if (strlen(g->name) > CLI_MAX_NAME) {
      emit_fail(e, "input '%.40s...': a name longer than %d characters cannot be a command-line option",
                g->name, CLI_MAX_NAME);
      return;
    }
    if (g->ty->kind == IR_TY_IMAGE || is_dynseq(g->ty)) {
      OUT("  opts[nopts++] = (DrtOption){%s, DRT_OPT_FILE, 1, %s, %s, %s, &wrld->path_%s, NULL};\n",
          oname, desc, g->path ? emit_string_lit(e, g->path) : "NULL", g->path ? "false" : "true", f);
      continue;
    }
    if (g->nchoices) { /* a name on the command line, its index in the world */
      EmitBuf names, list;
      emit_buf_init(&names, e->a);
      emit_buf_init(&list, e->a);
      for (int c = 0; c < g->nchoices; c++) {
        emit_buf_printf(&names, "%s%s", c ? ", " : "", emit_string_lit(e, g->choices[c]));
        emit_buf_printf(&list, "%s%s", c ? ", " : "", g->choices[c]);
      }
      const char *cdesc = arena_printf(e->a, "%s%s%s: %s", g->desc ? g->desc : "", g->desc ? "; " : "",
                                       g->choice_kind, emit_buf_str(&list));
      OUT("  static const char *const chn_%s[] = {%s};\n  const char *ch_%s = NULL;\n"
          "  opts[nopts++] = (DrtOption){%s, DRT_OPT_STRING, 1, %s, %s, false, &ch_%s, NULL};\n",
          f, emit_buf_str(&names), f, oname, emit_string_lit(e, cdesc),
          emit_string_lit(e, g->choices[g->value ? g->value->i : 0]), f);
      continue;
    }
    EmitElemInfo ei = emit_elem_info(g->ty);
    const char *type = NULL, *dest = arena_printf(e->a, "&wrld->%s", f);
    unsigned count = ei.ncomp;
    if (g->ty->kind == IR_TY_STRING) type = "DRT_OPT_STRING", count = 1;
    else if (!ei.ok || (ei.is_bool && count != 1)) {
      emit_fail(e, "input '%s' cannot be given on the command line", g->name);
      return;
    } else if (ei.is_bool) type = "DRT_OPT_BOOL";
    else if (ei.is_int) type = e->opt->long_int ? "DRT_OPT_LONG" : "DRT_OPT_INT";
    else type = e->opt->double_real ? "DRT_OPT_DOUBLE" : "DRT_OPT_FLOAT";
    const char *dflt = "NULL";
    if (g->default_text) {
      /* computed by the program when not given: shown, never parsed */
      dflt = arena_printf(e->a, "DRT_CLI_COMPUTED %s", emit_string_lit(e, g->default_text));
    } else if (g->value) {
      EmitBuf b;
      emit_buf_init(&b, e->a);
      value_text(e, &b, g->value, g->ty);
      dflt = emit_string_lit(e, emit_buf_str(&b));
    }
    OUT("  opts[nopts++] = (DrtOption){%s, %s, %u, %s, %s, %s, %s, &wrld->def_%s};\n", oname, type,
        count, desc, dflt, g->has_default ? "false" : "true", dest, f);
  }
  /* outputs: -o with one output, -o-NAME with several (the original's
   * options and help texts) */
  int k = 0;
  OUT("  const char *outf[%d];\n", nout ? nout : 1);
  for (int i = 0; i < m->nstate; i++) {
    IrStateVar *s = m->state[i];
    if (!s->output) continue;
    bool dyn = is_dynseq(s->ty);
    const char *dflt = dyn ? s->name : arena_printf(e->a, "%s.nrrd", s->name);
    const char *opt = nout == 1 ? "o,output" : arena_printf(e->a, "o-%s,output-%s", s->name, s->name);
    /* -sp-NAME,snapshot-prefix-NAME is the longest option an output gets */
    if (nout > 1 && 2 * strlen(s->name) + strlen("sp-,snapshot-prefix-") > CLI_MAX_NAME) {
      emit_fail(e, "output '%.40s...': a name longer than %d characters cannot name a command-line option",
                s->name, (int)(CLI_MAX_NAME - strlen("sp-,snapshot-prefix-")) / 2);
      return;
    }
    const char *desc = nout == 1 ? (dyn ? "specify output-file prefix" : "specify output file")
                                 : arena_printf(e->a, "specify %s for %s",
                                                dyn ? "output-file prefix" : "output file", s->name);
    OUT("  opts[nopts++] = (DrtOption){%s, DRT_OPT_FILE, 1, %s, %s, false, &outf[%d], NULL};\n",
        emit_string_lit(e, opt), emit_string_lit(e, desc), emit_string_lit(e, dflt), k);
    k++;
  }
  emit_snapshot_options(e, out); /* -sp / -sp-NAME (emit_c_snap.c) */
  /* hest parses it (rt_cli.c); string values live in cli until drt_cli_free */
  OUT("  DrtCli cli = {%s, NULL, opts, nopts, NULL};\n"
      "  int pr = drt_cli_parse(&cli, argc, argv, stdout, stderr);\n"
      "  if (pr != DRT_CLI_OK) { d_world_free(wrld); return drt_cli_exit_status(pr); }\n"
      "  drt_world_set_verbose(wrld->rt, so.verbose);\n"
      "  if (strcmp(so.print_file, \"-\") != 0) {\n"
      "    wrld->print = fopen(so.print_file, \"w\");\n"
      "    if (!wrld->print) {\n"
      "      fprintf(stderr, \"%%s: error: cannot open the print file '%%s': %%s\\n\", prog_, so.print_file,\n"
      "              strerror(errno));\n"
      "      wrld->print = stdout;\n      d_world_free(wrld);\n      drt_cli_free(&cli);\n      return 1;\n    }\n"
      "    wrld->print_owned = true;\n  }\n",
      emit_string_lit(e, name));
  /* images and dynamic sequences named on the command line */
  for (int i = 0; i < m->nglobals; i++) {
    IrGlobal *g = m->globals[i];
    if (g->kind != IR_GLOBAL_INPUT) continue;
    const char *f = emit_global_field(e, g);
    const char *what = emit_string_lit(e, arena_printf(e->a, "input '%s'", g->name));
    if (g->nchoices) {
      OUT("  { int ix_ = drt_cli_choice(prog_, %s, %s, ch_%s, chn_%s, %d, stderr);\n"
          "    if (ix_ < 0) {\n      drt_cli_usage(&cli, prog_, stderr, false);\n"
          "      d_world_free(wrld);\n      drt_cli_free(&cli);\n      return 2;\n    }\n"
          "    wrld->%s = (dint)ix_;\n    wrld->def_%s = true; }\n",
          emit_string_lit(e, g->name), emit_string_lit(e, g->choice_kind), f, f, g->nchoices, f, f);
    } else if (g->ty->kind == IR_TY_IMAGE) {
      OUT("  if (wrld->path_%s) { wrld->%s = d_load_image(wrld, %s, wrld->path_%s, NULL, %s); wrld->def_%s = true; }\n",
          f, f, what, f, emit_image_spec_args(e, g), f);
    } else if (is_dynseq(g->ty)) {
      OUT("  if (wrld->path_%s) { %s; wrld->def_%s = true; }\n", f,
          emit_load_seq_call(e, g->ty, what, arena_printf(e->a, "wrld->path_%s", f), "NULL",
                             arena_printf(e->a, "wrld->%s", f)),
          f);
    } else if (!g->default_text) { /* a computed default: def_ says whether it was given */
      OUT("  wrld->def_%s = true;\n", f);
    }
  }
  if (omp) OUT("  if (so.nworkers) drt_world_set_parallel(wrld->rt, d_pfor, so.nworkers, 0);\n");
  OUT("  if (%s) {\n"
      "    drt_errors_report(err, stderr, prog_);\n"
      "    d_world_free(wrld);\n    drt_cli_free(&cli);\n    return 1;\n  }\n"
      "%s"
      /* the progress line on a terminal (rt_progress.c); -v prints
       * every step instead */
      "  DrtTtyProgress tty_;\n"
      "  if (!so.quiet && !so.verbose) drt_progress_tty_begin(&tty_, wrld->rt, stderr, %s, prog_, so.limit);\n"
      "  else memset(&tty_, 0, sizeof tty_);\n"
      /* -t: usr= is the run's wall-clock duration (with threads, CPU time
       * is not it), cpu= the CPU time of the process's threads over it */
      "  struct timespec w0_, w1_;\n"
      "  clock_gettime(CLOCK_MONOTONIC, &w0_);\n"
      "  clock_t t0_ = clock();\n"
      "  %s;\n"
      "  drt_progress_tty_end(&tty_);\n"
      "%s"
      "  double cpu_ = (double)(clock() - t0_) / CLOCKS_PER_SEC;\n"
      "  clock_gettime(CLOCK_MONOTONIC, &w1_);\n"
      "  double secs_ = (double)(w1_.tv_sec - w0_.tv_sec) + 1e-9 * (double)(w1_.tv_nsec - w0_.tv_nsec);\n"
      "  if (drt_any_errors(err)) {\n"
      "    drt_errors_report(err, stderr, prog_);\n"
      "    d_world_free(wrld);\n    drt_cli_free(&cli);\n    return 1;\n  }\n"
      "  if (so.verbose) fprintf(stderr, \"done: %%u steps, %%u stable\\n\",\n"
      "      (unsigned)drt_world_total_steps(wrld->rt), (unsigned)drt_world_nstable(wrld->rt));\n"
      "  else if (so.timing) printf(\"usr=%%f cpu=%%f\\n\", secs_, cpu_);\n"
      "  /* §6.4: active strands of a collection are killed at the limit */\n"
      "  if (drt_world_nactive(wrld->rt) > 0 && !drt_world_is_grid(wrld->rt))\n"
      "    drt_world_kill_all(wrld->rt);\n"
      "  if (drt_world_nstable(wrld->rt) == 0) {\n"
      "    fprintf(stderr, \"%%s: error: no stable strands at termination, so no output\\n\", prog_);\n"
      "    d_world_free(wrld);\n    drt_cli_free(&cli);\n    return 1;\n  }\n"
      "  bool bad_ = %s;\n",
      emit_created(e, "wrld", "drt_any_errors(err) || d_create_strands(wrld)"),
      trace ? "  DrtTraceFile trace_ = {0};\n"
              "  if (so.trace_file) {\n"
              "    if (drt_trace_file_open(&trace_, so.trace_file, prog_)) {\n"
              "      d_world_free(wrld);\n      drt_cli_free(&cli);\n      return 1;\n    }\n"
              "    drt_world_set_trace(wrld->rt, trace_.f);\n  }\n"
            : "",
      module_prints(m) ? "wrld->print" : "NULL",
      emit_snapshot_run(e, emit_run_call(e, "wrld", "so.limit"), emit_run_call(e, "wrld", "chunk_")),
      /* the record is complete when the run ends (a run-time error included) */
      trace ? "  drt_world_set_trace(wrld->rt, NULL);\n"
              "  bool trace_bad_ = drt_trace_file_close(&trace_, prog_);\n"
            : "",
      trace ? "trace_bad_" : "false");
  k = 0;
  for (int i = 0; i < m->nstate; i++) {
    IrStateVar *s = m->state[i];
    if (!s->output) continue;
    const char *f = emit_state_field(e, s);
    const char *what = emit_string_lit(e, arena_printf(e->a, "output '%s'", s->name));
    if (is_dynseq(s->ty))
      OUT("  { Nrrd *nl_ = nrrdNew(), *nd_ = nrrdNew();\n"
          "    bad_ |= d_output_%s(wrld, nl_, nd_, false) || drt_output_save_dynseq(err, %s, outf[%d], -1, nl_, nd_);\n"
          "    nrrdNuke(nl_); nrrdNuke(nd_); }\n",
          f, what, k);
    else
      OUT("  { Nrrd *nd_ = nrrdNew();\n    d_out_cursor c_ = {wrld, false, 0};\n"
          "    bad_ |= d_output_shape_%s(wrld, nd_, false, false) ||\n"
          "            drt_output_save_parts(err, %s, outf[%d], nd_, %s, d_output_part_%s, &c_);\n"
          "    nrrdNuke(nd_); }\n",
          f, what, k, emit_output_item_bytes(e, s), f);
    k++;
  }
  OUT("  if (bad_) drt_errors_report(err, stderr, prog_);\n"
      "  else if (err->nwarnings) fputs(drt_warnings_text(err), stderr);\n"
      "  d_world_free(wrld);\n  drt_cli_free(&cli);\n  return bad_ ? 1 : 0;\n}\n");
  if (e->glue && e->glue->after_main) e->glue->after_main(e, out);
}

/* ---- the whole program ------------------------------------------------------------------------- */

bool emit_program_glue(EmitCtx *e, EmitBuf *result) {
  if (!e->m->strand_name || !ir_module_find_cfg(e->m, IR_CFG_STRAND_INIT)) {
    emit_fail(e, "the program has no strand");
    return false;
  }
  EmitBuf pre, structs, lanes, protos, fns, glue;
  emit_buf_init(&lanes, e->a);
  emit_buf_init(&pre, e->a);
  emit_buf_init(&structs, e->a);
  emit_buf_init(&protos, e->a);
  emit_buf_init(&fns, e->a);
  emit_buf_init(&glue, e->a);
  if (!emit_layout_init(e)) return false;
  emit_prelude(e, &pre);
  emit_buf_puts(&pre, "#include <time.h>\n\n");
  const char *wtag = e->opt->exec ? "d_world_s" : arena_printf(e->a, "%s_world_s", ns(e));
  emit_structs(e, &structs, wtag);
  if (e->glue && e->glue->after_structs) e->glue->after_structs(e, &structs); /* the CUDA host half */
  emit_sphere_glue(e, &structs); /* emit_c_sphere.c: needs the structs, used by the methods */
  /* the lane helpers before the functions when a loop runs in lanes
   * (emit_c_loops.c); else the group update prints them (emit_c_simd.c) */
  int nloops = emit_loops_planned(e);
  if (nloops) emit_lanes_helpers(e, &lanes);
  emit_cfgs(e, &protos, &fns);
  emit_helpers(e, &glue);
  emit_defaults(e, &glue);
  emit_create(e, &glue);
  emit_outputs(e, &glue);
  emit_world_fns(e, &glue);
  if (e->opt->exec) {
    emit_main(e, &glue);
  } else {
    emit_buf_printf(&glue, "typedef d_world %s_world_t;\n", ns(e));
    emit_api_glue(e, &glue, false);
  }
  if (e->failed) return false;
  EmitBuf *out = result;
  const char *simd = emit_simd_report(e); /* emit_c_simd.c */
  OUT("%s%s%s/* types */\n%s\n%s", emit_buf_str(&pre), emit_layout_report(e),
      simd ? arena_printf(e->a, "/* --simd=strands: %s */\n", simd) : "", emit_buf_str(&e->types),
      emit_buf_str(&structs));
  if (e->opt->stats) emit_layout_stats(e, stderr);
  if (e->opt->stats && simd) fprintf(stderr, "simd: %s\n", simd);
  if (nloops) {
    const char *how = e->opt->loop_lanes ? "run up to D_SIMD_W iterations at once" : "kept scalar (--no-loop-lanes)";
    OUT("/* loops: %d %s (emit_c_loops.c) */\n", nloops, how);
    if (e->opt->stats) fprintf(stderr, "loops: %d %s\n", nloops, how);
  }
  OUT("static const DrtImage *d_load_image(d_world *, const char *, const char *, const Nrrd *,\n"
      "    unsigned, unsigned, int);\n"
      "static bool d_load_dseq(d_world *, const char *, const char *, const Nrrd *, int, unsigned,\n"
      "    bool, uint32_t *, void **);\n");
  OUT("%s%s\n%s%s", emit_buf_str(&lanes), emit_buf_str(&protos), emit_buf_str(&fns), emit_buf_str(&glue));
  return true;
}
