/* ir_vn.c -- dominator-scoped value numbering.
 *
 * The dominator tree is walked in preorder with a scoped hash table: an
 * expression computed in block A is available in every block A dominates,
 * and forgotten when the walk leaves A's subtree. Keys are (kind, operator,
 * immediates, EIN operator, result type, value numbers of the arguments);
 * commutative operators compare their two arguments in either order. EIN
 * operators are hash-consed (ein.h), so the operator part of the key is a
 * pointer. Only PURE operators, literals and copies take part; READ
 * operators (world queries, file loads) and effects never merge.
 *
 * A redundant instruction's result is mapped to the earlier value and the
 * instruction is deleted; at the end every operand in the CFG (including
 * phi arguments on back edges and blocks the walk did not reach) is
 * rewritten through the map. Phis whose arguments are all one value, or
 * that value and the phi itself, become that value; two phis of one block
 * with the same arguments merge.
 */
#include <string.h>

#include "ir/ir.h"

typedef struct Entry {
  struct Entry *next;
  const IrInstr *in; /* the representative instruction (args canonical) */
  uint32_t hash;
} Entry;

typedef struct Vn {
  IrCFG *cfg;
  Arena *a;
  IrVar **rep; /* by variable id: the value it was merged into, or NULL */
  int nids;
  Entry **buckets;
  size_t nbuckets;
  Entry **undo; /* entries in insertion order, for leaving a scope */
  int nundo, capundo;
  int removed;
} Vn;

static IrVar *find(Vn *vn, IrVar *v) {
  while (v && v->id >= 0 && v->id < vn->nids && vn->rep[v->id]) v = vn->rep[v->id];
  return v;
}

static void merge(Vn *vn, IrVar *from, IrVar *to) {
  if (from && from->id >= 0 && from->id < vn->nids && from != to) vn->rep[from->id] = to;
}

static uint32_t mix(uint32_t h, uint32_t v) {
  return h ^ (v + 0x9e3779b9u + (h << 6) + (h >> 2));
}

static uint32_t mix_ptr(uint32_t h, const void *p) {
  uintptr_t u = (uintptr_t)p;
  h = mix(h, (uint32_t)u);
  return mix(h, (uint32_t)((uint64_t)u >> 32));
}

static uint32_t lit_hash(const IrLit *l) {
  uint32_t h = mix(0x4c4954u, (uint32_t)l->kind);
  switch (l->kind) {
  case IR_LIT_BOOL: return mix(h, l->b);
  case IR_LIT_INT: return mix(mix(h, (uint32_t)l->i), (uint32_t)((uint64_t)l->i >> 32));
  case IR_LIT_REAL: {
    uint64_t bits;
    memcpy(&bits, &l->r, sizeof bits);
    return mix(mix(h, (uint32_t)bits), (uint32_t)(bits >> 32));
  }
  case IR_LIT_STRING:
    for (const char *p = l->s ? l->s : ""; *p; p++) h = mix(h, (unsigned char)*p);
    return h;
  case IR_LIT_KERNEL: return mix_ptr(h, l->kernel);
  }
  return h;
}

static bool lit_equal(const IrLit *a, const IrLit *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case IR_LIT_BOOL: return a->b == b->b;
  case IR_LIT_INT: return a->i == b->i;
  case IR_LIT_REAL: return memcmp(&a->r, &b->r, sizeof a->r) == 0; /* NaN, -0.0 exact */
  case IR_LIT_STRING: return strcmp(a->s ? a->s : "", b->s ? b->s : "") == 0;
  case IR_LIT_KERNEL: return a->kernel == b->kernel;
  }
  return false;
}

static bool commutative(const IrModule *m, const IrInstr *in) {
  const IrOpInfo *info = in->kind == IR_I_OP ? ir_op_info(m->level, in->op) : NULL;
  return info && (info->flags & IR_OPF_COMM) && in->nargs == 2;
}

