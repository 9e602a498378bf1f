/* test_low.c -- MidIR → LowIR lowering (src/translate/mid_to_low*.c).
 *
 * MidIR is built by hand, lowered, checked with ir_check and run by the
 * LowIR interpreter tests/oracle/low_eval. Expected values come from
 * independent oracles:
 *   - EIN operators: the closed-form formula written in C here, and the EIN
 *     evaluator tests/oracle/ein_eval;
 *   - kernel taps: kernel_eval() of src/common/kernel.h at f − i;
 *   - voxel neighbourhoods: offsets c + C·(i0 + N0·(i1 + N1·i2)) from
 *     doc/language.md §6.1 with the border maps of §6.4 written out here;
 *   - a whole probe: the separable convolution of §6.3 computed directly.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../oracle/ein_eval.h"
#include "../oracle/low_eval.h"
#include "ir/ein.h"
#include "ir/ir.h"
#include "translate/mid_to_low.h"
#include "unit.h"
#include "util/diag.h"
#include "util/source.h"

/* ---- helpers ---------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* Uniform in [-1, 1] (xorshift64*). */
static double rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  uint64_t x = rng_state * 0x2545f4914f6cdd1dull;
  return (double)(x >> 11) / (double)(1ull << 53) * 2.0 - 1.0;
}

static int count_op(const IrModule *m, int op) {
  int n = 0;
  for (int c = 0; c < m->ncfgs; c++)
    for (int b = 0; b < m->cfgs[c]->nblocks; b++) {
      const IrBlock *bl = m->cfgs[c]->blocks[b];
      for (int i = 0; i < bl->ninstrs; i++)
        if (bl->instrs[i]->kind == IR_I_OP && bl->instrs[i]->op == op)
          n++;
    }
  return n;
}

/* Integer index arithmetic: what value numbering should share. */
static int count_index_ops(const IrModule *m) {
  static const int ops[] = {IR_OP_IADD,         IR_OP_IMUL,          IR_OP_ISUB,
                            IR_LOP_CLAMP_INDEX, IR_LOP_MIRROR_INDEX, IR_LOP_WRAP_INDEX};
  int n = 0;
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    n += count_op(m, ops[i]);
  return n;
}

/* Lower, printing the diagnostics of a failure. */
static IrModule *lower(IrModule *mid, const MidToLowOptions *o, MidToLowStats *st) {
  Source *src = source_from_memory(mid->arena, "test", "x", 1);
  DiagCtx *dg = diag_new(mid->arena, src);
  IrModule *low = mid_to_low(mid, dg, o, st);
  if (!low)
    diag_flush(dg);
  if (low && getenv("TEST_LOW_DUMP"))
    ir_print_module(stdout, low, 0); /* for inspection */
  return low;
}

static void check_module(IrModule *low) {
  IrCheck chk;
  memset(&chk, 0, sizeof chk);
  int n = ir_check_module(low, &chk);
  CHECK_MSG(n == 0, "%d LowIR check errors, first: %s", n, chk.first);
}

/* Components of a result value, row-major. */
static int flat_values(const LowVal *v, double *out, int max) {
  if (v->kind == LOWV_REAL) {
    out[0] = v->r;
    return 1;
  }
  if (v->kind != LOWV_TENSOR || v->n > max)
    return -1;
  memcpy(out, v->v, sizeof(double) * (size_t)v->n);
  return v->n;
}

static double tol_for(double want) { return 1e-12 * (fabs(want) > 1 ? fabs(want) : 1); }

/* ---- EIN operators ------------------------------------------------------------------- */

#define IV(x) ein_ivar(x)
#define IC(x) ein_icon(x)

static const EinExpr *T1(EinContext *c, int p, EinIdx a) { return ein_tensor(c, p, 1, &a); }
static const EinExpr *T2(EinContext *c, int p, EinIdx a, EinIdx b) {
  EinIdx x[2] = {a, b};
  return ein_tensor(c, p, 2, x);
}
static const EinExpr *T3(EinContext *c, int p, EinIdx a, EinIdx b, EinIdx d) {
  EinIdx x[3] = {a, b, d};
  return ein_tensor(c, p, 3, x);
}
static const EinExpr *T0(EinContext *c, int p) { return ein_tensor(c, p, 0, NULL); }
static const EinExpr *MUL(EinContext *c, const EinExpr *a, const EinExpr *b) {
  return ein_mul2(c, a, b);
}
static const EinExpr *ADD(EinContext *c, const EinExpr *a, const EinExpr *b) {
  return ein_add2(c, a, b);
}
static const EinExpr *SUM(EinContext *c, int v, int lo, int hi, const EinExpr *e) {
  return ein_sum1(c, v, lo, hi, e);
}
static const EinExpr *FUN(EinContext *c, EinFun f, const EinExpr *e) { return ein_fun(c, f, e); }

typedef void (*Direct)(const double *const *x, double *out);

typedef struct EinCase {
  const char *name;
  const EinOp *op;
  Direct direct;
  bool positive; /* arguments in (0.1, 1.1) (logs, square roots) */
} EinCase;

static EinParam tp(int rank, int a, int b, int c) {
  int s[3] = {a, b, c};
  return ein_param_tensor(rank, s);
}

static int param_size(const EinParam *p) {
  int n = 1;
  for (int k = 0; k < p->rank; k++)
    n *= p->shape[k];
  return n;
}

static const IrType *param_type(IrModule *m, const EinParam *p) {
  return ir_type_tensor(m, p->rank, p->shape);
}

/* A MidIR function f(params) = op(params). */
static IrCFG *ein_function(IrModule *mid, const char *name, const EinOp *op) {
  IrCFG *cfg = ir_cfg_new(mid, IR_CFG_FUNC, name);
  IrVar *args[8];
  for (int p = 0; p < op->nparams; p++)
    args[p] = ir_cfg_add_param(cfg, "x", param_type(mid, &op->params[p]));
  IrVar *r = ir_emit_ein(cfg->entry, "r", op, NULL, op->nparams, args);
  cfg->result = r ? r->ty : NULL;
  ir_block_set_return(cfg->entry, r);
  return cfg;
}

