/* test_ein.c -- EIN expressions (hash-consing, binding sites, printing,
 * fusion, checking) and the normalization rewrite system: one case per
 * rule with the expected result derived by hand, differential testing of
 * normalization with the reference evaluator (tests/oracle/ein_eval.c),
 * closed-form derivatives of polynomial fields, and the identities of the
 * seed paper (004, §5.4). */
#include <stdint.h>
#include <stdlib.h>

#include "../oracle/ein_eval.h"
#include "ir/ein.h"
#include "opt/ein_normalize.h"
#include "unit.h"
#include "util/diag.h"
#include "util/source.h"

static Arena *A;
static EinContext *C;
static bool covered[EIN_RULE_COUNT];
static EinNormStats ALL; /* every normalization of the differential tests */

/* ---- builders ------------------------------------------------------------- */

#define V(i) ein_ivar(i)
#define K(c) ein_icon(c)

static const EinExpr *I(int64_t n) { return ein_const_int(C, n); }
static const EinExpr *Q(int64_t a, int64_t b) { return ein_const_rat(C, a, b); }
static const EinExpr *T0(int p) { return ein_tensor(C, p, 0, NULL); }
static const EinExpr *T1(int p, EinIdx a) { return ein_tensor(C, p, 1, &a); }
static const EinExpr *T2(int p, EinIdx a, EinIdx b) {
  EinIdx v[2] = {a, b};
  return ein_tensor(C, p, 2, v);
}
static const EinExpr *F0(int p) { return ein_field(C, p, 0, NULL); }
static const EinExpr *F1(int p, EinIdx a) { return ein_field(C, p, 1, &a); }
static const EinExpr *CV(int img, int ker, int na, const EinIdx *a, int nb, const EinIdx *b) {
  return ein_conv(C, img, ker, na, a, nb, b);
}
static const EinExpr *add(const EinExpr *a, const EinExpr *b) { return ein_add2(C, a, b); }
static const EinExpr *add3(const EinExpr *a, const EinExpr *b, const EinExpr *c) {
  const EinExpr *v[3] = {a, b, c};
  return ein_add(C, 3, v);
}
static const EinExpr *sub(const EinExpr *a, const EinExpr *b) { return ein_sub(C, a, b); }
static const EinExpr *mul(const EinExpr *a, const EinExpr *b) { return ein_mul2(C, a, b); }
static const EinExpr *mul3(const EinExpr *a, const EinExpr *b, const EinExpr *c) {
  const EinExpr *v[3] = {a, b, c};
  return ein_mul(C, 3, v);
}
static const EinExpr *mul4(const EinExpr *a, const EinExpr *b, const EinExpr *c,
                           const EinExpr *d) {
  const EinExpr *v[4] = {a, b, c, d};
  return ein_mul(C, 4, v);
}
static const EinExpr *dv(const EinExpr *a, const EinExpr *b) { return ein_div(C, a, b); }
static const EinExpr *neg(const EinExpr *a) { return ein_neg(C, a); }
static const EinExpr *D(EinIdx i, const EinExpr *e) { return ein_diff(C, i, e); }
static const EinExpr *P(const EinExpr *e, int x) { return ein_probe(C, e, x); }
static const EinExpr *fn(EinFun f, const EinExpr *e) { return ein_fun(C, f, e); }
static const EinExpr *pw(const EinExpr *e, int n) { return ein_pow(C, e, n); }
static const EinExpr *lift(const EinExpr *e) { return ein_lift(C, e); }
static const EinExpr *S1(int v, int hi, const EinExpr *b) { return ein_sum1(C, v, 0, hi, b); }
static const EinExpr *S2(int v, int w, int hi, const EinExpr *b) {
  EinBinder bs[2] = {{v, 0, hi}, {w, 0, hi}};
  return ein_sum(C, 2, bs, b);
}
static const EinExpr *S3(int u, int v, int w, int hi, const EinExpr *b) {
  EinBinder bs[3] = {{u, 0, hi}, {v, 0, hi}, {w, 0, hi}};
  return ein_sum(C, 3, bs, b);
}
static const EinExpr *delta(EinIdx a, EinIdx b) { return ein_delta(C, a, b); }
static const EinExpr *eps3(EinIdx a, EinIdx b, EinIdx c) { return ein_eps3(C, a, b, c); }
static const EinExpr *eps2(EinIdx a, EinIdx b) { return ein_eps2(C, a, b); }

static const char *estr(const EinExpr *e) { return ein_expr_str(A, e, 0); }
static const char *ostr(const EinOp *op) { return ein_op_str(A, op, 0); }

static EinParam PT(int rank, int s0, int s1) {
  int sh[2] = {s0, s1};
  return ein_param_tensor(rank, sh);
}
static EinParam PF(int dim, int rank, int s0, int s1) {
  int sh[2] = {s0, s1};
  return ein_param_field(dim, rank, sh);
}
static EinParam PV(int dim, int rank, int s0, int s1) {
  int sh[2] = {s0, s1};
  return ein_param_image(dim, rank, sh);
}

static const EinOp *OP(int np, const EinParam *ps, int ns, int s0, int s1, const EinExpr *body) {
  int sg[2] = {s0, s1};
  return ein_op_new(C, np, ps, ns, sg, body);
}

/* ---- hash-consing and binding sites ------------------------------------ */

static void test_hash_consing(void) {
  const EinExpr *a = mul(T1(0, V(0)), T1(1, V(0)));
  const EinExpr *b = mul(T1(0, V(0)), T1(1, V(0)));
  CHECK(a == b);
  CHECK(mul(T1(0, V(0)), T1(1, V(1))) != a);
  CHECK(mul(T1(1, V(0)), T1(0, V(0))) != a); /* no hidden commutativity */
  CHECK(S1(2, 2, a) == S1(2, 2, b));
  CHECK(S1(2, 2, a) != S1(2, 1, a)); /* bounds are part of the node */
  CHECK(Q(2, 4) == Q(1, 2));
  CHECK(Q(3, -6) == Q(-1, 2));
  CHECK(Q(4, 2) == I(2));
  CHECK(ein_const_real(C, 1.0) != I(1)); /* reals and rationals differ */
  CHECK(ein_const_real(C, 0.0) != ein_const_real(C, -0.0));
  CHECK(ein_mul(C, 1, &a) == a);
  CHECK(ein_add(C, 0, NULL) == I(0));
  CHECK(ein_mul(C, 0, NULL) == I(1));
  CHECK(ein_sum(C, 0, NULL, a) == a);
  EinIdx al[2] = {V(0), K(1)}, be[1] = {V(2)};
  CHECK(CV(0, 1, 2, al, 1, be) == CV(0, 1, 2, al, 1, be));
  CHECK(CV(0, 1, 2, al, 1, be) != CV(0, 1, 2, al, 0, NULL));
  CHECK(D(V(0), F0(0)) == D(V(0), F0(0)));
  CHECK(D(V(0), F0(0)) != D(K(0), F0(0)));
  CHECK(fn(EIN_FUN_SIN, F0(0)) != fn(EIN_FUN_COS, F0(0)));
  CHECK(pw(F0(0), 2) != pw(F0(0), 3));
  CHECK(P(F0(0), 1) != P(F0(0), 2));
  size_t before = ein_context_node_count(C);
  (void)mul(T1(0, V(0)), T1(1, V(0)));
  CHECK(ein_context_node_count(C) == before); /* no new node for an old shape */

  /* flags and free variables */
  CHECK(ein_is_field(F0(0)) && ein_varies(F0(0)));
  CHECK(ein_is_field(lift(T0(1))) && !ein_varies(lift(T0(1))));
  CHECK(!ein_is_field(P(F0(0), 1)) && !ein_varies(P(F0(0), 1)));
  CHECK(ein_free_in(a, 0) && !ein_free_in(a, 1));
  CHECK(!ein_free_in(S1(0, 2, a), 0));
  CHECK(ein_free_in(S1(1, 2, a), 0));

  /* Binding sites: α-equivalent operators are one pointer, and Σ binders
   * are numbered by depth (σ binds 0..|σ|-1). */
  EinParam ps[2] = {PT(1, 3, 0), PT(1, 3, 0)};
  const EinOp *d1 = OP(2, ps, 0, 0, 0, S1(7, 2, mul(T1(0, V(7)), T1(1, V(7)))));
  const EinOp *d2 = OP(2, ps, 0, 0, 0, S1(3, 2, mul(T1(0, V(3)), T1(1, V(3)))));
  CHECK(d1 == d2);
  CHECK(d1->body->tag == EIN_SUM && d1->body->bind[0].var == 0);
  EinParam pm[2] = {PT(2, 3, 3), PT(1, 3, 0)};
  const EinOp *mv = OP(2, pm, 1, 3, 0, S1(9, 2, mul(T2(0, V(0), V(9)), T1(1, V(9)))));
  CHECK(mv->body->bind[0].var == 1);
  CHECK(mv->body->kids[0] == mul(T2(0, V(0), V(1)), T1(1, V(1))));
  /* nested: Σ_a T[a] * Σ_b U[a,b] gets a = 0, b = 1; siblings share a level */
  EinParam pq[2] = {PT(1, 3, 0), PT(2, 3, 3)};
  const EinOp *nest =
      OP(2, pq, 0, 0, 0, S1(5, 2, mul(T1(0, V(5)), S1(8, 2, T2(1, V(5), V(8))))));
  CHECK(nest->body->bind[0].var == 0 && nest->body->kids[0]->kids[1]->bind[0].var == 1);
  const EinOp *sib =
      OP(2, pq, 0, 0, 0, mul(S1(5, 2, T1(0, V(5))), S1(9, 2, T1(0, V(9)))));
  CHECK(sib->body->kids[0] == sib->body->kids[1]);
  /* shadowing: an inner binder equal to an outer variable is a new variable */
  const EinOp *sh = OP(2, pq, 0, 0, 0, S1(0, 2, mul(T1(0, V(0)), S1(0, 2, T2(1, V(0), V(0))))));
  CHECK_STR(ostr(sh), "λT0,T1⟨Σ_{i=0..2} T0[i]*(Σ_{j=0..2} T1[j,j])⟩_{}");
  /* different parameter lists are different operators */
  EinParam ps4[2] = {PT(1, 4, 0), PT(1, 4, 0)};
  CHECK(OP(2, ps4, 0, 0, 0, d1->body) != d1);
}

