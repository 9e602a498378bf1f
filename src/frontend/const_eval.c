/* const_eval.c -- checking and folding constant expressions (§3.8), and
 * parsing `--Cname=value` overrides (§7.1). */
#include "frontend/const_eval.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/basis.h"
#include "frontend/env.h"

/* ------------------------------------------------------ constructors */

static ConstValue *cv_new(const ConstEval *ce, CVKind k, const Type *ty) {
  ConstValue *v = ARENA_NEW(ce->arena, ConstValue);
  v->kind = k;
  v->ty = ty;
  return v;
}

/* Wrap to the int width of the program (two's complement, no UB). */
static int64_t wrap_int(const ConstEval *ce, uint64_t u) {
  if (ce->long_int) return u > (uint64_t)INT64_MAX ? -(int64_t)(~u) - 1 : (int64_t)u;
  uint32_t w = (uint32_t)u;
  return w > (uint32_t)INT32_MAX ? -(int64_t)(~w) - 1 : (int64_t)w;
}

/* a ^ n on ints (doc/language.md §5.2): for n >= 0 the product of n a's,
 * wrapping like '*'; for n < 0 the reciprocal toward zero: 1 for a = 1,
 * -1 or 1 for a = -1, and 0 otherwise (also for a = 0). */
static int64_t const_int_pow(const ConstEval *ce, int64_t a, int64_t n) {
  if (n < 0) return a == 1 ? 1 : a == -1 ? ((n % 2) ? -1 : 1) : 0;
  uint64_t r = 1, b = (uint64_t)a;
  for (uint64_t m = (uint64_t)n; m; m >>= 1, b *= b)
    if (m & 1) r *= b;
  return wrap_int(ce, r);
}

const ConstValue *const_make_int(const ConstEval *ce, int64_t v) {
  ConstValue *c = cv_new(ce, CV_INT, ce->tc->t_int);
  c->i = wrap_int(ce, (uint64_t)v);
  return c;
}

const ConstValue *const_make_bool(const ConstEval *ce, bool v) {
  ConstValue *c = cv_new(ce, CV_BOOL, ce->tc->t_bool);
  c->b = v;
  return c;
}

static ConstValue *make_tensor(const ConstEval *ce, const Type *ty, int n) {
  ConstValue *c = cv_new(ce, CV_TENSOR, ty);
  c->nr = n;
  c->r = ARENA_NEW_ARRAY(ce->arena, double, n ? n : 1);
  return c;
}

const ConstValue *const_make_real(const ConstEval *ce, double v) {
  ConstValue *c = make_tensor(ce, ce->tc->t_real, 1);
  ((double *)c->r)[0] = v;
  return c;
}

static const ConstValue *make_string(const ConstEval *ce, const char *s, size_t n) {
  ConstValue *c = cv_new(ce, CV_STRING, ce->tc->t_string);
  c->s = arena_strndup(ce->arena, s, n);
  c->slen = n;
  return c;
}

/* ---------------------------------------------------------- checking */

static void report(const ConstEval *ce, bool rep, DiagId id, Span at, const char *arg) {
  if (rep && ce->diag) diag_report(ce->diag, id, at, arg);
}

static const char *desc(const ConstEval *ce, const char *fmt, const char *name) {
  return arena_printf(ce->arena, fmt, name ? name : "?");
}

/* Types that cannot be constants (§3.8: fields, images, kernels,
 * dynamic sequences, strands). */
static bool const_type_ok(const Type *t) {
  t = type_prune(t);
  if (!t) return true;
  switch (t->kind) {
  case TY_FIELD:
  case TY_IMAGE:
  case TY_KERNEL:
  case TY_BORDER:
  case TY_STRAND:
  case TY_FUN:
    return false;
  case TY_SEQ:
    return t->len != TYPE_SEQ_DYNAMIC && const_type_ok(t->elem);
  default:
    return true;
  }
}

static bool check_list(const ConstEval *ce, const ExprList *l, bool rep) {
  bool ok = true;
  for (const Expr *x = l->head; x; x = x->next)
    if (!const_check(ce, x, rep)) ok = false;
  return ok;
}

