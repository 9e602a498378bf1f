/* emit_c.c -- the C back end: text buffers, C names of types and
 * variables, the prelude, and CFGs as C functions (goto-based: a label per
 * block, phis as assignments on the incoming edges). The contract is in
 * emit_c.h. */
#include "backend/emit_c_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "util/source.h"

/* ---- buffers ------------------------------------------------------------------ */

void emit_buf_init(EmitBuf *b, Arena *a) {
  b->arena = a;
  b->s = NULL;
  b->len = b->cap = 0;
}

static void emit_buf_reserve(EmitBuf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  char *s = arena_alloc(b->arena, cap);
  if (b->len) memcpy(s, b->s, b->len);
  s[b->len] = '\0';
  b->s = s; /* the old copy stays in the arena */
  b->cap = cap;
}

void emit_buf_puts(EmitBuf *b, const char *s) {
  size_t n = strlen(s);
  emit_buf_reserve(b, n);
  memcpy(b->s + b->len, s, n + 1);
  b->len += n;
}

void emit_buf_printf(EmitBuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char small[512];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof small) {
    emit_buf_puts(b, small);
    return;
  }
  emit_buf_reserve(b, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

const char *emit_buf_str(EmitBuf *b) {
  emit_buf_reserve(b, 0);
  return b->s;
}

void emit_fail(EmitCtx *e, const char *fmt, ...) {
  if (e->failed) return;
  e->failed = true;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->err, sizeof e->err, fmt, ap);
  va_end(ap);
}

/* ---- names ----------------------------------------------------------------------- */

const char *emit_mangle(EmitCtx *e, const char *prefix, const char *name) {
  EmitBuf b;
  emit_buf_init(&b, e->a);
  emit_buf_puts(&b, prefix);
  for (const unsigned char *p = (const unsigned char *)(name ? name : "t"); *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))
      emit_buf_printf(&b, "%c", *p);
    else if (*p == '_')
      emit_buf_puts(&b, "__"); /* keeps "_xHH" unambiguous */
    else
      emit_buf_printf(&b, "_x%02X", *p);
  }
  return emit_buf_str(&b);
}

const char *emit_var(EmitCtx *e, const IrVar *v) {
  if (!v) {
    emit_fail(e, "a missing variable");
    return "0";
  }
  if (v->id >= 0 && v->id < e->nvnames && e->vnames[v->id]) return e->vnames[v->id];
  const char *n = arena_printf(e->a, "%s_%d", emit_mangle(e, "", v->name ? v->name : "t"), v->id);
  if (v->id >= 0) {
    if (v->id >= e->nvnames) {
      int nn = v->id + 64;
      const char **tab = arena_alloc(e->a, (size_t)nn * sizeof *tab);
      memset(tab, 0, (size_t)nn * sizeof *tab);
      if (e->nvnames) memcpy(tab, e->vnames, (size_t)e->nvnames * sizeof *tab);
      e->vnames = tab;
      e->nvnames = nn;
    }
    e->vnames[v->id] = n;
  }
  return n;
}

int emit_vec_pad(int w) {
  int p = 1;
  while (p < w) p *= 2;
  return p;
}

const char *emit_lane(EmitCtx *e, const char *x, int i) {
  return e->opt->scalar ? arena_printf(e->a, "%s.v[%d]", x, i)
                        : arena_printf(e->a, "%s[%d]", x, i);
}

int emit_tensor_size(const IrType *t) {
  int n = 1;
  for (int i = 0; i < t->order; i++) n *= t->dims[i];
  return n;
}

const char *emit_fsuf(EmitCtx *e) { return e->opt->double_real ? "" : "f"; }