static void test_subst(void) {
  /* capture-avoiding: [0 := 1] in Σ_1 T[0,1] renames the binder */
  const EinExpr *e = S1(1, 2, T2(0, V(0), V(1)));
  int from = 0;
  EinIdx to = V(1);
  const EinExpr *r = ein_subst(C, e, 1, &from, &to);
  CHECK(r->tag == EIN_SUM && r->bind[0].var != 1);
  CHECK(r->kids[0] == T2(0, V(1), V(r->bind[0].var)));
  /* simultaneous: swap */
  int fr[2] = {0, 1};
  EinIdx tt[2] = {V(1), V(0)};
  CHECK(ein_subst(C, T2(0, V(0), V(1)), 2, fr, tt) == T2(0, V(1), V(0)));
  /* constants substitute into every index list, bound variables are kept */
  EinIdx two = K(2);
  const EinExpr *in = add(D(V(0), F1(1, V(0))), S1(0, 2, T1(0, V(0))));
  CHECK(ein_subst(C, in, 1, &from, &two) == add(D(K(2), F1(1, K(2))), S1(0, 2, T1(0, V(0)))));
  /* variables past the 63 tracked ones */
  from = 0;
  to = V(70);
  r = ein_subst(C, S1(70, 2, T2(0, V(0), V(70))), 1, &from, &to);
  CHECK(r->tag == EIN_SUM && r->bind[0].var < 63 && r->kids[0] == T2(0, V(70), V(r->bind[0].var)));
  EinBinder many[63];
  for (int b = 0; b < 63; b++) many[b] = (EinBinder){b, 0, 0};
  from = 100;
  to = V(5);
  r = ein_subst(C, ein_sum(C, 63, many, mul(T1(0, V(5)), T1(1, V(100)))), 1, &from, &to);
  CHECK(r->tag == EIN_SUM && r->bind[5].var == 101);
  CHECK(r->kids[0] == mul(T1(0, V(101)), T1(1, V(5))));
  EinParam p1[1] = {PT(1, 3, 0)};
  const EinOp *o = ein_op_new(C, 1, p1, 0, NULL, S1(100, 2, T1(0, V(100))));
  CHECK(o->body == S1(0, 2, T1(0, V(0))));
}

static void test_print(void) {
  EinParam ps[2] = {PT(1, 3, 0), PT(1, 3, 0)};
  const EinOp *dot = OP(2, ps, 0, 0, 0, S1(0, 2, mul(T1(0, V(0)), T1(1, V(0)))));
  CHECK_STR(ostr(dot), "λT0,T1⟨Σ_{i=0..2} T0[i]*T1[i]⟩_{}");
  CHECK_STR(ein_op_str(A, dot, EIN_PRINT_ASCII), "\\T0,T1<sum_{i=0..2} T0[i]*T1[i]>_{}");
  EinParam pf[1] = {PF(3, 1, 3, 0)};
  const EinOp *curl = OP(1, pf, 1, 3, 0,
                         S2(1, 2, 2, mul(eps3(V(0), V(1), V(2)), D(V(1), F1(0, V(2))))));
  CHECK_STR(ostr(curl), "λF0⟨Σ_{j=0..2,k=0..2} ε[i,j,k]*∂_j(F0[k])⟩_{i:3}");
  CHECK_STR(ein_op_str(A, curl, EIN_PRINT_ASCII),
            "\\F0<sum_{j=0..2,k=0..2} eps[i,j,k]*d_j(F0[k])>_{i:3}");
  EinParam pc[3] = {PV(3, 0, 0, 0), ein_param_kernel(2), PT(1, 3, 0)};
  EinIdx b1 = V(0);
  const EinOp *pg = OP(3, pc, 1, 3, 0, P(CV(0, 1, 0, NULL, 1, &b1), 2));
  CHECK_STR(ostr(pg), "λV0,H1,T2⟨(V0⊛H1^{i})@T2⟩_{i:3}");
  CHECK_STR(ein_op_str(A, pg, EIN_PRINT_ASCII), "\\V0,H1,T2<(V0(*)H1^{i})@T2>_{i:3}");
  /* precedence and constants */
  CHECK_STR(estr(mul(Q(1, 2), T0(0))), "(1/2)*T0");
  CHECK_STR(estr(mul(I(-2), T0(0))), "-2*T0");
  CHECK_STR(estr(neg(mul(I(2), T0(0)))), "-(2*T0)");
  CHECK_STR(estr(neg(neg(T0(0)))), "-(-T0)");
  CHECK_STR(estr(ein_const_real(C, 2.0)), "2.0");
  CHECK_STR(estr(ein_const_real(C, 0.25)), "0.25");
  CHECK_STR(estr(sub(T0(0), sub(T0(1), T0(2)))), "T0 - (T1 - T2)");
  CHECK_STR(estr(sub(sub(T0(0), T0(1)), T0(2))), "T0 - T1 - T2");
  CHECK_STR(estr(mul(T0(0), mul(T0(1), T0(2)))), "T0*(T1*T2)");
  CHECK_STR(estr(add(T0(0), mul(T0(1), T0(2)))), "T0 + T1*T2");
  CHECK_STR(estr(mul(add(T0(0), T0(1)), T0(2))), "(T0 + T1)*T2");
  CHECK_STR(estr(pw(add(T0(0), T0(1)), 2)), "(T0 + T1)^2");
  CHECK_STR(estr(pw(T0(0), -1)), "T0^(-1)");
  CHECK_STR(estr(dv(T0(0), mul(T0(1), T0(2)))), "T0/(T1*T2)");
  CHECK_STR(estr(mul(T0(0), S1(3, 2, T1(1, V(3))))), "T0*(Σ_{l=0..2} T1[l])");
  CHECK_STR(estr(fn(EIN_FUN_SQRT, lift(T0(1)))), "sqrt(lift(T1))");
  CHECK_STR(estr(delta(V(0), K(1))), "δ[i,1]");
  CHECK_STR(ein_expr_str(A, eps2(V(0), V(1)), EIN_PRINT_ASCII), "eps[i,j]");
  CHECK_STR(estr(T1(0, V(20))), "T0[i20]");
}

static void test_check(void) {
  char err[128];
  EinParam ps[2] = {PT(2, 3, 2), PF(3, 0, 0, 0)};
  CHECK(ein_op_check(OP(2, ps, 2, 2, 3, T2(0, V(1), V(0))), err, sizeof err));
  /* T0 is 3x2: indexing [i,j] with i<3, j<2 fits; [j,i] with i<2, j<3 does too */
  CHECK(!ein_op_check(OP(2, ps, 2, 3, 3, T2(0, V(0), V(1))), err, sizeof err));
  CHECK(!ein_op_check(OP(2, ps, 1, 3, 0, T2(0, V(0), V(1))), err, sizeof err)); /* j free */
  CHECK_STR(err, "index variable 1 is not bound");
  CHECK(!ein_op_check(OP(2, ps, 1, 3, 0, T1(0, V(0))), err, sizeof err)); /* rank */
  CHECK(!ein_op_check(OP(2, ps, 0, 0, 0, T2(0, K(3), K(0))), err, sizeof err));
  CHECK(!ein_op_check(OP(2, ps, 0, 0, 0, T0(1)), err, sizeof err)); /* kind */
  CHECK(!ein_op_check(OP(2, ps, 0, 0, 0, T0(5)), err, sizeof err)); /* no such param */
  CHECK(!ein_op_check(OP(2, ps, 0, 0, 0, D(K(3), F0(1))), err, sizeof err)); /* axis */
  CHECK(ein_op_check(OP(2, ps, 0, 0, 0, D(K(2), F0(1))), err, sizeof err));
  CHECK(!ein_op_check(OP(2, ps, 0, 0, 0, ein_sum1(C, 0, 2, 1, F0(1))), err, sizeof err));
  CHECK(!ein_op_check(OP(2, ps, 0, 0, 0, lift(F0(1))), err, sizeof err));
  CHECK(!ein_op_check(OP(2, ps, 0, 0, 0, P(F0(1), 1)), err, sizeof err)); /* pos is a field */
}

