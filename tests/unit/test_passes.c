/* test_passes.c -- differential testing of every middle-end pass.
 *
 * Each program of the corpus (tests/programs/accept/..., tests/programs/run,
 * examples/) goes through the real pipeline: AST → HighIR → high_opt
 * (fusion, normalization, VN, DCE) → MidIR → split, VN, slice, VN, sum
 * binding, VN, DCE → LowIR → VN, DCE. After every pass (the IrPassHook of
 * the pass drivers) every CFG of the module is run on the same random
 * inputs, and its results (return value, strand state and globals written,
 * values printed, exit) must equal those after the previous pass to 1e-10
 * (relative to max(1, |value|)), in double precision.
 *
 * How a module is run: LowIR by the LowIR interpreter
 * (tests/oracle/low_eval.c); a HighIR or MidIR module is first lowered to
 * LowIR by the plain translations (high_to_mid, mid_to_low without VN or
 * DCE), which are deterministic and do not change the module, so a pass
 * that changes a program's meaning shows up as a difference. The inputs:
 * reals in [3.5, 6.5] (positions land inside every image), ints in 1..3,
 * images of random samples, 12 per axis (a proxy fixes no sizes), and the
 * identity world-to-index transform; the same values at every pass (they
 * are keyed by global/state name, CFG and parameter position). A run that
 * fails before a pass (an operator or effect the interpreter does not
 * model: strand reductions, new, another strand's state) is not compared.
 *
 * Coverage (printed at the end): the HighIR operators, EIN node kinds and
 * EIN functions of the CFGs that were compared across every pass.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../oracle/low_eval.h"
#include "frontend/parser.h"
#include "frontend/typecheck.h"
#include "ir/ir.h"
#include "opt/high_opt.h"
#include "opt/mid_opt.h"
#include "translate/ast_to_high.h"
#include "translate/high_to_mid.h"
#include "translate/mid_to_low.h"
#include "unit.h"

enum { MAX_CFGS = 64, MAX_OUT = 1 << 16, NSEEDS = 2, MAX_PASSES = 24 };

/* ---- deterministic inputs ---------------------------------------------------------------- */

static uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

static uint64_t hash_str(uint64_t h, const char *s) {
  for (; s && *s; s++) h = mix(h ^ (unsigned char)*s) + 0x9e37;
  return h;
}

/* A value in [0, 1) from a key and a component. */
static double unit_rand(uint64_t key, int comp) {
  return (double)(mix(key + 0x9e3779b97f4a7c15ull * (uint64_t)(comp + 1)) >> 11) * 0x1p-53;
}

typedef struct Inputs {
  Arena *a;
  int seed;
  /* images by global name (made once per program and seed) */
  int nimg;
  const char *img_name[32];
  LowImage *img[32];
} Inputs;

static LowVal make_value(Inputs *in, const IrType *t, uint64_t key);

static LowImage *make_image(Inputs *in, const IrGlobal *g, uint64_t key) {
  for (int i = 0; i < in->nimg; i++)
    if (!strcmp(in->img_name[i], g->name)) return in->img[i];
  const IrType *t = g->ty;
  LowImage *im = ARENA_NEW(in->a, LowImage);
  im->dim = t->dim;
  im->ncomp = 1;
  for (int i = 0; i < t->order; i++) im->ncomp *= t->dims[i];
  long n = im->ncomp;
  for (int a = 0; a < im->dim && a < 3; a++) {
    im->sizes[a] = 12;
    n *= im->sizes[a];
  }
  double *data = ARENA_NEW_ARRAY(in->a, double, n > 0 ? n : 1);
  for (long i = 0; i < n; i++) data[i] = 2 * unit_rand(key, (int)i) - 1;
  im->data = data;
  for (int a = 0; a < im->dim; a++) im->W[a * im->dim + a] = 1;
  if (in->nimg < 32) {
    in->img_name[in->nimg] = g->name;
    in->img[in->nimg++] = im;
  }
  return im;
}

