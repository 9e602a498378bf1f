/* ir.c -- IR types, construction and editing (dominators: ir_dom.c). */
#include "ir/ir.h"

#include <string.h>

/* ---- growable arrays in the arena ------------------------------------------- */

/* Make room for one more element; the old array is abandoned in the arena
 * (growth is geometric, so the waste is bounded by the live size). */
static void *grow(Arena *a, void *arr, int n, int *cap, size_t elem) {
  if (n < *cap) return arr;
  int ncap = *cap ? *cap * 2 : 4;
  void *na = arena_alloc(a, elem * (size_t)ncap);
  if (n) memcpy(na, arr, elem * (size_t)n);
  *cap = ncap;
  return na;
}

#define PUSH(a, arr, n, cap, x)                                        \
  do {                                                                 \
    (arr) = grow((a), (arr), (n), &(cap), sizeof *(arr));              \
    (arr)[(n)++] = (x);                                                \
  } while (0)

/* ---- types -------------------------------------------------------------------- */

struct IrTypeTable {
  const IrType **slots;
  size_t cap, count;
  const IrType *t_bool, *t_int, *t_string, *t_real;
};

static uint32_t mix(uint32_t h, uint32_t v) {
  return h ^ (v + 0x9e3779b9u + (h << 6) + (h >> 2));
}

static uint32_t type_hash(const IrType *t) {
  uint32_t h = mix(0x49527479u, (uint32_t)t->kind);
  h = mix(h, (uint32_t)t->order);
  for (int i = 0; i < t->order; i++) h = mix(h, (uint32_t)t->dims[i]);
  h = mix(mix(mix(h, (uint32_t)t->dim), (uint32_t)t->cont), (uint32_t)t->width);
  h = mix(h, (uint32_t)t->len);
  if (t->elem) h = mix(h, t->elem->hash);
  if (t->name)
    for (const char *p = t->name; *p; p++) h = mix(h, (unsigned char)*p);
  return h;
}

bool ir_type_equal(const IrType *a, const IrType *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || a->order != b->order || a->dim != b->dim ||
      a->cont != b->cont || a->width != b->width || a->len != b->len)
    return false;
  for (int i = 0; i < a->order; i++)
    if (a->dims[i] != b->dims[i]) return false;
  if ((a->elem != NULL) != (b->elem != NULL)) return false;
  if (a->elem && !ir_type_equal(a->elem, b->elem)) return false;
  if ((a->name != NULL) != (b->name != NULL)) return false;
  return !a->name || strcmp(a->name, b->name) == 0;
}

static IrTypeTable *types_new(Arena *a) {
  IrTypeTable *t = ARENA_NEW(a, IrTypeTable);
  t->cap = 64;
  t->slots = ARENA_NEW_ARRAY(a, const IrType *, t->cap);
  return t;
}

static void types_grow(Arena *a, IrTypeTable *t) {
  size_t ncap = t->cap * 2;
  const IrType **ns = ARENA_NEW_ARRAY(a, const IrType *, ncap);
  for (size_t i = 0; i < t->cap; i++) {
    const IrType *p = t->slots[i];
    if (!p) continue;
    size_t j = p->hash & (ncap - 1);
    while (ns[j]) j = (j + 1) & (ncap - 1);
    ns[j] = p;
  }
  t->slots = ns;
  t->cap = ncap;
}

/* The interned copy of key (whose dims/name may point to the caller's
 * memory). */
static const IrType *intern(IrModule *m, IrType *key) {
  IrTypeTable *t = m->types;
  key->hash = type_hash(key);
  size_t j = key->hash & (t->cap - 1);
  for (const IrType *p; (p = t->slots[j]) != NULL; j = (j + 1) & (t->cap - 1))
    if (p->hash == key->hash && ir_type_equal(p, key)) return p;
  IrType *n = ARENA_NEW(m->arena, IrType);
  *n = *key;
  if (key->order) {
    int *d = ARENA_NEW_ARRAY(m->arena, int, key->order);
    memcpy(d, key->dims, sizeof *d * (size_t)key->order);
    n->dims = d;
  } else {
    n->dims = NULL;
  }
  if (key->name) n->name = arena_strdup(m->arena, key->name);
  t->slots[j] = n;
  if (++t->count * 2 > t->cap) types_grow(m->arena, t);
  return n;
}

static IrType key_of(IrTypeKind kind) {
  IrType k;
  memset(&k, 0, sizeof k);
  k.kind = kind;
  return k;
}

/* Drop axes of size 1 (shape normalisation, doc/language.md §4.1); *ok is
 * cleared for non-positive sizes or too many axes. */
static int normalize(int order, const int *dims, int *out, bool *ok) {
  int n = 0;
  if (order < 0 || order > IR_MAX_ORDER || (order > 0 && !dims)) {
    *ok = false;
    return 0;
  }
  for (int i = 0; i < order; i++) {
    if (dims[i] < 1) *ok = false;
    if (dims[i] != 1) out[n++] = dims[i];
  }
  return n;
}

