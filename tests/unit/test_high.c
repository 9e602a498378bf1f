/* test_high.c -- the EIN builders, the AST -> HighIR translation and the
 * HighIR optimisation driver.
 *
 * Oracles: the index expressions of doc/language.md §5.4 written out by hand (the
 * printed operators), direct formulas evaluated on random tensors (through
 * the independent EIN evaluator tests/oracle/ein_eval.h), hand-written
 * expectations of the IR structure of small programs, and ir_check over
 * every accept program of the corpus (tests/programs/accept) before and
 * after high_opt.
 */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/parser.h"
#include "frontend/typecheck.h"
#include "ir/ir.h"
#include "opt/high_opt.h"
#include "../oracle/ein_eval.h"
#include "translate/ast_to_high.h"
#include "translate/ein_builders.h"
#include "unit.h"

static Arena *A;
static EinContext *C;

static const char *ostr(const EinOp *op) { return op ? ein_op_str(A, op, 0) : "(null)"; }

static EinParam T(int rank, int d0, int d1, int d2) {
  int s[3] = {d0, d1, d2};
  return ein_param_tensor(rank, s);
}
static EinParam F(int dim, int rank, int d0, int d1) {
  int s[2] = {d0, d1};
  return ein_param_field(dim, rank, s);
}

/* ---- printed forms against doc/language.md §5 ----------------------------------- */

