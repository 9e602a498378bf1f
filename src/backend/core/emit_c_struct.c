/* emit_c_struct.c -- the structure of a CFG for printing it as C blocks:
 * if/else, for (;;) loops with continue and break, and a goto only where
 * no structured form exists.
 *
 * Diderot's control flow is structured (if/else, loops over sequences,
 * die/stabilize/continue as exits), and so are the CFGs the translation
 * makes of it; printing them block by block, with a label per join and a
 * goto per edge, gave gcc three times the text of the original compiler's
 * C++ and a flow graph it had to rediscover (issue 37). Here the CFG is
 * turned back into a tree of nested statements, after N. Ramsey's
 * "Beyond Relooper" (ICFP 2022), which places every block by the
 * dominator tree:
 *
 *   - a block with one forward predecessor is printed inline, where that
 *     predecessor jumps to it (an arm of an if, the body of a loop);
 *   - a "merge" block (several forward predecessors, or the target of an
 *     edge leaving a loop) is printed after the code of its immediate
 *     dominator, so that the jumps to it are fall-throughs off the end of
 *     the arms that precede it;
 *   - a loop header is printed as `for (;;) { ... }`: its back edges are
 *     `continue` (or fall off the body's end), an edge to the block printed
 *     just after the loop is `break`.
 *
 * Every other jump is a `goto` to a label (doc/backend.md says where that
 * happens): a jump to a merge block that is not the next one in the text
 * (an unstructured CFG, as jump threading can make), a back edge from a
 * nested loop to an outer header, and a merge block that lies outside the
 * loop its dominator is printed in; such a block is printed after the
 * function's main body (a "tail", reached only by goto). All variables
 * are declared at the top of the function, so a goto into a block is
 * legal C and C++.
 *
 * Every reachable block is printed exactly once; the tree is linear in
 * the size of the CFG. */
#include "backend/core/emit_c_struct.h"

#include <string.h>

typedef struct Builder {
  Arena *a;
  int n;              /* reachable blocks, numbered by rpo */
  IrBlock **by_rpo;
  IrBlock **loop_of;  /* by rpo: the innermost loop header whose loop holds it */
  IrBlock **parent;   /* by rpo of a header: the loop around its own */
  bool *header;       /* by rpo: the target of a back edge */
  bool *merge;        /* by rpo */
  bool *label;        /* by rpo: the target of a goto */
  /* the loops printed around the text being built, innermost last */
  IrBlock **loop_stack, **exit_stack;
  int nloops;
  EsNode *tails, *tails_last;
} Builder;

static EsNode *node(Builder *s, EsKind kind, IrBlock *b) {
  EsNode *n = arena_alloc(s->a, sizeof *n);
  memset(n, 0, sizeof *n);
  n->kind = kind;
  n->b = b;
  return n;
}

static void append(EsNode *seq, EsNode *n) {
  if (seq->last) seq->last->next = n;
  else seq->first = n;
  seq->last = n;
}

/* Whether a->b is a retreating edge (to a block not after a in reverse
 * postorder): a back edge of a loop when b dominates a. */
static bool retreating(const IrBlock *a, const IrBlock *b) { return b->rpo <= a->rpo; }

/* Whether block b lies in the loop of header h (NULL: the whole CFG). */
static bool in_loop(Builder *s, const IrBlock *b, const IrBlock *h) {
  if (!h) return true;
  for (IrBlock *l = s->loop_of[b->rpo]; l; l = s->parent[l->rpo])
    if (l == h) return true;
  return false;
}

/* Natural loops: for each header (in decreasing rpo, so inner loops come
 * first), the blocks that reach one of its back edges without passing the
 * header; a block keeps the first, innermost, header that claims it. */
static void find_loops(Builder *s) {
  IrBlock **work = ARENA_NEW_ARRAY(s->a, IrBlock *, s->n + 1);
  int *stamp = ARENA_NEW_ARRAY(s->a, int, s->n);
  for (int i = 0; i < s->n; i++) stamp[i] = -1;
  for (int hi = s->n - 1; hi >= 0; hi--) {
    IrBlock *h = s->by_rpo[hi];
    int nw = 0;
    for (int k = 0; k < h->npreds; k++) {
      IrBlock *p = h->preds[k];
      if (p->rpo >= 0 && retreating(p, h) && ir_dominates(h, p) && stamp[p->rpo] != hi) {
        stamp[p->rpo] = hi;
        work[nw++] = p;
      }
    }
    if (!nw) continue;
    s->header[hi] = true;
    stamp[hi] = hi;
    if (!s->loop_of[hi]) s->loop_of[hi] = h;
    while (nw) {
      IrBlock *b = work[--nw];
      if (!s->loop_of[b->rpo]) {
        s->loop_of[b->rpo] = h;
      } else if (s->loop_of[b->rpo] != h) {
        /* b is in an inner loop: the outermost loop around it below h gets
         * h as its parent, and the walk goes on from that loop's header
         * (whose own loop was walked when it was found) */
        IrBlock *in = s->loop_of[b->rpo];
        while (s->parent[in->rpo]) in = s->parent[in->rpo];
        if (in == h) continue; /* attached to h earlier in this walk */
        s->parent[in->rpo] = h;
        stamp[in->rpo] = hi;
        b = in;
      }
      for (int k = 0; k < b->npreds; k++) {
        IrBlock *p = b->preds[k];
        if (p->rpo < 0 || stamp[p->rpo] == hi) continue;
        stamp[p->rpo] = hi;
        work[nw++] = p;
      }
    }
  }
}