const IrType *ir_type_bool(IrModule *m) { return m->types->t_bool; }
const IrType *ir_type_int(IrModule *m) { return m->types->t_int; }
const IrType *ir_type_string(IrModule *m) { return m->types->t_string; }
const IrType *ir_type_real(IrModule *m) { return m->types->t_real; }

const IrType *ir_type_tensor(IrModule *m, int order, const int *dims) {
  int nd[IR_MAX_ORDER];
  bool ok = true;
  IrType k = key_of(IR_TY_TENSOR);
  k.order = normalize(order, dims, nd, &ok);
  k.dims = nd;
  return ok ? intern(m, &k) : NULL;
}

const IrType *ir_type_vec(IrModule *m, int width) {
  if (width < 1) return NULL;
  IrType k = key_of(IR_TY_VEC);
  k.width = width;
  return intern(m, &k);
}

const IrType *ir_type_seq(IrModule *m, const IrType *elem, int len) {
  if (!elem || len < IR_SEQ_DYNAMIC) return NULL;
  IrType k = key_of(IR_TY_SEQ);
  k.elem = elem;
  k.len = len;
  return intern(m, &k);
}

static const IrType *shaped(IrModule *m, IrTypeKind kind, int cont, int dim, int order,
                            const int *dims) {
  int nd[IR_MAX_ORDER];
  bool ok = dim >= 1 && dim <= 3;
  IrType k = key_of(kind);
  k.order = normalize(order, dims, nd, &ok);
  k.dims = nd;
  k.dim = dim;
  k.cont = cont;
  return ok ? intern(m, &k) : NULL;
}

const IrType *ir_type_image(IrModule *m, int dim, int order, const int *dims) {
  return shaped(m, IR_TY_IMAGE, 0, dim, order, dims);
}

const IrType *ir_type_field(IrModule *m, int cont, int dim, int order, const int *dims) {
  if (cont < 0) return NULL;
  return shaped(m, IR_TY_FIELD, cont, dim, order, dims);
}

const IrType *ir_type_kernel(IrModule *m, int cont) {
  if (cont < 0) return NULL;
  IrType k = key_of(IR_TY_KERNEL);
  k.cont = cont;
  return intern(m, &k);
}

const IrType *ir_type_strand(IrModule *m, const char *name) {
  if (!name) return NULL;
  IrType k = key_of(IR_TY_STRAND);
  k.name = name;
  return intern(m, &k);
}

bool ir_type_is_real(const IrType *t) { return t && t->kind == IR_TY_TENSOR && t->order == 0; }
bool ir_type_is_int(const IrType *t) { return t && t->kind == IR_TY_INT; }
bool ir_type_is_bool(const IrType *t) { return t && t->kind == IR_TY_BOOL; }

bool ir_type_allowed(IrLevel level, const IrType *t) {
  if (!t) return false;
  switch (t->kind) {
  case IR_TY_FIELD: return level == IR_HIGH;
  case IR_TY_KERNEL: return level != IR_LOW;
  case IR_TY_VEC: return level == IR_LOW;
  case IR_TY_SEQ: return ir_type_allowed(level, t->elem);
  default: return true;
  }
}

bool ir_type_is_value(const IrType *t) {
  if (!t) return false;
  switch (t->kind) {
  case IR_TY_BOOL:
  case IR_TY_INT:
  case IR_TY_STRING:
  case IR_TY_TENSOR:
  case IR_TY_VEC: return true;
  case IR_TY_SEQ:
    if (t->len == IR_SEQ_DYNAMIC && t->elem->kind == IR_TY_SEQ &&
        t->elem->len == IR_SEQ_DYNAMIC)
      return false;
    return ir_type_is_value(t->elem);
  default: return false;
  }
}

/* ---- modules, globals, state -------------------------------------------------- */

static IrModule *module_alloc(Arena *a, IrLevel level, IrTypeTable *types) {
  IrModule *m = ARENA_NEW(a, IrModule);
  m->arena = a;
  m->level = level;
  m->types = types;
  return m;
}

IrModule *ir_module_new(Arena *a, IrLevel level) {
  IrModule *m = module_alloc(a, level, types_new(a));
  IrType k = key_of(IR_TY_BOOL);
  m->types->t_bool = intern(m, &k);
  k = key_of(IR_TY_INT);
  m->types->t_int = intern(m, &k);
  k = key_of(IR_TY_STRING);
  m->types->t_string = intern(m, &k);
  k = key_of(IR_TY_TENSOR);
  m->types->t_real = intern(m, &k);
  return m;
}

IrModule *ir_module_next_level(IrModule *prev, IrLevel level) {
  IrModule *m = module_alloc(prev->arena, level, prev->types);
  m->strand_name = prev->strand_name;
  m->create_array = prev->create_array;
  m->next_var_id = prev->next_var_id; /* keeps names distinct across levels */
  return m;
}

