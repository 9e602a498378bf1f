/* ir_ops.c -- the operator tables of the three levels and their type rules. */
#include <stdarg.h>
#include <string.h>

#include "ir/ir.h"

/* ---- tables (generated from the .def files) ------------------------------------ */

#define VAR IR_VARIADIC
#define PURE IR_OPF_PURE
#define READ IR_OPF_READ
#define EFFECT IR_OPF_EFFECT
#define COMM IR_OPF_COMM
#define IR_OP(id, name, arity, rule, flags) {name, arity, IR_RULE_##rule, flags},

static const IrOpInfo high_ops[] = {
#include "ir/high_ops.def"
};
static const IrOpInfo mid_ops[] = {
#include "ir/mid_ops.def"
};
static const IrOpInfo low_ops[] = {
#include "ir/low_ops.def"
};

#undef IR_OP
#undef VAR
#undef PURE
#undef READ
#undef EFFECT
#undef COMM

/* Every level starts with the common list, so the numbers agree. */
_Static_assert((int)IR_HOP_INPUT_GIVEN == (int)IR_OP_INPUT_GIVEN &&
                   (int)IR_MOP_INPUT_GIVEN == (int)IR_OP_INPUT_GIVEN &&
                   (int)IR_LOP_INPUT_GIVEN == (int)IR_OP_INPUT_GIVEN &&
                   IR_OP_INPUT_GIVEN + 1 == IR_OP_COMMON_COUNT,
               "common operators must come first in every level's table");
_Static_assert(sizeof high_ops / sizeof *high_ops == IR_HOP_COUNT, "high table");
_Static_assert(sizeof mid_ops / sizeof *mid_ops == IR_MOP_COUNT, "mid table");
_Static_assert(sizeof low_ops / sizeof *low_ops == IR_LOP_COUNT, "low table");

static const IrOpInfo *table(IrLevel level, int *n) {
  switch (level) {
  case IR_HIGH: *n = IR_HOP_COUNT; return high_ops;
  case IR_MID: *n = IR_MOP_COUNT; return mid_ops;
  case IR_LOW: *n = IR_LOP_COUNT; return low_ops;
  }
  *n = 0;
  return NULL;
}

const IrOpInfo *ir_op_info(IrLevel level, int op) {
  int n;
  const IrOpInfo *t = table(level, &n);
  return t && op >= 0 && op < n ? &t[op] : NULL;
}

int ir_op_count(IrLevel level) {
  int n;
  table(level, &n);
  return n;
}

int ir_op_lookup(IrLevel level, const char *name) {
  int n;
  const IrOpInfo *t = table(level, &n);
  for (int i = 0; name && i < n; i++)
    if (strcmp(t[i].name, name) == 0) return i;
  return -1;
}

int ir_op_ein(IrLevel level) {
  switch (level) {
  case IR_HIGH: return IR_HOP_EIN;
  case IR_MID: return IR_MOP_EIN;
  case IR_LOW: return -1;
  }
  return -1;
}

const char *ir_level_name(IrLevel level) {
  switch (level) {
  case IR_HIGH: return "high";
  case IR_MID: return "mid";
  case IR_LOW: return "low";
  }
  return "?";
}

/* ---- rule helpers ------------------------------------------------------------------ */

typedef struct Ctx {
  IrModule *m;
  const IrInstr *in;
  const IrOpInfo *info;
  const IrType *given;
  char *err;
  size_t errlen;
} Ctx;

static int fail(Ctx *c, int kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(Ctx *c, int kind, const char *fmt, ...) {
  if (c->err && c->errlen) {
    int k = snprintf(c->err, c->errlen, "%s: ", c->info ? c->info->name : "?");
    if (k < 0) k = 0;
    if ((size_t)k < c->errlen) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(c->err + k, c->errlen - (size_t)k, fmt, ap);
      va_end(ap);
    }
  }
  return kind;
}

/* Argument i's type, written into the message of a type error. */
static int bad_arg(Ctx *c, int i, const char *want) {
  char buf[96];
  ir_type_snprint(buf, sizeof buf, c->in->args[i]->ty);
  return fail(c, IR_CHK_TYPE, "argument %d has type %s, expected %s", i + 1, buf, want);
}

static const IrType *ty(const Ctx *c, int i) { return c->in->args[i]->ty; }
static bool is_kind(const IrType *t, IrTypeKind k) { return t && t->kind == k; }
static bool is_real(const IrType *t) { return ir_type_is_real(t); }
static bool is_int(const IrType *t) { return ir_type_is_int(t); }
static bool is_bool(const IrType *t) { return ir_type_is_bool(t); }
static bool is_num(const IrType *t) { return is_int(t) || is_real(t); }
static bool is_seq(const IrType *t) { return is_kind(t, IR_TY_SEQ); }
static bool is_dyn_seq(const IrType *t) { return is_seq(t) && t->len == IR_SEQ_DYNAMIC; }

/* tensor[d] after normalisation: real when d == 1. */
static bool is_vec_of(const IrType *t, int d) {
  if (!is_kind(t, IR_TY_TENSOR)) return false;
  return d == 1 ? t->order == 0 : (t->order == 1 && t->dims[0] == d);
}