static LowVal make_value(Inputs *in, const IrType *t, uint64_t key) {
  LowVal v;
  memset(&v, 0, sizeof v);
  switch (t->kind) {
  case IR_TY_BOOL:
    v.kind = LOWV_BOOL;
    v.b = unit_rand(key, 0) < 0.5;
    return v;
  case IR_TY_INT: return low_val_int(1 + (int64_t)(3 * unit_rand(key, 0)));
  case IR_TY_STRING:
    v.kind = LOWV_STRING;
    v.s = "s";
    return v;
  case IR_TY_TENSOR: {
    int n = 1;
    for (int i = 0; i < t->order; i++) n *= t->dims[i];
    double *c = ARENA_NEW_ARRAY(in->a, double, n);
    for (int i = 0; i < n; i++) c[i] = 3.5 + 3 * unit_rand(key, i);
    return low_val_tensor(in->a, t->order, t->dims, c);
  }
  case IR_TY_VEC:
    v.kind = LOWV_VEC;
    v.n = t->width;
    v.v = ARENA_NEW_ARRAY(in->a, double, t->width > 0 ? t->width : 1);
    for (int i = 0; i < t->width; i++) v.v[i] = 3.5 + 3 * unit_rand(key, i);
    return v;
  case IR_TY_SEQ: {
    int n = t->len == IR_SEQ_DYNAMIC ? 2 : t->len;
    v.kind = LOWV_SEQ;
    v.n = n;
    v.elems = ARENA_NEW_ARRAY(in->a, LowVal, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) v.elems[i] = make_value(in, t->elem, mix(key + (uint64_t)i + 1));
    return v;
  }
  default: return v; /* LOWV_NONE: images are globals (make_image) */
  }
}

/* ---- running a module ------------------------------------------------------------------- */

/* The results of one CFG on one seed: a flat list of numbers, and a
 * signature (what each number is) that must match exactly. */
typedef struct CfgRun {
  const char *key; /* "kind name" */
  bool ok;
  char err[160];
  char *sig;
  int n;
  double *vals;
} CfgRun;

typedef struct ModRun {
  int ncfg;
  CfgRun cfg[MAX_CFGS][NSEEDS];
} ModRun;

typedef struct Flat {
  Arena *a;
  double *v;
  int n, cap;
  char sig[2048];
  size_t slen;
} Flat;

static void flat_sig(Flat *f, const char *s) {
  size_t l = strlen(s);
  if (f->slen + l + 1 < sizeof f->sig) {
    memcpy(f->sig + f->slen, s, l + 1);
    f->slen += l;
  }
}

static void flat_push(Flat *f, double x) {
  if (f->n == f->cap) {
    int nc = f->cap ? 2 * f->cap : 64;
    double *nv = ARENA_NEW_ARRAY(f->a, double, nc);
    if (f->n) memcpy(nv, f->v, sizeof(double) * (size_t)f->n);
    f->v = nv;
    f->cap = nc;
  }
  f->v[f->n++] = x;
}

static void flat_val(Flat *f, const LowVal *x) {
  char b[32];
  switch (x->kind) {
  case LOWV_BOOL: flat_sig(f, "b"); flat_push(f, x->b); break;
  case LOWV_INT: flat_sig(f, "i"); flat_push(f, (double)x->i); break;
  case LOWV_REAL: flat_sig(f, "r"); flat_push(f, x->r); break;
  case LOWV_VEC:
  case LOWV_TENSOR:
    snprintf(b, sizeof b, "t%d", x->n);
    flat_sig(f, b);
    for (int i = 0; i < x->n; i++) flat_push(f, x->v[i]);
    break;
  case LOWV_SEQ:
    snprintf(b, sizeof b, "s%d(", x->n);
    flat_sig(f, b);
    for (int i = 0; i < x->n; i++) flat_val(f, &x->elems[i]);
    flat_sig(f, ")");
    break;
  case LOWV_STRING: flat_sig(f, "str"); break;
  default: flat_sig(f, "?"); break;
  }
}

