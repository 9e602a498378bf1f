/* ast_to_high_expr.c -- expressions to HighIR (contract: ast_to_high.c).
 *
 * Every translated value has the node's type *after* its coercion
 * (Expr.ty); the raw translation produces the type before it (own_ty) and
 * th_coerce converts (§3.3).
 */
#include <math.h>
#include <string.h>

#include "translate/ast_to_high_impl.h"

static const Type *own_ty(const Expr *e) { return e->coerce_from ? e->coerce_from : e->ty; }

static bool any_null(int n, IrVar *const *args) {
  for (int i = 0; i < n; i++)
    if (!args[i]) return true;
  return false;
}

/* The result of an emit that must succeed (the typechecker guarantees the
 * types): NULL means an inconsistency. */
static IrVar *need(Fn *f, IrVar *v, const char *what) {
  if (!v && f->cur && !f->t->failed)
    th_internal(f->t, arena_printf(f->t->a, "cannot translate %s", what));
  return v;
}

static bool is_field_var(const IrVar *v) { return v && v->ty && v->ty->kind == IR_TY_FIELD; }

static IrVar *op(Fn *f, int code, int n, IrVar *const *args) {
  if (!f->cur || any_null(n, args)) return NULL;
  /* In a field function's body the values that depend on x are fields
   * (field_func below); these operators have no field form. */
  for (int i = 0; f->t->ffunc && i < n; i++)
    if (is_field_var(args[i]) && !(code == IR_HOP_INSIDE && i == 1)) {
      th_unsupported(f->t, f->t->ffunc->init->span,
                     "this operation on the position of a field function");
      return NULL;
    }
  const IrOpInfo *info = ir_op_info(IR_HIGH, code);
  return need(f, ir_emit(f->cur, code, n, args), info ? info->name : "an operator");
}

static IrVar *op1(Fn *f, int code, IrVar *a) { return op(f, code, 1, &a); }
static IrVar *op2(Fn *f, int code, IrVar *a, IrVar *b) {
  IrVar *args[2] = {a, b};
  return op(f, code, 2, args);
}

IrVar *th_ein(Fn *f, const EinOp *e, const Type *res, int n, IrVar *const *args) {
  if (!f->cur || any_null(n, args)) return NULL;
  if (!e) {
    th_internal(f->t, "an EIN builder rejected its operand shapes");
    return NULL;
  }
  const IrType *ty = NULL;
  if (res && type_prune(res)->kind == TY_FIELD) ty = th_type(f->t, res);
  return need(f, ir_emit_ein(f->cur, NULL, e, ty, n, args), "an EIN operator");
}

static EinParam par(IrVar *v) { return th_param(v ? v->ty : NULL); }

/* ---- coercions ---------------------------------------------------------------------- */

IrVar *th_coerce(Fn *f, IrVar *v, const Type *from, const Type *to) {
  if (!v || !f->cur) return NULL;
  from = type_prune(from);
  to = type_prune(to);
  const IrType *want = th_type(f->t, to);
  if (!want || ir_type_equal(v->ty, want)) return v;
  /* a value of a field function's body that depends on x is a field where
   * the frontend typed a tensor (field_func): it keeps its field type */
  if (f->t->ffunc && is_field_var(v) && to->kind == TY_TENSOR) return v;
  if (from->kind == TY_INT && to->kind == TY_TENSOR) return op1(f, IR_OP_INT_TO_REAL, v);
  if (from->kind == TY_FIELD && to->kind == TY_FIELD) {
    /* continuity only: the identity operator with the declared type */
    EinParam p = par(v);
    EinIdx idx[EIN_MAX_RANK];
    for (int i = 0; i < p.rank; i++) idx[i] = ein_ivar(i);
    const EinOp *id = ein_op_new(f->t->ein, 1, &p, p.rank, p.shape, ein_field(f->t->ein, 0, p.rank, idx));
    return th_ein(f, id, to, 1, &v);
  }
  if (from->kind == TY_SEQ && to->kind == TY_SEQ) {
    const IrType *el = th_type(f->t, to->elem);
    if (!type_equal(from->elem, to->elem)) {
      if (from->len == TYPE_SEQ_DYNAMIC) {
        th_internal(f->t, "element coercion of a dynamic sequence");
        return NULL;
      }
      int n = from->len;
      IrVar **xs = ARENA_NEW_ARRAY(f->t->a, IrVar *, n > 0 ? n : 1);
      for (int i = 0; i < n; i++) {
        IrVar *x = op2(f, IR_OP_SEQ_INDEX, v, ir_emit_int(f->cur, i));
        xs[i] = th_coerce(f, x, from->elem, to->elem);
      }
      const IrType *fixed = ir_type_seq(f->t->m, el, n);
      v = n ? op(f, IR_OP_SEQ_CONS, n, xs)
            : ir_emit_op(f->cur, "seq", IR_OP_SEQ_CONS, fixed, 0, NULL, 0, NULL);
      if (!v) return NULL;
    }
    if (to->len == TYPE_SEQ_DYNAMIC && v->ty->len != IR_SEQ_DYNAMIC) {
      IrVar *empty = ir_emit_op(f->cur, "seq", IR_OP_SEQ_CONS, want, 0, NULL, 0, NULL);
      v = op2(f, IR_OP_SEQ_CONCAT, v, empty);
    }
    return v;
  }
  th_internal(f->t, "an unexpected coercion");
  return NULL;
}

/* ---- variables and kernels ------------------------------------------------------------ */

static const Kernel *kernel_of(Fn *f, const Expr *e, int depth);

static const Kernel *kernel_of_sym(Fn *f, Symbol *s, int depth) {
  if (!s || depth > 64) return NULL;
  if (s->kind == SYM_KERNEL) return s->kernel;
  if (th_is_choice(s)) return th_choice_kernel(f, s);
  if ((s->kind == SYM_GLOBAL || s->kind == SYM_CONST) && s->decl)
    return kernel_of(f, s->decl->init, depth + 1);
  /* locals and parameters of kernel type: recorded when bound */
  uint64_t key = (uint64_t)(uintptr_t)s ^ ((uint64_t)(unsigned)f->inst << 48);
  return th_map_get(&f->defs, key ^ 0x8000000000000000ULL);
}

