/* ast_to_high.c -- the typed AST to HighIR: module, globals, strand, CFGs.
 *
 * ======================= CONTRACT OF THE OUTPUT ============================
 * (HighIR as produced here and kept by src/opt/high_opt.c; MidIR relies on it)
 *
 * MODULE. level IR_HIGH; m->strand_name; m->create_array (create_array vs
 * create_collection). One EinContext (the caller's) holds every EIN operator.
 *
 * GLOBALS (m->globals, declaration order; §6.1):
 *  - const: an IrGlobal IR_GLOBAL_CONST with g->value (folded, IrValue) is
 *    kept for information only: it is never read; every use of a folded
 *    constant is a literal tree (below). A constant that did not fold has no
 *    value; GLOBAL_INIT computes it first and GLOBAL_SETs it.
 *  - input: IR_GLOBAL_INPUT; g->desc, g->has_default; g->value = the folded
 *    default (value types); g->path = the file of a load_image /
 *    load_sequence default; g->proxy = the proxy header of an image input
 *    whose default file was read at compile time (NULL: no proxy, float
 *    samples, free sizes). The RUNTIME sets inputs (default, then command
 *    line / API) BEFORE GLOBAL_INIT runs. Global blocks may assign inputs
 *    like globals (§3.6), so an input can be GLOBAL_SET there.
 *  - global variables of value, sequence or image type: IR_GLOBAL_VAR. An
 *    image global is created only for `load_image(..)` initializers (g->path,
 *    g->proxy set; GLOBAL_INIT loads it with load_image(path)); sequences
 *    from `load_sequence(..)` likewise (g->path; load_seq in GLOBAL_INIT).
 *  - NO IrGlobal exists for globals of field or kernel type, nor for image
 *    globals defined by another expression (clamp(img), img2 = img). Fields
 *    are immutable values: their defining expression is translated again in
 *    every CFG that uses them. So, inside any CFG, a field value is built
 *    only from: GLOBAL_GET of an image global/input, border_clamp/mirror/
 *    wrap, kernel literals (IR_LIT_KERNEL, type kernel#k = the continuity
 *    asked for), convolve(img, h) (always image first), and EIN operators.
 *    (Limitation: a field definition reads tensor globals at the point of
 *    use, so a global reassigned in global update changes derived fields.)
 *
 * STATE (m->state): the strand's state variables in declaration order
 * (output flag), then one hidden non-output variable "_p_NAME" for each
 * strand parameter read by a method (start/update/stabilize). shared = read
 * through another strand (n.x in strand code, or `pos` when sphere() is
 * used); reads in global blocks (strand-set reductions) do not count.
 *
 * CFGs (ir_module_find_cfg by kind; at most one of each kind except FUNC):
 *  - GLOBAL_INIT "global_init": runs after the inputs are set: unfolded
 *    constants, global initializers in declaration order, then the global
 *    `initialize` block.
 *  - STRAND_INIT "strand_init": params = the strand parameters (declared
 *    types); state initializers in order, then the strand `initialize` block;
 *    it STATE_SETs every state variable (hidden parameter copies included).
 *  - START, UPDATE, STABILIZE "start"/"update"/"stabilize": no params.
 *  - GLOBAL_START, GLOBAL_UPDATE "global_start"/"global_update".
 *  - CREATE "create": the initial strands. The iterator sequences are
 *    evaluated first (outermost first). For create_array it then executes
 *    create_grid(len_1..len_n, base_1..base_n) (ints: the sequence lengths,
 *    and lo of a range `lo..hi`, 0 for other sequences); then the loop nest
 *    (first iterator outermost) whose body evaluates the arguments and
 *    executes new(args) (arguments coerced to the parameter types).
 *  - FUNC: only the map functions of STRAND_REDUCE, named "reduce_N":
 *    params (strand, captured values...), result = the mapped value.
 *    User functions are ALWAYS INLINED (§6.6): no other FUNC CFG exists.
 *  Unused kinds are absent (no start method -> no START CFG, etc.).
 *
 * STATE AND GLOBALS INSIDE A CFG are SSA values: a state variable / global is
 * read once (STATE_GET self / GLOBAL_GET) in the ENTRY block, and variables
 * assigned by the CFG are written back (STATE_SET / GLOBAL_SET) right before
 * every exit terminator (RETURN, STABILIZE, CONTINUE; not before DIE), and
 * in global blocks also right before a strand_reduce (its map function reads
 * globals with GLOBAL_GET) and a stabilize_all (the stabilize methods do). So within one CFG there are no other accesses except
 * STATE_GET(strand) of ANOTHER strand (n.x, sphere results, strand-set
 * map functions), which reads that strand's start-of-step copy.
 *
 * TERMINATORS. start/update: `stabilize` -> IR_T_STABILIZE, `die` ->
 * IR_T_DIE, `continue` -> IR_T_CONTINUE (even inside foreach), falling off
 * the end -> IR_T_RETURN (same meaning as continue: stays active). Global
 * blocks: `stabilize`/`die` are the effects stabilize_all/die_all and
 * execution goes on (§6.3); `continue` in global update -> RETURN.
 *
 * VALUES AND OPERATORS.
 *  - Literals: bool, int, real, string; a folded tensor constant is nested
 *    tensor_cons of real literals (new index first); a folded sequence is
 *    seq_cons. int->real coercion: int_to_real (literals convert at compile
 *    time). T[n]->T[] coercion: seq_concat(x, seq_cons():T[0]); int[n]->real[]
 *    converts element-wise (seq_index, int_to_real, seq_cons) first.
 *  - int arithmetic/comparison: common ops (iadd ... iabs, lt ..., min/max).
 *    ALL real and tensor arithmetic is EIN, scalars included (σ = {}):
 *    + - unary- * / on reals and tensors, • ⊗ : ×, trace, transpose, det,
 *    |t| (abs for real), normalize, modulate, lerp, constant slices t[1,:],
 *    zeros[σ] (λ⟨0⟩_σ), identity[n] (λ⟨δ_ij⟩), nan[σ] (broadcast of a NaN
 *    literal, λT0⟨T0⟩_σ), r^n with a constant int n (EIN power).
 *    Ops kept as ops: r^i with a non-constant i (powi), r^r (pow), sqrt and
 *    the other real math functions on reals (sqrt ... fmod), int_to_real,
 *    clamp, min/max, inv of a tensor (inv), evals, evecs, tensor_cons for
 *    [a,b,..] of tensors.
 *  - Fields: every lifted operation is EIN with FIELD parameters; tensor
 *    operands inside a field operator are wrapped in lift(). ∇ ∇⊗ ∇• ∇×,
 *    slices F[1,:], [F,G] (λ⟨δ[i,0]*F0_α + δ[i,1]*F1_α⟩), lifted sqrt etc.,
 *    S^n, |F|, normalize, det/inv/trace/transpose/modulate on fields: EIN.
 *    Continuity is in the declared result type (ir_emit_ein with the type).
 *  - Probe F(x): EIN λF0,T1⟨F0_α @ T1⟩_σ (T1: tensor[d], real when d = 1).
 *    inside(x, F): the INSIDE op on the field value.
 *  - Sequences: seq_cons, seq_index, seq_length, seq_append/prepend/concat,
 *    range (only where a range is used as a value); load_image/load_seq.
 *  - Control flow: && || and `e1 if c else e2` are branches with a phi.
 *    foreach, comprehensions and reductions over comprehensions are CFG
 *    loops (index loop over the sequence, or an int loop lo..hi over a
 *    range) with phis in the header; a reduction over a comprehension
 *    accumulates in the loop (mean: sum / count as real); a reduction of a
 *    sequence value is the red_* op. Min/max identities: ±inf for reals,
 *    INT_MAX/INT_MIN of the int width.
 *  - Strand sets (global blocks): strand_reduce[red,set](captured...) with
 *    fn = a FUNC "reduce_N"; { e | P in S.all } is red = collect.
 *  - sphere(r) / sphere(p, r): sphere / sphere_at, giving S[]; n.x on a
 *    strand value: STATE_GET with the strand as argument.
 *  - new S(args): the new op; print(args): the print op.
 * ==========================================================================
 */