/* direct formulas */
static void d_dot(const double *const *x, double *o) {
  o[0] = x[0][0] * x[1][0] + x[0][1] * x[1][1] + x[0][2] * x[1][2];
}
static void d_matvec(const double *const *x, double *o) {
  for (int i = 0; i < 3; i++)
    o[i] = x[0][3 * i] * x[1][0] + x[0][3 * i + 1] * x[1][1] + x[0][3 * i + 2] * x[1][2];
}
static void d_matmat(const double *const *x, double *o) { /* A 2x3, B 3x4 */
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 4; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++)
        s += x[0][3 * i + k] * x[1][4 * k + j];
      o[4 * i + j] = s;
    }
}
static void d_outer(const double *const *x, double *o) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 2; j++)
      o[2 * i + j] = x[0][i] * x[1][j];
}
static void d_cross(const double *const *x, double *o) {
  const double *u = x[0], *v = x[1];
  o[0] = u[1] * v[2] - u[2] * v[1];
  o[1] = u[2] * v[0] - u[0] * v[2];
  o[2] = u[0] * v[1] - u[1] * v[0];
}
static void d_trace(const double *const *x, double *o) { o[0] = x[0][0] + x[0][4] + x[0][8]; }
static void d_norm(const double *const *x, double *o) {
  o[0] = sqrt(x[0][0] * x[0][0] + x[0][1] * x[0][1] + x[0][2] * x[0][2]);
}
static void d_mnorm(const double *const *x, double *o) {
  double s = 0;
  for (int i = 0; i < 9; i++)
    s += x[0][i] * x[0][i];
  o[0] = sqrt(s);
}
static void d_normalize(const double *const *x, double *o) {
  double n = sqrt(x[0][0] * x[0][0] + x[0][1] * x[0][1] + x[0][2] * x[0][2]);
  for (int i = 0; i < 3; i++)
    o[i] = x[0][i] / n;
}
static void d_delta(const double *const *x, double *o) { d_matvec(x, o); }
static double sgn(double v) { return v > 0 ? 1 : (v < 0 ? -1 : 0); }
static void d_math(const double *const *x, double *o) {
  for (int i = 0; i < 4; i++) {
    double t = x[0][i];
    o[i] = exp(t) + sin(t) * cos(t) - atan(t) + sqrt(fabs(t)) + sgn(t) + asin(t / 2) + acos(t / 3) +
           tan(t / 4) + log(fabs(t) + 1) + t * t * t + 1 / (t * t);
  }
}
static void d_transpose(const double *const *x, double *o) { /* M 2x3 → 3x2 */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 2; j++)
      o[2 * i + j] = x[0][3 * j + i];
}
static void d_scale(const double *const *x, double *o) {
  for (int i = 0; i < 6; i++)
    o[i] = (1.0 / 3.0) * x[0][i] / x[1][0] + 2;
}
static void d_partial(const double *const *x, double *o) {
  o[0] = x[0][1] * x[1][1] + x[0][2] * x[1][2] + (x[0][0] + x[0][1] + x[0][2] + x[0][3]);
}
static void d_t3v(const double *const *x, double *o) { /* T 2x3x4, v 4 */
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int k = 0; k < 4; k++)
        s += x[0][12 * i + 4 * j + k] * x[1][k];
      o[3 * i + j] = s;
    }
}
static void d_t3perm(const double *const *x, double *o) { /* T_ijk + T_kji, 2x2x2 */
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      for (int k = 0; k < 2; k++)
        o[4 * i + 2 * j + k] = x[0][4 * i + 2 * j + k] + x[0][4 * k + 2 * j + i];
}
static void d_ident(const double *const *x, double *o) {
  for (int i = 0; i < 9; i++)
    o[i] = i % 4 == 0 ? x[0][0] : 0;
}
static void d_unit(const double *const *x, double *o) {
  for (int i = 0; i < 3; i++)
    o[i] = 2 * x[0][i];
}
static void d_scalar(const double *const *x, double *o) {
  double a = x[0][0], b = x[1][0];
  o[0] = a * b - a / b + (-a);
}
static void d_eps2(const double *const *x, double *o) {
  o[0] = x[0][0] * x[1][1] - x[0][1] * x[1][0];
}
static void d_wthw(const double *const *x, double *o) { /* Wᵀ H W */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++)
          s += x[0][3 * k + i] * x[1][3 * k + l] * x[0][3 * l + j];
      o[3 * i + j] = s;
    }
}
static void d_vecmat(const double *const *x, double *o) { /* v 3, M 3x2 */
  for (int j = 0; j < 2; j++)
    o[j] = x[0][0] * x[1][j] + x[0][1] * x[1][2 + j] + x[0][2] * x[1][4 + j];
}

/* (a•c)(b•d) and (a•c)(b•d) - (a•d)(b•c), a b c d of size 3 */
static void d_dotdot(const double *const *x, double *o) {
  const double *a = x[0], *b = x[1], *c = x[2], *d = x[3];
#define DOT3(p, q) (p[0] * q[0] + p[1] * q[1] + p[2] * q[2])
  o[0] = DOT3(a, c) * DOT3(b, d);
  o[1] = DOT3(a, c) * DOT3(b, d) - DOT3(a, d) * DOT3(b, c);
#undef DOT3
}

