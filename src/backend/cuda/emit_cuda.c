/* emit_cuda.c -- the CUDA back end: the device half NAME.cu and the hooks
 * of the host half NAME.c (the design is described in emit_cuda.h; the
 * runtime side is rt/cuda/). Expressions and statements are printed by
 * the C printer (emit_cfg_body / emit_instr in scalar mode); this file
 * adds what differs on the device: signatures, the state prologue over the
 * device store, `new`, kernels and the calls that replace strand access in
 * host global blocks. */
#include "backend/cuda/emit_cuda.h"

#include <string.h>

#include "backend/core/core.h"
#include "backend/program/program.h"
#include "backend/core/emit_c_layout.h"

#define OUT(...) emit_buf_printf(out, __VA_ARGS__)

static bool is_global_block(const IrCFG *cfg) {
  return cfg && (cfg->kind == IR_CFG_GLOBAL_START || cfg->kind == IR_CFG_GLOBAL_UPDATE);
}

/* The C name of the device half's entry point for reduction `in`: its
 * position in the module, the same in both halves. */
static const char *red_name(EmitCtx *e, const IrInstr *in) {
  const IrBlock *b = in->block;
  const IrCFG *cfg = b ? b->cfg : NULL;
  int ci = -1, bi = -1, ii = -1;
  for (int i = 0; cfg && i < e->m->ncfgs; i++)
    if (e->m->cfgs[i] == cfg) ci = i;
  for (int i = 0; cfg && i < cfg->nblocks; i++)
    if (cfg->blocks[i] == b) bi = i;
  for (int i = 0; b && i < b->ninstrs; i++)
    if (b->instrs[i] == in) ii = i;
  return arena_printf(e->a, "d_cuda_red_%d_%d_%d", ci, bi, ii);
}

/* The parameter list "T0 a0, T1 a1" (names) or "T0, T1" (no names) of a
 * reduction's extra arguments, after `first`. */
static const char *red_params(EmitCtx *e, const IrInstr *in, const char *first, bool names) {
  EmitBuf b;
  emit_buf_init(&b, e->a);
  emit_buf_puts(&b, first);
  for (int i = 0; i < in->nargs; i++) {
    emit_buf_printf(&b, ", %s", emit_type(e, in->args[i]->ty));
    if (names) emit_buf_printf(&b, " a%d", i);
  }
  return emit_buf_str(&b);
}

/* ---- the host half ----------------------------------------------------------------- */


/* Threads per block of the strand kernels: the schedule's cuda-block. */
static int cuda_block(const EmitCtx *e) {
  return e->opt->schedule ? e->opt->schedule->cuda_block : CUDA_BLOCK;
}

/* ---- strings ------------------------------------------------------------------------ */

/* Whether cfg reads v other than as an argument of print (print's text
 * is printed by the host from the record's site, emit_cuda_print.c). */
static bool used_as_value(const IrCFG *cfg, const IrVar *v) {
  for (int b = 0; b < cfg->nblocks; b++) {
    const IrBlock *blk = cfg->blocks[b];
    if (blk->term.value == v) return true;
    for (int i = 0; i < blk->nphis + blk->ninstrs; i++) {
      const IrInstr *in = i < blk->nphis ? blk->phis[i] : blk->instrs[i - blk->nphis];
      if (in->kind == IR_I_OP && in->op == IR_OP_PRINT) continue;
      for (int k = 0; k < in->nargs; k++)
        if (in->args[k] == v) return true;
    }
  }
  return false;
}

/* The string literals device code holds as values, distinct texts in
 * module order (the same table in both halves): the host interns them
 * into d_dglobals.d_strlit_ (diderot_cuda.h, dc_str_intern). */
static int string_lits(EmitCtx *e, const char ***texts) {
  const IrModule *m = e->m;
  bool has_new = cuda_module_has_new(m);
  int n = 0, cap = 0;
  const char **t = NULL;
  for (int c = 0; c < m->ncfgs; c++) {
    const IrCFG *cfg = m->cfgs[c];
    if (!cuda_device_cfg(cfg->kind, has_new)) continue;
    for (int b = 0; b < cfg->nblocks; b++)
      for (int i = 0; i < cfg->blocks[b]->ninstrs; i++) {
        const IrInstr *in = cfg->blocks[b]->instrs[i];
        if (in->kind != IR_I_LIT || in->lit.kind != IR_LIT_STRING || !in->dst ||
            !used_as_value(cfg, in->dst))
          continue;
        const char *s = in->lit.s ? in->lit.s : "";
        int k = 0;
        while (k < n && strcmp(t[k], s)) k++;
        if (k < n) continue;
        if (n == cap) {
          cap = cap ? 2 * cap : 8;
          const char **nt = arena_alloc(e->a, (size_t)cap * sizeof *nt);
          for (int j = 0; j < n; j++) nt[j] = t[j];
          t = nt;
        }
        t[n++] = s;
      }
  }
  *texts = t;
  return n;
}

/* The load_sequence calls of device code, in module order (the same in
 * both halves): site k reads d_dglobals.d_ldseq_k, which d_globals_fix
 * loads once (diderot_cuda.h, d_load_dseq). */
static int load_sites(EmitCtx *e, IrInstr ***sites) {
  const IrModule *m = e->m;
  bool has_new = cuda_module_has_new(m);
  int n = 0;
  IrInstr **s = NULL;
  for (int pass = 0; pass < 2; pass++) {
    n = 0;
    for (int c = 0; c < m->ncfgs; c++) {
      const IrCFG *cfg = m->cfgs[c];
      if (!cuda_device_cfg(cfg->kind, has_new)) continue;
      for (int b = 0; b < cfg->nblocks; b++)
        for (int i = 0; i < cfg->blocks[b]->ninstrs; i++) {
          IrInstr *in = cfg->blocks[b]->instrs[i];
          if (in->kind != IR_I_OP || in->op != IR_OP_LOAD_SEQ || !in->dst) continue;
          if (s) s[n] = in;
          n++;
        }
    }
    if (!n) break;
    if (!s) s = arena_alloc(e->a, (size_t)n * sizeof *s);
  }
  *sites = s;
  return n;
}

static int load_site_index(EmitCtx *e, const IrInstr *in) {
  IrInstr **s;
  int n = load_sites(e, &s);
  for (int k = 0; k < n; k++)
    if (s[k] == in) return k;
  return -1;
}

