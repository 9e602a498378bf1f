/* emit_c_expr.c -- LowIR instructions as C statements (the value
 * representation is described in emit_options.h). Every instruction becomes one
 * or a few statements assigning its destination; horizontal vector
 * operations read lanes < w only, so padding lanes never matter. */
#include "backend/core/core.h"

#include <inttypes.h>
#include <string.h>

#define OUT(...) emit_buf_printf(out, __VA_ARGS__)

static const char *A(EmitCtx *e, const IrInstr *in, int i) {
  if (i >= in->nargs) {
    emit_fail(e, "operator %s: missing argument %d", ir_op_info(e->m->level, in->op)->name, i);
    return "0";
  }
  return emit_var(e, in->args[i]);
}

static bool is_real_ty(const IrType *t) { return t && t->kind == IR_TY_TENSOR && t->order == 0; }
static bool is_vec_ty(const IrType *t) { return t && t->kind == IR_TY_VEC; }

/* An element-wise operation over a value of type t: reals, tensors (all
 * components) and vectors (lanes < w; whole vectors in vector mode). fmt
 * has %1$s-style slots a, b, c for the operands' components. */
static void emit_map(EmitCtx *e, EmitBuf *out, const IrType *t, const char *dst, int nargs,
                     const char *const *args, const char *op) {
  /* op is "+", "-", "*", "/" (binary), "neg" (unary) or "clamp" (3 args:
   * lo, hi, x, where lo/hi may be real when x is a tensor) */
  int n = 1;
  bool vec = is_vec_ty(t);
  if (vec && !e->opt->scalar && strcmp(op, "clamp") != 0) {
    if (!strcmp(op, "neg")) OUT("  %s = -%s;\n", dst, args[0]);
    else OUT("  %s = %s %s %s;\n", dst, args[0], op, args[1]);
    return;
  }
  if (t->kind == IR_TY_TENSOR) n = emit_tensor_size(t);
  else if (vec) n = t->width;
  bool whole = t->kind == IR_TY_TENSOR && t->order == 0;
  for (int i = 0; i < n; i++) {
    const char *d = whole ? dst : vec ? emit_lane(e, dst, i) : arena_printf(e->a, "%s.v[%d]", dst, i);
    const char *c[3];
    for (int k = 0; k < nargs && k < 3; k++)
      c[k] = whole ? args[k]
                   : (vec ? emit_lane(e, args[k], i) : arena_printf(e->a, "%s.v[%d]", args[k], i));
    if (!strcmp(op, "neg")) OUT("  %s = -%s;\n", d, c[0]);
    else if (!strcmp(op, "clamp")) OUT("  %s = %s < %s ? %s : (%s > %s ? %s : %s);\n", d, c[2], c[0], c[0], c[2], c[1], c[1], c[2]);
    else OUT("  %s = %s %s %s;\n", d, c[0], op, c[1]);
  }
}

/* The components of a value of type t as the C lvalue/rvalue text of
 * component i (reals: the value itself; tensors: .v[i]; vectors: lane). */
static const char *comp(EmitCtx *e, const IrType *t, const char *x, int i) {
  if (is_real_ty(t)) return x;
  if (is_vec_ty(t)) return emit_lane(e, x, i);
  return arena_printf(e->a, "%s.v[%d]", x, i);
}
static int ncomp(const IrType *t) {
  if (is_vec_ty(t)) return t->width;
  if (t->kind == IR_TY_TENSOR) return emit_tensor_size(t);
  return 1;
}

/* Length and data pointer of a sequence operand. */
static const char *seq_len(EmitCtx *e, const IrType *t, const char *x) {
  return t->len == IR_SEQ_DYNAMIC ? arena_printf(e->a, "%s.len", x) : arena_printf(e->a, "%d", t->len);
}

void emit_print_value(EmitCtx *e, EmitBuf *out, const IrType *t, const char *x) {
  const char *f = e->print_to ? e->print_to : "wrld->print";
  const char *fl = e->opt->double_real ? "double" : "float";
  switch (t->kind) {
  case IR_TY_BOOL: OUT("  drt_print_bool(%s, %s);\n", f, x); return;
  case IR_TY_INT: OUT("  drt_print_int(%s, (int64_t)%s);\n", f, x); return;
  case IR_TY_STRING: OUT("  drt_print_string(%s, %s);\n", f, x); return;
  case IR_TY_TENSOR:
    if (t->order == 0) {
      OUT("  drt_print_%s(%s, %s);\n", fl, f, x);
    } else {
      OUT("  { static const unsigned shp_[] = {");
      for (int i = 0; i < t->order; i++) OUT("%s%d", i ? ", " : "", t->dims[i]);
      OUT("}; drt_print_tensor_%s(%s, %s.v, %d, shp_); }\n", fl, f, x, t->order);
    }
    return;
  case IR_TY_SEQ: {
    const IrType *el = t->elem;
    const char *n = seq_len(e, t, x);
    if (el->kind == IR_TY_TENSOR) {
      OUT("  { static const unsigned shp_[] = {0");
      for (int i = 0; i < el->order; i++) OUT(", %d", el->dims[i]);
      OUT("}; drt_print_seq_%s(%s, (const dreal *)%s.v, %s, %d, shp_ + 1); }\n", fl, f, x, n,
          el->order);
    } else if (el->kind == IR_TY_INT) {
      OUT("  drt_print_seq_int%s(%s, %s.v, %s);\n", e->opt->long_int ? "64" : "32", f, x, n);
    } else if (el->kind == IR_TY_BOOL) {
      OUT("  drt_print_seq_bool(%s, %s.v, %s);\n", f, x, n);
    } else {
      /* sequences of other things: element by element in braces */
      OUT("  fputc('{', %s);\n  for (uint32_t i_ = 0; i_ < (uint32_t)%s; i_++) {\n"
          "    if (i_) fputc(',', %s);\n", f, n, f);
      const char *el_x = arena_printf(e->a, "%s.v[i_]", x);
      emit_print_value(e, out, el, el_x);
      OUT("  }\n  fputc('}', %s);\n", f);
    }
    return;
  }
  default: emit_fail(e, "print of a value that cannot be printed");
  }
}

