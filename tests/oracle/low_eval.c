/* low_eval.c -- LowIR interpreter for tests (see low_eval.h). */
#include "low_eval.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct Ev {
  Arena *a;
  LowVal *vals; /* by variable id */
  bool *set;
  int nids;
  char *err;
  size_t errlen;
  bool failed;
  LowEvalStats *stats;
  const LowVal *globals;
  int nglobals;
  LowEvalEnv *env; /* NULL: no state, global writes or effects */
} Ev;

static int fail(Ev *e, const char *fmt, ...) {
  if (!e->failed && e->err && e->errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->err, e->errlen, fmt, ap);
    va_end(ap);
  }
  e->failed = true;
  return -1;
}

LowVal low_val_real(double x) {
  LowVal v;
  memset(&v, 0, sizeof v);
  v.kind = LOWV_REAL;
  v.r = x;
  return v;
}

LowVal low_val_int(int64_t x) {
  LowVal v;
  memset(&v, 0, sizeof v);
  v.kind = LOWV_INT;
  v.i = x;
  return v;
}

static LowVal val_bool(bool b) {
  LowVal v;
  memset(&v, 0, sizeof v);
  v.kind = LOWV_BOOL;
  v.b = b;
  return v;
}

LowVal low_val_image(const LowImage *img) {
  LowVal v;
  memset(&v, 0, sizeof v);
  v.kind = LOWV_IMAGE;
  v.img = img;
  return v;
}

static LowVal val_vec(Arena *a, int n) {
  LowVal v;
  memset(&v, 0, sizeof v);
  v.kind = LOWV_VEC;
  v.n = n;
  v.v = ARENA_NEW_ARRAY(a, double, n > 0 ? n : 1);
  return v;
}

LowVal low_val_tensor(Arena *a, int order, const int *dims, const double *comps) {
  if (order == 0)
    return low_val_real(comps[0]);
  LowVal v;
  memset(&v, 0, sizeof v);
  v.kind = LOWV_TENSOR;
  v.order = order;
  v.n = 1;
  for (int i = 0; i < order; i++)
    v.n *= (v.dims[i] = dims[i]);
  v.v = ARENA_NEW_ARRAY(a, double, v.n);
  if (comps)
    memcpy(v.v, comps, sizeof *v.v * (size_t)v.n);
  return v;
}

LowVal low_val_ints(Arena *a, int n, const int64_t *xs) {
  LowVal v;
  memset(&v, 0, sizeof v);
  v.kind = LOWV_SEQ;
  v.n = n;
  v.elems = ARENA_NEW_ARRAY(a, LowVal, n > 0 ? n : 1);
  for (int i = 0; i < n; i++)
    v.elems[i] = low_val_int(xs[i]);
  return v;
}

/* ---- the border index maps, doc/language.md §6.4 ---- */