/* The path of a load_sequence (a constant string, ast_to_high_expr.c). */
static const char *load_path(const IrInstr *in) {
  const IrInstr *d = in->nargs ? in->args[0]->def : NULL;
  return d && d->kind == IR_I_LIT && d->lit.kind == IR_LIT_STRING && d->lit.s ? d->lit.s : "";
}

static bool has_string(const IrType *t) {
  return t && (t->kind == IR_TY_STRING ||
               (t->kind == IR_TY_SEQ && t->len != IR_SEQ_DYNAMIC && has_string(t->elem)));
}

/* Replace every string of the value `lv` (type t, an lvalue) by its
 * canonical copy; dynamic sequences are not the device's (refused by
 * emit_cuda_check.c when device code reads them). */
static void emit_intern(EmitCtx *e, EmitBuf *out, const IrType *t, const char *lv, const char *err,
                        int depth) {
  if (!has_string(t)) return;
  if (t->kind == IR_TY_STRING) {
    OUT("  %s = dc_str_intern(%s, %s);\n", lv, err, lv);
    return;
  }
  const char *ix = arena_printf(e->a, "s%d_", depth);
  OUT("  for (int %s = 0; %s < %d; %s++) {\n", ix, ix, t->len, ix);
  emit_intern(e, out, t->elem, arena_printf(e->a, "%s.v[%s]", lv, ix), err, depth + 1);
  OUT("  }\n");
}

/* The globals as the device sees them: the d_world fields of globals,
 * constants and inputs, with the same C types in both halves, and the
 * canonical copies of device code's string literals. */
static void emit_dglobals(EmitCtx *e, EmitBuf *out) {
  OUT("/* the globals as the device half sees them (copied by d_cuda_globals) */\n"
      "typedef struct d_dglobals {\n");
  for (int i = 0; i < e->m->nglobals; i++) {
    IrGlobal *g = e->m->globals[i];
    OUT("  %s %s;\n", emit_type(e, g->ty), emit_global_field(e, g));
  }
  const char **lits;
  int nlits = string_lits(e, &lits);
  if (nlits) OUT("  const char *d_strlit_[%d]; /* filled by d_globals_fix */\n", nlits);
  IrInstr **loads;
  int nloads = load_sites(e, &loads);
  for (int k = 0; k < nloads; k++)
    OUT("  %s d_ldseq_%d; /* load_sequence(\"%s\") of device code (d_globals_fix) */\n",
        emit_type(e, loads[k]->dst->ty), k, load_path(loads[k]));
  if (!e->m->nglobals && !nlits && !nloads) OUT("  char unused_;\n");
  OUT("} d_dglobals;\n\n");
}

static void cuda_host_glue(EmitCtx *e, EmitBuf *out) {
  emit_dglobals(e, out);
  OUT("static void d_cuda_globals(const void *w_, void *g_) {\n"
      "  const d_world *w = (const d_world *)w_;\n  d_dglobals *g = (d_dglobals *)g_;\n"
      "  (void)w; (void)g;\n");
  for (int i = 0; i < e->m->nglobals; i++) {
    const char *f = emit_global_field(e, e->m->globals[i]);
    OUT("  g->%s = w->%s;\n", f, f);
  }
  OUT("}\n"
      "/* the device half (NAME.cu, rt/cuda/dc_run.h) */\n"
      "uint32_t d_cuda_run(void *wrld, void **cuda, DrtWorld *rt, const DrtProgram *prog,\n"
      "    void (*globals)(const void *, void *), size_t gsize, uint32_t max_steps);\n"
      "void d_cuda_free(void *cuda);\n"
      "void d_cuda_sync_states(void *cuda);\n"
      "/* where the device half's print records go (rt/cuda/dc_print.h) */\n"
      "FILE *d_cuda_print_file(void *w_);\n"
      "FILE *d_cuda_print_file(void *w_) { return ((d_world *)w_)->print; }\n\n");
}

static const char *cuda_run_call(EmitCtx *e, const char *wrld, const char *limit) {
  return arena_printf(e->a,
                      "d_cuda_run(%s, &%s->cuda, %s->rt, &d_program, d_cuda_globals, "
                      "sizeof(d_dglobals), %s)",
                      wrld, wrld, wrld, limit);
}

static bool cuda_host_instr(EmitCtx *e, EmitBuf *out, IrInstr *in) {
  if (!is_global_block(e->cfg) || in->kind != IR_I_OP) return false;
  const char *d = in->dst ? emit_var(e, in->dst) : NULL;
  switch (in->op) {
  case IR_OP_NUM_STRANDS:
  case IR_OP_NUM_ACTIVE:
  case IR_OP_NUM_STABLE:
    OUT("  { extern uint32_t d_cuda_count(void *, int);\n    %s = (dint)d_cuda_count(wrld->cuda, %d); }\n",
        d, in->op == IR_OP_NUM_STRANDS ? 0 : in->op == IR_OP_NUM_ACTIVE ? 1 : 2);
    return true;
  case IR_OP_STABILIZE_ALL:
    OUT("  { extern void d_cuda_stabilize_all(void *);\n    d_cuda_stabilize_all(wrld->cuda); }\n");
    return true;
  case IR_OP_DIE_ALL:
    OUT("  { extern void d_cuda_kill_all(void *);\n    d_cuda_kill_all(wrld->cuda); }\n");
    return true;
  case IR_OP_STRAND_REDUCE: {
    if (!in->dst || !in->fn || in->nimm < 2) {
      emit_fail(e, "this strand-set reduction is not supported by the cuda target");
      return true;
    }
    const char *fn = red_name(e, in);
    if ((IrReduce)in->imm[0] == IR_REDUCE_COLLECT) {
      /* the map runs on the device over the set's strands in slot order
       * (the C targets' order); the alive count bounds the length */
      const char *el = emit_type(e, in->dst->ty->elem);
      OUT("  { extern uint32_t d_cuda_count(void *, int);\n    extern uint32_t %s(%s);\n"
          "    uint32_t ns_ = d_cuda_count(wrld->cuda, 0);\n"
          "    %s = (%s){0, d_seq_alloc(D_SEQ_RT, ns_, sizeof(%s))};\n"
          "    %s.len = %s(wrld->cuda, %s.v, ns_",
          fn, red_params(e, in, "void *, void *, uint32_t", false), d, emit_type(e, in->dst->ty),
          el, d, fn, d);
      for (int i = 0; i < in->nargs; i++) OUT(", %s", emit_var(e, in->args[i]));
      OUT("); }\n");
      return true;
    }
    OUT("  { extern %s %s(%s);\n    %s = %s(wrld->cuda", emit_type(e, in->dst->ty), fn,
        red_params(e, in, "void *", false), d, fn);
    for (int i = 0; i < in->nargs; i++) OUT(", %s", emit_var(e, in->args[i]));
    OUT("); }\n");
    return true;
  }
  case IR_OP_NEW:
    emit_fail(e, "'new' in a global block is not supported by the cuda target");
    return true;
  default: return false;
  }
}

