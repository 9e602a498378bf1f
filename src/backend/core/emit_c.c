/* emit_c.c -- the base of the C back end: text buffers, C names of types,
 * variables, state, globals and functions, definitions printed once, and
 * the prelude of every generated file. The contract is in emit_options.h;
 * CFGs are printed by emit_c_cfg.c. */
#include "backend/core/core.h"

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
      /* doubling: ids grow as the printers go, and a fixed step would copy
       * the table once per step (quadratic in a program's variables) */
      int nn = e->nvnames ? 2 * e->nvnames : 256;
      while (nn <= v->id) nn *= 2;
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

/* C names of state variables, globals and CFG functions */
const char *emit_state_field(EmitCtx *e, const IrStateVar *s) {
  return emit_mangle(e, "sv_", s->name);
}
const char *emit_global_field(EmitCtx *e, const IrGlobal *g) {
  return emit_mangle(e, "gv_", g->name);
}

const char *emit_cfg_name(EmitCtx *e, const IrCFG *cfg) {
  switch (cfg->kind) {
  case IR_CFG_FUNC: {
    int k = 0;
    for (int i = 0; i < e->m->ncfgs; i++)
      if (e->m->cfgs[i] == cfg) k = i;
    return arena_printf(e->a, "%s_%d", emit_mangle(e, "fn_", cfg->name ? cfg->name : "f"), k);
  }
  case IR_CFG_GLOBAL_INIT: return "d_global_init";
  case IR_CFG_STRAND_INIT: return "d_strand_init";
  case IR_CFG_START: return "d_strand_start";
  case IR_CFG_UPDATE: return "d_strand_update";
  case IR_CFG_STABILIZE: return "d_strand_stabilize";
  case IR_CFG_GLOBAL_START: return "d_global_start";
  case IR_CFG_GLOBAL_UPDATE: return "d_global_update";
  case IR_CFG_CREATE: return "d_create";
  }
  return "d_unknown";
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

/* Whether values of t hold dynamic sequences. */
bool emit_type_has_dseq(const IrType *t) {
  return t->kind == IR_TY_SEQ && (t->len == IR_SEQ_DYNAMIC || emit_type_has_dseq(t->elem));
}

bool emit_step_chunked(const EmitCtx *e) {
  return e->opt->target != EMIT_TARGET_CUDA && ir_module_find_cfg(e->m, IR_CFG_UPDATE) != NULL;
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
  /* rt_omp.c says why; never in a library; not with the schedule's omp-wait = system */
  if (o->target == EMIT_TARGET_OMP && o->exec &&
      !(o->schedule && o->schedule->omp_wait == SCHED_WAIT_SYSTEM))
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

/* Leave the unit being printed after a recorded run-time error. */
void emit_leave_on_error(EmitCtx *e, EmitBuf *out, const char *indent) {
  bool method = e->cfg->kind == IR_CFG_START || e->cfg->kind == IR_CFG_UPDATE;
  if (method) emit_buf_printf(out, "%sreturn DRT_EXIT_ERROR;\n", indent);
  else if (e->cfg->kind == IR_CFG_FUNC && e->cfg->result)
    emit_buf_printf(out, "%s{ %s z_; memset(&z_, 0, sizeof z_); return z_; }\n", indent,
                    emit_type(e, e->cfg->result));
  else emit_buf_printf(out, "%sreturn;\n", indent);
}

bool emit_once(EmitCtx *e, const char *key) {
  /* a handful of keys per program (lane types, helper groups): a list */
  for (int i = 0; i < e->nonce; i++)
    if (!strcmp(e->once[i], key)) return false;
  if (e->nonce == e->caponce) {
    int cap = e->caponce ? 2 * e->caponce : 16;
    const char **n = arena_alloc(e->a, (size_t)cap * sizeof *n);
    if (e->nonce) memcpy(n, e->once, (size_t)e->nonce * sizeof *n);
    e->once = n;
    e->caponce = cap;
  }
  e->once[e->nonce++] = arena_strdup(e->a, key);
  return true;
}

void emit_ctx_init(EmitCtx *e, Arena *a, IrModule *m, const EmitOptions *opt) {
  memset(e, 0, sizeof *e);
  e->a = a;
  e->m = m;
  e->opt = opt;
  e->ndist_maps = -1;
  emit_buf_init(&e->types, a);
}