#include "translate/ast_to_high.h"
#include "translate/ast_to_high_impl.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/ast_print.h"

static uint64_t ptr_key(const void *p, int inst) {
  return (uint64_t)(uintptr_t)p ^ ((uint64_t)(unsigned)inst << 48);
}

/* ---- errors, types ------------------------------------------------------------ */

void th_unsupported(Tr *t, Span sp, const char *what) {
  diag_report(t->d, ERR_NOT_YET, sp, what);
  t->failed = true;
}

void th_internal(Tr *t, const char *what) {
  if (!t->internal) t->internal = arena_strdup(t->a, what);
  t->failed = true;
}

const IrType *th_type(Tr *t, const Type *ty) {
  IrModule *m = t->m;
  ty = type_prune(ty);
  if (!ty) return NULL;
  switch (ty->kind) {
  case TY_BOOL: return ir_type_bool(m);
  case TY_INT: return ir_type_int(m);
  case TY_STRING: return ir_type_string(m);
  case TY_TENSOR: return ir_type_tensor(m, ty->shape.order, ty->shape.dims);
  case TY_SEQ: {
    const IrType *e = th_type(t, ty->elem);
    return e ? ir_type_seq(m, e, ty->len == TYPE_SEQ_DYNAMIC ? IR_SEQ_DYNAMIC : ty->len) : NULL;
  }
  case TY_IMAGE: return ir_type_image(m, ty->dim, ty->shape.order, ty->shape.dims);
  case TY_FIELD:
    return ir_type_field(m, ty->cont == TYPE_CONT_INF ? IR_CONT_INF : ty->cont, ty->dim,
                         ty->shape.order, ty->shape.dims);
  case TY_KERNEL: return ir_type_kernel(m, ty->cont);
  case TY_STRAND: return ir_type_strand(m, ty->name);
  default: return NULL;
  }
}

EinParam th_param(const IrType *ty) {
  if (ty && ty->kind == IR_TY_FIELD) return ein_param_field(ty->dim, ty->order, ty->dims);
  return ein_param_tensor(ty ? ty->order : 0, ty ? ty->dims : NULL);
}

/* ---- SSA construction ------------------------------------------------------------ */

Fn *th_fn_new(Tr *t, IrCfgKind kind, const char *name, FnWhere where) {
  Fn *f = ARENA_NEW(t->a, Fn);
  f->t = t;
  f->cfg = ir_cfg_new(t->m, kind, name);
  f->where = where;
  f->cur = f->cfg->entry;
  th_seal(f, f->cfg->entry);
  return f;
}

/* Grows the arrays by block id (sealed, pend_head) to hold id. */
static void block_slots(Fn *f, int id) {
  if (id < f->capsealed) return;
  int cap = f->capsealed ? f->capsealed : 32;
  while (cap <= id) cap *= 2;
  bool *s = ARENA_NEW_ARRAY(f->t->a, bool, cap);
  int *h = ARENA_NEW_ARRAY(f->t->a, int, cap);
  if (f->capsealed) {
    memcpy(s, f->sealed, (size_t)f->capsealed * sizeof *s);
    memcpy(h, f->pend_head, (size_t)f->capsealed * sizeof *h);
  }
  f->sealed = s;
  f->pend_head = h;
  f->capsealed = cap;
}

static bool *sealed_slot(Fn *f, int id) {
  block_slots(f, id);
  return &f->sealed[id];
}

IrBlock *th_block(Fn *f, const char *label) { return ir_block_new(f->cfg, label); }

static uint64_t def_key(const IrBlock *b, int slot) {
  return ((uint64_t)(unsigned)b->id << 32) | (uint64_t)(unsigned)slot;
}

void th_write(Fn *f, int slot, IrBlock *b, IrVar *v) {
  if (!b || slot < 0) return;
  th_map_put(f->t->a, &f->defs, def_key(b, slot), v);
}

