/* emit_c_cfg.c -- CFGs as C functions: the tree of nested statements of
 * emit_c_struct.c printed as C blocks (if/else, for (;;), a goto only
 * where that tree has one), every variable declared at the top, a phi as
 * an assignment at the end of each incoming arm (through x_in at a loop
 * header), and a comment naming the source line of each run of
 * instructions. The target's hooks (EmitHooks) print what is not plain C:
 * loops in lanes after their header block, a target's own instructions. */
#include "backend/core/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backend/core/emit_c_struct.h"
#include "util/source.h"

static const char *exit_code(IrTermKind k) {
  switch (k) {
  case IR_T_STABILIZE: return "DRT_EXIT_STABILIZE";
  case IR_T_DIE: return "DRT_EXIT_DIE";
  default: return "DRT_EXIT_CONTINUE";
  }
}

/* A C comment "line N: TEXT" for the source line an instruction came from, so
 * that generated code maps back to the program (TEXT trimmed, shortened,
 * without comment delimiters); the line number alone when the source
 * cannot be read. */
static const char *line_comment(EmitCtx *e, int line) {
  if (!e->src_tried) {
    e->src_tried = true;
    if (e->opt->source) e->src = source_load(e->a, e->opt->source);
  }
  size_t len = 0;
  const char *text = e->src && line <= e->src->nlines ? source_line(e->src, line, &len) : NULL;
  while (text && len && (*text == ' ' || *text == '\t')) text++, len--;
  while (text && len && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\r'))
    len--;
  if (!text || !len) {
    return arena_printf(e->a, "/* line %d */", line);
  }
  char buf[72];
  size_t n = 0;
  for (size_t i = 0; i < len && n + 4 < sizeof buf; i++) {
    char c = text[i];
    if (c == '\t') c = ' ';
    /* no comment delimiters inside the comment */
    if ((c == '/' && i + 1 < len && text[i + 1] == '*') || (c == '*' && i + 1 < len && text[i + 1] == '/'))
      c = '.';
    buf[n++] = c;
  }
  if (n < len) {
    /* cut at a character boundary (UTF-8 continuation bytes are 10xxxxxx) */
    while (n && ((unsigned char)buf[n - 1] & 0xC0) == 0x80) n--;
    if (n && ((unsigned char)buf[n - 1] & 0xC0) == 0xC0) n--;
    buf[n++] = '.', buf[n++] = '.', buf[n++] = '.';
  }
  buf[n] = '\0';
  return arena_printf(e->a, "/* line %d: %s */", line, buf);
}


typedef struct Printer {
  EmitCtx *e;
  EmitBuf *out;
  const EsInfo *info;  /* labels and x_in phis, by rpo (emit_c_struct.h) */
  const bool *hoisted; /* by variable id: a literal set where it is declared */
  int depth;           /* of nested statements, for the indentation */
  int line;            /* the source line of the last comment printed */
  EmitBuf tmp;
} Printer;

/* Nesting beyond this is printed at this indentation: else-if chains of
 * hundreds of arms stay readable lines, not screens of blanks. */
enum { MAX_INDENT = 24 };

/* Appends text (lines indented for depth 0, as every printer of the core
 * writes them) at the printer's depth; a comment, if any, ends its first
 * line. */
static void put(Printer *p, const char *text, const char *comment) {
  int extra = 2 * (p->depth < MAX_INDENT ? p->depth : MAX_INDENT);
  while (*text) {
    const char *nl = strchr(text, '\n');
    size_t n = nl ? (size_t)(nl - text) : strlen(text);
    if (n) emit_buf_printf(p->out, "%*s%.*s", extra, "", (int)n, text);
    if (comment) {
      emit_buf_printf(p->out, " %s", comment);
      comment = NULL;
    }
    emit_buf_puts(p->out, "\n");
    text += n + (nl ? 1 : 0);
  }
}

/* put() of a printf. */
static void putf(Printer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(Printer *p, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof buf) {
    put(p, buf, NULL);
    return;
  }
  char *big = arena_alloc(p->e->a, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  put(p, big, NULL);
}

static void reset_tmp(Printer *p) {
  p->tmp.len = 0;
  if (p->tmp.s) p->tmp.s[0] = '\0';
}

static bool method_cfg(const IrCFG *cfg) { return cfg->kind == IR_CFG_START || cfg->kind == IR_CFG_UPDATE; }

static void print_exit(Printer *p, IrBlock *b) {
  EmitCtx *e = p->e;
  IrTerm *t = &b->term;
  switch (t->kind) {
  case IR_T_RETURN:
    if (t->value) putf(p, "  return %s;\n", emit_var(e, t->value));
    else if (method_cfg(e->cfg)) put(p, "  return DRT_EXIT_CONTINUE;\n", NULL);
    else put(p, "  return;\n", NULL);
    return;
  case IR_T_STABILIZE:
  case IR_T_DIE:
  case IR_T_CONTINUE:
    if (!method_cfg(e->cfg)) {
      emit_fail(e, "a strand exit outside a strand method");
      return;
    }
    putf(p, "  return %s;\n", exit_code(t->kind));
    return;
  case IR_T_ERROR:
    /* the error is recorded (probe_fail): leave the unit; the runtime
     * stops the program when the unit returns */
    reset_tmp(p);
    emit_leave_on_error(e, &p->tmp, "  ");
    put(p, emit_buf_str(&p->tmp), NULL);
    return;
  default: emit_fail(e, "a block without a terminator");
  }
}

static void print_block(Printer *p, IrBlock *b) {
  EmitCtx *e = p->e;
  /* the instructions (and the target's text after them) first: the
   * target's text may jump to the block's label */
  EmitBuf body;
  emit_buf_init(&body, e->a);
  for (int i = 0; i < b->ninstrs; i++) {
    IrInstr *in = b->instrs[i];
    if (in->dst && p->hoisted[in->dst->id]) continue;
    reset_tmp(p);
    emit_instr(e, &p->tmp, in);
    const char *text = emit_buf_str(&p->tmp);
    if (!*text) continue;
    const char *comment = NULL;
    if (in->line > 0 && in->line != p->line) comment = line_comment(e, p->line = in->line);
    Printer sub = *p;
    sub.out = &body;
    put(&sub, text, comment);
  }
  bool jumps_here = false;
  if (e->hooks.block_end) {
    EmitBuf hook;
    emit_buf_init(&hook, e->a);
    jumps_here = e->hooks.block_end(e, &hook, b); /* a loop header's chunks in lanes */
    Printer sub = *p;
    sub.out = &body;
    put(&sub, emit_buf_str(&hook), NULL);
  }
  if (p->info->label[b->rpo] || jumps_here)
    emit_buf_printf(p->out, " L%d:;%s%s\n", b->id, b->label ? " /* " : "",
                    b->label ? arena_printf(e->a, "%s */", b->label) : "");
  if (p->info->via_in[b->rpo])
    for (int i = 0; i < b->nphis; i++)
      if (b->phis[i]->dst) {
        const char *v = emit_var(e, b->phis[i]->dst);
        putf(p, "  %s = %s_in;\n", v, v);
      }
  emit_buf_puts(p->out, emit_buf_str(&body));
}

static void print_edge(Printer *p, EsNode *n) {
  EmitCtx *e = p->e;
  IrBlock *to = n->to;
  /* the first predecessor slot that is `from` (a branch with both arms to
   * one block is one edge for phis: ir_phi_set sets every slot alike) */
  int k = ir_block_pred_index(to, n->b);
  bool via_in = p->info->via_in[to->rpo];
  for (int i = 0; k >= 0 && i < to->nphis; i++) {
    IrInstr *phi = to->phis[i];
    if (!phi->dst || k >= phi->nargs) continue;
    putf(p, "  %s%s = %s;\n", emit_var(e, phi->dst), via_in ? "_in" : "", emit_var(e, phi->args[k]));
  }
  switch (n->jump) {
  case ES_INLINE:
  case ES_FALL: return;
  case ES_CONTINUE: put(p, "  continue;\n", NULL); return;
  case ES_BREAK: put(p, "  break;\n", NULL); return;
  case ES_GOTO: putf(p, "  goto L%d;\n", to->id); return;
  }
}

/* Whether n prints nothing (an arm of an if that only falls through). */
static bool prints_nothing(Printer *p, EsNode *n) {
  switch (n->kind) {
  case ES_SEQ:
    for (EsNode *c = n->first; c; c = c->next)
      if (!prints_nothing(p, c)) return false;
    return true;
  case ES_EDGE: {
    if (n->jump != ES_INLINE && n->jump != ES_FALL) return false;
    int k = ir_block_pred_index(n->to, n->b);
    for (int i = 0; k >= 0 && i < n->to->nphis; i++)
      if (n->to->phis[i]->dst && k < n->to->phis[i]->nargs) return false;
    return true;
  }
  case ES_BLOCK:
    if (p->info->label[n->b->rpo] || p->info->via_in[n->b->rpo] || n->b->term.kind == IR_T_NONE)
      return false;
    for (int i = 0; i < n->b->ninstrs; i++)
      if (!n->b->instrs[i]->dst || !p->hoisted[n->b->instrs[i]->dst->id]) return false;
    return true;
  default: return false;
  }
}

static void print_node(Printer *p, EsNode *n);

static void print_seq(Printer *p, EsNode *seq) {
  for (EsNode *c = seq->first; c; c = c->next) print_node(p, c);
}

static void print_if(Printer *p, EsNode *n) {
  const char *c = emit_var(p->e, n->b->term.value);
  EsNode *then = n->first, *els = n->first->next;
  /* (prints_nothing stops at the first node that prints: an arm's first
   * block or statement, so the checks stay linear in the tree) */
  bool no_then = prints_nothing(p, then), no_else = prints_nothing(p, els);
  if (no_then && no_else) {
    putf(p, "  (void)%s;\n", c);
    print_seq(p, then);
    print_seq(p, els);
    return;
  }
  putf(p, no_then ? "  if (!%s) {\n" : "  if (%s) {\n", c);
  p->depth++;
  print_seq(p, no_then ? els : then);
  p->depth--;
  if (!no_then && !no_else) {
    put(p, "  } else {\n", NULL);
    p->depth++;
    print_seq(p, els);
    p->depth--;
  }
  put(p, "  }\n", NULL);
  if (no_then) print_seq(p, then);
  else if (no_else) print_seq(p, els);
}

static void print_node(Printer *p, EsNode *n) {
  switch (n->kind) {
  case ES_SEQ: print_seq(p, n); return;
  case ES_BLOCK: print_block(p, n->b); return;
  case ES_IF: print_if(p, n); return;
  case ES_LOOP:
    putf(p, "  for (;;) { /* loop at L%d */\n", n->b->id);
    p->depth++;
    print_seq(p, n->first);
    p->depth--;
    put(p, "  }\n", NULL);
    return;
  case ES_EDGE: print_edge(p, n); return;
  case ES_EXIT: print_exit(p, n->b); return;
  }
}

/* Declarations of one type, several to a line. */
typedef struct DeclGroup {
  const IrType *ty;
  EmitBuf line;
  int col;
} DeclGroup;

typedef struct Decls {
  EmitCtx *e;
  EmitBuf *out;
  DeclGroup *g;
  int n, cap;
} Decls;

enum { DECL_WIDTH = 96 };

static void decl(Decls *d, const IrType *ty, const char *item) {
  EmitCtx *e = d->e;
  /* the distinct types of one function: a few dozen at most */
  int k = 0;
  while (k < d->n && d->g[k].ty != ty) k++;
  if (k == d->n) {
    if (d->n == d->cap) {
      int cap = d->cap ? 2 * d->cap : 16;
      DeclGroup *g = arena_alloc(e->a, (size_t)cap * sizeof *g);
      if (d->n) memcpy(g, d->g, (size_t)d->n * sizeof *g);
      d->g = g, d->cap = cap;
    }
    d->g[k].ty = ty;
    emit_buf_init(&d->g[k].line, e->a);
    d->g[k].col = 0;
    d->n++;
  }
  DeclGroup *g = &d->g[k];
  const char *tn = emit_type(e, ty);
  int len = (int)strlen(item);
  /* `T *a, b` would make b a T: pointers one to a line */
  bool alone = strchr(tn, '*') != NULL;
  if (g->col && (alone || g->col + 2 + len > DECL_WIDTH)) {
    emit_buf_printf(d->out, "%s;\n", emit_buf_str(&g->line));
    g->line.len = 0;
    g->col = 0;
  }
  if (!g->col) {
    emit_buf_printf(&g->line, "  %s %s", tn, item);
    g->col = 3 + (int)strlen(tn) + len;
  } else {
    emit_buf_printf(&g->line, ", %s", item);
    g->col += 2 + len;
  }
}

static void decls_end(Decls *d) {
  for (int k = 0; k < d->n; k++)
    if (d->g[k].col) emit_buf_printf(d->out, "%s;\n", emit_buf_str(&d->g[k].line));
}

/* The literals set where they are declared: bools, ints and reals (a
 * literal's variable has that one value everywhere; strings stay with the
 * target, which may print them otherwise). */
static bool hoistable(const IrInstr *in) {
  return in->kind == IR_I_LIT && in->dst &&
         (in->lit.kind == IR_LIT_BOOL || in->lit.kind == IR_LIT_INT || in->lit.kind == IR_LIT_REAL);
}

void emit_cfg_body(EmitCtx *e, EmitBuf *out, IrCFG *cfg) {
  e->cfg = cfg;
  if (cfg->entry != cfg->blocks[0]) emit_fail(e, "the entry block is not the first block");
  EsInfo info;
  EsNode *body = emit_struct_cfg(e->a, cfg, &info);
  if (e->nhoisted <= e->m->next_var_id) {
    /* once per module (a printer above may have made variables since) */
    int n = e->m->next_var_id + 1;
    bool *h = ARENA_NEW_ARRAY(e->a, bool, n);
    if (e->nhoisted) memcpy(h, e->hoisted, (size_t)e->nhoisted);
    e->hoisted = h, e->nhoisted = n;
  }
  bool *hoisted = e->hoisted;
  /* declarations: every instruction result and phi (and the x_in of a
   * loop header's phi); a literal with its value */
  Decls d = {e, out, NULL, 0, 0};
  bool cxx = e->hooks.cplusplus;
  for (int bi = 0; bi < cfg->nblocks; bi++) {
    IrBlock *b = cfg->blocks[bi];
    if (b->rpo < 0) continue; /* unreachable: not printed */
    bool via_in = info.via_in[b->rpo];
    for (int i = 0; i < b->nphis; i++) {
      IrVar *v = b->phis[i]->dst;
      if (!v) continue;
      decl(&d, v->ty, emit_var(e, v));
      if (via_in) decl(&d, v->ty, arena_printf(e->a, "%s_in", emit_var(e, v)));
    }
    for (int i = 0; i < b->ninstrs; i++) {
      IrInstr *in = b->instrs[i];
      IrVar *v = in->dst;
      if (!v) continue;
      if (hoistable(in)) {
        EmitBuf lit;
        emit_buf_init(&lit, e->a);
        emit_instr(e, &lit, in); /* "  x = VALUE;\n" */
        const char *s = emit_buf_str(&lit);
        while (*s == ' ') s++;
        size_t n = strlen(s);
        if (n >= 2 && s[n - 1] == '\n' && s[n - 2] == ';' && !memchr(s, '\n', n - 1)) {
          hoisted[v->id] = true;
          decl(&d, v->ty, arena_printf(e->a, "%.*s", (int)(n - 2), s));
          continue;
        }
      }
      /* a dynamic sequence's padding (after len) is copied bytewise into
       * strand state: zero it, or the copy reads an indeterminate value;
       * C++ (the device half, NAME.cu) warns of {0}
       * (-Wmissing-field-initializers); {} zero-initializes there, padding
       * included */
      bool pad = v->ty && v->ty->kind == IR_TY_SEQ && v->ty->len == IR_SEQ_DYNAMIC;
      decl(&d, v->ty, pad ? arena_printf(e->a, "%s%s", emit_var(e, v), cxx ? " = {}" : " = {0}")
                          : emit_var(e, v));
    }
  }
  decls_end(&d);
  if (e->hooks.cfg_decls) e->hooks.cfg_decls(e, out, cfg); /* the CPU target: loops in lanes */
  Printer p = {e, out, &info, hoisted, 0, 0, {0}};
  emit_buf_init(&p.tmp, e->a);
  print_seq(&p, body);
  for (EsNode *t = info.tails; t; t = t->next) print_seq(&p, t);
}
