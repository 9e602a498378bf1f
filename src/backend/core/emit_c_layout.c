/* emit_c_layout.c -- layout-derived indexing in generated C (see
 * emit_c_layout.h for the layouts). Every array index this back end prints
 * for strand state, outputs, strand chunks and image re-layout is the
 * forward map of a layout, simplified by range analysis (ix_simplify) and
 * strength-reduced (ix_lower); nothing here writes index arithmetic by
 * hand. The operations of the printed index expressions are counted per
 * layout for --stats and the report at the top of the generated file.
 *
 * Hoisting: a strand method addresses its own state as self[inv(w)] with
 * self = store + dep(id), where dep and inv are the layout's strand mode
 * and word mode (the forward map is their sum), so the strand-dependent
 * part is computed once per method and every field access is a constant
 * (AoS) or a constant multiple of the capacity (SoA, AoSoA: W·w).
 */
#include "backend/core/emit_c_layout.h"

#include <string.h>

#include "backend/core/core.h"

#define OUT(...) emit_buf_printf(out, __VA_ARGS__)

static bool is_pow2(long x) { return x > 0 && (x & (x - 1)) == 0; }

/* ---- the layouts -------------------------------------------------------------------- */

const Layout *emit_strand_state_layout(IxCtx *ix, EmitStrandLayout kind, int width, int nwords,
                                       const IxExpr *n, LytError *err) {
  err->status = LYT_OK;
  err->msg = NULL;
  int64_t F = nwords;
  switch (kind) {
  case EMIT_STRAND_AOS: return lyt_pair(ix, lyt_leaf(ix, n, ix_const(ix, F)), lyt_leafk(ix, F, 1));
  case EMIT_STRAND_SOA: return lyt_pair(ix, lyt_leaf(ix, n, ix_const(ix, 1)), lyt_leaf(ix, ix_const(ix, F), n));
  case EMIT_STRAND_AOSOA: {
    /* one W-strand block is the tile (W,F):(1,W); blocks repeat N/W times */
    const Layout *tile = lyt_pair(ix, lyt_leafk(ix, width, 1), lyt_leafk(ix, F, width));
    const Layout *reps = lyt_leaf(ix, ix_divk(ix, n, width), ix_const(ix, 1));
    const Layout *l = lyt_blocked_product(ix, tile, reps, err);
    if (l && lyt_rank(l) != 2) {
      err->status = LYT_E_ARG;
      err->msg = "aosoa: the blocked product is not (strand, word)";
      return NULL;
    }
    return l;
  }
  }
  err->status = LYT_E_ARG;
  err->msg = "unknown strand layout";
  return NULL;
}

/* Mode `mode` of layout l at a 1-D coordinate, simplified and lowered. */
static const IxExpr *mode_at(IxCtx *ix, const Layout *l, int mode, const IxExpr *crd) {
  LytError err;
  const IxExpr *x = lyt_emit_fwd(ix, lyt_mode(l, mode), &crd, 1, &err);
  return x ? ix_lower(ix, ix_simplify(ix, x)) : NULL;
}

const IxExpr *emit_strand_index(IxCtx *ix, const Layout *state, const IxExpr *s, int64_t w) {
  LytError err;
  const IxExpr *crd[2] = {s, ix_const(ix, w)};
  const IxExpr *x = lyt_emit_fwd(ix, state, crd, 2, &err);
  return x ? ix_lower(ix, ix_simplify(ix, x)) : NULL;
}

/* ---- per-program state -------------------------------------------------------------- */

enum { ST_STATE, ST_PACKED, ST_OUTPUT, ST_CHUNK, ST_IMAGE, ST_VOXEL, ST_VOXEL_FAST, ST_N };
static const char *const stat_names[ST_N] = {"strand state",  "packed record",
                                             "outputs",       "strand chunks",
                                             "image re-layout", "voxel loads (LowIR)",
                                             "  of which fast"};
/* operation classes counted in printed index expressions */
enum { OP_ADD, OP_MUL, OP_DIVMOD, OP_SHIFT, OP_AND, OP_OTHER, OP_N };
static const char *const op_names[OP_N] = {"add", "mul", "div/mod", "shift", "and", "other"};

typedef struct LayStat {
  const char *layout; /* CuTe text */
  int nexpr;          /* index expressions printed (voxels: loads) */
  int ops[OP_N];
} LayStat;

/* One image re-layout function per (dimension, components). */
typedef struct ImgKind {
  int d, ncomp;
} ImgKind;

struct EmitLayout {
  IxCtx *ix;
  EmitStrandLayout kind;
  int W, F, WB, chunk;
  int *off, *nw, *bytes; /* per state var (IrStateVar.index) */
  bool *realw;           /* the variable's words are all reals */
  const Layout *state, *packed, *chunks, *output;
  const IxExpr *N, *i, *j; /* d_N, d_i (own strand), d_j (another strand) */
  LayStat st[ST_N];
  ImgKind img[16];
  int nimg;
};

static EmitLayout *LY(EmitCtx *e) { return e->lay; }

/* Bytes and alignment of a state value in generated C (LP64). false for
 * a type that cannot be state. */
static bool type_bytes(EmitCtx *e, const IrType *t, int *size, int *align) {
  int WB = e->opt->double_real ? 8 : 4;
  switch (t->kind) {
  case IR_TY_BOOL: *size = *align = 1; return true;
  case IR_TY_INT: *size = *align = e->opt->long_int ? 8 : 4; return true;
  case IR_TY_STRAND: *size = *align = 4; return true;
  case IR_TY_STRING:
  case IR_TY_IMAGE: *size = *align = 8; return true;
  case IR_TY_TENSOR: *size = emit_tensor_size(t) * WB; *align = WB; return true;
  case IR_TY_SEQ:
    if (t->len == IR_SEQ_DYNAMIC) {
      *size = 16; /* struct { uint32_t len; T *v; } */
      *align = 8;
      return true;
    } else {
      int es, ea;
      if (!type_bytes(e, t->elem, &es, &ea)) return false;
      *size = es * (t->len ? t->len : 1);
      *align = ea;
      return true;
    }
  default: return false;
  }
}