static uint32_t key_hash(const IrModule *m, const IrInstr *in) {
  uint32_t h = mix(mix(0x564eu, (uint32_t)in->kind), (uint32_t)in->op);
  h = mix_ptr(h, in->dst->ty);
  h = mix_ptr(h, in->ein);
  h = mix_ptr(h, in->fn);
  for (int i = 0; i < in->nimm; i++) h = mix(h, (uint32_t)in->imm[i]);
  if (in->kind == IR_I_LIT) h = mix(h, lit_hash(&in->lit));
  if (commutative(m, in)) {
    /* order-independent: combine the two ids symmetrically */
    uint32_t a = (uint32_t)in->args[0]->id, b = (uint32_t)in->args[1]->id;
    return mix(mix(h, a < b ? a : b), a < b ? b : a);
  }
  for (int i = 0; i < in->nargs; i++) h = mix(h, (uint32_t)in->args[i]->id);
  return h;
}

static bool key_equal(const IrModule *m, const IrInstr *a, const IrInstr *b) {
  if (a->kind != b->kind || a->op != b->op || a->dst->ty != b->dst->ty || a->ein != b->ein ||
      a->fn != b->fn || a->nimm != b->nimm || a->nargs != b->nargs)
    return false;
  for (int i = 0; i < a->nimm; i++)
    if (a->imm[i] != b->imm[i]) return false;
  if (a->kind == IR_I_LIT) return lit_equal(&a->lit, &b->lit);
  bool same = true;
  for (int i = 0; i < a->nargs; i++)
    if (a->args[i] != b->args[i]) same = false;
  if (!same && commutative(m, a))
    same = a->args[0] == b->args[1] && a->args[1] == b->args[0];
  return same;
}

/* Whether `in` takes part in the table. */
static bool numberable(const IrModule *m, const IrInstr *in) {
  if (!in->dst || !in->dst->ty) return false;
  for (int i = 0; i < in->nargs; i++)
    if (!in->args[i]) return false;
  if (in->kind == IR_I_LIT) return true;
  if (in->kind != IR_I_OP) return false;
  const IrOpInfo *info = ir_op_info(m->level, in->op);
  return info && (info->flags & IR_OPF_PURE);
}

static const IrInstr *lookup_or_add(Vn *vn, const IrInstr *in) {
  const IrModule *m = vn->cfg->module;
  uint32_t h = key_hash(m, in);
  size_t j = h & (vn->nbuckets - 1);
  for (Entry *e = vn->buckets[j]; e; e = e->next)
    if (e->hash == h && key_equal(m, e->in, in)) return e->in;
  Entry *e = ARENA_NEW(vn->a, Entry);
  e->in = in;
  e->hash = h;
  e->next = vn->buckets[j];
  vn->buckets[j] = e;
  if (vn->nundo == vn->capundo) {
    int ncap = vn->capundo ? vn->capundo * 2 : 64;
    Entry **nu = ARENA_NEW_ARRAY(vn->a, Entry *, ncap);
    if (vn->nundo) memcpy(nu, vn->undo, sizeof *nu * (size_t)vn->nundo);
    vn->undo = nu;
    vn->capundo = ncap;
  }
  vn->undo[vn->nundo++] = e;
  return NULL;
}

/* Leave a scope: entries were pushed at bucket heads in order, so popping
 * in reverse order always removes a head. */
static void pop_to(Vn *vn, int mark) {
  while (vn->nundo > mark) {
    Entry *e = vn->undo[--vn->nundo];
    size_t j = e->hash & (vn->nbuckets - 1);
    if (vn->buckets[j] == e) vn->buckets[j] = e->next;
  }
}

/* ---- one block ---------------------------------------------------------------------- */

static void canon_args(Vn *vn, IrInstr *in) {
  for (int i = 0; i < in->nargs; i++) in->args[i] = find(vn, in->args[i]);
}

/* The single value a phi stands for (ignoring self-references), or NULL. */
static IrVar *phi_value(Vn *vn, IrInstr *phi) {
  IrVar *self = phi->dst, *v = NULL;
  for (int i = 0; i < phi->nargs; i++) {
    IrVar *a = find(vn, phi->args[i]);
    if (!a) return NULL;
    if (a == self) continue;
    if (v && a != v) return NULL;
    v = a;
  }
  return v;
}

static bool same_phi_args(Vn *vn, const IrInstr *a, const IrInstr *b) {
  if (a->nargs != b->nargs || a->dst->ty != b->dst->ty) return false;
  for (int i = 0; i < a->nargs; i++)
    if (find(vn, a->args[i]) != find(vn, b->args[i])) return false;
  return true;
}