bool const_check(const ConstEval *ce, const Expr *e, bool rep) {
  if (!e) return true;
  if (type_is_error(e->ty)) return true; /* already reported */
  const Builtin *bi = e->builtin;
  switch (e->kind) {
  case E_INT:
  case E_REAL:
  case E_STRING:
  case E_BOOL:
  case E_SLICE_ALL:
    return true;
  case E_VAR: {
    const Symbol *s = e->sym;
    if (!s || s->kind == SYM_CONST) return true;
    if (s->kind == SYM_KERNEL) {
      report(ce, rep, ERR_NOT_CONST_EXPR, e->span, desc(ce, "kernel '%s'", e->name));
      return false;
    }
    report(ce, rep, ERR_NOT_CONST_VAR, e->span, e->name);
    return false;
  }
  case E_PAREN:
    return const_check(ce, e->a, rep);
  case E_KERNEL_CONT:
    report(ce, rep, ERR_NOT_CONST_EXPR, e->span, desc(ce, "kernel '%s'", e->name));
    return false;
  case E_UNARY:
  case E_BINARY:
  case E_NORM:
    if (bi && !(bi->flags & BF_CONST)) {
      const char *op = e->kind == E_NORM ? "|·|" : ast_op_spelling(e->op);
      report(ce, rep, ERR_NOT_CONST_EXPR, e->span, desc(ce, "operator '%s'", op));
      return false;
    }
    if (!const_type_ok(e->ty)) {
      report(ce, rep, ERR_NOT_CONST_EXPR, e->span,
             desc(ce, "a value of type %s", type_str(ce->arena, e->ty)));
      return false;
    }
    return const_check(ce, e->a, rep) && const_check(ce, e->b, rep);
  case E_COND:
    return const_check(ce, e->c, rep) && const_check(ce, e->a, rep) &&
           const_check(ce, e->b, rep);
  case E_REAL_CONV:
  case E_INT_CONV:
  case E_IDENTITY:
    return const_check(ce, e->a, rep);
  case E_ZEROS:
  case E_NAN:
  case E_TENSOR:
    return check_list(ce, &e->args, rep);
  case E_SEQ:
    if (!const_type_ok(e->ty)) {
      report(ce, rep, ERR_NOT_CONST_EXPR, e->span, desc(ce, "%s", "a sequence of this type"));
      return false;
    }
    return check_list(ce, &e->args, rep);
  case E_SUBSCRIPT:
    return const_check(ce, e->a, rep) && check_list(ce, &e->args, rep);
  case E_APPLY: {
    const Symbol *s = e->sym;
    if (s && s->kind == SYM_BUILTIN && bi && (bi->flags & BF_CONST)) return check_list(ce, &e->args, rep);
    const char *name = e->a && e->a->kind == E_VAR ? e->a->name : NULL;
    if (s && s->kind == SYM_FUNC) {
      report(ce, rep, ERR_NOT_CONST_EXPR, e->span, desc(ce, "function '%s'", name));
    } else if (s && s->kind == SYM_BUILTIN) {
      report(ce, rep, ERR_NOT_CONST_EXPR, e->span, desc(ce, "'%s'", name));
    } else if (e->a && e->a->ty && type_prune(e->a->ty)->kind == TY_FIELD) {
      report(ce, rep, ERR_NOT_CONST_EXPR, e->span, desc(ce, "%s", "a field probe"));
    } else {
      report(ce, rep, ERR_NOT_CONST_EXPR, e->span, desc(ce, "'%s'", name ? name : "application"));
    }
    return false;
  }
  case E_LOAD_SEQ:
    report(ce, rep, ERR_NOT_CONST_EXPR, e->span, desc(ce, "'%s'", "load_sequence"));
    return false;
  case E_LOAD_IMAGE:
    report(ce, rep, ERR_NOT_CONST_EXPR, e->span, desc(ce, "'%s'", "load_image"));
    return false;
  case E_RANGE:
    report(ce, rep, ERR_NOT_CONST_EXPR, e->span, desc(ce, "%s", "a range"));
    return false;
  case E_COMPREHENSION:
    report(ce, rep, ERR_NOT_CONST_EXPR, e->span, desc(ce, "%s", "a comprehension"));
    return false;
  case E_SELECT:
    report(ce, rep, ERR_NOT_CONST_EXPR, e->span, desc(ce, "%s", "a strand selection"));
    return false;
  }
  return false;
}

/* ----------------------------------------------------------- folding */

typedef struct Folder {
  const ConstEval *ce;
  bool failed; /* a reported error (division by zero) */
} Folder;

static const ConstValue *fold(Folder *f, const Expr *e);

static const ConstValue *to_real(const ConstEval *ce, const ConstValue *v) {
  if (v && v->kind == CV_INT) return const_make_real(ce, (double)v->i);
  return v;
}

/* int(x) (doc/language.md §4.2): toward zero, saturated to the int range,
 * NaN to 0; an int is itself. The same as the generated code's. */
static const ConstValue *to_int(const ConstEval *ce, const ConstValue *v) {
  if (!v || v->kind == CV_INT) return v;
  if (v->kind != CV_TENSOR || v->nr != 1) return NULL;
  double x = v->r[0], lim = ce->long_int ? 9223372036854775808.0 : 2147483648.0;
  int64_t hi = ce->long_int ? INT64_MAX : INT32_MAX;
  if (x != x) return const_make_int(ce, 0);
  if (x >= lim) return const_make_int(ce, hi);
  if (x <= -lim) return const_make_int(ce, -hi - 1);
  return const_make_int(ce, (int64_t)x);
}

/* Apply the coercion recorded on a node to its value (int -> real,
 * elementwise for fixed sequences; the others change nothing). */
static const ConstValue *coerce_value(const ConstEval *ce, const ConstValue *v, const Type *to) {
  to = type_prune(to);
  if (!v || !to) return v;
  if (v->kind == CV_INT && type_is_real(to)) return to_real(ce, v);
  if (v->kind == CV_SEQ && to->kind == TY_SEQ) {
    ConstValue *s = cv_new(ce, CV_SEQ, to);
    s->n = v->n;
    const ConstValue **el = ARENA_NEW_ARRAY(ce->arena, const ConstValue *, v->n ? v->n : 1);
    for (int i = 0; i < v->n; i++) el[i] = coerce_value(ce, v->elems[i], to->elem);
    s->elems = el;
    return s;
  }
  return v;
}