static bool all_reals(const IrType *t) {
  if (t->kind == IR_TY_TENSOR) return true;
  return t->kind == IR_TY_SEQ && t->len != IR_SEQ_DYNAMIC && t->len > 0 && all_reals(t->elem);
}

/* Count the operations of a printed (lowered) index expression. */
static void count_ops(const IxExpr *x, int *ops) {
  switch (x->op) {
  case IX_CONST:
  case IX_VAR: return;
  case IX_ADD: ops[OP_ADD] += x->n - 1 + (x->k != 0); break;
  case IX_MUL: ops[OP_MUL] += x->n - 1 + (x->k != 1 && x->k != -1); break;
  case IX_DIV:
  case IX_MOD: ops[OP_DIVMOD]++; break;
  case IX_SHL:
  case IX_SHR: ops[OP_SHIFT]++; break;
  case IX_AND: ops[OP_AND]++; break;
  default: ops[OP_OTHER]++; break;
  }
  for (int i = 0; i < x->n; i++) count_ops(x->arg[i], ops);
}

/* C text of an index expression of layout class `which` (counted). */
static const char *ix_print(EmitCtx *e, int which, const IxExpr *x) {
  EmitLayout *L = LY(e);
  if (!x) {
    emit_fail(e, "an index expression the layout could not produce");
    return "0";
  }
  L->st[which].nexpr++;
  count_ops(x, L->st[which].ops);
  const char *s = ix_to_c(L->ix, x);
  return x->op == IX_CONST || x->op == IX_VAR ? s : arena_printf(e->a, "(%s)", s);
}

bool emit_layout_init(EmitCtx *e) {
  EmitLayout *L = arena_alloc(e->a, sizeof *L);
  memset(L, 0, sizeof *L);
  e->lay = L;
  IrModule *m = e->m;
  L->ix = ix_ctx_new(e->a);
  L->kind = (EmitStrandLayout)e->opt->strand_layout;
  L->W = L->kind == EMIT_STRAND_AOSOA ? e->opt->aosoa_width : 1;
  if (L->kind == EMIT_STRAND_AOSOA && !is_pow2(L->W)) {
    emit_fail(e, "aosoa needs a power-of-two width");
    return false;
  }
  L->WB = e->opt->double_real ? 8 : 4;
  int n = m->nstate > 0 ? m->nstate : 1;
  L->off = arena_alloc(e->a, (size_t)n * sizeof *L->off);
  L->nw = arena_alloc(e->a, (size_t)n * sizeof *L->nw);
  L->bytes = arena_alloc(e->a, (size_t)n * sizeof *L->bytes);
  L->realw = arena_alloc(e->a, (size_t)n * sizeof *L->realw);
  int F = 0;
  for (int i = 0; i < m->nstate; i++) {
    IrStateVar *s = m->state[i];
    int size, align;
    if (s->index < 0 || s->index >= m->nstate || !type_bytes(e, s->ty, &size, &align)) {
      emit_fail(e, "state variable '%s' has a type that cannot be stored", s->name);
      return false;
    }
    L->off[s->index] = F;
    L->bytes[s->index] = size;
    L->nw[s->index] = (size + L->WB - 1) / L->WB;
    L->realw[s->index] = all_reals(s->ty);
    F += L->nw[s->index];
  }
  L->F = F > 0 ? F : 1;
  /* the capacity: a multiple of the block width (the runtime pads it) */
  L->N = ix_var_full(L->ix, "d_N", L->W, IX_INF, NULL, L->W);
  L->i = ix_var_full(L->ix, "d_i", 0, IX_INF, L->N, 1);
  L->j = ix_var_full(L->ix, "d_j", 0, IX_INF, L->N, 1);
  LytError err;
  L->state = emit_strand_state_layout(L->ix, L->kind, L->W, L->F, L->N, &err);
  if (!L->state) {
    emit_fail(e, "strand-state layout: %s", err.msg ? err.msg : "refused");
    return false;
  }
  L->packed = lyt_leafk(L->ix, L->F, 1);
  /* chunks: whole AoSoA blocks (256 is a multiple of every W <= 256) */
  L->chunk = L->W > 256 ? L->W : 256;
  const IxExpr *M = ix_var_full(L->ix, "d_M", L->chunk, IX_INF, NULL, L->chunk);
  L->chunks = lyt_logical_divide(L->ix, lyt_leaf(L->ix, M, ix_const(L->ix, 1)),
                                 lyt_leafk(L->ix, L->chunk, 1), &err);
  if (!L->chunks) {
    emit_fail(e, "strand-chunk layout: %s", err.msg ? err.msg : "refused");
    return false;
  }
  const IxExpr *C = ix_var_full(L->ix, "d_C", 1, IX_INF, NULL, 1);
  const IxExpr *K = ix_var_full(L->ix, "d_K", 0, IX_INF, NULL, 1);
  L->output = lyt_pair(L->ix, lyt_leaf(L->ix, C, ix_const(L->ix, 1)), lyt_leaf(L->ix, K, C));
  L->st[ST_STATE].layout = lyt_to_string(L->ix, L->state);
  L->st[ST_PACKED].layout = lyt_to_string(L->ix, L->packed);
  L->st[ST_OUTPUT].layout = lyt_to_string(L->ix, L->output);
  L->st[ST_CHUNK].layout = lyt_to_string(L->ix, L->chunks);
  return true;
}