const char *emit_real_lit(EmitCtx *e, double r) {
  if (isnan(r)) return "((dreal)NAN)";
  if (isinf(r)) return r > 0 ? "((dreal)INFINITY)" : "(-(dreal)INFINITY)";
  char buf[64];
  snprintf(buf, sizeof buf, "%.17g", r);
  bool has_dot = strpbrk(buf, ".e") != NULL;
  return arena_printf(e->a, "%s%s%s%s", r < 0 ? "(" : "", buf, has_dot ? "" : ".0",
                      e->opt->double_real ? (r < 0 ? ")" : "") : (r < 0 ? "f)" : "f"));
}

const char *emit_string_lit(EmitCtx *e, const char *s) {
  EmitBuf b;
  emit_buf_init(&b, e->a);
  emit_buf_puts(&b, "\"");
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\') emit_buf_printf(&b, "\\%c", *p);
    else if (*p == '\n') emit_buf_puts(&b, "\\n");
    else if (*p == '\t') emit_buf_puts(&b, "\\t");
    else if (*p < 32 || *p >= 127) emit_buf_printf(&b, "\\%03o", *p);
    else emit_buf_printf(&b, "%c", *p);
  }
  emit_buf_puts(&b, "\"");
  return emit_buf_str(&b);
}

/* ---- types ------------------------------------------------------------------------- */

static const char *type_memo(EmitCtx *e, const IrType *t) {
  for (int i = 0; i < e->ntypes; i++)
    if (ir_type_equal(e->tkeys[i], t)) return e->tnames[i];
  return NULL;
}

static void type_remember(EmitCtx *e, const IrType *t, const char *name) {
  if (e->ntypes == e->captypes) {
    int cap = e->captypes ? 2 * e->captypes : 32;
    const IrType **k = arena_alloc(e->a, (size_t)cap * sizeof *k);
    const char **n = arena_alloc(e->a, (size_t)cap * sizeof *n);
    if (e->ntypes) {
      memcpy(k, e->tkeys, (size_t)e->ntypes * sizeof *k);
      memcpy(n, e->tnames, (size_t)e->ntypes * sizeof *n);
    }
    e->tkeys = k;
    e->tnames = n;
    e->captypes = cap;
  }
  e->tkeys[e->ntypes] = t;
  e->tnames[e->ntypes] = name;
  e->ntypes++;
}

const char *emit_type(EmitCtx *e, const IrType *t) {
  if (!t) {
    emit_fail(e, "a value without a type");
    return "int";
  }
  switch (t->kind) {
  case IR_TY_BOOL: return "bool";
  case IR_TY_INT: return "dint";
  case IR_TY_STRING: return "const char *";
  case IR_TY_IMAGE: return "const DrtImage *";
  case IR_TY_STRAND: return "uint32_t";
  case IR_TY_TENSOR:
    if (t->order == 0) return "dreal";
    break;
  case IR_TY_FIELD:
  case IR_TY_KERNEL:
    emit_fail(e, "a %s value reached the C back end", t->kind == IR_TY_FIELD ? "field" : "kernel");
    return "int";
  default: break;
  }
  const char *name = type_memo(e, t);
  if (name) return name;
  EmitBuf n;
  emit_buf_init(&n, e->a);
  switch (t->kind) {
  case IR_TY_TENSOR: {
    emit_buf_puts(&n, "dten");
    for (int i = 0; i < t->order; i++) emit_buf_printf(&n, "_%d", t->dims[i]);
    name = emit_buf_str(&n);
    emit_buf_printf(&e->types, "typedef struct { dreal v[%d]; } %s;\n", emit_tensor_size(t),
                    name);
    break;
  }
  case IR_TY_VEC:
    if (e->opt->scalar) {
      name = arena_printf(e->a, "dvecs%d", t->width);
      emit_buf_printf(&e->types, "typedef struct { dreal v[%d]; } %s;\n", t->width, name);
    } else {
      int p = emit_vec_pad(t->width);
      name = arena_printf(e->a, "dvec%d", p);
      /* vec<3> and vec<4> share dvec4: one typedef per padded width */
      const IrType *wt = ir_type_vec(e->m, p);
      const char *prev = type_memo(e, wt);
      if (prev) {
        name = prev;
      } else {
        emit_buf_printf(&e->types, "typedef dreal %s __attribute__((vector_size(%d)));\n", name,
                        p * (e->opt->double_real ? 8 : 4));
        if (wt != t) type_remember(e, wt, name);
      }
    }
    break;
  case IR_TY_SEQ: {
    const char *el = emit_type(e, t->elem);
    const char *tag = emit_mangle(e, "", el);
    if (t->len == IR_SEQ_DYNAMIC) {
      name = arena_printf(e->a, "dseq_%s", tag);
      emit_buf_printf(&e->types, "typedef struct { uint32_t len; %s *v; } %s;\n", el, name);
    } else {
      name = arena_printf(e->a, "dfix%d_%s", t->len, tag);
      emit_buf_printf(&e->types, "typedef struct { %s v[%d]; } %s;\n", el, t->len ? t->len : 1,
                      name);
    }
    break;
  }
  default:
    emit_fail(e, "no C type for this value");
    return "int";
  }
  type_remember(e, t, name);
  return name;
}

