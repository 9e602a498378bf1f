/* emit_c_sphere.c -- sphere(r) / sphere(p, r) in the C back end
 * (doc/language.md §9.2, §8.3), on top of rt/diderot_sphere.h.
 *
 * What the generated program gets when its strands use sphere:
 *  - d_world.sphere, created with the world (brute force with
 *    --no-space-partition) and freed with it;
 *  - d_sphere_build(): the start-of-step position of every storage slot
 *    (read like any other strand's state, through drt_world_in_state) is
 *    gathered and indexed; the DrtProgram's begin_step hook runs it once
 *    per super-step, after the runtime took the start-of-step copies. The
 *    grid cell size comes from the query radii when they are literals or
 *    globals (their largest value at the start of the step);
 *  - every query: sphere(r) is centred at the caller's start-of-step pos
 *    (so that q is a neighbour of p exactly when p is one of q), and both
 *    forms leave the caller out. The result is a strand sequence whose
 *    elements live in the calling thread's result pool until the strand
 *    method ends (sphere results cannot be stored in state or globals).
 *    A query outside a super-step (a stabilize method run by a global
 *    `stabilize`) first rebuilds the index from the current states; a
 *    query in strand initialisation returns no strands (no strand of the
 *    current step exists for it yet).
 *  - a read of `pos` of a result element (`n.pos` for n = result[i], the
 *    foreach of a particle system) comes from the positions the query
 *    returns with the result (drt_sphere_query_pos_*: the index's compact
 *    copy, the same values) instead of the strand array: C targets only.
 * If the storage layout of strand states changes, d_sphere_build's
 * gather is the one place here that reads states. */
#include "backend/core/core.h"

#include <string.h>

#define OUT(...) emit_buf_printf(out, __VA_ARGS__)

static bool is_query(const IrInstr *in) {
  return in->kind == IR_I_OP && (in->op == IR_OP_SPHERE || in->op == IR_OP_SPHERE_AT);
}

/* The state variable that places the strands and fixes the query
 * dimension: `pos` (§4.10) or the one declared `position` (§9.3). */
static const IrStateVar *sphere_pos(const IrModule *m) {
  for (int i = 0; i < m->nstate; i++)
    if (m->state[i]->position) return m->state[i];
  return NULL;
}

/* 1, 2 or 3 for real, tensor[2], tensor[3] (or vec<2>, vec<3>); 0 otherwise. */
static int pos_dim(const IrType *t) {
  if (!t) return 0;
  if (t->kind == IR_TY_TENSOR && t->order == 0) return 1;
  if (t->kind == IR_TY_TENSOR && t->order == 1 && t->dims[0] >= 2 && t->dims[0] <= 3)
    return t->dims[0];
  if (t->kind == IR_TY_VEC && t->width >= 1 && t->width <= 3) return t->width;
  return 0;
}

/* Component k of a position-typed value x. */
static const char *pos_comp(EmitCtx *e, const IrType *t, const char *x, int k) {
  if (t->kind == IR_TY_VEC) return emit_lane(e, x, k);
  if (t->order == 0) return x;
  return arena_printf(e->a, "%s.v[%d]", x, k);
}

/* v through copies to its defining instruction. */
static const IrInstr *def_of(const IrVar *v) {
  for (int hops = 0; v && v->def && hops < 8; hops++) {
    if (v->def->kind != IR_I_COPY || v->def->nargs != 1) return v->def;
    v = v->def->args[0];
  }
  return NULL;
}

/* The query whose result element `in` reads `pos` of (a state read of
 * another strand, that strand being result[i] of a query), or NULL.
 * *seq and *idx get the result and i. */
static const IrInstr *pos_read_of_result(EmitCtx *e, const IrInstr *in, const IrVar **seq,
                                         const IrVar **idx) {
  if (in->kind != IR_I_STATE_GET || in->nargs != 1 || !in->dst || !in->state ||
      in->state != sphere_pos(e->m))
    return NULL;
  const IrInstr *ix = def_of(in->args[0]);
  if (!ix || ix->kind != IR_I_OP || ix->op != IR_OP_SEQ_INDEX || ix->nargs != 2) return NULL;
  const IrInstr *q = def_of(ix->args[0]);
  if (!q || !is_query(q) || !q->dst) return NULL;
  *seq = ix->args[0];
  *idx = ix->args[1];
  return q;
}