static int new_slot(Fn *f, uint64_t key, SlotKind kind, const IrType *ty, const char *name) {
  if (f->nslots == f->capslots) {
    int cap = f->capslots ? f->capslots * 2 : 32;
    Slot *s = ARENA_NEW_ARRAY(f->t->a, Slot, cap);
    if (f->nslots) memcpy(s, f->slots, (size_t)f->nslots * sizeof *s);
    f->slots = s;
    f->capslots = cap;
  }
  Slot *s = &f->slots[f->nslots];
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->ty = ty;
  s->name = name;
  th_map_put(f->t->a, &f->slot_of, key, (void *)(intptr_t)(f->nslots + 1));
  return f->nslots++;
}

int th_slot_key(Fn *f, const void *key, const IrType *ty, const char *name) {
  uint64_t k = ptr_key(key, f->inst);
  intptr_t i = (intptr_t)th_map_get(&f->slot_of, k);
  return i ? (int)i - 1 : new_slot(f, k, SLOT_LOCAL, ty, name);
}

int th_slot_sym(Fn *f, Symbol *s) {
  Tr *t = f->t;
  const void *key = s;
  int inst = 0;
  SlotKind kind = SLOT_LOCAL;
  IrGlobal *g = NULL;
  IrStateVar *sv = NULL;
  switch (s->kind) {
  case SYM_LOCAL:
  case SYM_PARAM:
  case SYM_ITER: inst = f->inst; break;
  case SYM_GLOBAL:
  case SYM_INPUT:
  case SYM_CONST:
    g = th_map_get(&t->globals, ptr_key(s, 0));
    if (!g) {
      th_internal(t, "a global variable without an IR global");
      return -1;
    }
    kind = SLOT_GLOBAL;
    break;
  case SYM_STATE:
    sv = th_map_get(&t->states, ptr_key(s, 0));
    kind = SLOT_STATE;
    break;
  case SYM_STRAND_PARAM:
    if (f->strand_params_local) break;
    sv = th_map_get(&t->states, ptr_key(s, 0));
    key = sv;
    kind = SLOT_STATE;
    break;
  default: th_internal(t, "a non-variable symbol used as a variable"); return -1;
  }
  if (kind == SLOT_STATE && !sv) {
    th_internal(t, "a strand variable without IR state");
    return -1;
  }
  uint64_t k = ptr_key(key, inst);
  intptr_t i = (intptr_t)th_map_get(&f->slot_of, k);
  if (i) return (int)i - 1;
  int slot = new_slot(f, k, kind, g ? g->ty : sv ? sv->ty : th_type(t, s->ty), s->name);
  f->slots[slot].global = g;
  f->slots[slot].state = sv;
  return slot;
}

/* Instruction `in` (just appended to the entry block) moves up to the
 * group of entry reads at the top. */
static void to_entry_top(Fn *f, IrVar *v) {
  if (!v || !v->def) return;
  IrBlock *e = f->cfg->entry;
  ir_instr_remove(v->def);
  ir_block_insert(e, f->nentry++, v->def);
}

/* The value of a slot on entry to the CFG. */
static IrVar *entry_value(Fn *f, int slot) {
  Slot *s = &f->slots[slot];
  IrBlock *e = f->cfg->entry;
  IrVar *v;
  if (s->kind == SLOT_GLOBAL) v = ir_emit_global_get(e, s->name, s->global);
  else if (s->kind == SLOT_STATE) v = ir_emit_state_get(e, s->name, s->state, NULL);
  else v = th_zero(f, e, s->ty); /* not reachable after definite-initialisation checks */
  if (!v) {
    th_internal(f->t, "no entry value for a variable");
    return NULL;
  }
  to_entry_top(f, v);
  return v;
}

static IrVar *read_rec(Fn *f, int slot, IrBlock *b);

IrVar *th_read(Fn *f, int slot, IrBlock *b) {
  if (slot < 0 || !b) return NULL;
  IrVar *v = th_map_get(&f->defs, def_key(b, slot));
  return v ? v : read_rec(f, slot, b);
}

static void add_phi_operands(Fn *f, int slot, IrInstr *phi) {
  IrBlock *b = phi->block;
  for (int k = 0; k < b->npreds; k++) ir_phi_set_arg(phi, k, th_read(f, slot, b->preds[k]));
}

static IrVar *read_rec(Fn *f, int slot, IrBlock *b) {
  IrVar *v;
  const char *name = f->slots[slot].name;
  if (!*sealed_slot(f, b->id)) {
    v = ir_phi_new(b, name, f->slots[slot].ty);
    if (f->npend == f->cappend) {
      int cap = f->cappend ? f->cappend * 2 : 16;
      PendingPhi *p = ARENA_NEW_ARRAY(f->t->a, PendingPhi, cap);
      if (f->npend) memcpy(p, f->pend, (size_t)f->npend * sizeof *p);
      f->pend = p;
      f->cappend = cap;
    }
    block_slots(f, b->id);
    f->pend[f->npend] = (PendingPhi){b, slot, v->def, f->pend_head[b->id]};
    f->pend_head[b->id] = ++f->npend;
  } else if (b == f->cfg->entry) {
    v = entry_value(f, slot);
  } else if (b->npreds == 0) {
    v = th_zero(f, b, f->slots[slot].ty); /* unreachable code */
  } else if (b->npreds == 1) {
    v = th_read(f, slot, b->preds[0]);
  } else {
    v = ir_phi_new(b, name, f->slots[slot].ty);
    th_write(f, slot, b, v); /* breaks cycles through loops */
    add_phi_operands(f, slot, v->def);
  }
  th_write(f, slot, b, v);
  return v;
}

void th_seal(Fn *f, IrBlock *b) {
  if (!b || *sealed_slot(f, b->id)) return;
  *sealed_slot(f, b->id) = true;
  /* b's own pending phis (a list per block: sealing every block of a CFG
   * stays linear); indices, as completing them may grow f->pend. Sealed,
   * b gets no new ones. */
  for (int i = f->pend_head[b->id]; i; i = f->pend[i - 1].next)
    add_phi_operands(f, f->pend[i - 1].slot, f->pend[i - 1].phi);
}