static const IrType *vec_type(IrModule *m, int d) { return ir_type_tensor(m, 1, &d); }

/* A position for a query in dimension 1..3 (real, tensor[2], tensor[3]). */
static int pos_dim(const IrType *t) {
  if (is_real(t)) return 1;
  if (is_kind(t, IR_TY_TENSOR) && t->order == 1 && t->dims[0] <= 3) return t->dims[0];
  return 0;
}

static bool same_shape(int order, const int *dims, const IrType *t) {
  if (t->order != order) return false;
  for (int i = 0; i < order; i++)
    if (dims[i] != t->dims[i]) return false;
  return true;
}

/* How many immediates each rule takes (-1: checked by the rule). */
static int rule_imm(IrRule r) {
  switch (r) {
  case IR_RULE_TENSOR_INDEX: return -1;
  case IR_RULE_LOAD_VOXELS:
  case IR_RULE_KERNEL_EVAL:
  case IR_RULE_STRAND_REDUCE:
  case IR_RULE_VSLICE: return 2;
  case IR_RULE_INSIDE_IMAGE:
  case IR_RULE_POSITION:
  case IR_RULE_INPUT_GIVEN:
  case IR_RULE_VINDEX:
  case IR_RULE_VSPLAT:
  case IR_RULE_VLOAD:
  case IR_RULE_PROBE_FAIL: return 1; /* the source line */
  case IR_RULE_INDEX_FAIL: return 3; /* the source line and column, sequence (0) or tensor (1) */
  case IR_RULE_TRUNC_TO_INT: return 1; /* the bits of int */
  default: return 0;
  }
}

static bool support_ok(int s) { return s >= 1 && s <= KERNEL_MAX_SUPPORT; }

/* ---- EIN ------------------------------------------------------------------------ */

static int rule_ein(Ctx *c, const IrType **res) {
  const EinOp *e = c->in->ein;
  if (!e) return fail(c, IR_CHK_TYPE, "no EIN operator attached");
  if (c->in->nargs != e->nparams)
    return fail(c, IR_CHK_ARITY, "%d arguments for %d parameters", c->in->nargs, e->nparams);
  IrModule *m = c->m;
  int fdim = 0, cont = IR_CONT_INF;
  for (int i = 0; i < e->nparams; i++) {
    const EinParam *p = &e->params[i];
    const IrType *t = ty(c, i);
    int nd[EIN_MAX_RANK], n = 0;
    for (int k = 0; k < p->rank && k < EIN_MAX_RANK; k++)
      if (p->shape[k] != 1) nd[n++] = p->shape[k];
    switch (p->kind) {
    case EIN_PARAM_TENSOR:
      if (!is_kind(t, IR_TY_TENSOR) || !same_shape(n, nd, t))
        return bad_arg(c, i, "a tensor of the parameter's shape");
      break;
    case EIN_PARAM_FIELD:
      if (m->level != IR_HIGH) return fail(c, IR_CHK_LEVEL, "field parameter below HighIR");
      if (!is_kind(t, IR_TY_FIELD) || t->dim != p->dim || !same_shape(n, nd, t))
        return bad_arg(c, i, "a field of the parameter's dimension and shape");
      if (t->cont < cont) cont = t->cont;
      if (!fdim) fdim = p->dim;
      break;
    case EIN_PARAM_IMAGE:
      if (!is_kind(t, IR_TY_IMAGE) || t->dim != p->dim || !same_shape(n, nd, t))
        return bad_arg(c, i, "an image of the parameter's dimension and shape");
      if (!fdim) fdim = p->dim;
      break;
    case EIN_PARAM_KERNEL:
      if (!is_kind(t, IR_TY_KERNEL)) return bad_arg(c, i, "a kernel");
      if (t->cont < cont) cont = t->cont;
      break;
    }
  }
  bool field = e->body && (e->body->flags & EIN_FL_FIELD);
  if (!field) {
    *res = ir_type_tensor(m, e->nsigma, e->sigma);
    return *res ? IR_CHK_OK : fail(c, IR_CHK_TYPE, "bad result shape");
  }
  if (m->level != IR_HIGH) return fail(c, IR_CHK_LEVEL, "field-valued EIN operator below HighIR");
  const IrType *g = c->given;
  /* a lifted constant (no field or image parameter): the declared field
   * type gives the dimension (e.g. a field function whose body ignores x) */
  if (!fdim && g && g->kind == IR_TY_FIELD) fdim = g->dim;
  if (!fdim) return fail(c, IR_CHK_TYPE, "field result without field or image parameters");
  if (g) {
    const IrType *want = ir_type_field(m, g->kind == IR_TY_FIELD ? g->cont : 0, fdim, e->nsigma,
                                       e->sigma);
    if (!is_kind(g, IR_TY_FIELD) || !ir_type_equal(g, want))
      return fail(c, IR_CHK_TYPE, "result is not a field(%d) of the operator's shape", fdim);
    *res = g;
    return IR_CHK_OK;
  }
  /* No declared type: the smallest continuity of the inputs (derivatives
   * inside the operator are not accounted for; give the type to be exact). */
  *res = ir_type_field(m, cont, fdim, e->nsigma, e->sigma);
  return *res ? IR_CHK_OK : fail(c, IR_CHK_TYPE, "bad result shape");
}