static int build_cases(EinContext *c, EinCase *cs) {
  int n = 0;
  EinParam p3 = tp(1, 3, 0, 0), p33 = tp(2, 3, 3, 0), p4 = tp(1, 4, 0, 0), ps = tp(0, 0, 0, 0);
  /* u•v */
  cs[n++] = (EinCase){"dot",
                      ein_op_new(c, 2, (EinParam[]){p3, p3}, 0, NULL,
                                 SUM(c, 0, 0, 2, MUL(c, T1(c, 0, IV(0)), T1(c, 1, IV(0))))),
                      d_dot, false};
  /* M•v */
  cs[n++] = (EinCase){"matvec",
                      ein_op_new(c, 2, (EinParam[]){p33, p3}, 1, (int[]){3},
                                 SUM(c, 1, 0, 2, MUL(c, T2(c, 0, IV(0), IV(1)), T1(c, 1, IV(1))))),
                      d_matvec, false};
  /* A•B, 2x3 · 3x4 */
  cs[n++] =
      (EinCase){"matmat",
                ein_op_new(c, 2, (EinParam[]){tp(2, 2, 3, 0), tp(2, 3, 4, 0)}, 2, (int[]){2, 4},
                           SUM(c, 2, 0, 2, MUL(c, T2(c, 0, IV(0), IV(2)), T2(c, 1, IV(2), IV(1))))),
                d_matmat, false};
  /* u⊗v */
  cs[n++] = (EinCase){"outer",
                      ein_op_new(c, 2, (EinParam[]){p3, tp(1, 2, 0, 0)}, 2, (int[]){3, 2},
                                 MUL(c, T1(c, 0, IV(0)), T1(c, 1, IV(1)))),
                      d_outer, false};
  /* u×v = Σ_jk ε_ijk u_j v_k */
  {
    EinBinder b[2] = {{1, 0, 2}, {2, 0, 2}};
    const EinExpr *kids[3] = {ein_eps3(c, IV(0), IV(1), IV(2)), T1(c, 0, IV(1)), T1(c, 1, IV(2))};
    cs[n++] = (EinCase){"cross",
                        ein_op_new(c, 2, (EinParam[]){p3, p3}, 1, (int[]){3},
                                   ein_sum(c, 2, b, ein_mul(c, 3, kids))),
                        d_cross, false};
  }
  cs[n++] =
      (EinCase){"trace", ein_op_new(c, 1, &p33, 0, NULL, SUM(c, 0, 0, 2, T2(c, 0, IV(0), IV(0)))),
                d_trace, false};
  cs[n++] = (EinCase){
      "norm",
      ein_op_new(c, 1, &p3, 0, NULL,
                 FUN(c, EIN_FUN_SQRT, SUM(c, 0, 0, 2, MUL(c, T1(c, 0, IV(0)), T1(c, 0, IV(0)))))),
      d_norm, false};
  {
    EinBinder b[2] = {{0, 0, 2}, {1, 0, 2}};
    cs[n++] = (EinCase){
        "matnorm",
        ein_op_new(c, 1, &p33, 0, NULL,
                   FUN(c, EIN_FUN_SQRT,
                       ein_sum(c, 2, b, MUL(c, T2(c, 0, IV(0), IV(1)), T2(c, 0, IV(0), IV(1)))))),
        d_mnorm, false};
  }
  cs[n++] =
      (EinCase){"normalize",
                ein_op_new(c, 1, &p3, 1, (int[]){3},
                           ein_div(c, T1(c, 0, IV(0)),
                                   FUN(c, EIN_FUN_SQRT,
                                       SUM(c, 1, 0, 2, MUL(c, T1(c, 0, IV(1)), T1(c, 0, IV(1))))))),
                d_normalize, false};
  {
    EinBinder b[2] = {{1, 0, 2}, {2, 0, 2}};
    const EinExpr *kids[3] = {ein_delta(c, IV(1), IV(2)), T2(c, 0, IV(0), IV(1)), T1(c, 1, IV(2))};
    cs[n++] = (EinCase){"delta",
                        ein_op_new(c, 2, (EinParam[]){p33, p3}, 1, (int[]){3},
                                   ein_sum(c, 2, b, ein_mul(c, 3, kids))),
                        d_delta, false};
  }
  {
    const EinExpr *t = T1(c, 0, IV(0));
    const EinExpr *terms[] = {
        FUN(c, EIN_FUN_EXP, t),
        MUL(c, FUN(c, EIN_FUN_SIN, t), FUN(c, EIN_FUN_COS, t)),
        ein_neg(c, FUN(c, EIN_FUN_ATAN, t)),
        FUN(c, EIN_FUN_SQRT, FUN(c, EIN_FUN_ABS, t)),
        FUN(c, EIN_FUN_SIGN, t),
        FUN(c, EIN_FUN_ASIN, ein_div(c, t, ein_const_int(c, 2))),
        FUN(c, EIN_FUN_ACOS, MUL(c, ein_const_rat(c, 1, 3), t)),
        FUN(c, EIN_FUN_TAN, ein_div(c, t, ein_const_real(c, 4.0))),
        FUN(c, EIN_FUN_LOG, ADD(c, FUN(c, EIN_FUN_ABS, t), ein_const_int(c, 1))),
        ein_pow(c, t, 3),
        ein_pow(c, t, -2),
    };
    cs[n++] = (EinCase){"math", ein_op_new(c, 1, &p4, 1, (int[]){4}, ein_add(c, 11, terms)), d_math,
                        false};
  }
  cs[n++] = (EinCase){
      "transpose",
      ein_op_new(c, 1, (EinParam[]){tp(2, 2, 3, 0)}, 2, (int[]){3, 2}, T2(c, 0, IV(1), IV(0))),
      d_transpose, false};
  cs[n++] = (EinCase){
      "scale",
      ein_op_new(c, 2, (EinParam[]){tp(2, 2, 3, 0), ps}, 2, (int[]){2, 3},
                 ADD(c,
                     ein_div(c, MUL(c, ein_const_rat(c, 1, 3), T2(c, 0, IV(0), IV(1))), T0(c, 1)),
                     ein_const_int(c, 2))),
      d_scale, true};
  cs[n++] = (EinCase){"partial",
                      ein_op_new(c, 2, (EinParam[]){p4, p4}, 0, NULL,
                                 ADD(c, SUM(c, 0, 1, 2, MUL(c, T1(c, 0, IV(0)), T1(c, 1, IV(0)))),
                                     SUM(c, 0, 0, 3, T1(c, 0, IV(0))))),
                      d_partial, false};
  cs[n++] =
      (EinCase){"t3v",
                ein_op_new(c, 2, (EinParam[]){tp(3, 2, 3, 4), p4}, 2, (int[]){2, 3},
                           SUM(c, 2, 0, 3, MUL(c, T3(c, 0, IV(0), IV(1), IV(2)), T1(c, 1, IV(2))))),
                d_t3v, false};
  cs[n++] =
      (EinCase){"t3perm",
                ein_op_new(c, 1, (EinParam[]){tp(3, 2, 2, 2)}, 3, (int[]){2, 2, 2},
                           ADD(c, T3(c, 0, IV(0), IV(1), IV(2)), T3(c, 0, IV(2), IV(1), IV(0)))),
                d_t3perm, false};
  cs[n++] = (EinCase){
      "identity",
      ein_op_new(c, 1, &ps, 2, (int[]){3, 3}, MUL(c, T0(c, 0), ein_delta(c, IV(0), IV(1)))),
      d_ident, false};
  /* Axes of extent 1 (absent from the types): T[1,3] → tensor[3]. */
  cs[n++] = (EinCase){"unit-axes",
                      ein_op_new(c, 1, (EinParam[]){tp(2, 1, 3, 0)}, 2, (int[]){1, 3},
                                 MUL(c, ein_const_int(c, 2), T2(c, 0, IV(0), IV(1)))),
                      d_unit, false};
  cs[n++] = (EinCase){
      "scalar",
      ein_op_new(c, 2, (EinParam[]){ps, ps}, 0, NULL,
                 ADD(c, ein_sub(c, MUL(c, T0(c, 0), T0(c, 1)), ein_div(c, T0(c, 0), T0(c, 1))),
                     ein_neg(c, T0(c, 0)))),
      d_scalar, true};
  {
    EinBinder b[2] = {{0, 0, 1}, {1, 0, 1}};
    const EinExpr *kids[3] = {ein_eps2(c, IV(0), IV(1)), T1(c, 0, IV(0)), T1(c, 1, IV(1))};
    EinParam p2 = tp(1, 2, 0, 0);
    cs[n++] = (EinCase){
        "eps2",
        ein_op_new(c, 2, (EinParam[]){p2, p2}, 0, NULL, ein_sum(c, 2, b, ein_mul(c, 3, kids))),
        d_eps2, false};
  }
  {
    EinBinder b[2] = {{2, 0, 2}, {3, 0, 2}};
    const EinExpr *kids[3] = {T2(c, 0, IV(2), IV(0)), T2(c, 1, IV(2), IV(3)),
                              T2(c, 0, IV(3), IV(1))};
    cs[n++] = (EinCase){"wthw",
                        ein_op_new(c, 2, (EinParam[]){p33, p33}, 2, (int[]){3, 3},
                                   ein_sum(c, 2, b, ein_mul(c, 3, kids))),
                        d_wthw, false};
  }
  cs[n++] = (EinCase){"vecmat",
                      ein_op_new(c, 2, (EinParam[]){p3, tp(2, 3, 2, 0)}, 1, (int[]){2},
                                 SUM(c, 1, 0, 2, MUL(c, T1(c, 0, IV(1)), T2(c, 1, IV(1), IV(0))))),
                      d_vecmat, false};
  /* Σ_{i,j} a_i c_i b_j d_j, as normalization leaves (a•c)(b•d) or the
   * ε-ε form of (a×b)•(c×d): the Σ over lanes takes one factor of the
   * lane index out, and the inner vdot over the other index must not
   * multiply it in again (a regression: a_i counted twice). */
  {
    EinBinder b[2] = {{1, 0, 2}, {2, 0, 2}};
    const EinExpr *k1[4] = {T1(c, 0, IV(1)), T1(c, 2, IV(1)), T1(c, 1, IV(2)), T1(c, 3, IV(2))};
    const EinExpr *k2[4] = {T1(c, 0, IV(1)), T1(c, 3, IV(1)), T1(c, 1, IV(2)), T1(c, 2, IV(2))};
    const EinExpr *s1 = ein_sum(c, 2, b, ein_mul(c, 4, k1));
    const EinExpr *s2 = ein_sum(c, 2, b, ein_mul(c, 4, k2));
    const EinExpr *comps[2] = {
        s1, ein_sub(c, s1, s2)}; /* component σ0 = 0: s1; σ0 = 1: s1 - s2 */
    const EinExpr *body = ADD(c, MUL(c, ein_delta(c, IV(0), IC(0)), comps[0]),
                              MUL(c, ein_delta(c, IV(0), IC(1)), comps[1]));
    cs[n++] = (EinCase){"dotdot",
                        ein_op_new(c, 4, (EinParam[]){p3, p3, p3, p3}, 1, (int[]){2}, body),
                        d_dotdot, false};
  }
  return n;
}