static const char *cfg_key(Arena *a, const IrCFG *cfg) {
  return arena_printf(a, "%s %s", ir_cfg_kind_name(cfg->kind), cfg->name ? cfg->name : "");
}

/* Runs in a scratch arena (the interpreter's value table is as large as
 * the module's variables); what is kept is copied into `keep`. */
static void run_cfg(Arena *keep, const IrCFG *cfg, int seed, Inputs *in, CfgRun *out) {
  const IrModule *m = cfg->module;
  Arena *a = arena_new();
  uint64_t base = mix((uint64_t)seed * 7919 + 17);
  memset(out, 0, sizeof *out);
  out->key = cfg_key(keep, cfg);
  LowVal *globals = ARENA_NEW_ARRAY(a, LowVal, m->nglobals + 1);
  for (int i = 0; i < m->nglobals; i++) {
    const IrGlobal *g = m->globals[i];
    uint64_t k = hash_str(base ^ 0x61, g->name);
    if (g->ty->kind == IR_TY_IMAGE)
      globals[i] = low_val_image(make_image(in, g, k));
    else
      globals[i] = make_value(in, g->ty, k);
  }
  LowVal *state = ARENA_NEW_ARRAY(a, LowVal, m->nstate + 1);
  for (int i = 0; i < m->nstate; i++)
    state[i] = make_value(in, m->state[i]->ty, hash_str(base ^ 0x73, m->state[i]->name));
  LowVal *params = ARENA_NEW_ARRAY(a, LowVal, cfg->nparams + 1);
  for (int i = 0; i < cfg->nparams; i++)
    params[i] = make_value(in, cfg->params[i]->ty, hash_str(base + (uint64_t)i, out->key));
  LowEvalEnv env;
  memset(&env, 0, sizeof env);
  env.state = state;
  env.state_out = ARENA_NEW_ARRAY(a, LowVal, m->nstate + 1);
  env.state_set = ARENA_NEW_ARRAY(a, bool, m->nstate + 1);
  env.globals_out = ARENA_NEW_ARRAY(a, LowVal, m->nglobals + 1);
  env.globals_set = ARENA_NEW_ARRAY(a, bool, m->nglobals + 1);
  env.print_cap = 4096;
  env.printed = ARENA_NEW_ARRAY(a, double, env.print_cap);
  LowVal result;
  memset(&result, 0, sizeof result);
  if (low_eval_cfg_env(a, cfg, params, globals, &env, &result, NULL, out->err, sizeof out->err)) {
    arena_free(a);
    return;
  }
  out->ok = true;
  Flat f = {a, NULL, 0, 0, {0}, 0};
  char b[96];
  snprintf(b, sizeof b, "exit%d ret:", (int)env.exit);
  flat_sig(&f, b);
  if (result.kind != LOWV_NONE) flat_val(&f, &result);
  for (int i = 0; i < m->nstate; i++)
    if (env.state_set[i]) {
      flat_sig(&f, " state ");
      flat_sig(&f, m->state[i]->name);
      flat_sig(&f, ":");
      flat_val(&f, &env.state_out[i]);
    }
  for (int i = 0; i < m->nglobals; i++)
    if (env.globals_set[i]) {
      flat_sig(&f, " global ");
      flat_sig(&f, m->globals[i]->name);
      flat_sig(&f, ":");
      flat_val(&f, &env.globals_out[i]);
    }
  snprintf(b, sizeof b, " printed %d", env.print_n);
  flat_sig(&f, b);
  for (int i = 0; i < env.print_n && i < env.print_cap; i++) flat_push(&f, env.printed[i]);
  out->sig = arena_strdup(keep, f.sig);
  out->n = f.n;
  out->vals = ARENA_NEW_ARRAY(keep, double, f.n > 0 ? f.n : 1);
  if (f.n) memcpy(out->vals, f.v, sizeof(double) * (size_t)f.n);
  arena_free(a);
}