/* ---- the prelude --------------------------------------------------------------------- */

void emit_prelude(EmitCtx *e, EmitBuf *out) {
  const EmitOptions *o = e->opt;
  emit_buf_printf(out,
                  "/* Generated by diderotc from %s: do not edit. */\n"
                  "#include <errno.h>\n#include <math.h>\n#include <stdbool.h>\n#include <stdint.h>\n"
                  "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
                  "#include \"diderot_rt.h\"\n#include \"diderot_world.h\"\n"
                  "#include \"diderot_tensor.h\"\n",
                  o->source ? o->source : "a Diderot program");
  if (o->target == EMIT_TARGET_OMP) emit_buf_puts(out, "#include <omp.h>\n");
  if (o->target == EMIT_TARGET_OMP && o->exec) /* rt_omp.c says why; never in a library */
    emit_buf_puts(out, "__attribute__((constructor)) static void d_omp_defaults(void) {\n"
                       "  drt_omp_default_wait_policy();\n}\n");
  emit_buf_printf(out, "\ntypedef %s dint;\ntypedef %s dreal;\n",
                  o->long_int ? "int64_t" : "int32_t", o->double_real ? "double" : "float");
  emit_buf_printf(out, "#define D_REAL_NRRD %s\n#define D_INT_NRRD %s\n#define D_FLOOR %s\n",
                  o->double_real ? "nrrdTypeDouble" : "nrrdTypeFloat",
                  o->long_int ? "nrrdTypeLLong" : "nrrdTypeInt", o->double_real ? "floor" : "floorf");
  emit_buf_puts(out,
                "/* helpers; D_FN adds __host__ __device__ in the CUDA device half */\n"
                "#ifndef D_FN\n#define D_FN static inline\n#endif\n"
                "/* x^n for an int n, by repeated squaring */\n"
                "D_FN dreal d_powi(dreal x, dint n) {\n"
                "  dreal r = 1;\n  uint64_t k = n < 0 ? -(uint64_t)n : (uint64_t)n;\n"
                "  for (dreal p = x; k; k >>= 1, p *= p) if (k & 1) r *= p;\n"
                "  return n < 0 ? 1 / r : r;\n}\n"
                "/* floor(x) as a probe's base index, saturated to +-2^(bits-2) (NaN to the\n"
                " * low end): a NaN or huge position is a well-defined index that fails the\n"
                " * range check of the probe, and index +- support cannot overflow */\n"
                "D_FN dint d_floor_to_int(dreal x) {\n"
                "  const dreal b_ = (dreal)((dint)1 << (sizeof(dint) * 8 - 2));\n"
                "  x = D_FLOOR(x);\n"
                "  x = x > -b_ ? x : -b_; /* NaN: -b_ (no branch: maxss, minss) */\n"
                "  x = x < b_ ? x : b_;\n"
                "  return (dint)x;\n}\n"
                "/* border control on an index i of an axis of n samples (§8.6) */\n"
                "D_FN dint d_clamp_index(dint i, dint n) {\n"
                "  return i < 0 ? 0 : (i >= n ? n - 1 : i);\n}\n"
                "D_FN dint d_wrap_index(dint i, dint n) {\n"
                "  dint r = i % n;\n  return r < 0 ? r + n : r;\n}\n"
                "D_FN dint d_mirror_index(dint i, dint n) {\n"
                "  if (n == 1) return 0;\n  dint p = 2 * n, r = i % p;\n"
                "  if (r < 0) r += p;\n  return r < n ? r : p - 1 - r;\n}\n"
                "/* dynamic sequences: immutable arrays in the world's sequence heap,\n"
                " * collected between super-steps (diderot_world.h); D_SEQ_RT is the\n"
                " * DrtWorld in scope (inline: no unused warnings) */\n"
                "#ifndef D_SEQ_RT\n#define D_SEQ_RT (wrld->rt)\n#endif\n"
                "static inline void *d_seq_alloc(DrtWorld *rt, size_t n, size_t esz) {\n"
                "  void *p = drt_seq_alloc(rt, n * esz);\n"
                "  if (!p) { fputs(\"out of memory\\n\", stderr); exit(1); }\n"
                "  return p;\n}\n"
                "static inline void *d_seq_join(DrtWorld *rt, const void *a, size_t na, const void *b,"
                " size_t nb, size_t esz) {\n"
                "  void *p = drt_seq_join(rt, a, na * esz, b, nb * esz);\n"
                "  if (!p) { fputs(\"out of memory\\n\", stderr); exit(1); }\n"
                "  return p;\n}\n\n");
}