/* ---- the rules ---------------------------------------------------------------------- */

static int rule_strand_reduce(Ctx *c, const IrType **res) {
  const IrInstr *in = c->in;
  const IrCFG *fn = in->fn;
  if (in->imm[0] < IR_REDUCE_ALL || in->imm[0] > IR_REDUCE_COLLECT ||
      in->imm[1] < IR_SET_ALL || in->imm[1] > IR_SET_STABLE)
    return fail(c, IR_CHK_IMM, "bad reduction or strand set");
  if (!fn || !fn->result) return fail(c, IR_CHK_TYPE, "no map function");
  if (fn->nparams != in->nargs + 1)
    return fail(c, IR_CHK_ARITY, "map function takes %d parameters, given %d + 1", fn->nparams,
                in->nargs);
  const IrType *st = ir_module_strand_type(c->m);
  if (!st || !ir_type_equal(fn->params[0]->ty, st))
    return fail(c, IR_CHK_TYPE, "map function's first parameter is not the strand");
  for (int i = 0; i < in->nargs; i++)
    if (!ir_type_equal(fn->params[i + 1]->ty, ty(c, i)))
      return bad_arg(c, i, "the map function's parameter type");
  const IrType *r = fn->result;
  switch ((IrReduce)in->imm[0]) {
  case IR_REDUCE_ALL:
  case IR_REDUCE_EXISTS:
    if (!is_bool(r)) return fail(c, IR_CHK_TYPE, "map function must return bool");
    break;
  case IR_REDUCE_MEAN:
    if (!is_real(r)) return fail(c, IR_CHK_TYPE, "map function must return real");
    break;
  case IR_REDUCE_COLLECT: /* a parallel map: the sequence of the values, or of
                            * the strands themselves ({ c | c in C.all }) */
    if ((!ir_type_is_value(r) && !is_kind(r, IR_TY_STRAND)) || is_dyn_seq(r))
      return fail(c, IR_CHK_TYPE, "map function must return a fixed-size value or a strand");
    *res = ir_type_seq(c->m, r, IR_SEQ_DYNAMIC);
    return IR_CHK_OK;
  default:
    if (!is_num(r)) return fail(c, IR_CHK_TYPE, "map function must return int or real");
    break;
  }
  *res = r;
  return IR_CHK_OK;
}

static int rule_new(Ctx *c) {
  const IrCFG *init = ir_module_find_cfg(c->m, IR_CFG_STRAND_INIT);
  if (!c->m->strand_name) return fail(c, IR_CHK_TYPE, "the module has no strand");
  if (init && init->nparams != c->in->nargs)
    return fail(c, IR_CHK_ARITY, "the strand takes %d parameters, given %d", init->nparams,
                c->in->nargs);
  for (int i = 0; i < c->in->nargs; i++) {
    if (init && !ir_type_equal(init->params[i]->ty, ty(c, i)))
      return bad_arg(c, i, "the strand parameter's type");
    if (!init && !ir_type_is_value(ty(c, i))) return bad_arg(c, i, "a value type");
  }
  return IR_CHK_OK;
}

static int rule_tensor_cons(Ctx *c, const IrType **res) {
  int n = c->in->nargs;
  if (n < 1) return fail(c, IR_CHK_ARITY, "needs at least one argument");
  const IrType *t = ty(c, 0);
  for (int i = 1; i < n; i++)
    if (!ir_type_equal(ty(c, i), t)) return bad_arg(c, i, "the type of the first argument");
  int dims[IR_MAX_ORDER + 1];
  dims[0] = n;
  if (is_kind(t, IR_TY_VEC) && c->m->level == IR_LOW) {
    dims[1] = t->width;
    *res = ir_type_tensor(c->m, 2, dims);
    return IR_CHK_OK;
  }
  if (!is_kind(t, IR_TY_TENSOR) && !is_kind(t, IR_TY_FIELD)) return bad_arg(c, 0, "a tensor");
  if (t->order + 1 > IR_MAX_ORDER) return fail(c, IR_CHK_TYPE, "result order too large");
  for (int i = 0; i < t->order; i++) dims[i + 1] = t->dims[i];
  *res = t->kind == IR_TY_TENSOR ? ir_type_tensor(c->m, t->order + 1, dims)
                                 : ir_type_field(c->m, t->cont, t->dim, t->order + 1, dims);
  return IR_CHK_OK;
}

static int rule_tensor_index(Ctx *c, const IrType **res) {
  const IrType *t = ty(c, 0);
  const IrInstr *in = c->in;
  if (!is_kind(t, IR_TY_TENSOR)) return bad_arg(c, 0, "a tensor");
  if (in->nimm < 1 || in->nimm > t->order)
    return fail(c, IR_CHK_IMM, "%d indices into a tensor of order %d", in->nimm, t->order);
  for (int i = 0; i < in->nimm; i++)
    if (in->imm[i] < 0 || in->imm[i] >= t->dims[i])
      return fail(c, IR_CHK_IMM, "index %d out of range 0..%d", in->imm[i], t->dims[i] - 1);
  *res = ir_type_tensor(c->m, t->order - in->nimm, t->dims + in->nimm);
  return IR_CHK_OK;
}