void th_jump(Fn *f, IrBlock *to) {
  if (f->cur) ir_block_set_jump(f->cur, to);
  f->cur = NULL;
}

void th_exit(Fn *f, IrTermKind kind) {
  IrBlock *b = f->cur;
  if (!b) return;
  if (kind == IR_T_RETURN) ir_block_set_return(b, NULL);
  else ir_block_set_exit(b, kind);
  if (kind != IR_T_DIE) {
    if (f->nexits == f->capexits) {
      int cap = f->capexits ? f->capexits * 2 : 8;
      IrBlock **e = ARENA_NEW_ARRAY(f->t->a, IrBlock *, cap);
      if (f->nexits) memcpy(e, f->exits, (size_t)f->nexits * sizeof *e);
      f->exits = e;
      f->capexits = cap;
    }
    f->exits[f->nexits++] = b;
  }
  f->cur = NULL;
}

/* Append the write-back of every assigned global/state slot to b. */
static void write_back(Fn *f, IrBlock *b) {
  for (int i = 0; i < f->nslots; i++) {
    Slot *s = &f->slots[i];
    if (!s->assigned || s->kind == SLOT_LOCAL) continue;
    IrVar *v = th_read(f, i, b);
    if (!v) continue;
    if (s->kind == SLOT_GLOBAL) ir_emit_global_set(b, s->global, v);
    else ir_emit_state_set(b, s->state, v);
  }
}

void th_flush_globals(Fn *f) {
  if (f->cur) write_back(f, f->cur);
}

/* Replace phis whose arguments are all one value (or the phi itself). */
/* The variable v stands for after the phis removed so far (repl), with
 * the path compressed (chains of phis of phis: an else-if chain's joins). */
static IrVar *resolved(IrVar **repl, IrVar *v) {
  IrVar *r = v;
  while (r && repl[r->id]) r = repl[r->id];
  while (v && repl[v->id] && repl[v->id] != r) {
    IrVar *next = repl[v->id];
    repl[v->id] = r;
    v = next;
  }
  return r;
}

/* The one value phi's arguments stand for (ignoring the phi itself), or
 * NULL when there are several. */
static IrVar *trivial_value(IrVar **repl, IrInstr *phi) {
  IrVar *same = NULL;
  for (int k = 0; k < phi->nargs; k++) {
    IrVar *v = resolved(repl, phi->args[k]);
    if (v == phi->dst || v == same) continue;
    if (same || !v) return NULL;
    same = v;
  }
  return same;
}

/* Phis whose arguments are one variable (or the phi itself) become that
 * variable, found by a worklist: every phi once, and a phi again when one
 * of its arguments (a phi) was replaced; then one walk of the CFG rewrites
 * every use and the phis go. Linear in the CFG, where rounds over all the
 * phis until none changed took a round per link of the longest chain of
 * phis, and replacing each phi's uses as it was found walked the whole CFG
 * once per phi. */
static void remove_trivial_phis(Arena *a, IrCFG *cfg) {
  int nids = cfg->module->next_var_id + 1;
  IrVar **repl = ARENA_NEW_ARRAY(a, IrVar *, nids);
  int nphis = 0, nargs = 0;
  for (int i = 0; i < cfg->nblocks; i++)
    for (int j = 0; j < cfg->blocks[i]->nphis; j++) {
      nphis++;
      nargs += cfg->blocks[i]->phis[j]->nargs;
    }
  if (!nphis) return;
  /* the phis that read each phi (by the reader's position in `all`): the
   * readers of phi p are users[first[p] .. first[p + 1]) */
  IrInstr **all = ARENA_NEW_ARRAY(a, IrInstr *, nphis);
  int *slot = ARENA_NEW_ARRAY(a, int, nids); /* 1 + position in all, by dst id */
  int n = 0;
  for (int i = 0; i < cfg->nblocks; i++)
    for (int j = 0; j < cfg->blocks[i]->nphis; j++) {
      IrInstr *phi = cfg->blocks[i]->phis[j];
      all[n++] = phi;
      if (phi->dst) slot[phi->dst->id] = n;
    }
  int *first = ARENA_NEW_ARRAY(a, int, nphis + 1);
  int *users = ARENA_NEW_ARRAY(a, int, nargs + 1);
  for (int p = 0; p < nphis; p++)
    for (int k = 0; k < all[p]->nargs; k++) {
      IrVar *v = all[p]->args[k];
      if (v && slot[v->id]) first[slot[v->id]]++;
    }
  for (int p = 0; p < nphis; p++) first[p + 1] += first[p];
  int *fill = ARENA_NEW_ARRAY(a, int, nphis);
  for (int p = 0; p < nphis; p++)
    for (int k = 0; k < all[p]->nargs; k++) {
      IrVar *v = all[p]->args[k];
      if (v && slot[v->id]) {
        int q = slot[v->id] - 1;
        users[first[q] + fill[q]++] = p;
      }
    }
  /* the worklist (a stack; a phi on it at most once at a time) */
  int *work = ARENA_NEW_ARRAY(a, int, nphis);
  bool *queued = ARENA_NEW_ARRAY(a, bool, nphis);
  int nw = 0;
  for (int p = nphis - 1; p >= 0; p--) work[nw++] = p, queued[p] = true;
  bool any = false;
  while (nw) {
    int p = work[--nw];
    queued[p] = false;
    IrInstr *phi = all[p];
    if (!phi->dst || repl[phi->dst->id]) continue;
    IrVar *same = trivial_value(repl, phi);
    if (!same) continue;
    repl[phi->dst->id] = same;
    any = true;
    for (int u = first[p]; u < first[p + 1]; u++)
      if (!queued[users[u]]) work[nw++] = users[u], queued[users[u]] = true;
  }
  if (!any) return;
  /* every chain resolved to its end before the rewrite reads repl */
  for (int p = 0; p < nphis; p++)
    if (all[p]->dst && repl[all[p]->dst->id]) resolved(repl, all[p]->dst);
  ir_cfg_replace_all(cfg, repl);
  for (int i = 0; i < cfg->nblocks; i++) {
    IrBlock *b = cfg->blocks[i];
    int kept = 0;
    for (int j = 0; j < b->nphis; j++) {
      IrInstr *phi = b->phis[j];
      if (phi->dst && repl[phi->dst->id]) phi->block = NULL; /* as ir_instr_remove */
      else b->phis[kept++] = phi;
    }
    b->nphis = kept;
  }
}