/* ---- the hook: run after every pass and compare ---------------------------------------------- */

typedef struct PassCount {
  const char *pass;
  long compared, differed;
} PassCount;

typedef struct Diff {
  Arena *a; /* this program's arena */
  EinContext *ec;
  const char *path;
  Inputs inputs[NSEEDS];
  ModRun *prev; /* the last module that could be run, or NULL */
  const char *prev_pass;
  PassCount *counts;
  int *ncounts;
  bool *compared; /* per CFG index: compared at every pass so far */
  int npoints;
  bool reported;
} Diff;

static ModRun *run_module(Diff *d, IrModule *m) {
  IrModule *low = m;
  MidToLowOptions lo = {.no_vn = true, .no_dce = true};
  if (m->level == IR_HIGH) {
    IrModule *mid = high_to_mid(m, d->ec, NULL, NULL);
    low = mid ? mid_to_low(mid, NULL, &lo, NULL) : NULL;
  } else if (m->level == IR_MID) {
    low = mid_to_low(m, NULL, &lo, NULL);
  }
  if (!low) return NULL;
  ModRun *r = ARENA_NEW(d->a, ModRun);
  r->ncfg = low->ncfgs < MAX_CFGS ? low->ncfgs : MAX_CFGS;
  for (int k = 0; k < r->ncfg; k++)
    for (int s = 0; s < NSEEDS; s++) run_cfg(d->a, low->cfgs[k], s, &d->inputs[s], &r->cfg[k][s]);
  return r;
}

static PassCount *count_for(Diff *d, const char *pass) {
  for (int i = 0; i < *d->ncounts; i++)
    if (!strcmp(d->counts[i].pass, pass)) return &d->counts[i];
  if (*d->ncounts == MAX_PASSES) return &d->counts[MAX_PASSES - 1];
  PassCount *c = &d->counts[(*d->ncounts)++];
  c->pass = pass;
  return c;
}

static bool close_enough(double x, double y) {
  if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
  if (isinf(x) || isinf(y)) return x == y;
  double s = fmax(1.0, fmax(fabs(x), fabs(y)));
  return fabs(x - y) <= 1e-10 * s;
}

/* Compare the runs before (p) and after (q) `pass`. */
static void compare(Diff *d, const ModRun *p, const ModRun *q, const char *pass) {
  PassCount *pc = count_for(d, pass);
  for (int k = 0; k < q->ncfg; k++) {
    /* the same CFG before the pass (the order is kept, but match by key) */
    int j = k < p->ncfg && !strcmp(p->cfg[k][0].key, q->cfg[k][0].key) ? k : -1;
    for (int i = 0; j < 0 && i < p->ncfg; i++)
      if (!strcmp(p->cfg[i][0].key, q->cfg[k][0].key)) j = i;
    if (j < 0) continue;
    bool all = true;
    for (int s = 0; s < NSEEDS; s++) {
      const CfgRun *a = &p->cfg[j][s], *b = &q->cfg[k][s];
      if (!a->ok) {
        all = false;
        continue;
      }
      pc->compared++;
      bool same = b->ok && !strcmp(a->sig, b->sig) && a->n == b->n;
      int bad = -1;
      for (int i = 0; same && i < a->n; i++)
        if (!close_enough(a->vals[i], b->vals[i])) {
          same = false;
          bad = i;
        }
      if (!same) {
        pc->differed++;
        all = false;
        if (!d->reported) {
          d->reported = true;
          if (!b->ok)
            CHECK_MSG(false, "%s: %s: after %s: the run fails: %s", d->path, b->key, pass, b->err);
          else if (bad < 0)
            CHECK_MSG(false, "%s: %s: after %s: results [%s] became [%s]", d->path, b->key, pass,
                      a->sig, b->sig);
          else
            CHECK_MSG(false, "%s: %s: after %s: value %d (%s) was %.17g, now %.17g", d->path,
                      b->key, pass, bad, a->sig, a->vals[bad], b->vals[bad]);
        } else {
          CHECK(same);
        }
      }
    }
    if (!all && k < MAX_CFGS) d->compared[k] = false;
  }
}