void ir_module_set_strand(IrModule *m, const char *name) {
  m->strand_name = name ? arena_strdup(m->arena, name) : NULL;
}

const IrType *ir_module_strand_type(IrModule *m) {
  return m->strand_name ? ir_type_strand(m, m->strand_name) : NULL;
}

IrGlobal *ir_global_new(IrModule *m, IrGlobalKind kind, const char *name, const IrType *ty) {
  IrGlobal *g = ARENA_NEW(m->arena, IrGlobal);
  g->index = m->nglobals;
  g->kind = kind;
  g->name = arena_strdup(m->arena, name ? name : "g");
  g->ty = ty;
  PUSH(m->arena, m->globals, m->nglobals, m->capglobals, g);
  return g;
}

IrStateVar *ir_state_new(IrModule *m, const char *name, const IrType *ty, bool output) {
  IrStateVar *s = ARENA_NEW(m->arena, IrStateVar);
  s->index = m->nstate;
  s->name = arena_strdup(m->arena, name ? name : "s");
  s->ty = ty;
  s->output = output;
  PUSH(m->arena, m->state, m->nstate, m->capstate, s);
  return s;
}

static const char *const cfg_kind_names[] = {
    "function", "global_init", "strand_init", "start", "update",
    "stabilize", "global_start", "global_update", "create"};

const char *ir_cfg_kind_name(IrCfgKind k) {
  return (unsigned)k < sizeof cfg_kind_names / sizeof *cfg_kind_names ? cfg_kind_names[k] : "?";
}

IrCFG *ir_cfg_new(IrModule *m, IrCfgKind kind, const char *name) {
  IrCFG *cfg = ARENA_NEW(m->arena, IrCFG);
  cfg->module = m;
  cfg->kind = kind;
  cfg->name = arena_strdup(m->arena, name ? name : ir_cfg_kind_name(kind));
  cfg->entry = ir_block_new(cfg, "entry");
  PUSH(m->arena, m->cfgs, m->ncfgs, m->capcfgs, cfg);
  return cfg;
}

IrCFG *ir_module_find_cfg(const IrModule *m, IrCfgKind kind) {
  for (int i = 0; i < m->ncfgs; i++)
    if (m->cfgs[i]->kind == kind) return m->cfgs[i];
  return NULL;
}

/* One zeroed object of `size` bytes from pool p: runs of 256 objects from
 * the arena (the arena frees them; a module wastes less than a run). */
enum { POOL_RUN = 256 };
static void *pool_take(Arena *a, struct IrPool *p, size_t size) {
  if (p->left == 0) {
    p->next = arena_alloc(a, size * POOL_RUN);
    p->left = POOL_RUN;
  }
  void *o = p->next;
  p->next += size;
  p->left--;
  return o;
}

IrVar *ir_var_new(IrCFG *cfg, const char *hint, const IrType *ty) {
  IrModule *m = cfg->module;
  IrVar *v = pool_take(m->arena, &m->pool_vars, sizeof(IrVar));
  v->id = m->next_var_id++;
  v->name = hint ? arena_strdup(m->arena, hint) : "t";
  v->ty = ty;
  v->param = -1;
  v->cfg = cfg;
  return v;
}

IrVar *ir_cfg_add_param(IrCFG *cfg, const char *hint, const IrType *ty) {
  IrVar *v = ir_var_new(cfg, hint, ty);
  v->param = cfg->nparams;
  PUSH(cfg->module->arena, cfg->params, cfg->nparams, cfg->capparams, v);
  return v;
}

/* Every edit of the blocks or edges of a CFG comes through the functions
 * of this file; each clears the cached dominator tree. */
static void shape_changed(IrCFG *cfg) {
  if (cfg) cfg->dom_valid = false;
}

IrBlock *ir_block_new(IrCFG *cfg, const char *label) {
  Arena *a = cfg->module->arena;
  shape_changed(cfg);
  IrBlock *b = pool_take(a, &cfg->module->pool_blocks, sizeof(IrBlock));
  b->id = cfg->next_block_id++;
  b->label = label ? arena_strdup(a, label) : NULL;
  b->cfg = cfg;
  b->rpo = -1;
  b->phis = b->inl_phis;
  b->capphis = (int)(sizeof b->inl_phis / sizeof *b->inl_phis);
  b->instrs = b->inl_instrs;
  b->capinstrs = (int)(sizeof b->inl_instrs / sizeof *b->inl_instrs);
  b->preds = b->inl_preds;
  b->cappreds = (int)(sizeof b->inl_preds / sizeof *b->inl_preds);
  PUSH(a, cfg->blocks, cfg->nblocks, cfg->capblocks, b);
  return b;
}

/* ---- instructions ---------------------------------------------------------------- */

static Arena *arena_of(const IrBlock *b) { return b->cfg->module->arena; }