static void test_printed(void) {
  EinParam v3 = T(1, 3, 0, 0), v2 = T(1, 2, 0, 0), m3 = T(2, 3, 3, 0), m23 = T(2, 2, 3, 0),
           r = T(0, 0, 0, 0);
  /* (a•b)[α,β] = Σ_n a[α,n] b[n,β] */
  CHECK_STR(ostr(eb_contract(C, v3, v3, 1)), "λT0,T1⟨Σ_{i=0..2} T0[i]*T1[i]⟩_{}");
  CHECK_STR(ostr(eb_contract(C, m3, v3, 1)), "λT0,T1⟨Σ_{j=0..2} T0[i,j]*T1[j]⟩_{i:3}");
  CHECK_STR(ostr(eb_contract(C, v2, m23, 1)), "λT0,T1⟨Σ_{j=0..1} T0[j]*T1[j,i]⟩_{i:3}");
  CHECK_STR(ostr(eb_contract(C, m3, m3, 1)), "λT0,T1⟨Σ_{k=0..2} T0[i,k]*T1[k,j]⟩_{i:3,j:3}");
  /* (u⊗v)[i,j] = u[i] v[j] */
  CHECK_STR(ostr(eb_contract(C, v2, v3, 0)), "λT0,T1⟨T0[i]*T1[j]⟩_{i:2,j:3}");
  /* (A:B) = Σ_{m,n} A[m,n] B[m,n] */
  CHECK_STR(ostr(eb_contract(C, m3, m3, 2)), "λT0,T1⟨Σ_{i=0..2,j=0..2} T0[i,j]*T1[i,j]⟩_{}");
  /* 3-D cross Σ ε_ijk u_j v_k; 2-D u0 v1 − u1 v0 = Σ ε_ij u_i v_j */
  CHECK_STR(ostr(eb_cross(C, v3, v3)), "λT0,T1⟨Σ_{j=0..2,k=0..2} ε[i,j,k]*T0[j]*T1[k]⟩_{i:3}");
  CHECK_STR(ostr(eb_cross(C, v2, v2)), "λT0,T1⟨Σ_{i=0..1,j=0..1} ε[i,j]*T0[i]*T1[j]⟩_{}");
  CHECK_STR(ostr(eb_trace(C, m3)), "λT0⟨Σ_{i=0..2} T0[i,i]⟩_{}");
  CHECK_STR(ostr(eb_transpose(C, m23)), "λT0⟨T0[j,i]⟩_{i:3,j:2}");
  CHECK_STR(ostr(eb_norm(C, v3)), "λT0⟨sqrt(Σ_{i=0..2} T0[i]*T0[i])⟩_{}");
  CHECK_STR(ostr(eb_norm(C, r)), "λT0⟨abs(T0)⟩_{}");
  CHECK_STR(ostr(eb_normalize(C, v3)), "λT0⟨T0[i]/sqrt(Σ_{j=0..2} T0[j]*T0[j])⟩_{i:3}");
  CHECK_STR(ostr(eb_add(C, v3, v3)), "λT0,T1⟨T0[i] + T1[i]⟩_{i:3}");
  CHECK_STR(ostr(eb_scale(C, r, m3)), "λT0,T1⟨T0*T1[i,j]⟩_{i:3,j:3}");
  CHECK_STR(ostr(eb_div(C, v3, r)), "λT0,T1⟨T0[i]/T1⟩_{i:3}");
  int sl[2] = {1, -1};
  CHECK_STR(ostr(eb_slice(C, m23, sl)), "λT0⟨T0[1,i]⟩_{i:3}");
  /* [a,b] puts the new index first */
  CHECK_STR(ostr(eb_cons(C, 2, v3)), "λT0,T1⟨δ[i,0]*T0[j] + δ[i,1]*T1[j]⟩_{i:2,j:3}");
  CHECK_STR(ostr(eb_modulate(C, v3, v3)), "λT0,T1⟨T0[i]*T1[i]⟩_{i:3}");
  /* fields: derivative indices are appended; tensors are lifted */
  EinParam s3 = F(3, 0, 0, 0), f3 = F(3, 1, 3, 0), s1 = F(1, 0, 0, 0), f2 = F(2, 1, 2, 0);
  CHECK_STR(ostr(eb_grad(C, s3)), "λF0⟨∂_i(F0)⟩_{i:3}");
  CHECK_STR(ostr(eb_grad(C, s1)), "λF0⟨∂_0(F0)⟩_{}");
  CHECK_STR(ostr(eb_jacobian(C, f3)), "λF0⟨∂_j(F0[i])⟩_{i:3,j:3}");
  CHECK_STR(ostr(eb_divergence(C, f3)), "λF0⟨Σ_{i=0..2} ∂_i(F0[i])⟩_{}");
  CHECK_STR(ostr(eb_curl(C, f3)), "λF0⟨Σ_{j=0..2,k=0..2} ε[i,j,k]*∂_j(F0[k])⟩_{i:3}");
  CHECK_STR(ostr(eb_curl(C, f2)), "λF0⟨Σ_{i=0..1,j=0..1} ε[i,j]*∂_i(F0[j])⟩_{}");
  CHECK_STR(ostr(eb_probe(C, f3)), "λF0,T1⟨(F0[i])@T1⟩_{i:3}");
  CHECK_STR(ostr(eb_add(C, f3, v3)), "λF0,T1⟨F0[i] + lift(T1[i])⟩_{i:3}");
  CHECK_STR(ostr(eb_fun(C, EIN_FUN_SQRT, s3)), "λF0⟨sqrt(F0)⟩_{}");
  /* shapes that do not fit */
  CHECK(eb_contract(C, v2, v3, 1) == NULL);
  CHECK(eb_cross(C, v2, v3) == NULL);
  CHECK(eb_trace(C, m23) == NULL);
  CHECK(eb_curl(C, s3) == NULL);
  CHECK(eb_add(C, v2, v3) == NULL);
  /* every builder's operator is well formed */
  const EinOp *all[] = {eb_contract(C, m3, m3, 1), eb_cross(C, v3, v3), eb_det(C, m3),
                        eb_inv(C, m3), eb_inv(C, T(2, 2, 2, 0)), eb_lerp3(C, v3, v3, r),
                        eb_lerp5(C, v3, v3, r, r, r), eb_jacobian(C, f3), eb_probe(C, s1),
                        eb_identity(C, 3), eb_zeros(C, 1, (int[]){3}),
                        eb_broadcast(C, 2, (int[]){2, 3}), eb_pow(C, s3, 3),
                        eb_inv(C, F(2, 2, 2, 2)), eb_det(C, F(3, 2, 3, 3))};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
    char err[200] = "";
    CHECK_MSG(all[i] && ein_op_check(all[i], err, sizeof err), "builder %zu: %s", i, err);
  }
}