/* Whether the C targets read `pos` of q's result elements from the
 * positions the query returns (drt_sphere_query_pos_*): q is in the CFG
 * being printed and some read there matches. */
static bool query_with_pos(EmitCtx *e, const IrInstr *q) {
  if (e->opt->target == EMIT_TARGET_CUDA || !e->cfg) return false;
  for (int b = 0; b < e->cfg->nblocks; b++)
    for (int i = 0; i < e->cfg->blocks[b]->ninstrs; i++) {
      const IrVar *seq, *idx;
      if (pos_read_of_result(e, e->cfg->blocks[b]->instrs[i], &seq, &idx) == q) return true;
    }
  return false;
}

/* The dimension of `pos` when `in` reads it of element *idx of the result
 * *seq of a query that returns positions, else 0. */
static int result_pos_read(EmitCtx *e, const IrInstr *in, const IrVar **seq, const IrVar **idx) {
  const IrInstr *q = pos_read_of_result(e, in, seq, idx);
  if (!q || !query_with_pos(e, q)) return 0;
  const IrStateVar *pos = sphere_pos(e->m);
  return pos->ty->kind == IR_TY_TENSOR ? pos_dim(pos->ty) : 0;
}

bool emit_sphere_pos_get(EmitCtx *e, EmitBuf *out, const IrInstr *in) {
  const IrVar *seq, *idx;
  int dim = result_pos_read(e, in, &seq, &idx);
  if (!dim) return false;
  const IrStateVar *pos = sphere_pos(e->m);
  const char *sv = emit_var(e, seq), *d = emit_var(e, in->dst);
  OUT("  { const dreal *d_p = (const dreal *)%s.v - (int64_t)%s.len * %d + (int64_t)%s * %d;\n",
      sv, sv, dim, emit_var(e, idx), dim);
  for (int k = 0; k < dim; k++) OUT("    %s = d_p[%d];\n", pos_comp(e, pos->ty, d, k), k);
  /* the neighbour's id may have no other use now */
  OUT("    (void)%s;\n  }\n", emit_var(e, in->args[0]));
  return true;
}

bool emit_sphere_used(EmitCtx *e) {
  for (int c = 0; c < e->m->ncfgs; c++) {
    IrCFG *cfg = e->m->cfgs[c];
    for (int b = 0; b < cfg->nblocks; b++)
      for (int i = 0; i < cfg->blocks[b]->ninstrs; i++)
        if (is_query(cfg->blocks[b]->instrs[i])) return true;
  }
  return false;
}

/* The C text of a query radius known at the start of a step (a literal or
 * a global read), or NULL. */
static const char *radius_source(EmitCtx *e, const IrVar *r, const char *g) {
  for (int hops = 0; r && r->def && hops < 8; hops++) {
    const IrInstr *d = r->def;
    if (d->kind == IR_I_LIT && d->lit.kind == IR_LIT_REAL) return emit_real_lit(e, d->lit.r);
    if (d->kind == IR_I_GLOBAL_GET && d->global && d->global->ty->kind == IR_TY_TENSOR &&
        d->global->ty->order == 0)
      return arena_printf(e->a, "%s%s", g, emit_global_field(e, d->global));
    if (d->kind != IR_I_COPY || d->nargs != 1) return NULL;
    r = d->args[0];
  }
  return NULL;
}

/* "  if (R > h_) h_ = R;" for every query radius R known at the start of
 * a step (literals, and globals read through the prefix g, e.g.
 * "wrld->"): the cell size of the index. */
void emit_sphere_hint(EmitCtx *e, EmitBuf *out, const char *g) {
  const char **seen = NULL;
  int nseen = 0, capseen = 0;
  for (int c = 0; c < e->m->ncfgs; c++) {
    IrCFG *cfg = e->m->cfgs[c];
    for (int b = 0; b < cfg->nblocks; b++)
      for (int i = 0; i < cfg->blocks[b]->ninstrs; i++) {
        IrInstr *in = cfg->blocks[b]->instrs[i];
        if (!is_query(in) || in->nargs < 1) continue;
        const char *src = radius_source(e, in->args[in->nargs - 1], g);
        if (!src) continue;
        bool dup = false;
        for (int k = 0; k < nseen; k++) dup |= !strcmp(seen[k], src);
        if (dup) continue;
        if (nseen == capseen) {
          capseen = capseen ? 2 * capseen : 8;
          const char **ns = arena_alloc(e->a, (size_t)capseen * sizeof *ns);
          if (nseen) memcpy(ns, seen, (size_t)nseen * sizeof *ns);
          seen = ns;
        }
        seen[nseen++] = src;
        OUT("  if ((double)%s > h_) h_ = (double)%s;\n", src, src);
      }
  }
}