/* TEST_PASSES_SABOTAGE=PASS: a wrong "pass" (every real literal + 0.5)
 * right after PASS, to see that the comparison catches it. */
static void sabotage(const char *pass, IrModule *m) {
  const char *s = getenv("TEST_PASSES_SABOTAGE");
  if (!s || strcmp(s, pass)) return;
  for (int k = 0; k < m->ncfgs; k++)
    for (int b = 0; b < m->cfgs[k]->nblocks; b++)
      for (int i = 0; i < m->cfgs[k]->blocks[b]->ninstrs; i++) {
        IrInstr *in = m->cfgs[k]->blocks[b]->instrs[i];
        if (in->kind == IR_I_LIT && in->lit.kind == IR_LIT_REAL) in->lit.r += 0.5;
      }
}

static void after_pass(void *ctx, const char *pass, IrModule *m) {
  Diff *d = ctx;
  sabotage(pass, m);
  ModRun *r = run_module(d, m);
  if (!r) {
    /* a HighIR the translation cannot take yet (before fusion): compare
     * the next module that runs with the last one that ran */
    return;
  }
  if (!d->prev && getenv("TEST_PASSES_VERBOSE"))
    for (int k = 0; k < r->ncfg; k++)
      if (!r->cfg[k][0].ok)
        fprintf(stderr, "not run: %s: %s: %s\n", d->path, r->cfg[k][0].key, r->cfg[k][0].err);
  if (d->prev) {
    compare(d, d->prev, r, pass);
    d->npoints++;
  }
  d->prev = r;
  d->prev_pass = pass;
}

/* ---- coverage ------------------------------------------------------------------------------ */

typedef struct Coverage {
  bool hop[256];
  bool tag[EIN_TAG_COUNT];
  bool fun[EIN_FUN_COUNT];
} Coverage;

static void cover_expr(Coverage *c, const EinExpr *e) {
  c->tag[e->tag] = true;
  if (e->tag == EIN_FUN && (int)e->fun < EIN_FUN_COUNT) c->fun[e->fun] = true;
  for (int i = 0; i < e->nkids; i++) cover_expr(c, e->kids[i]);
}

static void cover_cfg(Coverage *c, const IrCFG *cfg) {
  for (int b = 0; b < cfg->nblocks; b++)
    for (int i = 0; i < cfg->blocks[b]->ninstrs; i++) {
      const IrInstr *in = cfg->blocks[b]->instrs[i];
      if (in->kind != IR_I_OP) continue;
      if (in->op >= 0 && in->op < 256) c->hop[in->op] = true;
      if (in->ein) cover_expr(c, in->ein->body);
    }
}

/* ---- one program ------------------------------------------------------------------------------ */

typedef struct Totals {
  int programs, skipped, cfgs, cfgs_compared;
  PassCount counts[MAX_PASSES];
  int ncounts;
  Coverage cov;
} Totals;

static void args_of(Arena *a, const Source *src, TypecheckOptions *to) {
  const char *p = strstr(src->text, "// ARGS:");
  if (!p) return;
  const char *end = strchr(p, '\n');
  char *line = arena_strndup(a, p + 8, end ? (size_t)(end - p - 8) : strlen(p + 8));
  char *save = NULL;
  for (char *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
    if (!strcmp(tok, "--long-int")) to->long_int = true;
    else if (!strcmp(tok, "--double")) to->double_real = true;
    else if (!strncmp(tok, "--C", 3) && strchr(tok, '=')) {
      ConstOverride *o = ARENA_NEW(a, ConstOverride);
      char *eq = strchr(tok, '=');
      o->name = arena_strndup(a, tok + 3, (size_t)(eq - tok - 3));
      o->value = arena_strdup(a, eq + 1);
      o->next = (ConstOverride *)to->consts;
      to->consts = o;
    }
  }
}