static void test_ein(void) {
  Arena *a = arena_new();
  EinContext *ec = ein_context_new(a);
  IrModule *mid = ir_module_new(a, IR_MID);
  EinCase cs[32];
  int n = build_cases(ec, cs);
  for (int i = 0; i < n; i++) {
    char err[256];
    CHECK_MSG(ein_op_check(cs[i].op, err, sizeof err), "%s: %s", cs[i].name, err);
    ein_function(mid, cs[i].name, cs[i].op);
  }
  IrCheck chk;
  memset(&chk, 0, sizeof chk);
  CHECK_MSG(ir_check_module(mid, &chk) == 0, "MidIR: %s", chk.first);
  MidToLowStats st;
  IrModule *low = lower(mid, NULL, &st);
  CHECK(low != NULL);
  if (!low) {
    arena_free(a);
    return;
  }
  check_module(low);
  CHECK(st.ein_expanded == n);
  /* No EIN is left, and dot products became vdot. */
  CHECK(count_op(low, IR_LOP_VDOT) >= 3);
  CHECK(count_op(low, IR_LOP_VSLICE) >= 1);
  CHECK(count_op(low, IR_LOP_VSUM) >= 1);

  for (int ci = 0; ci < n; ci++) {
    const EinOp *op = cs[ci].op;
    const IrCFG *cfg = low->cfgs[ci];
    for (int trial = 0; trial < 20; trial++) {
      double buf[8][64];
      const double *xs[8];
      LowVal params[8];
      EinEvalArg eargs[8];
      for (int p = 0; p < op->nparams; p++) {
        int sz = param_size(&op->params[p]);
        for (int k = 0; k < sz; k++) {
          double r = rnd();
          buf[p][k] = cs[ci].positive ? 0.6 + 0.5 * r : r;
          if (fabs(buf[p][k]) < 1e-3)
            buf[p][k] = 0.25; /* keep 1/t² tame */
        }
        xs[p] = buf[p];
        const IrType *t = param_type(mid, &op->params[p]);
        params[p] = low_val_tensor(a, t->order, t->dims, buf[p]);
        eargs[p].tensor = buf[p];
        eargs[p].field = NULL;
      }
      double want[64], got[64], oracle[64];
      cs[ci].direct(xs, want);
      char err[256] = "";
      CHECK_MSG(ein_eval(op, eargs, NULL, oracle, err, sizeof err) == 0, "%s: ein_eval: %s",
                cs[ci].name, err);
      LowVal res;
      memset(&res, 0, sizeof res);
      int rc = low_eval_cfg(a, cfg, params, NULL, &res, NULL, err, sizeof err);
      CHECK_MSG(rc == 0, "%s: %s", cs[ci].name, err);
      int m = rc == 0 ? flat_values(&res, got, 64) : -1;
      int size = ein_eval_size(op);
      CHECK_MSG(m == size, "%s: %d components, want %d", cs[ci].name, m, size);
      for (int k = 0; k < size && m == size; k++) {
        CHECK_MSG(fabs(got[k] - want[k]) <= tol_for(want[k]), "%s[%d]: got %.17g want %.17g",
                  cs[ci].name, k, got[k], want[k]);
        CHECK_MSG(fabs(oracle[k] - want[k]) <= tol_for(want[k]),
                  "%s[%d]: ein_eval %.17g want %.17g", cs[ci].name, k, oracle[k], want[k]);
      }
    }
  }
  arena_free(a);
}

/* ---- kernel evaluation ----------------------------------------------------------------- */

static IrCFG *kernel_function(IrModule *mid, const Kernel *k, int deriv, int s) {
  IrCFG *cfg = ir_cfg_new(mid, IR_CFG_FUNC, "taps");
  IrVar *f = ir_cfg_add_param(cfg, "f", ir_type_real(mid));
  IrVar *h = ir_emit_kernel(cfg->entry, k, k->continuity);
  IrVar *args[2] = {h, f};
  int imm[2] = {deriv, s};
  IrVar *r = ir_emit_op(cfg->entry, "taps", IR_MOP_KERNEL_EVAL, NULL, 2, args, 2, imm);
  cfg->result = r ? r->ty : NULL;
  ir_block_set_return(cfg->entry, r);
  return cfg;
}

static void test_kernels(void) {
  int nk;
  const Kernel *ks = kernel_all(&nk);
  CHECK(nk >= 8);
  int cases = 0, horners = 0;
  for (int ki = 0; ki < nk; ki++) {
    const Kernel *k = &ks[ki];
    int maxdeg = 0;
    for (int p = 0; p < k->npieces; p++)
      if (k->pieces[p].degree > maxdeg)
        maxdeg = k->pieces[p].degree;
    /* Every derivative up to past the degree (the last ones are 0), with
     * the kernel's support and with a wider neighbourhood (outer taps 0). */
    for (int wide = 0; wide < 2; wide++) {
      int s = k->support + wide;
      if (s > KERNEL_MAX_SUPPORT)
        continue;
      for (int j = 0; j <= maxdeg + 1; j++) {
        Arena *a = arena_new();
        IrModule *mid = ir_module_new(a, IR_MID);
        kernel_function(mid, k, j, s);
        MidToLowStats st;
        IrModule *low = lower(mid, NULL, &st);
        CHECK_MSG(low != NULL, "%s^(%d)", k->name, j);
        if (!low) {
          arena_free(a);
          continue;
        }
        check_module(low);
        horners += count_op(low, IR_LOP_HORNER);
        cases++;
        for (int q = 0; q <= 200; q++) {
          double f = q < 200 ? q / 200.0 + 0.0013 * (q % 7) : 0.999999;
          if (f >= 1)
            f = 0.5;
          LowVal arg = low_val_real(f), res;
          char err[256] = "";
          memset(&res, 0, sizeof res);
          int rc = low_eval_cfg(a, low->cfgs[0], &arg, NULL, &res, NULL, err, sizeof err);
          CHECK_MSG(rc == 0 && res.kind == LOWV_TENSOR && res.n == 2 * s, "%s^(%d): %s", k->name, j,
                    err);
          if (rc != 0 || res.kind != LOWV_TENSOR || res.n != 2 * s)
            break;
          for (int t = 0; t < 2 * s; t++) {
            int i = 1 - s + t;
            double x = f - i;
            /* At f = 0 the tap at x = −s lies on the support's end, where
             * h^(j) is continuous only for j <= the true continuity; the
             * piece convention [lo, lo+1) is what the lowering follows. */
            if (x <= -k->support && j > k->true_continuity)
              continue;
            double want = kernel_eval(k, j, x);
            CHECK_MSG(fabs(res.v[t] - want) <= tol_for(want),
                      "%s^(%d)(%g - %d): got %.17g want %.17g", k->name, j, f, i, res.v[t], want);
          }
        }
        arena_free(a);
      }
    }
  }
  CHECK(cases > 40);
  CHECK(horners > 0);
}