static int64_t map_clamp(int64_t i, int64_t n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

static int64_t map_mirror(int64_t i, int64_t n) {
  if (i < 0)
    i = -1 - i;
  if (i < n)
    return i;
  int64_t q = i / n, r = i - q * n;
  return q % 2 == 0 ? r : n - 1 - r;
}

static int64_t map_wrap(int64_t i, int64_t n) {
  if (i < 0)
    return (n - 1) + ((i + 1) % n);
  return i >= n ? i % n : i;
}

/* ---- operators ---- */

static bool is_num(const LowVal *v) { return v->kind == LOWV_INT || v->kind == LOWV_REAL; }

static int need(Ev *e, const LowVal *v, LowValKind k, const char *op) {
  if (v->kind != k)
    return fail(e, "%s: operand of kind %d, expected %d", op, (int)v->kind, (int)k);
  return 0;
}

static double real_fun(int op, double x) {
  switch (op) {
  case IR_OP_SQRT: return sqrt(x);
  case IR_OP_EXP: return exp(x);
  case IR_OP_LOG: return log(x);
  case IR_OP_LOG10: return log10(x);
  case IR_OP_LOG2: return log2(x);
  case IR_OP_SIN: return sin(x);
  case IR_OP_COS: return cos(x);
  case IR_OP_TAN: return tan(x);
  case IR_OP_ASIN: return asin(x);
  case IR_OP_ACOS: return acos(x);
  case IR_OP_ATAN: return atan(x);
  case IR_OP_CEIL: return ceil(x);
  case IR_OP_FLOOR: return floor(x);
  case IR_OP_ROUND: return round(x);
  case IR_OP_TRUNC: return trunc(x);
  case IR_OP_ERF: return erf(x);
  case IR_OP_ERFC: return erfc(x);
  case IR_LOP_RNEG: return -x;
  default: return NAN;
  }
}

/* ---- matrices and sequences (independent of the runtime's closed forms) ---- */

/* The components of a real, vector or tensor value (NULL otherwise). */
static const double *comps_of(const LowVal *v, int *n) {
  if (v->kind == LOWV_REAL) {
    *n = 1;
    return &v->r;
  }
  if (v->kind == LOWV_VEC || v->kind == LOWV_TENSOR) {
    *n = v->n;
    return v->v;
  }
  return NULL;
}

/* A value of x's kind and shape with components c. */
static LowVal like(Arena *a, const LowVal *x, const double *c) {
  if (x->kind == LOWV_REAL)
    return low_val_real(c[0]);
  if (x->kind == LOWV_VEC) {
    LowVal v = val_vec(a, x->n);
    memcpy(v.v, c, sizeof(double) * (size_t)x->n);
    return v;
  }
  return low_val_tensor(a, x->order, x->dims, c);
}

/* Inverse of an n×n matrix (n = 2, 3) by cofactors: inv = adj(m) / det. */
static void mat_inverse(int n, const double *m, double *r) {
  if (n == 2) {
    double det = m[0] * m[3] - m[1] * m[2];
    r[0] = m[3] / det, r[1] = -m[1] / det, r[2] = -m[2] / det, r[3] = m[0] / det;
    return;
  }
  double c[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      c[i * 3 + j] = m[i1 * 3 + j1] * m[i2 * 3 + j2] - m[i1 * 3 + j2] * m[i2 * 3 + j1];
    }
  double det = m[0] * c[0] + m[1] * c[1] + m[2] * c[2];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      r[i * 3 + j] = c[j * 3 + i] / det; /* the adjugate is the transposed cofactors */
}

/* Eigen-decomposition of the symmetric n×n matrix whose upper triangle is
 * m, by cyclic Jacobi rotations: eigenvalues in descending order, the unit
 * eigenvectors as rows of vecs, each with its largest component positive
 * (a deterministic sign, so runs compare). */
static void sym_eigen(int n, const double *m, double *vals, double *vecs) {
  double a[9], v[9];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      a[i * n + j] = i <= j ? m[i * n + j] : m[j * n + i];
      v[i * n + j] = i == j;
    }
  for (int sweep = 0; sweep < 60; sweep++) {
    double off = 0, scale = 0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        *(i == j ? &scale : &off) += a[i * n + j] * a[i * n + j];
    if (off <= 1e-300 || off <= 1e-32 * scale)
      break;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) {
        double apq = a[p * n + q];
        if (apq == 0)
          continue;
        double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
        double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; k++) { /* A <- A J (columns p, q) */
          double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; k++) { /* A <- J^T A (rows p, q) */
          double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < n; k++) { /* V <- V J: eigenvectors in columns */
          double vkp = v[k * n + p], vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
  }
  int ord[3] = {0, 1, 2};
  for (int i = 0; i < n; i++) /* selection sort, descending */
    for (int j = i + 1; j < n; j++)
      if (a[ord[j] * n + ord[j]] > a[ord[i] * n + ord[i]]) {
        int t = ord[i];
        ord[i] = ord[j];
        ord[j] = t;
      }
  for (int r = 0; r < n; r++) {
    int k = ord[r], big = 0;
    vals[r] = a[k * n + k];
    double norm = 0;
    for (int i = 0; i < n; i++) {
      norm += v[i * n + k] * v[i * n + k];
      if (fabs(v[i * n + k]) > fabs(v[big * n + k]))
        big = i;
    }
    double sg = v[big * n + k] < 0 ? -1 : 1;
    for (int i = 0; i < n; i++)
      vecs[r * n + i] = sg * v[i * n + k] / sqrt(norm);
  }
}

static LowVal seq_new(Arena *a, int n) {
  LowVal v;
  memset(&v, 0, sizeof v);
  v.kind = LOWV_SEQ;
  v.n = n;
  v.elems = ARENA_NEW_ARRAY(a, LowVal, n > 0 ? n : 1);
  return v;
}

static double num_of(const LowVal *v) { return v->kind == LOWV_INT ? (double)v->i : v->r; }