static void test_fusion(void) {
  /* transpose ∘ transpose = identity: the substitution is simultaneous */
  EinParam pm[1] = {PT(2, 2, 3)};
  const EinOp *tr = OP(1, pm, 2, 3, 2, T2(0, V(1), V(0)));
  EinParam pm2[1] = {PT(2, 3, 2)};
  const EinOp *tr2 = OP(1, pm2, 2, 2, 3, T2(0, V(1), V(0)));
  const EinOp *id = ein_op_subst(C, tr2, 0, tr);
  CHECK(id && id == OP(1, pm, 2, 2, 3, T2(0, V(0), V(1))));
  /* type mismatch: shape */
  CHECK(ein_op_subst(C, tr, 0, tr) == NULL);
  /* trace(u⊗v): outer product substituted into trace */
  EinParam pv[2] = {PT(1, 3, 0), PT(1, 3, 0)};
  const EinOp *outer = OP(2, pv, 2, 3, 3, mul(T1(0, V(0)), T1(1, V(1))));
  EinParam pt[1] = {PT(2, 3, 3)};
  const EinOp *trace = OP(1, pt, 0, 0, 0, S1(0, 2, T2(0, V(0), V(0))));
  const EinOp *f = ein_op_subst(C, trace, 0, outer);
  CHECK_STR(ostr(f), "λT0,T1⟨Σ_{i=0..2} T0[i]*T1[i]⟩_{}");
  /* parameters after the replaced one shift; inner Σ binders avoid capture */
  EinParam p3[3] = {PT(0, 0, 0), PT(1, 3, 0), PT(0, 0, 0)};
  const EinOp *o3 = OP(3, p3, 0, 0, 0, S1(0, 2, mul3(T0(0), T1(1, V(0)), T0(2))));
  EinParam pmv[2] = {PT(2, 3, 3), PT(1, 3, 0)};
  const EinOp *matvec = OP(2, pmv, 1, 3, 0, S1(1, 2, mul(T2(0, V(0), V(1)), T1(1, V(1)))));
  const EinOp *o4 = ein_op_subst(C, o3, 1, matvec);
  CHECK_STR(ostr(o4), "λT0,T1,T2,T3⟨Σ_{i=0..2} T0*(Σ_{j=0..2} T1[i,j]*T2[j])*T3⟩_{}");
  /* a field operator needs a field parameter */
  EinParam pf[1] = {PF(3, 0, 0, 0)};
  const EinOp *grad = OP(1, pf, 1, 3, 0, D(V(0), F0(0)));
  CHECK(ein_op_subst(C, trace, 0, grad) == NULL);
  /* a probe position is a parameter: neither a computed position (a*b) nor
   * a constant can replace it (the probe would be left at parameter -1),
   * but the field parameter of the same probe still fuses */
  EinParam pp[2] = {PF(1, 1, 3, 0), PT(0, 0, 0)};
  const EinOp *probe = OP(2, pp, 1, 3, 0, P(F1(0, V(0)), 1));
  EinParam pab[2] = {PT(0, 0, 0), PT(0, 0, 0)};
  CHECK(ein_op_subst(C, probe, 1, OP(2, pab, 0, 0, 0, mul(T0(0), T0(1)))) == NULL);
  CHECK(ein_op_subst(C, probe, 1, OP(0, NULL, 0, 0, 0, Q(1, 10))) == NULL);
  EinParam pneg[1] = {PF(1, 1, 3, 0)};
  const EinOp *fneg = ein_op_subst(C, probe, 0, OP(1, pneg, 1, 3, 0, neg(F1(0, V(0)))));
  CHECK(fneg && ein_op_check(fneg, NULL, 0));
  CHECK_STR(fneg ? ostr(fneg) : "-", "λF0,T1⟨(-F0[i])@T1⟩_{i:3}");
}

/* ---- one case per rule ------------------------------------------------- */

static void rule_case(int line, EinRuleId r, int depth, const EinExpr *in, const EinExpr *want) {
  EinNormStats st;
  memset(&st, 0, sizeof st);
  bool hit = true;
  const EinExpr *got = ein_normalize_expr(C, in, depth, NULL, &st, &hit);
  want = ein_canon_vars(C, want, depth);
  CHECK_MSG(got == want, "line %d (%s): %s normalizes to %s, want %s", line, ein_rule_name(r),
            estr(in), estr(got), estr(want));
  CHECK_MSG(st.fired[r] > 0, "line %d: rule %s did not fire", line, ein_rule_name(r));
  CHECK(!hit);
  covered[r] = true;
}
#define RULE(r, depth, in, want) rule_case(__LINE__, EIN_RULE_##r, depth, in, want)

static void test_rules_arith(void) {
  RULE(DELTA_CONST, 1, delta(V(0), V(0)), I(1));
  RULE(DELTA_CONST, 0, delta(K(0), K(1)), I(0));
  RULE(DELTA_CONST, 0, delta(K(2), K(2)), I(1));
  RULE(EPS_CONST, 2, eps3(V(0), V(1), V(0)), I(0));
  RULE(EPS_CONST, 0, eps3(K(1), K(0), K(2)), I(-1));
  RULE(EPS_CONST, 0, eps3(K(2), K(0), K(1)), I(1));
  RULE(EPS_CONST, 0, eps2(K(1), K(0)), I(-1));
  RULE(MUL_FLATTEN, 0, mul(T0(5), mul(T0(6), T0(8))), mul3(T0(5), T0(6), T0(8)));
  RULE(MUL_ZERO, 0, mul3(T0(5), I(0), T0(6)), I(0));
  RULE(MUL_CONST, 0, mul3(I(2), T0(5), I(3)), mul(I(6), T0(5)));
  RULE(MUL_CONST, 0, mul(I(1), T0(5)), T0(5));
  RULE(MUL_CONST, 0, mul(T0(5), Q(1, 2)), mul(Q(1, 2), T0(5)));
  RULE(MUL_CONST, 0, mul3(Q(2, 3), T0(5), Q(3, 2)), T0(5));
  RULE(MUL_NEG, 0, mul(T0(5), neg(T0(6))), neg(mul(T0(5), T0(6))));
  RULE(MUL_NEG, 0, mul(neg(T0(5)), neg(T0(6))), mul(T0(5), T0(6)));
  RULE(ADD_FLATTEN, 0, add(T0(5), add(T0(6), T0(8))), add3(T0(5), T0(6), T0(8)));
  RULE(ADD_ZERO, 0, add(T0(5), I(0)), T0(5));
  RULE(ADD_CONST, 0, add3(I(1), T0(5), I(2)), add(I(3), T0(5)));
  RULE(ADD_CONST, 0, add(T0(5), Q(1, 2)), add(Q(1, 2), T0(5)));
  RULE(SUB_ZERO, 0, sub(T0(5), I(0)), T0(5));
  RULE(SUB_ZERO, 0, sub(I(0), T0(5)), neg(T0(5)));
  RULE(SUB_SELF, 1, sub(T1(5, V(0)), T1(5, V(0))), I(0));
  RULE(SUB_NEG, 0, sub(T0(5), neg(T0(6))), add(T0(5), T0(6)));
  RULE(SUB_CONST, 0, sub(I(3), I(5)), I(-2));
  RULE(NEG_NEG, 0, neg(neg(T0(5))), T0(5));
  RULE(NEG_CONST, 0, neg(Q(3, 4)), Q(-3, 4));
  RULE(DIV_ZERO, 0, dv(I(0), T0(5)), I(0));
  RULE(DIV_ONE, 0, dv(T0(5), I(1)), T0(5));
  RULE(DIV_CONST, 0, dv(I(3), I(6)), Q(1, 2));
  RULE(FUN_CONST, 0, fn(EIN_FUN_SQRT, Q(9, 4)), Q(3, 2));
  RULE(FUN_CONST, 0, fn(EIN_FUN_EXP, I(0)), I(1));
  RULE(FUN_CONST, 0, fn(EIN_FUN_ABS, I(-3)), I(3));
  RULE(FUN_CONST, 0, fn(EIN_FUN_SIGN, Q(-2, 3)), I(-1));
  RULE(FUN_CONST, 0, fn(EIN_FUN_ACOS, I(1)), I(0));
  RULE(FUN_CONST, 0, fn(EIN_FUN_SIN, ein_const_real(C, 0.5)), ein_const_real(C, sin(0.5)));
  RULE(POW_ZERO, 0, pw(T0(5), 0), I(1));
  RULE(POW_ONE, 0, pw(T0(5), 1), T0(5));
  RULE(POW_CONST, 0, pw(Q(2, 3), 3), Q(8, 27));
  RULE(POW_CONST, 0, pw(I(2), -2), Q(1, 4));
  /* what must stay: sqrt(2) is not rational; 1/0 is not folded */
  const EinExpr *s2 = fn(EIN_FUN_SQRT, I(2));
  CHECK(ein_normalize_expr(C, s2, 0, NULL, NULL, NULL) == s2);
  const EinExpr *z = dv(I(1), I(0));
  CHECK(ein_normalize_expr(C, z, 0, NULL, NULL, NULL) == z);
  const EinExpr *e1 = delta(V(0), V(1));
  CHECK(ein_normalize_expr(C, e1, 2, NULL, NULL, NULL) == e1);
}

static void test_rules_probe(void) {
  const int x = 9;
  RULE(PROBE_TENSOR, 0, P(T0(5), x), T0(5));
  RULE(PROBE_LIFT, 1, P(lift(T1(5, V(0))), x), T1(5, V(0)));
  RULE(PROBE_NEG, 0, P(neg(F0(0)), x), neg(P(F0(0), x)));
  RULE(PROBE_ADD, 0, P(add(F0(0), F0(1)), x), add(P(F0(0), x), P(F0(1), x)));
  RULE(PROBE_SUB, 0, P(sub(F0(0), lift(T0(5))), x), sub(P(F0(0), x), T0(5)));
  RULE(PROBE_MUL, 0, P(mul(T0(5), F0(0)), x), mul(T0(5), P(F0(0), x)));
  RULE(PROBE_DIV, 0, P(dv(F0(0), F0(1)), x), dv(P(F0(0), x), P(F0(1), x)));
  RULE(PROBE_FUN, 0, P(fn(EIN_FUN_SQRT, F0(0)), x), fn(EIN_FUN_SQRT, P(F0(0), x)));
  RULE(PROBE_POW, 0, P(pw(F0(0), 2), x), pw(P(F0(0), x), 2));
  RULE(PROBE_SUM, 0, P(S1(0, 2, mul(F1(1, V(0)), T1(5, V(0)))), x),
       S1(0, 2, mul(P(F1(1, V(0)), x), T1(5, V(0)))));
  /* a probe stays on a leaf */
  const EinExpr *leaf = P(D(V(0), F0(0)), x);
  CHECK(ein_normalize_expr(C, leaf, 1, NULL, NULL, NULL) == leaf);
}