/* ---- voxel neighbourhoods ------------------------------------------------------------ */

static int64_t hand_clamp(int64_t i, int64_t n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }

static int64_t hand_mirror(int64_t i, int64_t n) {
  if (i < 0)
    i = -1 - i;
  if (i < n)
    return i;
  int64_t q = i / n, r = i - q * n;
  return (q % 2 == 0) ? r : n - 1 - r;
}

static int64_t hand_wrap(int64_t i, int64_t n) {
  if (i < 0)
    return (n - 1) + ((i + 1) % n);
  if (i >= n)
    return i % n;
  return i;
}

static int64_t hand_map(int border, int64_t i, int64_t n) {
  switch (border) {
  case IR_BORDER_CLAMP: return hand_clamp(i, n);
  case IR_BORDER_MIRROR: return hand_mirror(i, n);
  case IR_BORDER_WRAP: return hand_wrap(i, n);
  default: return i;
  }
}

typedef struct Img {
  int d, order, vdims[2], sizes[3], ncomp;
  double *data;
  LowImage li;
} Img;

static void make_image(Arena *a, Img *im, int d, int order, const int *vdims, const int *sizes) {
  memset(im, 0, sizeof *im);
  im->d = d;
  im->order = order;
  im->ncomp = 1;
  for (int i = 0; i < order; i++)
    im->ncomp *= (im->vdims[i] = vdims[i]);
  int total = im->ncomp;
  for (int i = 0; i < 3; i++)
    im->sizes[i] = i < d ? sizes[i] : 1;
  for (int i = 0; i < d; i++)
    total *= sizes[i];
  im->data = ARENA_NEW_ARRAY(a, double, total);
  for (int i = 0; i < total; i++)
    im->data[i] = 1000 + i + 0.25 * rnd(); /* every sample distinct */
  im->li.dim = d;
  im->li.ncomp = im->ncomp;
  im->li.data = im->data;
  for (int i = 0; i < d; i++)
    im->li.sizes[i] = sizes[i];
  for (int i = 0; i < d; i++)
    im->li.W[i * d + i] = 1;
}

/* The sample of §8.3 at voxel (i0, i1, i2), component c. */
static double sample(const Img *im, const int64_t *idx, int c) {
  int64_t off = idx[0];
  if (im->d > 2)
    off = idx[1] + im->sizes[1] * idx[2];
  if (im->d == 2)
    off = idx[1];
  if (im->d >= 2)
    off = idx[0] + im->sizes[0] * off;
  return im->data[c + im->ncomp * off];
}

/* The image stored in B^d bricks (doc/layouts.md §4.2, written out by
 * hand): voxel x of axis a is in brick x / B at position x % B; sample
 * (x, y, z, c) is at c + C·((x%B) + B·(y%B) + B²·(z%B)) + C·B^d·((x/B) +
 * NBx·((y/B) + NBy·(z/B))), NB = ceil(N / B). Padding holds a sentinel. */
static void brick_image(Arena *a, const Img *im, int B, LowImage *out) {
  int nb[3] = {1, 1, 1}, bd = 1;
  int64_t total = im->ncomp;
  for (int i = 0; i < im->d; i++) {
    nb[i] = (im->sizes[i] + B - 1) / B;
    bd *= B;
    total *= (int64_t)nb[i] * B;
  }
  double *data = ARENA_NEW_ARRAY(a, double, total);
  for (int64_t i = 0; i < total; i++)
    data[i] = 1e300;
  for (int z = 0; z < im->sizes[2]; z++)
    for (int y = 0; y < im->sizes[1]; y++)
      for (int x = 0; x < im->sizes[0]; x++)
        for (int c = 0; c < im->ncomp; c++) {
          int64_t in = (x % B) + B * (y % B) + B * B * (z % B);
          int64_t br = x / B + nb[0] * (y / B + nb[1] * (z / B));
          int64_t idx[3] = {x, y, z};
          data[c + im->ncomp * (in + bd * br)] = sample(im, idx, c);
        }
  *out = im->li;
  out->data = data;
  out->nsamples = (long)total;
}

/* f(img, n) = load_voxels(img, n){s, border}; with `from_real`, n comes
 * from real_to_int(tfloor(p)) of a tensor parameter p instead. */
static IrCFG *voxel_function(IrModule *mid, const Img *im, int s, int border, bool from_real,
                             IrGlobal *g) {
  IrCFG *cfg = ir_cfg_new(mid, IR_CFG_FUNC, "voxels");
  const IrType *it = ir_type_image(mid, im->d, im->order, im->vdims);
  IrVar *img = g ? ir_emit_global_get(cfg->entry, "img", g) : ir_cfg_add_param(cfg, "img", it);
  IrVar *n;
  if (from_real) {
    int dd = im->d;
    IrVar *p = ir_cfg_add_param(cfg, "p", ir_type_tensor(mid, 1, &dd));
    IrVar *fl = ir_emit_op(cfg->entry, "fl", IR_MOP_TFLOOR, NULL, 1, &p, 0, NULL);
    n = ir_emit_op(cfg->entry, "n", IR_MOP_REAL_TO_INT, NULL, 1, &fl, 0, NULL);
  } else {
    n = ir_cfg_add_param(cfg, "n",
                         im->d == 1 ? ir_type_int(mid) : ir_type_seq(mid, ir_type_int(mid), im->d));
  }
  IrVar *args[2] = {img, n};
  int imm[2] = {s, border};
  IrVar *r = ir_emit_op(cfg->entry, "v", IR_MOP_LOAD_VOXELS, NULL, 2, args, 2, imm);
  cfg->result = r ? r->ty : NULL;
  ir_block_set_return(cfg->entry, r);
  return cfg;
}