static double rv(const ConstValue *v, int i) { return v->kind == CV_INT ? (double)v->i : v->r[i]; }

static const ConstValue *map_tensor(const ConstEval *ce, const Type *ty, const ConstValue *a,
                                    double (*fn)(double)) {
  ConstValue *c = make_tensor(ce, ty, a->kind == CV_INT ? 1 : a->nr);
  for (int i = 0; i < c->nr; i++) ((double *)c->r)[i] = fn(rv(a, i));
  return c;
}

static double neg_d(double x) { return -x; }

static const ConstValue *int_binop(Folder *f, const Expr *e, BuiltinId id, int64_t x, int64_t y) {
  const ConstEval *ce = f->ce;
  uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
  switch (id) {
  case BI_ADD_II: return const_make_int(ce, wrap_int(ce, ux + uy));
  case BI_SUB_II: return const_make_int(ce, wrap_int(ce, ux - uy));
  case BI_MUL_II: return const_make_int(ce, wrap_int(ce, ux * uy));
  case BI_DIV_II:
  case BI_MOD_II:
    if (y == 0) {
      if (ce->diag) diag_report(ce->diag, ERR_CONST_DIV_ZERO, e->span);
      f->failed = true;
      return NULL;
    }
    /* C truncation; INT_MIN / -1 wraps instead of trapping */
    if (y == -1) return const_make_int(ce, id == BI_DIV_II ? wrap_int(ce, 0 - ux) : 0);
    return const_make_int(ce, id == BI_DIV_II ? x / y : x % y);
  case BI_POW_II: return const_make_int(ce, const_int_pow(ce, x, y));
  case BI_MIN_II: return const_make_int(ce, x < y ? x : y);
  case BI_MAX_II: return const_make_int(ce, x > y ? x : y);
  case BI_LT_II: return const_make_bool(ce, x < y);
  case BI_LE_II: return const_make_bool(ce, x <= y);
  case BI_GT_II: return const_make_bool(ce, x > y);
  case BI_GE_II: return const_make_bool(ce, x >= y);
  case BI_EQ_II: return const_make_bool(ce, x == y);
  case BI_NE_II: return const_make_bool(ce, x != y);
  default: return NULL;
  }
}

static double ipow(double b, int64_t n) {
  bool inv = n < 0;
  uint64_t m = inv ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
  double r = 1.0;
  while (m) {
    if (m & 1) r *= b;
    b *= b;
    m >>= 1;
  }
  return inv ? 1.0 / r : r;
}

static const ConstValue *real_binop(const ConstEval *ce, BuiltinId id, const Type *ty,
                                    const ConstValue *a, const ConstValue *b) {
  double x = rv(a, 0), y = rv(b, 0);
  switch (id) {
  case BI_MUL_RR: return const_make_real(ce, x * y);
  case BI_DIV_RR: return const_make_real(ce, x / y);
  case BI_POW_RI: return const_make_real(ce, ipow(x, b->i));
  case BI_POW_RR:
  case BI_POW: return const_make_real(ce, pow(x, y));
  case BI_MIN_RR: return const_make_real(ce, x < y ? x : y);
  case BI_MAX_RR: return const_make_real(ce, x > y ? x : y);
  case BI_ATAN2: return const_make_real(ce, atan2(x, y));
  case BI_FMOD: return const_make_real(ce, fmod(x, y));
  case BI_LT_RR: return const_make_bool(ce, x < y);
  case BI_LE_RR: return const_make_bool(ce, x <= y);
  case BI_GT_RR: return const_make_bool(ce, x > y);
  case BI_GE_RR: return const_make_bool(ce, x >= y);
  case BI_EQ_RR: return const_make_bool(ce, x == y);
  case BI_NE_RR: return const_make_bool(ce, x != y);
  case BI_ADD_TT:
  case BI_SUB_TT: {
    ConstValue *c = make_tensor(ce, ty, a->nr);
    for (int i = 0; i < a->nr && i < b->nr; i++)
      ((double *)c->r)[i] = id == BI_ADD_TT ? a->r[i] + b->r[i] : a->r[i] - b->r[i];
    return c;
  }
  case BI_MUL_RT:
  case BI_MUL_TR:
  case BI_DIV_TR: {
    const ConstValue *t = id == BI_MUL_RT ? b : a;
    double s = id == BI_MUL_RT ? x : y;
    ConstValue *c = make_tensor(ce, ty, t->nr);
    for (int i = 0; i < t->nr; i++)
      ((double *)c->r)[i] = id == BI_DIV_TR ? t->r[i] / s : t->r[i] * s;
    return c;
  }
  case BI_CROSS2_TT:
    if (a->nr < 2 || b->nr < 2) return NULL;
    return const_make_real(ce, a->r[0] * b->r[1] - a->r[1] * b->r[0]);
  case BI_CROSS3_TT: {
    if (a->nr < 3 || b->nr < 3) return NULL;
    ConstValue *c = make_tensor(ce, ty, 3);
    double *r = (double *)c->r;
    r[0] = a->r[1] * b->r[2] - a->r[2] * b->r[1];
    r[1] = a->r[2] * b->r[0] - a->r[0] * b->r[2];
    r[2] = a->r[0] * b->r[1] - a->r[1] * b->r[0];
    return c;
  }
  case BI_MODULATE_TT: {
    ConstValue *c = make_tensor(ce, ty, a->nr);
    for (int i = 0; i < a->nr && i < b->nr; i++) ((double *)c->r)[i] = a->r[i] * b->r[i];
    return c;
  }
  default:
    return NULL;
  }
}

