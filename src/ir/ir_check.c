/* ir_check.c -- the IR checker, run after every pass in test builds.
 *
 * It verifies the invariants listed in ir.h: terminators present and
 * well-formed, predecessor lists equal to the edges, phi arity, SSA single
 * definition, every use dominated by its definition (phi arguments at the
 * end of the matching predecessor), operator arity, immediates and types per
 * the operator tables, types available at the level, and where global and
 * strand-state accesses and strand exits may appear. A failure is a
 * compiler bug, so messages name IR entities rather than source positions.
 */
#include <stdarg.h>
#include <string.h>

#include "ir/ir.h"

/* Where a variable is defined: its block and position (-2 parameter, -1
 * phi, else the instruction index), for the CFG numbered owner. One record
 * per variable id, so that a use reads one cache line, not three. */
struct Def {
  IrBlock *b;
  int pos, owner;
};

typedef struct Chk {
  IrCheck *chk;
  IrCFG *cfg;
  IrModule *m;
  int nerrors;
  /* Definition sites, indexed by variable id; an entry is this CFG's when
   * its owner is gen (ir_check_module shares the table among its CFGs: it
   * is as long as the module's variable count, and allocating and clearing
   * one per CFG was most of the checker's memory traffic) */
  int nids;
  struct Def *def;
  int gen;
} Chk;

static bool defined_here(const Chk *k, int id) { return k->def[id].owner == k->gen && k->def[id].b; }

