/* ir_print.c -- a readable, stable printer for the three IR levels.
 *
 * The output depends only on the IR (variable ids are assigned at creation
 * and never renumbered), so tests may compare it and dumps of successive
 * passes diff cleanly. Example:
 *
 *   function f(x#0: real, n#1: int) -> real
 *   b0 entry:
 *     c#2: int = 0
 *     t#3: bool = lt(n#1, c#2)
 *     if t#3 then b1 else b2
 *   b1 then:  ; preds b0
 *     ...
 *   b3 join:  ; preds b1 b2
 *     r#6: real = phi(b1: y#4, b2: z#5)
 *     return r#6
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

/* ---- types -------------------------------------------------------------------------- */

typedef struct SBuf {
  char *p;
  size_t n, len; /* capacity, length written so far (may exceed n) */
} SBuf;

static void sput(SBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sput(SBuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t room = b->len < b->n ? b->n - b->len : 0;
  int k = vsnprintf(room ? b->p + b->len : NULL, room, fmt, ap);
  va_end(ap);
  if (k > 0) b->len += (size_t)k;
}

static void dims_str(SBuf *b, int order, const int *dims) {
  sput(b, "[");
  for (int i = 0; i < order; i++) sput(b, "%s%d", i ? "," : "", dims[i]);
  sput(b, "]");
}

static void type_str(SBuf *b, const IrType *t, int depth) {
  if (!t) {
    sput(b, "<no type>");
    return;
  }
  if (depth > 16) {
    sput(b, "...");
    return;
  }
  switch (t->kind) {
  case IR_TY_BOOL: sput(b, "bool"); break;
  case IR_TY_INT: sput(b, "int"); break;
  case IR_TY_STRING: sput(b, "string"); break;
  case IR_TY_TENSOR:
    if (t->order == 0) {
      sput(b, "real");
    } else {
      sput(b, "tensor");
      dims_str(b, t->order, t->dims);
    }
    break;
  case IR_TY_VEC: sput(b, "vec<%d>", t->width); break;
  case IR_TY_SEQ:
    type_str(b, t->elem, depth + 1);
    if (t->len == IR_SEQ_DYNAMIC)
      sput(b, "[]");
    else
      sput(b, "[%d]", t->len);
    break;
  case IR_TY_IMAGE:
    sput(b, "image(%d)", t->dim);
    dims_str(b, t->order, t->dims);
    break;
  case IR_TY_FIELD:
    if (t->cont == IR_CONT_INF)
      sput(b, "field(%d)", t->dim);
    else
      sput(b, "field#%d(%d)", t->cont, t->dim);
    dims_str(b, t->order, t->dims);
    break;
  case IR_TY_KERNEL: sput(b, "kernel#%d", t->cont); break;
  case IR_TY_STRAND: sput(b, "%s", t->name ? t->name : "?"); break;
  }
}

int ir_type_snprint(char *buf, size_t n, const IrType *t) {
  SBuf b = {buf, n, 0};
  if (buf && n) buf[0] = '\0';
  type_str(&b, t, 0);
  return (int)b.len;
}

char *ir_type_str(Arena *a, const IrType *t) {
  int n = ir_type_snprint(NULL, 0, t);
  char *s = arena_alloc(a, (size_t)n + 1);
  ir_type_snprint(s, (size_t)n + 1, t);
  return s;
}

void ir_type_fprint(FILE *out, const IrType *t) {
  char buf[256];
  int n = ir_type_snprint(buf, sizeof buf, t);
  if ((size_t)n < sizeof buf) {
    fputs(buf, out);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) return;
  ir_type_snprint(big, (size_t)n + 1, t);
  fputs(big, out);
  free(big);
}

/* ---- instructions ------------------------------------------------------------------ */

static void print_var(FILE *out, const IrVar *v) {
  if (v)
    fprintf(out, "%s#%d", v->name ? v->name : "t", v->id);
  else
    fputs("<null>", out);
}

static void print_args(FILE *out, const IrInstr *in) {
  fputc('(', out);
  for (int i = 0; i < in->nargs; i++) {
    if (i) fputs(", ", out);
    print_var(out, in->args[i]);
  }
  fputc(')', out);
}

static void print_string(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(out, "\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", out);
    else if (*p == '\t')
      fputs("\\t", out);
    else if (*p < 0x20 || *p == 0x7f)
      fprintf(out, "\\x%02x", *p);
    else
      fputc(*p, out);
  }
  fputc('"', out);
}

