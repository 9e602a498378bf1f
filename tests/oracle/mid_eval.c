/* mid_eval.c -- reference interpreter for MidIR CFGs (see mid_eval.h). */
#include "mid_eval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ein_eval.h"

typedef struct Run {
  const IrCFG *cfg;
  MidValue *vals; /* by variable id */
  int nvals;
  char *err;
  size_t errlen;
  bool failed;
} Run;

static int fail(Run *r, const char *msg, const char *what) {
  if (!r->failed && r->err && r->errlen) snprintf(r->err, r->errlen, "%s%s%s", msg, what ? ": " : "", what ? what : "");
  r->failed = true;
  return -1;
}

int mid_border_index(IrBorder mode, int i, int n) {
  switch (mode) {
  case IR_BORDER_NONE: return i;
  case IR_BORDER_CLAMP: return i < 0 ? 0 : (i >= n ? n - 1 : i);
  case IR_BORDER_MIRROR: {
    if (i < 0) i = -1 - i;
    if (i < n) return i;
    int q = i / n, r = i - q * n;
    return q % 2 == 0 ? r : n - 1 - r;
  }
  case IR_BORDER_WRAP:
    if (i < 0) return (n - 1) + ((i + 1) % n);
    if (i >= n) return i % n;
    return i;
  }
  return i;
}

MidValue mid_tensor_value(int n, const double *x) {
  MidValue v;
  memset(&v, 0, sizeof v);
  v.kind = MV_TENSOR;
  v.n = n;
  v.t = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (v.t && x) memcpy(v.t, x, sizeof(double) * (size_t)n);
  return v;
}

MidValue mid_image_value(const MidImage *img) {
  MidValue v;
  memset(&v, 0, sizeof v);
  v.kind = MV_IMAGE;
  v.img = img;
  return v;
}

void mid_value_free(MidValue *v) {
  free(v->t);
  free(v->ints);
  v->t = NULL;
  v->ints = NULL;
}

static MidValue copy_value(const MidValue *s) {
  MidValue v = *s;
  if (s->t) {
    v.t = malloc(sizeof(double) * (size_t)(s->n > 0 ? s->n : 1));
    memcpy(v.t, s->t, sizeof(double) * (size_t)s->n);
  }
  if (s->ints) {
    v.ints = malloc(sizeof(long) * (size_t)(s->n > 0 ? s->n : 1));
    memcpy(v.ints, s->ints, sizeof(long) * (size_t)s->n);
  }
  return v;
}

static int type_size(const IrType *t) {
  int n = 1;
  for (int i = 0; i < t->order; i++) n *= t->dims[i];
  return n;
}

static MidValue *val(Run *r, const IrVar *v) {
  if (!v || v->id < 0 || v->id >= r->nvals || r->vals[v->id].kind == MV_NONE) {
    fail(r, "use of an undefined value", v ? v->name : NULL);
    return NULL;
  }
  return &r->vals[v->id];
}

static void set(Run *r, const IrVar *v, MidValue x) {
  mid_value_free(&r->vals[v->id]);
  r->vals[v->id] = x;
}

static MidValue tensor_of(int n) {
  MidValue v = mid_tensor_value(n, NULL);
  for (int i = 0; i < n; i++) v.t[i] = 0;
  return v;
}