static void test_program(const char *path, Totals *t) {
  Arena *a = arena_new();
  Source *src = source_load(a, path);
  if (!src) {
    arena_free(a);
    return;
  }
  TypecheckOptions to = {0};
  const char *slash = strrchr(path, '/');
  to.proxy_dir = slash ? arena_strndup(a, path, (size_t)(slash - path)) : ".";
  args_of(a, src, &to);
  DiagCtx *dg = diag_new(a, src);
  diag_set_warnings(dg, false, false);
  Program *prog = parse_program(a, dg, src);
  if (!prog || !typecheck_program(a, dg, prog, &to) || diag_error_count(dg)) {
    t->skipped++; /* e.g. an e2e program whose images are written by its test */
    diag_discard(dg);
    arena_free(a);
    return;
  }
  EinContext *ec = ein_context_new(a);
  HighTranslateOptions ho = {to.long_int, to.double_real};
  const char *internal = NULL;
  IrModule *high = ast_to_high(a, dg, ec, prog, &ho, &internal);
  CHECK_MSG(high != NULL, "%s: translation failed", path);
  if (!high) {
    diag_discard(dg);
    arena_free(a);
    return;
  }
  Diff d;
  memset(&d, 0, sizeof d);
  d.a = a;
  d.ec = ec;
  d.path = path;
  d.counts = t->counts;
  d.ncounts = &t->ncounts;
  for (int s = 0; s < NSEEDS; s++) {
    d.inputs[s].a = a;
    d.inputs[s].seed = s;
  }
  d.compared = ARENA_NEW_ARRAY(a, bool, MAX_CFGS);
  for (int i = 0; i < MAX_CFGS; i++) d.compared[i] = true;
  /* coverage is taken from the HighIR as translated, per CFG */
  Coverage *cc = ARENA_NEW_ARRAY(a, Coverage, high->ncfgs + 1);
  for (int k = 0; k < high->ncfgs; k++) cover_cfg(&cc[k], high->cfgs[k]);
  const char **hkeys = ARENA_NEW_ARRAY(a, const char *, high->ncfgs + 1);
  for (int k = 0; k < high->ncfgs; k++) hkeys[k] = cfg_key(a, high->cfgs[k]);

  IrPassHook hook = {after_pass, &d};
  after_pass(&d, "high.translate", high);
  HighOptStats hs;
  bool ok = high_opt_hooked(high, ec, NULL, &hs, &hook);
  CHECK_MSG(ok, "%s: high_opt failed", path);
  IrModule *mid = ok ? high_to_mid(high, ec, NULL, NULL) : NULL;
  CHECK_MSG(!ok || mid, "%s: high_to_mid failed", path);
  IrModule *low = NULL;
  if (mid) {
    after_pass(&d, "mid.translate", mid);
    MidOptOpts mo = mid_opt_defaults();
    mid_optimize_hooked(mid, ec, &mo, NULL, &hook);
    MidToLowOptions lo = {.no_vn = true, .no_dce = true};
    low = mid_to_low(mid, NULL, &lo, NULL);
    CHECK_MSG(low != NULL, "%s: mid_to_low failed", path);
  }
  if (low) {
    after_pass(&d, "low.translate", low);
    ir_vn_module(low);
    after_pass(&d, "low.vn", low);
    ir_dce_module(low);
    after_pass(&d, "low.dce", low);
  }
  t->programs++;
  /* a CFG counts as covered when it ran (before every pass) on both seeds */
  if (d.prev)
    for (int k = 0; k < d.prev->ncfg; k++) {
      t->cfgs++;
      bool ran = d.prev->cfg[k][0].ok && d.compared[k] && d.npoints > 0;
      if (!ran) continue;
      t->cfgs_compared++;
      for (int h = 0; h < high->ncfgs; h++)
        if (!strcmp(hkeys[h], d.prev->cfg[k][0].key)) {
          for (int i = 0; i < 256; i++) t->cov.hop[i] |= cc[h].hop[i];
          for (int i = 0; i < EIN_TAG_COUNT; i++) t->cov.tag[i] |= cc[h].tag[i];
          for (int i = 0; i < EIN_FUN_COUNT; i++) t->cov.fun[i] |= cc[h].fun[i];
        }
    }
  if (getenv("TEST_PASSES_VERBOSE"))
    fprintf(stderr, "%s: %d comparison points\n", path, d.npoints);
  arena_free(a);
}