static void test_rules_diff(void) {
  const EinExpr *f = F0(0), *g = F0(1), *t = T0(5);
  const EinExpr *df = D(K(0), f), *dg = D(K(0), g);
  RULE(DIFF_CONST, 0, D(K(0), t), I(0));
  RULE(DIFF_CONST, 0, D(K(0), lift(t)), I(0));
  RULE(DIFF_CONST, 0, D(K(0), P(f, 9)), I(0));
  EinIdx a1 = V(1), b0 = V(0), b10[2] = {K(1), K(0)};
  RULE(DIFF_CONV, 1, D(V(0), CV(2, 3, 0, NULL, 0, NULL)), CV(2, 3, 0, NULL, 1, &b0));
  RULE(DIFF_CONV, 2, D(K(0), D(K(1), CV(2, 3, 1, &a1, 0, NULL))), CV(2, 3, 1, &a1, 2, b10));
  RULE(DIFF_NEG, 0, D(K(0), neg(f)), neg(df));
  RULE(DIFF_ADD, 0, D(K(0), add3(f, t, g)), add(df, dg));
  RULE(DIFF_SUB, 0, D(K(0), sub(f, g)), sub(df, dg));
  RULE(DIFF_SUB, 0, D(K(0), sub(t, f)), neg(df));
  RULE(DIFF_SUB, 0, D(K(0), sub(f, t)), df);
  RULE(DIFF_MUL, 0, D(K(0), mul3(t, f, g)), add(mul3(t, df, g), mul3(t, f, dg)));
  RULE(DIFF_DIV, 0, D(K(0), dv(f, g)), dv(sub(mul(df, g), mul(f, dg)), pw(g, 2)));
  RULE(DIFF_DIV, 0, D(K(0), dv(f, t)), dv(df, t));
  RULE(DIFF_DIV, 0, D(K(0), dv(t, f)), neg(dv(mul(t, df), pw(f, 2))));
  /* ∂_i Σ_j F[j] T[j] → Σ_j ∂_i(F[j]) T[j] */
  RULE(DIFF_SUM, 1, D(V(0), S1(1, 2, mul(F1(1, V(1)), T1(6, V(1))))),
       S1(1, 2, mul(D(V(0), F1(1, V(1))), T1(6, V(1)))));
  /* the derivative index equals the binder: the binder is renamed */
  RULE(DIFF_SUM, 2, D(V(1), S1(1, 2, mul(F1(1, V(1)), T1(6, V(1))))),
       S1(2, 2, mul(D(V(1), F1(1, V(2))), T1(6, V(2)))));
  RULE(DIFF_POW, 0, D(K(0), pw(f, 3)), mul3(I(3), pw(f, 2), df));
  RULE(DIFF_POW, 0, D(K(0), pw(f, 2)), mul3(I(2), f, df));
  RULE(DIFF_SQRT, 0, D(K(0), fn(EIN_FUN_SQRT, f)), dv(df, mul(I(2), fn(EIN_FUN_SQRT, f))));
  RULE(DIFF_EXP, 0, D(K(0), fn(EIN_FUN_EXP, f)), mul(fn(EIN_FUN_EXP, f), df));
  RULE(DIFF_LOG, 0, D(K(0), fn(EIN_FUN_LOG, f)), dv(df, f));
  RULE(DIFF_SIN, 0, D(K(0), fn(EIN_FUN_SIN, f)), mul(fn(EIN_FUN_COS, f), df));
  RULE(DIFF_COS, 0, D(K(0), fn(EIN_FUN_COS, f)), neg(mul(fn(EIN_FUN_SIN, f), df)));
  RULE(DIFF_TAN, 0, D(K(0), fn(EIN_FUN_TAN, f)), dv(df, pw(fn(EIN_FUN_COS, f), 2)));
  RULE(DIFF_ASIN, 0, D(K(0), fn(EIN_FUN_ASIN, f)),
       dv(df, fn(EIN_FUN_SQRT, sub(I(1), pw(f, 2)))));
  RULE(DIFF_ACOS, 0, D(K(0), fn(EIN_FUN_ACOS, f)),
       neg(dv(df, fn(EIN_FUN_SQRT, sub(I(1), pw(f, 2))))));
  RULE(DIFF_ATAN, 0, D(K(0), fn(EIN_FUN_ATAN, f)), dv(df, add(I(1), pw(f, 2))));
  RULE(DIFF_ABS, 0, D(K(0), fn(EIN_FUN_ABS, f)), mul(fn(EIN_FUN_SIGN, f), df));
  RULE(DIFF_SIGN, 0, D(K(0), fn(EIN_FUN_SIGN, f)), I(0));
  /* a derivative of a field parameter is a leaf */
  CHECK(ein_normalize_expr(C, D(K(0), D(K(1), f)), 0, NULL, NULL, NULL) == D(K(0), D(K(1), f)));
}

static void test_rules_index(void) {
  /* summations */
  RULE(SUM_DEAD, 0, S1(0, 2, T0(5)), mul(I(3), T0(5)));
  {
    EinBinder b[2] = {{0, 0, 2}, {1, 0, 1}};
    RULE(SUM_DEAD, 0, ein_sum(C, 2, b, T1(6, V(0))), S1(0, 2, mul(I(2), T1(6, V(0)))));
  }
  RULE(SUM_FLATTEN, 0, S1(0, 2, S1(1, 2, T2(7, V(0), V(1)))), S2(0, 1, 2, T2(7, V(0), V(1))));
  RULE(SUM_NEG, 0, S1(0, 2, neg(T1(6, V(0)))), neg(S1(0, 2, T1(6, V(0)))));
  RULE(MUL_SUM, 0, mul(T0(5), S1(0, 2, T1(6, V(0)))), S1(0, 2, mul(T0(5), T1(6, V(0)))));
  /* the inner binder shadows the free i: it is renamed before moving T6[i] under it */
  RULE(MUL_SUM, 1, mul(T1(6, V(0)), S1(0, 2, T2(7, V(0), V(0)))),
       S1(1, 2, mul(T1(6, V(0)), T2(7, V(1), V(1)))));
  /* δ */
  RULE(DELTA_CONTRACT, 1, S1(1, 2, mul(delta(V(0), V(1)), T1(6, V(1)))), T1(6, V(0)));
  RULE(DELTA_CONTRACT, 0, S1(0, 2, mul(delta(V(0), K(1)), T1(6, V(0)))), T1(6, K(1)));
  RULE(DELTA_CONTRACT, 0, S1(0, 2, mul(delta(V(0), K(5)), T1(6, V(0)))), I(0));
  RULE(DELTA_CONTRACT, 1, S1(1, 2, delta(V(1), V(0))), I(1));
  /* Σ_j ∂_j (δ_ij e): the product rule leaves δ outside, then j := i */
  RULE(DELTA_CONTRACT, 1, S1(1, 2, D(V(1), mul(delta(V(0), V(1)), F0(0)))), D(V(0), F0(0)));
  /* different ranges: only the variable with the wider range is replaced */
  {
    EinBinder b[2] = {{0, 0, 2}, {1, 0, 1}};
    RULE(DELTA_CONTRACT, 0, ein_sum(C, 2, b, mul(delta(V(0), V(1)), T2(7, V(0), V(1)))),
         S1(0, 1, T2(7, V(0), V(0))));
    RULE(DELTA_CONTRACT, 0, ein_sum(C, 2, b, mul(delta(V(1), V(0)), T2(7, V(0), V(1)))),
         S1(0, 1, T2(7, V(0), V(0))));
    EinBinder c[2] = {{0, 0, 1}, {1, 1, 2}}; /* overlapping, neither contains the other */
    const EinExpr *keep = ein_sum(C, 2, c, mul(delta(V(0), V(1)), T2(7, V(0), V(1))));
    CHECK(ein_normalize_expr(C, keep, 0, NULL, NULL, NULL) == keep);
  }
  /* ε identities */
  RULE(EPS_SYMMETRIC, 1, S2(1, 2, 2, mul3(eps3(V(0), V(1), V(2)), T1(6, V(1)), T1(6, V(2)))),
       I(0));
  RULE(EPS_SYMMETRIC, 1, S2(1, 2, 2, mul(eps3(V(0), V(1), V(2)), D(V(1), D(V(2), F0(0))))),
       I(0));
  RULE(EPS_SYMMETRIC, 0, S2(0, 1, 1, eps2(V(0), V(1))), I(0));
  /* Σ_s ε_s01 ε_s23 = δ02 δ13 - δ03 δ12 (free j k l m are vars 0..3) */
  RULE(EPS_EPS, 4, S1(4, 2, mul(eps3(V(4), V(0), V(1)), eps3(V(4), V(2), V(3)))),
       sub(mul(delta(V(0), V(2)), delta(V(1), V(3))),
           mul(delta(V(0), V(3)), delta(V(1), V(2)))));
  /* rotated: ε_asb = ε_sba, ε_cds = ε_scd, so Σ_s = δ_bc δ_ad - δ_bd δ_ac */
  RULE(EPS_EPS, 4,
       S1(4, 2, mul3(eps3(V(0), V(4), V(1)), T0(5), eps3(V(2), V(3), V(4)))),
       sub(mul3(delta(V(1), V(2)), delta(V(0), V(3)), T0(5)),
           mul3(delta(V(1), V(3)), delta(V(0), V(2)), T0(5))));
  /* s also used by the rest of the product: no identity applies */
  {
    const EinExpr *keep =
        S1(4, 2, mul3(eps3(V(4), V(0), V(1)), eps3(V(4), V(2), V(3)), T1(6, V(4))));
    CHECK(ein_normalize_expr(C, keep, 4, NULL, NULL, NULL) == keep);
  }
  /* 2-D: Σ_s ε_sp ε_rs = -δ_pr */
  RULE(EPS2_EPS2, 2, S1(2, 1, mul(eps2(V(2), V(0)), eps2(V(1), V(2)))), neg(delta(V(0), V(1))));
  {
    const EinExpr *keep = S1(2, 1, mul3(eps2(V(2), V(0)), eps2(V(1), V(2)), T1(6, V(2))));
    CHECK(ein_normalize_expr(C, keep, 2, NULL, NULL, NULL) == keep);
  }
}

/* ---- differential testing ------------------------------------------------- */

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static double rnd(void) { /* uniform in [-1, 1) */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / (double)(1ull << 52) - 1.0;
}

/* A random polynomial in `dim` variables of degree <= 3, with small
 * coefficients so that |P| < 1 on [-1,1]^dim (asin/acos stay defined). */