/* Run f at position n and compare every tap and component. */
static void check_voxels(Arena *a, const IrCFG *cfg, const Img *im, const LowImage *li, int s,
                         int border, const int64_t *n, bool from_real, bool global,
                         const char *what) {
  LowVal params[2], glob[1], res;
  int np = 0;
  LowVal imgv = low_val_image(li);
  if (!global)
    params[np++] = imgv;
  glob[0] = imgv;
  if (from_real) {
    double p[3];
    for (int i = 0; i < im->d; i++)
      p[i] = (double)n[i] + 0.375;
    params[np++] = im->d == 1 ? low_val_real(p[0]) : low_val_tensor(a, 1, &im->d, p);
  } else {
    params[np++] = im->d == 1 ? low_val_int(n[0]) : low_val_ints(a, im->d, n);
  }
  char err[256] = "";
  memset(&res, 0, sizeof res);
  int rc = low_eval_cfg(a, cfg, params, glob, &res, NULL, err, sizeof err);
  CHECK_MSG(rc == 0, "%s at (%lld,%lld,%lld): %s", what, (long long)n[0],
            (long long)(im->d > 1 ? n[1] : 0), (long long)(im->d > 2 ? n[2] : 0), err);
  if (rc != 0)
    return;
  int w = 2 * s, ntaps = 1;
  for (int i = 0; i < im->d; i++)
    ntaps *= w;
  CHECK_MSG(res.kind == LOWV_TENSOR && res.n == ntaps * im->ncomp, "%s: result has %d components",
            what, res.n);
  if (res.kind != LOWV_TENSOR || res.n != ntaps * im->ncomp)
    return;
  int bad = 0;
  for (int tap = 0; tap < ntaps; tap++) {
    int64_t idx[3] = {0, 0, 0};
    for (int ax = im->d - 1, q = tap; ax >= 0; ax--) { /* axis 0 is the slowest result index */
      int t = q % w;
      q /= w;
      idx[ax] = hand_map(border, n[ax] + 1 - s + t, im->sizes[ax]);
    }
    for (int c = 0; c < im->ncomp; c++) {
      double want = sample(im, idx, c), got = res.v[tap * im->ncomp + c];
      if (got != want && bad++ < 3)
        CHECK_MSG(got == want, "%s: tap %d comp %d: got %.17g want %.17g", what, tap, c, got, want);
    }
  }
  CHECK_MSG(bad == 0, "%s: %d samples differ", what, bad);
}

static void test_voxels(void) {
  static const struct {
    int d, order, vdims[2], sizes[3];
  } imgs[] = {
      {1, 0, {0, 0}, {7, 1, 1}}, {2, 0, {0, 0}, {5, 4, 1}}, {3, 0, {0, 0}, {4, 3, 5}},
      {2, 1, {2, 0}, {5, 4, 1}}, {3, 2, {2, 2}, {3, 4, 3}}, {1, 1, {3, 0}, {6, 1, 1}},
      {3, 1, {3, 0}, {6, 5, 7}},
  };
  int nruns = 0;
  for (size_t ii = 0; ii < sizeof imgs / sizeof *imgs; ii++) {
    for (int s = 1; s <= 3; s++) {
      for (int border = IR_BORDER_NONE; border <= IR_BORDER_WRAP; border++) {
        /* int[d] param, from a real position, proxy global; then bricked
         * storage with an int[d] param, and with a proxy global */
        for (int variant = 0; variant < 5; variant++) {
          bool proxy = variant == 2 || variant == 4;
          int brick = variant == 3 ? 4 : variant == 4 ? 2 : 0;
          Arena *a = arena_new();
          Img im;
          make_image(a, &im, imgs[ii].d, imgs[ii].order, imgs[ii].vdims, imgs[ii].sizes);
          bool inside_only = border == IR_BORDER_NONE;
          int minsize = im.sizes[0];
          for (int i = 1; i < im.d; i++)
            minsize = im.sizes[i] < minsize ? im.sizes[i] : minsize;
          if (inside_only && 2 * s > minsize) {
            arena_free(a);
            continue;
          }
          IrModule *mid = ir_module_new(a, IR_MID);
          IrGlobal *g = NULL;
          if (proxy) {
            g = ir_global_new(mid, IR_GLOBAL_CONST, "img",
                              ir_type_image(mid, im.d, im.order, im.vdims));
            IrProxy *px = ARENA_NEW(a, IrProxy);
            px->dim = im.d;
            px->ncomp = im.ncomp;
            px->sample_type = "double";
            g->proxy = px;
          }
          voxel_function(mid, &im, s, border, variant == 1, g);
          IrCheck chk;
          memset(&chk, 0, sizeof chk);
          CHECK_MSG(ir_check_module(mid, &chk) == 0, "MidIR: %s", chk.first);
          MidToLowStats st;
          MidToLowOptions o = {.brick = brick};
          IrModule *low = lower(mid, &o, &st);
          CHECK(low != NULL);
          if (!low) {
            arena_free(a);
            continue;
          }
          check_module(low);
          CHECK(st.voxel_loads == 1);
          /* With or without a proxy (which fixes no sizes), the sizes are
           * read once (strides of axes > 0, border maps, and without border
           * control the range check of the probe, in 1-D too). */
          CHECK(count_op(low, IR_OP_IMAGE_SIZE) == 1);
          CHECK(count_op(low, IR_LOP_PROBE_FAIL) == (border == IR_BORDER_NONE ? 1 : 0));
          LowImage bricked;
          if (brick)
            brick_image(a, &im, brick, &bricked);
          char what[96];
          snprintf(what, sizeof what, "image %zu s=%d border=%d variant=%d", ii, s, border,
                   variant);
          /* Positions: every in-range neighbourhood without border control;
           * far outside on every side with it. */
          int64_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
          for (int i = 0; i < im.d; i++) {
            lo[i] = inside_only ? s - 1 : -2 * im.sizes[i] - 3;
            hi[i] = inside_only ? im.sizes[i] - 1 - s : 2 * im.sizes[i] + 2;
          }
          int64_t n[3] = {lo[0], im.d > 1 ? lo[1] : 0, im.d > 2 ? lo[2] : 0};
          for (;;) {
            check_voxels(a, low->cfgs[0], &im, brick ? &bricked : &im.li, s, border, n,
                         variant == 1, proxy, what);
            nruns++;
            int ax = 0;
            int step = inside_only || im.d == 1 ? 1 : 3; /* 1-D: every n, past both borders */
            while (ax < im.d && (n[ax] += step) > hi[ax])
              n[ax] = lo[ax], ax++;
            if (ax == im.d)
              break;
          }
          arena_free(a);
        }
      }
    }
  }
  CHECK(nruns > 1000);
}

/* ---- a whole probe: world-to-index, floor/fract, taps, voxels, EIN ------------------------ */

