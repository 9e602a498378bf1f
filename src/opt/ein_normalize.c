/* ein_normalize.c -- the driver of the EIN rewrite system: rule table,
 * innermost-first traversal with memoization, step bound, statistics.
 * The rules themselves live in ein_rules_*.c. */
#include <stdlib.h>
#include <string.h>

#include "opt/ein_normalize_impl.h"

typedef struct RuleDesc {
  const char *name;
  EinTag tag;
  EinRuleFn fn;
} RuleDesc;

static const RuleDesc rules[EIN_RULE_COUNT] = {
#define EIN_X(id, name, tag, fn) {name, tag, ein_rule_##fn},
    EIN_RULES(EIN_X)
#undef EIN_X
};

const char *ein_rule_name(EinRuleId r) {
  return (unsigned)r < EIN_RULE_COUNT ? rules[r].name : "?";
}

unsigned long ein_norm_step_bound(size_t size) {
  /* Differentiation multiplies terms (product and quotient rules), so the
   * work per input node is large but bounded for realistic nesting; the
   * constant is checked against the tests, which must never reach it. */
  if (size > 1000000) size = 1000000;
  return 4096ul + 512ul * (unsigned long)size;
}

/* ---- memo ----------------------------------------------------------------- */

static const EinExpr *memo_get(const EinNorm *n, const EinExpr *e) {
  size_t j = e->hash & (n->mcap - 1);
  for (const EinExpr *k; (k = n->mkey[j]) != NULL; j = (j + 1) & (n->mcap - 1))
    if (k == e) return n->mval[j];
  return NULL;
}

static void memo_put(EinNorm *n, const EinExpr *e, const EinExpr *v) {
  if ((n->mcount + 1) * 2 > n->mcap) {
    size_t ncap = n->mcap * 2;
    const EinExpr **nk = ARENA_NEW_ARRAY(n->arena, const EinExpr *, ncap);
    const EinExpr **nv = ARENA_NEW_ARRAY(n->arena, const EinExpr *, ncap);
    for (size_t i = 0; i < n->mcap; i++) {
      if (!n->mkey[i]) continue;
      size_t j = n->mkey[i]->hash & (ncap - 1);
      while (nk[j]) j = (j + 1) & (ncap - 1);
      nk[j] = n->mkey[i];
      nv[j] = n->mval[i];
    }
    n->mkey = nk;
    n->mval = nv;
    n->mcap = ncap;
  }
  size_t j = e->hash & (n->mcap - 1);
  while (n->mkey[j] && n->mkey[j] != e) j = (j + 1) & (n->mcap - 1);
  if (!n->mkey[j]) n->mcount++;
  n->mkey[j] = e;
  n->mval[j] = v;
}

/* ---- traversal -------------------------------------------------------------- */

static const EinExpr *norm(EinNorm *n, const EinExpr *e);

static const EinExpr *norm_kids(EinNorm *n, const EinExpr *e) {
  if (e->nkids == 0) return e;
  const EinExpr *buf[8];
  const EinExpr **kids = e->nkids <= 8 ? buf : ein_n_kids(n, e->nkids);
  for (int i = 0; i < e->nkids; i++) kids[i] = norm(n, e->kids[i]);
  return ein_with_kids(n->c, e, kids);
}

/* Innermost-first: normalize the children, then rewrite at the root until
 * no rule applies; a rewritten root has its (new) children normalized
 * before the next round. */
static const EinExpr *norm(EinNorm *n, const EinExpr *e) {
  const EinExpr *m = memo_get(n, e);
  if (m) return m;
  const EinExpr *cur = norm_kids(n, e);
  while (!n->stopped) {
    const EinExpr *known = memo_get(n, cur);
    if (known) {
      cur = known;
      break;
    }
    const EinExpr *r = NULL;
    for (int k = 0; k < EIN_RULE_COUNT && !r; k++) {
      if (rules[k].tag != cur->tag) continue;
      r = rules[k].fn(n, cur);
      if (r == cur) r = NULL;
      if (r) n->fired[k]++;
    }
    if (!r) break;
    if (++n->steps >= n->limit) {
      n->stopped = true;
      cur = r;
      break;
    }
    cur = norm_kids(n, r);
  }
  memo_put(n, e, cur);
  if (!n->stopped) memo_put(n, cur, cur);
  return cur;
}

static const EinExpr *run(EinContext *c, const EinExpr *e, int depth, const EinNormOpts *opts,
                          EinNormStats *stats, bool *limit_hit) {
  EinNorm n;
  memset(&n, 0, sizeof n);
  n.c = c;
  n.arena = ein_context_arena(c);
  n.limit = opts && opts->max_steps ? opts->max_steps : ein_norm_step_bound(e->size);
  /* The memo starts at about four entries per node of the body and grows as
   * rewrites add nodes: most bodies have a handful of nodes, and a fixed
   * 256-entry start cost 4 KB per EIN operator (a third of all the
   * compiler's memory on issue 37's family). */
  n.mcap = 16;
  while (n.mcap < 4 * (size_t)e->size && n.mcap < ((size_t)1 << 20)) n.mcap *= 2;
  n.mkey = ARENA_NEW_ARRAY(n.arena, const EinExpr *, n.mcap);
  n.mval = ARENA_NEW_ARRAY(n.arena, const EinExpr *, n.mcap);
  const EinExpr *r = ein_canon_vars(c, norm(&n, e), depth);
  if (stats) {
    for (int k = 0; k < EIN_RULE_COUNT; k++) stats->fired[k] += n.fired[k];
    stats->ops++;
    stats->steps += n.steps;
    if (n.steps > stats->max_steps) stats->max_steps = n.steps;
    if (n.stopped) stats->limit_hits++;
    stats->nodes_in += e->size;
    stats->nodes_out += r->size;
  }
  if (n.stopped && opts && opts->diag)
    diag_report(opts->diag, ERR_EIN_STEP_LIMIT, opts->span, n.steps);
  if (limit_hit) *limit_hit = n.stopped;
  return r;
}