/* ---- CFGs ------------------------------------------------------------------------------ */

static void emit_phi_edge(EmitCtx *e, EmitBuf *out, IrBlock *from, IrBlock *to, int slot_of_pred,
                          const char *indent) {
  (void)slot_of_pred;
  /* the first predecessor slot that is `from` (a branch with both arms to
   * one block is one edge for phis: ir_phi_set sets every slot alike) */
  int k = ir_block_pred_index(to, from);
  if (k < 0) return;
  for (int i = 0; i < to->nphis; i++) {
    IrInstr *phi = to->phis[i];
    if (!phi->dst || k >= phi->nargs) continue;
    emit_buf_printf(out, "%s%s_in = %s;\n", indent, emit_var(e, phi->dst),
                    emit_var(e, phi->args[k]));
  }
}

static const char *exit_code(IrTermKind k) {
  switch (k) {
  case IR_T_STABILIZE: return "DRT_EXIT_STABILIZE";
  case IR_T_DIE: return "DRT_EXIT_DIE";
  default: return "DRT_EXIT_CONTINUE";
  }
}

/* Leave the unit being printed after a recorded run-time error. */
void emit_leave_on_error(EmitCtx *e, EmitBuf *out, const char *indent) {
  bool method = e->cfg->kind == IR_CFG_START || e->cfg->kind == IR_CFG_UPDATE;
  if (method) emit_buf_printf(out, "%sreturn DRT_EXIT_ERROR;\n", indent);
  else if (e->cfg->kind == IR_CFG_FUNC && e->cfg->result)
    emit_buf_printf(out, "%s{ %s z_; memset(&z_, 0, sizeof z_); return z_; }\n", indent,
                    emit_type(e, e->cfg->result));
  else emit_buf_printf(out, "%sreturn;\n", indent);
}