void th_fn_finish(Fn *f) {
  f->cfg->cur_line = 0; /* write-backs belong to no one statement */
  if (f->cur) th_exit(f, IR_T_RETURN);
  for (int i = 0; i < f->cfg->nblocks; i++) th_seal(f, f->cfg->blocks[i]);
  for (int i = 0; i < f->nexits; i++) write_back(f, f->exits[i]);
  ir_remove_unreachable(f->cfg);
  remove_trivial_phis(f->t->a, f->cfg);
}

/* ---- run-time choices: a CFG copied per choice (ast_to_high_choice.c) ----- */

static void dispatch(Fn *f, int i, uint64_t uses, ThChoiceBody body, void *ctx, IrBlock *join) {
  Tr *t = f->t;
  if (!f->cur) return;
  while (i < t->nchoice && !(uses >> i & 1)) i++;
  if (i == t->nchoice) {
    body(f, ctx);
    th_jump(f, join);
    return;
  }
  Symbol *s = t->choice_syms[i];
  IrGlobal *g = th_map_get(&t->globals, ptr_key(s, 0));
  int n = 0;
  const char **names = NULL;
  const void **vs = th_choices_of(t, s, &names, &n);
  IrVar *idx = th_read(f, th_slot_sym(f, s), f->cur);
  if (!g || !idx) {
    th_internal(t, "a run-time choice without its IR global");
    return;
  }
  for (int j = 0; j < n && f->cur; j++) {
    IrBlock *here = th_block(f, names[j]);
    IrBlock *next = NULL;
    if (j + 1 < n) {
      /* the last choice is the else of the others: the command line and
       * the library setter admit only indices of choices */
      IrVar *args[2] = {idx, ir_emit_int(f->cur, j)};
      IrVar *is = ir_emit(f->cur, IR_OP_EQ, 2, args);
      if (!is) {
        th_internal(t, "the test of a kernel input");
        return;
      }
      next = th_block(f, "other");
      ir_block_set_branch(f->cur, is, here, next);
      th_seal(f, next);
    } else {
      ir_block_set_jump(f->cur, here);
    }
    th_seal(f, here);
    f->cur = here;
    th_choice_bind(t, s, vs[j]);
    dispatch(f, i + 1, uses, body, ctx, join);
    f->cur = next;
  }
  th_choice_bind(t, s, NULL);
}

void th_with_choices(Fn *f, uint64_t uses, ThChoiceBody body, void *ctx) {
  Tr *t = f->t;
  if (!uses || !t->nchoice || !f->cur) {
    body(f, ctx);
    return;
  }
  /* every combination of the inputs used is a copy of the code: a bound
   * keeps the generated C (and its compile time) in reason */
  long combos = 1;
  const Symbol *last = NULL;
  for (int i = 0; i < t->nchoice; i++) {
    if (!(uses >> i & 1)) continue;
    int n = th_choice_count(t, t->choice_syms[i]);
    if (combos <= TH_MAX_CHOICE_COPIES) combos *= n;
    last = t->choice_syms[i];
  }
  if (combos > TH_MAX_CHOICE_COPIES) {
    diag_report(t->d, ERR_CHOICE_COPIES, last->span, f->cfg->name, TH_MAX_CHOICE_COPIES);
    t->failed = true;
    return;
  }
  IrBlock *join = th_block(f, "chosen");
  dispatch(f, 0, uses, body, ctx, join);
  th_seal(f, join);
  f->cur = join->npreds ? join : NULL;
}

/* ---- literals -------------------------------------------------------------------------- */

/* A tensor of the given shape from row-major components (nested
 * tensor_cons, new index first). */
static IrVar *tensor_lit(Fn *f, IrBlock *b, int order, const int *dims, const double *r) {
  if (order == 0) return ir_emit_real(b, r[0]);
  int n = dims[0], stride = 1;
  for (int i = 1; i < order; i++) stride *= dims[i];
  IrVar **parts = ARENA_NEW_ARRAY(f->t->a, IrVar *, n);
  for (int i = 0; i < n; i++) parts[i] = tensor_lit(f, b, order - 1, dims + 1, r + i * stride);
  return ir_emit(b, IR_OP_TENSOR_CONS, n, parts);
}

static IrVar *value_in(Fn *f, IrBlock *b, const ConstValue *cv, const IrType *ty) {
  switch (cv->kind) {
  case CV_BOOL: return ir_emit_bool(b, cv->b);
  case CV_INT: return ir_emit_int(b, cv->i);
  case CV_STRING: return ir_emit_string(b, cv->s ? cv->s : "");
  case CV_TENSOR:
    if (!ty || ty->kind != IR_TY_TENSOR) return NULL;
    return tensor_lit(f, b, ty->order, ty->dims, cv->r);
  case CV_SEQ: {
    if (!ty || ty->kind != IR_TY_SEQ) return NULL;
    if (cv->n == 0) return ir_emit_op(b, "seq", IR_OP_SEQ_CONS, ty, 0, NULL, 0, NULL);
    IrVar **el = ARENA_NEW_ARRAY(f->t->a, IrVar *, cv->n);
    for (int i = 0; i < cv->n; i++)
      if (!(el[i] = value_in(f, b, cv->elems[i], ty->elem))) return NULL;
    return ir_emit(b, IR_OP_SEQ_CONS, cv->n, el);
  }
  }
  return NULL;
}