int emit_state_words(EmitCtx *e) { return LY(e)->F; }

int emit_state_offset(EmitCtx *e, const IrStateVar *s) { return LY(e)->off[s->index]; }

/* ---- state words ----------------------------------------------------------------------- */

/* Index text of word w in the addressing `how`: 'p' packed (self[w]), 's'
 * own state in a method (self[inv(w)]), 'o' another strand d_j. */
static const char *word_index(EmitCtx *e, char how, int w) {
  EmitLayout *L = LY(e);
  IxCtx *ix = L->ix;
  switch (how) {
  case 'p': {
    LytError err;
    const IxExpr *c = ix_const(ix, w);
    return ix_print(e, ST_PACKED, lyt_emit_fwd(ix, L->packed, &c, 1, &err));
  }
  case 's': return ix_print(e, ST_STATE, mode_at(ix, L->state, 1, ix_const(ix, w)));
  default: return ix_print(e, ST_STATE, emit_strand_index(ix, L->state, L->j, w));
  }
}

/* Move state variable sv between C value `val` and the words at `base`
 * (load: val = words). */
static void xfer(EmitCtx *e, EmitBuf *out, const IrStateVar *sv, const char *base, char how,
                 const char *val, bool load, const char *ind) {
  EmitLayout *L = LY(e);
  int k = sv->index, off = L->off[k];
  const IrType *t = sv->ty;
  if (t->kind == IR_TY_TENSOR && t->order == 0) {
    const char *ref = arena_printf(e->a, "%s[%s]", base, word_index(e, how, off));
    OUT("%s%s = %s;\n", ind, load ? val : ref, load ? ref : val);
    return;
  }
  if (L->realw[k]) {
    for (int c = 0; c < L->nw[k]; c++) {
      const char *ref = arena_printf(e->a, "%s[%s]", base, word_index(e, how, off + c));
      const char *v = t->kind == IR_TY_TENSOR ? arena_printf(e->a, "%s.v[%d]", val, c)
                                              : arena_printf(e->a, "((dreal *)&%s)[%d]", val, c);
      OUT("%s%s = %s;\n", ind, load ? v : ref, load ? ref : v);
    }
    return;
  }
  /* other values: their bytes, word by word */
  for (int c = 0; c < L->nw[k]; c++) {
    int nb = L->bytes[k] - c * L->WB;
    if (nb > L->WB) nb = L->WB;
    const char *ref = arena_printf(e->a, "&%s[%s]", base, word_index(e, how, off + c));
    const char *v = arena_printf(e->a, "(char *)&%s + %d", val, c * L->WB);
    OUT("%smemcpy(%s, %s, %d);\n", ind, load ? v : ref, load ? ref : v, nb);
  }
}

void emit_state_access(EmitCtx *e, EmitBuf *out, const IrInstr *in) {
  IrCfgKind k = e->cfg ? e->cfg->kind : IR_CFG_FUNC;
  bool get = in->kind == IR_I_STATE_GET;
  const IrStateVar *sv = in->state;
  if (!sv || !LY(e)) {
    emit_fail(e, "a state access without a state variable");
    return;
  }
  if (get && in->nargs == 1) { /* another strand's start-of-step state */
    OUT("  { const int64_t d_j = %s;\n", emit_var(e, in->args[0]));
    xfer(e, out, sv, "d_in", 'o', emit_var(e, in->dst), true, "    ");
    OUT("  }\n");
    return;
  }
  char how;
  if (k == IR_CFG_STRAND_INIT) how = 'p';
  else if (k == IR_CFG_START || k == IR_CFG_UPDATE || k == IR_CFG_STABILIZE) how = 's';
  else {
    emit_fail(e, "strand state accessed outside the strand");
    return;
  }
  if (get) xfer(e, out, sv, "self", how, emit_var(e, in->dst), true, "  ");
  else if (in->nargs == 1) xfer(e, out, sv, "self", how, emit_var(e, in->args[0]), false, "  ");
  else emit_fail(e, "a state write without a value");
}

void emit_state_read(EmitCtx *e, EmitBuf *out, const IrStateVar *sv, const char *store,
                     const char *strand, const char *dst, const char *indent) {
  OUT("%s{ const int64_t d_j = %s;\n", indent, strand);
  xfer(e, out, sv, store, 'o', dst, true, arena_printf(e->a, "%s  ", indent));
  OUT("%s}\n", indent);
}

/* Whether cfg reads or writes strand state. */
static void state_uses(const IrCFG *cfg, bool *own, bool *other) {
  *own = *other = false;
  for (int b = 0; b < cfg->nblocks; b++)
    for (int i = 0; i < cfg->blocks[b]->ninstrs; i++) {
      const IrInstr *in = cfg->blocks[b]->instrs[i];
      if (in->kind == IR_I_STATE_SET || (in->kind == IR_I_STATE_GET && in->nargs == 0)) *own = true;
      if (in->kind == IR_I_STATE_GET && in->nargs == 1) *other = true;
    }
}