static void emit_term(EmitCtx *e, EmitBuf *out, IrBlock *b) {
  IrTerm *t = &b->term;
  bool method = e->cfg->kind == IR_CFG_START || e->cfg->kind == IR_CFG_UPDATE;
  switch (t->kind) {
  case IR_T_JUMP:
    emit_phi_edge(e, out, b, t->succ[0], 0, "  ");
    emit_buf_printf(out, "  goto L%d;\n", t->succ[0]->id);
    return;
  case IR_T_BRANCH:
    emit_buf_printf(out, "  if (%s) {\n", emit_var(e, t->value));
    emit_phi_edge(e, out, b, t->succ[0], 0, "    ");
    emit_buf_printf(out, "    goto L%d;\n  } else {\n", t->succ[0]->id);
    emit_phi_edge(e, out, b, t->succ[1], 1, "    ");
    emit_buf_printf(out, "    goto L%d;\n  }\n", t->succ[1]->id);
    return;
  case IR_T_RETURN:
    if (t->value) emit_buf_printf(out, "  return %s;\n", emit_var(e, t->value));
    else if (method) emit_buf_puts(out, "  return DRT_EXIT_CONTINUE;\n");
    else emit_buf_puts(out, "  return;\n");
    return;
  case IR_T_STABILIZE:
  case IR_T_DIE:
  case IR_T_CONTINUE:
    if (!method) {
      emit_fail(e, "a strand exit outside a strand method");
      return;
    }
    emit_buf_printf(out, "  return %s;\n", exit_code(t->kind));
    return;
  case IR_T_ERROR:
    /* the error is recorded (probe_fail): leave the unit; the runtime
     * stops the program when the unit returns */
    emit_leave_on_error(e, out, "  ");
    return;
  case IR_T_NONE: break;
  }
  emit_fail(e, "a block without a terminator");
}

/* A C comment "line N: TEXT" for the source line an instruction came from, so
 * that generated code maps back to the program (TEXT trimmed, shortened,
 * without comment delimiters); the line number alone when the source
 * cannot be read. */
static void emit_line_comment(EmitCtx *e, EmitBuf *out, int line) {
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
    emit_buf_printf(out, "  /* line %d */\n", line);
    return;
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
  emit_buf_printf(out, "  /* line %d: %s */\n", line, buf);
}

void emit_cfg_body(EmitCtx *e, EmitBuf *out, IrCFG *cfg) {
  e->cfg = cfg;
  /* declarations: every instruction result and phi (with its edge copy) */
  for (int bi = 0; bi < cfg->nblocks; bi++) {
    IrBlock *b = cfg->blocks[bi];
    for (int i = 0; i < b->nphis; i++) {
      IrVar *d = b->phis[i]->dst;
      if (!d) continue;
      const char *ty = emit_type(e, d->ty);
      emit_buf_printf(out, "  %s %s;\n  %s %s_in;\n", ty, emit_var(e, d), ty, emit_var(e, d));
    }
    for (int i = 0; i < b->ninstrs; i++) {
      IrVar *d = b->instrs[i]->dst;
      /* a dynamic sequence's padding (after len) is copied bytewise into
       * strand state: zero it, or the copy reads an indeterminate value */
      bool pad = d && d->ty && d->ty->kind == IR_TY_SEQ && d->ty->len == IR_SEQ_DYNAMIC;
      /* C++ (the device half, NAME.cu) warns of {0} (-Wmissing-field-initializers);
       * {} zero-initializes there, padding included */
      bool cxx = e->opt->target == EMIT_TARGET_CUDA && e->instr_hook != emit_cuda_host_instr;
      if (d) emit_buf_printf(out, "  %s %s%s;\n", emit_type(e, d->ty), emit_var(e, d),
                             pad ? (cxx ? " = {}" : " = {0}") : "");
    }
  }
  emit_loop_lanes_decls(e, out, cfg); /* emit_c_loops.c */
  for (int bi = 0; bi < cfg->nblocks; bi++) {
    IrBlock *b = cfg->blocks[bi];
    if (b != cfg->entry || bi != 0) emit_buf_printf(out, " L%d:;%s%s\n", b->id,
                                                    b->label ? " /* " : "",
                                                    b->label ? arena_printf(e->a, "%s */",
                                                                            b->label) : "");
    for (int i = 0; i < b->nphis; i++)
      if (b->phis[i]->dst)
        emit_buf_printf(out, "  %s = %s_in;\n", emit_var(e, b->phis[i]->dst),
                        emit_var(e, b->phis[i]->dst));
    int line = 0;
    for (int i = 0; i < b->ninstrs; i++) {
      IrInstr *in = b->instrs[i];
      if (in->line > 0 && in->line != line) emit_line_comment(e, out, line = in->line);
      emit_instr(e, out, in);
    }
    emit_loop_lanes(e, out, b); /* emit_c_loops.c: a loop header's chunks in lanes */
    emit_term(e, out, b);
  }
  if (cfg->entry != cfg->blocks[0]) emit_fail(e, "the entry block is not the first block");
}