static IrVar **copy_args(Arena *a, int n, IrVar *const *args) {
  if (n <= 0) return NULL;
  IrVar **v = ARENA_NEW_ARRAY(a, IrVar *, n);
  if (args) memcpy(v, args, sizeof *v * (size_t)n);
  return v;
}

IrInstr *ir_instr_new(IrCFG *cfg, IrInstrKind kind, IrVar *dst, int nargs, IrVar *const *args) {
  Arena *a = cfg->module->arena;
  IrInstr *in = pool_take(a, &cfg->module->pool_instrs, sizeof(IrInstr));
  in->kind = kind;
  in->dst = dst;
  in->nargs = nargs > 0 ? nargs : 0;
  in->args = copy_args(a, in->nargs, args);
  in->line = cfg->cur_line;
  if (dst) dst->def = in;
  return in;
}

void ir_instr_set_imm(IrCFG *cfg, IrInstr *in, int nimm, const int *imm) {
  if (nimm <= 0 || !imm) {
    in->nimm = 0;
    in->imm = NULL;
    return;
  }
  int *v = ARENA_NEW_ARRAY(cfg->module->arena, int, nimm);
  memcpy(v, imm, sizeof *v * (size_t)nimm);
  in->nimm = nimm;
  in->imm = v;
}

void ir_block_insert(IrBlock *b, int pos, IrInstr *in) {
  if (pos < 0 || pos > b->ninstrs) pos = b->ninstrs;
  if (in->kind == IR_I_PHI) { /* phis live in their own list */
    PUSH(arena_of(b), b->phis, b->nphis, b->capphis, in);
    in->block = b;
    return;
  }
  /* a pass expanding instrs[pos] in place: the new code has its line */
  if (!in->line && pos < b->ninstrs) in->line = b->instrs[pos]->line;
  b->instrs = grow(arena_of(b), b->instrs, b->ninstrs, &b->capinstrs, sizeof *b->instrs);
  memmove(b->instrs + pos + 1, b->instrs + pos, sizeof *b->instrs * (size_t)(b->ninstrs - pos));
  b->instrs[pos] = in;
  b->ninstrs++;
  in->block = b;
}

void ir_block_append(IrBlock *b, IrInstr *in) { ir_block_insert(b, b->ninstrs, in); }

static bool remove_from(IrInstr **arr, int *n, const IrInstr *in) {
  for (int i = 0; i < *n; i++)
    if (arr[i] == in) {
      memmove(arr + i, arr + i + 1, sizeof *arr * (size_t)(*n - i - 1));
      (*n)--;
      return true;
    }
  return false;
}

void ir_instr_remove(IrInstr *in) {
  IrBlock *b = in->block;
  if (!b) return;
  if (!remove_from(b->phis, &b->nphis, in)) remove_from(b->instrs, &b->ninstrs, in);
  in->block = NULL;
}

int ir_instr_index(const IrInstr *in) {
  const IrBlock *b = in->block;
  if (!b || in->kind == IR_I_PHI) return -1;
  for (int i = 0; i < b->ninstrs; i++)
    if (b->instrs[i] == in) return i;
  return -1;
}

/* ---- emitting ---------------------------------------------------------------------- */

static IrInstr *emit_raw(IrBlock *b, IrInstrKind kind, const char *hint, const IrType *ty,
                         int nargs, IrVar *const *args) {
  IrVar *dst = ty ? ir_var_new(b->cfg, hint, ty) : NULL;
  IrInstr *in = ir_instr_new(b->cfg, kind, dst, nargs, args);
  ir_block_append(b, in);
  return in;
}

/* Checks the op against its rule before emitting anything, so that a
 * rejected emission leaves the block unchanged. */
static IrInstr *emit_checked(IrBlock *b, const char *hint, int op, const IrType *ty, int nargs,
                             IrVar *const *args, int nimm, const int *imm, const EinOp *ein,
                             IrCFG *fn, bool want_result) {
  IrModule *m = b->cfg->module;
  IrInstr tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.kind = IR_I_OP;
  tmp.op = op;
  tmp.nargs = nargs;
  tmp.args = (IrVar **)args;
  tmp.nimm = nimm;
  tmp.imm = imm;
  tmp.ein = ein;
  tmp.fn = fn;
  const IrType *res = NULL;
  char err[160];
  if (ir_op_check_types(m, &tmp, ty, &res, err, sizeof err) != IR_CHK_OK) return NULL;
  if (want_result != (res != NULL)) return NULL;
  if (ty && res && !ir_type_equal(ty, res)) return NULL;
  IrInstr *in = emit_raw(b, IR_I_OP, hint, ty ? ty : res, nargs, args);
  in->op = op;
  in->ein = ein;
  in->fn = fn;
  ir_instr_set_imm(b->cfg, in, nimm, imm);
  return in;
}

IrVar *ir_emit_op(IrBlock *b, const char *hint, int op, const IrType *ty, int nargs,
                  IrVar *const *args, int nimm, const int *imm) {
  IrInstr *in = emit_checked(b, hint, op, ty, nargs, args, nimm, imm, NULL, NULL, true);
  return in ? in->dst : NULL;
}