static void print_real(FILE *out, double r) {
  char tmp[40];
  snprintf(tmp, sizeof tmp, "%.17g", r);
  /* Keep reals distinguishable from ints: 2.0, not 2. */
  if (!strpbrk(tmp, ".eEn")) strcat(tmp, ".0");
  fputs(tmp, out);
}

static void print_lit(FILE *out, const IrLit *l) {
  switch (l->kind) {
  case IR_LIT_BOOL: fputs(l->b ? "true" : "false", out); break;
  case IR_LIT_INT: fprintf(out, "%lld", (long long)l->i); break;
  case IR_LIT_REAL: print_real(out, l->r); break;
  case IR_LIT_STRING: print_string(out, l->s); break;
  case IR_LIT_KERNEL:
    fprintf(out, "kernel %s", l->kernel && l->kernel->name ? l->kernel->name : "?");
    break;
  }
}

static const char *const reduce_names[] = {"all",  "exists", "sum",    "product",
                                            "min",  "max",    "mean",   "collect"};
static const char *const set_names[] = {"all", "active", "stable"};
static const char *const border_names[] = {"none", "clamp", "mirror", "wrap"};

static void print_imm(FILE *out, const IrInstr *in, const IrOpInfo *info) {
  if (in->nimm <= 0 || !in->imm) return;
  fputc('[', out);
  for (int i = 0; i < in->nimm; i++) {
    int v = in->imm[i];
    if (i) fputc(',', out);
    if (info && info->rule == IR_RULE_STRAND_REDUCE && i == 0 && v >= 0 && v <= IR_REDUCE_COLLECT)
      fputs(reduce_names[v], out);
    else if (info && info->rule == IR_RULE_STRAND_REDUCE && i == 1 && v >= 0 && v <= IR_SET_STABLE)
      fputs(set_names[v], out);
    else if (info && info->rule == IR_RULE_LOAD_VOXELS && i == 1 && v >= 0 && v <= IR_BORDER_WRAP)
      fputs(border_names[v], out);
    else
      fprintf(out, "%d", v);
  }
  fputc(']', out);
}

static void print_dst(FILE *out, const IrInstr *in) {
  if (!in->dst) return;
  print_var(out, in->dst);
  fputs(": ", out);
  ir_type_fprint(out, in->dst->ty);
  fputs(" = ", out);
}

static IrLevel level_of(const IrInstr *in) {
  if (in->block) return in->block->cfg->module->level;
  if (in->dst && in->dst->cfg) return in->dst->cfg->module->level;
  return IR_HIGH;
}