static const Kernel *kernel_of(Fn *f, const Expr *e, int depth) {
  while (e && e->kind == E_PAREN) e = e->a;
  if (!e) return NULL;
  if (e->kind == E_VAR || e->kind == E_KERNEL_CONT) return kernel_of_sym(f, e->sym, depth);
  return NULL;
}

/* Remember the kernel bound to a local or parameter of kernel type (they
 * are immutable), so that `h#k` can be resolved statically. */
const Kernel *th_kernel_of(Fn *f, const Expr *e) { return kernel_of(f, e, 0); }

void th_bind_kernel_k(Fn *f, Symbol *s, const Kernel *k) {
  if (!k) return;
  uint64_t key = (uint64_t)(uintptr_t)s ^ ((uint64_t)(unsigned)f->inst << 48);
  th_map_put(f->t->a, &f->defs, key ^ 0x8000000000000000ULL, (void *)k);
}

void th_bind_kernel(Fn *f, Symbol *s, const Expr *init) {
  th_bind_kernel_k(f, s, kernel_of(f, init, 0));
}

/* A field function F(x) = e (§4.12) as a field value: e translated with x
 * bound to the identity field x ↦ x (IR_HOP_POSITION), so that every
 * operation on x is the lifted field operation (the EIN builders follow the
 * operands' IR types) and ∇ differentiates e symbolically; high_to_mid
 * turns probes of the position field into the position and its derivative
 * into δ. Like other field values it is translated again at every use. */
static IrVar *field_func(Fn *f, Symbol *s, Span sp) {
  Tr *t = f->t;
  Decl *d = s->decl;
  const Type *ft = type_prune(s->ty);
  if (t->depth > 64) {
    th_unsupported(t, sp, "field functions nested this deeply");
    return NULL;
  }
  if (!d || !d->init || ft->kind != TY_FIELD) {
    th_internal(t, "a field function without a body");
    return NULL;
  }
  int dim = ft->dim;
  IrVar *x = need(f, ir_emit_op(f->cur, "x", IR_HOP_POSITION, NULL, 0, NULL, 1, &dim),
                  "the position field");
  if (!x) return NULL;
  int saved = f->inst;
  Decl *saved_ff = t->ffunc;
  f->inst = t->next_inst++;
  t->ffunc = d;
  t->depth++;
  if (d->params.head && d->params.head->sym)
    th_write(f, th_slot_sym(f, d->params.head->sym), f->cur, x);
  IrVar *v = th_expr(f, d->init);
  t->depth--;
  t->ffunc = saved_ff;
  f->inst = saved;
  if (!v || !f->cur) return NULL;
  /* the declared type (continuity); a body that ignores x is a lifted constant */
  EinContext *c = t->ein;
  EinParam pv = par(v);
  EinIdx idx[EIN_MAX_RANK];
  for (int i = 0; i < pv.rank; i++) idx[i] = ein_ivar(i);
  const EinExpr *body = pv.kind == EIN_PARAM_FIELD
                            ? ein_field(c, 0, pv.rank, idx)
                            : ein_lift(c, ein_tensor(c, 0, pv.rank, idx));
  const EinOp *id = ein_op_new(c, 1, &pv, pv.rank, pv.shape, body);
  return need(f, ir_emit_ein(f->cur, NULL, id, th_type(t, s->ty), 1, &v), "a field function");
}

IrVar *th_var(Fn *f, Symbol *s, Span sp) {
  Tr *t = f->t;
  if (!s || !f->cur) return NULL;
  switch (s->kind) {
  case SYM_KERNEL: return ir_emit_kernel(f->cur, s->kernel, type_prune(s->ty)->cont);
  case SYM_CONST:
    if (s->cval) return th_value(f, s->cval, th_type(t, s->ty));
    break;
  case SYM_GLOBAL:
  case SYM_INPUT:
    if (th_is_choice(s)) {
      const Kernel *k = th_choice_kernel(f, s);
      if (!k) {
        th_internal(t, "a kernel input used outside the copies of its choices");
        return NULL;
      }
      return ir_emit_kernel(f->cur, k, type_prune(s->ty)->cont);
    }
    if (!th_map_get(&t->globals, (uint64_t)(uintptr_t)s)) {
      /* a field, kernel or derived image: its definition, here */
      if (!s->decl || !s->decl->init || t->depth > 64) {
        th_internal(t, "a global without a definition");
        return NULL;
      }
      t->depth++;
      IrVar *v = th_expr(f, s->decl->init);
      t->depth--;
      return v;
    }
    break;
  case SYM_FIELD_FUNC: return field_func(f, s, sp);
  default: break;
  }
  int slot = th_slot_sym(f, s);
  return slot < 0 ? NULL : th_read(f, slot, f->cur);
}

/* ---- built-in operators and functions ----------------------------------------------------- */

static IrVar *pow_int(Fn *f, Expr *e, IrVar *x, Expr *ex) {
  int64_t n;
  if (const_int(&f->t->ce, ex, &n) && n >= -64 && n <= 64)
    return th_ein(f, eb_pow(f->t->ein, par(x), (int)n), own_ty(e), 1, &x);
  return NULL;
}

static IrVar *ival(Fn *f, int64_t v) { return f->cur ? ir_emit_int(f->cur, v) : NULL; }
static IrVar *sel(Fn *f, IrVar *c, IrVar *a, IrVar *b) {
  IrVar *args[3] = {c, a, b};
  return op(f, IR_OP_SELECT, 3, args);
}

/* a ^ n on ints (an extension; doc/language.md §5.2, const_int_pow is the
 * same rule): square and multiply with wrapping IMULs, for a constant n
 * over its bits, otherwise over all the bits of an int, unrolled (the
 * IR's operators only: no loop, no new back-end operator); n < 0 gives 1
 * for a = 1, ±1 for a = -1 and 0 otherwise. */