const EinExpr *ein_normalize_expr(EinContext *c, const EinExpr *e, int depth,
                                  const EinNormOpts *opts, EinNormStats *stats,
                                  bool *limit_hit) {
  return run(c, e, depth, opts, stats, limit_hit);
}

const EinOp *ein_normalize(EinContext *c, const EinOp *op, const EinNormOpts *opts,
                           EinNormStats *stats, bool *limit_hit) {
  const EinExpr *body = run(c, op->body, op->nsigma, opts, stats, limit_hit);
  return ein_op_new(c, op->nparams, op->params, op->nsigma, op->sigma, body);
}

void ein_norm_stats_print(FILE *out, const EinNormStats *s) {
  for (int k = 0; k < EIN_RULE_COUNT; k++)
    if (s->fired[k]) fprintf(out, "%s %lu\n", rules[k].name, s->fired[k]);
  fprintf(out, "ein-ops %lu\nein-steps %lu\nein-max-steps %lu\nein-limit-hits %lu\n", s->ops,
          s->steps, s->max_steps, s->limit_hits);
  fprintf(out, "ein-nodes-in %lu\nein-nodes-out %lu\n", s->nodes_in, s->nodes_out);
}

/* ---- helpers for the rules -------------------------------------------------- */

const EinExpr *ein_n_sum_without(EinNorm *n, const EinExpr *sum, int v, const EinExpr *body) {
  EinBinder *nb = ARENA_NEW_ARRAY(n->arena, EinBinder, sum->nbind);
  int k = 0;
  for (int b = 0; b < sum->nbind; b++)
    if (sum->bind[b].var != v) nb[k++] = sum->bind[b];
  return ein_sum(n->c, k, nb, body);
}

const EinExpr *ein_n_rename_binders(EinNorm *n, const EinExpr *sum, uint64_t avoid) {
  const EinExpr *body = sum->kids[0];
  int from[EIN_VAR_LIMIT + 1];
  EinIdx to[EIN_VAR_LIMIT + 1];
  int m = 0;
  uint64_t used = avoid | body->fv;
  for (int b = 0; b < sum->nbind; b++) used |= ein_var_bit(sum->bind[b].var);
  EinBinder *nb = ARENA_NEW_ARRAY(n->arena, EinBinder, sum->nbind);
  for (int b = 0; b < sum->nbind; b++) {
    nb[b] = sum->bind[b];
    if (!(avoid & ein_var_bit(sum->bind[b].var))) continue;
    int w = ein_fresh_var(used);
    if (w < 0 || m > EIN_VAR_LIMIT) return NULL;
    used |= ein_var_bit(w);
    from[m] = sum->bind[b].var;
    to[m] = ein_ivar(w);
    m++;
    nb[b].var = w;
  }
  if (m == 0) return sum;
  return ein_sum(n->c, sum->nbind, nb, ein_subst(n->c, body, m, from, to));
}

static int cmp_idx(const void *a, const void *b) {
  EinIdx x = *(const EinIdx *)a, y = *(const EinIdx *)b;
  return (x > y) - (x < y);
}

/* Sort key for operands: any total order that is a function of the node
 * will do, since it is only used to compare two canonical forms. */
static int cmp_node(const void *a, const void *b) {
  const EinExpr *x = *(const EinExpr *const *)a, *y = *(const EinExpr *const *)b;
  if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
  return (x > y) - (x < y);
}

const EinExpr *ein_n_comm_canon(EinNorm *n, const EinExpr *e) {
  if (e->tag == EIN_DIFF) {
    /* Collect the chain ∂_a ∂_b ... e0 and rebuild it with sorted indices. */
    int cnt = 0;
    const EinExpr *p = e;
    while (p->tag == EIN_DIFF) {
      cnt++;
      p = p->kids[0];
    }
    EinIdx *ix = ARENA_NEW_ARRAY(n->arena, EinIdx, cnt);
    cnt = 0;
    for (p = e; p->tag == EIN_DIFF; p = p->kids[0]) ix[cnt++] = p->idx[0];
    qsort(ix, (size_t)cnt, sizeof *ix, cmp_idx);
    const EinExpr *r = ein_n_comm_canon(n, p);
    for (int i = cnt - 1; i >= 0; i--) r = ein_diff(n->c, ix[i], r);
    return r;
  }
  if (e->tag == EIN_CONV && e->nidx2 > 1) {
    EinIdx *b = ARENA_NEW_ARRAY(n->arena, EinIdx, e->nidx2);
    memcpy(b, e->idx2, sizeof *b * (size_t)e->nidx2);
    qsort(b, (size_t)e->nidx2, sizeof *b, cmp_idx);
    return ein_conv(n->c, e->param, e->param2, e->nidx, e->idx, e->nidx2, b);
  }
  if (e->nkids == 0) return e;
  const EinExpr **kids = ein_n_kids(n, e->nkids);
  for (int i = 0; i < e->nkids; i++) kids[i] = ein_n_comm_canon(n, e->kids[i]);
  if (e->tag == EIN_ADD || e->tag == EIN_MUL)
    qsort(kids, (size_t)e->nkids, sizeof *kids, cmp_node);
  return ein_with_kids(n->c, e, kids);
}