/* ---- the device half: layouts -------------------------------------------------------- */

typedef struct CudaEmit {
  IxCtx *ix;
  const Layout *state;  /* the device store's strand-state layout */
  const char *base;     /* C text: the strand mode at d_i (method prologue) */
  const char *word;     /* C text: word d_w of strand d_i */
  const char *words;    /* C text: store size in words at capacity d_N */
  const char *thread;   /* C text: the worklist position of this thread */
  const char *state_txt, *thread_txt; /* CuTe text of both layouts */
  int W;                /* capacity multiple */
  bool has_new;         /* strand methods create strands */
  CudaPrintSites prints;/* print statements of strand code */
  const char **lits;    /* string_lits: index k is d_strlit_[k] */
  int nlits;
  bool seq_arena;       /* device code builds dynamic sequences (dc_seq.h) */
} CudaEmit;

static const IxExpr *simp(IxCtx *ix, const IxExpr *x) {
  return x ? ix_lower(ix, ix_simplify(ix, x)) : NULL;
}

static const char *ix_text(EmitCtx *e, IxCtx *ix, const IxExpr *x) {
  if (!x) {
    emit_fail(e, "an index expression the layout algebra could not produce");
    return "0";
  }
  return arena_printf(e->a, "(%s)", ix_to_c(ix, x));
}

static bool cuda_layouts(EmitCtx *e, CudaEmit *c) {
  IxCtx *ix = c->ix = ix_ctx_new(e->a);
  EmitStrandLayout kind = (EmitStrandLayout)e->opt->strand_layout;
  c->W = kind == EMIT_STRAND_AOSOA ? e->opt->aosoa_width : 1;
  int F = emit_state_words(e);
  const IxExpr *N = ix_var_full(ix, "d_N", c->W, IX_INF, NULL, c->W);
  const IxExpr *di = ix_var_full(ix, "d_i", 0, IX_INF, N, 1);
  const IxExpr *dw = ix_var(ix, "d_w", 0, F - 1);
  LytError err;
  c->state = emit_strand_state_layout(ix, kind, c->W, F, N, &err);
  if (!c->state) {
    emit_fail(e, "strand-state layout: %s", err.msg ? err.msg : "refused");
    return false;
  }
  const IxExpr *crd[2] = {di, dw};
  c->base = ix_text(e, ix, simp(ix, lyt_emit_fwd(ix, lyt_mode(c->state, 0), &di, 1, &err)));
  c->word = ix_text(e, ix, simp(ix, lyt_emit_fwd(ix, c->state, crd, 2, &err)));
  c->words = ix_text(e, ix, simp(ix, lyt_cosize(ix, c->state)));
  c->state_txt = lyt_to_string(ix, c->state);
  /* strand → thread: position (thread t, block b) of the worklist */
  const IxExpr *B = ix_var(ix, "gridDim.x", 1, INT32_MAX);
  const int T = cuda_block(e);
  const Layout *tl = lyt_pair(ix, lyt_leafk(ix, T, 1), lyt_leaf(ix, B, ix_const(ix, T)));
  const IxExpr *tc[2] = {ix_var(ix, "threadIdx.x", 0, T - 1),
                         ix_var_full(ix, "blockIdx.x", 0, INT32_MAX - 1, B, 1)};
  c->thread = ix_text(e, ix, simp(ix, lyt_emit_fwd(ix, tl, tc, 2, &err)));
  c->thread_txt = lyt_to_string(ix, tl);
  return !e->failed;
}

/* ---- the device half: instructions ----------------------------------------------------- */

/* After an allocation of a sequence (or a `new` whose initialisation
 * allocates): leave the function when the arena was full (dc_seq.h); the
 * step or map runs again with a larger one, so what is returned is unused. */
static void emit_seq_fail_check(EmitCtx *e, EmitBuf *out) {
  IrCfgKind k = e->cfg ? e->cfg->kind : IR_CFG_FUNC;
  if (k == IR_CFG_START || k == IR_CFG_UPDATE) OUT("  if (nc_->sfail) return DRT_EXIT_CONTINUE;\n");
  else if (k == IR_CFG_FUNC && e->cfg && e->cfg->result)
    OUT("  if (nc_->sfail) { %s r_{}; return r_; }\n", emit_type(e, e->cfg->result));
  else OUT("  if (nc_->sfail) return;\n");
}