IrVar *th_value(Fn *f, const ConstValue *cv, const IrType *ty) {
  IrVar *v = f->cur ? value_in(f, f->cur, cv, ty) : NULL;
  if (!v && f->cur) th_internal(f->t, "a constant value that does not fit its type");
  return v;
}

IrVar *th_zero(Fn *f, IrBlock *b, const IrType *ty) {
  if (!ty) return NULL;
  switch (ty->kind) {
  case IR_TY_BOOL: return ir_emit_bool(b, false);
  case IR_TY_INT: return ir_emit_int(b, 0);
  case IR_TY_STRING: return ir_emit_string(b, "");
  case IR_TY_TENSOR:
    return ir_emit_ein(b, "zero", eb_zeros(f->t->ein, ty->order, ty->dims), NULL, 0, NULL);
  case IR_TY_SEQ:
    if (ty->len == IR_SEQ_DYNAMIC || ty->len == 0)
      return ir_emit_op(b, "seq", IR_OP_SEQ_CONS, ty, 0, NULL, 0, NULL);
    {
      IrVar *e = th_zero(f, b, ty->elem);
      IrVar **el = ARENA_NEW_ARRAY(f->t->a, IrVar *, ty->len);
      for (int i = 0; i < ty->len; i++) el[i] = e;
      return e ? ir_emit(b, IR_OP_SEQ_CONS, ty->len, el) : NULL;
    }
  default: return NULL;
  }
}

/* The compile-time value for the module's globals table. */
static const IrValue *ir_value_of(Tr *t, const ConstValue *cv, const IrType *ty) {
  if (!cv || !ty) return NULL;
  IrValue *v = ARENA_NEW(t->a, IrValue);
  v->ty = ty;
  switch (cv->kind) {
  case CV_BOOL: v->b = cv->b; break;
  case CV_INT: v->i = cv->i; break;
  case CV_STRING:
    v->s = cv->s;
    v->slen = cv->slen;
    break;
  case CV_TENSOR:
    v->nr = cv->nr;
    v->r = cv->r;
    break;
  case CV_SEQ: {
    if (ty->kind != IR_TY_SEQ) return NULL;
    const IrValue **el = ARENA_NEW_ARRAY(t->a, const IrValue *, cv->n > 0 ? cv->n : 1);
    for (int i = 0; i < cv->n; i++)
      if (!(el[i] = ir_value_of(t, cv->elems[i], ty->elem))) return NULL;
    v->n = cv->n;
    v->elems = el;
    break;
  }
  }
  return v;
}

/* ---- the module --------------------------------------------------------------------------- */

static const Expr *strip(const Expr *e) {
  while (e && e->kind == E_PAREN) e = e->a;
  return e;
}

/* The file name of load_image("f") / load_sequence("f"). */
static const char *load_path(Tr *t, const Expr *e) {
  const ConstValue *cv = e && e->a ? const_fold(&t->ce, e->a) : NULL;
  return cv && cv->kind == CV_STRING ? cv->s : NULL;
}

static const IrProxy *proxy_of(Tr *t, const Symbol *s) {
  if (!s->proxy) return NULL;
  IrProxy *p = ARENA_NEW(t->a, IrProxy);
  p->dim = s->proxy->dim;
  p->ncomp = s->proxy->ncomp;
  p->nrrd_type = s->proxy->nrrd_type;
  p->sample_type = s->proxy->type_name;
  return p;
}

/* Whether a global of this type/initializer gets an IrGlobal (the others
 * are re-translated where used; see the contract). */
static bool has_ir_global(const Decl *d) {
  const Type *ty = type_prune(d->sym ? d->sym->ty : NULL);
  if (!ty) return false;
  if (ty->kind == TY_FIELD || ty->kind == TY_KERNEL || ty->kind == TY_BORDER || ty->kind == TY_FUN) return false;
  if (ty->kind == TY_IMAGE && d->kind != D_INPUT) {
    const Expr *i = strip(d->init);
    return i && i->kind == E_LOAD_IMAGE;
  }
  return true;
}

/* The default's source as --dump=ast prints it, on one line (for the
 * usage of an executable: "default: sample_min(img)"). */
static const char *expr_text(Tr *t, const Expr *e) {
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  if (!mem) return "";
  ast_print_expr(mem, e);
  fclose(mem);
  if (!buf) return "";
  for (char *c = buf; *c; c++)
    if (*c == '\n' || *c == '\t') *c = ' ';
  const char *r = arena_strdup(t->a, buf);
  free(buf);
  return r;
}

static void declare_globals(Tr *t) {
  for (Decl *d = t->prog->globals.head; d; d = d->next) {
    Symbol *s = d->sym;
    if (!s || (d->kind != D_CONST && d->kind != D_INPUT && d->kind != D_VAR)) continue;
    if (th_is_choice(s)) th_choice_global(t, d);
    if (!has_ir_global(d)) continue;
    const IrType *ty = th_type(t, s->ty);
    if (!ty) {
      th_internal(t, "a global of an untranslatable type");
      continue;
    }
    IrGlobalKind k = d->kind == D_CONST ? IR_GLOBAL_CONST
                     : d->kind == D_INPUT ? IR_GLOBAL_INPUT
                                          : IR_GLOBAL_VAR;
    IrGlobal *g = ir_global_new(t->m, k, s->name, ty);
    const Expr *init = strip(d->init);
    if (d->kind == D_INPUT) {
      g->desc = d->has_desc ? d->desc.text : NULL;
      g->has_default = (s->flags & SF_HAS_INIT) != 0;
    }
    if (d->kind != D_VAR) g->value = ir_value_of(t, s->cval, ty);
    if (init && (init->kind == E_LOAD_IMAGE || init->kind == E_LOAD_SEQ))
      g->path = load_path(t, init);
    g->proxy = proxy_of(t, s);
    if (d->kind == D_INPUT && (s->flags & SF_COMPUTED_DEFAULT))
      g->default_text = expr_text(t, d->init);
    else if (d->kind == D_INPUT && init && !g->value && !g->path)
      th_unsupported(t, d->name_span, "an input default that is not a compile-time constant");
    th_map_put(t->a, &t->globals, ptr_key(s, 0), g);
  }
  /* the images load_image reads inside expressions (typechecker's hidden
   * globals): loaded once, first thing in GLOBAL_INIT */
  for (int i = 0; i < t->prog->nimage_loads; i++) {
    Symbol *s = t->prog->image_loads[i];
    IrGlobal *g = ir_global_new(t->m, IR_GLOBAL_VAR, s->name, th_type(t, s->ty));
    g->path = s->load_file;
    g->proxy = proxy_of(t, s);
    th_map_put(t->a, &t->globals, ptr_key(s, 0), g);
  }
}