/* ---- numerical checks through the reference evaluator -------------------------------- */

static unsigned rng = 12345u;
static double rnd(void) {
  rng = rng * 1103515245u + 12345u;
  return ((rng >> 8) & 0xffff) / 32768.0 - 1.0;
}
static void fill(double *x, int n) {
  for (int i = 0; i < n; i++) x[i] = rnd();
}

static void eval2(const EinOp *op, const double *a, const double *b, double *out) {
  EinEvalArg args[2] = {{a, NULL}, {b, NULL}};
  char err[200] = "";
  int r = op ? ein_eval(op, args, NULL, out, err, sizeof err) : -1;
  CHECK_MSG(r == 0, "eval: %s", err);
}

static void test_numeric(void) {
  const double tol = 1e-12;
  for (int trial = 0; trial < 20; trial++) {
    double u[3], v[3], M[9], N[9], out[9];
    fill(u, 3), fill(v, 3), fill(M, 9), fill(N, 9);
    EinParam v3 = T(1, 3, 0, 0), m3 = T(2, 3, 3, 0), v2 = T(1, 2, 0, 0);
    eval2(eb_contract(C, v3, v3, 1), u, v, out);
    CHECK_NEAR(out[0], u[0] * v[0] + u[1] * v[1] + u[2] * v[2], tol);
    eval2(eb_contract(C, m3, v3, 1), M, v, out);
    for (int i = 0; i < 3; i++)
      CHECK_NEAR(out[i], M[3 * i] * v[0] + M[3 * i + 1] * v[1] + M[3 * i + 2] * v[2], tol);
    eval2(eb_contract(C, m3, m3, 1), M, N, out);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double s = 0;
        for (int k = 0; k < 3; k++) s += M[3 * i + k] * N[3 * k + j];
        CHECK_NEAR(out[3 * i + j], s, tol);
      }
    eval2(eb_contract(C, v3, v3, 0), u, v, out);
    for (int i = 0; i < 9; i++) CHECK_NEAR(out[i], u[i / 3] * v[i % 3], tol);
    eval2(eb_contract(C, m3, m3, 2), M, N, out);
    double dd = 0;
    for (int i = 0; i < 9; i++) dd += M[i] * N[i];
    CHECK_NEAR(out[0], dd, tol);
    eval2(eb_cross(C, v3, v3), u, v, out);
    CHECK_NEAR(out[0], u[1] * v[2] - u[2] * v[1], tol);
    CHECK_NEAR(out[1], u[2] * v[0] - u[0] * v[2], tol);
    CHECK_NEAR(out[2], u[0] * v[1] - u[1] * v[0], tol);
    eval2(eb_cross(C, v2, v2), u, v, out);
    CHECK_NEAR(out[0], u[0] * v[1] - u[1] * v[0], tol);
    eval2(eb_trace(C, m3), M, NULL, out);
    CHECK_NEAR(out[0], M[0] + M[4] + M[8], tol);
    eval2(eb_transpose(C, m3), M, NULL, out);
    for (int i = 0; i < 9; i++) CHECK_NEAR(out[i], M[3 * (i % 3) + i / 3], tol);
    eval2(eb_norm(C, m3), M, NULL, out);
    double fro = 0;
    for (int i = 0; i < 9; i++) fro += M[i] * M[i];
    CHECK_NEAR(out[0], sqrt(fro), tol);
    eval2(eb_normalize(C, v3), u, NULL, out);
    double nu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int i = 0; i < 3; i++) CHECK_NEAR(out[i], u[i] / nu, tol);
    /* det and inverse (3x3 by Cayley-Hamilton, 2x2 by the adjugate) */
    eval2(eb_det(C, m3), M, NULL, out);
    double det = M[0] * (M[4] * M[8] - M[5] * M[7]) - M[1] * (M[3] * M[8] - M[5] * M[6]) +
                 M[2] * (M[3] * M[7] - M[4] * M[6]);
    CHECK_NEAR(out[0], det, tol);
    eval2(eb_inv(C, m3), M, NULL, out);
    for (int i = 0; i < 3; i++) /* M · inv(M) = I */
      for (int j = 0; j < 3; j++) {
        double s = 0;
        for (int k = 0; k < 3; k++) s += M[3 * i + k] * out[3 * k + j];
        CHECK_NEAR(s, i == j, 1e-9);
      }
    double M2[4] = {M[0], M[1], M[2], M[3]};
    eval2(eb_inv(C, T(2, 2, 2, 0)), M2, NULL, out);
    double d2 = M2[0] * M2[3] - M2[1] * M2[2];
    CHECK_NEAR(out[0], M2[3] / d2, 1e-9);
    CHECK_NEAR(out[1], -M2[1] / d2, 1e-9);
    CHECK_NEAR(out[2], -M2[2] / d2, 1e-9);
    CHECK_NEAR(out[3], M2[0] / d2, 1e-9);
    /* [u, v]: rows */
    eval2(eb_cons(C, 2, v3), u, v, out);
    for (int i = 0; i < 3; i++) {
      CHECK_NEAR(out[i], u[i], tol);
      CHECK_NEAR(out[3 + i], v[i], tol);
    }
  }
  /* lerp5 maps x in [x0, x1] to [a, b] */
  double a = 2, b = 6, x0 = 1, x = 1.5, x1 = 3, out;
  EinEvalArg args[5] = {{&a, NULL}, {&b, NULL}, {&x0, NULL}, {&x, NULL}, {&x1, NULL}};
  EinParam r = T(0, 0, 0, 0);
  char err[200];
  CHECK(ein_eval(eb_lerp5(C, r, r, r, r, r), args, NULL, &out, err, sizeof err) == 0);
  CHECK_NEAR(out, 3.0, 1e-12);
}