/* acc = acc (op) v, for the reductions of §4.9 (IrReduce order). */
static void red_step(EmitCtx *e, EmitBuf *out, IrReduce r, const char *acc, const char *v) {
  (void)e;
  switch (r) {
  case IR_REDUCE_ALL: OUT("%s = %s && %s;", acc, acc, v); return;
  case IR_REDUCE_EXISTS: OUT("%s = %s || %s;", acc, acc, v); return;
  case IR_REDUCE_PRODUCT: OUT("%s = %s * %s;", acc, acc, v); return;
  case IR_REDUCE_MIN: OUT("%s = %s < %s ? %s : %s;", acc, v, acc, v, acc); return;
  case IR_REDUCE_MAX: OUT("%s = %s > %s ? %s : %s;", acc, v, acc, v, acc); return;
  default: OUT("%s = %s + %s;", acc, acc, v); return;
  }
}

static const char *red_init(EmitCtx *e, IrReduce r, bool isint) {
  switch (r) {
  case IR_REDUCE_ALL: return "true";
  case IR_REDUCE_EXISTS: return "false";
  case IR_REDUCE_PRODUCT: return "1";
  case IR_REDUCE_MIN:
    return isint ? (e->opt->long_int ? "INT64_MAX" : "INT32_MAX") : "(dreal)INFINITY";
  case IR_REDUCE_MAX:
    return isint ? (e->opt->long_int ? "INT64_MIN" : "INT32_MIN") : "-(dreal)INFINITY";
  default: return "0";
  }
}

/* A reduction over a sequence (RED_*). */
static void emit_seq_reduce(EmitCtx *e, EmitBuf *out, const IrInstr *in, const char *d) {
  const IrType *t = in->args[0]->ty;
  const char *x = A(e, in, 0), *n = seq_len(e, t, x);
  bool isint = t->elem->kind == IR_TY_INT;
  IrReduce r = (IrReduce)(IR_REDUCE_ALL + (in->op - IR_OP_RED_ALL));
  OUT("  %s = %s;\n  for (uint32_t i_ = 0; i_ < (uint32_t)%s; i_++) { ", d, red_init(e, r, isint), n);
  red_step(e, out, r, d, arena_printf(e->a, "%s.v[i_]", x));
  OUT(" }\n");
  if (r == IR_REDUCE_MEAN) OUT("  %s = %s / (dreal)%s;\n", d, d, n);
}

static const char *mathfn(EmitCtx *e, const char *name) {
  return arena_printf(e->a, "%s%s", name, emit_fsuf(e));
}

/* STRAND_REDUCE: a sequential loop over the strands in storage order
 * (deterministic for every target). */
/* Whether f is the map of a reduction over strands other than a
 * collection: under EmitHooks.distributed it runs on the ranks that own
 * the strands (emit_strand_reduce). */
static bool distributed_map(EmitCtx *e, const IrCFG *f) {
  if (e->ndist_maps < 0) { /* one walk of the module, not one per print */
    int n = 0, cap = 0;
    const IrCFG **maps = NULL;
    for (int c = 0; c < e->m->ncfgs; c++) {
      const IrCFG *g = e->m->cfgs[c];
      for (int b = 0; b < g->nblocks; b++)
        for (int i = 0; i < g->blocks[b]->ninstrs; i++) {
          const IrInstr *in = g->blocks[b]->instrs[i];
          if (in->kind != IR_I_OP || in->op != IR_OP_STRAND_REDUCE || !in->fn || in->nimm == 0 ||
              in->imm[0] == IR_REDUCE_COLLECT)
            continue;
          if (n == cap) {
            cap = cap ? 2 * cap : 8;
            const IrCFG **nm = ARENA_NEW_ARRAY(e->a, const IrCFG *, cap);
            if (n) memcpy(nm, maps, (size_t)n * sizeof *nm);
            maps = nm;
          }
          maps[n++] = in->fn;
        }
    }
    e->dist_maps = maps;
    e->ndist_maps = n;
  }
  for (int i = 0; i < e->ndist_maps; i++)
    if (e->dist_maps[i] == f) return true;
  return false;
}