static bool cuda_dev_instr(EmitCtx *e, EmitBuf *out, IrInstr *in) {
  CudaEmit *c = e->hook_data;
  /* a string is the address of its canonical host copy (diderot_cuda.h):
   * a literal's comes with the globals; print's text alone is printed by
   * the host from the print record's site */
  if (in->kind == IR_I_LIT && in->lit.kind == IR_LIT_STRING) {
    if (!in->dst || !e->cfg || !used_as_value(e->cfg, in->dst)) return true;
    int k = 0;
    while (k < c->nlits && strcmp(c->lits[k], in->lit.s ? in->lit.s : "")) k++;
    if (k == c->nlits) emit_fail(e, "a string literal missing from the device's table");
    else OUT("  %s = wrld->d_strlit_[%d];\n", emit_var(e, in->dst), k);
    return true;
  }
  /* canonical copies: equal texts have equal addresses */
  if (in->kind == IR_I_OP && (in->op == IR_OP_EQ || in->op == IR_OP_NE) && in->dst &&
      in->nargs == 2 && in->args[0]->ty->kind == IR_TY_STRING) {
    OUT("  %s = %s %s %s;\n", emit_var(e, in->dst), emit_var(e, in->args[0]),
        in->op == IR_OP_EQ ? "==" : "!=", emit_var(e, in->args[1]));
    return true;
  }
  if (!cuda_device_value(in)) {
    emit_fail(e, "this dynamic sequence is not supported on the device");
    return true;
  }
  if (in->kind != IR_I_OP) return false;
  if (cuda_seq_builds(in)) {
    /* the C printing, with the device's d_seq_alloc/d_seq_join (D_SEQ_RT
     * is nc_); a full arena stops the method: the step runs again */
    e->hooks.instr = NULL;
    emit_instr(e, out, in);
    e->hooks.instr = cuda_dev_instr;
    emit_seq_fail_check(e, out);
    return true;
  }
  if (e->m->level == IR_LOW && in->op == IR_LOP_VLOAD && in->dst && in->nargs == 2 &&
      in->dst->ty->kind == IR_TY_VEC) {
    /* consecutive samples, one load each: nvcc turns the C printer's
     * memcpy from a (const dreal *) into byte loads (4 per sample, and the
     * instructions that join them; the bspln3 probe's step kernel ran
     * 1.65x slower on an H200, bench/results.md) */
    const char *d = emit_var(e, in->dst);
    OUT("  { const dreal *p_ = (const dreal *)%s->data + %s;\n", emit_var(e, in->args[0]),
        emit_var(e, in->args[1]));
    for (int i = 0; i < in->dst->ty->width; i++) OUT("    %s = p_[%d];\n", emit_lane(e, d, i), i);
    OUT("  }\n");
    return true;
  }
  switch (in->op) {
  case IR_OP_NEW:
    if (!e->cfg || (e->cfg->kind != IR_CFG_START && e->cfg->kind != IR_CFG_UPDATE)) {
      emit_fail(e, "'new' outside a strand method on the device");
      return true;
    }
    OUT("  { dreal ns_[D_STATE_WORDS];\n    memset(ns_, 0, sizeof ns_);\n    d_strand_init(wrld, ns_");
    for (int i = 0; i < in->nargs; i++) OUT(", %s", emit_var(e, in->args[i]));
    OUT(", nc_);\n    d_new_push(nc_, id, ns_); }\n");
    if (c->seq_arena) emit_seq_fail_check(e, out);
    return true;
  case IR_OP_SPHERE:
  case IR_OP_SPHERE_AT: /* centred at the caller's pos in the start-of-step copy */
    emit_sphere_query_with(e, out, in, "", "d_in", "dc_sphere_query(nc_->a");
    return true;
  case IR_OP_NUM_STRANDS:
  case IR_OP_NUM_ACTIVE:
  case IR_OP_NUM_STABLE: {
    /* the counts at the start of the step; a global `stabilize` runs the
     * strands one after the other on the CPU, each seeing the counts
     * moved by the strands before it (worklist position w); in the map of
     * a reduction, the global block's current counts (dc_map_begin) */
    if (!in->dst) return true;
    const char *d = emit_var(e, in->dst);
    if (in->op == IR_OP_NUM_STRANDS) OUT("  %s = (dint)(nc_->a->nactive + nc_->a->nstable);\n", d);
    else
      OUT("  %s = (dint)(nc_->a->%s %c nc_->a->count_down * nc_->w);\n", d,
          in->op == IR_OP_NUM_ACTIVE ? "nactive" : "nstable", in->op == IR_OP_NUM_ACTIVE ? '-' : '+');
    return true;
  }
  case IR_OP_PRINT:
    emit_cuda_print_instr(e, out, in, &c->prints);
    return true;
  case IR_OP_INDEX_FAIL: { /* as the C targets' (emit_c_expr.c), into the step's counts */
    IrCfgKind k = e->cfg ? e->cfg->kind : IR_CFG_FUNC;
    bool strand = k == IR_CFG_START || k == IR_CFG_UPDATE || k == IR_CFG_STABILIZE;
    OUT("  dc_index_fail(nc_->a, %s, %d, %d, %d, (long long)%s, (long long)%s);\n",
        strand ? "(long long)id" : "-1", in->nimm > 0 ? in->imm[0] : 0, in->nimm > 1 ? in->imm[1] : 0,
        in->nimm > 2 ? in->imm[2] : 0, emit_var(e, in->args[0]), emit_var(e, in->args[1]));
    return true;
  }
  case IR_LOP_PROBE_FAIL: { /* as the C targets' (emit_c_expr.c), into the step's counts */
    IrCfgKind k = e->cfg ? e->cfg->kind : IR_CFG_FUNC;
    bool strand = k == IR_CFG_START || k == IR_CFG_UPDATE || k == IR_CFG_STABILIZE;
    int dim = in->args[1]->ty->dim, np = in->nargs - 2 - dim;
    OUT("  { long long n_[3] = {");
    for (int a = 0; a < dim; a++) OUT("%s(long long)%s", a ? ", " : "", emit_var(e, in->args[2 + a]));
    OUT("}; double x_[3] = {");
    for (int a = 0; a < np; a++) OUT("%s(double)%s", a ? ", " : "", emit_var(e, in->args[2 + dim + a]));
    if (!np) OUT("0");
    OUT("};\n    dc_probe_fail(nc_->a, %s, %s, %d, %s->size, %d, n_, %s); }\n",
        strand ? "(long long)id" : "-1", emit_var(e, in->args[0]), in->nimm ? in->imm[0] : 0,
        emit_var(e, in->args[1]), dim, np ? "x_" : "NULL");
    return true;
  }
  case IR_OP_LOAD_SEQ: { /* read by the host, once (d_globals_fix) */
    int k = load_site_index(e, in);
    if (k < 0 || !in->dst) emit_fail(e, "a load_sequence missing from the device's table");
    else OUT("  %s = wrld->d_ldseq_%d;\n", emit_var(e, in->dst), k);
    return true;
  }
  case IR_OP_STRAND_REDUCE:
  case IR_OP_STABILIZE_ALL:
  case IR_OP_DIE_ALL:
  case IR_OP_LOAD_IMAGE:
  case IR_OP_CREATE_GRID:
    emit_fail(e, "operator %s is not supported on the device", ir_op_info(e->m->level, in->op)->name);
    return true;
  default: return false;
  }
}

/* ---- the device half: functions and kernels -------------------------------------------- */