static int eval_op(Ev *e, const IrInstr *in, LowVal *out) {
  const IrOpInfo *info = ir_op_info(IR_LOW, in->op);
  const char *name = info ? info->name : "?";
  LowVal *x[8];
  int n = in->nargs;
  LowVal **args = n <= 8 ? x : ARENA_NEW_ARRAY(e->a, LowVal *, n);
  for (int i = 0; i < n; i++) {
    const IrVar *v = in->args[i];
    if (!v || v->id < 0 || v->id >= e->nids || !e->set[v->id])
      return fail(e, "%s: argument %d has no value", name, i + 1);
    args[i] = &e->vals[v->id];
  }
  LowVal *A = n > 0 ? args[0] : NULL, *B = n > 1 ? args[1] : NULL;
  switch (in->op) {
  /* ---- integers ---- */
  case IR_OP_IADD:
  case IR_OP_ISUB:
  case IR_OP_IMUL:
  case IR_OP_IDIV:
  case IR_OP_IMOD:
    if (need(e, A, LOWV_INT, name) || need(e, B, LOWV_INT, name))
      return -1;
    if ((in->op == IR_OP_IDIV || in->op == IR_OP_IMOD) && B->i == 0)
      return fail(e, "%s by 0", name);
    /* wrapping, as the generated code (-fwrapv): the int ^ extension's
     * programs overflow on purpose */
    if ((in->op == IR_OP_IDIV || in->op == IR_OP_IMOD) && B->i == -1) {
      *out = low_val_int(in->op == IR_OP_IDIV ? (int64_t)(0 - (uint64_t)A->i) : 0);
      return 0;
    }
    *out = low_val_int(in->op == IR_OP_IADD   ? (int64_t)((uint64_t)A->i + (uint64_t)B->i)
                       : in->op == IR_OP_ISUB ? (int64_t)((uint64_t)A->i - (uint64_t)B->i)
                       : in->op == IR_OP_IMUL ? (int64_t)((uint64_t)A->i * (uint64_t)B->i)
                       : in->op == IR_OP_IDIV ? A->i / B->i
                                              : A->i % B->i);
    return 0;
  case IR_OP_INEG:
  case IR_OP_IABS:
    if (need(e, A, LOWV_INT, name))
      return -1;
    *out = low_val_int(in->op == IR_OP_INEG || A->i < 0 ? (int64_t)(0 - (uint64_t)A->i) : A->i);
    return 0;
  /* ---- comparison and logic ---- */
  case IR_OP_LT:
  case IR_OP_LE:
  case IR_OP_GT:
  case IR_OP_GE: {
    if (!is_num(A) || A->kind != B->kind)
      return fail(e, "%s: operands", name);
    double a = A->kind == LOWV_INT ? (double)A->i : A->r,
           b = B->kind == LOWV_INT ? (double)B->i : B->r;
    if (A->kind == LOWV_INT) {
      int64_t p = A->i, q = B->i;
      *out = val_bool(in->op == IR_OP_LT   ? p < q
                      : in->op == IR_OP_LE ? p <= q
                      : in->op == IR_OP_GT ? p > q
                                           : p >= q);
    } else {
      *out = val_bool(in->op == IR_OP_LT   ? a < b
                      : in->op == IR_OP_LE ? a <= b
                      : in->op == IR_OP_GT ? a > b
                                           : a >= b);
    }
    return 0;
  }
  case IR_OP_EQ:
  case IR_OP_NE: {
    if (A->kind != B->kind)
      return fail(e, "%s: operand kinds differ", name);
    bool eq = A->kind == LOWV_INT      ? A->i == B->i
              : A->kind == LOWV_REAL   ? A->r == B->r
              : A->kind == LOWV_BOOL   ? A->b == B->b
              : A->kind == LOWV_STRING ? strcmp(A->s, B->s) == 0
                                       : false;
    *out = val_bool(in->op == IR_OP_EQ ? eq : !eq);
    return 0;
  }
  case IR_OP_NOT:
    if (need(e, A, LOWV_BOOL, name))
      return -1;
    *out = val_bool(!A->b);
    return 0;
  case IR_OP_AND:
  case IR_OP_OR:
    if (need(e, A, LOWV_BOOL, name) || need(e, B, LOWV_BOOL, name))
      return -1;
    *out = val_bool(in->op == IR_OP_AND ? A->b && B->b : A->b || B->b);
    return 0;
  case IR_OP_SELECT:
    if (need(e, A, LOWV_BOOL, name))
      return -1;
    *out = A->b ? *args[1] : *args[2];
    return 0;
  case IR_OP_MIN:
  case IR_OP_MAX:
    if (!is_num(A) || A->kind != B->kind)
      return fail(e, "%s: operands", name);
    if (A->kind == LOWV_INT)
      *out = low_val_int(in->op == IR_OP_MIN ? (A->i < B->i ? A->i : B->i)
                                             : (A->i > B->i ? A->i : B->i));
    else
      *out = low_val_real(in->op == IR_OP_MIN ? fmin(A->r, B->r) : fmax(A->r, B->r));
    return 0;
  /* ---- reals ---- */
  case IR_OP_INT_TO_REAL:
    if (need(e, A, LOWV_INT, name))
      return -1;
    *out = low_val_real((double)A->i);
    return 0;
  case IR_OP_SQRT:
  case IR_OP_EXP:
  case IR_OP_LOG:
  case IR_OP_LOG10:
  case IR_OP_LOG2:
  case IR_OP_SIN:
  case IR_OP_COS:
  case IR_OP_TAN:
  case IR_OP_ASIN:
  case IR_OP_ACOS:
  case IR_OP_ATAN:
  case IR_OP_CEIL:
  case IR_OP_FLOOR:
  case IR_OP_ROUND:
  case IR_OP_TRUNC:
  case IR_OP_ERF:
  case IR_OP_ERFC:
  case IR_LOP_RNEG:
    if (need(e, A, LOWV_REAL, name))
      return -1;
    *out = low_val_real(real_fun(in->op, A->r));
    return 0;
  case IR_OP_ATAN2:
  case IR_OP_POW:
  case IR_OP_FMOD:
  case IR_LOP_RADD:
  case IR_LOP_RSUB:
  case IR_LOP_RMUL:
  case IR_LOP_RDIV:
    if (need(e, A, LOWV_REAL, name) || need(e, B, LOWV_REAL, name))
      return -1;
    *out = low_val_real(in->op == IR_OP_ATAN2   ? atan2(A->r, B->r)
                        : in->op == IR_OP_POW   ? pow(A->r, B->r)
                        : in->op == IR_OP_FMOD  ? fmod(A->r, B->r)
                        : in->op == IR_LOP_RADD ? A->r + B->r
                        : in->op == IR_LOP_RSUB ? A->r - B->r
                        : in->op == IR_LOP_RMUL ? A->r * B->r
                                                : A->r / B->r);
    return 0;
  case IR_LOP_FLOOR_TO_INT:
    if (need(e, A, LOWV_REAL, name))
      return -1;
    { /* saturated like the generated d_floor_to_int (int32: +-2^30, NaN low) */
      double f = floor(A->r), b = 1073741824.0;
      *out = low_val_int(f >= -b && f < b ? (int64_t)f : f >= b ? (int64_t)b : -(int64_t)b);
    }
    return 0;
  /* ---- tensors and sequences ---- */
  case IR_OP_TENSOR_CONS: {
    int dims[IR_MAX_ORDER + 1], order = 1, per;
    dims[0] = n;
    if (A->kind == LOWV_REAL) {
      per = 1;
    } else if (A->kind == LOWV_VEC) {
      dims[order++] = A->n;
      per = A->n;
    } else if (A->kind == LOWV_TENSOR) {
      for (int i = 0; i < A->order; i++)
        dims[order++] = A->dims[i];
      per = A->n;
    } else {
      return fail(e, "%s: operands", name);
    }
    *out = low_val_tensor(e->a, order, dims, NULL);
    for (int i = 0; i < n; i++) {
      if (args[i]->kind != A->kind || (A->kind != LOWV_REAL && args[i]->n != per))
        return fail(e, "%s: operands differ", name);
      if (A->kind == LOWV_REAL)
        out->v[i] = args[i]->r;
      else
        memcpy(out->v + i * per, args[i]->v, sizeof(double) * (size_t)per);
    }
    return 0;
  }
  case IR_OP_TENSOR_INDEX: {
    if (need(e, A, LOWV_TENSOR, name))
      return -1;
    if (in->nimm < 1 || in->nimm > A->order)
      return fail(e, "%s: immediates", name);
    int flat = 0, per = 1;
    for (int i = 0; i < A->order; i++) {
      int c = i < in->nimm ? in->imm[i] : 0;
      if (c < 0 || c >= A->dims[i])
        return fail(e, "%s: index out of range", name);
      flat = flat * A->dims[i] + c;
      if (i >= in->nimm)
        per *= A->dims[i];
    }
    *out = low_val_tensor(e->a, A->order - in->nimm, A->dims + in->nimm, A->v + flat);
    (void)per;
    return 0;
  }
  case IR_OP_SEQ_CONS:
    memset(out, 0, sizeof *out);
    out->kind = LOWV_SEQ;
    out->n = n;
    out->elems = ARENA_NEW_ARRAY(e->a, LowVal, n > 0 ? n : 1);
    for (int i = 0; i < n; i++)
      out->elems[i] = *args[i];
    return 0;
  case IR_OP_SEQ_INDEX:
    if (need(e, A, LOWV_SEQ, name) || need(e, B, LOWV_INT, name))
      return -1;
    if (B->i < 0 || B->i >= A->n)
      return fail(e, "%s: index %lld out of range", name, (long long)B->i);
    *out = A->elems[B->i];
    return 0;
  case IR_OP_SEQ_LENGTH:
    if (need(e, A, LOWV_SEQ, name))
      return -1;
    *out = low_val_int(A->n);
    return 0;
  case IR_OP_IMAGE_SIZE: {
    if (need(e, A, LOWV_IMAGE, name))
      return -1;
    int64_t s[3] = {A->img->sizes[0], A->img->sizes[1], A->img->sizes[2]};
    *out = low_val_ints(e->a, A->img->dim, s);
    return 0;
  }
  case IR_LOP_IMG_TRANSFORM:
  case IR_LOP_IMG_TRANSLATE: {
    if (need(e, A, LOWV_IMAGE, name))
      return -1;
    int d = A->img->dim, dd[2] = {d, d};
    if (d == 1)
      *out = low_val_real(in->op == IR_LOP_IMG_TRANSFORM ? A->img->W[0] : A->img->t[0]);
    else if (in->op == IR_LOP_IMG_TRANSFORM)
      *out = low_val_tensor(e->a, 2, dd, A->img->W);
    else
      *out = low_val_tensor(e->a, 1, dd, A->img->t);
    return 0;
  }
  /* ---- vectors ---- */
  case IR_LOP_VADD:
  case IR_LOP_VSUB:
  case IR_LOP_VMUL:
  case IR_LOP_VDIV:
  case IR_LOP_VDOT:
    if (need(e, A, LOWV_VEC, name) || need(e, B, LOWV_VEC, name))
      return -1;
    if (A->n != B->n)
      return fail(e, "%s: widths %d and %d", name, A->n, B->n);
    if (in->op == IR_LOP_VDOT) {
      double s = 0;
      for (int l = 0; l < A->n; l++)
        s += A->v[l] * B->v[l];
      *out = low_val_real(s);
      return 0;
    }
    *out = val_vec(e->a, A->n);
    for (int l = 0; l < A->n; l++)
      out->v[l] = in->op == IR_LOP_VADD   ? A->v[l] + B->v[l]
                  : in->op == IR_LOP_VSUB ? A->v[l] - B->v[l]
                  : in->op == IR_LOP_VMUL ? A->v[l] * B->v[l]
                                          : A->v[l] / B->v[l];
    return 0;
  case IR_LOP_VNEG:
  case IR_LOP_VSUM:
    if (need(e, A, LOWV_VEC, name))
      return -1;
    if (in->op == IR_LOP_VSUM) {
      double s = 0;
      for (int l = 0; l < A->n; l++)
        s += A->v[l];
      *out = low_val_real(s);
      return 0;
    }
    *out = val_vec(e->a, A->n);
    for (int l = 0; l < A->n; l++)
      out->v[l] = -A->v[l];
    return 0;
  case IR_LOP_VSCALE:
    if (need(e, A, LOWV_REAL, name) || need(e, B, LOWV_VEC, name))
      return -1;
    *out = val_vec(e->a, B->n);
    for (int l = 0; l < B->n; l++)
      out->v[l] = A->r * B->v[l];
    return 0;
  case IR_LOP_VINDEX:
    if (need(e, A, LOWV_VEC, name))
      return -1;
    if (in->nimm != 1 || in->imm[0] < 0 || in->imm[0] >= A->n)
      return fail(e, "%s: lane", name);
    *out = low_val_real(A->v[in->imm[0]]);
    return 0;
  case IR_LOP_VSPLAT:
    if (need(e, A, LOWV_REAL, name))
      return -1;
    if (in->nimm != 1 || in->imm[0] < 1)
      return fail(e, "%s: width", name);
    *out = val_vec(e->a, in->imm[0]);
    for (int l = 0; l < out->n; l++)
      out->v[l] = A->r;
    return 0;
  case IR_LOP_VSLICE:
    if (need(e, A, LOWV_VEC, name))
      return -1;
    if (in->nimm != 2 || in->imm[0] < 0 || in->imm[1] < 1 || in->imm[0] + in->imm[1] > A->n)
      return fail(e, "%s: lanes", name);
    *out = val_vec(e->a, in->imm[1]);
    memcpy(out->v, A->v + in->imm[0], sizeof(double) * (size_t)in->imm[1]);
    return 0;
  case IR_LOP_VCONS:
    *out = val_vec(e->a, n);
    for (int l = 0; l < n; l++) {
      if (need(e, args[l], LOWV_REAL, name))
        return -1;
      out->v[l] = args[l]->r;
    }
    return 0;
  case IR_LOP_VEC_TO_TENSOR:
    if (need(e, A, LOWV_VEC, name))
      return -1;
    *out = low_val_tensor(e->a, 1, &A->n, A->v);
    return 0;
  case IR_LOP_TENSOR_TO_VEC:
    if (A->kind == LOWV_REAL) {
      *out = val_vec(e->a, 1);
      out->v[0] = A->r;
      return 0;
    }
    if (need(e, A, LOWV_TENSOR, name))
      return -1;
    if (A->order != 1)
      return fail(e, "%s: order %d", name, A->order);
    *out = val_vec(e->a, A->n);
    memcpy(out->v, A->v, sizeof(double) * (size_t)A->n);
    return 0;
  case IR_LOP_HORNER: {
    if (n < 2)
      return fail(e, "%s: arity", name);
    if (A->kind == LOWV_REAL) {
      double r = 0;
      for (int i = n - 1; i >= 1; i--) {
        if (need(e, args[i], LOWV_REAL, name))
          return -1;
        r = r * A->r + args[i]->r;
      }
      *out = low_val_real(r);
      return 0;
    }
    if (need(e, A, LOWV_VEC, name))
      return -1;
    *out = val_vec(e->a, A->n);
    for (int l = 0; l < A->n; l++) {
      double r = 0;
      for (int i = n - 1; i >= 1; i--) {
        if (args[i]->kind != LOWV_VEC || args[i]->n != A->n)
          return fail(e, "%s: coefficients", name);
        r = r * A->v[l] + args[i]->v[l];
      }
      out->v[l] = r;
    }
    return 0;
  }
  /* ---- image memory ---- */
  case IR_LOP_LOAD:
  case IR_LOP_VLOAD: {
    if (need(e, A, LOWV_IMAGE, name) || need(e, B, LOWV_INT, name))
      return -1;
    const LowImage *img = A->img;
    int64_t total = img->ncomp;
    for (int a = 0; a < img->dim; a++)
      total *= img->sizes[a];
    if (img->nsamples > 0)
      total = img->nsamples;
    int w = in->op == IR_LOP_VLOAD ? (in->nimm == 1 ? in->imm[0] : 0) : 1;
    if (w < 1)
      return fail(e, "%s: width", name);
    if (B->i < 0 || B->i + w > total)
      return fail(e, "%s: offset %lld (+%d) outside the image's %lld samples", name,
                  (long long)B->i, w, (long long)total);
    if (e->stats)
      e->stats->loads += w;
    if (in->op == IR_LOP_LOAD) {
      *out = low_val_real(img->data[B->i]);
    } else {
      *out = val_vec(e->a, w);
      memcpy(out->v, img->data + B->i, sizeof(double) * (size_t)w);
    }
    return 0;
  }
  case IR_LOP_CLAMP_INDEX:
  case IR_LOP_MIRROR_INDEX:
  case IR_LOP_WRAP_INDEX:
    if (need(e, A, LOWV_INT, name) || need(e, B, LOWV_INT, name))
      return -1;
    if (B->i < 1)
      return fail(e, "%s: size %lld", name, (long long)B->i);
    *out = low_val_int(in->op == IR_LOP_CLAMP_INDEX    ? map_clamp(A->i, B->i)
                       : in->op == IR_LOP_MIRROR_INDEX ? map_mirror(A->i, B->i)
                                                       : map_wrap(A->i, B->i));
    return 0;
  case IR_OP_POWI:
    if (need(e, A, LOWV_REAL, name) || need(e, B, LOWV_INT, name))
      return -1;
    *out = low_val_real(pow(A->r, (double)B->i));
    return 0;
  case IR_OP_CLAMP: {
    /* clamp(lo, hi, x): lo and hi are reals (broadcast) or x's shape */
    int nl = 0, nh = 0, nx = 0;
    const double *lo = comps_of(A, &nl), *hi = comps_of(B, &nh), *x = comps_of(args[2], &nx);
    if (!lo || !hi || !x || (nl != 1 && nl != nx) || (nh != 1 && nh != nx))
      return fail(e, "%s: operands", name);
    double r[64];
    if (nx > 64)
      return fail(e, "%s: too many components", name);
    for (int i = 0; i < nx; i++) {
      double l = lo[nl == 1 ? 0 : i], h = hi[nh == 1 ? 0 : i];
      r[i] = x[i] < l ? l : (x[i] > h ? h : x[i]);
    }
    *out = like(e->a, args[2], r);
    return 0;
  }
  case IR_OP_INV:
  case IR_OP_EVALS:
  case IR_OP_EVECS: {
    int nc;
    const double *m = comps_of(A, &nc);
    if (m && A->kind == LOWV_REAL && in->op == IR_OP_INV) {
      *out = low_val_real(1 / A->r);
      return 0;
    }
    int d = nc == 4 ? 2 : 3;
    if (!m || A->kind != LOWV_TENSOR || (nc != 4 && nc != 9))
      return fail(e, "%s: a 2x2 or 3x3 matrix expected", name);
    double r[9], vals[3];
    if (in->op == IR_OP_INV) {
      mat_inverse(d, m, r);
      *out = like(e->a, A, r);
      return 0;
    }
    sym_eigen(d, m, vals, r);
    /* real[d] and vecd[d] are sequences */
    *out = seq_new(e->a, d);
    for (int i = 0; i < d; i++)
      out->elems[i] = in->op == IR_OP_EVALS ? low_val_real(vals[i]) : low_val_tensor(e->a, 1, &d, r + i * d);
    return 0;
  }
  case IR_OP_SEQ_APPEND:
  case IR_OP_SEQ_PREPEND:
  case IR_OP_SEQ_CONCAT: {
    const LowVal *first = A, *second = B;
    int n1 = 1, n2 = 1;
    if (in->op != IR_OP_SEQ_PREPEND) {
      if (need(e, A, LOWV_SEQ, name))
        return -1;
      n1 = A->n;
    }
    if (in->op != IR_OP_SEQ_APPEND) {
      if (need(e, B, LOWV_SEQ, name))
        return -1;
      n2 = B->n;
    }
    *out = seq_new(e->a, n1 + n2);
    for (int i = 0; i < n1; i++)
      out->elems[i] = in->op == IR_OP_SEQ_PREPEND ? *first : first->elems[i];
    for (int i = 0; i < n2; i++)
      out->elems[n1 + i] = in->op == IR_OP_SEQ_APPEND ? *second : second->elems[i];
    return 0;
  }
  case IR_OP_RANGE: {
    if (need(e, A, LOWV_INT, name) || need(e, B, LOWV_INT, name))
      return -1;
    if (B->i - A->i > 1000000)
      return fail(e, "%s: too long", name);
    int len = B->i < A->i ? 0 : (int)(B->i - A->i + 1);
    *out = seq_new(e->a, len);
    for (int i = 0; i < len; i++)
      out->elems[i] = low_val_int(A->i + i);
    return 0;
  }
  case IR_OP_RED_ALL:
  case IR_OP_RED_EXISTS: {
    if (need(e, A, LOWV_SEQ, name))
      return -1;
    bool all = in->op == IR_OP_RED_ALL, r = all;
    for (int i = 0; i < A->n; i++) {
      if (need(e, &A->elems[i], LOWV_BOOL, name))
        return -1;
      r = all ? r && A->elems[i].b : r || A->elems[i].b;
    }
    *out = val_bool(r);
    return 0;
  }
  case IR_OP_RED_SUM:
  case IR_OP_RED_PRODUCT:
  case IR_OP_RED_MIN:
  case IR_OP_RED_MAX:
  case IR_OP_RED_MEAN: {
    if (need(e, A, LOWV_SEQ, name))
      return -1;
    bool isint = in->dst && in->dst->ty && in->dst->ty->kind == IR_TY_INT;
    int64_t ir = in->op == IR_OP_RED_PRODUCT ? 1 : in->op == IR_OP_RED_MIN ? INT64_MAX
                 : in->op == IR_OP_RED_MAX ? INT64_MIN : 0;
    double rr = in->op == IR_OP_RED_PRODUCT ? 1 : in->op == IR_OP_RED_MIN ? INFINITY
                : in->op == IR_OP_RED_MAX ? -INFINITY : 0;
    for (int i = 0; i < A->n; i++) {
      const LowVal *x = &A->elems[i];
      if (!is_num(x) || (x->kind == LOWV_INT) != isint)
        return fail(e, "%s: elements", name);
      double xr = num_of(x);
      switch (in->op) {
      case IR_OP_RED_PRODUCT: ir *= x->i, rr *= xr; break;
      case IR_OP_RED_MIN: ir = x->i < ir ? x->i : ir, rr = fmin(rr, xr); break;
      case IR_OP_RED_MAX: ir = x->i > ir ? x->i : ir, rr = fmax(rr, xr); break;
      default: ir += x->i, rr += xr; break;
      }
    }
    if (in->op == IR_OP_RED_MEAN)
      *out = low_val_real(rr / A->n);
    else
      *out = isint ? low_val_int(ir) : low_val_real(rr);
    return 0;
  }
  default: break;
  }
  return fail(e, "operator '%s' is not interpreted", name);
}