void emit_ctx_init(EmitCtx *e, Arena *a, IrModule *m, const EmitOptions *opt) {
  memset(e, 0, sizeof *e);
  e->a = a;
  e->m = m;
  e->opt = opt;
  emit_buf_init(&e->types, a);
}

/* ---- functions for tests ------------------------------------------------------------------ */

bool emit_c_functions(Arena *a, IrModule *m, IrCFG *const *cfgs, int ncfgs,
                      const EmitOptions *opt, const char **out, char *err, size_t errlen) {
  EmitCtx e;
  emit_ctx_init(&e, a, m, opt);
  EmitBuf pre, fns;
  emit_buf_init(&pre, a);
  emit_buf_init(&fns, a);
  emit_buf_puts(&pre, "#define D_SEQ_RT NULL /* no world: drt_seq_alloc mallocs */\n");
  emit_prelude(&e, &pre);
  for (int i = 0; i < ncfgs; i++) {
    IrCFG *cfg = cfgs[i];
    if (cfg->kind != IR_CFG_FUNC || !cfg->result) {
      emit_fail(&e, "emit_c_functions: CFG %d is not a function", i);
      break;
    }
    emit_buf_printf(&fns, "static %s %s(", emit_type(&e, cfg->result), emit_cfg_name(&e, cfg));
    for (int p = 0; p < cfg->nparams; p++)
      emit_buf_printf(&fns, "%s%s %s", p ? ", " : "", emit_type(&e, cfg->params[p]->ty),
                      emit_var(&e, cfg->params[p]));
    emit_buf_printf(&fns, "%s) {\n", cfg->nparams ? "" : "void");
    emit_cfg_body(&e, &fns, cfg);
    emit_buf_puts(&fns, "}\n\n");
  }
  if (e.failed) {
    if (err && errlen) snprintf(err, errlen, "%s", e.err);
    return false;
  }
  emit_buf_puts(&pre, emit_buf_str(&e.types));
  emit_buf_puts(&pre, "\n");
  emit_buf_puts(&pre, emit_buf_str(&fns));
  *out = emit_buf_str(&pre);
  return true;
}

bool emit_c_program(Arena *a, IrModule *m, const EmitOptions *opt, const char **out, EmitInfo *info,
                    char *err, size_t errlen) {
  EmitCtx e;
  emit_ctx_init(&e, a, m, opt);
  if (opt->target == EMIT_TARGET_CUDA) e.instr_hook = emit_cuda_host_instr; /* the host half */
  EmitBuf body;
  emit_buf_init(&body, a);
  bool ok = emit_program_glue(&e, &body) && !e.failed;
  if (!ok) {
    if (err && errlen) snprintf(err, errlen, "%s", e.failed ? e.err : "code generation failed");
    return false;
  }
  *out = emit_buf_str(&body);
  if (info) info->simd_groups = emit_simd_used(&e), info->loop_lanes = e.loop_lanes_found;
  return true;
}