static IrVar *int_pow(Fn *f, IrVar *a, IrVar *n, Expr *ex) {
  int64_t k;
  bool known = const_int(&f->t->ce, ex, &k);
  IrVar *one = ival(f, 1);
  /* the reciprocal of a^|n| toward zero; odd: whether n is odd */
  IrVar *odd = known ? NULL : op2(f, IR_OP_NE, op2(f, IR_OP_IMOD, n, ival(f, 2)), ival(f, 0));
  if (known && k >= 0) {
    IrVar *r = one, *p = a;
    for (uint64_t m = (uint64_t)k; m; m >>= 1) {
      if (m & 1) r = r == one ? p : op2(f, IR_OP_IMUL, r, p);
      if (m > 1) p = op2(f, IR_OP_IMUL, p, p);
    }
    return r;
  }
  IrVar *mone = sel(f, known ? (k % 2 ? ir_emit_bool(f->cur, true) : ir_emit_bool(f->cur, false)) : odd,
                    ival(f, -1), one);
  IrVar *neg = sel(f, op2(f, IR_OP_EQ, a, one), one,
                   sel(f, op2(f, IR_OP_EQ, a, ival(f, -1)), mone, ival(f, 0)));
  if (known) return neg;
  int bits = f->t->opts->long_int ? 64 : 32;
  IrVar *r = one, *p = a, *m = n;
  for (int j = 0; j < bits; j++) {
    IrVar *bit = op2(f, IR_OP_NE, op2(f, IR_OP_IMOD, m, ival(f, 2)), ival(f, 0));
    r = sel(f, bit, op2(f, IR_OP_IMUL, r, p), r);
    if (j + 1 < bits) {
      p = op2(f, IR_OP_IMUL, p, p);
      m = op2(f, IR_OP_IDIV, m, ival(f, 2));
    }
  }
  return sel(f, op2(f, IR_OP_LT, n, ival(f, 0)), neg, r);
}

static int real_fun_op(BuiltinId id) {
  switch (id) {
  case BI_SQRT: return IR_OP_SQRT;
  case BI_COS: return IR_OP_COS;
  case BI_ACOS: return IR_OP_ACOS;
  case BI_SIN: return IR_OP_SIN;
  case BI_ASIN: return IR_OP_ASIN;
  case BI_TAN: return IR_OP_TAN;
  case BI_ATAN: return IR_OP_ATAN;
  case BI_EXP: return IR_OP_EXP;
  case BI_CEIL: return IR_OP_CEIL;
  case BI_FLOOR: return IR_OP_FLOOR;
  case BI_ROUND: return IR_OP_ROUND;
  case BI_TRUNC: return IR_OP_TRUNC;
  case BI_ERF: return IR_OP_ERF;
  case BI_ERFC: return IR_OP_ERFC;
  case BI_LOG: return IR_OP_LOG;
  case BI_LOG10: return IR_OP_LOG10;
  case BI_LOG2: return IR_OP_LOG2;
  case BI_ATAN2: return IR_OP_ATAN2;
  case BI_POW: return IR_OP_POW;
  case BI_FMOD: return IR_OP_FMOD;
  default: return -1;
  }
}

static int field_fun(BuiltinId id, EinFun *fn) {
  switch (id) {
  case BI_SQRT_F: *fn = EIN_FUN_SQRT; return 1;
  case BI_COS_F: *fn = EIN_FUN_COS; return 1;
  case BI_ACOS_F: *fn = EIN_FUN_ACOS; return 1;
  case BI_SIN_F: *fn = EIN_FUN_SIN; return 1;
  case BI_ASIN_F: *fn = EIN_FUN_ASIN; return 1;
  case BI_TAN_F: *fn = EIN_FUN_TAN; return 1;
  case BI_ATAN_F: *fn = EIN_FUN_ATAN; return 1;
  case BI_EXP_F: *fn = EIN_FUN_EXP; return 1;
  default: return 0;
  }
}

/* The lifted form of a real function (for values of a field function's
 * body that depend on x). */
static int ffunc_fun(BuiltinId id, EinFun *fn) {
  switch (id) {
  case BI_SQRT: *fn = EIN_FUN_SQRT; return 1;
  case BI_COS: *fn = EIN_FUN_COS; return 1;
  case BI_ACOS: *fn = EIN_FUN_ACOS; return 1;
  case BI_SIN: *fn = EIN_FUN_SIN; return 1;
  case BI_ASIN: *fn = EIN_FUN_ASIN; return 1;
  case BI_TAN: *fn = EIN_FUN_TAN; return 1;
  case BI_ATAN: *fn = EIN_FUN_ATAN; return 1;
  case BI_EXP: *fn = EIN_FUN_EXP; return 1;
  case BI_LOG: *fn = EIN_FUN_LOG; return 1;
  default: return 0;
  }
}