/* Whether b only leaves the function (die, stabilize, return, an error). */
static bool exits_only(const IrBlock *b) {
  return b->term.kind != IR_T_JUMP && b->term.kind != IR_T_BRANCH;
}

/* Merge blocks: two or more forward predecessors (distinct blocks), or a
 * predecessor in a loop that does not hold the block (a loop exit), unless
 * that block only leaves the function (`if (...) die;` in a loop, an index
 * error): printed inline there, it never falls back into the loop. */
static void find_merges(Builder *s) {
  for (int i = 0; i < s->n; i++) {
    IrBlock *b = s->by_rpo[i];
    int fwd = 0;
    bool leaves = false;
    for (int k = 0; k < b->npreds; k++) {
      IrBlock *p = b->preds[k];
      if (p->rpo < 0) continue;
      bool dup = false;
      for (int r = 0; r < k && !dup; r++) dup = b->preds[r] == p;
      if (dup) continue;
      if (s->header[i] && retreating(p, b) && ir_dominates(b, p)) continue; /* a back edge */
      fwd++;
      IrBlock *pl = s->loop_of[p->rpo];
      if (pl && pl != b && !in_loop(s, b, pl)) leaves = true; /* leaves p's loop */
    }
    s->merge[i] = fwd >= 2 || (leaves && !(fwd == 1 && exits_only(b)));
  }
}

static IrBlock *loop_top(Builder *s) { return s->nloops ? s->loop_stack[s->nloops - 1] : NULL; }

static void tree(Builder *s, EsNode *seq, IrBlock *x, IrBlock *follow);

/* The jump x -> t (its phi copies come with the node). */
static void branch(Builder *s, EsNode *seq, IrBlock *x, IrBlock *t, IrBlock *follow) {
  bool back = s->header[t->rpo] && retreating(x, t) && ir_dominates(t, x);
  if (!back && !s->merge[t->rpo]) {
    /* t's only way in: print it here (its phis, if any, have one argument) */
    EsNode *e = node(s, ES_EDGE, x);
    e->to = t;
    e->jump = ES_INLINE;
    append(seq, e);
    tree(s, seq, t, follow);
    return;
  }
  EsNode *e = node(s, ES_EDGE, x);
  e->to = t;
  if (t == follow) e->jump = ES_FALL;
  else if (back && t == loop_top(s)) e->jump = ES_CONTINUE;
  else if (!back && s->nloops && t == s->exit_stack[s->nloops - 1]) e->jump = ES_BREAK;
  else {
    e->jump = ES_GOTO;
    s->label[t->rpo] = true;
  }
  append(seq, e);
}

/* x's instructions and terminator. */
static void code(Builder *s, EsNode *seq, IrBlock *x, IrBlock *follow) {
  append(seq, node(s, ES_BLOCK, x));
  IrTerm *t = &x->term;
  if (t->kind == IR_T_BRANCH && t->succ[0] != t->succ[1]) {
    EsNode *n = node(s, ES_IF, x);
    n->first = node(s, ES_SEQ, NULL);
    n->first->next = node(s, ES_SEQ, NULL);
    append(seq, n);
    branch(s, n->first, x, t->succ[0], follow);
    branch(s, n->first->next, x, t->succ[1], follow);
    n->last = n->first->next;
    return;
  }
  if (t->kind == IR_T_BRANCH || t->kind == IR_T_JUMP) {
    branch(s, seq, x, t->succ[0], follow);
    return;
  }
  append(seq, node(s, ES_EXIT, x));
}

/* Into out, the merge children of x that can be printed in the text being
 * built, whose innermost printed loop is `here`; the others become tails.
 * which: 0 all of them, 1 (x a loop header) those inside x's loop, printed
 * in its body, 2 those outside, printed after it. */