static void rand_poly(EinPoly *p, int dim) {
  p->nterms = 5;
  for (int t = 0; t < p->nterms; t++) {
    p->terms[t].coef = 0.19 * rnd();
    int left = t == 0 ? 0 : 1 + (int)((rnd() + 1) * 1.5); /* degree 0..3 */
    for (int a = 0; a < 3; a++) p->terms[t].exp[a] = 0;
    while (left-- > 0) p->terms[t].exp[(int)((rnd() + 1) * 0.5 * dim) % dim]++;
  }
}

static bool close_to(double a, double b) {
  if (isnan(a) || isnan(b)) return false;
  double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
  return fabs(a - b) <= 1e-10 * (scale > 1 ? scale : 1);
}

/* Whether a normalized expression is in normal form: ∂ only on field
 * parameters (derivatives of convolutions are on the kernel), probes only
 * on reconstructions, no summation directly inside a product or a
 * summation, no lift below a probe's level. */
static bool normal_form(const EinExpr *e, bool in_probe) {
  switch (e->tag) {
  case EIN_DIFF: {
    const EinExpr *k = e->kids[0];
    while (k->tag == EIN_DIFF) k = k->kids[0];
    return k->tag == EIN_FIELD;
  }
  case EIN_PROBE: {
    const EinExpr *k = e->kids[0];
    if (in_probe) return false;
    if (k->tag == EIN_CONV || k->tag == EIN_FIELD) return true;
    return k->tag == EIN_DIFF && normal_form(k, true);
  }
  case EIN_LIFT: return false;
  case EIN_MUL:
    for (int i = 0; i < e->nkids; i++)
      if (e->kids[i]->tag == EIN_SUM || e->kids[i]->tag == EIN_MUL) return false;
    break;
  case EIN_SUM:
    if (e->kids[0]->tag == EIN_SUM) return false;
    break;
  default: break;
  }
  for (int i = 0; i < e->nkids; i++)
    if (!normal_form(e->kids[i], in_probe)) return false;
  return true;
}

/* Arguments for op: random tensors, random polynomial fields. */
typedef struct Args {
  EinEvalArg a[12];
  double tens[12][27];
  EinPoly polys[12][9];
} Args;

static void rand_args(const EinOp *op, Args *g) {
  for (int i = 0; i < op->nparams && i < 12; i++) {
    const EinParam *p = &op->params[i];
    int n = 1;
    for (int k = 0; k < p->rank; k++) n *= p->shape[k];
    for (int k = 0; k < 27; k++) g->tens[i][k] = rnd();
    for (int k = 0; k < n && k < 9; k++)
      rand_poly(&g->polys[i][k], p->dim > 0 ? p->dim : 1);
    g->a[i].tensor = g->tens[i];
    g->a[i].field = g->polys[i];
  }
}

/* Normalize op, check the normal form, and compare the evaluations of op
 * and its normal form on `trials` random argument sets. Returns the
 * normalized operator. */
static const EinOp *diff_test(const char *name, const EinOp *op, int trials) {
  char err[160];
  CHECK_MSG(op != NULL, "%s: not built", name);
  if (!op) return NULL;
  CHECK_MSG(ein_op_check(op, err, sizeof err), "%s: %s", name, err);
  bool hit = true;
  unsigned long before = ALL.steps;
  const EinOp *nf = ein_normalize(C, op, NULL, &ALL, &hit);
  CHECK_MSG(!hit, "%s: step bound hit", name);
  CHECK_MSG((ALL.steps - before) * 10 < ein_norm_step_bound(op->body->size),
            "%s: %lu steps, near the bound", name, ALL.steps - before);
  CHECK_MSG(ein_op_check(nf, err, sizeof err), "%s: normalized: %s", name, err);
  CHECK_MSG(normal_form(nf->body, false), "%s: not in normal form: %s", name, ostr(nf));
  CHECK_MSG(ein_normalize(C, nf, NULL, NULL, NULL) == nf, "%s: normal form not a fixpoint",
            name);
  int n = ein_eval_size(op);
  double *x = calloc((size_t)n, sizeof *x), *y = calloc((size_t)n, sizeof *y);
  Args *g = calloc(1, sizeof *g);
  for (int t = 0; t < trials; t++) {
    rand_args(op, g);
    double pos[3] = {rnd(), rnd(), rnd()};
    int r1 = ein_eval(op, g->a, pos, x, err, sizeof err);
    CHECK_MSG(r1 == 0, "%s: eval: %s", name, err);
    int r2 = ein_eval(nf, g->a, pos, y, err, sizeof err);
    CHECK_MSG(r2 == 0, "%s: eval normalized: %s", name, err);
    if (r1 || r2) break;
    for (int k = 0; k < n; k++)
      CHECK_MSG(close_to(x[k], y[k]), "%s[%d]: %.17g before, %.17g after normalization\n  %s\n  %s",
                name, k, x[k], y[k], ostr(op), ostr(nf));
  }
  free(x);
  free(y);
  free(g);
  return nf;
}

/* Generic operators, the way the translation from the typed AST builds them. */
static const EinOp *comp(const EinOp *outer, int param, const EinOp *inner) {
  const EinOp *r = outer && inner ? ein_op_subst(C, outer, param, inner) : NULL;
  CHECK_MSG(r != NULL, "fusion failed: %s / %s", outer ? ostr(outer) : "-",
            inner ? ostr(inner) : "-");
  return r;
}

static const EinOp *op_dot(int n) {
  EinParam ps[2] = {PT(1, n, 0), PT(1, n, 0)};
  return OP(2, ps, 0, 0, 0, S1(0, n - 1, mul(T1(0, V(0)), T1(1, V(0)))));
}
static const EinOp *op_matvec(int n) {
  EinParam ps[2] = {PT(2, n, n), PT(1, n, 0)};
  return OP(2, ps, 1, n, 0, S1(1, n - 1, mul(T2(0, V(0), V(1)), T1(1, V(1)))));
}
static const EinOp *op_matmat(int n) {
  EinParam ps[2] = {PT(2, n, n), PT(2, n, n)};
  return OP(2, ps, 2, n, n, S1(2, n - 1, mul(T2(0, V(0), V(2)), T2(1, V(2), V(1)))));
}
static const EinOp *op_outer(int n, int m) {
  EinParam ps[2] = {PT(1, n, 0), PT(1, m, 0)};
  return OP(2, ps, 2, n, m, mul(T1(0, V(0)), T1(1, V(1))));
}
static const EinOp *op_cross3(void) {
  EinParam ps[2] = {PT(1, 3, 0), PT(1, 3, 0)};
  return OP(2, ps, 1, 3, 0, S2(1, 2, 2, mul3(eps3(V(0), V(1), V(2)), T1(0, V(1)), T1(1, V(2)))));
}
static const EinOp *op_cross2(void) {
  EinParam ps[2] = {PT(1, 2, 0), PT(1, 2, 0)};
  return OP(2, ps, 0, 0, 0, S2(0, 1, 1, mul3(eps2(V(0), V(1)), T1(0, V(0)), T1(1, V(1)))));
}
static const EinOp *op_perp(void) {
  EinParam ps[1] = {PT(1, 2, 0)};
  return OP(1, ps, 1, 2, 0, S1(1, 1, mul(eps2(V(0), V(1)), T1(0, V(1)))));
}
static const EinOp *op_trace(int n) {
  EinParam ps[1] = {PT(2, n, n)};
  return OP(1, ps, 0, 0, 0, S1(0, n - 1, T2(0, V(0), V(0))));
}
/* trace written with δ, as a generic contraction would build it */
static const EinOp *op_trace_delta(int n) {
  EinParam ps[1] = {PT(2, n, n)};
  return OP(1, ps, 0, 0, 0, S2(0, 1, n - 1, mul(delta(V(0), V(1)), T2(0, V(0), V(1)))));
}
static const EinOp *op_transpose(int n, int m) {
  EinParam ps[1] = {PT(2, n, m)};
  return OP(1, ps, 2, m, n, T2(0, V(1), V(0)));
}
static const EinOp *op_colon(int n) {
  EinParam ps[2] = {PT(2, n, n), PT(2, n, n)};
  return OP(2, ps, 0, 0, 0, S2(0, 1, n - 1, mul(T2(0, V(0), V(1)), T2(1, V(0), V(1)))));
}
static const EinOp *op_det3(void) {
  EinParam ps[1] = {PT(2, 3, 3)};
  return OP(1, ps, 0, 0, 0,
            S3(0, 1, 2, 2,
               mul4(eps3(V(0), V(1), V(2)), T2(0, K(0), V(0)), T2(0, K(1), V(1)),
                    T2(0, K(2), V(2)))));
}
static const EinOp *op_det2(void) {
  EinParam ps[1] = {PT(2, 2, 2)};
  return OP(1, ps, 0, 0, 0,
            S2(0, 1, 1, mul3(eps2(V(0), V(1)), T2(0, K(0), V(0)), T2(0, K(1), V(1)))));
}
static const EinOp *op_sub_t(int n) {
  EinParam ps[2] = {PT(1, n, 0), PT(1, n, 0)};
  return OP(2, ps, 1, n, 0, sub(T1(0, V(0)), T1(1, V(0))));
}
static const EinOp *op_scale_t(int n) {
  EinParam ps[2] = {PT(0, 0, 0), PT(1, n, 0)};
  return OP(2, ps, 1, n, 0, mul(T0(0), T1(1, V(0))));
}
static const EinOp *op_norm_t(int n) {
  EinParam ps[1] = {PT(1, n, 0)};
  return OP(1, ps, 0, 0, 0, fn(EIN_FUN_SQRT, S1(0, n - 1, mul(T1(0, V(0)), T1(0, V(0))))));
}