void ir_print_instr(FILE *out, const IrInstr *in, unsigned flags) {
  print_dst(out, in);
  switch (in->kind) {
  case IR_I_OP: {
    const IrOpInfo *info = ir_op_info(level_of(in), in->op);
    if (info)
      fputs(info->name, out);
    else
      fprintf(out, "op%d", in->op);
    print_imm(out, in, info);
    if (in->ein) {
      fputc(' ', out);
      ein_op_fprint(out, in->ein, (flags & IR_PRINT_ASCII) ? EIN_PRINT_ASCII : 0);
    }
    if (in->fn) fprintf(out, " @%s", in->fn->name);
    print_args(out, in);
    break;
  }
  case IR_I_LIT: print_lit(out, &in->lit); break;
  case IR_I_COPY: print_var(out, in->nargs ? in->args[0] : NULL); break;
  case IR_I_PHI: {
    fputs("phi(", out);
    const IrBlock *b = in->block;
    for (int i = 0; i < in->nargs; i++) {
      if (i) fputs(", ", out);
      if (b && i < b->npreds) fprintf(out, "b%d: ", b->preds[i]->id);
      print_var(out, in->args[i]);
    }
    fputc(')', out);
    break;
  }
  case IR_I_GLOBAL_GET: fprintf(out, "global %s", in->global ? in->global->name : "?"); break;
  case IR_I_GLOBAL_SET:
    fprintf(out, "global %s = ", in->global ? in->global->name : "?");
    print_var(out, in->nargs ? in->args[0] : NULL);
    break;
  case IR_I_STATE_GET:
    fputs("state", out);
    if (in->nargs) {
      fputc('(', out);
      print_var(out, in->args[0]);
      fputc(')', out);
    }
    fprintf(out, " %s", in->state ? in->state->name : "?");
    break;
  case IR_I_STATE_SET:
    fprintf(out, "state %s = ", in->state ? in->state->name : "?");
    print_var(out, in->nargs ? in->args[0] : NULL);
    break;
  }
}

/* ---- blocks, CFGs, modules ------------------------------------------------------------ */

static void print_term(FILE *out, const IrBlock *b) {
  const IrTerm *t = &b->term;
  fputs("  ", out);
  switch (t->kind) {
  case IR_T_NONE: fputs("<no terminator>", out); break;
  case IR_T_JUMP: fprintf(out, "jump b%d", t->succ[0] ? t->succ[0]->id : -1); break;
  case IR_T_BRANCH:
    fputs("if ", out);
    print_var(out, t->value);
    fprintf(out, " then b%d else b%d", t->succ[0] ? t->succ[0]->id : -1,
            t->succ[1] ? t->succ[1]->id : -1);
    break;
  case IR_T_RETURN:
    fputs("return", out);
    if (t->value) {
      fputc(' ', out);
      print_var(out, t->value);
    }
    break;
  case IR_T_STABILIZE: fputs("stabilize", out); break;
  case IR_T_DIE: fputs("die", out); break;
  case IR_T_CONTINUE: fputs("continue", out); break;
  case IR_T_ERROR: fputs("error", out); break;
  }
  fputc('\n', out);
}

static void print_block(FILE *out, const IrBlock *b, unsigned flags) {
  fprintf(out, "b%d", b->id);
  if (b->label) fprintf(out, " %s", b->label);
  fputc(':', out);
  if (b->npreds) {
    fputs("  ; preds", out);
    for (int i = 0; i < b->npreds; i++) fprintf(out, " b%d", b->preds[i]->id);
  }
  fputc('\n', out);
  for (int i = 0; i < b->nphis; i++) {
    fputs("  ", out);
    ir_print_instr(out, b->phis[i], flags);
    fputc('\n', out);
  }
  for (int i = 0; i < b->ninstrs; i++) {
    fputs("  ", out);
    ir_print_instr(out, b->instrs[i], flags);
    fputc('\n', out);
  }
  print_term(out, b);
}

void ir_print_cfg(FILE *out, const IrCFG *cfg, unsigned flags) {
  const char *kind = ir_cfg_kind_name(cfg->kind);
  fputs(kind, out);
  if (cfg->name && strcmp(cfg->name, kind) != 0) fprintf(out, " %s", cfg->name);
  fputc('(', out);
  for (int i = 0; i < cfg->nparams; i++) {
    if (i) fputs(", ", out);
    print_var(out, cfg->params[i]);
    fputs(": ", out);
    ir_type_fprint(out, cfg->params[i]->ty);
  }
  fputc(')', out);
  if (cfg->result) {
    fputs(" -> ", out);
    ir_type_fprint(out, cfg->result);
  }
  fputc('\n', out);
  for (int i = 0; i < cfg->nblocks; i++) print_block(out, cfg->blocks[i], flags);
}