void emit_layout_prologue(EmitCtx *e, EmitBuf *out, IrCFG *cfg) {
  EmitLayout *L = LY(e);
  bool own, other;
  state_uses(cfg, &own, &other);
  bool method = cfg->kind == IR_CFG_START || cfg->kind == IR_CFG_UPDATE ||
                cfg->kind == IR_CFG_STABILIZE;
  const char *rt = method ? "ctx->world" : "wrld->rt";
  /* the update's body (emit_c_step.c) receives wrld and d_N */
  bool body = cfg->kind == IR_CFG_UPDATE && emit_step_chunked(e);
  if (body) OUT("  (void)ctx; (void)wrld; (void)d_N; (void)id; (void)self_;\n");
  else if (method) OUT("  d_world *wrld = ctx->globals;\n  (void)wrld; (void)id; (void)self_;\n");
  bool global = cfg->kind == IR_CFG_GLOBAL_START || cfg->kind == IR_CFG_GLOBAL_UPDATE;
  if (global) {
    OUT("  d_world *wrld = wrld_;\n  (void)rt_;\n");
    rt = "rt_";
  }
  if (!(method && own) && !other) return;
  /* cuda: the host world's store must hold every device strand first (a
   * global stabilize later in the block refreshes it, dc_run.h) */
  if (other && global && e->opt->target == EMIT_TARGET_CUDA) OUT("  d_cuda_sync_states(wrld->cuda);\n");
  if (!body) OUT("  const int64_t d_N = drt_world_capacity(%s);\n  (void)d_N;\n", rt);
  /* (void): reads of pos may all come from the sphere queries (emit_c_sphere.c) */
  if (other) OUT("  const dreal *d_in = drt_world_in_store(%s);\n  (void)d_in;\n", rt);
  if (method && own)
    OUT("  const int64_t d_i = id;\n  dreal *self = (dreal *)self_ + %s; /* strand mode of %s */\n",
        ix_print(e, ST_STATE, mode_at(L->ix, L->state, 0, L->i)), L->st[ST_STATE].layout);
}

const char *emit_simd_state_dep(EmitCtx *e) {
  EmitLayout *L = LY(e);
  return ix_print(e, ST_STATE, mode_at(L->ix, L->state, 0, L->i));
}

void emit_simd_state_xfer(EmitCtx *e, EmitBuf *out, const IrStateVar *sv, bool load,
                          const char *val) {
  xfer(e, out, sv, "self", 's', val, load, "    ");
}

bool emit_simd_state_gather(EmitCtx *e, EmitBuf *out, const IrStateVar *sv, const char *val,
                            bool whole) {
  EmitLayout *L = LY(e);
  int k = sv->index;
  bool real = sv->ty->kind == IR_TY_TENSOR && (sv->ty->order == 0 || L->realw[k]);
  if (!real) return false;
  int n = sv->ty->order == 0 ? 1 : L->nw[k];
  for (int c = 0; c < n; c++)
    OUT("  %s%s = d_gather((const dreal *)self_ + %s, d_sidx);\n", val,
        whole ? "" : arena_printf(e->a, ".v[%d]", c), word_index(e, 's', L->off[k] + c));
  return true;
}

int emit_simd_aosoa_width(EmitCtx *e) { return LY(e)->kind == EMIT_STRAND_AOSOA ? LY(e)->W : 0; }

void emit_layout_store_decl(EmitCtx *e, EmitBuf *out, const char *rt) {
  (void)e;
  OUT("  const dreal *d_in = drt_world_store(%s);\n  const int64_t d_N = drt_world_capacity(%s);\n"
      "  (void)d_in; (void)d_N;\n", rt, rt);
}

void emit_layout_output_copy(EmitCtx *e, EmitBuf *out, const IrStateVar *sv, const char *ctype,
                             int ncomp) {
  EmitLayout *L = LY(e);
  IxCtx *ix = L->ix;
  /* the NRRD order of the output: ncomp samples per strand written */
  const IxExpr *k = ix_var(ix, "d_k", 0, IX_INF);
  const Layout *o = lyt_pair(ix, lyt_leafk(ix, ncomp, 1),
                             lyt_leaf(ix, ix_var(ix, "d_K", 0, IX_INF), ix_const(ix, ncomp)));
  L->st[ST_OUTPUT].layout = lyt_to_string(ix, L->output);
  emit_layout_store_decl(e, out, "rt");
  /* a grid, or a collection whose slots are all written (stable, or alive
   * for a snapshot): no per-strand test, and the C compiler unswitches.
   * From slot c_->slot on, at most cap strands' values into buf. */
  OUT("  const bool all_ = drt_world_is_grid(rt) ||\n"
      "      drt_world_nstable(rt) + (snap ? drt_world_nactive(rt) : 0) == ns_;\n"
      "  dreal *out_ = buf; /* a local: stores through it cannot change it */\n"
      "  (void)out_;\n"
      "  int64_t d_k = 0; /* output layout %s */\n"
      "  uint32_t i = c_->slot;\n"
      "  for (; i < ns_ && (size_t)d_k < cap; i++) {\n"
      "    if (!all_ && !drt_world_output_includes(rt, i, snap)) continue;\n"
      "    const int64_t d_j = i;\n",
      lyt_to_string(ix, o));
  if (L->realw[sv->index]) {
    for (int c = 0; c < ncomp && c < L->nw[sv->index]; c++) {
      const IxExpr *crd[2] = {ix_const(ix, c), k};
      LytError err;
      const IxExpr *oi = lyt_emit_fwd(ix, o, crd, 2, &err);
      OUT("    out_[%s] = d_in[%s];\n",
          ix_print(e, ST_OUTPUT, oi ? ix_lower(ix, ix_simplify(ix, oi)) : NULL),
          word_index(e, 'o', L->off[sv->index] + c));
    }
  } else {
    const IxExpr *crd[2] = {ix_const(ix, 0), k};
    LytError err;
    const IxExpr *oi = lyt_emit_fwd(ix, o, crd, 2, &err);
    OUT("    %s v_;\n", emit_type(e, sv->ty));
    xfer(e, out, sv, "d_in", 'o', "v_", true, "    ");
    OUT("    memcpy((%s *)buf + %s, &v_, esz_);\n", ctype,
        ix_print(e, ST_OUTPUT, oi ? ix_lower(ix, ix_simplify(ix, oi)) : NULL));
  }
  OUT("    d_k++;\n  }\n  c_->slot = i;\n");
}