static int eval_op(Run *r, const IrInstr *in) {
  MidValue *a[8] = {0};
  for (int i = 0; i < in->nargs && i < 8; i++)
    if (!(a[i] = val(r, in->args[i]))) return -1;
  const IrType *rt = in->dst ? in->dst->ty : NULL;
  MidValue out;
  memset(&out, 0, sizeof out);
  const char *name = ir_op_info(IR_MID, in->op)->name;
  switch (in->op) {
  case IR_MOP_WORLD_TO_INDEX: {
    const MidImage *im = a[0]->img;
    int d = im->dim;
    out = tensor_of(d);
    for (int i = 0; i < d; i++) {
      double s = im->t[i];
      for (int j = 0; j < d; j++) s += im->W[i][j] * a[1]->t[j];
      out.t[i] = s;
    }
    break;
  }
  case IR_MOP_IMG_TRANSFORM: {
    const MidImage *im = a[0]->img;
    int d = im->dim;
    out = tensor_of(d * d);
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++) out.t[i * d + j] = im->W[i][j];
    break;
  }
  case IR_MOP_IMG_TRANSLATE: out = mid_tensor_value(a[0]->img->dim, a[0]->img->t); break;
  case IR_MOP_TFLOOR:
  case IR_MOP_TFRACT:
    out = tensor_of(a[0]->n);
    for (int i = 0; i < a[0]->n; i++)
      out.t[i] = in->op == IR_MOP_TFLOOR ? floor(a[0]->t[i]) : a[0]->t[i] - floor(a[0]->t[i]);
    break;
  case IR_MOP_REAL_TO_INT:
    if (rt->kind == IR_TY_INT) {
      out.kind = MV_INT;
      out.i = (long)a[0]->t[0];
    } else {
      out.kind = MV_INTS;
      out.n = a[0]->n;
      out.ints = malloc(sizeof(long) * (size_t)out.n);
      for (int i = 0; i < out.n; i++) out.ints[i] = (long)a[0]->t[i];
    }
    break;
  case IR_MOP_LOAD_VOXELS: {
    const MidImage *im = a[0]->img;
    int d = im->dim, s = in->imm[0], w = 2 * s, C = im->ncomp, taps = 1;
    IrBorder mode = (IrBorder)in->imm[1];
    long n[3];
    for (int i = 0; i < d; i++) n[i] = a[1]->kind == MV_INT ? a[1]->i : a[1]->ints[i];
    for (int i = 0; i < d; i++) taps *= w;
    out = tensor_of(taps * C);
    for (int tap = 0; tap < taps; tap++) {
      /* tensor index (t_0, ..., t_{d-1}) row-major: t_{d-1} fastest */
      int rest = tap, off = 0, stride = 1;
      int ti[3];
      for (int ax = d - 1; ax >= 0; ax--) {
        ti[ax] = rest % w;
        rest /= w;
      }
      for (int ax = 0; ax < d; ax++) {
        int idx = (int)n[ax] + ti[ax] + 1 - s;
        idx = mid_border_index(mode, idx, im->size[ax]);
        if (idx < 0 || idx >= im->size[ax]) {
          mid_value_free(&out);
          return fail(r, "voxel outside the image", NULL);
        }
        off += idx * stride;
        stride *= im->size[ax];
      }
      for (int c = 0; c < C; c++) out.t[tap * C + c] = im->data[c + C * off];
    }
    break;
  }
  case IR_MOP_KERNEL_EVAL: {
    int j = in->imm[0], s = in->imm[1];
    out = tensor_of(2 * s);
    for (int k = 0; k < 2 * s; k++) out.t[k] = kernel_eval(a[0]->k, j, a[1]->t[0] - (k + 1 - s));
    break;
  }
  case IR_MOP_INSIDE_IMAGE: {
    const MidImage *im = a[0]->img;
    int s = in->imm[0];
    out.kind = MV_BOOL;
    out.b = true;
    for (int i = 0; i < im->dim; i++)
      if (!(s - 1 < a[1]->t[i] && a[1]->t[i] < im->size[i] - s)) out.b = false;
    break;
  }
  case IR_OP_TENSOR_INDEX: {
    const IrType *at = in->args[0]->ty;
    int off = 0;
    for (int k = 0; k < at->order; k++) off = off * at->dims[k] + (k < in->nimm ? in->imm[k] : 0);
    out = mid_tensor_value(type_size(rt), a[0]->t + off);
    break;
  }
  case IR_OP_TENSOR_CONS: {
    int m = type_size(in->args[0]->ty);
    out = tensor_of(m * in->nargs);
    for (int k = 0; k < in->nargs; k++) {
      MidValue *x = val(r, in->args[k]);
      if (!x) return -1;
      memcpy(out.t + k * m, x->t, sizeof(double) * (size_t)m);
    }
    break;
  }
  case IR_OP_AND:
  case IR_OP_OR:
    out.kind = MV_BOOL;
    out.b = in->op == IR_OP_AND ? (a[0]->b && a[1]->b) : (a[0]->b || a[1]->b);
    break;
  case IR_OP_NOT:
    out.kind = MV_BOOL;
    out.b = !a[0]->b;
    break;
  case IR_MOP_EIN: {
    const EinOp *op = in->ein;
    EinEvalArg *ea = calloc((size_t)(op->nparams > 0 ? op->nparams : 1), sizeof *ea);
    for (int p = 0; p < op->nparams; p++) {
      MidValue *x = val(r, in->args[p]);
      if (!x || x->kind != MV_TENSOR) {
        free(ea);
        return fail(r, "EIN argument is not a tensor", NULL);
      }
      ea[p].tensor = x->t;
    }
    out = tensor_of(ein_eval_size(op));
    char e2[160];
    int rc = ein_eval(op, ea, NULL, out.t, e2, sizeof e2);
    free(ea);
    if (rc) {
      mid_value_free(&out);
      return fail(r, "ein_eval", e2);
    }
    break;
  }
  default: return fail(r, "operator not supported by the interpreter", name);
  }
  set(r, in->dst, out);
  return 0;
}