static int rule_load_voxels(Ctx *c, const IrType **res) {
  const IrType *img = ty(c, 0), *n = ty(c, 1);
  const int *imm = c->in->imm;
  if (!is_kind(img, IR_TY_IMAGE)) return bad_arg(c, 0, "an image");
  int d = img->dim;
  bool nok = d == 1 ? is_int(n) : (is_seq(n) && n->len == d && is_int(n->elem));
  if (!nok) return bad_arg(c, 1, d == 1 ? "int" : "int[d]");
  if (!support_ok(imm[0]) || imm[1] < IR_BORDER_NONE || imm[1] > IR_BORDER_WRAP)
    return fail(c, IR_CHK_IMM, "bad support %d or border mode %d", imm[0], imm[1]);
  if (d + img->order > IR_MAX_ORDER) return fail(c, IR_CHK_TYPE, "result order too large");
  int dims[IR_MAX_ORDER];
  for (int i = 0; i < d; i++) dims[i] = 2 * imm[0];
  for (int i = 0; i < img->order; i++) dims[d + i] = img->dims[i];
  *res = ir_type_tensor(c->m, d + img->order, dims);
  return IR_CHK_OK;
}

static int rule_given(Ctx *c, const IrType **res, bool ok, const char *what) {
  if (!c->given) return fail(c, IR_CHK_TYPE, "the result type must be given");
  if (!ok) return fail(c, IR_CHK_TYPE, "the result must be %s", what);
  *res = c->given;
  return IR_CHK_OK;
}