/* ---- the glue: words, DrtStateLayout, image re-layout ------------------------------------ */

/* Image kinds (dimension, components) of the module's images. */
static void collect_images(EmitCtx *e) {
  EmitLayout *L = LY(e);
  IrModule *m = e->m;
  for (int i = 0; i < m->nglobals; i++) {
    const IrType *t = m->globals[i]->ty;
    if (t->kind != IR_TY_IMAGE) continue;
    int d = t->dim, c = emit_tensor_size(t);
    bool seen = false;
    for (int k = 0; k < L->nimg; k++) seen |= L->img[k].d == d && L->img[k].ncomp == c;
    if (!seen && L->nimg < (int)(sizeof L->img / sizeof L->img[0]))
      L->img[L->nimg++] = (ImgKind){d, c};
  }
}

/* Mode 1 + a of a brick layout at the natural coordinate (l, b). */
static const IxExpr *brick_mode_at(IxCtx *ix, const Layout *l, int a, const IxExpr *place,
                                   const IxExpr *brick) {
  LytError err;
  const IxExpr *crd[2] = {place, brick};
  const IxExpr *x = lyt_emit_fwd(ix, lyt_mode(l, 1 + a), crd, 2, &err);
  return x ? ix_lower(ix, ix_simplify(ix, x)) : NULL;
}

/* The re-layout of a loaded image, dst[L_stored(c, l, b)] = src[L_nrrd(c, x)]
 * over every stored sample, both sides from the layouts: the loops run over
 * the storage layout's natural coordinate, bricks b_a outside (slowest axis
 * first), places l_a in the brick inside, and place l_a of brick b_a holds
 * voxel x_a = b_a·B + l_a - (H - 1), clamped into the image for a halo
 * (plain bricks, H = 0: x_a = b_a·B + l_a, and places beyond the image's
 * edge stay zero). Each level adds its mode's part to the offsets of the
 * level above (the storage layout is linear in the natural coordinate), so
 * the copy itself is adds; and a brick is written in one sweep while the
 * rows it reads stay in cache. (The halo:8 copy of a 512^3 float volume,
 * 1.3 GB, still takes 3.3 s here, mostly the kernel zeroing fresh pages:
 * bench/results.md.) */
static void emit_relayout_fn(EmitCtx *e, EmitBuf *out, int d, int ncomp) {
  EmitLayout *L = LY(e);
  IxCtx *ix = L->ix;
  int B = e->opt->image_brick, H = e->m->image_halo, E = H ? B + 2 * H - 1 : B, lo = H ? H - 1 : 0;
  const IxExpr *n[3];
  for (int a = 0; a < d; a++) n[a] = ix_var(ix, arena_printf(e->a, "d_n%d", a), 1, IX_INF);
  const Layout *src = lyt_image_layout(ix, d, ncomp, n, 0, 0);
  const Layout *dst = lyt_image_storage(ix, d, ncomp, n, B, H);
  const IxExpr *len = lyt_cosize(ix, dst);
  L->st[ST_IMAGE].layout = lyt_to_string(ix, lyt_image_layout(ix, d, ncomp, n, B, H));
  if (H)
    OUT("/* %d-D images of %d component(s) in bricks of %d^%d with a halo of %d below and %d\n"
        " * above: stored as %s, voxel x in its brick's interior\n * at %lld + %s\n"
        " * (from NRRD order %s) */\n",
        d, ncomp, B, d, H - 1, H, lyt_to_string(ix, dst), (long long)lyt_image_origin(d, ncomp, B, H),
        L->st[ST_IMAGE].layout, lyt_to_string(ix, src));
  else
    OUT("/* %d-D images of %d component(s) in layout %s\n * (from NRRD order %s) */\n", d, ncomp,
        L->st[ST_IMAGE].layout, lyt_to_string(ix, src));
  OUT("static void d_relayout_%d_%d(DrtErrors *errs, const char *what, DrtImage *img) {\n", d,
      ncomp);
  for (int a = 0; a < d; a++) OUT("  const int64_t d_n%d = img->size[%d];\n", a, a);
  OUT("  const size_t len_ = (size_t)%s;\n", ix_print(e, ST_IMAGE, ix_lower(ix, ix_simplify(ix, len))));
  OUT("  dreal *dst_ = %s;\n"
      "  if (!dst_) {\n"
      "    drt_error(errs, \"image '%%s': out of memory for its bricks (%%zu bytes)\", what,\n"
      "              len_ * sizeof(dreal));\n"
      "    return;\n  }\n"
      "  const dreal *src_ = img->data;\n",
      H ? "malloc((len_ ? len_ : 1) * sizeof(dreal))" : "calloc(len_ ? len_ : 1, sizeof(dreal))");
  const IxExpr *zero = ix_const(ix, 0);
  int ind = 2;
  /* the bricks */
  for (int a = d - 1; a >= 0; a--) {
    const IxExpr *nb = ix_divk(ix, ix_addk(ix, n[a], B - 1), B);
    const IxExpr *bv = ix_var_full(ix, arena_printf(e->a, "d_b%d", a), 0, IX_INF, nb, 1);
    const IxExpr *to = brick_mode_at(ix, dst, a, zero, bv);
    if (!to) {
      emit_fail(e, "image layout: a brick's offset refused");
      return;
    }
    OUT("%*sfor (int64_t d_b%d = 0; d_b%d < %s; d_b%d++) {\n", ind, "", a, a,
        ix_print(e, ST_IMAGE, ix_lower(ix, ix_simplify(ix, nb))), a);
    ind += 2;
    OUT("%*sconst int64_t ob%d_ = %s%s%s;\n", ind, "", a, a < d - 1 ? arena_printf(e->a, "ob%d_", a + 1) : "",
        a < d - 1 ? " + " : "", ix_print(e, ST_IMAGE, to));
  }
  /* the places in a brick, and the voxels they hold */
  for (int a = d - 1; a >= 0; a--) {
    const IxExpr *lv = ix_var(ix, arena_printf(e->a, "d_l%d", a), 0, E - 1);
    const IxExpr *x = ix_var_full(ix, arena_printf(e->a, "d_x%d", a), 0, IX_INF, n[a], 1);
    const IxExpr *to = brick_mode_at(ix, dst, a, lv, zero), *from = mode_at(ix, src, 1 + a, x);
    if (!to || !from) {
      emit_fail(e, "image layout: a mode's offsets refused");
      return;
    }
    OUT("%*sfor (int64_t d_l%d = 0; d_l%d < %d; d_l%d++) {\n", ind, "", a, a, E, a);
    ind += 2;
    if (H) {
      OUT("%*sconst int64_t t%d_ = d_b%d * %d + d_l%d - %d;\n", ind, "", a, a, B, a, lo);
      OUT("%*sconst int64_t d_x%d = t%d_ < 0 ? 0 : t%d_ >= d_n%d ? d_n%d - 1 : t%d_;\n", ind, "", a, a,
          a, a, a, a);
    } else {
      OUT("%*sconst int64_t d_x%d = d_b%d * %d + d_l%d;\n", ind, "", a, a, B, a);
      OUT("%*sif (d_x%d >= d_n%d) break; /* beyond the image: zeros */\n", ind, "", a, a);
    }
    const char *up_o = a < d - 1 ? arena_printf(e->a, "ol%d_ + ", a + 1) : "";
    const char *up_i = a < d - 1 ? arena_printf(e->a, "i%d_ + ", a + 1) : "";
    OUT("%*sconst int64_t ol%d_ = %s%s, i%d_ = %s%s;\n", ind, "", a, up_o, ix_print(e, ST_IMAGE, to),
        a, up_i, ix_print(e, ST_IMAGE, from));
  }
  const IxExpr *c = ix_var(ix, "d_c", 0, ncomp - 1);
  OUT("%*sfor (int64_t d_c = 0; d_c < %d; d_c++)\n", ind, "", ncomp);
  OUT("%*sdst_[ob0_ + ol0_ + %s] = src_[i0_ + %s];\n", ind + 2, "",
      ix_print(e, ST_IMAGE, mode_at(ix, dst, 0, c)), ix_print(e, ST_IMAGE, mode_at(ix, src, 0, c)));
  for (int a = 0; a < 2 * d; a++) {
    ind -= 2;
    OUT("%*s}\n", ind, "");
  }
  OUT("  drt_image_adopt_data(img, dst_, len_);\n}\n\n");
}