static double fn_sqrt(double x) { return sqrt(x); }
static double fn_cos(double x) { return cos(x); }
static double fn_acos(double x) { return acos(x); }
static double fn_sin(double x) { return sin(x); }
static double fn_asin(double x) { return asin(x); }
static double fn_tan(double x) { return tan(x); }
static double fn_atan(double x) { return atan(x); }
static double fn_exp(double x) { return exp(x); }
static double fn_ceil(double x) { return ceil(x); }
static double fn_floor(double x) { return floor(x); }
static double fn_round(double x) { return round(x); }
static double fn_trunc(double x) { return trunc(x); }
static double fn_erf(double x) { return erf(x); }
static double fn_erfc(double x) { return erfc(x); }
static double fn_log(double x) { return log(x); }
static double fn_log10(double x) { return log10(x); }
static double fn_log2(double x) { return log2(x); }

static double (*unary_fn(BuiltinId id))(double) {
  switch (id) {
  case BI_SQRT: return fn_sqrt;
  case BI_COS: return fn_cos;
  case BI_ACOS: return fn_acos;
  case BI_SIN: return fn_sin;
  case BI_ASIN: return fn_asin;
  case BI_TAN: return fn_tan;
  case BI_ATAN: return fn_atan;
  case BI_EXP: return fn_exp;
  case BI_CEIL: return fn_ceil;
  case BI_FLOOR: return fn_floor;
  case BI_ROUND: return fn_round;
  case BI_TRUNC: return fn_trunc;
  case BI_ERF: return fn_erf;
  case BI_ERFC: return fn_erfc;
  case BI_LOG: return fn_log;
  case BI_LOG10: return fn_log10;
  case BI_LOG2: return fn_log2;
  default: return NULL;
  }
}

static double norm(const ConstValue *v) {
  double s = 0;
  for (int i = 0; i < v->nr; i++) s += v->r[i] * v->r[i];
  return sqrt(s);
}

static const ConstValue *fold_call(Folder *f, const Expr *e, const ConstValue **av, int n) {
  const ConstEval *ce = f->ce;
  const Builtin *bi = e->builtin;
  if (!bi) return NULL;
  BuiltinId id = bi->id;
  const Type *ty = type_prune(e->ty);
  for (int i = 0; i < n; i++)
    if (!av[i]) return NULL;
  if (n == 1) {
    double (*fn)(double) = unary_fn(id);
    if (fn) return const_make_real(ce, fn(rv(av[0], 0)));
    const ConstValue *a = av[0];
    switch (id) {
    case BI_REAL: return to_real(ce, a);
    case BI_NORM_I: return const_make_int(ce, a->i < 0 ? wrap_int(ce, 0 - (uint64_t)a->i) : a->i);
    case BI_NORM_T: return const_make_real(ce, a->kind == CV_INT ? fabs((double)a->i) : norm(a));
    case BI_NORMALIZE_T: {
      ConstValue *c = make_tensor(ce, ty, a->nr);
      double m = norm(a);
      for (int i = 0; i < a->nr; i++) ((double *)c->r)[i] = a->r[i] / m;
      return c;
    }
    case BI_TRACE_T: {
      int m = a->ty && type_prune(a->ty)->shape.order == 2 ? type_prune(a->ty)->shape.dims[0] : 0;
      double s = 0;
      for (int i = 0; i < m; i++) s += a->r[i * m + i];
      return const_make_real(ce, s);
    }
    case BI_TRANSPOSE_T: {
      const Type *at = type_prune(a->ty);
      if (!at || at->shape.order != 2) return NULL;
      int r = at->shape.dims[0], c = at->shape.dims[1];
      ConstValue *t = make_tensor(ce, ty, r * c);
      for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++) ((double *)t->r)[j * r + i] = a->r[i * c + j];
      return t;
    }
    default: return NULL;
    }
  }
  if (n == 2) {
    if (av[0]->kind == CV_INT && av[1]->kind == CV_INT) return int_binop(f, e, id, av[0]->i, av[1]->i);
    if (av[0]->kind == CV_BOOL && av[1]->kind == CV_BOOL) {
      bool x = av[0]->b, y = av[1]->b;
      switch (id) {
      case BI_EQ_BB: return const_make_bool(ce, x == y);
      case BI_NE_BB: return const_make_bool(ce, x != y);
      case BI_AND: return const_make_bool(ce, x && y);
      case BI_OR: return const_make_bool(ce, x || y);
      default: return NULL;
      }
    }
    if (id == BI_OUTER) {
      const ConstValue *a = av[0], *b = av[1];
      if (a->kind != CV_TENSOR || b->kind != CV_TENSOR) return NULL;
      ConstValue *c = make_tensor(ce, ty, a->nr * b->nr);
      for (int i = 0; i < a->nr; i++)
        for (int j = 0; j < b->nr; j++) ((double *)c->r)[i * b->nr + j] = a->r[i] * b->r[j];
      return c;
    }
    if (av[0]->kind == CV_TENSOR || av[1]->kind == CV_TENSOR ||
        (av[0]->kind == CV_INT && av[1]->kind == CV_INT))
      return real_binop(ce, id, ty, av[0], av[1]);
    return NULL;
  }
  /* clamp and lerp: elementwise over the tensor arguments */
  if (id == BI_CLAMP_RRT || id == BI_CLAMP_TTT || id == BI_LERP3 || id == BI_LERP5) {
    const ConstValue *x = (id == BI_CLAMP_RRT || id == BI_CLAMP_TTT) ? av[2] : av[0];
    int m = x->kind == CV_INT ? 1 : x->nr;
    ConstValue *c = make_tensor(ce, ty, m);
    for (int i = 0; i < m; i++) {
      double r;
      if (id == BI_CLAMP_RRT || id == BI_CLAMP_TTT) {
        int k = id == BI_CLAMP_TTT ? i : 0;
        double lo = rv(av[0], k), hi = rv(av[1], k), v = rv(av[2], i);
        r = v <= lo ? lo : (hi <= v ? hi : v);
      } else if (id == BI_LERP3) {
        double a = rv(av[0], i), b = rv(av[1], i), t = rv(av[2], 0);
        r = a + t * (b - a);
      } else {
        double a = rv(av[0], i), b = rv(av[1], i);
        double x0 = rv(av[2], 0), xx = rv(av[3], 0), x1 = rv(av[4], 0);
        r = a + ((xx - x0) / (x1 - x0)) * (b - a);
      }
      ((double *)c->r)[i] = r;
    }
    return c;
  }
  return NULL;
}