/* Derivatives of polynomial fields: ∇, ∇×, ∇• through the evaluator. */
static void test_field_numeric(void) {
  /* F = (x0² x1, x1 x2, x0 + x2³) */
  EinPoly comps[3] = {{1, {{1.0, {2, 1, 0}}}}, {1, {{1.0, {0, 1, 1}}}},
                      {2, {{1.0, {1, 0, 0}}, {1.0, {0, 0, 3}}}}};
  double p[3] = {0.5, -1.25, 2.0}, out[9];
  EinEvalArg fa = {NULL, comps};
  char err[200] = "";
  EinParam f3 = F(3, 1, 3, 0);
  CHECK(ein_eval(eb_curl(C, f3), &fa, p, out, err, sizeof err) == 0);
  /* curl = (∂1 F2 − ∂2 F1, ∂2 F0 − ∂0 F2, ∂0 F1 − ∂1 F0) = (−x1, −1, −x0²) */
  CHECK_NEAR(out[0], -p[1], 1e-12);
  CHECK_NEAR(out[1], -1.0, 1e-12);
  CHECK_NEAR(out[2], -p[0] * p[0], 1e-12);
  CHECK(ein_eval(eb_divergence(C, f3), &fa, p, out, err, sizeof err) == 0);
  CHECK_NEAR(out[0], 2 * p[0] * p[1] + p[2] + 3 * p[2] * p[2], 1e-12);
  CHECK(ein_eval(eb_jacobian(C, f3), &fa, p, out, err, sizeof err) == 0);
  CHECK_NEAR(out[0 * 3 + 1], p[0] * p[0], 1e-12); /* ∂F0/∂x1 */
  CHECK_NEAR(out[2 * 3 + 2], 3 * p[2] * p[2], 1e-12);
  EinPoly s = {2, {{1.0, {1, 1, 1}}, {2.0, {0, 2, 0}}}}; /* x0 x1 x2 + 2 x1² */
  EinEvalArg sa = {NULL, &s};
  CHECK(ein_eval(eb_grad(C, F(3, 0, 0, 0)), &sa, p, out, err, sizeof err) == 0);
  CHECK_NEAR(out[0], p[1] * p[2], 1e-12);
  CHECK_NEAR(out[1], p[0] * p[2] + 4 * p[1], 1e-12);
  CHECK_NEAR(out[2], p[0] * p[1], 1e-12);
}