/* fields (dimension d) */
static const EinOp *op_conv(int d, int rank, int n) {
  EinParam ps[2] = {PV(d, rank, n, n), ein_param_kernel(2)};
  EinIdx al[2] = {V(0), V(1)};
  return OP(2, ps, rank, n, n, CV(0, 1, rank, al, 0, NULL));
}
static const EinOp *op_grad(int d) {
  EinParam ps[1] = {PF(d, 0, 0, 0)};
  return OP(1, ps, 1, d, 0, D(V(0), F0(0)));
}
/* ∇⊗ of a field of shape [n]: the derivative index goes last */
static const EinOp *op_jac(int d, int n) {
  EinParam ps[1] = {PF(d, 1, n, 0)};
  return OP(1, ps, 2, n, d, D(V(1), F1(0, V(0))));
}
static const EinOp *op_divg(int d) {
  EinParam ps[1] = {PF(d, 1, d, 0)};
  return OP(1, ps, 0, 0, 0, S1(0, d - 1, D(V(0), F1(0, V(0)))));
}
static const EinOp *op_curl3(void) {
  EinParam ps[1] = {PF(3, 1, 3, 0)};
  return OP(1, ps, 1, 3, 0, S2(1, 2, 2, mul(eps3(V(0), V(1), V(2)), D(V(1), F1(0, V(2))))));
}
static const EinOp *op_curl2(void) {
  EinParam ps[1] = {PF(2, 1, 2, 0)};
  return OP(1, ps, 0, 0, 0, S2(0, 1, 1, mul(eps2(V(0), V(1)), D(V(0), F1(0, V(1))))));
}
static const EinOp *op_fnorm(int d, int n) {
  EinParam ps[1] = {PF(d, 1, n, 0)};
  return OP(1, ps, 0, 0, 0, fn(EIN_FUN_SQRT, S1(0, n - 1, mul(F1(0, V(0)), F1(0, V(0))))));
}
static const EinOp *op_fnormalize(int d, int n) {
  EinParam ps[1] = {PF(d, 1, n, 0)};
  return OP(1, ps, 1, n, 0,
            dv(F1(0, V(0)), fn(EIN_FUN_SQRT, S1(1, n - 1, mul(F1(0, V(1)), F1(0, V(1)))))));
}
static const EinOp *op_ffun(int d, EinFun f) {
  EinParam ps[1] = {PF(d, 0, 0, 0)};
  return OP(1, ps, 0, 0, 0, fn(f, F0(0)));
}
static const EinOp *op_fpow(int d, int k) {
  EinParam ps[1] = {PF(d, 0, 0, 0)};
  return OP(1, ps, 0, 0, 0, pw(F0(0), k));
}
static const EinOp *op_fbin(int d, EinTag tag) {
  EinParam ps[2] = {PF(d, 0, 0, 0), PF(d, 0, 0, 0)};
  const EinExpr *b = tag == EIN_MUL   ? mul(F0(0), F0(1))
                     : tag == EIN_DIV ? dv(F0(0), F0(1))
                     : tag == EIN_SUB ? sub(F0(0), F0(1))
                                      : add(F0(0), F0(1));
  return OP(2, ps, 0, 0, 0, b);
}
/* F + t, F * s (a tensor lifted to a constant field) */
static const EinOp *op_fadd_t(int d, int n) {
  EinParam ps[2] = {PF(d, 1, n, 0), PT(1, n, 0)};
  return OP(2, ps, 1, n, 0, add(F1(0, V(0)), lift(T1(1, V(0)))));
}
static const EinOp *op_fscale(int d) {
  EinParam ps[2] = {PT(0, 0, 0), PF(d, 0, 0, 0)};
  return OP(2, ps, 0, 0, 0, mul(lift(T0(0)), F0(1)));
}
static const EinOp *op_fneg(int d) {
  EinParam ps[1] = {PF(d, 0, 0, 0)};
  return OP(1, ps, 0, 0, 0, neg(F0(0)));
}
static const EinOp *op_fdot(int d, int n) {
  EinParam ps[2] = {PF(d, 1, n, 0), PF(d, 1, n, 0)};
  return OP(2, ps, 0, 0, 0, S1(0, n - 1, mul(F1(0, V(0)), F1(1, V(0)))));
}
static const EinOp *op_fsum_t(int d, int n) { /* F•t: contraction of a field with a tensor */
  EinParam ps[2] = {PF(d, 1, n, 0), PT(1, n, 0)};
  return OP(2, ps, 0, 0, 0, S1(0, n - 1, mul(F1(0, V(0)), lift(T1(1, V(0))))));
}

/* the field operator f (its parameter 0 a field) applied to an image */
static const EinOp *on_image(int d, const EinOp *f, int img_rank, int img_n) {
  return comp(f, 0, op_conv(d, img_rank, img_n));
}

/* λ..., x ⟨f(...)@x⟩: a field-valued operator probed at a new last parameter */
static const EinOp *probed(const EinOp *f) {
  if (!f) return NULL;
  int d = ein_op_field_dim(f);
  EinParam ps[2] = {ein_param_field(d, f->nsigma, f->sigma), PT(1, d, 0)};
  EinIdx al[EIN_MAX_RANK];
  for (int i = 0; i < f->nsigma; i++) al[i] = V(i);
  const EinOp *pr = ein_op_new(C, 2, ps, f->nsigma, f->sigma, P(ein_field(C, 0, f->nsigma, al), 1));
  return comp(pr, 0, f);
}

/* F(F...) for a scalar field: f(F^2 + 1) keeps sqrt and log defined */
static const EinOp *op_ffun_pos(int d, EinFun f) {
  EinParam ps[1] = {PF(d, 0, 0, 0)};
  return OP(1, ps, 0, 0, 0, fn(f, add(pw(F0(0), 2), lift(I(1)))));
}
static const EinOp *op_fpow_shift(int d, int k) { /* (F + 2)^k */
  EinParam ps[1] = {PF(d, 0, 0, 0)};
  return OP(1, ps, 0, 0, 0, pw(add(F0(0), lift(I(2))), k));
}
static const EinOp *op_normalize_t(int n) {
  EinParam ps[1] = {PT(1, n, 0)};
  return OP(1, ps, 1, n, 0,
            dv(T1(0, V(0)), fn(EIN_FUN_SQRT, S1(1, n - 1, mul(T1(0, V(1)), T1(0, V(1)))))));
}

static const EinOp *grad3(void) { return op_grad(3); }
static const EinOp *hess3(void) { return comp(op_jac(3, 3), 0, grad3()); }
static const EinOp *gradmag3(void) { return comp(op_fnorm(3, 3), 0, grad3()); }

static void test_differential(void) {
  /* tensor operators and compositions of them */
  diff_test("u•v", op_dot(3), 3);
  diff_test("M•v", op_matvec(3), 3);
  diff_test("A•B", op_matmat(3), 3);
  diff_test("u⊗v", op_outer(3, 2), 3);
  diff_test("u×v", op_cross3(), 3);
  diff_test("u×v 2-D", op_cross2(), 3);
  diff_test("perp(perp(v))", comp(op_perp(), 0, op_perp()), 3);
  diff_test("trace", op_trace(3), 3);
  diff_test("trace δ", op_trace_delta(3), 3);
  diff_test("transpose", op_transpose(2, 3), 3);
  diff_test("A:B", op_colon(3), 3);
  diff_test("det2", op_det2(), 3);
  diff_test("det3", op_det3(), 3);
  diff_test("|v|", op_norm_t(3), 3);
  diff_test("normalize(v)", op_normalize_t(3), 3);
  diff_test("trace(u⊗v)", comp(op_trace(3), 0, op_outer(3, 3)), 3);
  diff_test("trace δ(u⊗v)", comp(op_trace_delta(3), 0, op_outer(3, 3)), 3);
  diff_test("(a×b)•(c×d)", comp(comp(op_dot(3), 0, op_cross3()), 2, op_cross3()), 3);
  diff_test("a×(b×c)", comp(op_cross3(), 1, op_cross3()), 3);
  diff_test("(a×b)×c", comp(op_cross3(), 0, op_cross3()), 3);
  diff_test("(A•B)ᵀ", comp(op_transpose(3, 3), 0, op_matmat(3)), 3);
  diff_test("A•(B•v)", comp(op_matvec(3), 1, op_matvec(3)), 3);
  diff_test("det(A•B)", comp(op_det3(), 0, op_matmat(3)), 2);
  diff_test("normalize(u - v)", comp(op_normalize_t(3), 0, op_sub_t(3)), 3);
  /* examples/mip: camU = normalize(n × up), camV = camU × n */
  diff_test("normalize(a×b)", comp(op_normalize_t(3), 0, op_cross3()), 3);
  diff_test("normalize(a×b)×c", comp(op_cross3(), 0, comp(op_normalize_t(3), 0, op_cross3())), 3);
  diff_test("normalize(normalize(a)×b)×normalize(a)",
            comp(comp(op_cross3(), 0, comp(comp(op_normalize_t(3), 0, op_cross3()), 0,
                                           op_normalize_t(3))),
                 2, op_normalize_t(3)),
            3);
  diff_test("s(u×v)", comp(op_scale_t(3), 1, op_cross3()), 3);
  diff_test("(u⊗v)•w", comp(op_matvec(3), 0, op_outer(3, 3)), 3);

  /* fields from images, probed; and field parameters probed */
  diff_test("∇F", probed(on_image(3, grad3(), 0, 0)), 3);
  diff_test("∇F param", probed(grad3()), 3);
  diff_test("∇F 2-D", probed(on_image(2, op_grad(2), 0, 0)), 3);
  diff_test("∇⊗∇F", probed(on_image(3, hess3(), 0, 0)), 3);
  diff_test("∇⊗∇F param", probed(hess3()), 3);
  diff_test("∇⊗G", probed(on_image(3, op_jac(3, 3), 1, 3)), 3);
  diff_test("∇•G", probed(on_image(3, op_divg(3), 1, 3)), 3);
  diff_test("∇×G", probed(on_image(3, op_curl3(), 1, 3)), 3);
  diff_test("∇×G 2-D", probed(on_image(2, op_curl2(), 1, 2)), 3);
  diff_test("|∇F|", probed(on_image(3, gradmag3(), 0, 0)), 3);
  diff_test("∇|∇F|", probed(on_image(3, comp(grad3(), 0, gradmag3()), 0, 0)), 3);
  diff_test("∇⊗∇|∇F|", probed(on_image(3, comp(hess3(), 0, gradmag3()), 0, 0)), 2);
  diff_test("normalize(∇F)", probed(on_image(3, comp(op_fnormalize(3, 3), 0, grad3()), 0, 0)), 3);
  diff_test("∇⊗normalize(∇F)",
            probed(on_image(3, comp(op_jac(3, 3), 0, comp(op_fnormalize(3, 3), 0, grad3())), 0, 0)),
            3);
  diff_test("∇•(∇×G)", probed(on_image(3, comp(op_divg(3), 0, op_curl3()), 1, 3)), 3);
  diff_test("∇×∇F", probed(on_image(3, comp(op_curl3(), 0, grad3()), 0, 0)), 3);
  diff_test("∇×∇F 2-D", probed(on_image(2, comp(op_curl2(), 0, op_grad(2)), 0, 0)), 3);
  diff_test("∇(∇•G)", probed(on_image(3, comp(grad3(), 0, op_divg(3)), 1, 3)), 3);
  diff_test("∇×(∇×G)", probed(on_image(3, comp(op_curl3(), 0, op_curl3()), 1, 3)), 3);
  diff_test("∇(F+t)", probed(on_image(3, comp(op_jac(3, 3), 0, op_fadd_t(3, 3)), 1, 3)), 3);
  {
    /* s is parameter 0 of op_fscale: the field is parameter 1 */
    const EinOp *g = comp(comp(grad3(), 0, op_fscale(3)), 1, op_conv(3, 0, 0));
    diff_test("∇(sF) image", probed(g), 3);
  }
  diff_test("∇(-F)", probed(on_image(3, comp(grad3(), 0, op_fneg(3)), 0, 0)), 3);
  diff_test("∇(G•t)", probed(on_image(3, comp(grad3(), 0, op_fsum_t(3, 3)), 1, 3)), 3);
  diff_test("∇(F•G)", probed(on_image(3, comp(comp(grad3(), 0, op_fdot(3, 3)), 1, op_conv(3, 1, 3)), 1, 3)), 3);
  static const EinTag bins[4] = {EIN_ADD, EIN_SUB, EIN_MUL, EIN_DIV};
  static const char *const binname[4] = {"∇⊗∇(F+G)", "∇⊗∇(F-G)", "∇⊗∇(F*G)", "∇⊗∇(F/(G+2))"};
  for (int b = 0; b < 4; b++) {
    const EinOp *f = op_fbin(3, bins[b]);
    if (bins[b] == EIN_DIV) f = comp(f, 1, op_fpow_shift(3, 1));
    const EinOp *h = comp(comp(hess3(), 0, f), 0, op_conv(3, 0, 0));
    h = comp(h, 2, op_conv(3, 0, 0));
    diff_test(binname[b], probed(h), 3);
  }
  for (int f = 0; f < EIN_FUN_COUNT; f++) {
    char name[64];
    bool pos = f == EIN_FUN_SQRT || f == EIN_FUN_LOG;
    const EinOp *g = pos ? op_ffun_pos(3, (EinFun)f) : op_ffun(3, (EinFun)f);
    snprintf(name, sizeof name, "∇%s(F)", ein_fun_name((EinFun)f));
    diff_test(name, probed(on_image(3, comp(grad3(), 0, g), 0, 0)), 3);
    snprintf(name, sizeof name, "∇⊗∇%s(F)", ein_fun_name((EinFun)f));
    diff_test(name, probed(on_image(3, comp(hess3(), 0, g), 0, 0)), 3);
    snprintf(name, sizeof name, "%s(F)", ein_fun_name((EinFun)f));
    diff_test(name, probed(on_image(3, g, 0, 0)), 3);
  }
  diff_test("∇⊗∇(F^3)", probed(on_image(3, comp(hess3(), 0, op_fpow(3, 3)), 0, 0)), 3);
  diff_test("∇⊗∇((F+2)^-2)", probed(on_image(3, comp(hess3(), 0, op_fpow_shift(3, -2)), 0, 0)), 3);
}