static void emit_strand_reduce(EmitCtx *e, EmitBuf *out, const IrInstr *in, const char *d) {
  IrReduce red = (IrReduce)in->imm[0];
  IrStrandSet set = (IrStrandSet)in->imm[1];
  const IrType *rt = in->fn ? in->fn->result : NULL;
  if (!rt || !in->dst) {
    emit_fail(e, "strand_reduce without a map function");
    return;
  }
  bool isint = rt->kind == IR_TY_INT;
  const char *fn = emit_cfg_name(e, in->fn);
  EmitBuf call;
  emit_buf_init(&call, e->a);
  emit_buf_printf(&call, "%s(wrld, i_", fn);
  for (int i = 0; i < in->nargs; i++) emit_buf_printf(&call, ", %s", A(e, in, i));
  emit_buf_puts(&call, ")");
  const char *v = emit_buf_str(&call);
  if (red == IR_REDUCE_COLLECT) {
    const char *el = emit_type(e, in->dst->ty->elem);
    OUT("  { uint32_t n_ = 0, ns_ = drt_world_nslots(wrld->rt);\n"
        "    %s = (%s){0, d_seq_alloc(D_SEQ_RT, ns_, sizeof(%s))};\n"
        "    for (uint32_t i_ = 0; i_ < ns_; i_++)\n"
        "      if (drt_world_in_set(wrld->rt, i_, %d)) %s.v[n_++] = %s;\n"
        "    %s.len = n_; }\n",
        d, emit_type(e, in->dst->ty), el, (int)set, d, v, d);
    return;
  }
  if (e->hooks.distributed) {
    /* the map on the strands this process owns, the others' values from
     * their owners, then the same loop (EmitHooks.distributed) */
    const char *ty = emit_type(e, rt);
    OUT("  { uint32_t n_ = 0, ns_ = drt_world_nslots(wrld->rt);\n    %s = %s;\n"
        "    %s *m_ = drt_world_map_values(wrld->rt, sizeof(%s));\n"
        "    if (m_) {\n"
        "    for (uint32_t i_ = 0; i_ < ns_; i_++)\n"
        "      if (drt_world_in_set(wrld->rt, i_, %d) && drt_world_map_owns(wrld->rt, i_)) m_[i_] = %s;\n"
        "    drt_world_map_share(wrld->rt, m_, sizeof(%s));\n"
        "    for (uint32_t i_ = 0; i_ < ns_; i_++) {\n"
        "      if (!drt_world_in_set(wrld->rt, i_, %d)) continue;\n"
        "      %s v_ = m_[i_];\n      n_++;\n      ",
        d, red_init(e, red, isint), ty, ty, (int)set, v, ty, (int)set, ty);
    red_step(e, out, red, d, "v_");
    OUT("\n    }\n    }\n");
    if (red == IR_REDUCE_MEAN) OUT("    %s = %s / (dreal)n_;\n", d, d);
    OUT("    (void)n_; }\n");
    return;
  }
  OUT("  { uint32_t n_ = 0, ns_ = drt_world_nslots(wrld->rt);\n    %s = %s;\n"
      "    for (uint32_t i_ = 0; i_ < ns_; i_++) {\n"
      "      if (!drt_world_in_set(wrld->rt, i_, %d)) continue;\n"
      "      %s v_ = %s;\n      n_++;\n      ",
      d, red_init(e, red, isint), (int)set, emit_type(e, rt), v);
  red_step(e, out, red, d, "v_");
  OUT("\n    }\n");
  if (red == IR_REDUCE_MEAN) OUT("    %s = %s / (dreal)n_;\n", d, d);
  OUT("    (void)n_; }\n");
}

static void emit_new(EmitCtx *e, EmitBuf *out, const IrInstr *in) {
  IrCfgKind k = e->cfg->kind;
  /* a packed record of the strand's state words (emit_c_layout.c) */
  /* Creation stops at the first refusal (no room to grow, an interrupt):
   * the error is in the world, and going on would call the runtime once per
   * remaining cell of a refused grid (minutes for 4e10 strands). */
  if (k == IR_CFG_CREATE)
    OUT("  { dreal *ns_ = drt_world_create_strand(wrld->rt);\n    if (!ns_) return;\n");
  else if (k == IR_CFG_START || k == IR_CFG_UPDATE) OUT("  { dreal *ns_ = drt_world_new_strand(ctx, id);\n");
  else {
    emit_fail(e, "new outside strand methods and strand creation");
    return;
  }
  OUT("    %sd_strand_init(wrld, ns_", k == IR_CFG_CREATE ? "" : "if (ns_) ");
  for (int i = 0; i < in->nargs; i++) OUT(", %s", A(e, in, i));
  OUT("); }\n");
}

/* The address of a LowIR image load. An offset iadd(v, k) with a literal k
 * (mid_to_low's per-tap offsets: one base per probe plus constants) is
 * printed as data + (int64_t)v + k: the constant folds into the addressing
 * mode, where the 32-bit sum would cost an add and a sign extension per
 * load (the build uses -fwrapv). */
static const char *load_addr(EmitCtx *e, const IrInstr *in) {
  const IrVar *o = in->nargs > 1 ? in->args[1] : NULL;
  const IrInstr *od = o ? o->def : NULL;
  if (od && od->kind == IR_I_OP && od->op == IR_OP_IADD && od->nargs == 2 && od->args[1]->def) {
    const IrInstr *k = od->args[1]->def;
    if (k->kind == IR_I_LIT && k->lit.kind == IR_LIT_INT && k->lit.i >= INT32_MIN && k->lit.i <= INT32_MAX)
      return arena_printf(e->a, "((const dreal *)%s->data + (int64_t)%s %c %" PRId64 ")", A(e, in, 0),
                          emit_var(e, od->args[0]), k->lit.i < 0 ? '-' : '+',
                          k->lit.i < 0 ? -k->lit.i : k->lit.i);
  }
  return arena_printf(e->a, "((const dreal *)%s->data + %s)", A(e, in, 0), A(e, in, 1));
}

/* The C math function of a one-argument real operator (sqrt, ...), or NULL:
 * the scalar and the lane printers share it. */
const char *emit_math_fn1(int op) {
  switch (op) {
  case IR_OP_SQRT: return "sqrt";
  case IR_OP_EXP: return "exp";
  case IR_OP_LOG: return "log";
  case IR_OP_LOG10: return "log10";
  case IR_OP_LOG2: return "log2";
  case IR_OP_SIN: return "sin";
  case IR_OP_COS: return "cos";
  case IR_OP_TAN: return "tan";
  case IR_OP_ASIN: return "asin";
  case IR_OP_ACOS: return "acos";
  case IR_OP_ATAN: return "atan";
  case IR_OP_CEIL: return "ceil";
  case IR_OP_FLOOR: return "floor";
  case IR_OP_ROUND: return "round";
  case IR_OP_TRUNC: return "trunc";
  case IR_OP_ERF: return "erf";
  case IR_OP_ERFC: return "erfc";
  default: return NULL;
  }
}