static void emit_device_cfg(EmitCtx *e, EmitBuf *out, CudaEmit *c, IrCFG *cfg) {
  const char *name = emit_cfg_name(e, cfg);
  switch (cfg->kind) {
  case IR_CFG_FUNC:
    OUT("/* %s (the map of a reduction) */\nstatic DC_DEV %s %s(const d_dglobals *wrld, DcStore st",
        cfg->name ? cfg->name : "function", emit_type(e, cfg->result), name);
    for (int p = 0; p < cfg->nparams; p++)
      OUT(", %s %s", emit_type(e, cfg->params[p]->ty), emit_var(e, cfg->params[p]));
    /* nc_: the counts and print buffer of the reduction (dc_map_begin) */
    OUT(", d_newctx *nc_) {\n  const int64_t d_N = st.cap;\n  const dreal *d_in = st.w;\n"
        "  (void)wrld; (void)d_N; (void)d_in; (void)nc_;\n");
    break;
  case IR_CFG_STRAND_INIT:
    OUT("/* strand_init: a packed record (new strands) */\n"
        "static DC_DEV void %s(const d_dglobals *wrld, dreal *self", name);
    for (int p = 0; p < cfg->nparams; p++)
      OUT(", %s %s", emit_type(e, cfg->params[p]->ty), emit_var(e, cfg->params[p]));
    OUT(", d_newctx *nc_) {\n  (void)wrld; (void)nc_;\n");
    break;
  case IR_CFG_START:
  case IR_CFG_UPDATE:
  case IR_CFG_STABILIZE:
    OUT("/* %s */\nstatic DC_DEV %s %s(const d_dglobals *wrld, DcStore st, uint32_t id, "
        "d_newctx *nc_) {\n",
        ir_cfg_kind_name(cfg->kind), cfg->kind == IR_CFG_STABILIZE ? "void" : "DrtExit", name);
    /* other strands' state and the caller's sphere centre: the
     * start-of-step copy (the store itself changes during the step) */
    OUT("  const int64_t d_N = st.cap, d_i = id;\n"
        "  dreal *self = st.w + %s; /* strand mode of %s */\n"
        "  const dreal *d_in = (const dreal *)nc_->a->in;\n"
        "  (void)wrld; (void)d_N; (void)d_i; (void)self; (void)d_in; (void)nc_;\n",
        c->base, c->state_txt);
    break;
  default: return;
  }
  emit_cfg_body(e, out, cfg);
  OUT("}\n\n");
}

static void emit_kernels(EmitCtx *e, EmitBuf *out, CudaEmit *c) {
  IrModule *m = e->m;
  bool start = ir_module_find_cfg(m, IR_CFG_START) != NULL;
  bool stab = ir_module_find_cfg(m, IR_CFG_STABILIZE) != NULL;
  OUT("/* One super-step (§6.3) of the active strands: thread → worklist\n"
      " * position by the layout %s (threads, blocks). */\n"
      "static __global__ void __launch_bounds__(D_BLOCK)\n"
      "d_k_step(const d_dglobals *wrld, DcStore st, DcStore nst, DcStep a) {\n"
      "  const uint32_t w_ = %s;\n  if (w_ >= a.nwork) return;\n"
      "  const uint32_t id = a.work[w_];\n  d_newctx nc_ = {nst, &a, 0u, 0u, w_, 0u, 0u};\n"
      "  DrtExit r_ = DRT_EXIT_CONTINUE;\n  (void)wrld; (void)nc_;\n",
      c->thread_txt, c->thread);
  /* a full sequence arena (nc_.sfail): the step runs again */
  const char *sf = c->seq_arena ? "  if (nc_.sfail) return;\n" : "";
  if (start) OUT("  if (a.fresh[id]) r_ = d_strand_start(wrld, st, id, &nc_);\n%s", sf);
  OUT("  a.fresh[id] = 0;\n");
  if (ir_module_find_cfg(m, IR_CFG_UPDATE))
    OUT("  if (r_ == DRT_EXIT_CONTINUE) {\n    nc_.phase = 1u;\n    r_ = d_strand_update(wrld, st, id, &nc_);\n"
        "  %s  }\n", sf);
  OUT("  if (r_ == DRT_EXIT_STABILIZE) {\n%s    a.status[id] = DRT_STABLE;\n"
      "  } else if (r_ == DRT_EXIT_DIE) {\n    a.status[id] = DRT_DYING;\n  }\n}\n\n",
      stab ? "    d_strand_stabilize(wrld, st, id, &nc_);\n" : "");
  OUT("/* Global `stabilize` (§6.3): every active strand. */\n"
      "static __global__ void __launch_bounds__(D_BLOCK)\n"
      "d_k_stabilize_all(const d_dglobals *wrld, DcStore st, DcStep a) {\n"
      "  const uint32_t w_ = %s;\n  if (w_ >= a.nwork) return;\n  const uint32_t id = a.work[w_];\n"
      "  d_newctx nc_ = {st, &a, 0u, 0u, w_, 0u, 0u};\n"
      "  (void)wrld; (void)st; (void)nc_;\n%s%s  a.status[id] = DRT_STABLE;\n}\n\n",
      c->thread, stab ? "  d_strand_stabilize(wrld, st, id, &nc_);\n" : "",
      stab && c->seq_arena ? "  if (nc_.sfail) return;\n" : "");
}

/* Whether device code reads global g (a dynamic sequence: the check
 * admits only those of fixed-size values, emit_cuda_check.c). */
static bool device_reads_global(const IrModule *m, const IrGlobal *g, bool has_new) {
  for (int c = 0; c < m->ncfgs; c++) {
    const IrCFG *cfg = m->cfgs[c];
    if (!cuda_device_cfg(cfg->kind, has_new)) continue;
    for (int b = 0; b < cfg->nblocks; b++)
      for (int i = 0; i < cfg->blocks[b]->ninstrs; i++) {
        const IrInstr *in = cfg->blocks[b]->instrs[i];
        if (in->kind == IR_I_GLOBAL_GET && in->global == g) return true;
      }
  }
  return false;
}

/* d_globals_fix: host pointers in the globals replaced by device copies
 * (images once; sequences that device code reads, D_SEQ_GLOBALS of them,
 * when their bytes changed). */