/* ---- translation of small programs ------------------------------------------------------- */

typedef struct Compiled {
  IrModule *m;
  int errors;
} Compiled;

static IrModule *compile_text(const char *text, bool opt, bool long_int) {
  Source *src = source_from_memory(A, "t.diderot", text, strlen(text));
  DiagCtx *d = diag_new(A, src);
  diag_set_warnings(d, false, false);
  Program *p = parse_program(A, d, src);
  TypecheckOptions to = {long_int, false, NULL, ".", false};
  if (!p || diag_error_count(d) || !typecheck_program(A, d, p, &to) || diag_error_count(d)) {
    diag_flush(d);
    return NULL;
  }
  HighTranslateOptions ho = {long_int, false};
  const char *internal = NULL;
  IrModule *m = ast_to_high(A, d, C, p, &ho, &internal);
  diag_flush(d);
  if (!m) {
    fprintf(stderr, "translation failed: %s\n", internal ? internal : "(reported)");
    return NULL;
  }
  IrCheck chk = {0};
  CHECK_MSG(ir_check_module(m, &chk) == 0, "%s", chk.first);
  if (opt) {
    CHECK(high_opt(m, C, d, NULL));
    IrCheck chk2 = {0};
    CHECK_MSG(ir_check_module(m, &chk2) == 0, "%s", chk2.first);
  }
  return m;
}

/* Instructions of cfg with operator `op` (or kind when op < 0). */
static int count_ops(const IrCFG *cfg, int op, IrInstrKind kind) {
  int n = 0;
  for (int i = 0; cfg && i < cfg->nblocks; i++)
    for (int j = 0; j < cfg->blocks[i]->ninstrs; j++) {
      const IrInstr *in = cfg->blocks[i]->instrs[j];
      if (op >= 0 ? in->kind == IR_I_OP && in->op == op : in->kind == kind) n++;
    }
  return n;
}

static int count_terms(const IrCFG *cfg, IrTermKind k) {
  int n = 0;
  for (int i = 0; cfg && i < cfg->nblocks; i++) n += cfg->blocks[i]->term.kind == k;
  return n;
}

static const IrInstr *first_ein(const IrCFG *cfg) {
  for (int i = 0; cfg && i < cfg->nblocks; i++)
    for (int j = 0; j < cfg->blocks[i]->ninstrs; j++)
      if (cfg->blocks[i]->instrs[j]->ein) return cfg->blocks[i]->instrs[j];
  return NULL;
}