static void declare_state(Tr *t, StrandDecl *sd) {
  for (Decl *d = sd->state.head; d; d = d->next) {
    if (!d->sym) continue;
    const IrType *ty = th_type(t, d->sym->ty);
    IrStateVar *sv = ir_state_new(t->m, d->sym->name, ty, d->is_output);
    sv->position = t->strand && d->sym == t->strand->pos;
    th_map_put(t->a, &t->states, ptr_key(d->sym, 0), sv);
  }
  int np = sd->params.len;
  Symbol **ps = ARENA_NEW_ARRAY(t->a, Symbol *, np > 0 ? np : 1);
  bool *used = ARENA_NEW_ARRAY(t->a, bool, np > 0 ? np : 1);
  int i = 0;
  for (Param *p = sd->params.head; p; p = p->next) ps[i++] = p->sym;
  for (int m = 0; m < M__COUNT; m++)
    if (sd->methods[m]) th_mark_params_stmt(t, sd->methods[m]->body, used, ps, np);
  for (i = 0; i < np; i++) {
    if (!used[i] || !ps[i]) continue;
    IrStateVar *sv = ir_state_new(t->m, arena_printf(t->a, "_p_%s", ps[i]->name),
                                  th_type(t, ps[i]->ty), false);
    th_map_put(t->a, &t->states, ptr_key(ps[i], 0), sv);
  }
  for (int m = 0; m < M__COUNT; m++)
    if (sd->methods[m]) th_mark_shared_stmt(t, sd->methods[m]->body);
  if (sd->init) th_mark_shared_stmt(t, sd->init);
  for (Decl *d = sd->state.head; d; d = d->next) th_mark_shared_expr(t, d->init);
  Symbol *ss = t->strand;
  if (ss && (ss->flags & SF_STRAND_SPHERE) && ss->pos) {
    IrStateVar *sv = th_map_get(&t->states, ptr_key(ss->pos, 0));
    if (sv) sv->shared = true;
  }
}

/* An input's default computed by the program (an extension, doc/language.md
 * §3), in declaration order among the globals' initializers: evaluated and
 * assigned when the input was not given (input_given), else skipped. */
static void computed_default(Fn *f, Decl *d) {
  Symbol *s = d->sym;
  IrGlobal *g = th_map_get(&f->t->globals, ptr_key(s, 0));
  if (!g) return;
  f->cfg->cur_line = d->span.begin.line;
  int gi = g->index;
  IrVar *given = ir_emit_op(f->cur, "given", IR_OP_INPUT_GIVEN, NULL, 0, NULL, 1, &gi);
  if (!given) {
    th_internal(f->t, "input_given");
    return;
  }
  IrBlock *cb = th_block(f, "default"), *join = th_block(f, "join");
  ir_block_set_branch(f->cur, given, join, cb);
  th_seal(f, cb);
  f->cur = cb;
  IrVar *v = th_expr(f, d->init);
  if (f->cur) {
    int slot = th_slot_sym(f, s);
    th_write(f, slot, f->cur, v);
    if (slot >= 0) f->slots[slot].assigned = true;
  }
  th_jump(f, join);
  th_seal(f, join);
  f->cur = join->npreds ? join : NULL;
}

static void global_inits(Fn *f, void *unused);

static void global_init(Tr *t) {
  Fn *f = th_fn_new(t, IR_CFG_GLOBAL_INIT, "global_init", FW_INIT);
  for (int i = 0; i < t->prog->nimage_loads && f->cur; i++) {
    Symbol *s = t->prog->image_loads[i];
    IrGlobal *g = th_map_get(&t->globals, ptr_key(s, 0));
    IrVar *path = ir_emit_string(f->cur, g->path);
    IrVar *v = ir_emit_op(f->cur, s->name, IR_OP_LOAD_IMAGE, g->ty, 1, &path, 0, NULL);
    int slot = th_slot_sym(f, s);
    th_write(f, slot, f->cur, v);
    if (slot >= 0) f->slots[slot].assigned = true;
  }
  uint64_t uses = th_uses_choice_stmt(t, t->prog->global_init);
  for (Decl *d = t->prog->globals.head; d; d = d->next)
    if (d->sym && has_ir_global(d) && d->kind != D_FUNC) uses |= th_uses_choice_expr(t, d->init);
  th_with_choices(f, uses, global_inits, NULL);
  th_fn_finish(f);
}

/* The initializers of the globals and the global `initialize` block. */
static void global_inits(Fn *f, void *unused) {
  (void)unused;
  Tr *t = f->t;
  for (Decl *d = t->prog->globals.head; d; d = d->next) {
    Symbol *s = d->sym;
    if (s && d->kind == D_INPUT && (s->flags & SF_COMPUTED_DEFAULT) && f->cur) {
      computed_default(f, d);
      continue;
    }
    if (!s || !d->init || (d->kind != D_CONST && d->kind != D_VAR) || !has_ir_global(d)) continue;
    IrGlobal *g = th_map_get(&t->globals, ptr_key(s, 0));
    if (!g || (d->kind == D_CONST && g->value)) continue;
    const Expr *init = strip(d->init);
    IrVar *v = NULL;
    f->cfg->cur_line = d->span.begin.line;
    if (init->kind == E_LOAD_IMAGE || init->kind == E_LOAD_SEQ) {
      IrVar *path = ir_emit_string(f->cur, g->path ? g->path : "");
      v = ir_emit_op(f->cur, s->name, init->kind == E_LOAD_IMAGE ? IR_OP_LOAD_IMAGE : IR_OP_LOAD_SEQ,
                     g->ty, 1, &path, 0, NULL);
    } else {
      v = th_expr(f, d->init);
    }
    if (!f->cur) break;
    int slot = th_slot_sym(f, s);
    th_write(f, slot, f->cur, v);
    if (slot >= 0) f->slots[slot].assigned = true;
  }
  if (t->prog->global_init) th_stmt(f, t->prog->global_init);
}