static void test_probe(void) {
  Arena *a = arena_new();
  EinContext *ec = ein_context_new(a);
  IrModule *mid = ir_module_new(a, IR_MID);
  Img im;
  make_image(a, &im, 2, 0, NULL, (int[]){9, 8});
  /* index = W·x + t with a rotation-and-scale W. */
  im.li.W[0] = 1.7, im.li.W[1] = 0.4, im.li.W[2] = -0.3, im.li.W[3] = 2.1;
  im.li.t[0] = 3.2, im.li.t[1] = 2.9;
  const Kernel *kernels[3] = {kernel_lookup("tent"), kernel_lookup("ctmr"),
                              kernel_lookup("bspln3")};
  for (int ki = 0; ki < 3; ki++) {
    const Kernel *k = kernels[ki];
    int s = k->support, w = 2 * s, two = 2;
    IrCFG *cfg = ir_cfg_new(mid, IR_CFG_FUNC, k->name);
    IrBlock *b = cfg->entry;
    IrVar *img = ir_cfg_add_param(cfg, "img", ir_type_image(mid, 2, 0, NULL));
    IrVar *x = ir_cfg_add_param(cfg, "x", ir_type_tensor(mid, 1, &two));
    IrVar *ax[2] = {img, x};
    IrVar *p = ir_emit_op(b, "p", IR_MOP_WORLD_TO_INDEX, NULL, 2, ax, 0, NULL);
    IrVar *ins[2] = {img, p};
    IrVar *inside = ir_emit_op(b, "in", IR_MOP_INSIDE_IMAGE, NULL, 2, ins, 1, &s);
    /* if inside then F(x) else -1: only inside are the voxels in the image */
    IrBlock *bp = ir_block_new(cfg, "probe"), *bo = ir_block_new(cfg, "outside"),
            *bj = ir_block_new(cfg, "join");
    ir_block_set_branch(b, inside, bp, bo);
    ir_block_set_jump(bp, bj);
    ir_block_set_jump(bo, bj);
    b = bp;
    IrVar *fl = ir_emit_op(b, "fl", IR_MOP_TFLOOR, NULL, 1, &p, 0, NULL);
    IrVar *f = ir_emit_op(b, "f", IR_MOP_TFRACT, NULL, 1, &p, 0, NULL);
    IrVar *n = ir_emit_op(b, "n", IR_MOP_REAL_TO_INT, NULL, 1, &fl, 0, NULL);
    IrVar *h = ir_emit_kernel(b, k, k->continuity);
    IrVar *taps[2];
    for (int i = 0; i < 2; i++) {
      IrVar *fi = ir_emit_op(b, "fi", IR_OP_TENSOR_INDEX, NULL, 1, &f, 1, &i);
      IrVar *hf[2] = {h, fi};
      taps[i] = ir_emit_op(b, "h", IR_MOP_KERNEL_EVAL, NULL, 2, hf, 2, (int[]){0, s});
    }
    IrVar *in[2] = {img, n};
    IrVar *v = ir_emit_op(b, "V", IR_MOP_LOAD_VOXELS, NULL, 2, in, 2, (int[]){s, IR_BORDER_NONE});
    EinBinder bi[2] = {{0, 0, w - 1}, {1, 0, w - 1}};
    const EinExpr *kids[3] = {T2(ec, 0, IV(0), IV(1)), T1(ec, 1, IV(0)), T1(ec, 2, IV(1))};
    const EinOp *conv =
        ein_op_new(ec, 3, (EinParam[]){tp(2, w, w, 0), tp(1, w, 0, 0), tp(1, w, 0, 0)}, 0, NULL,
                   ein_sum(ec, 2, bi, ein_mul(ec, 3, kids)));
    IrVar *cargs[3] = {v, taps[0], taps[1]};
    IrVar *val = ir_emit_ein(b, "F", conv, NULL, 3, cargs);
    IrVar *minus = ir_emit_real(bo, -1);
    IrVar *r = ir_phi_new(bj, "r", ir_type_real(mid));
    ir_phi_set(r->def, bp, val);
    ir_phi_set(r->def, bo, minus);
    b = bj;
    cfg->result = ir_type_real(mid);
    ir_block_set_return(b, r);
  }
  IrCheck chk;
  memset(&chk, 0, sizeof chk);
  CHECK_MSG(ir_check_module(mid, &chk) == 0, "MidIR: %s", chk.first);
  MidToLowStats st;
  IrModule *low = lower(mid, NULL, &st);
  CHECK(low != NULL);
  if (!low) {
    arena_free(a);
    return;
  }
  check_module(low);
  int tested = 0, insides = 0;
  for (int ki = 0; ki < 3; ki++) {
    const Kernel *k = kernels[ki];
    int s = k->support;
    for (int q = 0; q < 300; q++) {
      double x[2] = {3 * rnd(), 3 * rnd()};
      double p[2];
      for (int i = 0; i < 2; i++)
        p[i] = im.li.W[2 * i] * x[0] + im.li.W[2 * i + 1] * x[1] + im.li.t[i];
      bool inside = true;
      for (int i = 0; i < 2; i++)
        inside = inside && s - 1 < p[i] && p[i] < im.sizes[i] - s;
      double want = -1;
      if (inside) { /* §8.4: Σ_ij img[n + (i,j)] h(f0 − i) h(f1 − j) */
        want = 0;
        int64_t nn[2] = {(int64_t)floor(p[0]), (int64_t)floor(p[1])};
        for (int i = 1 - s; i <= s; i++)
          for (int j = 1 - s; j <= s; j++) {
            int64_t idx[3] = {nn[0] + i, nn[1] + j, 0};
            want += sample(&im, idx, 0) * kernel_eval(k, 0, p[0] - nn[0] - i) *
                    kernel_eval(k, 0, p[1] - nn[1] - j);
          }
      }
      LowVal params[2] = {low_val_image(&im.li), low_val_tensor(a, 1, (int[]){2}, x)}, res;
      char err[256] = "";
      memset(&res, 0, sizeof res);
      int rc = low_eval_cfg(a, low->cfgs[ki], params, NULL, &res, NULL, err, sizeof err);
      CHECK_MSG(rc == 0 && res.kind == LOWV_REAL, "probe %s: %s", k->name, err);
      if (rc == 0)
        CHECK_MSG(fabs(res.r - want) <= 1e-12 * fabs(want) + 1e-12,
                  "probe %s at (%g,%g): got %.17g want %.17g", k->name, x[0], x[1], res.r, want);
      tested++;
      insides += inside;
    }
  }
  CHECK(tested == 900 && insides > 100 && insides < 800);
  arena_free(a);
}

/* ---- value numbering of index computations --------------------------------------------- */