IrVar *ir_emit(IrBlock *b, int op, int nargs, IrVar *const *args) {
  return ir_emit_op(b, NULL, op, NULL, nargs, args, 0, NULL);
}

IrVar *ir_emit1(IrBlock *b, int op, IrVar *a) { return ir_emit(b, op, 1, &a); }

IrVar *ir_emit2(IrBlock *b, int op, IrVar *a, IrVar *c) {
  IrVar *v[2] = {a, c};
  return ir_emit(b, op, 2, v);
}

IrInstr *ir_emit_effect(IrBlock *b, int op, int nargs, IrVar *const *args, int nimm,
                        const int *imm) {
  return emit_checked(b, NULL, op, NULL, nargs, args, nimm, imm, NULL, NULL, false);
}

IrVar *ir_emit_ein(IrBlock *b, const char *hint, const EinOp *op, const IrType *ty, int nargs,
                   IrVar *const *args) {
  int eop = ir_op_ein(b->cfg->module->level);
  if (eop < 0 || !op) return NULL;
  IrInstr *in = emit_checked(b, hint, eop, ty, nargs, args, 0, NULL, op, NULL, true);
  return in ? in->dst : NULL;
}

IrVar *ir_emit_strand_reduce(IrBlock *b, const char *hint, IrReduce red, IrStrandSet set,
                             IrCFG *fn, int nargs, IrVar *const *args) {
  int imm[2] = {(int)red, (int)set};
  IrInstr *in = emit_checked(b, hint, IR_OP_STRAND_REDUCE, NULL, nargs, args, 2, imm, NULL, fn,
                             true);
  return in ? in->dst : NULL;
}

static IrVar *emit_lit(IrBlock *b, const IrType *ty, IrLit lit) {
  if (!ty) return NULL;
  IrInstr *in = emit_raw(b, IR_I_LIT, lit.kind == IR_LIT_KERNEL ? "h" : "c", ty, 0, NULL);
  in->lit = lit;
  return in->dst;
}

IrVar *ir_emit_bool(IrBlock *b, bool v) {
  IrLit l = {.kind = IR_LIT_BOOL, .b = v};
  return emit_lit(b, ir_type_bool(b->cfg->module), l);
}

IrVar *ir_emit_int(IrBlock *b, int64_t v) {
  IrLit l = {.kind = IR_LIT_INT, .i = v};
  return emit_lit(b, ir_type_int(b->cfg->module), l);
}

IrVar *ir_emit_real(IrBlock *b, double v) {
  IrLit l = {.kind = IR_LIT_REAL, .r = v};
  return emit_lit(b, ir_type_real(b->cfg->module), l);
}

IrVar *ir_emit_string(IrBlock *b, const char *s) {
  IrLit l = {.kind = IR_LIT_STRING, .s = arena_strdup(arena_of(b), s ? s : "")};
  return emit_lit(b, ir_type_string(b->cfg->module), l);
}

IrVar *ir_emit_kernel(IrBlock *b, const Kernel *k, int cont) {
  if (!k) return NULL;
  IrLit l = {.kind = IR_LIT_KERNEL, .kernel = k};
  return emit_lit(b, ir_type_kernel(b->cfg->module, cont), l);
}

IrVar *ir_emit_copy(IrBlock *b, const char *hint, IrVar *src) {
  if (!src) return NULL;
  return emit_raw(b, IR_I_COPY, hint ? hint : src->name, src->ty, 1, &src)->dst;
}

IrVar *ir_emit_global_get(IrBlock *b, const char *hint, IrGlobal *g) {
  if (!g) return NULL;
  IrInstr *in = emit_raw(b, IR_I_GLOBAL_GET, hint ? hint : g->name, g->ty, 0, NULL);
  in->global = g;
  return in->dst;
}

IrInstr *ir_emit_global_set(IrBlock *b, IrGlobal *g, IrVar *v) {
  IrInstr *in = emit_raw(b, IR_I_GLOBAL_SET, NULL, NULL, 1, &v);
  in->global = g;
  return in;
}

IrVar *ir_emit_state_get(IrBlock *b, const char *hint, IrStateVar *s, IrVar *strand) {
  if (!s) return NULL;
  IrInstr *in =
      emit_raw(b, IR_I_STATE_GET, hint ? hint : s->name, s->ty, strand ? 1 : 0, &strand);
  in->state = s;
  return in->dst;
}

IrInstr *ir_emit_state_set(IrBlock *b, IrStateVar *s, IrVar *v) {
  IrInstr *in = emit_raw(b, IR_I_STATE_SET, NULL, NULL, 1, &v);
  in->state = s;
  return in;
}

/* ---- phis and edges --------------------------------------------------------------- */