static void emit_globals_fix(EmitCtx *e, EmitBuf *out, const CudaEmit *c) {
  bool has_new = c->has_new;
  OUT("static void d_globals_fix(DrtErrors *err, DcImages *im, DcSeqCache *sq, d_dglobals *g) {\n"
      "  (void)err; (void)im; (void)sq; (void)g;\n");
  for (int k = 0; k < c->nlits; k++)
    OUT("  g->d_strlit_[%d] = dc_str_intern(err, %s);\n", k, emit_string_lit(e, c->lits[k]));
  for (int i = 0; i < e->m->nglobals; i++)
    emit_intern(e, out, e->m->globals[i]->ty,
                arena_printf(e->a, "g->%s", emit_global_field(e, e->m->globals[i])), "err", 0);
  int nseq = 0;
  for (int i = 0; i < e->m->nglobals; i++) {
    IrGlobal *g = e->m->globals[i];
    const char *f = emit_global_field(e, g);
    if (g->ty->kind == IR_TY_IMAGE) {
      OUT("  g->%s = dc_image(err, im, g->%s);\n", f, f);
    } else if (g->ty->kind == IR_TY_SEQ && g->ty->len == IR_SEQ_DYNAMIC &&
               device_reads_global(e->m, g, has_new)) {
      if (!cuda_device_flat_seq(g->ty)) {
        emit_fail(e, "device code reads global '%s', a sequence of dynamic values", g->name);
        return;
      }
      const char *el = emit_type(e, g->ty->elem);
      if (has_string(g->ty->elem)) {
        /* the device's copy holds the canonical strings; the host's stays */
        OUT("  if (g->%s.len) {\n    %s *t_ = (%s *)malloc((size_t)g->%s.len * sizeof(%s));\n"
            "    if (!t_) drt_error(err, \"out of memory\");\n"
            "    else memcpy(t_, g->%s.v, (size_t)g->%s.len * sizeof(%s));\n"
            "    for (uint32_t q_ = 0; t_ && q_ < g->%s.len; q_++) {\n",
            f, el, el, f, el, f, f, el, f);
        emit_intern(e, out, g->ty->elem, "t_[q_]", "err", 0);
        OUT("    }\n    g->%s.v = t_ ? (%s *)dc_seq_upload(err, &sq[%d], t_, (size_t)g->%s.len * sizeof(%s)) : NULL;\n"
            "    free(t_);\n  } else g->%s.v = NULL;\n",
            f, el, nseq++, f, el, f);
        continue;
      }
      OUT("  g->%s.v = (%s *)dc_seq_upload(err, &sq[%d], g->%s.v, (size_t)g->%s.len * sizeof(%s));\n",
          f, el, nseq++, f, f, el);
    }
  }
  IrInstr **loads;
  int nloads = load_sites(e, &loads);
  for (int k = 0; k < nloads; k++) {
    if (has_string(loads[k]->dst->ty->elem)) {
      emit_fail(e, "load_sequence of strings in strand code");
      return;
    }
    OUT("  { DcSeqLoad l_ = {err, &sq[%d]}, *wrld = &l_;\n    %s; }\n", nseq++,
        emit_load_seq_call(e, loads[k]->dst->ty, "\"sequence\"",
                           emit_string_lit(e, load_path(loads[k])), "NULL",
                           arena_printf(e->a, "g->d_ldseq_%d", k)));
  }
  OUT("}\n#define D_SEQ_GLOBALS %d\n\n", nseq);
}

/* d_record_strings: the strings of a packed record of a strand created
 * on the host replaced by their canonical copies (dc_upload). */
static void emit_record_strings(EmitCtx *e, EmitBuf *out) {
  OUT("static void d_record_strings(DrtErrors *err, dreal *rec) {\n  (void)err; (void)rec;\n");
  for (int i = 0; i < e->m->nstate; i++) {
    const IrStateVar *sv = e->m->state[i];
    if (!has_string(sv->ty)) continue;
    const char *at = arena_printf(e->a, "(char *)(rec + %d)", emit_state_offset(e, sv));
    OUT("  { %s v_;\n  memcpy(&v_, %s, sizeof v_);\n", emit_type(e, sv->ty), at);
    emit_intern(e, out, sv->ty, "v_", "err", 0);
    OUT("  memcpy(%s, &v_, sizeof v_); }\n", at);
  }
  OUT("}\n\n");
}

/* Dynamic sequences on the device (rt/cuda/dc_seq.h): whether kernels
 * build them, and the dynamic-sequence state variables: d_seq_field(k)
 * (their byte offsets in a packed record, element sizes) and
 * d_seq_strings (the canonical copies of their elements' strings, for
 * strands created on the host). */
static void emit_seq_parts(EmitCtx *e, EmitBuf *out, const CudaEmit *c) {
  IrModule *m = e->m;
  int k = 0;
  for (int i = 0; i < m->nstate; i++)
    if (cuda_device_flat_seq(m->state[i]->ty)) k++;
  OUT("#define D_SEQ_ARENA %d\n#define D_SEQ_STATE %d\n", c->seq_arena ? 1 : 0, k);
  if (!c->seq_arena && !k) return;
  if (k) {
    OUT("static DC_HD inline void d_seq_field(int k, uint32_t *off, uint32_t *esz) {\n"
        "  switch (k) {\n");
    k = 0;
    for (int i = 0; i < m->nstate; i++) {
      const IrStateVar *sv = m->state[i];
      if (!cuda_device_flat_seq(sv->ty)) continue;
      OUT("  case %d: /* %s */\n    *off = %d * (uint32_t)sizeof(dreal);\n"
          "    *esz = (uint32_t)sizeof(%s);\n    return;\n",
          k++, sv->name, emit_state_offset(e, sv), emit_type(e, sv->ty->elem));
    }
    OUT("  default: *off = 0; *esz = 0; return;\n  }\n}\n"
        "static void d_seq_strings(DrtErrors *err, int k, void *elems, uint32_t n) {\n"
        "  (void)err; (void)elems; (void)n;\n  switch (k) {\n");
    k = 0;
    for (int i = 0; i < m->nstate; i++) {
      const IrStateVar *sv = m->state[i];
      if (!cuda_device_flat_seq(sv->ty)) continue;
      if (has_string(sv->ty->elem)) {
        const char *el = emit_type(e, sv->ty->elem);
        OUT("  case %d:\n    for (uint32_t q_ = 0; q_ < n; q_++) {\n", k);
        emit_intern(e, out, sv->ty->elem, arena_printf(e->a, "((%s *)elems)[q_]", el), "err", 0);
        OUT("    }\n    return;\n");
      }
      k++;
    }
    OUT("  default: return;\n  }\n}\n");
  }
  OUT("#include \"cuda/dc_seq.h\"\n");
}