const char *emit_image_relayout_call(EmitCtx *e, const char *errs, const char *what,
                                     const char *img, const char *dim, const char *ncomp) {
  if (!e->opt->image_brick) return NULL;
  return arena_printf(e->a, "d_relayout_image(%s, %s, %s, %s, %s)", errs, what, img, dim, ncomp);
}

void emit_layout_glue(EmitCtx *e, EmitBuf *out) {
  EmitLayout *L = LY(e);
  IxCtx *ix = L->ix;
  IrModule *m = e->m;
  OUT("%s", IX_C_PRELUDE);
  OUT("/* strand state: %d words of dreal per strand in layout %s\n"
      " * (coordinate (strand, word); d_N = capacity); words:\n",
      L->F, L->st[ST_STATE].layout);
  for (int i = 0; i < m->nstate; i++) {
    IrStateVar *s = m->state[i];
    char ty[96];
    ir_type_snprint(ty, sizeof ty, s->ty);
    OUT(" *   %-16s %3d..%-3d %s%s\n", s->name, L->off[s->index],
        L->off[s->index] + L->nw[s->index] - 1, ty, s->output ? " (output)" : "");
  }
  OUT(" */\n");
  for (int i = 0; i < m->nstate; i++) {
    IrStateVar *s = m->state[i];
    if (s->ty->kind == IR_TY_TENSOR) continue;
    OUT("_Static_assert(sizeof(%s) == %d, \"state word count of %s\");\n", emit_type(e, s->ty),
        L->bytes[s->index], emit_state_field(e, s));
  }
  /* bytes, get, put */
  const IxExpr *size = ix_lower(ix, ix_simplify(ix, lyt_cosize(ix, L->state)));
  OUT("static size_t d_lay_bytes(uint32_t cap) {\n  const int64_t d_N = cap;\n"
      "  return (size_t)%s * sizeof(dreal);\n}\n",
      ix_print(e, ST_STATE, size));
  /* get / put: the strand's base once, then a loop over its words */
  const IxExpr *wv = ix_var(ix, "d_w", 0, L->F - 1);
  LytError err;
  const char *pw = ix_print(e, ST_PACKED, lyt_emit_fwd(ix, L->packed, &wv, 1, &err));
  for (int put = 0; put <= 1; put++) {
    const char *cq = put ? "" : "const ";
    OUT("static void d_lay_%s(%svoid *st_, uint32_t cap, uint32_t i, %svoid *pk_) {\n"
        "  const int64_t d_N = cap, d_i = i;\n  (void)d_N;\n"
        "  %sdreal *self = (%sdreal *)st_ + %s;\n  %sdreal *pk = pk_;\n"
        "  for (int64_t d_w = 0; d_w < %d; d_w++)\n",
        put ? "put" : "get", cq, put ? "const " : "", cq, cq,
        ix_print(e, ST_STATE, mode_at(ix, L->state, 0, L->i)), put ? "const " : "", L->F);
    const char *sw = ix_print(e, ST_STATE, mode_at(ix, L->state, 1, wv));
    if (put) OUT("    memcpy(&self[%s], &pk[%s], sizeof(dreal));\n}\n", sw, pw);
    else OUT("    memcpy(&pk[%s], &self[%s], sizeof(dreal));\n}\n", pw, sw);
  }
  /* chunks of strands: mode 1 of the chunk layout is the chunk index */
  const IxExpr *cc = ix_var(ix, "d_c", 0, IX_INF);
  const IxExpr *first = mode_at(ix, L->chunks, 1, cc);
  OUT("static void d_lay_chunk(uint32_t c, uint32_t chunk, uint32_t n, uint32_t *lo, uint32_t *hi) {\n"
      "  /* %s */\n  const int64_t d_c = c;\n  int64_t l_ = %s;\n  (void)chunk;\n"
      "  *lo = l_ > n ? n : (uint32_t)l_;\n  *hi = l_ + %d > n ? n : (uint32_t)(l_ + %d);\n}\n",
      L->st[ST_CHUNK].layout, ix_print(e, ST_CHUNK, first), L->chunk, L->chunk);
  /* AoS with the packed record's word order is the identity on records
   * (strand i, word w at F·i + w, whatever the capacity): the runtime then
   * creates states in place and grows the store by copying bytes */
  const IxExpr *iw[2] = {L->i, wv};
  const IxExpr *sf = lyt_emit_fwd(ix, L->state, iw, 2, &err);
  const IxExpr *pf = lyt_emit_fwd(ix, L->packed, &wv, 1, &err);
  const IxExpr *ds = sf ? ix_simplify(ix, ix_sub(ix, sf, ix_add(ix, ix_mulk(ix, L->i, L->F), wv))) : NULL;
  const IxExpr *dp = pf ? ix_simplify(ix, ix_sub(ix, pf, wv)) : NULL;
  bool ident = ds && dp && ix_is_const(ds) && ds->k == 0 && ix_is_const(dp) && dp->k == 0;
  OUT("static const DrtStateLayout d_layout = {%d, %d, d_lay_bytes, d_lay_get, d_lay_put, "
      "d_lay_chunk, %s};\n\n",
      L->W, L->chunk, ident ? "D_STATE_WORDS * sizeof(dreal)" : "0");
  /* images */
  if (e->opt->image_brick) {
    collect_images(e);
    for (int k = 0; k < L->nimg; k++) emit_relayout_fn(e, out, L->img[k].d, L->img[k].ncomp);
    /* Errors go to the world's list, as a failed load's do: a library
     * must not end its host process. */
    OUT("static void d_relayout_image(DrtErrors *errs, const char *what, DrtImage *img,\n"
        "    unsigned dim, unsigned ncomp) {\n"
        "  (void)ncomp; /* unused when no image kind is known */\n"
        "  if (!img->data) return;\n");
    for (int k = 0; k < L->nimg; k++)
      OUT("  if (dim == %d && ncomp == %d) { d_relayout_%d_%d(errs, what, img); return; }\n",
          L->img[k].d,
          L->img[k].ncomp, L->img[k].d, L->img[k].ncomp);
    OUT("  drt_error(errs, \"image '%%s': internal error: no brick layout for a %%u-D image\","
        " what, dim);\n}\n\n");
  }
}