/* ---- the paper's identities through the real pipeline ------------------------------------------ */

/* The seed paper's examples (004 §5.3), as the program text of
 * tests/programs/accept/higher_order/paper_identities.diderot: after
 * high_opt, trace(u⊗v) is the same value as u•v, ∇•(∇×V) is the constant
 * 0 (no probe left), and (a×b)•(c×d) has no ε left (ε contracted to δ:
 * (a•c)(b•d) − (a•d)(b•c)). Checked on the --dump=high text. */
static const char *def_line(Arena *a, const char *text, const char *state) {
  const char *s = strstr(text, arena_printf(a, "  state %s = ", state));
  if (!s) return NULL;
  s += strlen(state) + 11;
  const char *e = strchr(s, '\n');
  const char *var = arena_strndup(a, s, e ? (size_t)(e - s) : strlen(s));
  const char *d = strstr(text, arena_printf(a, "  %s: ", var));
  if (!d) return NULL;
  e = strchr(d, '\n');
  return arena_strndup(a, d, e ? (size_t)(e - d) : strlen(d));
}

static void test_identities(const char *root) {
  Arena *a = arena_new();
  const char *path = arena_printf(a, "%s/tests/programs/accept/higher_order/paper_identities.diderot", root);
  Source *src = source_load(a, path);
  CHECK_MSG(src != NULL, "cannot read %s", path);
  if (!src) {
    arena_free(a);
    return;
  }
  DiagCtx *dg = diag_new(a, src);
  diag_set_warnings(dg, false, false);
  Program *prog = parse_program(a, dg, src);
  TypecheckOptions to = {0};
  to.proxy_dir = ".";
  bool ok = prog && typecheck_program(a, dg, prog, &to) && !diag_error_count(dg);
  CHECK_MSG(ok, "%s does not typecheck", path);
  EinContext *ec = ein_context_new(a);
  HighTranslateOptions ho = {false, false};
  const char *internal = NULL;
  IrModule *m = ok ? ast_to_high(a, dg, ec, prog, &ho, &internal) : NULL;
  if (m) ok = high_opt(m, ec, NULL, NULL);
  CHECK(m && ok);
  if (!m || !ok) {
    arena_free(a);
    return;
  }
  const char *text = strstr(ir_module_str(a, m, 0), "update()");
  CHECK(text != NULL);
  if (!text) {
    arena_free(a);
    return;
  }
  const char *tr = def_line(a, text, "tr"), *dot = def_line(a, text, "dot");
  const char *dc = def_line(a, text, "divcurl"), *lag = def_line(a, text, "lag");
  CHECK(tr && dot && dc && lag);
  if (tr && dot && dc && lag) {
    /* one value numbered operator: u•v */
    CHECK_STR(tr, dot);
    CHECK_MSG(strstr(tr, "ein λT0,T1⟨Σ_{i=0..2} T0[i]*T1[i]⟩_{}(u#") != NULL, "trace(u⊗v): %s", tr);
    CHECK_MSG(strstr(dc, "ein λ⟨0⟩_{}()") != NULL, "∇•(∇×V): %s", dc);
    CHECK_MSG(strstr(lag, "ε") == NULL && strstr(lag, "Σ") != NULL, "(a×b)•(c×d): %s", lag);
    /* the δ form (a•c)(b•d) − (a•d)(b•c): a difference of two sums */
    CHECK_MSG(strstr(lag, ") - (") != NULL, "(a×b)•(c×d): %s", lag);
  }
  arena_free(a);
}