void emit_sphere_glue(EmitCtx *e, EmitBuf *out) {
  if (!emit_sphere_used(e)) return;
  const IrStateVar *pos = sphere_pos(e->m);
  int dim = pos ? pos_dim(pos->ty) : 0;
  if (!dim || pos->ty->kind != IR_TY_TENSOR) {
    emit_fail(e, "sphere queries need a state variable 'pos' of type real, vec2 or vec3");
    return;
  }
  bool omp = e->opt->target == EMIT_TARGET_OMP;
  OUT("/* ---- sphere queries (rt/diderot_sphere.h) ---- */\n#include \"diderot_sphere.h\"\n\n"
      "static bool d_sphere_init(d_world *wrld) {\n"
      "  wrld->sphere = drt_sphere_new(%d, D_REAL_NRRD, %s);\n  return !wrld->sphere;\n}\n\n",
      dim, e->opt->no_space_partition ? "true" : "false");
  /* the gather of the start-of-step positions */
  OUT("/* index the start-of-step positions of the alive strands */\n"
      "static void d_sphere_build(d_world *wrld) {\n  DrtWorld *rt = wrld->rt;\n"
      "  uint32_t n_ = drt_world_nslots(rt);\n"
      "  dreal *p_ = drt_sphere_positions(wrld->sphere, drt_world_errors(rt), n_);\n"
      "  if (!p_) return;\n");
  /* the state's layout decides where pos is (emit_c_layout.c) */
  emit_layout_store_decl(e, out, "rt");
  OUT("  d_in = drt_world_in_store(rt);\n  for (uint32_t i = 0; i < n_; i++) {\n    %s s_;\n",
      emit_type(e, pos->ty));
  emit_state_read(e, out, pos, "d_in", "i", "s_", "    ");
  for (int k = 0; k < dim; k++)
    OUT("    p_[%s] = %s;\n", emit_interleaved_index(e, dim, k, "i"), pos_comp(e, pos->ty, "s_", k));
  OUT("  }\n  double h_ = 0;\n");
  emit_sphere_hint(e, out, "wrld->");
  OUT("  drt_sphere_build(wrld->sphere, rt, h_);\n}\n\n"
      "static void d_sphere_begin_step(DrtWorld *rt, void *wrld) {\n"
      "  (void)rt;\n  d_sphere_build(wrld);\n}\n\n");
  OUT("/* the strands within r of c, except `self`; valid until the method ends */\n"
      "static inline const uint32_t *d_sphere_query(d_world *wrld, uint32_t self, const dreal *c,\n"
      "    dreal r, uint32_t *len) {\n"
      "  /* stale only outside a super-step, which runs on one thread */\n"
      "  if (!drt_sphere_current(wrld->sphere, wrld->rt)) d_sphere_build(wrld);\n"
      "  return drt_sphere_query_%s(wrld->sphere, %s, self, c, r, len);\n}\n\n",
      e->opt->double_real ? "d" : "f", omp ? "(uint32_t)omp_get_thread_num()" : "0");
  OUT("/* the same, the result's positions (dim reals each) just before it */\n"
      "static inline const uint32_t *d_sphere_query_pos(d_world *wrld, uint32_t self,\n"
      "    const dreal *c, dreal r, uint32_t *len) {\n"
      "  if (!drt_sphere_current(wrld->sphere, wrld->rt)) d_sphere_build(wrld);\n"
      "  return drt_sphere_query_pos_%s(wrld->sphere, %s, self, c, r, len);\n}\n\n",
      e->opt->double_real ? "d" : "f", omp ? "(uint32_t)omp_get_thread_num()" : "0");
  OUT("/* the same for lane `self` of the group of strands from `group` on\n"
      " * (emit_c_lanes.c): the group's results stay valid together */\n"
      "static inline const uint32_t *d_sphere_query_group(d_world *wrld, uint32_t group,\n"
      "    uint32_t self, const dreal *c, dreal r, bool with_pos, uint32_t *len) {\n"
      "  if (!drt_sphere_current(wrld->sphere, wrld->rt)) d_sphere_build(wrld);\n"
      "  return drt_sphere_query_group_%s(wrld->sphere, %s, group, self, c, r, with_pos, len);\n}\n\n",
      e->opt->double_real ? "d" : "f", omp ? "(uint32_t)omp_get_thread_num()" : "0");
}