static void state_inits(Fn *f, void *sdv);

static void strand_init(Tr *t, StrandDecl *sd) {
  Fn *f = th_fn_new(t, IR_CFG_STRAND_INIT, "strand_init", FW_STRAND_INIT);
  f->strand_params_local = true;
  for (Param *p = sd->params.head; p; p = p->next) {
    if (!p->sym) continue;
    IrVar *v = ir_cfg_add_param(f->cfg, p->sym->name, th_type(t, p->sym->ty));
    th_write(f, th_slot_sym(f, p->sym), f->cur, v);
  }
  uint64_t uses = th_uses_choice_stmt(t, sd->init);
  for (Decl *d = sd->state.head; d; d = d->next) uses |= th_uses_choice_expr(t, d->init);
  th_with_choices(f, uses, state_inits, sd);
  th_fn_finish(f);
}

/* The state's initializers, the strand `initialize` block and the hidden
 * copies of the parameters. */
static void state_inits(Fn *f, void *sdv) {
  Tr *t = f->t;
  StrandDecl *sd = sdv;
  for (Decl *d = sd->state.head; d && f->cur; d = d->next) {
    if (!d->sym) continue;
    int slot = th_slot_sym(f, d->sym);
    if (slot >= 0) f->slots[slot].assigned = true; /* every state variable is initialised here */
    if (!d->init) continue;
    f->cfg->cur_line = d->span.begin.line;
    th_write(f, slot, f->cur, th_expr(f, d->init));
  }
  if (sd->init && f->cur) th_stmt(f, sd->init);
  /* hidden copies of the parameters that methods read */
  for (Param *p = sd->params.head; p && f->cur; p = p->next) {
    IrStateVar *sv = p->sym ? th_map_get(&t->states, ptr_key(p->sym, 0)) : NULL;
    if (!sv) continue;
    IrVar *v = th_read(f, th_slot_sym(f, p->sym), f->cur);
    int slot = th_slot_key(f, sv, sv->ty, sv->name);
    f->slots[slot].kind = SLOT_STATE;
    f->slots[slot].state = sv;
    f->slots[slot].assigned = true;
    th_write(f, slot, f->cur, v);
  }
}

static void body_stmt(Fn *f, void *body) { th_stmt(f, body); }

static void method(Tr *t, Method *m) {
  static const IrCfgKind kinds[M__COUNT] = {IR_CFG_START, IR_CFG_UPDATE, IR_CFG_STABILIZE};
  static const char *const names[M__COUNT] = {"start", "update", "stabilize"};
  if (!m || !m->body) return;
  Fn *f = th_fn_new(t, kinds[m->kind], names[m->kind],
                    m->kind == M_STABILIZE ? FW_STABILIZE : FW_METHOD);
  th_with_choices(f, th_uses_choice_stmt(t, m->body), body_stmt, m->body);
  th_fn_finish(f);
}

static void global_block(Tr *t, Stmt *body, IrCfgKind kind, const char *name) {
  if (!body) return;
  Fn *f = th_fn_new(t, kind, name, FW_GLOBAL);
  th_with_choices(f, th_uses_choice_stmt(t, body), body_stmt, body);
  th_fn_finish(f);
}

static void create_body(Fn *f, void *c) { th_create(f, c); }

IrModule *ast_to_high(Arena *a, DiagCtx *d, EinContext *ein, Program *p,
                      const HighTranslateOptions *opts, const char **internal) {
  static const HighTranslateOptions dflt = {false, false};
  Tr t;
  memset(&t, 0, sizeof t);
  t.a = a;
  t.d = d;
  t.ein = ein;
  t.prog = p;
  t.opts = opts ? opts : &dflt;
  type_ctx_init(&t.tc, a);
  t.ce.arena = a;
  t.ce.tc = &t.tc;
  t.ce.diag = NULL;
  t.ce.long_int = t.opts->long_int;
  t.next_inst = 1;
  if (internal) *internal = NULL;
  t.m = ir_module_new(a, IR_HIGH);
  if (p->create && p->create->expr && p->create->expr->sym &&
      p->create->expr->sym->kind == SYM_STRAND)
    t.strand = p->create->expr->sym;
  if (p->strand && p->strand->name) {
    ir_module_set_strand(t.m, p->strand->name);
    t.m->create_array = p->create && p->create->kind == CREATE_ARRAY;
  }
  declare_globals(&t);
  if (p->strand) declare_state(&t, p->strand);
  global_init(&t);
  if (p->strand) {
    strand_init(&t, p->strand);
    for (int m = 0; m < M__COUNT; m++) method(&t, p->strand->methods[m]);
  }
  global_block(&t, p->global_start, IR_CFG_GLOBAL_START, "global_start");
  global_block(&t, p->global_update, IR_CFG_GLOBAL_UPDATE, "global_update");
  if (p->create) {
    Fn *f = th_fn_new(&t, IR_CFG_CREATE, "create", FW_INIT);
    uint64_t uses = th_uses_choice_expr(&t, p->create->expr);
    for (Iter *it = p->create->iters.head; it; it = it->next) uses |= th_uses_choice_expr(&t, it->src);
    th_with_choices(f, uses, create_body, p->create);
    th_fn_finish(f);
  }
  if (t.failed) {
    if (internal) *internal = t.internal;
    return NULL;
  }
  return t.m;
}