IrVar *ir_phi_new(IrBlock *b, const char *hint, const IrType *ty) {
  IrVar *v = ir_var_new(b->cfg, hint, ty);
  IrInstr *in = ir_instr_new(b->cfg, IR_I_PHI, v, b->npreds, NULL);
  ir_block_insert(b, 0, in);
  return v;
}

void ir_phi_set_arg(IrInstr *phi, int k, IrVar *v) {
  if (phi && phi->kind == IR_I_PHI && k >= 0 && k < phi->nargs) phi->args[k] = v;
}

void ir_phi_set(IrInstr *phi, IrBlock *pred, IrVar *v) {
  if (!phi || !phi->block) return;
  IrBlock *b = phi->block;
  for (int k = 0; k < b->npreds && k < phi->nargs; k++)
    if (b->preds[k] == pred) phi->args[k] = v;
}

int ir_block_pred_index(const IrBlock *b, const IrBlock *pred) {
  for (int k = 0; k < b->npreds; k++)
    if (b->preds[k] == pred) return k;
  return -1;
}

static void add_pred(IrBlock *s, IrBlock *p) {
  Arena *a = arena_of(s);
  shape_changed(s->cfg);
  PUSH(a, s->preds, s->npreds, s->cappreds, p);
  for (int i = 0; i < s->nphis; i++) {
    IrInstr *phi = s->phis[i];
    /* phi->nargs tracks npreds; its array has no spare room, so copy. */
    IrVar **na = ARENA_NEW_ARRAY(a, IrVar *, phi->nargs + 1);
    if (phi->nargs) memcpy(na, phi->args, sizeof *na * (size_t)phi->nargs);
    na[phi->nargs++] = NULL;
    phi->args = na;
  }
}

static void remove_pred_at(IrBlock *s, int k) {
  shape_changed(s->cfg);
  memmove(s->preds + k, s->preds + k + 1, sizeof *s->preds * (size_t)(s->npreds - k - 1));
  s->npreds--;
  for (int i = 0; i < s->nphis; i++) {
    IrInstr *phi = s->phis[i];
    if (k >= phi->nargs) continue;
    memmove(phi->args + k, phi->args + k + 1, sizeof *phi->args * (size_t)(phi->nargs - k - 1));
    phi->nargs--;
  }
}

/* The predecessor slot of edge b --slot--> succ: the n-th occurrence of b
 * in succ->preds, where n counts earlier slots of b with the same target
 * (edges are added in slot order). */
static int edge_pred_slot(const IrBlock *b, int slot) {
  const IrBlock *s = b->term.succ[slot];
  int nth = 0;
  for (int i = 0; i < slot; i++)
    if (b->term.succ[i] == s) nth++;
  for (int k = 0; k < s->npreds; k++)
    if (s->preds[k] == b && nth-- == 0) return k;
  return -1;
}

int ir_block_nsuccs(const IrBlock *b) {
  switch (b->term.kind) {
  case IR_T_JUMP: return 1;
  case IR_T_BRANCH: return 2;
  default: return 0;
  }
}

void ir_block_clear_term(IrBlock *b) {
  shape_changed(b->cfg);
  /* Remove the later slots first so that edge_pred_slot stays valid. */
  for (int i = ir_block_nsuccs(b) - 1; i >= 0; i--) {
    IrBlock *s = b->term.succ[i];
    if (!s) continue;
    int k = edge_pred_slot(b, i);
    if (k >= 0) remove_pred_at(s, k);
  }
  memset(&b->term, 0, sizeof b->term);
}

void ir_block_set_jump(IrBlock *b, IrBlock *target) {
  ir_block_clear_term(b);
  if (!target) return;
  b->term.kind = IR_T_JUMP;
  b->term.succ[0] = target;
  add_pred(target, b);
}

void ir_block_set_branch(IrBlock *b, IrVar *cond, IrBlock *then_b, IrBlock *else_b) {
  ir_block_clear_term(b);
  if (!then_b || !else_b) return;
  b->term.kind = IR_T_BRANCH;
  b->term.value = cond;
  b->term.succ[0] = then_b;
  b->term.succ[1] = else_b;
  add_pred(then_b, b);
  add_pred(else_b, b);
}

void ir_block_set_return(IrBlock *b, IrVar *value) {
  ir_block_clear_term(b);
  b->term.kind = IR_T_RETURN;
  b->term.value = value;
}

void ir_block_set_exit(IrBlock *b, IrTermKind kind) {
  ir_block_clear_term(b);
  if (kind == IR_T_STABILIZE || kind == IR_T_DIE || kind == IR_T_CONTINUE || kind == IR_T_ERROR)
    b->term.kind = kind;
}

void ir_block_branch_to_jump(IrBlock *b, int keep) {
  if (b->term.kind != IR_T_BRANCH || keep < 0 || keep > 1) return;
  shape_changed(b->cfg);
  int drop = 1 - keep;
  int k = edge_pred_slot(b, drop);
  if (k >= 0) remove_pred_at(b->term.succ[drop], k);
  IrBlock *t = b->term.succ[keep];
  memset(&b->term, 0, sizeof b->term);
  b->term.kind = IR_T_JUMP;
  b->term.succ[0] = t;
}