int emit_sphere_dim(EmitCtx *e) {
  const IrStateVar *pos = sphere_pos(e->m);
  return pos ? pos_dim(pos->ty) : 0;
}

void emit_sphere_pos_read(EmitCtx *e, EmitBuf *out, const char *store, const char *strand,
                          const char *dst) {
  const IrStateVar *pos = sphere_pos(e->m);
  int dim = pos ? pos_dim(pos->ty) : 0;
  if (!dim) {
    emit_fail(e, "sphere queries need a state variable 'pos' of type real, vec2 or vec3");
    return;
  }
  OUT("  { %s s_;\n", emit_type(e, pos->ty));
  emit_state_read(e, out, pos, store, strand, "s_", "    ");
  for (int k = 0; k < dim; k++) OUT("    %s[%d] = %s;\n", dst, k, pos_comp(e, pos->ty, "s_", k));
  OUT("  }\n");
}

/* The opening of a query block "{ ... const dreal c_[dim] = centre;": the
 * caller's start-of-step pos is read from `store` after `store_decl`
 * (which must leave d_N in scope). False after emit_fail. */
static bool sphere_center(EmitCtx *e, EmitBuf *out, IrInstr *in, const char *store_decl,
                          const char *store) {
  const IrStateVar *pos = sphere_pos(e->m);
  int dim = pos ? pos_dim(pos->ty) : 0;
  if (!dim) {
    emit_fail(e, "sphere queries need a state variable 'pos' of type real, vec2 or vec3");
    return false;
  }
  bool at = in->op == IR_OP_SPHERE_AT;
  if (in->nargs != (at ? 2 : 1) || (at && pos_dim(in->args[0]->ty) != dim)) {
    emit_fail(e, "a sphere query with bad arguments");
    return false;
  }
  const IrType *ct = at ? in->args[0]->ty : pos->ty;
  const char *cx = at ? emit_var(e, in->args[0]) : "p_";
  OUT("  { %s p_;\n", emit_type(e, pos->ty));
  if (!at) { /* the caller's start-of-step pos, through the state layout */
    OUT("%s", store_decl);
    emit_state_read(e, out, pos, store, "id", "p_", "    ");
  }
  OUT("    const dreal c_[%d] = {", dim);
  for (int i = 0; i < dim; i++) OUT("%s%s", i ? ", " : "", pos_comp(e, ct, cx, i));
  OUT("};\n    (void)p_;\n");
  return true;
}

void emit_sphere_query(EmitCtx *e, EmitBuf *out, IrInstr *in) {
  emit_sphere_query_with(e, out, in,
                         "    const dreal *d_inq = drt_world_in_store(wrld->rt);\n"
                         "    const int64_t d_N = drt_world_capacity(wrld->rt);\n    (void)d_N;\n",
                         "d_inq", query_with_pos(e, in) ? "d_sphere_query_pos(wrld" : "d_sphere_query(wrld");
}

void emit_sphere_query_with(EmitCtx *e, EmitBuf *out, IrInstr *in, const char *store_decl,
                            const char *store, const char *call) {
  const char *d = in->dst ? emit_var(e, in->dst) : NULL;
  if (!d) return; /* an unused query has no effect */
  IrCfgKind k = e->cfg ? e->cfg->kind : IR_CFG_FUNC;
  if (k == IR_CFG_STRAND_INIT) {
    OUT("  %s.len = 0;\n  %s.v = NULL; /* no neighbours during initialisation */\n", d, d);
    return;
  }
  if (k != IR_CFG_START && k != IR_CFG_UPDATE && k != IR_CFG_STABILIZE) {
    emit_fail(e, "a sphere query outside the strand");
    return;
  }
  if (!sphere_center(e, out, in, store_decl, store)) return;
  OUT("    uint32_t n_;\n    %s.v = (uint32_t *)%s, id, c_, %s, &n_);\n    %s.len = n_; }\n", d, call,
      emit_var(e, in->args[in->nargs - 1]), d);
}