static void report(Chk *k, IrCheckKind kind, const IrBlock *b, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void report(Chk *k, IrCheckKind kind, const IrBlock *b, const char *fmt, ...) {
  char msg[256];
  int n = b ? snprintf(msg, sizeof msg, "%s b%d: ", k->cfg->name, b->id)
            : snprintf(msg, sizeof msg, "%s: ", k->cfg->name);
  if (n < 0 || (size_t)n >= sizeof msg) n = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
  va_end(ap);
  k->nerrors++;
  if (!k->chk) return;
  if (k->chk->nerrors == 0) snprintf(k->chk->first, sizeof k->chk->first, "%s", msg);
  k->chk->nerrors++;
  k->chk->kinds |= 1u << kind;
  if (k->chk->out) fprintf(k->chk->out, "ir check: %s\n", msg);
}

static const char *vname(const IrVar *v, char *buf, size_t n) {
  if (!v)
    snprintf(buf, n, "<null>");
  else
    snprintf(buf, n, "%s#%d", v->name ? v->name : "t", v->id);
  return buf;
}

static bool member(const IrCFG *cfg, const IrBlock *b) {
  return b && b->cfg == cfg && b->scratch >= 1 && b->scratch <= cfg->nblocks &&
         cfg->blocks[b->scratch - 1] == b;
}

static int count_pred(const IrBlock *s, const IrBlock *p) {
  int n = 0;
  for (int i = 0; i < s->npreds; i++)
    if (s->preds[i] == p) n++;
  return n;
}

static int count_slots(const IrBlock *p, const IrBlock *s) {
  int n = 0;
  for (int i = 0; i < ir_block_nsuccs(p); i++)
    if (p->term.succ[i] == s) n++;
  return n;
}

static bool strand_cfg(IrCfgKind k) {
  return k == IR_CFG_STRAND_INIT || k == IR_CFG_START || k == IR_CFG_UPDATE ||
         k == IR_CFG_STABILIZE;
}

static bool global_block(IrCfgKind k) {
  return k == IR_CFG_GLOBAL_INIT || k == IR_CFG_GLOBAL_START || k == IR_CFG_GLOBAL_UPDATE;
}

/* ---- structure: terminators and edges -------------------------------------------- */

static void check_term(Chk *k, IrBlock *b) {
  IrCFG *cfg = k->cfg;
  const IrTerm *t = &b->term;
  char vb[64];
  switch (t->kind) {
  case IR_T_NONE: report(k, IR_CHK_TERMINATOR, b, "no terminator"); return;
  case IR_T_BRANCH:
    if (!t->value) {
      report(k, IR_CHK_UNDEF, b, "branch without a condition");
    } else if (!ir_type_is_bool(t->value->ty)) {
      report(k, IR_CHK_TYPE, b, "branch condition %s is not bool", vname(t->value, vb, sizeof vb));
    }
    /* fall through */
  case IR_T_JUMP:
    for (int i = 0; i < ir_block_nsuccs(b); i++)
      if (!member(cfg, t->succ[i]))
        report(k, IR_CHK_TERMINATOR, b, "successor %d is not a block of this CFG", i);
    return;
  case IR_T_RETURN:
    if (cfg->result) {
      if (!t->value)
        report(k, IR_CHK_TERMINATOR, b, "function returns no value");
      else if (!ir_type_equal(t->value->ty, cfg->result))
        report(k, IR_CHK_TYPE, b, "returned %s has the wrong type", vname(t->value, vb, sizeof vb));
    } else if (t->value) {
      report(k, IR_CHK_TERMINATOR, b, "return with a value outside a function");
    }
    return;
  case IR_T_ERROR: return; /* allowed in every unit (a failed probe) */
  case IR_T_STABILIZE:
  case IR_T_DIE:
  case IR_T_CONTINUE:
    if (cfg->kind != IR_CFG_START && cfg->kind != IR_CFG_UPDATE)
      report(k, IR_CHK_PLACEMENT, b, "strand exit outside the start/update methods");
    return;
  }
  report(k, IR_CHK_TERMINATOR, b, "unknown terminator %d", (int)t->kind);
}

static void check_edges(Chk *k, IrBlock *b) {
  IrCFG *cfg = k->cfg;
  for (int i = 0; i < b->npreds; i++) {
    IrBlock *p = b->preds[i];
    if (!member(cfg, p)) {
      report(k, IR_CHK_EDGE, b, "predecessor %d is not a block of this CFG", i);
      continue;
    }
    if (count_pred(b, p) != count_slots(p, b))
      report(k, IR_CHK_EDGE, b, "b%d is listed %d times as predecessor but has %d edges here",
             p->id, count_pred(b, p), count_slots(p, b));
  }
  for (int i = 0; i < ir_block_nsuccs(b); i++) {
    IrBlock *s = b->term.succ[i];
    if (member(cfg, s) && count_pred(s, b) == 0)
      report(k, IR_CHK_EDGE, b, "missing from the predecessors of b%d", s->id);
  }
}

/* ---- definitions ----------------------------------------------------------------- */

static void define(Chk *k, IrBlock *b, IrVar *v, IrInstr *def, int pos) {
  char vb[64];
  if (!v) return;
  if (v->id < 0 || v->id >= k->nids) {
    report(k, IR_CHK_UNDEF, b, "%s has an id outside the module", vname(v, vb, sizeof vb));
    return;
  }
  if (defined_here(k, v->id)) {
    report(k, IR_CHK_MULTI_DEF, b, "%s is defined more than once", vname(v, vb, sizeof vb));
    return;
  }
  if (v->def != def && v->def && def)
    report(k, IR_CHK_MULTI_DEF, b, "%s is defined more than once", vname(v, vb, sizeof vb));
  else if (v->def != def || v->cfg != k->cfg)
    report(k, IR_CHK_MULTI_DEF, b, "%s does not record this definition", vname(v, vb, sizeof vb));
  if (!v->ty)
    report(k, IR_CHK_TYPE, b, "%s has no type", vname(v, vb, sizeof vb));
  else if (!ir_type_allowed(k->m->level, v->ty))
    report(k, IR_CHK_LEVEL, b, "%s has a type not available at %s level", vname(v, vb, sizeof vb),
           ir_level_name(k->m->level));
  k->def[v->id] = (struct Def){b, pos, k->gen};
}

/* A use of v at position pos of block b (pos: instruction index, or
 * ninstrs for the terminator; phi uses are checked against the end of the
 * predecessor, i.e. pos = INT_MAX there). */
static void use(Chk *k, IrBlock *b, IrVar *v, int pos, bool reachable, const char *where) {
  char vb[64];
  if (!v) return; /* reported by the instruction's own check */
  if (v->id < 0 || v->id >= k->nids || !defined_here(k, v->id)) {
    report(k, IR_CHK_UNDEF, b, "%s used in %s has no definition in this CFG",
           vname(v, vb, sizeof vb), where);
    return;
  }
  if (!reachable) return;
  IrBlock *d = k->def[v->id].b;
  if (d == b) {
    if (k->def[v->id].pos >= pos)
      report(k, IR_CHK_DOMINANCE, b, "%s used in %s before its definition", vname(v, vb, sizeof vb),
             where);
  } else if (!ir_dominates(d, b)) {
    report(k, IR_CHK_DOMINANCE, b, "%s used in %s: its definition in b%d does not dominate",
           vname(v, vb, sizeof vb), where, d->id);
  }
}

/* ---- instructions ------------------------------------------------------------------- */

static void check_placement(Chk *k, IrBlock *b, const IrInstr *in) {
  IrCfgKind ck = k->cfg->kind;
  const char *what = NULL;
  switch (in->op) {
  case IR_OP_NEW:
    if (ck != IR_CFG_START && ck != IR_CFG_UPDATE && ck != IR_CFG_CREATE) what = "new";
    break;
  case IR_OP_STABILIZE_ALL:
  case IR_OP_DIE_ALL:
  case IR_OP_STRAND_REDUCE:
    if (ck != IR_CFG_GLOBAL_START && ck != IR_CFG_GLOBAL_UPDATE) what = "a strand-set operation";
    break;
  case IR_OP_SPHERE:
  case IR_OP_SPHERE_AT:
    if (!strand_cfg(ck)) what = "a spatial query";
    break;
  default: break;
  }
  if (what) report(k, IR_CHK_PLACEMENT, b, "%s in %s", what, ir_cfg_kind_name(ck));
}

static void expect_args(Chk *k, IrBlock *b, const IrInstr *in, int n, const char *what) {
  if (in->nargs != n) report(k, IR_CHK_ARITY, b, "%s with %d arguments", what, in->nargs);
}

static void check_instr(Chk *k, IrBlock *b, IrInstr *in) {
  IrModule *m = k->m;
  IrCfgKind ck = k->cfg->kind;
  char vb[64];
  for (int i = 0; i < in->nargs; i++)
    if (!in->args[i]) report(k, IR_CHK_UNDEF, b, "argument %d is missing", i + 1);
  const IrType *dt = in->dst ? in->dst->ty : NULL;
  switch (in->kind) {
  case IR_I_OP: {
    const IrType *res = NULL;
    char err[200];
    int r = ir_op_check_types(m, in, dt, &res, err, sizeof err);
    if (r == IR_CHK_UNDEF) break; /* already reported above */
    if (r != IR_CHK_OK) {
      report(k, (IrCheckKind)r, b, "%s", err);
      break;
    }
    const IrOpInfo *info = ir_op_info(m->level, in->op);
    if (in->op < IR_OP_COMMON_COUNT) check_placement(k, b, in);
    if (!res && in->dst)
      report(k, IR_CHK_TYPE, b, "%s has no result but defines %s", info->name,
             vname(in->dst, vb, sizeof vb));
    else if (res && !in->dst)
      report(k, IR_CHK_TYPE, b, "%s result is not assigned", info->name);
    else if (res && !ir_type_equal(res, dt))
      report(k, IR_CHK_TYPE, b, "%s: result %s has the wrong type", info->name,
             vname(in->dst, vb, sizeof vb));
    break;
  }
  case IR_I_LIT: {
    expect_args(k, b, in, 0, "literal");
    const IrType *want = NULL;
    switch (in->lit.kind) {
    case IR_LIT_BOOL: want = ir_type_bool(m); break;
    case IR_LIT_INT: want = ir_type_int(m); break;
    case IR_LIT_REAL: want = ir_type_real(m); break;
    case IR_LIT_STRING: want = ir_type_string(m); break;
    case IR_LIT_KERNEL:
      if (dt && dt->kind == IR_TY_KERNEL && in->lit.kernel) want = dt;
      break;
    }
    if (!in->dst || !want || !ir_type_equal(want, dt))
      report(k, IR_CHK_TYPE, b, "literal %s has the wrong type", vname(in->dst, vb, sizeof vb));
    break;
  }
  case IR_I_COPY:
    expect_args(k, b, in, 1, "copy");
    if (in->nargs == 1 && in->args[0] && (!in->dst || !ir_type_equal(in->args[0]->ty, dt)))
      report(k, IR_CHK_TYPE, b, "copy %s changes the type", vname(in->dst, vb, sizeof vb));
    break;
  case IR_I_PHI: report(k, IR_CHK_PHI, b, "phi among the instructions"); break;
  case IR_I_GLOBAL_GET:
  case IR_I_GLOBAL_SET: {
    const IrGlobal *g = in->global;
    bool get = in->kind == IR_I_GLOBAL_GET;
    expect_args(k, b, in, get ? 0 : 1, get ? "global read" : "global write");
    if (!g || g->index < 0 || g->index >= m->nglobals || m->globals[g->index] != g) {
      report(k, IR_CHK_UNDEF, b, "global of another module");
      break;
    }
    const IrType *t = get ? dt : (in->nargs == 1 && in->args[0] ? in->args[0]->ty : g->ty);
    if ((get && !in->dst) || (!get && in->dst) || !ir_type_equal(t, g->ty))
      report(k, IR_CHK_TYPE, b, "access to global %s has the wrong type", g->name);
    if (!get && (!global_block(ck) || (g->kind == IR_GLOBAL_CONST && ck != IR_CFG_GLOBAL_INIT)))
      report(k, IR_CHK_PLACEMENT, b, "assignment to global %s in %s", g->name,
             ir_cfg_kind_name(ck));
    break;
  }
  case IR_I_STATE_GET:
  case IR_I_STATE_SET: {
    const IrStateVar *s = in->state;
    bool get = in->kind == IR_I_STATE_GET;
    if (!s || s->index < 0 || s->index >= m->nstate || m->state[s->index] != s) {
      report(k, IR_CHK_UNDEF, b, "state variable of another module");
      break;
    }
    if (get && in->nargs > 1) report(k, IR_CHK_ARITY, b, "state read with %d arguments", in->nargs);
    if (!get) expect_args(k, b, in, 1, "state write");
    bool other = get && in->nargs == 1;
    if (other && in->args[0] && in->args[0]->ty &&
        !ir_type_equal(in->args[0]->ty, ir_module_strand_type(m)))
      report(k, IR_CHK_TYPE, b, "state read from a non-strand");
    const IrType *t = get ? dt : (in->nargs == 1 && in->args[0] ? in->args[0]->ty : s->ty);
    if ((get && !in->dst) || (!get && in->dst) || !ir_type_equal(t, s->ty))
      report(k, IR_CHK_TYPE, b, "access to state %s has the wrong type", s->name);
    if (!other && !strand_cfg(ck))
      report(k, IR_CHK_PLACEMENT, b, "strand state %s accessed in %s", s->name,
             ir_cfg_kind_name(ck));
    break;
  }
  }
}

static void check_phi(Chk *k, IrBlock *b, IrInstr *phi) {
  char vb[64];
  if (phi->kind != IR_I_PHI) {
    report(k, IR_CHK_PHI, b, "non-phi in the phi list");
    return;
  }
  if (!phi->dst) {
    report(k, IR_CHK_PHI, b, "phi without a result");
    return;
  }
  if (phi->nargs != b->npreds)
    report(k, IR_CHK_PHI, b, "phi %s has %d arguments for %d predecessors",
           vname(phi->dst, vb, sizeof vb), phi->nargs, b->npreds);
  for (int i = 0; i < phi->nargs; i++) {
    IrVar *a = phi->args[i];
    if (!a)
      report(k, IR_CHK_PHI, b, "phi %s: argument %d is missing", vname(phi->dst, vb, sizeof vb), i);
    else if (!ir_type_equal(a->ty, phi->dst->ty))
      report(k, IR_CHK_TYPE, b, "phi %s: argument %d has the wrong type",
             vname(phi->dst, vb, sizeof vb), i);
  }
}

/* ---- driver ---------------------------------------------------------------------------- */

/* The definition tables of ir_check_cfg, for one CFG or shared by all the
 * CFGs of a module (gen tells them apart; 0 is no CFG's). */
typedef struct Defs {
  int nids, gen;
  struct Def *def;
} Defs;

static void defs_init(Defs *d, Arena *a, int nids) {
  d->nids = nids;
  d->gen = 0;
  d->def = ARENA_NEW_ARRAY(a, struct Def, nids > 0 ? nids : 1);
}

static int check_cfg(IrCFG *cfg, IrCheck *chk, Defs *defs);

int ir_check_cfg(IrCFG *cfg, IrCheck *chk) {
  Arena *scratch = arena_new();
  Defs d;
  defs_init(&d, scratch, cfg->module->next_var_id);
  int n = check_cfg(cfg, chk, &d);
  arena_free(scratch);
  return n;
}

static int check_cfg(IrCFG *cfg, IrCheck *chk, Defs *defs) {
  Chk k;
  memset(&k, 0, sizeof k);
  k.chk = chk;
  k.cfg = cfg;
  k.m = cfg->module;
  if (!cfg->entry || cfg->nblocks == 0) {
    report(&k, IR_CHK_TERMINATOR, NULL, "no entry block");
    return k.nerrors;
  }
  for (int i = 0; i < cfg->nblocks; i++) cfg->blocks[i]->scratch = i + 1;
  if (!member(cfg, cfg->entry)) {
    report(&k, IR_CHK_EDGE, NULL, "the entry block is not in the block list");
    return k.nerrors;
  }
  if (cfg->exit && !member(cfg, cfg->exit))
    report(&k, IR_CHK_EDGE, NULL, "the exit block is not in the block list");
  if (cfg->entry->npreds) report(&k, IR_CHK_EDGE, cfg->entry, "the entry block has predecessors");
  if (cfg->entry->nphis) report(&k, IR_CHK_PHI, cfg->entry, "the entry block has phis");
  if ((cfg->kind == IR_CFG_FUNC) != (cfg->result != NULL))
    report(&k, IR_CHK_TYPE, NULL, "a function needs a result type, other units none");

  k.nids = defs->nids < k.m->next_var_id ? defs->nids : k.m->next_var_id;
  k.def = defs->def;
  k.gen = ++defs->gen;

  /* Definitions first (uses may precede definitions in block order). */
  for (int i = 0; i < cfg->nparams; i++) {
    IrVar *p = cfg->params[i];
    if (!p || p->param != i) {
      report(&k, IR_CHK_UNDEF, NULL, "parameter %d is malformed", i);
      continue;
    }
    define(&k, cfg->entry, p, NULL, -2);
  }
  for (int i = 0; i < cfg->nblocks; i++) {
    IrBlock *b = cfg->blocks[i];
    for (int j = 0; j < b->nphis; j++)
      if (b->phis[j]->block != b)
        report(&k, IR_CHK_PHI, b, "phi %d does not record its block", j);
      else
        define(&k, b, b->phis[j]->dst, b->phis[j], -1);
    for (int j = 0; j < b->ninstrs; j++)
      if (b->instrs[j]->block != b)
        report(&k, IR_CHK_MULTI_DEF, b, "instruction %d does not record its block", j);
      else
        define(&k, b, b->instrs[j]->dst, b->instrs[j], j);
  }

  /* Structure, then uses against the dominator tree. */
  for (int i = 0; i < cfg->nblocks; i++) {
    check_term(&k, cfg->blocks[i]);
    check_edges(&k, cfg->blocks[i]);
  }
  /* afresh, not the cached tree: a CFG edit that failed to clear the cache
   * shows up here as an error instead of as wrong code */
  bool stale = false;
  ir_cfg_recompute_dominators(cfg, &stale);
  if (stale) report(&k, IR_CHK_EDGE, NULL, "the cached dominator tree is stale (a CFG edit did not clear it)");
  for (int i = 0; i < cfg->nblocks; i++) {
    IrBlock *b = cfg->blocks[i];
    bool reach = b->rpo >= 0;
    for (int j = 0; j < b->nphis; j++) {
      IrInstr *phi = b->phis[j];
      check_phi(&k, b, phi);
      for (int a = 0; a < phi->nargs && a < b->npreds; a++) {
        IrBlock *p = b->preds[a];
        if (!member(cfg, p)) continue;
        use(&k, p, phi->args[a], p->ninstrs + 1, reach && p->rpo >= 0, "a phi");
      }
    }
    for (int j = 0; j < b->ninstrs; j++) {
      IrInstr *in = b->instrs[j];
      check_instr(&k, b, in);
      for (int a = 0; a < in->nargs; a++) use(&k, b, in->args[a], j, reach, "an instruction");
    }
    use(&k, b, b->term.value, b->ninstrs, reach, "the terminator");
  }
  return k.nerrors;
}

int ir_check_module(IrModule *m, IrCheck *chk) {
  int n = 0;
  Arena *scratch = arena_new();
  Defs defs;
  defs_init(&defs, scratch, m->next_var_id);
  for (int i = 0; i < m->ncfgs; i++) {
    if (m->cfgs[i]->module != m) {
      IrCheck *c = chk;
      if (c) {
        if (c->nerrors == 0)
          snprintf(c->first, sizeof c->first, "CFG %d belongs to another module", i);
        c->nerrors++;
        c->kinds |= 1u << IR_CHK_UNDEF;
      }
      n++;
      continue;
    }
    n += check_cfg(m->cfgs[i], chk, &defs);
  }
  arena_free(scratch);
  for (int i = 0; i < m->nstate; i++)
    if (!ir_type_is_value(m->state[i]->ty) || !ir_type_allowed(m->level, m->state[i]->ty)) {
      if (chk) {
        if (chk->nerrors == 0)
          snprintf(chk->first, sizeof chk->first, "state %s has a non-value type",
                   m->state[i]->name);
        chk->nerrors++;
        chk->kinds |= 1u << IR_CHK_TYPE;
      }
      n++;
    }
  return n;
}