/* ---- operation counts ------------------------------------------------------------------- */

/* The integer instructions that compute the offsets of LowIR voxel loads
 * (a backward slice from LOAD/VLOAD, through integer arithmetic only):
 * the image layout's index code as mid_to_low emitted it. */
static bool is_index_op(const IrModule *m, const IrInstr *in) {
  if (in->kind == IR_I_LIT) return in->lit.kind == IR_LIT_INT;
  if (in->kind != IR_I_OP) return false;
  switch (in->op) {
  case IR_OP_IADD: case IR_OP_ISUB: case IR_OP_IMUL: case IR_OP_IDIV: case IR_OP_IMOD:
  case IR_OP_INEG: case IR_OP_SELECT: case IR_OP_MIN: case IR_OP_MAX: case IR_OP_AND:
  case IR_OP_NE: case IR_OP_LT: case IR_OP_LE: case IR_OP_GT: case IR_OP_GE: case IR_OP_EQ:
    return true;
  default:
    return m->level == IR_LOW && (in->op == IR_LOP_CLAMP_INDEX || in->op == IR_LOP_MIRROR_INDEX ||
                                  in->op == IR_LOP_WRAP_INDEX);
  }
}

static void slice(const IrModule *m, IrVar *v, bool *seen, int nseen, int *ops) {
  if (!v || v->id < 0 || v->id >= nseen || seen[v->id] || !v->def) return;
  seen[v->id] = true;
  const IrInstr *in = v->def;
  if (!is_index_op(m, in)) return;
  if (in->kind == IR_I_OP) switch (in->op) {
    case IR_OP_IADD: case IR_OP_ISUB: case IR_OP_INEG: ops[OP_ADD]++; break;
    case IR_OP_IMUL: ops[OP_MUL]++; break;
    case IR_OP_IDIV: case IR_OP_IMOD: ops[OP_DIVMOD]++; break;
    default: ops[OP_OTHER]++; break;
    }
  for (int i = 0; i < in->nargs; i++) slice(m, in->args[i], seen, nseen, ops);
}