/* ---- in groups of strands (emit_c_lanes.c) ------------------------------------------- */

/* The query `in` of every lane of mask m into the lane sequence d (d.v[l]:
 * lane l's result, d.len[l] its length; empty for a lane outside m); the
 * caller of lane l is strand i0 + l. center[k] is the text of component k
 * of lane d_l's centre for sphere(p, r) (unused for sphere(r)), r the
 * radius's. False when the query has no lane form. */
bool emit_sphere_query_lanes(EmitCtx *e, EmitBuf *out, IrInstr *in, const char *d, const char *m,
                             const char *const *center, const char *r) {
  const IrStateVar *pos = sphere_pos(e->m);
  int dim = pos ? pos_dim(pos->ty) : 0;
  bool at = in->op == IR_OP_SPHERE_AT;
  if (!dim || pos->ty->kind != IR_TY_TENSOR || in->nargs != (at ? 2 : 1) ||
      (at && pos_dim(in->args[0]->ty) != dim))
    return false;
  if (!out) return true;
  OUT("  for (int d_l = 0; d_l < D_SIMD_W; d_l++) {\n    %s.v[d_l] = NULL;\n    %s.len[d_l] = 0;\n"
      "    if (!%s[d_l]) continue;\n    const uint32_t id = i0 + (uint32_t)d_l;\n",
      d, d, m);
  OUT("    %s p_;\n", emit_type(e, pos->ty));
  if (!at) {
    OUT("    const dreal *d_inq = drt_world_in_store(wrld->rt);\n"
        "    const int64_t d_N = drt_world_capacity(wrld->rt);\n    (void)d_N;\n");
    emit_state_read(e, out, pos, "d_inq", "id", "p_", "    ");
  }
  OUT("    const dreal c_[%d] = {", dim);
  for (int i = 0; i < dim; i++) OUT("%s%s", i ? ", " : "", at ? center[i] : pos_comp(e, pos->ty, "p_", i));
  OUT("};\n    (void)p_;\n    uint32_t n_;\n"
      "    %s.v[d_l] = d_sphere_query_group(wrld, i0, id, c_, %s, %s, &n_);\n"
      "    %s.len[d_l] = (dlint)n_;\n  }\n",
      d, r, query_with_pos(e, in) ? "true" : "false", d);
  return true;
}

/* `pos` of result element idx of the lane query result seq, for the lanes
 * of mask m, into the dlanes dst[0..dim) (dst: a `dlane *` text); false
 * when `in` is not such a read (the other state of neighbours has no lane
 * form). */
bool emit_sphere_pos_get_lanes(EmitCtx *e, EmitBuf *out, const IrInstr *in, const char *m,
                               bool one_list, const char *dst) {
  const IrVar *seq, *idx;
  int dim = result_pos_read(e, in, &seq, &idx);
  if (!dim || !out) return dim > 0;
  const char *sv = emit_var(e, seq);
  /* the positions of a list of n ids lie before them (n·dim reals) */
  if (one_list) { /* a gather per component; a lane outside m reads the first record */
    OUT("  { const dreal *q_ = (const dreal *)%s.v - (int64_t)%s.len * %d;\n"
        "    const dlanei o_ = (%s * d_splati(%d)) & %s;\n", sv, sv, dim, emit_var(e, idx), dim, m);
    for (int k = 0; k < dim; k++) OUT("    (%s)[%d] = d_gather(q_ + %d, o_);\n", dst, k, k);
    OUT("  }\n  (void)%s;\n", emit_var(e, in->args[0]));
    return true;
  }
  /* a lane outside m reads zeros */
  OUT("  { static const dreal z_[%d];\n    const dreal *q_[D_SIMD_W];\n"
      "    for (int d_l = 0; d_l < D_SIMD_W; d_l++)\n"
      "      q_[d_l] = !%s[d_l] ? z_ : (const dreal *)%s.v[d_l] - (int64_t)%s.len[d_l] * %d + "
      "(int64_t)%s[d_l] * %d;\n"
      "    d_pick(q_, %d, %s); }\n  (void)%s;\n",
      dim, m, sv, sv, dim, emit_var(e, idx), dim, dim, dst, emit_var(e, in->args[0]));
  return true;
}