/* Flatten tensor elements [e1..en] into one tensor. */
static const ConstValue *fold_tensor(Folder *f, const Expr *e) {
  int n = e->args.len, per = -1;
  const ConstValue **el = ARENA_NEW_ARRAY(f->ce->arena, const ConstValue *, n ? n : 1);
  int i = 0;
  for (const Expr *x = e->args.head; x; x = x->next, i++) {
    const ConstValue *v = to_real(f->ce, fold(f, x));
    if (!v || v->kind != CV_TENSOR) return NULL;
    if (per >= 0 && v->nr != per) return NULL;
    per = v->nr;
    el[i] = v;
  }
  if (n == 0) return NULL;
  ConstValue *c = make_tensor(f->ce, e->ty, n * per);
  for (i = 0; i < n; i++) memcpy((double *)c->r + i * per, el[i]->r, sizeof(double) * (size_t)per);
  return c;
}

static const ConstValue *fold_subscript(Folder *f, const Expr *e) {
  const ConstValue *base = fold(f, e->a);
  if (!base) return NULL;
  if (base->kind == CV_SEQ) {
    if (!e->args.head) return NULL;
    const ConstValue *ix = fold(f, e->args.head);
    if (!ix || ix->kind != CV_INT || ix->i < 0 || ix->i >= base->n) return NULL;
    return base->elems[ix->i];
  }
  if (base->kind != CV_TENSOR) return NULL;
  const Type *bt = type_prune(e->a->ty);
  if (!bt || bt->kind != TY_TENSOR || bt->shape.order != e->args.len) return NULL;
  /* Indices: a fixed value, or -1 for ':' */
  int order = bt->shape.order;
  int fixed[32];
  if (order > 32) return NULL;
  int i = 0;
  for (const Expr *x = e->args.head; x; x = x->next, i++) {
    if (x->kind == E_SLICE_ALL) {
      fixed[i] = -1;
      continue;
    }
    const ConstValue *ix = fold(f, x);
    if (!ix || ix->kind != CV_INT || ix->i < 0 || ix->i >= bt->shape.dims[i]) return NULL;
    fixed[i] = (int)ix->i;
  }
  const Type *rt = type_prune(e->ty);
  int m = rt && rt->kind == TY_TENSOR ? shape_size(rt->shape) : 1;
  ConstValue *c = make_tensor(f->ce, e->ty, m);
  /* enumerate result components in row-major order of the ':' axes */
  int idx[32];
  for (int k = 0; k < m; k++) {
    int rem = k;
    for (int a = order - 1; a >= 0; a--) {
      if (fixed[a] >= 0) {
        idx[a] = fixed[a];
      } else {
        idx[a] = rem % bt->shape.dims[a];
        rem /= bt->shape.dims[a];
      }
    }
    int off = 0;
    for (int a = 0; a < order; a++) off = off * bt->shape.dims[a] + idx[a];
    if (off >= base->nr) return NULL;
    ((double *)c->r)[k] = base->r[off];
  }
  return c;
}