/* Apply overload b to the (already translated) arguments. */
static IrVar *builtin(Fn *f, Expr *e, const Builtin *b, Expr **ax, IrVar **a, int n) {
  EinContext *c = f->t->ein;
  const Type *rt = own_ty(e);
  BuiltinId id = b->id;
  EinFun fn;
  if (n == 1 && is_field_var(a[0]) && ffunc_fun(id, &fn)) /* x-dependent, in a field function */
    return th_ein(f, eb_fun(c, fn, par(a[0])), rt, 1, a);
  if (id == BI_INV_R && is_field_var(a[0])) return th_ein(f, eb_inv(c, par(a[0])), rt, 1, a);
  int code = real_fun_op(id);
  if (code >= 0) return op(f, code, n, a);
  if (field_fun(id, &fn)) return th_ein(f, eb_fun(c, fn, par(a[0])), rt, 1, a);
  switch (id) {
  case BI_ADD_II: return op(f, IR_OP_IADD, 2, a);
  case BI_SUB_II: return op(f, IR_OP_ISUB, 2, a);
  case BI_MUL_II: return op(f, IR_OP_IMUL, 2, a);
  case BI_DIV_II: return op(f, IR_OP_IDIV, 2, a);
  case BI_MOD_II: return op(f, IR_OP_IMOD, 2, a);
  case BI_NEG_I: return op(f, IR_OP_INEG, 1, a);
  case BI_NORM_I: return op(f, IR_OP_IABS, 1, a);
  case BI_ADD_TT: case BI_ADD_FF: case BI_ADD_FT: case BI_ADD_TF:
    return th_ein(f, eb_add(c, par(a[0]), par(a[1])), rt, 2, a);
  case BI_SUB_TT: case BI_SUB_FF: case BI_SUB_FT: case BI_SUB_TF:
    return th_ein(f, eb_sub(c, par(a[0]), par(a[1])), rt, 2, a);
  case BI_NEG_T: case BI_NEG_F: return th_ein(f, eb_neg(c, par(a[0])), rt, 1, a);
  case BI_MUL_RR: case BI_MUL_RT: case BI_MUL_RF: case BI_MUL_SS: case BI_MUL_SF:
  case BI_MUL_ST:
    return th_ein(f, eb_scale(c, par(a[0]), par(a[1])), rt, 2, a);
  case BI_MUL_TR: case BI_MUL_FR: case BI_MUL_FS: case BI_MUL_TS:
    return th_ein(f, eb_scale_right(c, par(a[0]), par(a[1])), rt, 2, a);
  case BI_DIV_RR: case BI_DIV_TR: case BI_DIV_FR: case BI_DIV_SS: case BI_DIV_FS:
  case BI_DIV_TS:
    return th_ein(f, eb_div(c, par(a[0]), par(a[1])), rt, 2, a);
  case BI_POW_RI: {
    IrVar *v = n == 2 ? pow_int(f, e, a[0], ax[1]) : NULL;
    return v ? v : op(f, IR_OP_POWI, 2, a);
  }
  case BI_POW_RR: return op(f, IR_OP_POW, 2, a);
  case BI_POW_II: return n == 2 ? int_pow(f, a[0], a[1], ax[1]) : NULL;
  case BI_POW_SI: return need(f, pow_int(f, e, a[0], ax[1]), "a field power");
  case BI_APPEND: return op(f, IR_OP_SEQ_APPEND, 2, a);
  case BI_PREPEND: return op(f, IR_OP_SEQ_PREPEND, 2, a);
  case BI_CONCAT: return op(f, IR_OP_SEQ_CONCAT, 2, a);
  case BI_NORM_T: case BI_NORM_F: return th_ein(f, eb_norm(c, par(a[0])), rt, 1, a);
  case BI_LT_II: case BI_LT_RR: return op(f, IR_OP_LT, 2, a);
  case BI_LE_II: case BI_LE_RR: return op(f, IR_OP_LE, 2, a);
  case BI_GT_II: case BI_GT_RR: return op(f, IR_OP_GT, 2, a);
  case BI_GE_II: case BI_GE_RR: return op(f, IR_OP_GE, 2, a);
  case BI_EQ_BB: case BI_EQ_II: case BI_EQ_SS: case BI_EQ_RR: return op(f, IR_OP_EQ, 2, a);
  case BI_NE_BB: case BI_NE_II: case BI_NE_SS: case BI_NE_RR: return op(f, IR_OP_NE, 2, a);
  case BI_NOT: return op(f, IR_OP_NOT, 1, a);
  case BI_DOT: return th_ein(f, eb_contract(c, par(a[0]), par(a[1]), 1), rt, 2, a);
  case BI_OUTER: return th_ein(f, eb_contract(c, par(a[0]), par(a[1]), 0), rt, 2, a);
  case BI_DDOT: return th_ein(f, eb_contract(c, par(a[0]), par(a[1]), 2), rt, 2, a);
  case BI_CROSS2_TT: case BI_CROSS3_TT: case BI_CROSS2_FF: case BI_CROSS3_FF:
  case BI_CROSS2_FT: case BI_CROSS2_TF: case BI_CROSS3_FT: case BI_CROSS3_TF:
    return th_ein(f, eb_cross(c, par(a[0]), par(a[1])), rt, 2, a);
  case BI_CONVOLVE_IK: return op(f, IR_HOP_CONVOLVE, 2, a);
  case BI_CONVOLVE_KI: return op2(f, IR_HOP_CONVOLVE, a[1], a[0]);
  case BI_GRAD: return th_ein(f, eb_grad(c, par(a[0])), rt, 1, a);
  case BI_JACOBIAN: return th_ein(f, eb_jacobian(c, par(a[0])), rt, 1, a);
  case BI_DIVERGENCE: return th_ein(f, eb_divergence(c, par(a[0])), rt, 1, a);
  case BI_CURL2: case BI_CURL3: return th_ein(f, eb_curl(c, par(a[0])), rt, 1, a);
  case BI_TRACE_T: case BI_TRACE_F: return th_ein(f, eb_trace(c, par(a[0])), rt, 1, a);
  case BI_TRANSPOSE_T: case BI_TRANSPOSE_F:
    return th_ein(f, eb_transpose(c, par(a[0])), rt, 1, a);
  case BI_DET2: case BI_DET3: case BI_DET2_F: case BI_DET3_F:
    return th_ein(f, eb_det(c, par(a[0])), rt, 1, a);
  case BI_INV_R: case BI_INV2: case BI_INV3: return op(f, IR_OP_INV, 1, a);
  case BI_INV_S: case BI_INV2_F: case BI_INV3_F: return th_ein(f, eb_inv(c, par(a[0])), rt, 1, a);
  case BI_NORMALIZE_T: case BI_NORMALIZE_F:
    return th_ein(f, eb_normalize(c, par(a[0])), rt, 1, a);
  case BI_MODULATE_TT: case BI_MODULATE_FF: case BI_MODULATE_TF: case BI_MODULATE_FT:
    return th_ein(f, eb_modulate(c, par(a[0]), par(a[1])), rt, 2, a);
  case BI_LERP3: case BI_CLERP3: case BI_LERP5: case BI_CLERP5: {
    const EinOp *l = n == 3 ? eb_lerp3(c, par(a[0]), par(a[1]), par(a[2]))
                            : eb_lerp5(c, par(a[0]), par(a[1]), par(a[2]), par(a[3]), par(a[4]));
    IrVar *v = th_ein(f, l, rt, n, a);
    if (id == BI_LERP3 || id == BI_LERP5) return v;
    IrVar *cl[3] = {a[0], a[1], v};
    return op(f, IR_OP_CLAMP, 3, cl);
  }
  case BI_CLAMP_RRT: case BI_CLAMP_TTT: return op(f, IR_OP_CLAMP, 3, a);
  case BI_CLAMP_IMG: return op(f, IR_HOP_BORDER_CLAMP, 1, a);
  case BI_MIRROR: return op(f, IR_HOP_BORDER_MIRROR, 1, a);
  case BI_WRAP: return op(f, IR_HOP_BORDER_WRAP, 1, a);
  case BI_SIZE: return op(f, IR_OP_IMAGE_SIZE, 1, a);
  case BI_WORLD_MIN: return op(f, IR_OP_IMAGE_WORLD_MIN, 1, a);
  case BI_WORLD_MAX: return op(f, IR_OP_IMAGE_WORLD_MAX, 1, a);
  case BI_SAMPLE_MIN: return op(f, IR_OP_IMAGE_SAMPLE_MIN, 1, a);
  case BI_SAMPLE_MAX: return op(f, IR_OP_IMAGE_SAMPLE_MAX, 1, a);
  case BI_MIN_II: case BI_MIN_RR: return op(f, IR_OP_MIN, 2, a);
  case BI_MAX_II: case BI_MAX_RR: return op(f, IR_OP_MAX, 2, a);
  case BI_EVALS2: case BI_EVALS3: return op(f, IR_OP_EVALS, 1, a);
  case BI_EVECS2: case BI_EVECS3: return op(f, IR_OP_EVECS, 1, a);
  case BI_EVALS2_F: case BI_EVALS3_F: return op(f, IR_HOP_FIELD_EVALS, 1, a);
  case BI_EVECS2_F: case BI_EVECS3_F: return op(f, IR_HOP_FIELD_EVECS, 1, a);
  case BI_REAL: return op(f, IR_OP_INT_TO_REAL, 1, a);
  case BI_INSIDE: return op(f, IR_HOP_INSIDE, 2, a);
  case BI_LENGTH: return op(f, IR_OP_SEQ_LENGTH, 1, a);
  case BI_NUM_STRANDS: return op(f, IR_OP_NUM_STRANDS, 0, NULL);
  case BI_NUM_ACTIVE: return op(f, IR_OP_NUM_ACTIVE, 0, NULL);
  case BI_NUM_STABLE: return op(f, IR_OP_NUM_STABLE, 0, NULL);
  case BI_MIN_SEQ_I: case BI_MIN_SEQ_R: return op(f, IR_OP_RED_MIN, 1, a);
  case BI_MAX_SEQ_I: case BI_MAX_SEQ_R: return op(f, IR_OP_RED_MAX, 1, a);
  case BI_ALL: return op(f, IR_OP_RED_ALL, 1, a);
  case BI_EXISTS: return op(f, IR_OP_RED_EXISTS, 1, a);
  case BI_SUM_I: case BI_SUM_R: return op(f, IR_OP_RED_SUM, 1, a);
  case BI_PRODUCT_I: case BI_PRODUCT_R: return op(f, IR_OP_RED_PRODUCT, 1, a);
  case BI_MEAN: return op(f, IR_OP_RED_MEAN, 1, a);
  case BI_SPHERE:
    /* sphere(r) is centred on the caller's pos as it is at the query, which
     * a strand may have moved earlier in this method (as the original
     * compiler does; the particle examples depend on it): sphere(pos, r) */
    if (n == 1 && f->t->strand && f->t->strand->pos) {
      IrVar *at[2] = {th_var(f, f->t->strand->pos, e->span), a[0]};
      if (!at[0]) return NULL;
      return op(f, IR_OP_SPHERE_AT, 2, at);
    }
    return op(f, n == 1 ? IR_OP_SPHERE : IR_OP_SPHERE_AT, n, a);
  default: break;
  }
  th_unsupported(f->t, e->span, arena_printf(f->t->a, "the built-in '%s'", b->name));
  return NULL;
}