/* What dc_run.h needs for the start-of-step copy of the store and for
 * sphere queries (dc_sphere.h). */
static void emit_sphere_parts(EmitCtx *e, EmitBuf *out) {
  int dim = emit_sphere_used(e) ? emit_sphere_dim(e) : 0;
  bool reads_in = dim > 0;
  for (int c = 0; c < e->m->ncfgs; c++) {
    const IrCFG *cfg = e->m->cfgs[c];
    if (cfg->kind != IR_CFG_START && cfg->kind != IR_CFG_UPDATE && cfg->kind != IR_CFG_STABILIZE)
      continue;
    for (int b = 0; b < cfg->nblocks; b++)
      for (int i = 0; i < cfg->blocks[b]->ninstrs; i++) {
        const IrInstr *in = cfg->blocks[b]->instrs[i];
        reads_in |= in->kind == IR_I_STATE_GET && in->nargs == 1;
      }
  }
  OUT("#define D_READS_IN %d\n#define D_BRUTE_SPHERE %d\n", reads_in ? 1 : 0,
      e->opt->no_space_partition ? 1 : 0);
  if (!dim) return;
  OUT("/* the pos of slot i of a store */\n"
      "static DC_DEV void d_sphere_pos(const dreal *d_in, int64_t d_N, uint32_t i, dreal *p) {\n"
      "  (void)d_N;\n");
  emit_sphere_pos_read(e, out, "d_in", "i", "p");
  OUT("}\n/* the cell size of the index: the largest radius known at the start of a step */\n"
      "static double d_sphere_hint(const d_dglobals *g) {\n  double h_ = 0;\n  (void)g;\n");
  emit_sphere_hint(e, out, "g->");
  OUT("  return h_;\n}\n");
}

/* The reductions of global blocks, and their collections of strands into
 * sequences: a functor over strands and an entry point called from the
 * host half. */
static void emit_reductions(EmitCtx *e, EmitBuf *out) {
  IrModule *m = e->m;
  for (int ci = 0; ci < m->ncfgs; ci++) {
    IrCFG *cfg = m->cfgs[ci];
    if (!is_global_block(cfg)) continue;
    for (int bi = 0; bi < cfg->nblocks; bi++)
      for (int ii = 0; ii < cfg->blocks[bi]->ninstrs; ii++) {
        IrInstr *in = cfg->blocks[bi]->instrs[ii];
        if (in->kind != IR_I_OP || in->op != IR_OP_STRAND_REDUCE || !in->fn || !in->dst ||
            in->nimm < 2)
          continue;
        bool collect = (IrReduce)in->imm[0] == IR_REDUCE_COLLECT;
        /* T: what the map returns (a collection's element) */
        const char *fn = red_name(e, in),
                   *T = emit_type(e, collect ? in->dst->ty->elem : in->dst->ty);
        OUT("struct %s_map {\n  const d_dglobals *wrld;\n  DcStore st;\n", fn);
        for (int i = 0; i < in->nargs; i++) OUT("  %s a%d;\n", emit_type(e, in->args[i]->ty), i);
        /* the strand's slot orders its print records */
        OUT("  DcStep a;\n  DC_DEV %s operator()(uint32_t i) const {\n"
            "    d_newctx nc_ = {st, &a, 0u, 0u, i, 0u, 0u};\n    return %s(wrld, st, i", T,
            emit_cfg_name(e, in->fn));
        for (int i = 0; i < in->nargs; i++) OUT(", a%d", i);
        OUT(", &nc_);\n  }\n};\n");
        if (collect) {
          OUT("extern \"C\" uint32_t %s(%s) {\n  DcWorld *cw = (DcWorld *)cw_;\n"
              "  if (!cw || !dc_refresh_globals(cw)) return 0;\n",
              fn, red_params(e, in, "void *cw_, void *out, uint32_t cap", true));
          for (int i = 0; i < in->nargs; i++)
            emit_intern(e, out, in->args[i]->ty, arena_printf(e->a, "a%d", i), "cw->err", 0);
          OUT("  %s_map m_ = {cw->dglobals, cw->st", fn);
          for (int i = 0; i < in->nargs; i++) OUT(", a%d", i);
          OUT(", {}};\n  uint32_t r_ = 0;\n  do {\n    if (!dc_map_begin(cw, &m_.a)) break;\n"
              "    r_ = dc_collect<%s>(cw, m_, %d, (%s *)out, cap);\n  } while (dc_map_again(cw));\n"
              "  return r_;\n}\n\n", T, in->imm[1], T);
          continue;
        }
        OUT("extern \"C\" %s %s(%s) {\n  DcWorld *cw = (DcWorld *)cw_;\n"
            "  dc_refresh_globals(cw);\n",
            T, fn, red_params(e, in, "void *cw_", true));
        for (int i = 0; i < in->nargs; i++)
          emit_intern(e, out, in->args[i]->ty, arena_printf(e->a, "a%d", i), "cw->err", 0);
        OUT("  %s_map m_ = {cw->dglobals, cw->st", fn);
        for (int i = 0; i < in->nargs; i++) OUT(", a%d", i);
        OUT(", {}};\n  %s r_{};\n  do {\n    if (!dc_map_begin(cw, &m_.a)) break;\n"
            "    r_ = dc_reduce<%s, %d>(cw->err, m_, cw->status, cw->n, %d);\n"
            "  } while (dc_map_again(cw));\n  return r_;\n}\n\n",
            T, T, in->imm[0], in->imm[1]);
      }
  }
}