static int check_rule(Ctx *c, const IrType **res) {
  IrModule *m = c->m;
  const IrInstr *in = c->in;
  const int *imm = in->imm;
  int n = in->nargs;
  switch (c->info->rule) {
  case IR_RULE_NONE: return IR_CHK_OK;
  case IR_RULE_INT0: *res = ir_type_int(m); return IR_CHK_OK;
  case IR_RULE_INT1:
  case IR_RULE_INT2:
    for (int i = 0; i < n; i++)
      if (!is_int(ty(c, i))) return bad_arg(c, i, "int");
    *res = ir_type_int(m);
    return IR_CHK_OK;
  case IR_RULE_CMP_ORD:
  case IR_RULE_NUM2:
    if (!is_num(ty(c, 0))) return bad_arg(c, 0, "int or real");
    if (!ir_type_equal(ty(c, 1), ty(c, 0))) return bad_arg(c, 1, "the first argument's type");
    *res = c->info->rule == IR_RULE_NUM2 ? ty(c, 0) : ir_type_bool(m);
    return IR_CHK_OK;
  case IR_RULE_CMP_EQ:
    if (!is_num(ty(c, 0)) && !is_bool(ty(c, 0)) && !is_kind(ty(c, 0), IR_TY_STRING))
      return bad_arg(c, 0, "bool, int, real or string");
    if (!ir_type_equal(ty(c, 1), ty(c, 0))) return bad_arg(c, 1, "the first argument's type");
    *res = ir_type_bool(m);
    return IR_CHK_OK;
  case IR_RULE_BOOL1:
  case IR_RULE_BOOL2:
    for (int i = 0; i < n; i++)
      if (!is_bool(ty(c, i))) return bad_arg(c, i, "bool");
    *res = ir_type_bool(m);
    return IR_CHK_OK;
  case IR_RULE_SELECT:
    if (!is_bool(ty(c, 0))) return bad_arg(c, 0, "bool");
    if (!ir_type_equal(ty(c, 2), ty(c, 1))) return bad_arg(c, 2, "the second argument's type");
    *res = ty(c, 1);
    return IR_CHK_OK;
  case IR_RULE_INT_TO_REAL:
    if (!is_int(ty(c, 0))) return bad_arg(c, 0, "int");
    *res = ir_type_real(m);
    return IR_CHK_OK;
  case IR_RULE_REAL1:
  case IR_RULE_REAL2:
    for (int i = 0; i < n; i++)
      if (!is_real(ty(c, i))) return bad_arg(c, i, "real");
    *res = ir_type_real(m);
    return IR_CHK_OK;
  case IR_RULE_REAL_INT:
    if (!is_real(ty(c, 0))) return bad_arg(c, 0, "real");
    if (!is_int(ty(c, 1))) return bad_arg(c, 1, "int");
    *res = ir_type_real(m);
    return IR_CHK_OK;
  case IR_RULE_TENSOR_CONS: return rule_tensor_cons(c, res);
  case IR_RULE_TENSOR_INDEX: return rule_tensor_index(c, res);
  case IR_RULE_CLAMP: {
    const IrType *x = ty(c, 2);
    if (!is_kind(x, IR_TY_TENSOR)) return bad_arg(c, 2, "a tensor");
    for (int i = 0; i < 2; i++)
      if (!is_real(ty(c, i)) && !ir_type_equal(ty(c, i), x))
        return bad_arg(c, i, "real or the third argument's type");
    *res = x;
    return IR_CHK_OK;
  }
  case IR_RULE_MAT_SQUARE: {
    const IrType *t = ty(c, 0);
    if (!is_real(t) && !(is_kind(t, IR_TY_TENSOR) && t->order == 2 && t->dims[0] == t->dims[1]))
      return bad_arg(c, 0, "real or a square matrix");
    *res = t;
    return IR_CHK_OK;
  }
  case IR_RULE_EVALS:
  case IR_RULE_EVECS: {
    const IrType *t = ty(c, 0);
    if (!(is_kind(t, IR_TY_TENSOR) && t->order == 2 && t->dims[0] == t->dims[1] &&
          (t->dims[0] == 2 || t->dims[0] == 3)))
      return bad_arg(c, 0, "tensor[2,2] or tensor[3,3]");
    int d = t->dims[0];
    *res = ir_type_seq(m, c->info->rule == IR_RULE_EVALS ? ir_type_real(m) : vec_type(m, d), d);
    return IR_CHK_OK;
  }
  case IR_RULE_SEQ_CONS: {
    /* seq_cons() with a given T[] type is the empty dynamic sequence */
    if (n == 0)
      return rule_given(c, res,
                        is_seq(c->given) && (c->given->len == 0 || c->given->len == IR_SEQ_DYNAMIC),
                        "a sequence of length 0");
    const IrType *t = ty(c, 0);
    if (!ir_type_is_value(t) && !is_kind(t, IR_TY_STRAND)) return bad_arg(c, 0, "a value type");
    for (int i = 1; i < n; i++)
      if (!ir_type_equal(ty(c, i), t)) return bad_arg(c, i, "the first argument's type");
    *res = ir_type_seq(m, t, n);
    return IR_CHK_OK;
  }
  case IR_RULE_SEQ_LENGTH:
    if (!is_seq(ty(c, 0))) return bad_arg(c, 0, "a sequence");
    *res = ir_type_int(m);
    return IR_CHK_OK;
  case IR_RULE_SEQ_INDEX:
    if (!is_seq(ty(c, 0))) return bad_arg(c, 0, "a sequence");
    if (!is_int(ty(c, 1))) return bad_arg(c, 1, "int");
    *res = ty(c, 0)->elem;
    return IR_CHK_OK;
  case IR_RULE_SEQ_APPEND:
  case IR_RULE_SEQ_PREPEND: {
    int si = c->info->rule == IR_RULE_SEQ_APPEND ? 0 : 1;
    if (!is_seq(ty(c, si))) return bad_arg(c, si, "a sequence");
    if (!ir_type_equal(ty(c, 1 - si), ty(c, si)->elem))
      return bad_arg(c, 1 - si, "the element type");
    *res = ir_type_seq(m, ty(c, si)->elem, IR_SEQ_DYNAMIC);
    return IR_CHK_OK;
  }
  case IR_RULE_SEQ_CONCAT:
    if (!is_seq(ty(c, 0))) return bad_arg(c, 0, "a sequence");
    if (!is_seq(ty(c, 1)) || !ir_type_equal(ty(c, 1)->elem, ty(c, 0)->elem))
      return bad_arg(c, 1, "a sequence of the same element type");
    *res = ir_type_seq(m, ty(c, 0)->elem, IR_SEQ_DYNAMIC);
    return IR_CHK_OK;
  case IR_RULE_RANGE:
    for (int i = 0; i < 2; i++)
      if (!is_int(ty(c, i))) return bad_arg(c, i, "int");
    *res = ir_type_seq(m, ir_type_int(m), IR_SEQ_DYNAMIC);
    return IR_CHK_OK;
  case IR_RULE_RED_BOOL:
    if (!is_seq(ty(c, 0)) || !is_bool(ty(c, 0)->elem)) return bad_arg(c, 0, "bool[]");
    *res = ir_type_bool(m);
    return IR_CHK_OK;
  case IR_RULE_RED_NUM:
    if (!is_seq(ty(c, 0)) || !is_num(ty(c, 0)->elem)) return bad_arg(c, 0, "int[] or real[]");
    *res = ty(c, 0)->elem;
    return IR_CHK_OK;
  case IR_RULE_RED_MEAN:
    if (!is_seq(ty(c, 0)) || !is_real(ty(c, 0)->elem)) return bad_arg(c, 0, "real[]");
    *res = ir_type_real(m);
    return IR_CHK_OK;
  case IR_RULE_LOAD_SEQ:
    if (!is_kind(ty(c, 0), IR_TY_STRING)) return bad_arg(c, 0, "string");
    return rule_given(c, res, is_dyn_seq(c->given), "a dynamic sequence");
  case IR_RULE_LOAD_IMAGE:
    if (!is_kind(ty(c, 0), IR_TY_STRING)) return bad_arg(c, 0, "string");
    return rule_given(c, res, is_kind(c->given, IR_TY_IMAGE), "an image");
  case IR_RULE_IMAGE_SIZE:
    if (!is_kind(ty(c, 0), IR_TY_IMAGE)) return bad_arg(c, 0, "an image");
    *res = ir_type_seq(m, ir_type_int(m), ty(c, 0)->dim);
    return IR_CHK_OK;
  case IR_RULE_IMAGE_WORLD: {
    if (!is_kind(ty(c, 0), IR_TY_IMAGE)) return bad_arg(c, 0, "an image");
    int d = ty(c, 0)->dim;
    *res = d == 1 ? ir_type_real(m) : vec_type(m, d);
    return IR_CHK_OK;
  }
  case IR_RULE_IMAGE_SAMPLE:
    if (!is_kind(ty(c, 0), IR_TY_IMAGE)) return bad_arg(c, 0, "an image");
    *res = ir_type_tensor(m, ty(c, 0)->order, ty(c, 0)->dims);
    return IR_CHK_OK;
  case IR_RULE_SPHERE:
  case IR_RULE_SPHERE_AT: {
    const IrType *st = ir_module_strand_type(m);
    if (!st) return fail(c, IR_CHK_TYPE, "the module has no strand");
    if (c->info->rule == IR_RULE_SPHERE_AT && !pos_dim(ty(c, 0)))
      return bad_arg(c, 0, "real, tensor[2] or tensor[3]");
    if (!is_real(ty(c, n - 1))) return bad_arg(c, n - 1, "real");
    *res = ir_type_seq(m, st, IR_SEQ_DYNAMIC);
    return IR_CHK_OK;
  }
  case IR_RULE_STRAND_REDUCE: return rule_strand_reduce(c, res);
  case IR_RULE_NEW: return rule_new(c);
  case IR_RULE_PROBE_FAIL: /* (string, image(d), d ints[, d reals]) */
    if (n < 3 || !is_kind(ty(c, 0), IR_TY_STRING)) return bad_arg(c, 0, "string");
    if (!is_kind(ty(c, 1), IR_TY_IMAGE)) return bad_arg(c, 1, "an image");
    if (n != 2 + ty(c, 1)->dim && n != 2 + 2 * ty(c, 1)->dim) return IR_CHK_ARITY;
    for (int i = 2; i < n; i++)
      if (!(i < 2 + ty(c, 1)->dim ? is_int(ty(c, i)) : is_real(ty(c, i))))
        return bad_arg(c, i, i < 2 + ty(c, 1)->dim ? "int" : "real");
    return IR_CHK_OK;
  case IR_RULE_INDEX_FAIL: /* (index, length) */
    if (!is_int(ty(c, 0))) return bad_arg(c, 0, "int");
    if (!is_int(ty(c, 1))) return bad_arg(c, 1, "int");
    return IR_CHK_OK;
  case IR_RULE_PRINT:
    for (int i = 0; i < n; i++)
      if (!ir_type_is_value(ty(c, i))) return bad_arg(c, i, "a value type");
    return IR_CHK_OK;
  case IR_RULE_EIN: return rule_ein(c, res);
  case IR_RULE_CONVOLVE: {
    const IrType *img = ty(c, 0);
    if (!is_kind(img, IR_TY_IMAGE)) return bad_arg(c, 0, "an image");
    if (!is_kind(ty(c, 1), IR_TY_KERNEL)) return bad_arg(c, 1, "a kernel");
    *res = ir_type_field(m, ty(c, 1)->cont, img->dim, img->order, img->dims);
    return IR_CHK_OK;
  }
  case IR_RULE_INSIDE: {
    const IrType *f = ty(c, 1);
    if (!is_kind(f, IR_TY_FIELD)) return bad_arg(c, 1, "a field");
    if (!is_vec_of(ty(c, 0), f->dim)) return bad_arg(c, 0, "a position of the field's dimension");
    *res = ir_type_bool(m);
    return IR_CHK_OK;
  }
  case IR_RULE_IMAGE_SAME:
    if (!is_kind(ty(c, 0), IR_TY_IMAGE)) return bad_arg(c, 0, "an image");
    *res = ty(c, 0);
    return IR_CHK_OK;
  case IR_RULE_BORDER_CONST: {
    const IrType *img = ty(c, 0), *v = ty(c, 1);
    if (!is_kind(img, IR_TY_IMAGE)) return bad_arg(c, 0, "an image");
    if (!is_kind(v, IR_TY_TENSOR) || !same_shape(img->order, img->dims, v))
      return bad_arg(c, 1, "a tensor of the voxel shape");
    *res = img;
    return IR_CHK_OK;
  }
  case IR_RULE_IMG_TRANSFORM:
  case IR_RULE_IMG_TRANSLATE: {
    if (!is_kind(ty(c, 0), IR_TY_IMAGE)) return bad_arg(c, 0, "an image");
    int d = ty(c, 0)->dim, dd[2] = {d, d};
    *res = c->info->rule == IR_RULE_IMG_TRANSFORM ? ir_type_tensor(m, 2, dd) : vec_type(m, d);
    return IR_CHK_OK;
  }
  case IR_RULE_WORLD_TO_INDEX:
    if (!is_kind(ty(c, 0), IR_TY_IMAGE)) return bad_arg(c, 0, "an image");
    if (!is_vec_of(ty(c, 1), ty(c, 0)->dim))
      return bad_arg(c, 1, "tensor[d] of the image's dimension");
    *res = ty(c, 1);
    return IR_CHK_OK;
  case IR_RULE_TENSOR_SAME:
    if (!is_kind(ty(c, 0), IR_TY_TENSOR)) return bad_arg(c, 0, "a tensor");
    *res = ty(c, 0);
    return IR_CHK_OK;
  case IR_RULE_TRUNC_TO_INT:
    if (!is_real(ty(c, 0))) return bad_arg(c, 0, "real");
    if (c->in->imm[0] != 32 && c->in->imm[0] != 64)
      return fail(c, IR_CHK_IMM, "int of %d bits", c->in->imm[0]);
    *res = ir_type_int(m);
    return IR_CHK_OK;
  case IR_RULE_REAL_TO_INT: {
    const IrType *t = ty(c, 0);
    if (is_real(t)) {
      *res = ir_type_int(m);
    } else if (is_kind(t, IR_TY_TENSOR) && t->order == 1) {
      *res = ir_type_seq(m, ir_type_int(m), t->dims[0]);
    } else {
      return bad_arg(c, 0, "real or tensor[d]");
    }
    return IR_CHK_OK;
  }
  case IR_RULE_LOAD_VOXELS: return rule_load_voxels(c, res);
  case IR_RULE_KERNEL_EVAL: {
    if (!is_kind(ty(c, 0), IR_TY_KERNEL)) return bad_arg(c, 0, "a kernel");
    if (!is_real(ty(c, 1))) return bad_arg(c, 1, "real");
    if (imm[0] < 0 || !support_ok(imm[1]))
      return fail(c, IR_CHK_IMM, "bad derivative %d or support %d", imm[0], imm[1]);
    *res = vec_type(m, 2 * imm[1]);
    return IR_CHK_OK;
  }
  case IR_RULE_INSIDE_IMAGE:
    if (!is_kind(ty(c, 0), IR_TY_IMAGE)) return bad_arg(c, 0, "an image");
    if (!is_vec_of(ty(c, 1), ty(c, 0)->dim))
      return bad_arg(c, 1, "tensor[d] of the image's dimension");
    if (!support_ok(imm[0])) return fail(c, IR_CHK_IMM, "bad support %d", imm[0]);
    *res = ir_type_bool(m);
    return IR_CHK_OK;
  case IR_RULE_FLOOR_TO_INT:
    if (!is_real(ty(c, 0))) return bad_arg(c, 0, "real");
    *res = ir_type_int(m);
    return IR_CHK_OK;
  case IR_RULE_VEC1:
  case IR_RULE_VEC2:
  case IR_RULE_VDOT:
    if (!is_kind(ty(c, 0), IR_TY_VEC)) return bad_arg(c, 0, "a vector");
    if (n == 2 && !ir_type_equal(ty(c, 1), ty(c, 0)))
      return bad_arg(c, 1, "the first argument's type");
    *res = c->info->rule == IR_RULE_VDOT ? ir_type_real(m) : ty(c, 0);
    return IR_CHK_OK;
  case IR_RULE_VSCALE:
    if (!is_real(ty(c, 0))) return bad_arg(c, 0, "real");
    if (!is_kind(ty(c, 1), IR_TY_VEC)) return bad_arg(c, 1, "a vector");
    *res = ty(c, 1);
    return IR_CHK_OK;
  case IR_RULE_VSUM:
    if (!is_kind(ty(c, 0), IR_TY_VEC)) return bad_arg(c, 0, "a vector");
    *res = ir_type_real(m);
    return IR_CHK_OK;
  case IR_RULE_VINDEX:
    if (!is_kind(ty(c, 0), IR_TY_VEC)) return bad_arg(c, 0, "a vector");
    if (imm[0] < 0 || imm[0] >= ty(c, 0)->width)
      return fail(c, IR_CHK_IMM, "lane %d out of range", imm[0]);
    *res = ir_type_real(m);
    return IR_CHK_OK;
  case IR_RULE_VSPLAT:
    if (!is_real(ty(c, 0))) return bad_arg(c, 0, "real");
    if (imm[0] < 1) return fail(c, IR_CHK_IMM, "width %d", imm[0]);
    *res = ir_type_vec(m, imm[0]);
    return IR_CHK_OK;
  case IR_RULE_VSLICE:
    if (!is_kind(ty(c, 0), IR_TY_VEC)) return bad_arg(c, 0, "a vector");
    if (imm[0] < 0 || imm[1] < 1 || imm[0] > ty(c, 0)->width - imm[1])
      return fail(c, IR_CHK_IMM, "lanes %d..+%d out of range", imm[0], imm[1]);
    *res = ir_type_vec(m, imm[1]);
    return IR_CHK_OK;
  case IR_RULE_VCONS:
    if (n < 1) return fail(c, IR_CHK_ARITY, "needs at least one argument");
    for (int i = 0; i < n; i++)
      if (!is_real(ty(c, i))) return bad_arg(c, i, "real");
    *res = ir_type_vec(m, n);
    return IR_CHK_OK;
  case IR_RULE_VEC_TO_TENSOR:
    if (!is_kind(ty(c, 0), IR_TY_VEC)) return bad_arg(c, 0, "a vector");
    *res = vec_type(m, ty(c, 0)->width);
    return IR_CHK_OK;
  case IR_RULE_TENSOR_TO_VEC: {
    const IrType *t = ty(c, 0);
    if (!is_kind(t, IR_TY_TENSOR) || t->order > 1) return bad_arg(c, 0, "real or tensor[n]");
    *res = ir_type_vec(m, t->order ? t->dims[0] : 1);
    return IR_CHK_OK;
  }
  case IR_RULE_HORNER: {
    if (n < 2) return fail(c, IR_CHK_ARITY, "needs x and at least one coefficient");
    const IrType *t = ty(c, 0);
    if (!is_real(t) && !is_kind(t, IR_TY_VEC)) return bad_arg(c, 0, "real or a vector");
    for (int i = 1; i < n; i++)
      if (!ir_type_equal(ty(c, i), t)) return bad_arg(c, i, "the first argument's type");
    *res = t;
    return IR_CHK_OK;
  }
  case IR_RULE_LOAD:
  case IR_RULE_VLOAD:
    if (!is_kind(ty(c, 0), IR_TY_IMAGE)) return bad_arg(c, 0, "an image");
    if (!is_int(ty(c, 1))) return bad_arg(c, 1, "int");
    if (c->info->rule == IR_RULE_LOAD) {
      *res = ir_type_real(m);
    } else {
      if (imm[0] < 1) return fail(c, IR_CHK_IMM, "width %d", imm[0]);
      *res = ir_type_vec(m, imm[0]);
    }
    return IR_CHK_OK;
  case IR_RULE_POSITION: {
    if (imm[0] < 1 || imm[0] > 3) return fail(c, IR_CHK_IMM, "dimension %d", imm[0]);
    int d = imm[0];
    *res = ir_type_field(m, IR_CONT_INF, d, d == 1 ? 0 : 1, &d);
    return IR_CHK_OK;
  }
  case IR_RULE_INPUT_GIVEN:
    if (imm[0] < 0 || imm[0] >= m->nglobals || m->globals[imm[0]]->kind != IR_GLOBAL_INPUT)
      return fail(c, IR_CHK_IMM, "global %d is not an input", imm[0]);
    *res = ir_type_bool(m);
    return IR_CHK_OK;
  case IR_RULE_FIELD_COMPOSE: {
    const IrType *F = ty(c, 0), *G = ty(c, 1);
    if (!is_kind(F, IR_TY_FIELD)) return bad_arg(c, 0, "a field");
    int n = F->dim;
    if (!is_kind(G, IR_TY_FIELD) ||
        !(n == 1 ? G->order == 0 : G->order == 1 && G->dims[0] == n))
      return bad_arg(c, 1, "a field of positions in the first's domain");
    int k = F->cont < G->cont ? F->cont : G->cont;
    *res = ir_type_field(m, k < 1 ? k : 1, G->dim, F->order, F->dims);
    return IR_CHK_OK;
  }
  case IR_RULE_FIELD_EIGEN: {
    /* field(d)[n,n] → field#0(d)[n] (evals) or field#0(d)[n,n] (evecs), n = 2, 3 */
    const IrType *t = ty(c, 0);
    if (!(is_kind(t, IR_TY_FIELD) && t->order == 2 && t->dims[0] == t->dims[1] &&
          (t->dims[0] == 2 || t->dims[0] == 3)))
      return bad_arg(c, 0, "field(d)[2,2] or field(d)[3,3]");
    bool vals = c->in->op == IR_HOP_FIELD_EVALS;
    *res = ir_type_field(m, 0, t->dim, vals ? 1 : 2, t->dims);
    return IR_CHK_OK;
  }
  case IR_RULE_COUNT: break;
  }
  return fail(c, IR_CHK_TYPE, "unknown rule");
}