static IrVar *apply_builtin(Fn *f, Expr *e, Expr **ax, int n) {
  const Builtin *b = e->builtin;
  if (!b) {
    th_internal(f->t, "an operator without a resolved overload");
    return NULL;
  }
  /* reductions over comprehensions are loops (or strand-set reductions) */
  if ((b->flags & BF_REDUCE) && n == 1) {
    const Expr *x = ax[0];
    while (x && x->kind == E_PAREN) x = x->a;
    if (x && x->kind == E_COMPREHENSION && !ax[0]->coerce_from) return th_reduce(f, (Expr *)x, b->id);
  }
  IrVar *a[16];
  if (n > 16) n = 16;
  for (int i = 0; i < n; i++)
    if (!(a[i] = th_expr(f, ax[i]))) return NULL;
  return builtin(f, e, b, ax, a, n);
}

static int collect_args(ExprList *l, Expr **out, int max) {
  int n = 0;
  for (Expr *x = l->head; x && n < max; x = x->next) out[n++] = x;
  return n;
}

/* ---- special forms -------------------------------------------------------------------------- */

/* a && b, a || b: branches and a phi (§4.2). */
static IrVar *logic(Fn *f, Expr *e) {
  IrVar *c = th_expr(f, e->a);
  if (!c || !f->cur) return NULL;
  bool is_and = e->op == OP_AND;
  IrVar *shortv = ir_emit_bool(f->cur, !is_and);
  IrBlock *from = f->cur, *rhs = th_block(f, is_and ? "and" : "or"), *join = th_block(f, "join");
  if (is_and) ir_block_set_branch(from, c, rhs, join);
  else ir_block_set_branch(from, c, join, rhs);
  th_seal(f, rhs);
  f->cur = rhs;
  IrVar *r = th_expr(f, e->b);
  IrBlock *rend = f->cur;
  th_jump(f, join);
  th_seal(f, join);
  f->cur = join;
  IrVar *phi = ir_phi_new(join, is_and ? "and" : "or", ir_type_bool(f->t->m));
  ir_phi_set(phi->def, from, shortv);
  if (rend) ir_phi_set(phi->def, rend, r);
  return r ? phi : NULL;
}