static void count_voxel_ops(EmitCtx *e) {
  EmitLayout *L = LY(e);
  IrModule *m = e->m;
  if (m->level != IR_LOW || L->st[ST_VOXEL].layout) return;
  /* The generated report still names the builder by its old name,
   * m2l_image_layout (now lyt_image_layout in src/layout): the text is part
   * of the generated code, which the move to src/layout kept byte for byte;
   * rename it together with the codegen baseline. */
  L->st[ST_VOXEL].layout = m->image_halo      ? arena_printf(e->a, "halo:%d (lyt_image_layout)", e->opt->image_brick)
                           : e->opt->image_brick ? arena_printf(e->a, "brick:%d (m2l_image_layout)", e->opt->image_brick)
                                                 : "linear (m2l_image_layout)";
  /* all loads, and those of the brick fast paths (mid_to_low_kernel.c
   * labels their blocks) with everything they need counted again */
  int nseen = m->next_var_id + 1;
  bool *seen = arena_alloc(e->a, (size_t)nseen), *seenf = arena_alloc(e->a, (size_t)nseen);
  for (int c = 0; c < m->ncfgs; c++) {
    IrCFG *cfg = m->cfgs[c];
    for (int b = 0; b < cfg->nblocks; b++) {
      const char *lab = cfg->blocks[b]->label;
      bool fast = lab && (!strcmp(lab, "brick_fast") || !strcmp(lab, "halo_fast"));
      for (int i = 0; i < cfg->blocks[b]->ninstrs; i++) {
        IrInstr *in = cfg->blocks[b]->instrs[i];
        if (in->kind != IR_I_OP || (in->op != IR_LOP_LOAD && in->op != IR_LOP_VLOAD) || in->nargs < 2)
          continue;
        L->st[ST_VOXEL].nexpr++;
        slice(m, in->args[1], seen, nseen, L->st[ST_VOXEL].ops);
        if (!fast) continue;
        L->st[ST_VOXEL_FAST].layout = "";
        L->st[ST_VOXEL_FAST].nexpr++;
        slice(m, in->args[1], seenf, nseen, L->st[ST_VOXEL_FAST].ops);
      }
    }
  }
}

static const char *strand_layout_name(EmitCtx *e) {
  switch (LY(e)->kind) {
  case EMIT_STRAND_SOA: return "soa";
  case EMIT_STRAND_AOSOA: return arena_printf(e->a, "aosoa:%d", LY(e)->W);
  default: return "aos";
  }
}

/* One line per layout: name, CuTe text, expressions and operations. */
static void report_lines(EmitCtx *e, EmitBuf *out, const char *pre) {
  EmitLayout *L = LY(e);
  count_voxel_ops(e);
  OUT("%slayouts: strand state %s, images %s\n", pre, strand_layout_name(e),
      e->m->image_halo    ? arena_printf(e->a, "halo:%d (halo %d)", e->opt->image_brick, e->m->image_halo)
      : e->opt->image_brick ? arena_printf(e->a, "brick:%d", e->opt->image_brick)
                            : "linear");
  for (int k = 0; k < ST_N; k++) {
    LayStat *s = &L->st[k];
    if (!s->layout) continue;
    int total = 0;
    for (int o = 0; o < OP_N; o++) total += s->ops[o];
    OUT("%s  %-20s %-40s %5d %s, %5d ops:", pre, stat_names[k], s->layout, s->nexpr,
        k >= ST_VOXEL ? "loads" : "exprs", total);
    for (int o = 0; o < OP_N; o++) OUT(" %s %d", op_names[o], s->ops[o]);
    OUT("\n");
  }
}

const char *emit_layout_report(EmitCtx *e) {
  EmitBuf b;
  emit_buf_init(&b, e->a);
  emit_buf_puts(&b, "/* Index code derived from layouts (operations counted in the printed\n"
                    " * index expressions; voxel loads: the integer instructions of LowIR that\n"
                    " * compute their offsets).\n");
  report_lines(e, &b, " * ");
  emit_buf_puts(&b, " */\n");
  return emit_buf_str(&b);
}

void emit_layout_stats(EmitCtx *e, FILE *f) {
  EmitBuf b;
  emit_buf_init(&b, e->a);
  report_lines(e, &b, "");
  fputs(emit_buf_str(&b), f);
}

/* ---- small layouts of values ------------------------------------------------------------- */

int emit_tensor_offset(EmitCtx *e, const IrType *t, const int *idx, int n) {
  EmitLayout *L = LY(e);
  IxCtx *ix = L ? L->ix : ix_ctx_new(e->a);
  const IxExpr *shape[IR_MAX_ORDER], *crd[IR_MAX_ORDER];
  int order = t->kind == IR_TY_TENSOR ? t->order : 0;
  if (order == 0 || n > order) return 0;
  for (int i = 0; i < order; i++) {
    shape[i] = ix_const(ix, t->dims[i]);
    crd[i] = ix_const(ix, i < n ? idx[i] : 0);
  }
  /* tensor components are row-major (the last index fastest) */
  LytError err;
  const IxExpr *x = lyt_emit_fwd(ix, lyt_row_major(ix, shape, order), crd, order, &err);
  x = x ? ix_simplify(ix, x) : NULL;
  if (!x || x->op != IX_CONST) {
    emit_fail(e, "a tensor component offset that is not a constant");
    return 0;
  }
  return (int)x->k;
}

const char *emit_interleaved_index(EmitCtx *e, int ncomp, int comp, const char *item) {
  EmitLayout *L = LY(e);
  IxCtx *ix = L->ix;
  /* (C,n):(1,C): the components of one item together, items in order */
  const IxExpr *it = ix_var(ix, item, 0, IX_INF);
  const Layout *l = lyt_pair(ix, lyt_leafk(ix, ncomp, 1),
                             lyt_leaf(ix, ix_var(ix, "n", 0, IX_INF), ix_const(ix, ncomp)));
  const IxExpr *crd[2] = {ix_const(ix, comp), it};
  LytError err;
  const IxExpr *x = lyt_emit_fwd(ix, l, crd, 2, &err);
  return ix_print(e, ST_OUTPUT, x ? ix_lower(ix, ix_simplify(ix, x)) : NULL);
}