static const ConstValue *fold_raw(Folder *f, const Expr *e) {
  const ConstEval *ce = f->ce;
  const Type *ty = type_prune(e->ty);
  switch (e->kind) {
  case E_INT: {
    int64_t v;
    const_int_literal(e->tok.text ? e->tok.text : "0", ce->long_int, true, &v);
    return const_make_int(ce, v);
  }
  case E_REAL: return const_make_real(ce, e->tok.real);
  case E_BOOL: return const_make_bool(ce, e->bval);
  case E_STRING: return make_string(ce, e->tok.text ? e->tok.text : "", e->tok.text ? e->tok.len : 0);
  case E_VAR: return e->sym && e->sym->kind == SYM_CONST ? e->sym->cval : NULL;
  case E_PAREN: return fold(f, e->a);
  case E_REAL_CONV: return to_real(ce, fold(f, e->a));
  case E_INT_CONV: return to_int(ce, fold(f, e->a));
  case E_COND: {
    const ConstValue *c = fold(f, e->c);
    if (!c || c->kind != CV_BOOL) return NULL;
    return fold(f, c->b ? e->a : e->b);
  }
  case E_UNARY: {
    /* -<literal> folds the literal itself, so -2147483648 is in range */
    if (e->op == OP_NEG && e->a && e->a->kind == E_INT && !e->a->coerce_from) {
      int64_t v;
      const_int_literal(e->a->tok.text ? e->a->tok.text : "0", ce->long_int, true, &v);
      return const_make_int(ce, wrap_int(ce, 0 - (uint64_t)v));
    }
    const ConstValue *a = fold(f, e->a);
    if (!a) return NULL;
    if (e->op == OP_NOT) return a->kind == CV_BOOL ? const_make_bool(ce, !a->b) : NULL;
    if (e->op != OP_NEG) return NULL;
    if (a->kind == CV_INT) return const_make_int(ce, wrap_int(ce, 0 - (uint64_t)a->i));
    if (a->kind == CV_TENSOR) return map_tensor(ce, ty, a, neg_d);
    return NULL;
  }
  case E_BINARY: {
    if (e->op == OP_AND || e->op == OP_OR) {
      const ConstValue *a = fold(f, e->a);
      if (!a || a->kind != CV_BOOL) return NULL;
      if (e->op == OP_AND ? !a->b : a->b) return a; /* short circuit */
      const ConstValue *b = fold(f, e->b);
      return b && b->kind == CV_BOOL ? b : NULL;
    }
    const ConstValue *av[2] = {fold(f, e->a), fold(f, e->b)};
    return fold_call(f, e, av, 2);
  }
  case E_NORM: {
    const ConstValue *av[1] = {fold(f, e->a)};
    return fold_call(f, e, av, 1);
  }
  case E_APPLY: {
    int n = e->args.len, i = 0;
    if (n > 8 || !e->sym || e->sym->kind != SYM_BUILTIN) return NULL;
    const ConstValue *av[8];
    for (const Expr *x = e->args.head; x; x = x->next) av[i++] = fold(f, x);
    return fold_call(f, e, av, n);
  }
  case E_IDENTITY:
  case E_ZEROS:
  case E_NAN: {
    if (!ty || ty->kind != TY_TENSOR) return NULL;
    int m = shape_size(ty->shape);
    ConstValue *c = make_tensor(ce, ty, m);
    double *r = (double *)c->r;
    for (int i = 0; i < m; i++) r[i] = e->kind == E_NAN ? NAN : 0.0;
    if (e->kind == E_IDENTITY && ty->shape.order == 2)
      for (int i = 0; i < ty->shape.dims[0]; i++) r[i * ty->shape.dims[0] + i] = 1.0;
    return c;
  }
  case E_TENSOR: return fold_tensor(f, e);
  case E_SEQ: {
    ConstValue *s = cv_new(ce, CV_SEQ, ty);
    s->n = e->args.len;
    const ConstValue **el = ARENA_NEW_ARRAY(ce->arena, const ConstValue *, s->n ? s->n : 1);
    int i = 0;
    for (const Expr *x = e->args.head; x; x = x->next, i++)
      if (!(el[i] = fold(f, x))) return NULL;
    s->elems = el;
    return s;
  }
  case E_SUBSCRIPT: return fold_subscript(f, e);
  default: return NULL;
  }
}

static const ConstValue *fold(Folder *f, const Expr *e) {
  if (!e || f->failed || type_has_error(e->ty)) return NULL;
  const ConstValue *v = fold_raw(f, e);
  if (v && e->coerce_from) v = coerce_value(f->ce, v, e->ty);
  if (v && v->kind == CV_TENSOR && e->ty && type_prune(e->ty)->kind == TY_TENSOR &&
      v->ty != e->ty) {
    /* keep the node's (normalised) type on the value */
    ConstValue *c = cv_new(f->ce, CV_TENSOR, e->ty);
    *c = *v;
    c->ty = e->ty;
    v = c;
  }
  return v;
}

const ConstValue *const_fold(const ConstEval *ce, const Expr *e) {
  Folder f = {ce, false};
  return fold(&f, e);
}

bool const_int(const ConstEval *ce, const Expr *e, int64_t *out) {
  const ConstValue *v = const_fold(ce, e);
  if (!v || v->kind != CV_INT) return false;
  *out = v->i;
  return true;
}