static IrVar *cond_expr(Fn *f, Expr *e) {
  IrVar *c = th_expr(f, e->c);
  if (!c || !f->cur) return NULL;
  IrBlock *tb = th_block(f, "then"), *eb = th_block(f, "else"), *join = th_block(f, "join");
  ir_block_set_branch(f->cur, c, tb, eb);
  th_seal(f, tb);
  th_seal(f, eb);
  f->cur = tb;
  IrVar *x = th_expr(f, e->a);
  IrBlock *tend = f->cur;
  th_jump(f, join);
  f->cur = eb;
  IrVar *y = th_expr(f, e->b);
  IrBlock *eend = f->cur;
  th_jump(f, join);
  th_seal(f, join);
  if (!x || !y || !tend || !eend) {
    f->cur = join->npreds ? join : NULL;
    return NULL;
  }
  if (f->t->ffunc && (is_field_var(x) || is_field_var(y))) { /* x-dependent */
    th_unsupported(f->t, e->span, "a conditional on the position of a field function");
    return NULL;
  }
  f->cur = join;
  IrVar *phi = ir_phi_new(join, "cond", th_type(f->t, own_ty(e)));
  ir_phi_set(phi->def, tend, x);
  ir_phi_set(phi->def, eend, y);
  return phi;
}

static IrVar *probe(Fn *f, Expr *e) {
  Expr *x = e->args.head;
  IrVar *F = th_expr(f, e->a);
  IrVar *pos = x ? th_expr(f, x) : NULL;
  if (!F || !pos) return NULL;
  if (is_field_var(pos)) { /* F(x) in a field function's body: a composition */
    th_unsupported(f->t, e->span, "probing a field at the position of a field function");
    return NULL;
  }
  IrVar *a[2] = {F, pos};
  return th_ein(f, eb_probe(f->t->ein, par(F)), own_ty(e), 2, a);
}

/* b(img) of a border input b: the border control of the copy being
 * translated (ast_to_high_choice.c binds it). */
static IrVar *border_apply(Fn *f, Expr *e) {
  const int *code = th_choice_bound(f, e->sym);
  if (!code || e->args.len != 1) {
    th_internal(f->t, "a border input used outside the copies of its choices");
    return NULL;
  }
  IrVar *img = th_expr(f, e->args.head);
  if (!img || !f->cur) return NULL;
  IrVar *v = ir_emit(f->cur, *code, 1, &img);
  if (!v) th_internal(f->t, "the border control of a border input");
  return v;
}

static IrVar *apply(Fn *f, Expr *e) {
  Symbol *s = e->sym;
  const Type *ct = e->a ? type_prune(e->a->ty) : NULL;
  if (ct && ct->kind == TY_FIELD) return probe(f, e); /* also F(p) of a field function F */
  if (s && s->kind == SYM_FUNC) return th_inline_call(f, e);
  if (th_is_choice(s)) return border_apply(f, e); /* b(img) of a border input */
  Expr *ax[16];
  int n = collect_args(&e->args, ax, 16);
  return apply_builtin(f, e, ax, n);
}

/* 0 <= i < n or not at all: inside, the current block goes on; outside,
 * the unit records a run-time error naming the position at `at`, the
 * index and n (what: INDEX_FAIL's kind, 0 a sequence, 1 a tensor axis)
 * and leaves (IR_T_ERROR), as a probe outside its image does. */
static bool index_check(Fn *f, Span at, IrVar *i, IrVar *n, int what) {
  bool nonneg = i->def && i->def->kind == IR_I_LIT && i->def->lit.i >= 0;
  IrVar *ok = nonneg ? op2(f, IR_OP_LT, i, n)
                     : op2(f, IR_OP_AND, op2(f, IR_OP_GE, i, ir_emit_int(f->cur, 0)), op2(f, IR_OP_LT, i, n));
  if (!ok) return false;
  IrBlock *in = th_block(f, "index_ok"), *out = th_block(f, "index_outside");
  ir_block_set_branch(f->cur, ok, in, out);
  th_seal(f, in);
  th_seal(f, out);
  IrVar *args[2] = {i, n};
  int imm[3] = {at.begin.line, at.begin.col, what};
  if (!need(f, ir_emit_effect(out, IR_OP_INDEX_FAIL, 2, args, 3, imm) ? i : NULL, "an index check"))
    return false;
  ir_block_set_exit(out, IR_T_ERROR);
  f->cur = in;
  return true;
}

/* s[i] reads inside s or not at all: unless i is a literal inside a
 * fixed-size s, 0 <= i < length(s) is checked (index_check). The language
 * leaves s[i] undefined there (doc/language.md §5.6; the original compiler
 * reads out of bounds). */
static IrVar *seq_subscript(Fn *f, Expr *e, IrVar *base, IrVar *i) {
  if (!i || !f->cur) return NULL;
  int len = base->ty->kind == IR_TY_SEQ ? base->ty->len : IR_SEQ_DYNAMIC;
  if (i->def && i->def->kind == IR_I_LIT && len != IR_SEQ_DYNAMIC && i->def->lit.i >= 0 &&
      i->def->lit.i < len)
    return op2(f, IR_OP_SEQ_INDEX, base, i);
  IrVar *n = op1(f, IR_OP_SEQ_LENGTH, base);
  if (!n || !index_check(f, e->span, i, n, 0)) return NULL;
  return op2(f, IR_OP_SEQ_INDEX, base, i);
}

/* a[..] with int expressions among the indices (an extension,
 * doc/language.md §5.6): after the checks of every such index against its
 * axis (index_check), the slice of constant indices it equals, chosen by
 * comparisons as `i == 0 ? a[0] : i == 1 ? a[1] : ... a[n-1]` (per axis,
 * outermost first), joined by phis. Only the IR's branches and EIN
 * slices: no new operator, so every target has it. */
typedef struct Pick {
  IrVar *base;
  const Type *res;
  const int *dims;
  int order;
  IrVar *dyn[EIN_MAX_RANK]; /* the index of axis p, NULL where constant or ':' */
  int idx[EIN_MAX_RANK];    /* the constant (or -1 for ':') of each axis */
} Pick;