static int merges(Builder *s, IrBlock *x, IrBlock *here, int which, IrBlock **out) {
  int n = 0;
  for (int k = 0; k < x->ndomkids; k++) {
    IrBlock *y = x->domkids[k];
    if (!s->merge[y->rpo]) continue;
    bool inside = s->header[x->rpo] && in_loop(s, y, x);
    if (which == 1 && !inside) continue;
    if (which == 2 && inside) continue;
    if (s->loop_of[y->rpo] == here) {
      out[n++] = y;
      continue;
    }
    EsNode *t = node(s, ES_SEQ, y);
    s->label[y->rpo] = true;
    if (s->tails_last) s->tails_last->next = t;
    else s->tails = t;
    s->tails_last = t;
    /* printed outside every loop: its jumps are explicit */
    int saved = s->nloops;
    s->nloops = 0;
    tree(s, t, y, NULL);
    s->nloops = saved;
  }
  return n;
}

/* Appends to seq x and the blocks it dominates that are printed with it;
 * control falls off the end of that text to `follow`. */
static void tree(Builder *s, EsNode *seq, IrBlock *x, IrBlock *follow) {
  while (x) {
    IrBlock **ys = ARENA_NEW_ARRAY(s->a, IrBlock *, x->ndomkids + 1);
    int ny;
    if (s->header[x->rpo]) {
      IrBlock **in = ARENA_NEW_ARRAY(s->a, IrBlock *, x->ndomkids + 1);
      int nin = merges(s, x, x, 1, in);
      ny = merges(s, x, loop_top(s), 2, ys);
      EsNode *loop = node(s, ES_LOOP, x);
      EsNode *body = node(s, ES_SEQ, NULL);
      loop->first = loop->last = body;
      append(seq, loop);
      s->loop_stack[s->nloops] = x;
      s->exit_stack[s->nloops++] = ny ? ys[0] : NULL;
      code(s, body, x, nin ? in[0] : x);
      for (int i = 0; i < nin; i++) tree(s, body, in[i], i + 1 < nin ? in[i + 1] : x);
      s->nloops--;
    } else {
      ny = merges(s, x, loop_top(s), 0, ys);
      code(s, seq, x, ny ? ys[0] : follow);
    }
    if (!ny) return;
    for (int i = 0; i + 1 < ny; i++) tree(s, seq, ys[i], ys[i + 1]);
    x = ys[ny - 1]; /* the last one in a loop, not a recursion: long chains */
  }
}

EsNode *emit_struct_cfg(Arena *a, IrCFG *cfg, EsInfo *info) {
  Builder s;
  memset(&s, 0, sizeof s);
  s.a = a;
  ir_cfg_compute_dominators(cfg);
  for (int i = 0; i < cfg->nblocks; i++)
    if (cfg->blocks[i]->rpo >= 0 && cfg->blocks[i]->rpo + 1 > s.n) s.n = cfg->blocks[i]->rpo + 1;
  int n = s.n ? s.n : 1;
  s.by_rpo = ARENA_NEW_ARRAY(a, IrBlock *, n);
  s.loop_of = ARENA_NEW_ARRAY(a, IrBlock *, n);
  s.parent = ARENA_NEW_ARRAY(a, IrBlock *, n);
  s.header = ARENA_NEW_ARRAY(a, bool, n);
  s.merge = ARENA_NEW_ARRAY(a, bool, n);
  s.label = ARENA_NEW_ARRAY(a, bool, n);
  s.loop_stack = ARENA_NEW_ARRAY(a, IrBlock *, n);
  s.exit_stack = ARENA_NEW_ARRAY(a, IrBlock *, n);
  for (int i = 0; i < cfg->nblocks; i++)
    if (cfg->blocks[i]->rpo >= 0) s.by_rpo[cfg->blocks[i]->rpo] = cfg->blocks[i];
  EsNode *body = node(&s, ES_SEQ, NULL);
  if (s.n) {
    find_loops(&s);
    find_merges(&s);
    tree(&s, body, cfg->entry, NULL);
  }
  /* a retreating predecessor: the phis are copied through x_in (a back
   * edge assigns the next iteration's values while the current ones may
   * still be read by the other copies) */
  info->via_in = ARENA_NEW_ARRAY(a, bool, n);
  for (int i = 0; i < s.n; i++) {
    IrBlock *b = s.by_rpo[i];
    for (int k = 0; k < b->npreds; k++)
      if (b->preds[k]->rpo >= 0 && retreating(b->preds[k], b)) info->via_in[i] = true;
  }
  info->tails = s.tails;
  info->label = s.label;
  return body;
}