/* A load's offset variable may now be read nowhere: mark it used. */
static const char *load_off_use(EmitCtx *e, const IrInstr *in) {
  const IrInstr *od = in->nargs > 1 && in->args[1] ? in->args[1]->def : NULL;
  return od && od->kind == IR_I_OP && od->op == IR_OP_IADD
             ? arena_printf(e->a, " (void)%s;", A(e, in, 1))
             : "";
}

static void emit_op(EmitCtx *e, EmitBuf *out, IrInstr *in) {
  const char *d = in->dst ? emit_var(e, in->dst) : NULL;
  const IrType *dt = in->dst ? in->dst->ty : NULL;
  const IrType *t0 = in->nargs > 0 && in->args[0] ? in->args[0]->ty : NULL;
  const char *binop = NULL, *fn1 = emit_math_fn1(in->op);
  bool low = e->m->level == IR_LOW;
  /* x op x of ints or bools (value numbering merged two equal operands,
   * e.g. a sequence index check 0 >= 0): the known result, which a C
   * compiler would otherwise warn about as a tautological comparison */
  if (in->nargs == 2 && in->args[0] == in->args[1] && t0 &&
      (t0->kind == IR_TY_INT || t0->kind == IR_TY_BOOL)) {
    switch (in->op) {
    case IR_OP_LT:
    case IR_OP_GT:
    case IR_OP_NE: OUT("  %s = 0;\n", d); return;
    case IR_OP_LE:
    case IR_OP_GE:
    case IR_OP_EQ: OUT("  %s = 1;\n", d); return;
    default: break;
    }
  }
  switch (in->op) {
  case IR_OP_IADD: binop = "+"; break;
  case IR_OP_ISUB: binop = "-"; break;
  case IR_OP_IMUL: binop = "*"; break;
  case IR_OP_IDIV: binop = "/"; break;
  case IR_OP_IMOD: binop = "%"; break;
  case IR_OP_INEG: OUT("  %s = -%s;\n", d, A(e, in, 0)); return;
  case IR_OP_IABS: OUT("  %s = %s < 0 ? -%s : %s;\n", d, A(e, in, 0), A(e, in, 0), A(e, in, 0)); return;
  case IR_OP_LT: binop = "<"; break;
  case IR_OP_LE: binop = "<="; break;
  case IR_OP_GT: binop = ">"; break;
  case IR_OP_GE: binop = ">="; break;
  case IR_OP_EQ:
  case IR_OP_NE:
    if (t0 && t0->kind == IR_TY_STRING) {
      OUT("  %s = strcmp(%s, %s) %s 0;\n", d, A(e, in, 0), A(e, in, 1), in->op == IR_OP_EQ ? "==" : "!=");
      return;
    }
    binop = in->op == IR_OP_EQ ? "==" : "!=";
    break;
  case IR_OP_NOT: OUT("  %s = !%s;\n", d, A(e, in, 0)); return;
  case IR_OP_AND: binop = "&&"; break;
  case IR_OP_OR: binop = "||"; break;
  case IR_OP_SELECT: OUT("  %s = %s ? %s : %s;\n", d, A(e, in, 0), A(e, in, 1), A(e, in, 2)); return;
  case IR_OP_MIN: OUT("  %s = %s < %s ? %s : %s;\n", d, A(e, in, 1), A(e, in, 0), A(e, in, 1), A(e, in, 0)); return;
  case IR_OP_MAX: OUT("  %s = %s > %s ? %s : %s;\n", d, A(e, in, 1), A(e, in, 0), A(e, in, 1), A(e, in, 0)); return;
  case IR_OP_INT_TO_REAL: OUT("  %s = (dreal)%s;\n", d, A(e, in, 0)); return;
  case IR_OP_ATAN2:
  case IR_OP_POW:
  case IR_OP_FMOD:
    OUT("  %s = %s(%s, %s);\n", d,
        mathfn(e, in->op == IR_OP_ATAN2 ? "atan2" : in->op == IR_OP_POW ? "pow" : "fmod"), A(e, in, 0),
        A(e, in, 1));
    return;
  case IR_OP_POWI: OUT("  %s = d_powi(%s, %s);\n", d, A(e, in, 0), A(e, in, 1)); return;
  case IR_OP_TENSOR_CONS: {
    /* argument k is the slice (k, ...) of the result (emit_c_layout.c) */
    int sz = ncomp(t0);
    for (int k = 0; k < in->nargs; k++) {
      int base = emit_tensor_offset(e, dt, &k, 1);
      for (int j = 0; j < sz; j++)
        OUT("  %s.v[%d] = %s;\n", d, base + j, comp(e, in->args[k]->ty, A(e, in, k), j));
    }
    return;
  }
  case IR_OP_TENSOR_INDEX: {
    int off = emit_tensor_offset(e, t0, in->imm, in->nimm);
    if (is_real_ty(dt)) OUT("  %s = %s.v[%d];\n", d, A(e, in, 0), off);
    else OUT("  memcpy(%s.v, %s.v + %d, sizeof %s.v);\n", d, A(e, in, 0), off, d);
    return;
  }
  case IR_OP_CLAMP: {
    const char *args[3] = {A(e, in, 0), A(e, in, 1), A(e, in, 2)};
    /* lo/hi real with a tensor x: broadcast */
    int n = ncomp(dt);
    for (int i = 0; i < n; i++) {
      const char *lo = comp(e, in->args[0]->ty, args[0], i), *hi = comp(e, in->args[1]->ty, args[1], i);
      const char *x = comp(e, dt, args[2], i), *r = comp(e, dt, d, i);
      OUT("  %s = %s < %s ? %s : (%s > %s ? %s : %s);\n", r, x, lo, lo, x, hi, hi, x);
    }
    return;
  }
  case IR_OP_INV:
    if (is_real_ty(dt)) OUT("  %s = 1 / %s;\n", d, A(e, in, 0));
    else if (dt->dims[0] == 2 || dt->dims[0] == 3)
      OUT("  drt_inv%d_%s(%s.v, %s.v);\n", dt->dims[0], e->opt->double_real ? "d" : "f", A(e, in, 0), d);
    else emit_fail(e, "inverse of a %dx%d matrix is not supported", dt->dims[0], dt->dims[0]);
    return;
  case IR_OP_EVALS:
  case IR_OP_EVECS:
    OUT("  drt_%s%d_%s(%s.v, (dreal *)%s.v);\n", in->op == IR_OP_EVALS ? "evals" : "evecs", t0->dims[0],
        e->opt->double_real ? "d" : "f", A(e, in, 0), d);
    return;
  case IR_OP_SEQ_CONS:
    for (int k = 0; k < in->nargs; k++) OUT("  %s.v[%d] = %s;\n", d, k, A(e, in, k));
    if (!in->nargs) OUT("  memset(&%s, 0, sizeof %s);\n", d, d);
    return;
  case IR_OP_SEQ_LENGTH: OUT("  %s = (dint)%s;\n", d, seq_len(e, t0, A(e, in, 0))); return;
  case IR_OP_SEQ_INDEX: OUT("  %s = %s.v[%s];\n", d, A(e, in, 0), A(e, in, 1)); return;
  case IR_OP_SEQ_APPEND:
  case IR_OP_SEQ_PREPEND:
  case IR_OP_SEQ_CONCAT: {
    const char *el = emit_type(e, dt->elem);
    const char *la, *pa, *lb, *pb;
    int si = in->op == IR_OP_SEQ_PREPEND ? 1 : 0;
    if (in->op == IR_OP_SEQ_CONCAT) {
      la = seq_len(e, t0, A(e, in, 0)); pa = arena_printf(e->a, "%s.v", A(e, in, 0));
      lb = seq_len(e, in->args[1]->ty, A(e, in, 1)); pb = arena_printf(e->a, "%s.v", A(e, in, 1));
    } else if (si == 0) {
      la = seq_len(e, t0, A(e, in, 0)); pa = arena_printf(e->a, "%s.v", A(e, in, 0));
      lb = "1"; pb = arena_printf(e->a, "&%s", A(e, in, 1));
    } else {
      la = "1"; pa = arena_printf(e->a, "&%s", A(e, in, 0));
      lb = seq_len(e, in->args[1]->ty, A(e, in, 1)); pb = arena_printf(e->a, "%s.v", A(e, in, 1));
    }
    OUT("  %s.len = (uint32_t)(%s) + (uint32_t)(%s);\n  %s.v = d_seq_join(D_SEQ_RT, %s, %s, %s, %s, sizeof(%s));\n",
        d, la, lb, d, pa, la, pb, lb, el);
    return;
  }
  case IR_OP_RANGE:
    OUT("  %s.len = %s < %s ? 0 : (uint32_t)(%s - %s + 1);\n  %s.v = d_seq_alloc(D_SEQ_RT, %s.len, sizeof(dint));\n"
        "  for (uint32_t i_ = 0; i_ < %s.len; i_++) %s.v[i_] = %s + (dint)i_;\n",
        d, A(e, in, 1), A(e, in, 0), A(e, in, 1), A(e, in, 0), d, d, d, d, A(e, in, 0));
    return;
  case IR_OP_RED_ALL:
  case IR_OP_RED_EXISTS:
  case IR_OP_RED_SUM:
  case IR_OP_RED_PRODUCT:
  case IR_OP_RED_MIN:
  case IR_OP_RED_MAX:
  case IR_OP_RED_MEAN: emit_seq_reduce(e, out, in, d); return;
  case IR_OP_LOAD_SEQ:
    /* a file that cannot be loaded is a run-time error: leave the unit
     * (the sequence is empty; nothing after may run on it) */
    OUT("  if (%s) {\n    drt_world_fail(wrld->rt);\n",
        emit_load_seq_call(e, dt, "\"sequence\"", A(e, in, 0), "NULL", d));
    emit_leave_on_error(e, out, "    ");
    OUT("  }\n");
    return;
  case IR_OP_LOAD_IMAGE: OUT("  %s = %s;\n", d, emit_load_image_call(e, in->dst, A(e, in, 0))); return;
  case IR_OP_IMAGE_SIZE:
    for (int i = 0; i < t0->dim; i++) OUT("  %s.v[%d] = %s->size[%d];\n", d, i, A(e, in, 0), i);
    return;
  case IR_OP_IMAGE_WORLD_MIN:
  case IR_OP_IMAGE_WORLD_MAX:
  case IR_OP_IMAGE_SAMPLE_MIN:
  case IR_OP_IMAGE_SAMPLE_MAX: {
    /* host code only (the frontend allows them in global code): computed
     * in double by the runtime (rt_image_query.c), rounded to the real type */
    bool world = in->op == IR_OP_IMAGE_WORLD_MIN || in->op == IR_OP_IMAGE_WORLD_MAX;
    bool upper = in->op == IR_OP_IMAGE_WORLD_MAX || in->op == IR_OP_IMAGE_SAMPLE_MAX;
    int n = ncomp(dt);
    for (int i = 0; i < n; i++)
      OUT("  %s = (dreal)drt_image_%s_bound(%s, %d, %s);\n", comp(e, dt, d, i),
          world ? "world" : "sample", A(e, in, 0), i, upper ? "true" : "false");
    return;
  }
  case IR_OP_INPUT_GIVEN: /* GLOBAL_INIT: the input was set (command line, library) */
    OUT("  %s = wrld->def_%s;\n", d, emit_global_field(e, e->m->globals[in->imm[0]]));
    return;
  case IR_OP_NUM_STRANDS: OUT("  %s = (dint)drt_world_nstrands(wrld->rt);\n", d); return;
  case IR_OP_NUM_ACTIVE: OUT("  %s = (dint)drt_world_nactive(wrld->rt);\n", d); return;
  case IR_OP_NUM_STABLE: OUT("  %s = (dint)drt_world_nstable(wrld->rt);\n", d); return;
  case IR_OP_SPHERE:
  case IR_OP_SPHERE_AT: emit_sphere_query(e, out, in); return; /* emit_c_sphere.c */
  case IR_OP_STRAND_REDUCE: emit_strand_reduce(e, out, in, d); return;
  case IR_OP_NEW: emit_new(e, out, in); return;
  case IR_OP_PRINT: {
    /* --target=mpi, a strand's method: the text is kept with the strand
     * (id) and its phase, and rank 0 writes every rank's texts in strand
     * order at the end of the step (rt/rt_mpi_print.c) */
    IrCfgKind k = e->cfg ? e->cfg->kind : IR_CFG_GLOBAL_INIT;
    bool method = k == IR_CFG_START || k == IR_CFG_UPDATE || k == IR_CFG_STABILIZE;
    /* the map of a reduction that runs on the strands' owners (a
     * collection's map runs on every rank: printed as global code is) */
    bool map = k == IR_CFG_FUNC && e->hooks.distributed && e->cfg->nparams > 0 &&
               distributed_map(e, e->cfg);
    if (e->opt->mpi && (method || map)) {
      OUT("  { DrtMpiPrint mp_;\n  FILE *pf_ = %s;\n",
          method ? "drt_mpi_print_begin(ctx, wrld->print, &mp_)"
                 : "drt_mpi_print_begin_map(wrld->rt, wrld->print, &mp_)");
      e->print_to = "pf_";
      for (int i = 0; i < in->nargs; i++) emit_print_value(e, out, in->args[i]->ty, A(e, in, i));
      e->print_to = NULL;
      OUT("  drt_mpi_print_end(&mp_, %s, %d); }\n", method ? "id" : emit_var(e, e->cfg->params[0]),
          k == IR_CFG_START ? 0 : method ? 1 : 2);
      return;
    }
    /* threads: one print statement is written as a whole (POSIX stdio lock) */
    bool lock = e->opt->target == EMIT_TARGET_OMP && in->nargs > 1;
    if (lock) OUT("  flockfile(wrld->print);\n");
    for (int i = 0; i < in->nargs; i++) emit_print_value(e, out, in->args[i]->ty, A(e, in, i));
    if (lock) OUT("  funlockfile(wrld->print);\n");
    return;
  }
  case IR_OP_CREATE_GRID: {
    int n = in->nargs / 2;
    OUT("  { size_t sz_[%d] = {", n ? n : 1);
    for (int i = 0; i < n; i++) OUT("%s(size_t)(%s < 0 ? 0 : %s)", i ? ", " : "", A(e, in, i), A(e, in, i));
    /* true: a grid the memory cannot hold, the error in the world */
    OUT("}; if (drt_world_set_grid(wrld->rt, %d, sz_)) return; }\n", n);
    return;
  }
  case IR_OP_STABILIZE_ALL: OUT("  drt_world_stabilize_all(wrld->rt);\n"); return;
  case IR_OP_DIE_ALL: OUT("  drt_world_kill_all(wrld->rt);\n"); return;
  default: break;
  }
  if (binop) {
    OUT("  %s = %s %s %s;\n", d, A(e, in, 0), binop, A(e, in, 1));
    return;
  }
  if (fn1) {
    OUT("  %s = %s(%s);\n", d, mathfn(e, fn1), A(e, in, 0));
    return;
  }
  if (!low) {
    emit_fail(e, "operator %s is not a LowIR operator", ir_op_info(e->m->level, in->op)->name);
    return;
  }
  int w = dt && is_vec_ty(dt) ? dt->width : 0;
  switch ((IrLowOp)in->op) {
  case IR_LOP_RADD: binop = "+"; break;
  case IR_LOP_RSUB: binop = "-"; break;
  case IR_LOP_RMUL: binop = "*"; break;
  case IR_LOP_RDIV: binop = "/"; break;
  case IR_LOP_RNEG: OUT("  %s = -%s;\n", d, A(e, in, 0)); return;
  case IR_LOP_FLOOR_TO_INT: OUT("  %s = d_floor_to_int(%s);\n", d, A(e, in, 0)); return;
  case IR_LOP_VADD:
  case IR_LOP_VSUB:
  case IR_LOP_VMUL:
  case IR_LOP_VDIV: {
    static const char *ops[] = {"+", "-", "*", "/"};
    const char *args[2] = {A(e, in, 0), A(e, in, 1)};
    emit_map(e, out, dt, d, 2, args, ops[in->op - IR_LOP_VADD]);
    return;
  }
  case IR_LOP_VNEG: {
    const char *args[1] = {A(e, in, 0)};
    emit_map(e, out, dt, d, 1, args, "neg");
    return;
  }
  case IR_LOP_VSCALE:
    for (int i = 0; i < (e->opt->scalar ? w : emit_vec_pad(w)); i++)
      if (e->opt->scalar) OUT("  %s = %s * %s;\n", emit_lane(e, d, i), A(e, in, 0), emit_lane(e, A(e, in, 1), i));
    if (!e->opt->scalar) {
      OUT("  %s = (%s){", d, emit_type(e, dt));
      for (int i = 0; i < emit_vec_pad(w); i++) OUT("%s%s", i ? ", " : "", A(e, in, 0));
      OUT("} * %s;\n", A(e, in, 1));
    }
    return;
  case IR_LOP_VSUM:
  case IR_LOP_VDOT: {
    int n = t0->width;
    const char *x = A(e, in, 0);
    if (in->op == IR_LOP_VDOT) {
      const char *vt = emit_type(e, t0);
      x = arena_printf(e->a, "p%d_", e->tmp++);
      if (e->opt->scalar) {
        OUT("  %s %s;\n", vt, x);
        for (int i = 0; i < n; i++)
          OUT("  %s = %s * %s;\n", emit_lane(e, x, i), emit_lane(e, A(e, in, 0), i), emit_lane(e, A(e, in, 1), i));
      } else {
        OUT("  %s %s = %s * %s;\n", vt, x, A(e, in, 0), A(e, in, 1));
      }
    }
    OUT("  %s = ", d);
    for (int i = 0; i < n; i++) OUT("%s%s", i ? " + " : "", emit_lane(e, x, i));
    OUT(";\n");
    return;
  }
  case IR_LOP_VINDEX: OUT("  %s = %s;\n", d, emit_lane(e, A(e, in, 0), in->imm[0])); return;
  case IR_LOP_VSPLAT:
  case IR_LOP_VCONS:
  case IR_LOP_VSLICE:
  case IR_LOP_TENSOR_TO_VEC: {
    /* lane i of the result as text */
    int n = w;
    const char *lanes[64];
    if (n > 64 && !e->opt->scalar) {
      emit_fail(e, "vector of %d lanes", n);
      return;
    }
    if (e->opt->scalar) {
      for (int i = 0; i < n; i++) {
        const char *src;
        if (in->op == IR_LOP_VSPLAT) src = A(e, in, 0);
        else if (in->op == IR_LOP_VCONS) src = A(e, in, i);
        else if (in->op == IR_LOP_VSLICE) src = emit_lane(e, A(e, in, 0), in->imm[0] + i);
        else src = comp(e, t0, A(e, in, 0), i);
        OUT("  %s = %s;\n", emit_lane(e, d, i), src);
      }
      return;
    }
    for (int i = 0; i < n; i++) {
      if (in->op == IR_LOP_VSPLAT) lanes[i] = A(e, in, 0);
      else if (in->op == IR_LOP_VCONS) lanes[i] = A(e, in, i);
      else if (in->op == IR_LOP_VSLICE) lanes[i] = emit_lane(e, A(e, in, 0), in->imm[0] + i);
      else lanes[i] = comp(e, t0, A(e, in, 0), i);
    }
    OUT("  %s = (%s){", d, emit_type(e, dt));
    for (int i = 0; i < emit_vec_pad(n); i++)
      OUT("%s%s", i ? ", " : "", i < n ? lanes[i] : (in->op == IR_LOP_VSPLAT ? lanes[0] : "0"));
    OUT("};\n");
    return;
  }
  case IR_LOP_VEC_TO_TENSOR:
    for (int i = 0; i < t0->width; i++)
      OUT("  %s = %s;\n", comp(e, dt, d, i), emit_lane(e, A(e, in, 0), i));
    return;
  case IR_LOP_HORNER: {
    /* c0 + x*(c1 + x*(... + x*cn)) */
    int n = in->nargs - 1;
    if (is_vec_ty(dt) && e->opt->scalar) {
      for (int l = 0; l < dt->width; l++) {
        OUT("  %s = ", emit_lane(e, d, l));
        for (int k = 0; k < n - 1; k++) OUT("%s + %s * (", emit_lane(e, A(e, in, k + 1), l), emit_lane(e, A(e, in, 0), l));
        OUT("%s", emit_lane(e, A(e, in, n), l));
        for (int k = 0; k < n - 1; k++) OUT(")");
        OUT(";\n");
      }
      return;
    }
    OUT("  %s = ", d);
    for (int k = 0; k < n - 1; k++) OUT("%s + %s * (", A(e, in, k + 1), A(e, in, 0));
    OUT("%s", A(e, in, n));
    for (int k = 0; k < n - 1; k++) OUT(")");
    OUT(";\n");
    return;
  }
  case IR_LOP_LOAD: OUT("  %s = *%s;%s\n", d, load_addr(e, in), load_off_use(e, in)); return;
  case IR_LOP_VLOAD:
    if (e->opt->scalar)
      OUT("  memcpy(%s.v, %s, %d * sizeof(dreal));%s\n", d, load_addr(e, in), w, load_off_use(e, in));
    else if (emit_vec_pad(w) == w)
      OUT("  memcpy(&%s, %s, %d * sizeof(dreal));%s\n", d, load_addr(e, in), w, load_off_use(e, in));
    else {
      /* a vec3 in a 4-lane vector: lane by lane with the padding zeroed, since
       * a 12-byte memcpy into the 16-byte vector goes through the stack (the
       * wide reload misses store forwarding) and leaves garbage, possibly
       * denormal, in the padding lane that the arithmetic still computes on;
       * vimg's colormap lookups spent a third of their update there */
      OUT("  { const dreal *p_ = %s; %s = (%s){", load_addr(e, in), d, emit_type(e, dt));
      for (int i = 0; i < emit_vec_pad(w); i++) {
        if (i < w) OUT("%sp_[%d]", i ? ", " : "", i);
        else OUT(", 0");
      }
      OUT("}; }%s\n", load_off_use(e, in));
    }
    return;
  case IR_LOP_IMG_TRANSFORM:
  case IR_LOP_IMG_TRANSLATE: {
    const char *src = in->op == IR_LOP_IMG_TRANSFORM ? (e->opt->double_real ? "W" : "Wf")
                                                      : (e->opt->double_real ? "t" : "tf");
    int n = ncomp(dt);
    for (int i = 0; i < n; i++) OUT("  %s = %s->%s[%d];\n", comp(e, dt, d, i), A(e, in, 0), src, i);
    return;
  }
  case IR_OP_INDEX_FAIL: { /* (i, n): the runtime keeps the first error of the run */
    IrCfgKind k = e->cfg->kind;
    bool strand = k == IR_CFG_START || k == IR_CFG_UPDATE || k == IR_CFG_STABILIZE;
    OUT("  drt_world_index_error(wrld->rt, %s, %d, %d, %d, (long long)%s, (long long)%s);\n",
        strand ? "drt_world_strand_id(wrld->rt, id)" : "-1", in->nimm > 0 ? in->imm[0] : 0,
        in->nimm > 1 ? in->imm[1] : 0, in->nimm > 2 ? in->imm[2] : 0, A(e, in, 0), A(e, in, 1));
    return;
  }
  case IR_LOP_PROBE_FAIL: {
    /* (name, img, n_0..n_{d-1}[, x_0..x_{d-1}]): the runtime formats the
     * message (rt_world.c) and keeps the first error of the run */
    int dim = in->args[1]->ty->dim, np = in->nargs - 2 - dim;
    IrCfgKind k = e->cfg->kind;
    bool strand = k == IR_CFG_START || k == IR_CFG_UPDATE || k == IR_CFG_STABILIZE;
    OUT("  { long long n_[3] = {");
    for (int a = 0; a < dim; a++) OUT("%s(long long)%s", a ? ", " : "", A(e, in, 2 + a));
    OUT("}; double x_[3] = {");
    for (int a = 0; a < np; a++) OUT("%s(double)%s", a ? ", " : "", A(e, in, 2 + dim + a));
    if (!np) OUT("0");
    OUT("};\n    drt_world_probe_error(wrld->rt, %s, %s, %d, %s->size, %d, n_, %s); }\n",
        strand ? "drt_world_strand_id(wrld->rt, id)" : "-1", A(e, in, 0), in->nimm ? in->imm[0] : 0, A(e, in, 1), dim,
        np ? "x_" : "NULL");
    return;
  }
  case IR_LOP_CLAMP_INDEX:
  case IR_LOP_MIRROR_INDEX:
  case IR_LOP_WRAP_INDEX:
    OUT("  %s = d_%s_index(%s, %s);\n", d,
        in->op == IR_LOP_CLAMP_INDEX ? "clamp" : in->op == IR_LOP_MIRROR_INDEX ? "mirror" : "wrap",
        A(e, in, 0), A(e, in, 1));
    return;
  default: break;
  }
  if (binop) {
    OUT("  %s = %s %s %s;\n", d, A(e, in, 0), binop, A(e, in, 1));
    return;
  }
  emit_fail(e, "operator %s is not supported by the C back end", ir_op_info(e->m->level, in->op)->name);
}