static IrVar *pick_axis(Fn *f, Pick *pk, int p);

static IrVar *pick(Fn *f, Pick *pk, int p) {
  while (p < pk->order && !pk->dyn[p]) p++;
  if (p == pk->order) return th_ein(f, eb_slice(f->t->ein, par(pk->base), pk->idx), pk->res, 1, &pk->base);
  pk->idx[p] = 0;
  return pick_axis(f, pk, p);
}

/* axis p, index values idx[p] .. dims[p]-1 (one branch per value) */
static IrVar *pick_axis(Fn *f, Pick *pk, int p) {
  int k = pk->idx[p];
  if (k == pk->dims[p] - 1) return pick(f, pk, p + 1);
  IrVar *c = op2(f, IR_OP_EQ, pk->dyn[p], ir_emit_int(f->cur, k));
  if (!c) return NULL;
  IrBlock *tb = th_block(f, "pick"), *eb = th_block(f, "pick_next"), *join = th_block(f, "picked");
  ir_block_set_branch(f->cur, c, tb, eb);
  th_seal(f, tb);
  th_seal(f, eb);
  f->cur = tb;
  IrVar *x = pick(f, pk, p + 1);
  IrBlock *tend = f->cur;
  th_jump(f, join);
  f->cur = eb;
  pk->idx[p] = k + 1;
  IrVar *y = pick_axis(f, pk, p);
  IrBlock *eend = f->cur;
  th_jump(f, join);
  th_seal(f, join);
  f->cur = join;
  if (!x || !y || !tend || !eend) return NULL;
  IrVar *phi = ir_phi_new(join, "picked", th_type(f->t, pk->res));
  ir_phi_set(phi->def, tend, x);
  ir_phi_set(phi->def, eend, y);
  return phi;
}

static IrVar *subscript(Fn *f, Expr *e) {
  IrVar *base = th_expr(f, e->a);
  if (!base) return NULL;
  const Type *bt = type_prune(e->a->ty);
  if (bt->kind == TY_SEQ) return seq_subscript(f, e, base, th_expr(f, e->args.head));
  Pick pk = {.base = base, .res = own_ty(e), .dims = bt->shape.dims, .order = 0};
  bool dynamic = false;
  for (Expr *x = e->args.head; x && pk.order < EIN_MAX_RANK; x = x->next, pk.order++) {
    int64_t v = -1;
    pk.dyn[pk.order] = NULL;
    if (x->kind != E_SLICE_ALL && !const_int(&f->t->ce, x, &v)) {
      if (bt->kind != TY_TENSOR || (f->t->ffunc && is_field_var(base))) {
        th_unsupported(f->t, x->span, "a non-constant index of this value");
        return NULL;
      }
      IrVar *i = th_expr(f, x);
      if (!i || !f->cur) return NULL;
      IrVar *n = ir_emit_int(f->cur, bt->shape.dims[pk.order]);
      if (!index_check(f, x->span, i, n, 1)) return NULL;
      pk.dyn[pk.order] = i;
      dynamic = true;
    }
    pk.idx[pk.order] = (int)v;
  }
  if (!dynamic) return th_ein(f, eb_slice(f->t->ein, par(base), pk.idx), pk.res, 1, &base);
  return pick(f, &pk, 0);
}

/* [a_0, ..., a_{n-1}] in a field function's body where some elements
 * depend on x (fields) and the others are tensors (lifted):
 * λ⟨Σ_k δ_{i,k} a_k[α]⟩. */
static IrVar *mixed_cons(Fn *f, Expr *e, int n, IrVar **a) {
  EinContext *c = f->t->ein;
  EinParam ps[8];
  const EinExpr *terms[8];
  int rank = par(a[0]).rank;
  if (n > 8 || rank + 1 > EIN_MAX_RANK) {
    th_unsupported(f->t, e->span, "a tensor of more than 8 values of a field function's x");
    return NULL;
  }
  EinIdx al[EIN_MAX_RANK];
  for (int i = 0; i < rank; i++) al[i] = ein_ivar(i + 1);
  for (int k = 0; k < n; k++) {
    ps[k] = par(a[k]);
    const EinExpr *x = ps[k].kind == EIN_PARAM_FIELD ? ein_field(c, k, rank, al)
                                                     : ein_lift(c, ein_tensor(c, k, rank, al));
    terms[k] = ein_mul2(c, ein_delta(c, ein_ivar(0), ein_icon(k)), x);
  }
  int sg[EIN_MAX_RANK];
  sg[0] = n;
  for (int i = 0; i < rank; i++) sg[i + 1] = ps[0].shape[i];
  const EinOp *cons = ein_op_new(c, n, ps, rank + 1, sg, ein_add(c, n, terms));
  return need(f, ir_emit_ein(f->cur, NULL, cons, NULL, n, a), "a tensor of fields");
}

static IrVar *tensor_cons(Fn *f, Expr *e) {
  int n = e->args.len;
  IrVar **a = ARENA_NEW_ARRAY(f->t->a, IrVar *, n > 0 ? n : 1);
  int i = 0;
  for (Expr *x = e->args.head; x; x = x->next)
    if (!(a[i++] = th_expr(f, x))) return NULL;
  if (type_prune(own_ty(e))->kind == TY_FIELD) {
    if (n > 8) {
      th_unsupported(f->t, e->span, "a field built from more than 8 fields");
      return NULL;
    }
    return th_ein(f, eb_cons(f->t->ein, n, par(a[0])), own_ty(e), n, a);
  }
  for (int k = 0; k < n; k++)
    if (is_field_var(a[k])) return mixed_cons(f, e, n, a);
  return op(f, IR_OP_TENSOR_CONS, n, a);
}

static IrVar *seq_cons(Fn *f, Expr *e) {
  int n = e->args.len;
  if (n == 0)
    return need(f, ir_emit_op(f->cur, "seq", IR_OP_SEQ_CONS, th_type(f->t, own_ty(e)), 0, NULL, 0, NULL),
                "an empty sequence");
  IrVar **a = ARENA_NEW_ARRAY(f->t->a, IrVar *, n);
  int i = 0;
  for (Expr *x = e->args.head; x; x = x->next)
    if (!(a[i++] = th_expr(f, x))) return NULL;
  return op(f, IR_OP_SEQ_CONS, n, a);
}