bool const_int_literal(const char *digits, bool long_int, bool allow_min, int64_t *out) {
  uint64_t lim = long_int ? (uint64_t)INT64_MAX : (uint64_t)INT32_MAX;
  if (allow_min) lim += 1;
  uint64_t v = 0;
  bool ok = true;
  for (const char *p = digits; *p; p++) {
    if (*p < '0' || *p > '9') break;
    unsigned d = (unsigned)(*p - '0');
    if (v > (lim - d) / 10) {
      ok = false;
      v = lim;
      break;
    }
    v = v * 10 + d;
  }
  /* 2^63 does not fit int64_t: its only use is as -2^63 */
  *out = v > (uint64_t)INT64_MAX ? INT64_MIN : (int64_t)v;
  return ok;
}

/* ---------------------------------------------------- override values */

typedef struct OvParser {
  const ConstEval *ce;
  const char *p;
  bool bad;
} OvParser;

static void ov_ws(OvParser *op) {
  while (isspace((unsigned char)*op->p)) op->p++;
}

static const ConstValue *ov_value(OvParser *op, const Type *ty);

/* Number token: [+-]digits[.digits][e[+-]digits]. */
static const ConstValue *ov_number(OvParser *op, const Type *ty) {
  ov_ws(op);
  const char *s = op->p, *q = s;
  bool neg = false;
  if (*q == '+' || *q == '-') neg = *q++ == '-';
  const char *digits = q;
  while (isdigit((unsigned char)*q)) q++;
  if (q == digits) return NULL;
  bool is_real = false;
  if (*q == '.' && isdigit((unsigned char)q[1])) {
    is_real = true;
    q++;
    while (isdigit((unsigned char)*q)) q++;
  }
  if ((*q == 'e' || *q == 'E')) {
    const char *r = q + 1;
    if (*r == '+' || *r == '-') r++;
    if (isdigit((unsigned char)*r)) {
      is_real = true;
      while (isdigit((unsigned char)*r)) r++;
      q = r;
    }
  }
  op->p = q;
  if (ty->kind == TY_INT) {
    if (is_real) return NULL;
    char tmp[32];
    size_t n = (size_t)(q - digits);
    if (n >= sizeof tmp) return NULL;
    memcpy(tmp, digits, n);
    tmp[n] = 0;
    int64_t v;
    if (!const_int_literal(tmp, op->ce->long_int, neg, &v)) return NULL;
    return const_make_int(op->ce, neg ? (int64_t)(0 - (uint64_t)v) : v);
  }
  if (type_is_real(ty)) {
    char tmp[64];
    size_t n = (size_t)(q - s);
    if (n >= sizeof tmp) return NULL;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    return const_make_real(op->ce, strtod(tmp, NULL));
  }
  return NULL;
}

/* Nested [..] for a tensor of `shape` from axis `ax`, into out[]. */
static bool ov_tensor(OvParser *op, Shape sh, int ax, double *out, int *pos) {
  ov_ws(op);
  if (ax == sh.order) {
    const ConstValue *v = ov_number(op, op->ce->tc->t_real);
    if (!v) return false;
    out[(*pos)++] = v->r[0];
    return true;
  }
  if (*op->p != '[') return false;
  op->p++;
  for (int i = 0; i < sh.dims[ax]; i++) {
    if (i) {
      ov_ws(op);
      if (*op->p != ',') return false;
      op->p++;
    }
    if (!ov_tensor(op, sh, ax + 1, out, pos)) return false;
  }
  ov_ws(op);
  if (*op->p != ']') return false;
  op->p++;
  return true;
}

static const ConstValue *ov_string(OvParser *op) {
  ov_ws(op);
  if (*op->p != '"') return NULL;
  op->p++;
  char *buf = arena_alloc(op->ce->arena, strlen(op->p) + 1);
  size_t n = 0;
  while (*op->p && *op->p != '"') {
    char c = *op->p++;
    if (c == '\\') {
      char x = *op->p++;
      switch (x) {
      case 'a': c = '\a'; break;
      case 'b': c = '\b'; break;
      case 'f': c = '\f'; break;
      case 'n': c = '\n'; break;
      case 'r': c = '\r'; break;
      case 't': c = '\t'; break;
      case 'v': c = '\v'; break;
      case '\\': c = '\\'; break;
      case '"': c = '"'; break;
      default:
        if (isdigit((unsigned char)x) && isdigit((unsigned char)op->p[0]) &&
            isdigit((unsigned char)op->p[1])) {
          int v = (x - '0') * 100 + (op->p[0] - '0') * 10 + (op->p[1] - '0');
          if (v > 255) return NULL;
          op->p += 2;
          c = (char)v;
        } else {
          return NULL;
        }
      }
    }
    buf[n++] = c;
  }
  if (*op->p != '"') return NULL;
  op->p++;
  return make_string(op->ce, buf, n);
}