static const char *const global_kinds[] = {"const", "input", "global"};

/* A compile-time value as Diderot-like text: 1, 0.5, [1,2], {1,2}, "s". */
static void print_value(FILE *out, const IrValue *v) {
  const IrType *t = v->ty;
  if (!t) {
    fputc('?', out);
  } else if (t->kind == IR_TY_BOOL) {
    fputs(v->b ? "true" : "false", out);
  } else if (t->kind == IR_TY_INT) {
    fprintf(out, "%lld", (long long)v->i);
  } else if (t->kind == IR_TY_STRING) {
    print_string(out, v->s ? v->s : "");
  } else if (t->kind == IR_TY_SEQ) {
    fputc('{', out);
    for (int i = 0; i < v->n; i++) {
      if (i) fputc(',', out);
      print_value(out, v->elems[i]);
    }
    fputc('}', out);
  } else if (t->kind == IR_TY_TENSOR && v->nr == 1) {
    fprintf(out, "%.17g", v->r ? v->r[0] : 0.0);
  } else {
    fputc('[', out);
    for (int i = 0; i < v->nr; i++) fprintf(out, "%s%.17g", i ? "," : "", v->r[i]);
    fputc(']', out);
  }
}

void ir_print_module(FILE *out, const IrModule *m, unsigned flags) {
  fprintf(out, "module %s", ir_level_name(m->level));
  if (m->strand_name) fprintf(out, " strand %s%s", m->strand_name, m->create_array ? " grid" : "");
  fputc('\n', out);
  for (int i = 0; i < m->nglobals; i++) {
    const IrGlobal *g = m->globals[i];
    fprintf(out, "%s ", (unsigned)g->kind <= IR_GLOBAL_VAR ? global_kinds[g->kind] : "?");
    ir_type_fprint(out, g->ty);
    fprintf(out, " %s", g->name);
    if (g->desc) {
      fputc(' ', out);
      print_string(out, g->desc);
    }
    if (g->has_default) fputs(" (default)", out);
    if (g->value) {
      fputs(" = ", out);
      print_value(out, g->value);
    }
    if (g->path) {
      fputs(" file ", out);
      print_string(out, g->path);
    }
    if (g->proxy)
      fprintf(out, " proxy %s", g->proxy->sample_type ? g->proxy->sample_type : "?");
    fputc('\n', out);
  }
  for (int i = 0; i < m->nstate; i++) {
    const IrStateVar *s = m->state[i];
    fprintf(out, "state%s%s ", s->output ? " output" : "", s->shared ? " shared" : "");
    ir_type_fprint(out, s->ty);
    fprintf(out, " %s\n", s->name);
  }
  for (int i = 0; i < m->ncfgs; i++) {
    fputc('\n', out);
    ir_print_cfg(out, m->cfgs[i], flags);
  }
}

/* ---- to strings -------------------------------------------------------------------------- */

typedef void (*PrintFn)(FILE *out, const void *x, unsigned flags);

static char *to_string(Arena *a, PrintFn f, const void *x, unsigned flags) {
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  if (!mem) return arena_strdup(a, "");
  f(mem, x, flags);
  fclose(mem);
  char *s = arena_strndup(a, buf ? buf : "", buf ? len : 0);
  free(buf);
  return s;
}

static void cfg_fn(FILE *out, const void *x, unsigned flags) { ir_print_cfg(out, x, flags); }
static void module_fn(FILE *out, const void *x, unsigned flags) { ir_print_module(out, x, flags); }

char *ir_cfg_str(Arena *a, const IrCFG *cfg, unsigned flags) {
  return to_string(a, cfg_fn, cfg, flags);
}

char *ir_module_str(Arena *a, const IrModule *m, unsigned flags) {
  return to_string(a, module_fn, m, flags);
}