bool emit_cuda_program(Arena *a, IrModule *m, const EmitOptions *opt, const char **out_text,
                       char *err, size_t errlen) {
  EmitOptions o = *opt;
  o.scalar = true; /* no vector extensions in device code */
  EmitCtx ctx, *e = &ctx;
  emit_ctx_init(e, a, m, &o);
  e->hooks.instr = cuda_dev_instr;
  e->hooks.cplusplus = true; /* the device half is C++ */
  CudaEmit c;
  memset(&c, 0, sizeof c);
  e->hook_data = &c;
  EmitBuf pre, body, dg, sq;
  emit_buf_init(&pre, a);
  emit_buf_init(&body, a);
  emit_buf_init(&dg, a);
  emit_buf_init(&sq, a);
  emit_dglobals(e, &dg); /* before the types are printed: it may add some */
  c.nlits = string_lits(e, &c.lits);
  if (!ir_module_find_cfg(m, IR_CFG_STRAND_INIT)) emit_fail(e, "the program has no strand");
  if (!e->failed && emit_layout_init(e) && cuda_layouts(e, &c)) {
    EmitBuf *out = &body;
    c.has_new = cuda_module_has_new(m);
    for (int i = 0; i < m->ncfgs; i++) {
      const IrCFG *cfg = m->cfgs[i];
      if (!cuda_device_cfg(cfg->kind, c.has_new)) continue;
      for (int b = 0; b < cfg->nblocks; b++)
        for (int k = 0; k < cfg->blocks[b]->ninstrs; k++)
          c.seq_arena |= cuda_seq_builds(cfg->blocks[b]->instrs[k]);
    }
    /* device functions: the maps of reductions, `new`'s initialisation, methods */
    for (int i = 0; i < m->ncfgs; i++) {
      IrCFG *cfg = m->cfgs[i];
      if (cfg->kind == IR_CFG_FUNC || (cfg->kind == IR_CFG_STRAND_INIT && c.has_new))
        emit_device_cfg(e, out, &c, cfg);
    }
    for (int i = 0; i < m->ncfgs; i++) {
      IrCfgKind k = m->cfgs[i]->kind;
      if (k == IR_CFG_START || k == IR_CFG_UPDATE || k == IR_CFG_STABILIZE)
        emit_device_cfg(e, out, &c, m->cfgs[i]);
    }
    emit_kernels(e, out, &c);
    emit_globals_fix(e, out, &c);
    emit_record_strings(e, out);
    emit_sphere_parts(e, out);
    if (c.prints.n) emit_cuda_print_decoder(e, out, &c.prints);
    OUT("#define D_HAS_NEW %d\n#include \"cuda/dc_run.h\"\n\n", c.has_new ? 1 : 0);
    emit_reductions(e, out);
    emit_seq_parts(e, &sq, &c); /* before the types are printed: it may add some */
  }
  if (e->failed) {
    if (err && errlen) snprintf(err, errlen, "%s", e->err);
    return false;
  }
  EmitBuf *out = &pre;
  OUT("/* Device half (CUDA) of the program; the host half is the .c file of\n"
      " * the same name. Compile with nvcc, or as C++ with -DDIDEROT_CUDA_EMULATE\n"
      " * (CPU emulation, rt/cuda/emu.h). */\n#include \"cuda/diderot_cuda.h\"\n"
      "/* the context of the sequence allocations of device code (dc_seq.h) */\n"
      "#define D_SEQ_RT nc_\n");
  emit_prelude(e, out);
  OUT("/* types */\n%s\n%s", emit_buf_str(&e->types), emit_buf_str(&dg));
  OUT("/* the device store: words of dreal in the strand-state layout\n"
      " *   %s  (coordinate (strand, word); d_N = capacity)\n"
      " * packed records (new strands, moves): the words in order */\n"
      "typedef struct DcStore { dreal *w; uint32_t cap; } DcStore;\n"
      "enum { D_STATE_WORDS = %d, D_BLOCK = %d, D_PAD = %d };\n"
      "static DC_HD size_t d_store_words(uint32_t cap) {\n  const int64_t d_N = cap;\n"
      "  return (size_t)%s;\n}\n",
      c.state_txt, emit_state_words(e), cuda_block(e), c.W, c.words);
  for (int put = 0; put <= 1; put++)
    OUT("static DC_HD void d_%s(%sdreal *st, uint32_t cap, uint32_t i, %sdreal *pk) {\n"
        "  const int64_t d_N = cap, d_i = i;\n  (void)d_N;\n"
        "  for (int64_t d_w = 0; d_w < D_STATE_WORDS; d_w++)\n"
        "    %s = %s;\n}\n", /* not memcpy: nvcc copies bytewise */
        put ? "put" : "get", put ? "" : "const ", put ? "const " : "",
        put ? arena_printf(a, "st[%s]", c.word) : "pk[d_w]",
        put ? "pk[d_w]" : arena_printf(a, "st[%s]", c.word));
  /* d_new_push is inline: a program without `new` does not use it */
  OUT("/* the context of `new` in a method: the buffer and the ordering key */\n"
      "typedef struct d_newctx { DcStore nst; const DcStep *a; unsigned phase; uint32_t k, w, pk;\n"
      "  unsigned sfail; /* a sequence allocation failed (dc_seq.h) */ } d_newctx;\n"
      "static DC_DEV inline void d_new_push(d_newctx *nc, uint32_t creator, const dreal *rec) {\n"
      "  uint32_t p = dc_new_slot(nc->a, creator, nc->phase, nc->k++);\n"
      "  if (p < nc->a->ncap) d_put(nc->nst.w, nc->nst.cap, p, rec);\n}\n\n");
  OUT("%s", emit_buf_str(&sq));
  int sdim = emit_sphere_used(e) ? emit_sphere_dim(e) : 0;
  OUT("#define D_SPHERE_DIM %d\n%s", sdim, sdim ? "#include \"cuda/dc_sphere.h\"\n" : "");
  OUT("#define D_HAS_PRINT %d\n%s\n", c.prints.n > 0, c.prints.n ? "#include \"cuda/dc_print.h\"\n" : "");
  OUT("%s", emit_buf_str(&body));
  *out_text = emit_buf_str(&pre);
  return true;
}

/* ---- the host half --------------------------------------------------------------------- */

/* The C targets' program glue, with the device world in d_world, runs
 * through the device half, and global blocks reaching the strands there. */
static const EmitGlueHooks cuda_glue = {
    .world_field = "  void *cuda; /* the device world (rt/cuda/dc_run.h) */\n",
    .after_structs = cuda_host_glue,
    .run_call = cuda_run_call,
};

bool emit_cuda_host_program(Arena *a, IrModule *m, const EmitOptions *opt, const char **out,
                            char *err, size_t errlen) {
  EmitCtx e;
  emit_ctx_init(&e, a, m, opt);
  e.hooks.instr = cuda_host_instr;
  e.glue = &cuda_glue;
  EmitBuf body;
  emit_buf_init(&body, a);
  if (!emit_program_glue(&e, &body) || e.failed) {
    if (err && errlen) snprintf(err, errlen, "%s", e.failed ? e.err : "code generation failed");
    return false;
  }
  *out = emit_buf_str(&body);
  return true;
}