static void test_vn(void) {
  static const int sizes[3] = {6, 5, 7};
  for (int border = IR_BORDER_NONE; border <= IR_BORDER_WRAP; border++) {
    int counts[2][2]; /* [one or two probes][before, after VN] */
    int loads[2];
    for (int two = 0; two < 2; two++) {
      for (int vn = 0; vn < 2; vn++) {
        Arena *a = arena_new();
        IrModule *mid = ir_module_new(a, IR_MID);
        Img im;
        make_image(a, &im, 3, 0, NULL, sizes);
        IrCFG *cfg = ir_cfg_new(mid, IR_CFG_FUNC, "probe");
        IrBlock *b = cfg->entry;
        IrVar *img = ir_cfg_add_param(cfg, "img", ir_type_image(mid, 3, 0, NULL));
        IrVar *n = ir_cfg_add_param(cfg, "n", ir_type_seq(mid, ir_type_int(mid), 3));
        IrVar *args[2] = {img, n};
        IrVar *v2 = ir_emit_op(b, "V2", IR_MOP_LOAD_VOXELS, NULL, 2, args, 2, (int[]){2, border});
        IrVar *r = v2;
        if (two) { /* a second neighbourhood (tent taps) at the same n, kept alive by a print */
          IrVar *v1 = ir_emit_op(b, "V1", IR_MOP_LOAD_VOXELS, NULL, 2, args, 2, (int[]){1, border});
          ir_emit_effect(b, IR_OP_PRINT, 2, (IrVar *[]){v2, v1}, 0, NULL);
        }
        cfg->result = r ? r->ty : NULL;
        ir_block_set_return(b, r);
        /* without the range checks of probes without border control: each
         * support has its own (s-1 <= n <= N-1-s), which is not shared */
        MidToLowOptions o = {.no_vn = !vn, .no_dce = !vn, .no_probe_checks = true};
        MidToLowStats st;
        IrModule *low = lower(mid, &o, &st);
        CHECK(low != NULL);
        if (!low) {
          arena_free(a);
          return;
        }
        check_module(low);
        counts[two][vn] = count_index_ops(low);
        if (vn)
          loads[two] = count_op(low, IR_LOP_LOAD) + count_op(low, IR_LOP_VLOAD);
        if (vn)
          CHECK(st.vn_removed > 0);
        arena_free(a);
      }
    }
    printf("  voxel index ops (3-D, s=2 neighbourhood, border %d): before VN %d, after %d; "
           "with a second (s=1) neighbourhood at the same n: before %d, after %d\n",
           border, counts[0][0], counts[0][1], counts[1][0], counts[1][1]);
    CHECK(counts[0][1] < counts[0][0]);
    CHECK(counts[1][1] < counts[1][0]);
    /* The tent taps n+0, n+1 are a subset of the bspln3 taps: every index
     * computation and every load of the second neighbourhood is merged. */
    CHECK_MSG(counts[1][1] == counts[0][1], "border %d: %d index ops with two probes, %d with one",
              border, counts[1][1], counts[0][1]);
    CHECK_MSG(loads[1] == loads[0], "border %d: %d loads with two probes, %d with one", border,
              loads[1], loads[0]);
  }
}

/* ---- boundaries: phis, state and globals keep tensors --------------------------------------- */

static void test_boundaries(void) {
  Arena *a = arena_new();
  EinContext *ec = ein_context_new(a);
  IrModule *mid = ir_module_new(a, IR_MID);
  int d33[2] = {3, 3}, d3 = 3;
  const IrType *m33 = ir_type_tensor(mid, 2, d33), *v3 = ir_type_tensor(mid, 1, &d3);
  /* f(M, v, c) = (c ? M : Mᵀ)•v, through a phi of tensor type */
  IrCFG *cfg = ir_cfg_new(mid, IR_CFG_FUNC, "f");
  IrVar *M = ir_cfg_add_param(cfg, "M", m33), *v = ir_cfg_add_param(cfg, "v", v3);
  IrVar *c = ir_cfg_add_param(cfg, "c", ir_type_bool(mid));
  IrBlock *bt = ir_block_new(cfg, "then"), *be = ir_block_new(cfg, "else"),
          *bj = ir_block_new(cfg, "join");
  ir_block_set_branch(cfg->entry, c, bt, be);
  const EinOp *tr =
      ein_op_new(ec, 1, (EinParam[]){tp(2, 3, 3, 0)}, 2, (int[]){3, 3}, T2(ec, 0, IV(1), IV(0)));
  IrVar *Mt = ir_emit_ein(be, "Mt", tr, NULL, 1, &M);
  ir_block_set_jump(bt, bj);
  ir_block_set_jump(be, bj);
  IrVar *phi = ir_phi_new(bj, "A", m33);
  ir_phi_set(phi->def, bt, M);
  ir_phi_set(phi->def, be, Mt);
  const EinOp *mv =
      ein_op_new(ec, 2, (EinParam[]){tp(2, 3, 3, 0), tp(1, 3, 0, 0)}, 1, (int[]){3},
                 SUM(ec, 1, 0, 2, MUL(ec, T2(ec, 0, IV(0), IV(1)), T1(ec, 1, IV(1)))));
  IrVar *args[2] = {phi, v};
  IrVar *r = ir_emit_ein(bj, "r", mv, NULL, 2, args);
  cfg->result = v3;
  ir_block_set_return(bj, r);
  IrCheck chk;
  memset(&chk, 0, sizeof chk);
  CHECK_MSG(ir_check_module(mid, &chk) == 0, "MidIR: %s", chk.first);
  IrModule *low = lower(mid, NULL, NULL);
  CHECK(low != NULL);
  if (low) {
    check_module(low);
    const IrCFG *lc = low->cfgs[0];
    CHECK(lc->nparams == 3 && lc->params[0]->ty == m33 && lc->result == v3);
    /* the join's phi is still a tensor[3,3] */
    bool phi_tensor = false;
    for (int i = 0; i < lc->nblocks; i++)
      for (int k = 0; k < lc->blocks[i]->nphis; k++)
        phi_tensor |= lc->blocks[i]->phis[k]->dst->ty == m33;
    CHECK(phi_tensor);
    double Mv[9], vv[3];
    for (int i = 0; i < 9; i++)
      Mv[i] = rnd();
    for (int i = 0; i < 3; i++)
      vv[i] = rnd();
    for (int which = 0; which < 2; which++) {
      LowVal params[3] = {low_val_tensor(a, 2, d33, Mv), low_val_tensor(a, 1, &d3, vv), {0}}, res;
      params[2].kind = LOWV_BOOL;
      params[2].b = which == 0;
      char err[256] = "";
      memset(&res, 0, sizeof res);
      int rc = low_eval_cfg(a, lc, params, NULL, &res, NULL, err, sizeof err);
      CHECK_MSG(rc == 0 && res.kind == LOWV_TENSOR && res.n == 3, "phi: %s", err);
      for (int i = 0; i < 3 && rc == 0; i++) {
        double want = 0;
        for (int j = 0; j < 3; j++)
          want += (which == 0 ? Mv[3 * i + j] : Mv[3 * j + i]) * vv[j];
        CHECK_NEAR(res.v[i], want, 1e-12);
      }
    }
  }
  /* A bad input (a field-valued EIN body below HighIR) is refused, not a crash. */
  IrModule *mid2 = ir_module_new(a, IR_MID);
  IrCFG *g = ir_cfg_new(mid2, IR_CFG_FUNC, "g");
  IrVar *x = ir_cfg_add_param(g, "x", ir_type_real(mid2));
  const EinOp *bad =
      ein_op_new(ec, 1, (EinParam[]){tp(0, 0, 0, 0)}, 0, NULL, ein_diff(ec, IC(0), T0(ec, 0)));
  IrInstr *in = ir_instr_new(g, IR_I_OP, ir_var_new(g, "y", ir_type_real(mid2)), 1, &x);
  in->op = IR_MOP_EIN;
  in->ein = bad;
  ir_block_append(g->entry, in);
  g->result = ir_type_real(mid2);
  ir_block_set_return(g->entry, in->dst);
  CHECK(mid_to_low(mid2, NULL, NULL, NULL) == NULL);
  arena_free(a);
}

int main(void) {
  test_ein();
  test_kernels();
  test_voxels();
  test_probe();
  test_vn();
  test_boundaries();
  return unit_finish("low");
}