void emit_instr(EmitCtx *e, EmitBuf *out, IrInstr *in) {
  if (e->hooks.instr && e->hooks.instr(e, out, in)) return; /* a target's own printing */
  const char *d = in->dst ? emit_var(e, in->dst) : NULL;
  switch (in->kind) {
  case IR_I_OP: emit_op(e, out, in); return;
  case IR_I_LIT:
    switch (in->lit.kind) {
    case IR_LIT_BOOL: OUT("  %s = %s;\n", d, in->lit.b ? "true" : "false"); return;
    case IR_LIT_INT:
      if (in->lit.i == INT64_MIN) OUT("  %s = (dint)INT64_MIN;\n", d);
      else OUT("  %s = (dint)%" PRId64 "%s;\n", d, in->lit.i, e->opt->long_int ? "LL" : "");
      return;
    case IR_LIT_REAL: OUT("  %s = %s;\n", d, emit_real_lit(e, in->lit.r)); return;
    case IR_LIT_STRING: OUT("  %s = %s;\n", d, emit_string_lit(e, in->lit.s)); return;
    case IR_LIT_KERNEL: emit_fail(e, "a kernel literal reached the C back end"); return;
    }
    return;
  case IR_I_COPY: OUT("  %s = %s;\n", d, A(e, in, 0)); return;
  case IR_I_PHI: emit_fail(e, "a phi among the instructions"); return;
  case IR_I_GLOBAL_GET: OUT("  %s = wrld->%s;\n", d, emit_global_field(e, in->global)); return;
  case IR_I_GLOBAL_SET: OUT("  wrld->%s = %s;\n", emit_global_field(e, in->global), A(e, in, 0)); return;
  case IR_I_STATE_GET:
    /* `pos` of a sphere result's element: from the positions the query
     * returned (emit_c_sphere.c) */
    if (in->state && e->lay && in->nargs == 1 && emit_sphere_pos_get(e, out, in)) return;
    emit_state_access(e, out, in); /* emit_c_layout.c */
    return;
  case IR_I_STATE_SET: emit_state_access(e, out, in); return; /* emit_c_layout.c */
  }
  emit_fail(e, "unknown instruction kind %d", (int)in->kind);
}