static IrVar *shape_form(Fn *f, Expr *e) {
  const Type *t = type_prune(own_ty(e));
  EinContext *c = f->t->ein;
  if (e->kind == E_IDENTITY) return th_ein(f, eb_identity(c, t->shape.dims[0]), t, 0, NULL);
  if (e->kind == E_ZEROS) return th_ein(f, eb_zeros(c, t->shape.order, t->shape.dims), t, 0, NULL);
  IrVar *nan = ir_emit_real(f->cur, NAN);
  if (t->shape.order == 0) return nan;
  return th_ein(f, eb_broadcast(c, t->shape.order, t->shape.dims), t, 1, &nan);
}

static IrVar *load(Fn *f, Expr *e) {
  if (e->kind == E_LOAD_IMAGE && e->sym) return th_var(f, e->sym, e->span); /* hidden global */
  const ConstValue *cv = e->a ? const_fold(&f->t->ce, e->a) : NULL;
  if (!cv || cv->kind != CV_STRING) {
    th_internal(f->t, "a load path that is not a constant string");
    return NULL;
  }
  IrVar *p = ir_emit_string(f->cur, cv->s);
  return need(f,
              ir_emit_op(f->cur, NULL, e->kind == E_LOAD_IMAGE ? IR_OP_LOAD_IMAGE : IR_OP_LOAD_SEQ,
                         th_type(f->t, own_ty(e)), 1, &p, 0, NULL),
              "a load");
}

static IrVar *int_literal(Fn *f, const Expr *e, bool neg) {
  int64_t v = 0;
  const_int_literal(e->tok.text ? e->tok.text : "0", f->t->opts->long_int, neg, &v);
  return ir_emit_int(f->cur, neg ? (int64_t)(0 - (uint64_t)v) : v);
}

static IrVar *raw(Fn *f, Expr *e) {
  switch (e->kind) {
  case E_VAR: return th_var(f, e->sym, e->span);
  case E_KERNEL_CONT: {
    const Kernel *k = kernel_of_sym(f, e->sym, 0);
    if (!k) {
      th_unsupported(f->t, e->span, "a kernel that is not known at compile time");
      return NULL;
    }
    return ir_emit_kernel(f->cur, k, type_prune(own_ty(e))->cont);
  }
  case E_INT: return int_literal(f, e, false);
  case E_REAL: return ir_emit_real(f->cur, e->tok.real);
  case E_STRING: return ir_emit_string(f->cur, e->tok.text ? e->tok.text : "");
  case E_BOOL: return ir_emit_bool(f->cur, e->bval);
  case E_BINARY: {
    if (e->op == OP_AND || e->op == OP_OR) return logic(f, e);
    if (e->op == OP_COMPOSE) return op2(f, IR_HOP_FIELD_COMPOSE, th_expr(f, e->a), th_expr(f, e->b));
    Expr *ax[2] = {e->a, e->b};
    return apply_builtin(f, e, ax, 2);
  }
  case E_UNARY: {
    const Expr *x = e->a;
    while (x && x->kind == E_PAREN) x = x->a;
    if (e->op == OP_NEG && x && x->kind == E_INT && !e->a->coerce_from && !x->coerce_from &&
        type_prune(own_ty(e))->kind == TY_INT)
      return int_literal(f, x, true);
    Expr *ax[1] = {e->a};
    return apply_builtin(f, e, ax, 1);
  }
  case E_NORM: {
    Expr *ax[1] = {e->a};
    return apply_builtin(f, e, ax, 1);
  }
  case E_COND: return cond_expr(f, e);
  case E_RANGE: return op2(f, IR_OP_RANGE, th_expr(f, e->a), th_expr(f, e->b));
  case E_APPLY: return apply(f, e);
  case E_SUBSCRIPT: return subscript(f, e);
  case E_SELECT: {
    if (!e->sym) {
      th_internal(f->t, "a strand set outside of a comprehension");
      return NULL;
    }
    IrVar *s = th_expr(f, e->a);
    IrStateVar *sv = th_map_get(&f->t->states, (uint64_t)(uintptr_t)e->sym);
    if (!s || !sv) return need(f, NULL, "a state selection");
    return ir_emit_state_get(f->cur, e->sym->name, sv, s);
  }
  case E_REAL_CONV: return op1(f, IR_OP_INT_TO_REAL, th_expr(f, e->a));
  case E_INT_CONV: {
    IrVar *x = th_expr(f, e->a);
    if (!x || !f->cur || x->ty->kind == IR_TY_INT) return x; /* int(i) is i */
    int bits = f->t->opts->long_int ? 64 : 32;
    return need(f, ir_emit_op(f->cur, NULL, IR_OP_TRUNC_TO_INT, NULL, 1, &x, 1, &bits), "trunc_to_int");
  }
  case E_LOAD_SEQ:
  case E_LOAD_IMAGE: return load(f, e);
  case E_IDENTITY:
  case E_ZEROS:
  case E_NAN: return shape_form(f, e);
  case E_SEQ: return seq_cons(f, e);
  case E_TENSOR: return tensor_cons(f, e);
  case E_COMPREHENSION: return th_comprehension(f, e);
  case E_PAREN: return th_expr(f, e->a);
  case E_SLICE_ALL: break;
  }
  th_internal(f->t, "an unexpected expression");
  return NULL;
}

IrVar *th_expr(Fn *f, Expr *e) {
  if (!e || !f->cur) return NULL;
  if (e->coerce_from && e->kind == E_INT && type_is_real(e->ty)) {
    int64_t v = 0;
    const_int_literal(e->tok.text ? e->tok.text : "0", f->t->opts->long_int, false, &v);
    return ir_emit_real(f->cur, (double)v);
  }
  IrVar *v = raw(f, e);
  if (!v || !e->coerce_from) return v;
  return th_coerce(f, v, e->coerce_from, e->ty);
}