/* ---- closed-form derivatives of polynomials --------------------------------- */

/* P = x^2 y + 3 y z^2 - z + 2 */
static void poly_p(EinPoly *p) {
  static const EinPolyTerm t[4] = {{1, {2, 1, 0}}, {3, {0, 1, 2}}, {-1, {0, 0, 1}}, {2, {0, 0, 0}}};
  p->nterms = 4;
  memcpy(p->terms, t, sizeof t);
}
/* G = (x^2 y, y z^2, x z + z^3) */
static void poly_g(EinPoly g[3]) {
  g[0].nterms = 1;
  g[0].terms[0] = (EinPolyTerm){1, {2, 1, 0}};
  g[1].nterms = 1;
  g[1].terms[0] = (EinPolyTerm){1, {0, 1, 2}};
  g[2].nterms = 2;
  g[2].terms[0] = (EinPolyTerm){1, {1, 0, 1}};
  g[2].terms[1] = (EinPolyTerm){1, {0, 0, 3}};
}

/* Evaluate the normalized form of op with image polynomial(s) `img` as
 * parameter 0 and the position as the last parameter. */
static int eval_on(const EinOp *op, const EinPoly *img, const double *pos, double *out) {
  EinEvalArg a[4];
  memset(a, 0, sizeof a);
  a[0].field = img;
  a[op->nparams - 1].tensor = pos;
  char err[128];
  bool hit = true;
  const EinOp *nf = ein_normalize(C, op, NULL, &ALL, &hit);
  CHECK(!hit);
  int r = ein_eval(nf, a, NULL, out, err, sizeof err);
  CHECK_MSG(r == 0, "%s", err);
  /* the unnormalized operator agrees as well */
  double tmp[27];
  int r2 = ein_eval(op, a, NULL, tmp, err, sizeof err);
  CHECK_MSG(r2 == 0, "%s", err);
  for (int k = 0; k < ein_eval_size(op) && !r && !r2; k++) CHECK(close_to(tmp[k], out[k]));
  return r;
}

static void test_closed_form(void) {
  EinPoly p, g[3];
  poly_p(&p);
  poly_g(g);
  const double x = 0.3, y = -0.7, z = 0.5, pos[3] = {x, y, z};
  const double F = x * x * y + 3 * y * z * z - z + 2;
  const double gr[3] = {2 * x * y, x * x + 3 * z * z, 6 * y * z - 1};
  const double H[3][3] = {{2 * y, 2 * x, 0}, {2 * x, 0, 6 * z}, {0, 6 * z, 6 * y}};
  const double mag = sqrt(gr[0] * gr[0] + gr[1] * gr[1] + gr[2] * gr[2]);
  double out[27];

  if (!eval_on(probed(on_image(3, op_ffun(3, EIN_FUN_ABS), 0, 0)), &p, pos, out))
    CHECK_NEAR(out[0], fabs(F), 1e-12);
  if (!eval_on(probed(on_image(3, grad3(), 0, 0)), &p, pos, out))
    for (int i = 0; i < 3; i++) CHECK_NEAR(out[i], gr[i], 1e-12);
  if (!eval_on(probed(on_image(3, hess3(), 0, 0)), &p, pos, out))
    for (int i = 0; i < 9; i++) CHECK_NEAR(out[i], H[i / 3][i % 3], 1e-12);
  if (!eval_on(probed(on_image(3, gradmag3(), 0, 0)), &p, pos, out)) CHECK_NEAR(out[0], mag, 1e-12);
  /* ∇|∇F| = H ∇F / |∇F| */
  if (!eval_on(probed(on_image(3, comp(grad3(), 0, gradmag3()), 0, 0)), &p, pos, out))
    for (int i = 0; i < 3; i++)
      CHECK_NEAR(out[i], (H[i][0] * gr[0] + H[i][1] * gr[1] + H[i][2] * gr[2]) / mag, 1e-12);
  /* normalize(∇F) = ∇F / |∇F| */
  if (!eval_on(probed(on_image(3, comp(op_fnormalize(3, 3), 0, grad3()), 0, 0)), &p, pos, out))
    for (int i = 0; i < 3; i++) CHECK_NEAR(out[i], gr[i] / mag, 1e-12);
  /* ∇ exp(F) = exp(F) ∇F; ∇⊗∇ exp(F) = exp(F) (H + ∇F ∇Fᵀ) */
  if (!eval_on(probed(on_image(3, comp(grad3(), 0, op_ffun(3, EIN_FUN_EXP)), 0, 0)), &p, pos, out))
    for (int i = 0; i < 3; i++) CHECK_NEAR(out[i], exp(F) * gr[i], 1e-12);
  if (!eval_on(probed(on_image(3, comp(hess3(), 0, op_ffun(3, EIN_FUN_EXP)), 0, 0)), &p, pos, out))
    for (int i = 0; i < 9; i++)
      CHECK_NEAR(out[i], exp(F) * (H[i / 3][i % 3] + gr[i / 3] * gr[i % 3]), 1e-11);
  /* ∇ atan(F) = ∇F / (1 + F^2); ∇ F^3 = 3 F^2 ∇F */
  if (!eval_on(probed(on_image(3, comp(grad3(), 0, op_ffun(3, EIN_FUN_ATAN)), 0, 0)), &p, pos, out))
    for (int i = 0; i < 3; i++) CHECK_NEAR(out[i], gr[i] / (1 + F * F), 1e-12);
  if (!eval_on(probed(on_image(3, comp(grad3(), 0, op_fpow(3, 3)), 0, 0)), &p, pos, out))
    for (int i = 0; i < 3; i++) CHECK_NEAR(out[i], 3 * F * F * gr[i], 1e-12);
  /* G: Jacobian (∇⊗G)[i][j] = ∂G_i/∂x_j, divergence, curl */
  const double J[3][3] = {{2 * x * y, x * x, 0}, {0, z * z, 2 * y * z}, {z, 0, x + 3 * z * z}};
  if (!eval_on(probed(on_image(3, op_jac(3, 3), 1, 3)), g, pos, out))
    for (int i = 0; i < 9; i++) CHECK_NEAR(out[i], J[i / 3][i % 3], 1e-12);
  if (!eval_on(probed(on_image(3, op_divg(3), 1, 3)), g, pos, out))
    CHECK_NEAR(out[0], 2 * x * y + z * z + x + 3 * z * z, 1e-12);
  const double curl[3] = {-2 * y * z, -z, -x * x};
  if (!eval_on(probed(on_image(3, op_curl3(), 1, 3)), g, pos, out))
    for (int i = 0; i < 3; i++) CHECK_NEAR(out[i], curl[i], 1e-12);
  if (!eval_on(probed(on_image(3, comp(op_divg(3), 0, op_curl3()), 1, 3)), g, pos, out))
    CHECK_NEAR(out[0], 0, 1e-12);
  /* 2-D: F2 = x^3 - 2 x y^2 + y, ∇F2 = (3x^2 - 2y^2, -4xy + 1) */
  EinPoly p2 = {3, {{1, {3, 0, 0}}, {-2, {1, 2, 0}}, {1, {0, 1, 0}}}};
  if (!eval_on(probed(on_image(2, op_grad(2), 0, 0)), &p2, pos, out)) {
    CHECK_NEAR(out[0], 3 * x * x - 2 * y * y, 1e-12);
    CHECK_NEAR(out[1], -4 * x * y + 1, 1e-12);
  }
  /* the evaluator's closed-form polynomial derivatives themselves */
  int d_xy[3] = {1, 1, 0}, d_zz[3] = {0, 0, 2};
  CHECK_NEAR(ein_poly_eval(&p, pos, NULL), F, 1e-15);
  CHECK_NEAR(ein_poly_eval(&p, pos, d_xy), 2 * x, 1e-15);
  CHECK_NEAR(ein_poly_eval(&p, pos, d_zz), 6 * y, 1e-15);
}