static const ConstValue *ov_value(OvParser *op, const Type *ty) {
  ty = type_prune(ty);
  ov_ws(op);
  switch (ty->kind) {
  case TY_BOOL:
    if (strncmp(op->p, "true", 4) == 0) {
      op->p += 4;
      return const_make_bool(op->ce, true);
    }
    if (strncmp(op->p, "false", 5) == 0) {
      op->p += 5;
      return const_make_bool(op->ce, false);
    }
    return NULL;
  case TY_INT: return ov_number(op, ty);
  case TY_STRING: return ov_string(op);
  case TY_TENSOR: {
    if (ty->shape.order == 0) return ov_number(op, ty);
    int m = shape_size(ty->shape), pos = 0;
    ConstValue *c = make_tensor(op->ce, ty, m);
    if (!ov_tensor(op, ty->shape, 0, (double *)c->r, &pos)) return NULL;
    return c;
  }
  case TY_SEQ: {
    if (*op->p != '{') return NULL;
    op->p++;
    int cap = 8, n = 0;
    const ConstValue **el = ARENA_NEW_ARRAY(op->ce->arena, const ConstValue *, cap);
    ov_ws(op);
    if (*op->p != '}') {
      for (;;) {
        const ConstValue *v = ov_value(op, ty->elem);
        if (!v) return NULL;
        if (n == cap) {
          const ConstValue **nel = ARENA_NEW_ARRAY(op->ce->arena, const ConstValue *, cap * 2);
          memcpy(nel, el, sizeof *el * (size_t)n);
          el = nel;
          cap *= 2;
        }
        el[n++] = v;
        ov_ws(op);
        if (*op->p != ',') break;
        op->p++;
      }
    }
    ov_ws(op);
    if (*op->p != '}') return NULL;
    op->p++;
    if (ty->len != TYPE_SEQ_DYNAMIC && ty->len != n) return NULL;
    ConstValue *s = cv_new(op->ce, CV_SEQ, ty);
    s->n = n;
    s->elems = el;
    return s;
  }
  default:
    return NULL;
  }
}

const ConstValue *const_parse_override(const ConstEval *ce, const char *text, const Type *ty) {
  if (!text || !ty) return NULL;
  OvParser op = {ce, text, false};
  const ConstValue *v = ov_value(&op, ty);
  if (!v) return NULL;
  ov_ws(&op);
  return *op.p ? NULL : v;
}

/* ------------------------------------------------------------ output */

static void str_value(char **buf, size_t *len, size_t *cap, Arena *a, const ConstValue *v);

static void put(char **buf, size_t *len, size_t *cap, Arena *a, const char *s) {
  size_t n = strlen(s);
  if (*len + n + 1 > *cap) {
    size_t nc = (*cap + n + 1) * 2;
    char *nb = arena_alloc(a, nc);
    if (*len) memcpy(nb, *buf, *len);
    *buf = nb;
    *cap = nc;
  }
  memcpy(*buf + *len, s, n + 1);
  *len += n;
}

static void str_tensor(char **buf, size_t *len, size_t *cap, Arena *a, const ConstValue *v,
                       Shape sh, int ax, int *pos) {
  char tmp[40];
  if (ax == sh.order) {
    snprintf(tmp, sizeof tmp, "%.17g", *pos < v->nr ? v->r[*pos] : 0.0);
    (*pos)++;
    put(buf, len, cap, a, tmp);
    return;
  }
  put(buf, len, cap, a, "[");
  for (int i = 0; i < sh.dims[ax]; i++) {
    if (i) put(buf, len, cap, a, ",");
    str_tensor(buf, len, cap, a, v, sh, ax + 1, pos);
  }
  put(buf, len, cap, a, "]");
}

static void str_value(char **buf, size_t *len, size_t *cap, Arena *a, const ConstValue *v) {
  char tmp[40];
  if (!v) {
    put(buf, len, cap, a, "?");
    return;
  }
  switch (v->kind) {
  case CV_BOOL: put(buf, len, cap, a, v->b ? "true" : "false"); break;
  case CV_INT:
    snprintf(tmp, sizeof tmp, "%lld", (long long)v->i);
    put(buf, len, cap, a, tmp);
    break;
  case CV_TENSOR: {
    const Type *t = type_prune(v->ty);
    Shape sh = t && t->kind == TY_TENSOR ? t->shape : (Shape){0, NULL};
    int pos = 0;
    str_tensor(buf, len, cap, a, v, sh, 0, &pos);
    break;
  }
  case CV_STRING:
    put(buf, len, cap, a, "\"");
    put(buf, len, cap, a, v->s);
    put(buf, len, cap, a, "\"");
    break;
  case CV_SEQ:
    put(buf, len, cap, a, "{");
    for (int i = 0; i < v->n; i++) {
      if (i) put(buf, len, cap, a, ",");
      str_value(buf, len, cap, a, v->elems[i]);
    }
    put(buf, len, cap, a, "}");
    break;
  }
}

const char *const_value_str(Arena *a, const ConstValue *v) {
  char *buf = NULL;
  size_t len = 0, cap = 0;
  put(&buf, &len, &cap, a, "");
  str_value(&buf, &len, &cap, a, v);
  return buf;
}

bool const_value_equal(const ConstValue *a, const ConstValue *b) {
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
  case CV_BOOL: return a->b == b->b;
  case CV_INT: return a->i == b->i;
  case CV_TENSOR:
    if (a->nr != b->nr) return false;
    for (int i = 0; i < a->nr; i++)
      if (!(a->r[i] == b->r[i] || (isnan(a->r[i]) && isnan(b->r[i])))) return false;
    return true;
  case CV_STRING: return a->slen == b->slen && memcmp(a->s, b->s, a->slen) == 0;
  case CV_SEQ:
    if (a->n != b->n) return false;
    for (int i = 0; i < a->n; i++)
      if (!const_value_equal(a->elems[i], b->elems[i])) return false;
    return true;
  }
  return false;
}