void ir_block_retarget(IrBlock *b, int slot, IrBlock *target) {
  if (slot < 0 || slot >= ir_block_nsuccs(b) || !target) return;
  shape_changed(b->cfg);
  IrBlock *old = b->term.succ[slot];
  int k = edge_pred_slot(b, slot);
  if (k >= 0) remove_pred_at(old, k);
  b->term.succ[slot] = target;
  /* Keep the pred order consistent with slot order for a shared target. */
  add_pred(target, b);
  if (ir_block_nsuccs(b) == 2 && b->term.succ[0] == b->term.succ[1] && slot == 0) {
    /* slot 0 must be the earlier occurrence: swap the last two entries of b */
    int first = -1, last = -1;
    for (int i = 0; i < target->npreds; i++)
      if (target->preds[i] == b) {
        if (first < 0) first = i;
        last = i;
      }
    for (int i = 0; i < target->nphis; i++) {
      IrInstr *phi = target->phis[i];
      IrVar *t = phi->args[first];
      phi->args[first] = phi->args[last];
      phi->args[last] = t;
    }
  }
}

/* Replace b by nb in the predecessor lists of b's successors. */
static void move_succ_edges(IrBlock *b, IrBlock *nb) {
  /* Later slots first: edge_pred_slot counts the occurrences of b that the
   * earlier slots still hold. */
  for (int i = ir_block_nsuccs(b) - 1; i >= 0; i--) {
    IrBlock *s = b->term.succ[i];
    int k = edge_pred_slot(b, i);
    if (k >= 0) s->preds[k] = nb;
  }
}

IrBlock *ir_block_split(IrBlock *b, int pos, const char *label) {
  if (pos < 0) pos = 0;
  if (pos > b->ninstrs) pos = b->ninstrs;
  IrBlock *nb = ir_block_new(b->cfg, label);
  for (int i = pos; i < b->ninstrs; i++) ir_block_append(nb, b->instrs[i]);
  b->ninstrs = pos;
  /* The terminator moves: successors now see nb where they saw b. Slots
   * are rewritten before b's terminator is changed, while b still owns
   * them. */
  move_succ_edges(b, nb);
  nb->term = b->term;
  memset(&b->term, 0, sizeof b->term);
  ir_block_set_jump(b, nb);
  if (b->cfg->exit == b) b->cfg->exit = nb;
  return nb;
}

IrBlock *ir_edge_split(IrBlock *b, int slot) {
  if (slot < 0 || slot >= ir_block_nsuccs(b)) return NULL;
  IrBlock *s = b->term.succ[slot];
  IrBlock *nb = ir_block_new(b->cfg, NULL);
  int k = edge_pred_slot(b, slot);
  /* nb takes b's place in s (same slot, so phi arguments stay put). */
  if (k >= 0) s->preds[k] = nb;
  nb->term.kind = IR_T_JUMP;
  nb->term.succ[0] = s;
  b->term.succ[slot] = nb;
  PUSH(arena_of(b), nb->preds, nb->npreds, nb->cappreds, b);
  return nb;
}

void ir_cfg_remove_block(IrCFG *cfg, IrBlock *b) {
  shape_changed(cfg);
  ir_block_clear_term(b);
  for (int i = 0; i < cfg->nblocks; i++)
    if (cfg->blocks[i] == b) {
      memmove(cfg->blocks + i, cfg->blocks + i + 1,
              sizeof *cfg->blocks * (size_t)(cfg->nblocks - i - 1));
      cfg->nblocks--;
      break;
    }
  if (cfg->exit == b) cfg->exit = NULL;
  if (cfg->entry == b) cfg->entry = cfg->nblocks ? cfg->blocks[0] : NULL;
}

/* ---- in-place replacement and uses ---------------------------------------------------- */

/* A phi that becomes another kind of instruction moves to the front of its
 * block's instructions. */
static void unphi(IrInstr *in) {
  if (in->kind != IR_I_PHI || !in->block) return;
  IrBlock *b = in->block;
  ir_instr_remove(in);
  in->kind = IR_I_COPY;
  ir_block_insert(b, 0, in);
}

void ir_instr_set_op(IrInstr *in, int op, int nargs, IrVar *const *args, int nimm,
                     const int *imm) {
  IrCFG *cfg = in->block ? in->block->cfg : (in->dst ? in->dst->cfg : NULL);
  if (!cfg) return;
  unphi(in);
  in->kind = IR_I_OP;
  in->op = op;
  in->nargs = nargs > 0 ? nargs : 0;
  in->args = copy_args(cfg->module->arena, in->nargs, args);
  ir_instr_set_imm(cfg, in, nimm, imm);
  in->ein = NULL;
  in->fn = NULL;
  in->global = NULL;
  in->state = NULL;
}