/* ---- the corpus ------------------------------------------------------------------------------- */

static bool is_program(const char *n) {
  size_t l = strlen(n);
  return (l > 8 && !strcmp(n + l - 8, ".diderot")) || (l > 5 && !strcmp(n + l - 5, ".ddro"));
}

static int by_name(const void *x, const void *y) {
  return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Every program under dir (recursively), in name order. */
static void walk(Arena *a, const char *dir, const char *filter, Totals *t, int depth) {
  DIR *dp = opendir(dir);
  if (!dp) return;
  const char *names[1024];
  int n = 0;
  struct dirent *de;
  while ((de = readdir(dp)) && n < 1024)
    if (de->d_name[0] != '.') names[n++] = arena_strdup(a, de->d_name);
  closedir(dp);
  qsort(names, (size_t)n, sizeof names[0], by_name);
  for (int i = 0; i < n; i++) {
    const char *p = arena_printf(a, "%s/%s", dir, names[i]);
    if (is_program(names[i])) {
      if (!filter || strstr(p, filter)) test_program(p, t);
    } else if (depth < 3) {
      walk(a, p, filter, t, depth + 1);
    }
  }
}

int main(void) {
  const char *root = getenv("DIDEROT_SRCDIR");
#ifdef DIDEROT_SOURCE_DIR
  if (!root) root = DIDEROT_SOURCE_DIR;
#endif
  if (!root) return unit_finish("passes");
  const char *filter = getenv("TEST_PASSES_FILTER");
  test_identities(root);
  Arena *a = arena_new();
  Totals *t = calloc(1, sizeof *t);
  walk(a, arena_printf(a, "%s/tests/programs/accept", root), filter, t, 0);
  walk(a, arena_printf(a, "%s/tests/programs/run", root), filter, t, 0);
  walk(a, arena_printf(a, "%s/examples", root), filter, t, 0);
  if (!filter) {
    CHECK_MSG(t->programs >= 200, "only %d programs", t->programs);
    CHECK_MSG(t->cfgs_compared * 2 >= t->cfgs, "only %d of %d CFGs could be run",
              t->cfgs_compared, t->cfgs);
  }
  fprintf(stderr, "passes: %d programs (%d skipped), %d of %d CFGs run across every pass\n",
          t->programs, t->skipped, t->cfgs_compared, t->cfgs);
  for (int i = 0; i < t->ncounts; i++) {
    fprintf(stderr, "  %-16s %6ld runs compared, %ld differed\n", t->counts[i].pass,
            t->counts[i].compared, t->counts[i].differed);
    if (!filter) CHECK_MSG(t->counts[i].compared > 0, "%s: nothing compared", t->counts[i].pass);
  }
  fprintf(stderr, "  HighIR operators not covered:");
  for (int op = 0; op < ir_op_count(IR_HIGH) && op < 256; op++)
    if (!t->cov.hop[op]) fprintf(stderr, " %s", ir_op_info(IR_HIGH, op)->name);
  static const char *const tags[EIN_TAG_COUNT] = {
      "const", "delta", "eps", "tensor", "field", "conv", "lift", "fun", "pow",
      "neg", "add", "sub", "mul", "div", "sum", "diff", "probe"};
  fprintf(stderr, "\n  EIN nodes not covered:");
  for (int i = 0; i < EIN_TAG_COUNT; i++)
    if (!t->cov.tag[i]) fprintf(stderr, " %s", tags[i] ? tags[i] : "?");
  fprintf(stderr, "\n  EIN functions not covered:");
  for (int i = 0; i < EIN_FUN_COUNT; i++)
    if (!t->cov.fun[i]) fprintf(stderr, " %s", ein_fun_name((EinFun)i));
  fprintf(stderr, "\n");
  free(t);
  arena_free(a);
  return unit_finish("passes");
}