static int eval_instr(Ev *e, const IrInstr *in) {
  LowVal out;
  memset(&out, 0, sizeof out);
  switch (in->kind) {
  case IR_I_LIT:
    switch (in->lit.kind) {
    case IR_LIT_BOOL: out = val_bool(in->lit.b); break;
    case IR_LIT_INT: out = low_val_int(in->lit.i); break;
    case IR_LIT_REAL: out = low_val_real(in->lit.r); break;
    case IR_LIT_STRING:
      out.kind = LOWV_STRING;
      out.s = in->lit.s;
      break;
    case IR_LIT_KERNEL: return fail(e, "a kernel literal in LowIR");
    }
    break;
  case IR_I_COPY:
    if (!e->set[in->args[0]->id])
      return fail(e, "copy of an undefined value");
    out = e->vals[in->args[0]->id];
    break;
  case IR_I_OP:
    if (!in->dst && e->env &&
        (in->op == IR_OP_PRINT || in->op == IR_OP_NEW || in->op == IR_OP_CREATE_GRID ||
         in->op == IR_OP_STABILIZE_ALL || in->op == IR_OP_DIE_ALL)) {
      /* recorded as printed values: the operator, then its arguments */
      if (in->op != IR_OP_PRINT) {
        if (e->env->printed && e->env->print_n < e->env->print_cap)
          e->env->printed[e->env->print_n] = -1000.0 - in->op;
        e->env->print_n++;
      }
      for (int k = 0; k < in->nargs; k++) {
        const LowVal *x = in->args[k] && e->set[in->args[k]->id] ? &e->vals[in->args[k]->id] : NULL;
        if (!x)
          return fail(e, "print of an undefined value");
        int n = x->kind == LOWV_VEC || x->kind == LOWV_TENSOR ? x->n : 1;
        for (int c = 0; c < n; c++) {
          double d = x->kind == LOWV_REAL ? x->r
                     : x->kind == LOWV_INT ? (double)x->i
                     : x->kind == LOWV_BOOL ? (double)x->b
                     : (x->kind == LOWV_VEC || x->kind == LOWV_TENSOR) ? x->v[c]
                                                                        : 0; /* strings */
          if (e->env->printed && e->env->print_n < e->env->print_cap)
            e->env->printed[e->env->print_n] = d;
          e->env->print_n++;
        }
      }
      return 0;
    }
    if (!in->dst && in->op == IR_LOP_PROBE_FAIL)
      return fail(e, "a probe outside its image (run-time error)");
    if (!in->dst && in->op == IR_OP_INDEX_FAIL)
      return fail(e, "an index out of range (run-time error)");
    if (!in->dst)
      return fail(e, "effects are not interpreted");
    if (eval_op(e, in, &out))
      return -1;
    break;
  case IR_I_GLOBAL_GET:
    if (in->global && e->env && e->env->globals_set && e->env->globals_set[in->global->index]) {
      out = e->env->globals_out[in->global->index]; /* written earlier in this run */
      break;
    }
    if (!e->globals || !in->global || in->global->index < 0 || in->global->index >= e->nglobals)
      return fail(e, "read of a global without a value");
    out = e->globals[in->global->index];
    break;
  case IR_I_STATE_GET:
    if (!e->env || !e->env->state || in->nargs > 0 || !in->state)
      return fail(e, "strand state read without a value");
    out = e->env->state_set && e->env->state_set[in->state->index]
              ? e->env->state_out[in->state->index]
              : e->env->state[in->state->index];
    break;
  case IR_I_STATE_SET:
  case IR_I_GLOBAL_SET: {
    if (!e->env || !in->args[0] || !e->set[in->args[0]->id])
      return fail(e, "global writes and strand state are not interpreted");
    LowVal x = e->vals[in->args[0]->id];
    if (in->kind == IR_I_STATE_SET && in->state && e->env->state_out) {
      e->env->state_out[in->state->index] = x;
      e->env->state_set[in->state->index] = true;
    } else if (in->kind == IR_I_GLOBAL_SET && in->global && e->env->globals_out) {
      e->env->globals_out[in->global->index] = x;
      e->env->globals_set[in->global->index] = true;
    }
    return 0;
  }
  default: return fail(e, "global writes and strand state are not interpreted");
  }
  if (!in->dst || in->dst->id < 0 || in->dst->id >= e->nids)
    return fail(e, "bad destination");
  e->vals[in->dst->id] = out;
  e->set[in->dst->id] = true;
  if (e->stats)
    e->stats->instrs++;
  return 0;
}