void ir_instr_set_copy(IrInstr *in, IrVar *src) {
  IrCFG *cfg = in->dst ? in->dst->cfg : NULL;
  if (!cfg) return;
  unphi(in);
  in->kind = IR_I_COPY;
  in->op = 0;
  in->nargs = 1;
  in->args = copy_args(cfg->module->arena, 1, &src);
  in->nimm = 0;
  in->imm = NULL;
  in->ein = NULL;
  in->fn = NULL;
  in->global = NULL;
  in->state = NULL;
}

typedef void (*SlotFn)(void *ctx, IrVar **slot, IrBlock *b, IrInstr *in, int arg);

static void each_slot(IrCFG *cfg, SlotFn f, void *ctx) {
  for (int i = 0; i < cfg->nblocks; i++) {
    IrBlock *b = cfg->blocks[i];
    for (int j = 0; j < b->nphis; j++)
      for (int k = 0; k < b->phis[j]->nargs; k++) f(ctx, &b->phis[j]->args[k], b, b->phis[j], k);
    for (int j = 0; j < b->ninstrs; j++)
      for (int k = 0; k < b->instrs[j]->nargs; k++)
        f(ctx, &b->instrs[j]->args[k], b, b->instrs[j], k);
    if (b->term.value) f(ctx, &b->term.value, b, NULL, 0);
  }
}

static void replace_all_slot(void *ctx, IrVar **slot, IrBlock *b, IrInstr *in, int arg) {
  (void)b, (void)in, (void)arg;
  IrVar **repl = ctx;
  while (*slot && repl[(*slot)->id]) *slot = repl[(*slot)->id];
}

void ir_cfg_replace_all(IrCFG *cfg, IrVar **repl) {
  each_slot(cfg, replace_all_slot, repl);
}

static void reset_slot(void *ctx, IrVar **slot, IrBlock *b, IrInstr *in, int arg) {
  (void)ctx, (void)b, (void)in, (void)arg;
  if (*slot) {
    (*slot)->nuses = 0;
    (*slot)->uses = NULL;
  }
}

static void count_slot(void *ctx, IrVar **slot, IrBlock *b, IrInstr *in, int arg) {
  (void)ctx, (void)b, (void)in, (void)arg;
  if (*slot) (*slot)->nuses++;
}

static void alloc_slot(void *ctx, IrVar **slot, IrBlock *b, IrInstr *in, int arg) {
  (void)b, (void)in, (void)arg;
  IrVar *v = *slot;
  if (v && !v->uses) {
    v->uses = ARENA_NEW_ARRAY((Arena *)ctx, IrUse, v->nuses);
    v->nuses = 0;
  }
}

static void fill_slot(void *ctx, IrVar **slot, IrBlock *b, IrInstr *in, int arg) {
  (void)ctx;
  IrVar *v = *slot;
  if (!v) return;
  IrUse u = {b, in, arg};
  v->uses[v->nuses++] = u;
}

void ir_cfg_build_uses(IrCFG *cfg) {
  for (int i = 0; i < cfg->nparams; i++) {
    cfg->params[i]->nuses = 0;
    cfg->params[i]->uses = NULL;
  }
  for (int i = 0; i < cfg->nblocks; i++) {
    IrBlock *b = cfg->blocks[i];
    for (int part = 0; part < 2; part++) {
      IrInstr **list = part ? b->instrs : b->phis;
      int n = part ? b->ninstrs : b->nphis;
      for (int j = 0; j < n; j++)
        if (list[j]->dst) {
          list[j]->dst->nuses = 0;
          list[j]->dst->uses = NULL;
        }
    }
  }
  each_slot(cfg, reset_slot, NULL);
  each_slot(cfg, count_slot, NULL);
  each_slot(cfg, alloc_slot, cfg->module->arena);
  each_slot(cfg, fill_slot, NULL);
}

/* ---- size ---------------------------------------------------------------------------- */

IrSize ir_cfg_size(const IrCFG *cfg) {
  IrSize s = {0, 0, 0, 0, 0};
  for (int i = 0; i < cfg->nblocks; i++) {
    const IrBlock *b = cfg->blocks[i];
    s.blocks++;
    s.phis += (size_t)b->nphis;
    s.instrs += (size_t)b->ninstrs;
    for (int j = 0; j < b->ninstrs; j++)
      if (b->instrs[j]->ein) {
        s.ein_ops++;
        s.ein_nodes += b->instrs[j]->ein->body ? b->instrs[j]->ein->body->size : 0;
      }
  }
  return s;
}

IrSize ir_module_size(const IrModule *m) {
  IrSize s = {0, 0, 0, 0, 0};
  for (int c = 0; c < m->ncfgs; c++) {
    IrSize u = ir_cfg_size(m->cfgs[c]);
    s.blocks += u.blocks;
    s.instrs += u.instrs;
    s.phis += u.phis;
    s.ein_ops += u.ein_ops;
    s.ein_nodes += u.ein_nodes;
  }
  return s;
}