static void test_programs(void) {
  /* a probe of ∇F for F = img ⊛ bspln3 fuses into V ⊛ H^{i} @ x */
  const char *grad =
      "#version 2.0\n"
      "input image(3)[] img;\n"
      "field#2(3)[] F = img ⊛ bspln3;\n"
      "strand S (int i) {\n"
      "  output vec3 g = [0.0, 0.0, 0.0];\n"
      "  update { g = ∇F([0.5, 0.5, real(i)]); stabilize; }\n"
      "}\n"
      "create_collection { S(i) | i in 0..9 };\n";
  IrModule *m = compile_text(grad, true, false);
  CHECK(m != NULL);
  if (m) {
    const IrCFG *u = ir_module_find_cfg(m, IR_CFG_UPDATE);
    const IrInstr *p = NULL;
    for (int i = 0; u && i < u->nblocks && !p; i++)
      for (int j = 0; j < u->blocks[i]->ninstrs; j++)
        if (u->blocks[i]->instrs[j]->ein && u->blocks[i]->instrs[j]->ein->body->flags & EIN_FL_PROBE)
          p = u->blocks[i]->instrs[j];
    CHECK(p != NULL);
    if (p) CHECK_STR(ostr(p->ein), "λV0,H1,T2⟨(V0⊛H1^{i})@T2⟩_{i:3}");
    CHECK(count_ops(u, IR_HOP_CONVOLVE, 0) == 0); /* fused and dead */
    CHECK(count_terms(u, IR_T_STABILIZE) == 1);
    CHECK(!m->create_array);
    CHECK(m->nglobals == 1 && m->globals[0]->kind == IR_GLOBAL_INPUT); /* no field global */
  }

  /* state as SSA: read at entry, written back at exits; && is a branch;
   * x op= e; continue inside foreach ends the method; param copies */
  const char *st =
      "#version 2.0\n"
      "strand S (int n) {\n"
      "  output int c = 0;\n"
      "  update {\n"
      "    foreach (int k in 0 .. n) { if (k > 3 && c < 10) continue; c += k; }\n"
      "    if (c > 100) stabilize;\n"
      "  }\n"
      "}\n"
      "update { if (numActive() < 2) stabilize; print(\"x\\n\"); }\n"
      "create_array { S(i) | i in 1..4 };\n";
  m = compile_text(st, false, false);
  CHECK(m != NULL);
  if (m) {
    const IrCFG *u = ir_module_find_cfg(m, IR_CFG_UPDATE);
    CHECK(m->nstate == 2);
    CHECK(m->nstate == 2 && !strcmp(m->state[1]->name, "_p_n") && !m->state[1]->output);
    CHECK(count_terms(u, IR_T_CONTINUE) == 1);
    CHECK(count_terms(u, IR_T_STABILIZE) == 1);
    CHECK(count_terms(u, IR_T_BRANCH) >= 4); /* loop, if, &&, if */
    CHECK(count_ops(u, -1, IR_I_STATE_GET) == 2); /* c and _p_n, once each */
    /* write-back of c before stabilize, continue and return */
    CHECK(count_ops(u, -1, IR_I_STATE_SET) == 3);
    CHECK(count_ops(u, IR_OP_IADD, 0) >= 2); /* c += k; k + 1 */
    const IrCFG *g = ir_module_find_cfg(m, IR_CFG_GLOBAL_UPDATE);
    CHECK(count_ops(g, IR_OP_STABILIZE_ALL, 0) == 1);
    CHECK(count_ops(g, IR_OP_PRINT, 0) == 1); /* runs after the global stabilize */
    CHECK(m->create_array);
    const IrCFG *cr = ir_module_find_cfg(m, IR_CFG_CREATE);
    CHECK(count_ops(cr, IR_OP_CREATE_GRID, 0) == 1);
    CHECK(count_ops(cr, IR_OP_NEW, 0) == 1);
    const IrCFG *si = ir_module_find_cfg(m, IR_CFG_STRAND_INIT);
    CHECK(si && si->nparams == 1);
    CHECK(count_ops(si, -1, IR_I_STATE_SET) == 2);
  }

  /* functions are inlined; constants fold to literals; reductions loop */
  const char *fn =
      "#version 2.0\n"
      "const real K = 2.0 * 3.0;\n"
      "function real sq(real x) { if (x < 0.0) { return -x * x; } return x * x; }\n"
      "strand S (int i) {\n"
      "  output real r = 0.0;\n"
      "  update { r = sq(real(i)) + K + sum{ real(j) | j in 0..i }; stabilize; }\n"
      "}\n"
      "create_collection { S(i) | i in 0..3 };\n";
  m = compile_text(fn, false, false);
  CHECK(m != NULL);
  if (m) {
    int funcs = 0;
    for (int i = 0; i < m->ncfgs; i++) funcs += m->cfgs[i]->kind == IR_CFG_FUNC;
    CHECK(funcs == 0);
    CHECK(m->nglobals == 1 && m->globals[0]->value && m->globals[0]->value->r[0] == 6.0);
    const IrCFG *u = ir_module_find_cfg(m, IR_CFG_UPDATE);
    CHECK(count_ops(u, -1, IR_I_GLOBAL_GET) == 0); /* K is a literal */
    CHECK(count_ops(u, IR_OP_RED_SUM, 0) == 0);    /* accumulated in a loop */
    int phis = 0;
    for (int i = 0; u && i < u->nblocks; i++) phis += u->blocks[i]->nphis;
    CHECK(phis >= 3); /* return-value join, loop index, accumulator */
  }

  /* strand-set reductions are strand_reduce with a map function */
  const char *red =
      "#version 2.0\n"
      "real total = 0.0;\n"
      "strand S (int i) { output real x = real(i); update { stabilize; } }\n"
      "update { real w = 2.0; total = sum{ w * P.x | P in S.all }; real[] xs = { P.x | P in S.active }; }\n"
      "create_collection { S(i) | i in 0..9 };\n";
  m = compile_text(red, true, false);
  CHECK(m != NULL);
  if (m) {
    const IrCFG *g = ir_module_find_cfg(m, IR_CFG_GLOBAL_UPDATE);
    CHECK(count_ops(g, IR_OP_STRAND_REDUCE, 0) == 1); /* xs is dead */
    int funcs = 0;
    for (int i = 0; i < m->ncfgs; i++)
      if (m->cfgs[i]->kind == IR_CFG_FUNC) {
        funcs++;
        if (!strcmp(m->cfgs[i]->name, "reduce_0")) CHECK(m->cfgs[i]->nparams == 2); /* P, w */
      }
    CHECK(funcs == 2);
    CHECK(!m->state[0]->shared); /* global-block reads are not strand communication */
  }

  /* min over ints uses the int width's identity */
  const char *mn =
      "#version 2.0\n"
      "strand S (int i) { output int x = min{ j | j in 0..i }; update { stabilize; } }\n"
      "create_collection { S(i) | i in 0..9 };\n";
  m = compile_text(mn, false, true);
  CHECK(m != NULL);
  if (m) {
    const IrCFG *si = ir_module_find_cfg(m, IR_CFG_STRAND_INIT);
    bool found = false;
    for (int i = 0; si && i < si->nblocks; i++)
      for (int j = 0; j < si->blocks[i]->ninstrs; j++) {
        const IrInstr *in = si->blocks[i]->instrs[j];
        if (in->kind == IR_I_LIT && in->lit.kind == IR_LIT_INT && in->lit.i == INT64_MAX) found = true;
      }
    CHECK(found);
  }

  /* a conditional expression coerced as a whole: the phi is int, then
   * int_to_real (ir_check inside compile_text catches a mismatch) */
  const char *ce =
      "#version 2.0\n"
      "strand S (int i) { output real r = 1 if i > 2 else 2; update { stabilize; } }\n"
      "create_collection { S(i) | i in 0..1 };\n";
  m = compile_text(ce, false, false);
  CHECK(m != NULL);
  if (m) CHECK(count_ops(ir_module_find_cfg(m, IR_CFG_STRAND_INIT), IR_OP_INT_TO_REAL, 0) == 1);

  /* a zero-parameter constant tensor (identity) fuses into its consumer */
  const char *idn =
      "#version 2.0\n"
      "strand S (int i) { output tensor[3,3] m = identity[3] * real(i); update { stabilize; } }\n"
      "create_collection { S(i) | i in 0..1 };\n";
  m = compile_text(idn, true, false);
  CHECK(m != NULL);
  if (m) {
    const IrInstr *e = first_ein(ir_module_find_cfg(m, IR_CFG_STRAND_INIT));
    CHECK(e && e->ein->nparams == 1);
  }
}