static int eval_instr(Run *r, const IrInstr *in) {
  switch (in->kind) {
  case IR_I_LIT: {
    MidValue v;
    memset(&v, 0, sizeof v);
    switch (in->lit.kind) {
    case IR_LIT_BOOL: v.kind = MV_BOOL; v.b = in->lit.b; break;
    case IR_LIT_INT: v.kind = MV_INT; v.i = (long)in->lit.i; break;
    case IR_LIT_REAL: v = mid_tensor_value(1, &in->lit.r); break;
    case IR_LIT_KERNEL: v.kind = MV_KERNEL; v.k = in->lit.kernel; break;
    default: return fail(r, "literal kind not supported", NULL);
    }
    set(r, in->dst, v);
    return 0;
  }
  case IR_I_COPY: {
    MidValue *x = val(r, in->args[0]);
    if (!x) return -1;
    set(r, in->dst, copy_value(x));
    return 0;
  }
  case IR_I_OP: return eval_op(r, in);
  default: return fail(r, "instruction kind not supported", NULL);
  }
}

int mid_eval_cfg(const IrCFG *cfg, const MidValue *params, MidValue *result, char *err,
                 size_t errlen) {
  Run r = {cfg, NULL, cfg->module->next_var_id, err, errlen, false};
  r.vals = calloc((size_t)(r.nvals > 0 ? r.nvals : 1), sizeof *r.vals);
  memset(result, 0, sizeof *result);
  for (int i = 0; i < cfg->nparams; i++) r.vals[cfg->params[i]->id] = copy_value(&params[i]);
  const IrBlock *b = cfg->entry, *prev = NULL;
  int rc = -1;
  for (int steps = 0; b && steps < 100000; steps++) {
    /* phis read the values of the edge taken (all at once) */
    if (b->nphis) {
      int k = prev ? ir_block_pred_index(b, prev) : -1;
      if (k < 0) {
        fail(&r, "phi without a predecessor", NULL);
        goto done;
      }
      MidValue *tmp = calloc((size_t)b->nphis, sizeof *tmp);
      for (int i = 0; i < b->nphis; i++) {
        MidValue *x = val(&r, b->phis[i]->args[k]);
        if (x) tmp[i] = copy_value(x);
      }
      for (int i = 0; i < b->nphis; i++) set(&r, b->phis[i]->dst, tmp[i]);
      free(tmp);
      if (r.failed) goto done;
    }
    for (int i = 0; i < b->ninstrs; i++)
      if (eval_instr(&r, b->instrs[i])) goto done;
    prev = b;
    switch (b->term.kind) {
    case IR_T_JUMP: b = b->term.succ[0]; break;
    case IR_T_BRANCH: {
      MidValue *c = val(&r, b->term.value);
      if (!c) goto done;
      b = b->term.succ[c->b ? 0 : 1];
      break;
    }
    case IR_T_RETURN:
      if (b->term.value) {
        MidValue *x = val(&r, b->term.value);
        if (!x) goto done;
        *result = copy_value(x);
      }
      rc = 0;
      goto done;
    default: fail(&r, "terminator not supported", NULL); goto done;
    }
  }
  fail(&r, "no return", NULL);
done:
  for (int i = 0; i < r.nvals; i++) mid_value_free(&r.vals[i]);
  free(r.vals);
  return rc;
}