/* ---- the paper's identities ------------------------------------------------ */

/* Arithmetic operations to evaluate every component of op, with summations
 * unrolled (δ and ε count as operands). */
static double cost(const EinExpr *e) {
  double c = 0;
  for (int i = 0; i < e->nkids; i++) c += cost(e->kids[i]);
  switch (e->tag) {
  case EIN_ADD:
  case EIN_MUL: return c + e->nkids - 1;
  case EIN_SUB:
  case EIN_DIV:
  case EIN_NEG:
  case EIN_FUN:
  case EIN_POW: return c + 1;
  case EIN_SUM: {
    double n = 1;
    for (int b = 0; b < e->nbind; b++) n *= e->bind[b].hi - e->bind[b].lo + 1;
    return n * c + (n - 1);
  }
  default: return c;
  }
}
static double op_cost(const EinOp *op) { return ein_eval_size(op) * cost(op->body); }

static void test_identities(void) {
  /* trace(u⊗v) and u•v normalize to the same operator */
  const EinOp *dot = ein_normalize(C, op_dot(3), NULL, &ALL, NULL);
  CHECK(ein_normalize(C, comp(op_trace(3), 0, op_outer(3, 3)), NULL, &ALL, NULL) == dot);
  CHECK(ein_normalize(C, comp(op_trace_delta(3), 0, op_outer(3, 3)), NULL, &ALL, NULL) == dot);

  /* ∇•(∇×F) and ∇×∇F normalize to 0, for images and for field parameters */
  const EinOp *dc = ein_normalize(C, probed(on_image(3, comp(op_divg(3), 0, op_curl3()), 1, 3)),
                                  NULL, &ALL, NULL);
  CHECK_MSG(dc && dc->body == I(0), "∇•(∇×F) -> %s", ostr(dc));
  const EinOp *dcf = ein_normalize(C, comp(op_divg(3), 0, op_curl3()), NULL, &ALL, NULL);
  CHECK_MSG(dcf->body == I(0), "∇•(∇×F) -> %s", ostr(dcf));
  const EinOp *cg = ein_normalize(C, probed(on_image(3, comp(op_curl3(), 0, grad3()), 0, 0)),
                                  NULL, &ALL, NULL);
  CHECK_MSG(cg->body == I(0), "∇×∇F -> %s", ostr(cg));
  const EinOp *cg2 = ein_normalize(C, comp(op_curl2(), 0, op_grad(2)), NULL, &ALL, NULL);
  CHECK_MSG(cg2->body == I(0), "∇×∇F 2-D -> %s", ostr(cg2));
  /* u×u = 0 */
  EinParam p1[1] = {PT(1, 3, 0)};
  const EinOp *dup = OP(1, p1, 1, 3, 0, S2(1, 2, 2, mul3(eps3(V(0), V(1), V(2)), T1(0, V(1)), T1(0, V(2)))));
  CHECK(ein_normalize(C, dup, NULL, &ALL, NULL)->body == I(0));

  /* 2-D: perp(perp(v)) = -v, with perp(v)_i = Σ_j ε_ij v_j */
  const EinOp *pp = ein_normalize(C, comp(op_perp(), 0, op_perp()), NULL, &ALL, NULL);
  CHECK_STR(ostr(pp), "λT0⟨-T0[i]⟩_{i:2}");

  /* (a×b)•(c×d) → (a•c)(b•d) - (a•d)(b•c), derived by hand from eps-eps and
   * two δ contractions per term */
  const EinOp *lhs = comp(comp(op_dot(3), 0, op_cross3()), 2, op_cross3());
  const EinOp *nf = ein_normalize(C, lhs, NULL, &ALL, NULL);
  CHECK_STR(ostr(nf), "λT0,T1,T2,T3⟨(Σ_{i=0..2,j=0..2} T0[i]*T1[j]*T2[i]*T3[j]) - "
                      "(Σ_{i=0..2,j=0..2} T0[j]*T1[i]*T2[i]*T3[j])⟩_{}");
  CHECK_MSG(op_cost(nf) < op_cost(lhs), "%g operations after, %g before", op_cost(nf),
            op_cost(lhs));
  CHECK(op_cost(lhs) == 161 && op_cost(nf) == 71);
  /* ... and it is (a•c)(b•d) - (a•d)(b•c) numerically */
  for (int t = 0; t < 5; t++) {
    double v[4][3], out;
    EinEvalArg a[4];
    for (int k = 0; k < 4; k++) {
      for (int i = 0; i < 3; i++) v[k][i] = rnd();
      a[k].tensor = v[k];
      a[k].field = NULL;
    }
#define DOT3(p, q) (v[p][0] * v[q][0] + v[p][1] * v[q][1] + v[p][2] * v[q][2])
    double want = DOT3(0, 2) * DOT3(1, 3) - DOT3(0, 3) * DOT3(1, 2);
#undef DOT3
    char err[100];
    CHECK(ein_eval(nf, a, NULL, &out, err, sizeof err) == 0);
    CHECK(close_to(out, want));
  }

  /* a×(b×c) = b(a•c) - c(a•b): the eps-eps rule and δ contractions */
  const EinOp *bac = ein_normalize(C, comp(op_cross3(), 1, op_cross3()), NULL, &ALL, NULL);
  CHECK_STR(ostr(bac),
            "λT0,T1,T2⟨(Σ_{j=0..2} T0[j]*T1[i]*T2[j]) - (Σ_{j=0..2} T0[j]*T1[j]*T2[i])⟩_{i:3}");
}

/* ---- termination ------------------------------------------------------------- */

static void test_step_bound(void) {
  const EinOp *big = probed(on_image(3, comp(hess3(), 0, gradmag3()), 0, 0));
  Source *src = source_from_memory(A, "t.diderot", "x", 1);
  DiagCtx *dg = diag_new(A, src);
  EinNormOpts o = {5, dg, {{1, 1}, {1, 2}}};
  bool hit = false;
  EinNormStats st;
  memset(&st, 0, sizeof st);
  const EinOp *part = ein_normalize(C, big, &o, &st, &hit);
  CHECK(hit && part != NULL);
  CHECK(st.limit_hits == 1 && st.steps == 5);
  CHECK(diag_error_count(dg) == 1);
  FILE *tmp = tmpfile();
  if (tmp) {
    char line[200] = "";
    diag_set_stream(dg, tmp);
    diag_flush(dg);
    rewind(tmp);
    CHECK(fgets(line, sizeof line, tmp) != NULL);
    CHECK_STR(line, "t.diderot:1:1: error: expression too complex: normalization stopped after 5 "
                    "rewrite steps\n");
    fclose(tmp);
  }
  char err[100];
  CHECK(ein_op_check(part, err, sizeof err)); /* partly normalized, still well formed */
  /* the default bound is far above what the tests needed (diff_test
   * checks each operator against a tenth of its bound) */
  CHECK(ALL.max_steps > 0 && ALL.max_steps * 10 < ein_norm_step_bound(1));
  /* a rewrite cycle cannot occur, but runaway growth would stop at the bound:
   * every operator of the differential tests stayed below it */
  CHECK_MSG(ALL.limit_hits == 0, "%lu operators hit the step bound", ALL.limit_hits);
  CHECK(ALL.ops > 50);
  if (getenv("EIN_STATS")) {
    ein_norm_stats_print(stdout, &ALL);
    const EinOp *show[3] = {comp(grad3(), 0, gradmag3()),
                            comp(op_jac(3, 3), 0, comp(op_fnormalize(3, 3), 0, grad3())),
                            probed(on_image(3, comp(grad3(), 0, gradmag3()), 0, 0))};
    for (int i = 0; i < 3; i++) {
      printf("%s\n  => ", ostr(show[i]));
      ein_op_fprint(stdout, ein_normalize(C, show[i], NULL, NULL, NULL), 0);
      printf("\n");
    }
  }
}

int main(void) {
  A = arena_new();
  C = ein_context_new(A);
  test_hash_consing();
  test_subst();
  test_print();
  test_check();
  test_fusion();
  test_rules_arith();
  test_rules_probe();
  test_rules_diff();
  test_rules_index();
  for (int r = 0; r < EIN_RULE_COUNT; r++)
    CHECK_MSG(covered[r], "no test case for rule %s", ein_rule_name((EinRuleId)r));
  test_differential();
  test_closed_form();
  test_identities();
  test_step_bound();
  arena_free(A);
  return unit_finish("ein");
}