int ir_op_check_types(IrModule *m, const IrInstr *in, const IrType *given, const IrType **result,
                      char *err, size_t errlen) {
  Ctx c = {m, in, ir_op_info(m->level, in->op), given, err, errlen};
  *result = NULL;
  if (err && errlen) err[0] = '\0';
  if (!c.info)
    return fail(&c, IR_CHK_LEVEL, "operator %d does not exist at %s level", in->op,
                ir_level_name(m->level));
  if (c.info->arity >= 0 && in->nargs != c.info->arity)
    return fail(&c, IR_CHK_ARITY, "%d arguments, expected %d", in->nargs, c.info->arity);
  for (int i = 0; i < in->nargs; i++)
    if (!in->args[i] || !in->args[i]->ty)
      return fail(&c, IR_CHK_UNDEF, "argument %d is missing", i + 1);
  int ni = rule_imm(c.info->rule);
  if (ni >= 0 && in->nimm != ni)
    return fail(&c, IR_CHK_IMM, "%d immediates, expected %d", in->nimm, ni);
  if (in->nimm > 0 && !in->imm) return fail(&c, IR_CHK_IMM, "missing immediates");
  if (in->ein && c.info->rule != IR_RULE_EIN)
    return fail(&c, IR_CHK_TYPE, "unexpected EIN operator");
  if (in->fn && c.info->rule != IR_RULE_STRAND_REDUCE)
    return fail(&c, IR_CHK_TYPE, "unexpected function");
  int r = check_rule(&c, result);
  if (r != IR_CHK_OK) *result = NULL;
  return r;
}