/* ---- the corpus: every accept program translates to valid HighIR ---------------------------- */

static int corpus_file(const char *path) {
  Source *src = source_load(A, path);
  if (!src) return 0;
  /* ARGS: lines (see tests/run.py): --long-int, --double, --Cname=value */
  TypecheckOptions to = {false, false, NULL, NULL, false};
  const char *dir = strrchr(path, '/');
  to.proxy_dir = dir ? arena_strndup(A, path, (size_t)(dir - path)) : ".";
  const char *a = strstr(src->text, "// ARGS:");
  if (a) {
    const char *end = strchr(a, '\n');
    char *line = arena_strndup(A, a + 8, end ? (size_t)(end - a - 8) : strlen(a + 8));
    for (char *tok = strtok(line, " \t"); tok; tok = strtok(NULL, " \t")) {
      if (!strcmp(tok, "--long-int")) to.long_int = true;
      else if (!strcmp(tok, "--double")) to.double_real = true;
      else if (!strncmp(tok, "--C", 3) && strchr(tok, '=')) {
        ConstOverride *o = ARENA_NEW(A, ConstOverride);
        char *eq = strchr(tok, '=');
        o->name = arena_strndup(A, tok + 3, (size_t)(eq - tok - 3));
        o->value = arena_strdup(A, eq + 1);
        o->next = (ConstOverride *)to.consts;
        to.consts = o;
      }
    }
  }
  DiagCtx *d = diag_new(A, src);
  diag_set_warnings(d, false, false);
  Program *p = parse_program(A, d, src);
  if (!p || !typecheck_program(A, d, p, &to) || diag_error_count(d)) {
    CHECK_MSG(false, "%s does not typecheck", path);
    diag_flush(d);
    return 1;
  }
  HighTranslateOptions ho = {to.long_int, to.double_real};
  const char *internal = NULL;
  IrModule *m = ast_to_high(A, d, C, p, &ho, &internal);
  CHECK_MSG(m != NULL, "%s: translation failed: %s", path, internal ? internal : "(reported)");
  if (!m) {
    diag_flush(d);
    return 1;
  }
  IrCheck c1 = {0};
  CHECK_MSG(ir_check_module(m, &c1) == 0, "%s: after translation: %s", path, c1.first);
  HighOptStats st;
  CHECK_MSG(high_opt(m, C, d, &st), "%s: high_opt failed", path);
  IrCheck c2 = {0};
  CHECK_MSG(ir_check_module(m, &c2) == 0, "%s: after high_opt: %s", path, c2.first);
  /* MidIR needs every field parameter's producer fused away */
  for (int i = 0; i < m->ncfgs; i++) {
    const IrCFG *cfg = m->cfgs[i];
    for (int b = 0; b < cfg->nblocks; b++)
      for (int j = 0; j < cfg->blocks[b]->ninstrs; j++) {
        const IrInstr *in = cfg->blocks[b]->instrs[j];
        if (!in->ein) continue;
        for (int k = 0; k < in->nargs; k++) {
          const IrInstr *def = in->args[k]->def;
          bool fieldp = in->ein->params[k].kind == EIN_PARAM_FIELD;
          CHECK_MSG(!fieldp || !def || def->kind != IR_I_OP ||
                        (def->op != IR_HOP_EIN && def->op != IR_HOP_CONVOLVE),
                    "%s: %s: a field parameter left unfused", path, cfg->name);
        }
      }
  }
  diag_flush(d);
  return 1;
}

static void test_corpus(void) {
  const char *root = getenv("DIDEROT_SRCDIR");
#ifdef DIDEROT_SOURCE_DIR
  if (!root) root = DIDEROT_SOURCE_DIR;
#endif
  if (!root) return;
  int n = 0;
  const char *dialects[2] = {"v1", "v2"};
  for (int v = 0; v < 2; v++) {
    const char *dir = arena_printf(A, "%s/tests/programs/accept/%s", root, dialects[v]);
    DIR *dp = opendir(dir);
    if (!dp) continue;
    struct dirent *de;
    while ((de = readdir(dp))) {
      size_t l = strlen(de->d_name);
      if (!((l > 8 && !strcmp(de->d_name + l - 8, ".diderot")) ||
            (l > 5 && !strcmp(de->d_name + l - 5, ".ddro"))))
        continue;
      n += corpus_file(arena_printf(A, "%s/%s", dir, de->d_name));
    }
    closedir(dp);
  }
  CHECK_MSG(n >= 200, "only %d corpus programs found", n);
}

int main(void) {
  A = arena_new();
  C = ein_context_new(A);
  test_printed();
  test_numeric();
  test_field_numeric();
  test_programs();
  test_corpus();
  arena_free(A);
  return unit_finish("high");
}