int low_eval_cfg(Arena *a, const IrCFG *cfg, const LowVal *params, const LowVal *globals,
                 LowVal *result, LowEvalStats *stats, char *err, size_t errlen) {
  return low_eval_cfg_env(a, cfg, params, globals, NULL, result, stats, err, errlen);
}

int low_eval_cfg_env(Arena *a, const IrCFG *cfg, const LowVal *params, const LowVal *globals,
                     LowEvalEnv *env, LowVal *result, LowEvalStats *stats, char *err,
                     size_t errlen) {
  Ev e;
  memset(&e, 0, sizeof e);
  e.env = env;
  e.a = a;
  e.err = err;
  e.errlen = errlen;
  e.stats = stats;
  e.globals = globals;
  e.nglobals = cfg ? cfg->module->nglobals : 0;
  if (!cfg || cfg->module->level != IR_LOW)
    return fail(&e, "not a LowIR CFG");
  e.nids = cfg->module->next_var_id;
  e.vals = ARENA_NEW_ARRAY(a, LowVal, e.nids + 1);
  e.set = ARENA_NEW_ARRAY(a, bool, e.nids + 1);
  for (int i = 0; i < cfg->nparams; i++) {
    e.vals[cfg->params[i]->id] = params[i];
    e.set[cfg->params[i]->id] = true;
  }
  const IrBlock *b = cfg->entry, *prev = NULL;
  for (long steps = 0; b && steps < 100000; steps++) {
    if (b->nphis) { /* all phis read the values from before the block */
      LowVal *tmp = ARENA_NEW_ARRAY(a, LowVal, b->nphis);
      int k = -1;
      for (int j = 0; j < b->npreds; j++)
        if (b->preds[j] == prev) {
          k = j;
          break;
        }
      if (k < 0)
        return fail(&e, "phi reached from a non-predecessor");
      for (int i = 0; i < b->nphis; i++) {
        const IrVar *v = b->phis[i]->args[k];
        if (!v || !e.set[v->id])
          return fail(&e, "phi argument without a value");
        tmp[i] = e.vals[v->id];
      }
      for (int i = 0; i < b->nphis; i++) {
        e.vals[b->phis[i]->dst->id] = tmp[i];
        e.set[b->phis[i]->dst->id] = true;
      }
    }
    for (int i = 0; i < b->ninstrs; i++)
      if (eval_instr(&e, b->instrs[i]))
        return -1;
    const IrTerm *t = &b->term;
    prev = b;
    switch (t->kind) {
    case IR_T_JUMP: b = t->succ[0]; break;
    case IR_T_BRANCH:
      if (!t->value || !e.set[t->value->id] || e.vals[t->value->id].kind != LOWV_BOOL)
        return fail(&e, "branch on a non-boolean");
      b = e.vals[t->value->id].b ? t->succ[0] : t->succ[1];
      break;
    case IR_T_RETURN:
      if (t->value) {
        if (!e.set[t->value->id])
          return fail(&e, "return of an undefined value");
        if (result)
          *result = e.vals[t->value->id];
      }
      if (env)
        env->exit = IR_T_RETURN;
      return 0;
    default:
      if (env)
        env->exit = t->kind;
      return 0;
    }
  }
  return fail(&e, "step limit reached");
}