static void number_block(Vn *vn, IrBlock *b) {
  const IrModule *m = vn->cfg->module;
  /* phis */
  int k = 0;
  for (int i = 0; i < b->nphis; i++) {
    IrInstr *phi = b->phis[i];
    IrVar *v = phi->dst ? phi_value(vn, phi) : NULL;
    IrInstr *twin = NULL;
    for (int j = 0; !v && phi->dst && j < k; j++)
      if (same_phi_args(vn, b->phis[j], phi)) twin = b->phis[j];
    if (twin) v = twin->dst;
    if (v) {
      merge(vn, phi->dst, v);
      phi->block = NULL;
      vn->removed++;
    } else {
      b->phis[k++] = phi;
    }
  }
  b->nphis = k;
  /* instructions */
  k = 0;
  for (int i = 0; i < b->ninstrs; i++) {
    IrInstr *in = b->instrs[i];
    canon_args(vn, in);
    IrVar *v = NULL;
    if (in->kind == IR_I_COPY && in->dst && in->nargs == 1 && in->args[0]) {
      v = in->args[0];
    } else if (numberable(m, in)) {
      const IrInstr *prev = lookup_or_add(vn, in);
      if (prev) v = prev->dst;
    }
    if (v && v != in->dst) {
      merge(vn, in->dst, v);
      in->block = NULL;
      vn->removed++;
    } else {
      b->instrs[k++] = in;
    }
  }
  b->ninstrs = k;
  b->term.value = find(vn, b->term.value);
}

/* ---- driver ---------------------------------------------------------------------------- */

int ir_vn_cfg(IrCFG *cfg) {
  if (!cfg->entry || cfg->nblocks == 0) return 0;
  int nreach = ir_cfg_compute_dominators(cfg);
  Vn vn;
  memset(&vn, 0, sizeof vn);
  vn.cfg = cfg;
  vn.a = arena_new();
  vn.nids = cfg->module->next_var_id;
  vn.rep = ARENA_NEW_ARRAY(vn.a, IrVar *, vn.nids > 0 ? vn.nids : 1);
  size_t ninstr = 0;
  for (int i = 0; i < cfg->nblocks; i++) ninstr += (size_t)cfg->blocks[i]->ninstrs;
  vn.nbuckets = 64;
  while (vn.nbuckets < ninstr) vn.nbuckets *= 2;
  vn.buckets = ARENA_NEW_ARRAY(vn.a, Entry *, vn.nbuckets);

  /* Preorder walk of the dominator tree with an explicit stack. */
  IrBlock **stack = ARENA_NEW_ARRAY(vn.a, IrBlock *, nreach > 0 ? nreach : 1);
  int *next = ARENA_NEW_ARRAY(vn.a, int, nreach > 0 ? nreach : 1);
  int *mark = ARENA_NEW_ARRAY(vn.a, int, nreach > 0 ? nreach : 1);
  int sp = 0;
  stack[sp] = cfg->entry;
  next[sp] = 0;
  mark[sp++] = 0;
  number_block(&vn, cfg->entry);
  while (sp > 0) {
    IrBlock *b = stack[sp - 1];
    int c = next[sp - 1]++;
    if (c < b->ndomkids && sp < nreach) {
      IrBlock *kid = b->domkids[c];
      mark[sp] = vn.nundo;
      stack[sp] = kid;
      next[sp++] = 0;
      number_block(&vn, kid);
    } else {
      pop_to(&vn, mark[sp - 1]);
      sp--;
    }
  }

  /* Rewrite every operand through the map (back edges, unreachable code). */
  for (int i = 0; i < cfg->nblocks; i++) {
    IrBlock *b = cfg->blocks[i];
    for (int j = 0; j < b->nphis; j++) canon_args(&vn, b->phis[j]);
    for (int j = 0; j < b->ninstrs; j++) canon_args(&vn, b->instrs[j]);
    b->term.value = find(&vn, b->term.value);
  }
  int removed = vn.removed;
  arena_free(vn.a);
  return removed;
}

int ir_vn_module(IrModule *m) {
  int n = 0;
  for (int i = 0; i < m->ncfgs; i++) n += ir_vn_cfg(m->cfgs[i]);
  return n;
}
