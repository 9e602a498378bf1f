/* test_mid.c -- HighIR → MidIR (probes, inside, border control) and the
 * MidIR optimisations split, slice and summation binding.
 *
 * Oracles (none of them is this code's own output):
 *  - polynomial images: samples of a known polynomial p at the world
 *    positions M·i + o of a grid with a non-trivial space-direction matrix
 *    M and origin o. A kernel that reproduces degree m per axis
 *    (test_kernel.c: tent 1, bspln3 1, ctmr 2, c4hexic 3) reconstructs p∘(M·+o)
 *    exactly when that composition has degree <= m in each index variable
 *    (true for total degree <= m), so F(x), ∇F(x) and the Hessian must equal
 *    p, ∇p and ∇∇p at x in WORLD coordinates, computed from the closed form
 *    of each monomial (ein_poly_eval) -- which tests the Wᵀ transform;
 *  - composite fields against the jet-based EIN evaluator (ein_eval.h),
 *    which differentiates by Taylor arithmetic, not by the normalizer's rules;
 *  - inside() against the §8.5 inequalities worked out by hand at positions
 *    on and next to the boundary (dyadic transforms, so every number is exact);
 *  - border control against the §4.7 index maps computed by hand;
 *  - the paper's §5.4 example (a×b)•(c×d) = (a•c)(b•d) − (a•d)(b•c) with
 *    the cross products written out.
 * The MidIR is run by the reference interpreter tests/oracle/mid_eval.c.
 */
#include <stdlib.h>
#include <string.h>

#include "../oracle/ein_eval.h"
#include "../oracle/mid_eval.h"
#include "opt/mid_opt.h"
#include "translate/high_to_mid.h"
#include "unit.h"

/* ---- images ---------------------------------------------------------------------- */

typedef struct TImage {
  MidImage img;
  double M[3][3], o[3];
  double data[4096];
} TImage;

/* W = M⁻¹ by the adjugate (d <= 3), t = −W·o. */
static void set_transform(TImage *ti, int d, const double *M, const double *o) {
  double (*W)[3] = ti->img.W;
  for (int r = 0; r < d; r++) {
    ti->o[r] = o[r];
    for (int c = 0; c < d; c++) ti->M[r][c] = M[r * d + c];
  }
  double (*m)[3] = ti->M;
  if (d == 1) {
    W[0][0] = 1 / m[0][0];
  } else if (d == 2) {
    double det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    W[0][0] = m[1][1] / det;
    W[0][1] = -m[0][1] / det;
    W[1][0] = -m[1][0] / det;
    W[1][1] = m[0][0] / det;
  } else {
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                 m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) {
        /* cofactor of m[c][r] */
        int r0 = (c + 1) % 3, r1 = (c + 2) % 3, c0 = (r + 1) % 3, c1 = (r + 2) % 3;
        W[r][c] = (m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]) / det;
      }
  }
  for (int r = 0; r < d; r++) {
    ti->img.t[r] = 0;
    for (int c = 0; c < d; c++) ti->img.t[r] -= W[r][c] * o[c];
  }
  /* sanity: M·W = I */
  for (int r = 0; r < d; r++)
    for (int c = 0; c < d; c++) {
      double s = 0;
      for (int k = 0; k < d; k++) s += m[r][k] * W[k][c];
      CHECK_NEAR(s, r == c ? 1.0 : 0.0, 1e-14);
    }
}

/* Index position → world position x = M·p + o. */
static void to_world(const TImage *ti, const double *p, double *x) {
  int d = ti->img.dim;
  for (int r = 0; r < d; r++) {
    x[r] = ti->o[r];
    for (int c = 0; c < d; c++) x[r] += ti->M[r][c] * p[c];
  }
}

/* Samples of polys[c] (one per component) at the world position of each
 * grid point. */
static void make_image(TImage *ti, int d, const int *size, int ncomp, const double *M,
                       const double *o, const EinPoly *polys) {
  memset(ti, 0, sizeof *ti);
  ti->img.dim = d;
  ti->img.ncomp = ncomp;
  int total = 1;
  for (int a = 0; a < 3; a++) ti->img.size[a] = a < d ? size[a] : 1;
  for (int a = 0; a < d; a++) total *= size[a];
  set_transform(ti, d, M, o);
  for (int off = 0; off < total; off++) {
    double p[3] = {0, 0, 0}, x[3] = {0, 0, 0};
    int rest = off;
    for (int a = 0; a < d; a++) {
      p[a] = rest % size[a];
      rest /= size[a];
    }
    to_world(ti, p, x);
    for (int c = 0; c < ncomp; c++)
      ti->data[c + ncomp * off] = polys ? ein_poly_eval(&polys[c], x, NULL) : 0;
  }
  ti->img.data = ti->data;
}

/* ---- HighIR by hand ----------------------------------------------------------------- */

typedef struct HB {
  Arena *a;
  EinContext *ec;
  IrModule *m;
  IrCFG *cfg;
  IrBlock *b;
  IrVar *img, *x;
  int d;
} HB;

static const IrType *pos_type(IrModule *m, int d) { return ir_type_tensor(m, d == 1 ? 0 : 1, &d); }

/* A HighIR function (img : image(d)[σ], x : tensor[d]) to be completed. */
static void hb_init(HB *h, int d, int order, const int *dims) {
  h->a = arena_new();
  h->ec = ein_context_new(h->a);
  h->m = ir_module_new(h->a, IR_HIGH);
  h->cfg = ir_cfg_new(h->m, IR_CFG_FUNC, "probe");
  h->b = h->cfg->entry;
  h->d = d;
  h->img = ir_cfg_add_param(h->cfg, "img", ir_type_image(h->m, d, order, dims));
  h->x = ir_cfg_add_param(h->cfg, "x", pos_type(h->m, d));
}

static void hb_free(HB *h) { arena_free(h->a); }

static IrVar *hb_kernel(HB *h, const char *name) {
  const Kernel *k = kernel_lookup(name);
  return ir_emit_kernel(h->b, k, k->continuity);
}

/* img (optionally wrapped in border control) ⊛ kernel */
static IrVar *hb_field(HB *h, IrVar *img, const char *kernel, int border_op) {
  if (border_op >= 0) img = ir_emit1(h->b, border_op, img);
  return ir_emit2(h->b, IR_HOP_CONVOLVE, img, hb_kernel(h, kernel));
}

static EinParam field_param(const IrType *ft) {
  return ein_param_field(ft->dim, ft->order, ft->dims);
}

static EinParam pos_param(int d) {
  return d == 1 ? ein_param_tensor(0, NULL) : ein_param_tensor(1, &d);
}

/* λF,x⟨∂_{i_k}…∂_{i_1} F_α @ x⟩_{α, i_1..i_k} */
static IrVar *hb_probe(HB *h, IrVar *F, int nderiv) {
  const IrType *ft = F->ty;
  int r = ft->order, sg[EIN_MAX_RANK];
  EinIdx al[EIN_MAX_RANK];
  for (int i = 0; i < r; i++) {
    al[i] = ein_ivar(i);
    sg[i] = ft->dims[i];
  }
  const EinExpr *e = ein_field(h->ec, 0, r, al);
  for (int k = 0; k < nderiv; k++) {
    e = ein_diff(h->ec, ein_ivar(r + k), e);
    sg[r + k] = h->d;
  }
  EinParam ps[2] = {field_param(ft), pos_param(h->d)};
  const EinOp *op = ein_op_new(h->ec, 2, ps, r + nderiv, sg, ein_probe(h->ec, e, 1));
  IrVar *args[2] = {F, h->x};
  return ir_emit_ein(h->b, "v", op, NULL, 2, args);
}

static void hb_return(HB *h, IrVar *v) {
  h->cfg->result = v->ty;
  ir_block_set_return(h->b, v);
}

static int check_module(IrModule *m) {
  IrCheck chk;
  memset(&chk, 0, sizeof chk);
  int n = ir_check_module(m, &chk);
  if (n) fprintf(stderr, "ir_check: %d errors, first: %s\n", n, chk.first);
  return n;
}

/* Translate h's module, optimise with `o` (NULL: not at all), check, and
 * run it on (img, x). Returns the number of components, -1 on failure. */
static int run_mid(HB *h, const MidOptOpts *o, const MidImage *img, const double *x, double *out,
                   MidOptStats *st) {
  CHECK(check_module(h->m) == 0);
  IrModule *mid = high_to_mid(h->m, h->ec, NULL, NULL);
  CHECK(mid != NULL);
  if (!mid) return -1;
  CHECK(check_module(mid) == 0);
  if (o) {
    mid_optimize(mid, h->ec, o, st);
    CHECK(check_module(mid) == 0);
  }
  if (getenv("MID_DUMP")) ir_print_module(stdout, mid, 0);
  MidValue args[2] = {mid_image_value(img), mid_tensor_value(h->d, x)};
  MidValue res;
  char err[200];
  int rc = mid_eval_cfg(mid->cfgs[0], args, &res, err, sizeof err);
  CHECK_MSG(rc == 0, "%s", err);
  mid_value_free(&args[1]);
  if (rc) return -1;
  int n = res.n;
  if (res.kind == MV_TENSOR) memcpy(out, res.t, sizeof(double) * (size_t)n);
  if (res.kind == MV_BOOL) {
    out[0] = res.b;
    n = 1;
  }
  mid_value_free(&res);
  return n;
}

/* The option sets every probe test runs under. */
static MidOptOpts opt_set(int k) {
  MidOptOpts o = {false, false, false, true, true};
  switch (k) {
  case 1: o.split = true; break;
  case 2: o.slice = true; break;
  case 3: o.sum_binding = true; break;
  case 4: o = mid_opt_defaults(); break;
  default: break;
  }
  return o;
}

/* ---- probes of polynomial fields ---------------------------------------------------- */

typedef struct ProbeCase {
  const char *label, *kernel;
  int d, ncomp, nderiv;
  const int *size;
  const double *M, *o;
  const EinPoly *polys;
  const double *p; /* index-space position */
} ProbeCase;

static void run_probe_case(const ProbeCase *pc) {
  TImage *ti = calloc(1, sizeof *ti);
  make_image(ti, pc->d, pc->size, pc->ncomp, pc->M, pc->o, pc->polys);
  double x[3] = {0, 0, 0};
  to_world(ti, pc->p, x);
  /* expected: component c, derivative indices (row-major after c) */
  int d = pc->d, nd = 1;
  for (int k = 0; k < pc->nderiv; k++) nd *= d;
  double want[64];
  for (int c = 0; c < pc->ncomp; c++)
    for (int j = 0; j < nd; j++) {
      int deriv[3] = {0, 0, 0}, rest = j;
      for (int k = pc->nderiv - 1; k >= 0; k--) {
        deriv[rest % d]++;
        rest /= d;
      }
      want[c * nd + j] = ein_poly_eval(&pc->polys[c], x, deriv);
    }
  int total = pc->ncomp * nd;
  for (int variant = -1; variant <= 4; variant++) {
    HB h;
    int dims[1] = {pc->ncomp};
    hb_init(&h, d, pc->ncomp > 1 ? 1 : 0, dims);
    IrVar *F = hb_field(&h, h.img, pc->kernel, -1);
    hb_return(&h, hb_probe(&h, F, pc->nderiv));
    MidOptOpts o = opt_set(variant);
    double got[64];
    int n = run_mid(&h, variant < 0 ? NULL : &o, &ti->img, x, got, NULL);
    CHECK_MSG(n == total, "%s: %d components, want %d", pc->label, n, total);
    for (int i = 0; i < total && n == total; i++) {
      double tol = 1e-10 * (fabs(want[i]) > 1 ? fabs(want[i]) : 1);
      CHECK_MSG(fabs(got[i] - want[i]) <= tol, "%s (variant %d) component %d: got %.17g want %.17g",
                pc->label, variant, i, got[i], want[i]);
    }
    hb_free(&h);
  }
  free(ti);
}

/* 1 + 2x − y (degree 1) */
static const EinPoly P1 = {3, {{1, {0, 0, 0}}, {2, {1, 0, 0}}, {-1, {0, 1, 0}}}};
/* 1 + 2x − y + 0.5xy (the brief's polynomial, degree 2) */
static const EinPoly P2 = {4, {{1, {0, 0, 0}}, {2, {1, 0, 0}}, {-1, {0, 1, 0}}, {0.5, {1, 1, 0}}}};
/* another quadratic: −0.5 + x² − 0.75y² + 0.3x */
static const EinPoly Q2 = {4, {{-0.5, {0, 0, 0}}, {1, {2, 0, 0}}, {-0.75, {0, 2, 0}}, {0.3, {1, 0, 0}}}};
/* a cubic in 2D */
static const EinPoly P3 = {6,
                           {{1, {0, 0, 0}},
                            {2, {1, 0, 0}},
                            {-1, {0, 1, 0}},
                            {0.5, {1, 1, 0}},
                            {0.25, {3, 0, 0}},
                            {-0.4, {1, 2, 0}}}};
/* a cubic in 3D */
static const EinPoly P3D = {7,
                            {{1, {0, 0, 0}},
                             {2, {1, 0, 0}},
                             {-1, {0, 1, 0}},
                             {0.5, {0, 0, 1}},
                             {0.5, {1, 1, 0}},
                             {-0.25, {0, 1, 1}},
                             {0.3, {2, 0, 1}}}};
/* 1D: 1 + 2x + 0.5x² */
static const EinPoly P1D = {3, {{1, {0, 0, 0}}, {2, {1, 0, 0}}, {0.5, {2, 0, 0}}}};

static const double M2[4] = {0.8, -0.3, 0.4, 1.1}, O2[2] = {0.5, -1.25};
static const double M3[9] = {0.9, 0.2, -0.1, -0.3, 1.1, 0.25, 0.15, -0.2, 0.8};
static const double O3[3] = {1, -0.5, 0.25};
static const double M1[1] = {0.7}, O1[1] = {-0.4};
static const int S2[2] = {8, 7}, S3[3] = {7, 7, 7}, S1[1] = {9};
static const double PI2[2] = {3.3, 2.7}, PI3[3] = {3.2, 2.6, 3.7}, PI1[1] = {4.35};

static void test_probes(void) {
  const EinPoly vec2[2] = {P2, Q2};
  const ProbeCase cases[] = {
      {"tent value", "tent", 2, 1, 0, S2, M2, O2, &P1, PI2},
      {"bspln3 value", "bspln3", 2, 1, 0, S2, M2, O2, &P1, PI2},
      {"bspln3 gradient", "bspln3", 2, 1, 1, S2, M2, O2, &P1, PI2},
      {"ctmr value", "ctmr", 2, 1, 0, S2, M2, O2, &P2, PI2},
      {"ctmr gradient", "ctmr", 2, 1, 1, S2, M2, O2, &P2, PI2},
      {"ctmr hessian", "ctmr", 2, 1, 2, S2, M2, O2, &P2, PI2},
      {"c4hexic value", "c4hexic", 2, 1, 0, S2, M2, O2, &P3, PI2},
      {"c4hexic gradient", "c4hexic", 2, 1, 1, S2, M2, O2, &P3, PI2},
      {"c4hexic hessian", "c4hexic", 2, 1, 2, S2, M2, O2, &P3, PI2},
      {"c4hexic 3rd derivatives", "c4hexic", 2, 1, 3, S2, M2, O2, &P3, PI2},
      {"3D c4hexic value", "c4hexic", 3, 1, 0, S3, M3, O3, &P3D, PI3},
      {"3D c4hexic gradient", "c4hexic", 3, 1, 1, S3, M3, O3, &P3D, PI3},
      {"3D c4hexic hessian", "c4hexic", 3, 1, 2, S3, M3, O3, &P3D, PI3},
      {"1D ctmr value", "ctmr", 1, 1, 0, S1, M1, O1, &P1D, PI1},
      {"1D ctmr derivative", "ctmr", 1, 1, 1, S1, M1, O1, &P1D, PI1},
      {"1D ctmr 2nd derivative", "ctmr", 1, 1, 2, S1, M1, O1, &P1D, PI1},
      {"vector ctmr value", "ctmr", 2, 2, 0, S2, M2, O2, vec2, PI2},
      {"vector ctmr jacobian", "ctmr", 2, 2, 1, S2, M2, O2, vec2, PI2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_probe_case(&cases[i]);
}

/* A negative control: tent cannot reproduce the quadratic P2 under this M,
 * so the same comparison must fail (the oracle can tell). */
static void test_probe_control(void) {
  TImage *ti = calloc(1, sizeof *ti);
  make_image(ti, 2, S2, 1, M2, O2, &P2);
  double x[3] = {0, 0, 0}, got[4];
  to_world(ti, PI2, x);
  HB h;
  hb_init(&h, 2, 0, NULL);
  hb_return(&h, hb_probe(&h, hb_field(&h, h.img, "tent", -1), 0));
  CHECK(run_mid(&h, NULL, &ti->img, x, got, NULL) == 1);
  CHECK(fabs(got[0] - ein_poly_eval(&P2, x, NULL)) > 1e-6);
  hb_free(&h);
  free(ti);
}

/* ---- composite fields against the EIN evaluator --------------------------------------- */

/* λF,x⟨(Σ_i ∂_i F ∂_i F) @ x⟩ (|∇F|², not normalized) and, through a separate
 * field operator G = λF⟨F*F⟩, λG,x⟨(∂_i G) @ x⟩_i (∇(F²)). */
static void test_composite(void) {
  TImage *ti = calloc(1, sizeof *ti);
  make_image(ti, 2, S2, 1, M2, O2, &P2);
  double x[3] = {0, 0, 0};
  to_world(ti, PI2, x);
  for (int which = 0; which < 2; which++) {
    HB h;
    hb_init(&h, 2, 0, NULL);
    IrVar *F = hb_field(&h, h.img, "ctmr", -1);
    EinContext *ec = h.ec;
    const EinOp *op;
    IrVar *v;
    EinParam ps[2] = {field_param(F->ty), pos_param(2)};
    if (which == 0) {
      const EinExpr *di = ein_diff(ec, ein_ivar(0), ein_field(ec, 0, 0, NULL));
      const EinExpr *body = ein_probe(ec, ein_sum1(ec, 0, 0, 1, ein_mul2(ec, di, di)), 1);
      op = ein_op_new(ec, 2, ps, 0, NULL, body);
      IrVar *args[2] = {F, h.x};
      v = ir_emit_ein(h.b, "v", op, NULL, 2, args);
    } else {
      const EinExpr *f = ein_field(ec, 0, 0, NULL);
      const EinOp *sq = ein_op_new(ec, 1, ps, 0, NULL, ein_mul2(ec, f, f));
      IrVar *G = ir_emit_ein(h.b, "G", sq, F->ty, 1, &F);
      int two = 2;
      op = ein_op_new(ec, 2, ps, 1, &two, ein_probe(ec, ein_diff(ec, ein_ivar(0), f), 1));
      IrVar *args[2] = {G, h.x};
      v = ir_emit_ein(h.b, "v", op, NULL, 2, args);
      /* the oracle sees the fused operator λF,x⟨∂_i (F*F) @ x⟩ */
      op = ein_op_subst(ec, op, 0, sq);
    }
    CHECK(v != NULL);
    hb_return(&h, v);
    double want[2], got[2];
    EinEvalArg ea[2] = {{NULL, &P2}, {x, NULL}};
    char err[160];
    CHECK(ein_eval(op, ea, NULL, want, err, sizeof err) == 0);
    /* and by hand: ∇p = (2 + 0.5y, −1 + 0.5x) */
    double gx = 2 + 0.5 * x[1], gy = -1 + 0.5 * x[0], p = ein_poly_eval(&P2, x, NULL);
    if (which == 0) {
      CHECK_NEAR(want[0], gx * gx + gy * gy, 1e-12);
    } else {
      CHECK_NEAR(want[0], 2 * p * gx, 1e-12);
      CHECK_NEAR(want[1], 2 * p * gy, 1e-12);
    }
    MidOptOpts all = mid_opt_defaults();
    int n = run_mid(&h, &all, &ti->img, x, got, NULL);
    CHECK(n == (which == 0 ? 1 : 2));
    for (int i = 0; i < n; i++) CHECK_NEAR(got[i], want[i], 1e-10 * fabs(want[i]));
    hb_free(&h);
  }
  free(ti);
}

/* ---- inside --------------------------------------------------------------------------- */

/* M = [[2,1],[0,0.5]] (columns: axis directions), o = (1,−2): W = [[0.5,−1],[0,2]]
 * exactly, so index positions map to world and back without rounding. */
static const double MD[4] = {2, 1, 0, 0.5}, OD[2] = {1, -2};

typedef struct InsideCase {
  double p[2];
  bool want;
} InsideCase;

/* inside(x, F) for the field built by `build` at each index position. */
static void run_inside(const char *label, int mode, const InsideCase *cs, int n) {
  TImage *A = calloc(1, sizeof *A), *B = calloc(1, sizeof *B);
  const int sa[2] = {6, 5}, sb[2] = {4, 4};
  make_image(A, 2, sa, 1, MD, OD, &P1);
  make_image(B, 2, sb, 1, MD, OD, &P1);
  CHECK(A->img.W[0][0] == 0.5 && A->img.W[0][1] == -1 && A->img.W[1][1] == 2);
  for (int i = 0; i < n; i++) {
    HB h;
    hb_init(&h, 2, 0, NULL);
    IrVar *img2 = ir_cfg_add_param(h.cfg, "img2", h.img->ty);
    IrVar *F = NULL;
    EinParam ps[2] = {ein_param_field(2, 0, NULL), ein_param_field(2, 0, NULL)};
    const EinExpr *sum =
        ein_add2(h.ec, ein_field(h.ec, 0, 0, NULL), ein_field(h.ec, 1, 0, NULL));
    const EinOp *add = ein_op_new(h.ec, 2, ps, 0, NULL, sum);
    switch (mode) {
    case 0: F = hb_field(&h, h.img, "ctmr", -1); break;
    case 1: F = hb_field(&h, h.img, "tent", -1); break;
    case 2: { /* tent and ctmr on the same image: the larger support counts */
      IrVar *a2[2] = {hb_field(&h, h.img, "tent", -1), hb_field(&h, h.img, "ctmr", -1)};
      F = ir_emit_ein(h.b, "F", add, a2[0]->ty, 2, a2);
      break;
    }
    case 3: { /* two images: both tests */
      IrVar *a2[2] = {hb_field(&h, h.img, "tent", -1), hb_field(&h, img2, "tent", -1)};
      F = ir_emit_ein(h.b, "F", add, a2[0]->ty, 2, a2);
      break;
    }
    case 4: F = hb_field(&h, h.img, "ctmr", IR_HOP_BORDER_CLAMP); break;
    }
    IrVar *a2[2] = {h.x, F};
    hb_return(&h, ir_emit(h.b, IR_HOP_INSIDE, 2, a2));
    CHECK(check_module(h.m) == 0);
    IrModule *mid = high_to_mid(h.m, h.ec, NULL, NULL);
    CHECK(mid && check_module(mid) == 0);
    if (mid) {
      double x[3] = {0, 0, 0};
      to_world(A, cs[i].p, x);
      MidValue args[3] = {mid_image_value(&A->img), mid_tensor_value(2, x),
                          mid_image_value(&B->img)};
      MidValue res;
      char err[200];
      int rc = mid_eval_cfg(mid->cfgs[0], args, &res, err, sizeof err);
      CHECK_MSG(rc == 0, "%s", err);
      CHECK_MSG(rc == 0 && res.kind == MV_BOOL && res.b == cs[i].want,
                "%s at index (%g, %g): want %d", label, cs[i].p[0], cs[i].p[1], cs[i].want);
      mid_value_free(&args[1]);
      mid_value_free(&res);
    }
    hb_free(&h);
  }
  free(A);
  free(B);
}

static void test_inside(void) {
  /* A is 6×5. ctmr (s = 2): 1 < p0 < 4 and 1 < p1 < 3 (§8.5). */
  const InsideCase ctmr[] = {{{1, 2}, false},     {{1.25, 2}, true}, {{3.75, 2}, true},
                             {{4, 2}, false},     {{2, 1}, false},   {{2, 2.5}, true},
                             {{2, 3}, false},     {{0.5, 0.5}, false}, {{-3, 2}, false},
                             {{2.5, 1.0625}, true}};
  run_inside("ctmr", 0, ctmr, (int)(sizeof ctmr / sizeof ctmr[0]));
  /* tent (s = 1): 0 < p0 < 5, 0 < p1 < 4 */
  const InsideCase tent[] = {{{0, 2}, false},      {{0.25, 2}, true}, {{4.75, 3.75}, true},
                             {{5, 2}, false},      {{2, 4}, false},   {{2, 0}, false},
                             {{0.5, 0.5}, true}};
  run_inside("tent", 1, tent, (int)(sizeof tent / sizeof tent[0]));
  /* tent + ctmr on one image: ctmr's test only */
  const InsideCase mixed[] = {{{0.5, 2}, false}, {{1.5, 2}, true}, {{3.5, 2.5}, true}};
  run_inside("tent+ctmr", 2, mixed, 3);
  /* A (6×5) and B (4×4) with tent: also 0 < p < 3 for B */
  const InsideCase two[] = {{{2.5, 2.5}, true}, {{3.5, 2}, false}, {{2, 3.25}, false}};
  run_inside("two images", 3, two, 3);
  /* clamp(img) ⊛ ctmr: border control does not change the test */
  run_inside("clamp ctmr", 4, ctmr, (int)(sizeof ctmr / sizeof ctmr[0]));
}

/* ---- border control ----------------------------------------------------------------- */

static void test_border_maps(void) {
  /* §4.7 with N = 5, worked out by hand */
  const int clamp_in[] = {-3, -1, 0, 4, 5, 9}, clamp_out[] = {0, 0, 0, 4, 4, 4};
  for (int i = 0; i < 6; i++) CHECK(mid_border_index(IR_BORDER_CLAMP, clamp_in[i], 5) == clamp_out[i]);
  /* mirror repeats the edge sample: ... 1 0 | 0 1 2 3 4 | 4 3 2 1 0 | 0 1 ... */
  const int mir_in[] = {-1, -2, -5, -6, 5, 6, 9, 10, 11, 14, 15};
  const int mir_out[] = {0, 1, 4, 4, 4, 3, 0, 0, 1, 4, 4};
  for (int i = 0; i < 11; i++) CHECK(mid_border_index(IR_BORDER_MIRROR, mir_in[i], 5) == mir_out[i]);
  const int wrap_in[] = {-1, -5, -6, 5, 7, 12, 3}, wrap_out[] = {4, 0, 4, 0, 2, 2, 3};
  for (int i = 0; i < 7; i++) CHECK(mid_border_index(IR_BORDER_WRAP, wrap_in[i], 5) == wrap_out[i]);
}

/* 1-D image s[i] = 10 + i², tent, M = 1, o = 0 (p = x), probed outside. */
static void test_border_probes(void) {
  TImage *ti = calloc(1, sizeof *ti);
  const int n5[1] = {5};
  const double one[1] = {1}, zero[1] = {0};
  make_image(ti, 1, n5, 1, one, zero, NULL);
  for (int i = 0; i < 5; i++) ti->data[i] = 10 + i * i;
  struct {
    int op;
    IrBorder mode;
    double x, want;
  } cs[] = {
      {IR_HOP_BORDER_CLAMP, IR_BORDER_CLAMP, -0.5, 10},   /* taps −1, 0 → 0, 0 */
      {IR_HOP_BORDER_CLAMP, IR_BORDER_CLAMP, 4.5, 26},    /* taps 4, 5 → 4, 4 */
      {IR_HOP_BORDER_MIRROR, IR_BORDER_MIRROR, -1.5, 10.5}, /* −2, −1 → 1, 0 */
      {IR_HOP_BORDER_MIRROR, IR_BORDER_MIRROR, 5.25, 24.25}, /* 5, 6 → 4, 3: .75·26 + .25·19 */
      {IR_HOP_BORDER_WRAP, IR_BORDER_WRAP, -0.5, 18},     /* −1, 0 → 4, 0 */
      {IR_HOP_BORDER_WRAP, IR_BORDER_WRAP, 4.5, 18},      /* 4, 5 → 4, 0 */
      {IR_HOP_BORDER_WRAP, IR_BORDER_WRAP, 2.25, 15.25},  /* inside: .75·14 + .25·19 */
  };
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    HB h;
    hb_init(&h, 1, 0, NULL);
    hb_return(&h, hb_probe(&h, hb_field(&h, h.img, "tent", cs[i].op), 0));
    IrModule *mid = high_to_mid(h.m, h.ec, NULL, NULL);
    CHECK(mid && check_module(mid) == 0);
    if (!mid) continue;
    int found = 0;
    IrBlock *b = mid->cfgs[0]->entry;
    for (int k = 0; k < b->ninstrs; k++)
      if (b->instrs[k]->kind == IR_I_OP && b->instrs[k]->op == IR_MOP_LOAD_VOXELS) {
        found++;
        CHECK(b->instrs[k]->imm[0] == 1 && b->instrs[k]->imm[1] == (int)cs[i].mode);
      }
    CHECK(found == 1);
    MidValue args[2] = {mid_image_value(&ti->img), mid_tensor_value(1, &cs[i].x)};
    MidValue res;
    char err[200];
    int rc = mid_eval_cfg(mid->cfgs[0], args, &res, err, sizeof err);
    CHECK_MSG(rc == 0, "%s", err);
    if (rc == 0) CHECK_NEAR(res.t[0], cs[i].want, 1e-12);
    mid_value_free(&args[1]);
    mid_value_free(&res);
    hb_free(&h);
  }
  /* without border control the same outside probe reads outside the image */
  HB h;
  hb_init(&h, 1, 0, NULL);
  hb_return(&h, hb_probe(&h, hb_field(&h, h.img, "tent", -1), 0));
  IrModule *mid = high_to_mid(h.m, h.ec, NULL, NULL);
  CHECK(mid != NULL);
  if (mid) {
    double x = -0.5;
    MidValue args[2] = {mid_image_value(&ti->img), mid_tensor_value(1, &x)};
    MidValue res;
    char err[200];
    CHECK(mid_eval_cfg(mid->cfgs[0], args, &res, err, sizeof err) != 0);
    mid_value_free(&args[1]);
  }
  hb_free(&h);
  free(ti);
}

/* ---- unsupported input is reported, not crashed on --------------------------------------- */

static void test_unsupported(void) {
  HB h;
  hb_init(&h, 2, 0, NULL);
  IrVar *v0 = ir_emit_real(h.b, 0);
  IrVar *a2[2] = {h.img, v0};
  IrVar *bi = ir_emit(h.b, IR_HOP_BORDER_CONST, 2, a2);
  CHECK(bi != NULL);
  IrVar *F = ir_emit2(h.b, IR_HOP_CONVOLVE, bi, hb_kernel(&h, "tent"));
  hb_return(&h, hb_probe(&h, F, 0));
  CHECK(check_module(h.m) == 0);
  CHECK(high_to_mid(h.m, h.ec, NULL, NULL) == NULL);
  hb_free(&h);
}

/* ---- the position field of field functions (§4.12) ------------------------------------ */

/* G(x) = x•x + x_0 x_1^3 + sin x_0 over the position field X = position[2],
 * probed with 0, 1 and 2 derivatives at x = (0.3, -1.2); the expected values
 * are the closed-form gradient and Hessian worked out by hand:
 *   ∇G = (2x_0 + x_1^3 + cos x_0, 2x_1 + 3 x_0 x_1^2),
 *   ∇∇G = [[2 − sin x_0, 3x_1^2], [3x_1^2, 2 + 6 x_0 x_1]].
 * X itself probes to x, ∇X to the identity, ∇∇X to 0 (d = 2), and in 1-D
 * H(x) = 3x^2 gives 3x^2, 6x, 6. */
static void test_position(void) {
  const double x0 = 0.3, x1 = -1.2, x[2] = {x0, x1};
  const double want[3][4] = {
      {x0 * x0 + x1 * x1 + x0 * x1 * x1 * x1 + sin(x0)},
      {2 * x0 + x1 * x1 * x1 + cos(x0), 2 * x1 + 3 * x0 * x1 * x1},
      {2 - sin(x0), 3 * x1 * x1, 3 * x1 * x1, 2 + 6 * x0 * x1}};
  TImage *ti = calloc(1, sizeof *ti);
  static const double I2[4] = {1, 0, 0, 1}, Z2[2] = {0, 0};
  make_image(ti, 2, S2, 1, I2, Z2, NULL);
  for (int nd = 0; nd <= 2; nd++) {
    HB h;
    hb_init(&h, 2, 0, NULL);
    int two = 2;
    IrVar *X = ir_emit_op(h.b, "x", IR_HOP_POSITION, NULL, 0, NULL, 1, &two);
    CHECK(X != NULL && X->ty->kind == IR_TY_FIELD && X->ty->dim == 2 && X->ty->order == 1);
    if (!X) continue;
    EinContext *c = h.ec;
    EinParam p = ein_param_field(2, 1, &two);
    EinIdx i = ein_ivar(0);
    const EinExpr *xi = ein_field(c, 0, 1, &i), *a = ein_field(c, 0, 1, (EinIdx[]){ein_icon(0)}),
                  *b = ein_field(c, 0, 1, (EinIdx[]){ein_icon(1)});
    const EinExpr *t[3] = {ein_sum1(c, 0, 0, 1, ein_mul2(c, xi, xi)),
                           ein_mul2(c, a, ein_pow(c, b, 3)), ein_fun(c, EIN_FUN_SIN, a)};
    const EinOp *g = ein_op_new(c, 1, &p, 0, NULL, ein_add(c, 3, t));
    IrVar *G = ir_emit_ein(h.b, "G", g, NULL, 1, &X);
    CHECK(G != NULL);
    if (!G) continue;
    hb_return(&h, hb_probe(&h, G, nd));
    double got[8]; /* X with 2 derivatives has 2·2·2 components */
    int n = run_mid(&h, NULL, &ti->img, x, got, NULL);
    int total = nd == 0 ? 1 : nd == 1 ? 2 : 4;
    CHECK_MSG(n == total, "G with %d derivatives: %d components", nd, n);
    for (int k = 0; k < total && n == total; k++)
      CHECK_MSG(fabs(got[k] - want[nd][k]) <= 1e-12, "G, %d derivatives [%d]: got %.17g want %.17g",
                nd, k, got[k], want[nd][k]);
    hb_free(&h);
    /* X itself */
    hb_init(&h, 2, 0, NULL);
    X = ir_emit_op(h.b, "x", IR_HOP_POSITION, NULL, 0, NULL, 1, &two);
    hb_return(&h, hb_probe(&h, X, nd));
    double wx[3][8] = {{x0, x1}, {1, 0, 0, 1}, {0}};
    n = run_mid(&h, &(MidOptOpts){true, true, true, true, true}, &ti->img, x, got, NULL);
    CHECK_MSG(n == 2 * total, "X with %d derivatives: %d components", nd, n);
    for (int k = 0; k < 2 * total && n == 2 * total; k++)
      CHECK_MSG(got[k] == wx[nd][k], "X, %d derivatives [%d]: got %.17g want %.17g", nd, k, got[k],
                wx[nd][k]);
    hb_free(&h);
  }
  free(ti);
  TImage *t1 = calloc(1, sizeof *t1);
  make_image(t1, 1, S1, 1, M1, O1, NULL);
  for (int nd = 0; nd <= 2; nd++) {
    HB h;
    hb_init(&h, 1, 0, NULL);
    int one = 1;
    IrVar *X = ir_emit_op(h.b, "x", IR_HOP_POSITION, NULL, 0, NULL, 1, &one);
    CHECK(X != NULL && X->ty->kind == IR_TY_FIELD && X->ty->order == 0);
    if (!X) continue;
    EinParam p = ein_param_field(1, 0, NULL);
    const EinOp *hop = ein_op_new(h.ec, 1, &p, 0, NULL,
                                  ein_mul2(h.ec, ein_const_int(h.ec, 3),
                                           ein_pow(h.ec, ein_field(h.ec, 0, 0, NULL), 2)));
    hb_return(&h, hb_probe(&h, ir_emit_ein(h.b, "H", hop, NULL, 1, &X), nd));
    double xv = 0.7, got[1], w = nd == 0 ? 3 * xv * xv : nd == 1 ? 6 * xv : 6;
    int n = run_mid(&h, NULL, &t1->img, &xv, got, NULL);
    CHECK_MSG(n == 1 && fabs(got[0] - w) <= 1e-12, "H, %d derivatives: got %.17g want %.17g", nd,
              n == 1 ? got[0] : NAN, w);
    hb_free(&h);
  }
  free(t1);
}

/* ---- the optimisations on the paper's examples ------------------------------------------- */

static int count_ein(const IrModule *m) {
  int n = 0;
  for (int c = 0; c < m->ncfgs; c++)
    for (int b = 0; b < m->cfgs[c]->nblocks; b++) {
      const IrBlock *bl = m->cfgs[c]->blocks[b];
      for (int i = 0; i < bl->ninstrs; i++) n += bl->instrs[i]->kind == IR_I_OP && bl->instrs[i]->op == IR_MOP_EIN;
    }
  return n;
}

/* EIN operators reading a voxel tensor directly (the convolutions). */
static int count_conv(const IrModule *m) {
  int n = 0;
  const IrCFG *cfg = m->cfgs[0];
  for (int b = 0; b < cfg->nblocks; b++) {
    const IrBlock *bl = cfg->blocks[b];
    for (int i = 0; i < bl->ninstrs; i++) {
      const IrInstr *in = bl->instrs[i];
      if (in->kind != IR_I_OP || in->op != IR_MOP_EIN) continue;
      for (int k = 0; k < in->nargs; k++)
        if (in->args[k]->def && in->args[k]->def->kind == IR_I_OP &&
            in->args[k]->def->op == IR_MOP_LOAD_VOXELS) {
          n++;
          break;
        }
    }
  }
  return n;
}

/* §5.4 / §5.7.3: Σ_jk a_j b_k c_j d_k − Σ_jk a_j b_k c_k d_j, the normalized
 * (a×b)•(c×d), becomes (Σ_j a_j c_j)(Σ_k b_k d_k) − (Σ_j a_j d_j)(Σ_k b_k c_k). */
static void test_sumbind_paper(void) {
  Arena *a = arena_new();
  EinContext *ec = ein_context_new(a);
  IrModule *m = ir_module_new(a, IR_MID);
  IrCFG *cfg = ir_cfg_new(m, IR_CFG_FUNC, "f");
  int three = 3;
  const IrType *v3 = ir_type_tensor(m, 1, &three);
  IrVar *ps[4];
  for (int i = 0; i < 4; i++) ps[i] = ir_cfg_add_param(cfg, "v", v3);
  EinParam ep[4];
  for (int i = 0; i < 4; i++) ep[i] = ein_param_tensor(1, &three);
  EinIdx j = ein_ivar(0), k = ein_ivar(1);
  const EinExpr *t1[4] = {ein_tensor(ec, 0, 1, &j), ein_tensor(ec, 1, 1, &k),
                          ein_tensor(ec, 2, 1, &j), ein_tensor(ec, 3, 1, &k)};
  const EinExpr *t2[4] = {ein_tensor(ec, 0, 1, &j), ein_tensor(ec, 1, 1, &k),
                          ein_tensor(ec, 2, 1, &k), ein_tensor(ec, 3, 1, &j)};
  EinBinder jk[2] = {{0, 0, 2}, {1, 0, 2}};
  const EinExpr *body = ein_sub(ec, ein_sum(ec, 2, jk, ein_mul(ec, 4, t1)),
                                ein_sum(ec, 2, jk, ein_mul(ec, 4, t2)));
  const EinOp *op = ein_op_new(ec, 4, ep, 0, NULL, body);
  IrVar *r = ir_emit_ein(cfg->entry, "r", op, NULL, 4, ps);
  cfg->result = r->ty;
  ir_block_set_return(cfg->entry, r);
  CHECK(check_module(m) == 0);
  unsigned long before = mid_module_cost(m);
  MidOptStats st;
  memset(&st, 0, sizeof st);
  CHECK(mid_sumbind_cfg(cfg, ec, &st) == 1);
  CHECK(check_module(m) == 0);
  unsigned long after = mid_module_cost(m);
  /* by the cost definition: 2·(9·3 + 8) + 1 and 2·((3+2) + (3+2) + 1) + 1 */
  CHECK(before == 71);
  CHECK(after == 23);
  printf("sum binding, (a×b)•(c×d): expanded size %lu -> %lu, EIN nodes %zu -> %zu\n", before,
         after, ein_op_size(op), ein_op_size(r->def->ein));
  CHECK_STR(ein_op_str(a, r->def->ein, EIN_PRINT_ASCII),
            ein_op_str(a,
                       ein_op_new(ec, 4, ep, 0, NULL,
                                  ein_sub(ec,
                                          ein_mul2(ec, ein_sum1(ec, 0, 0, 2, ein_mul2(ec, t1[0], t1[2])),
                                                   ein_sum1(ec, 1, 0, 2, ein_mul2(ec, t1[1], t1[3]))),
                                          ein_mul2(ec, ein_sum1(ec, 0, 0, 2, ein_mul2(ec, t2[0], t2[3])),
                                                   ein_sum1(ec, 1, 0, 2, ein_mul2(ec, t2[1], t2[2]))))),
                       EIN_PRINT_ASCII));
  /* values: against the cross products written out */
  double va[3] = {1, 2, -0.5}, vb[3] = {0.3, -1, 2}, vc[3] = {2, 0.5, 1}, vd[3] = {-1, 1.5, 0.25};
  double axb[3] = {va[1] * vb[2] - va[2] * vb[1], va[2] * vb[0] - va[0] * vb[2],
                   va[0] * vb[1] - va[1] * vb[0]};
  double cxd[3] = {vc[1] * vd[2] - vc[2] * vd[1], vc[2] * vd[0] - vc[0] * vd[2],
                   vc[0] * vd[1] - vc[1] * vd[0]};
  double want = axb[0] * cxd[0] + axb[1] * cxd[1] + axb[2] * cxd[2];
  MidValue args[4] = {mid_tensor_value(3, va), mid_tensor_value(3, vb), mid_tensor_value(3, vc),
                      mid_tensor_value(3, vd)};
  MidValue res;
  char err[200];
  CHECK(mid_eval_cfg(cfg, args, &res, err, sizeof err) == 0);
  CHECK_NEAR(res.t[0], want, 1e-12);
  mid_value_free(&res);
  for (int i = 0; i < 4; i++) mid_value_free(&args[i]);
  /* the hoisting rule alone: Σ_i T·a_i b_i → T·Σ_i a_i b_i */
  EinIdx i0 = ein_ivar(0);
  EinParam e3[3] = {ein_param_tensor(0, NULL), ein_param_tensor(1, &three),
                    ein_param_tensor(1, &three)};
  const EinExpr *f3[3] = {ein_tensor(ec, 0, 0, NULL), ein_tensor(ec, 1, 1, &i0),
                          ein_tensor(ec, 2, 1, &i0)};
  const EinExpr *h = mid_sumbind_expr(ec, ein_sum1(ec, 0, 0, 2, ein_mul(ec, 3, f3)), NULL);
  CHECK_STR(ein_op_str(a, ein_op_new(ec, 3, e3, 0, NULL, h), EIN_PRINT_ASCII),
            ein_op_str(a,
                       ein_op_new(ec, 3, e3, 0, NULL,
                                  ein_mul2(ec, f3[0], ein_sum1(ec, 0, 0, 2, ein_mul2(ec, f3[1], f3[2])))),
                       EIN_PRINT_ASCII));
  arena_free(a);
}

/* Translate + one option set; returns the module's size and the value. */
static unsigned long opt_run(HB *h, const MidOptOpts *o, const MidImage *img, const double *x,
                             double *val, int *nein, int *nconv) {
  CHECK(check_module(h->m) == 0);
  IrModule *mid = high_to_mid(h->m, h->ec, NULL, NULL);
  CHECK(mid != NULL);
  if (!mid) return 0;
  mid_optimize(mid, h->ec, o, NULL);
  CHECK(check_module(mid) == 0);
  MidValue args[2] = {mid_image_value(img), mid_tensor_value(h->d, x)};
  MidValue res;
  char err[200];
  int rc = mid_eval_cfg(mid->cfgs[0], args, &res, err, sizeof err);
  CHECK_MSG(rc == 0, "%s", err);
  if (rc == 0) *val = res.t[0];
  mid_value_free(&res);
  mid_value_free(&args[1]);
  if (nein) *nein = count_ein(mid);
  if (nconv) *nconv = count_conv(mid);
  return mid_module_cost(mid);
}

/* λF,x⟨body⟩ with F a field over `img` */
static void build_probe_op(HB *h, IrVar *F, const EinExpr *body) {
  EinParam ps[2] = {field_param(F->ty), pos_param(h->d)};
  const EinOp *op = ein_op_new(h->ec, 2, ps, 0, NULL, body);
  IrVar *args[2] = {F, h->x};
  hb_return(h, ir_emit_ein(h->b, "v", op, NULL, 2, args));
}

static void test_opt_examples(void) {
  TImage *ti = calloc(1, sizeof *ti);
  make_image(ti, 2, S2, 1, M2, O2, &P2);
  double x[3] = {0, 0, 0};
  to_world(ti, PI2, x);
  double gx = 2 + 0.5 * x[1], gy = -1 + 0.5 * x[0];

  /* Split (§5.7.1): |∇F|² = Σ_i (∂_i F@x)(∂_i F@x): the world gradient
   * appears twice in the fused operator; split makes it one operator. */
  {
    MidOptOpts none = {false, false, false, true, true}, split = none;
    split.split = true;
    unsigned long c[2];
    double v[2];
    int ne[2];
    for (int k = 0; k < 2; k++) {
      HB h;
      hb_init(&h, 2, 0, NULL);
      IrVar *F = hb_field(&h, h.img, "ctmr", -1);
      const EinExpr *pr =
          ein_probe(h.ec, ein_diff(h.ec, ein_ivar(0), ein_field(h.ec, 0, 0, NULL)), 1);
      const EinExpr *pr2 = ein_probe(h.ec, ein_diff(h.ec, ein_ivar(0), ein_field(h.ec, 0, 0, NULL)), 1);
      build_probe_op(&h, F, ein_sum1(h.ec, 0, 0, 1, ein_mul2(h.ec, pr, pr2)));
      c[k] = opt_run(&h, k ? &split : &none, &ti->img, x, &v[k], &ne[k], NULL);
      CHECK_NEAR(v[k], gx * gx + gy * gy, 1e-10);
      hb_free(&h);
    }
    printf("split, |grad F|^2 (ctmr, 2-D): expanded size %lu -> %lu (%d -> %d EIN ops)\n", c[0],
           c[1], ne[0], ne[1]);
    CHECK(c[1] < c[0]);
  }

  /* Slice (§5.7.2): F_0(x)·F_1(x) for a vector field: after split the two
   * component convolutions are distinct; slice makes them one. */
  {
    const EinPoly vec2[2] = {P2, Q2};
    TImage *tv = calloc(1, sizeof *tv);
    make_image(tv, 2, S2, 2, M2, O2, vec2);
    double want = ein_poly_eval(&P2, x, NULL) * ein_poly_eval(&Q2, x, NULL);
    MidOptOpts split = {true, false, false, true, true}, both = split;
    both.slice = true;
    unsigned long c[2];
    double v[2];
    int nconv[2];
    for (int k = 0; k < 2; k++) {
      HB h;
      int two = 2;
      hb_init(&h, 2, 1, &two);
      IrVar *F = hb_field(&h, h.img, "ctmr", -1);
      EinIdx c0 = ein_icon(0), c1 = ein_icon(1);
      const EinExpr *f0 = ein_probe(h.ec, ein_field(h.ec, 0, 1, &c0), 1);
      const EinExpr *f1 = ein_probe(h.ec, ein_field(h.ec, 0, 1, &c1), 1);
      build_probe_op(&h, F, ein_mul2(h.ec, f0, f1));
      c[k] = opt_run(&h, k ? &both : &split, &tv->img, x, &v[k], NULL, &nconv[k]);
      CHECK_NEAR(v[k], want, 1e-10 * fabs(want));
      hb_free(&h);
    }
    printf("slice, F[0](x)*F[1](x) (ctmr, 2-D, vector): convolution ops %d -> %d, expanded size "
           "%lu -> %lu\n",
           nconv[0], nconv[1], c[0], c[1]);
    CHECK(nconv[0] == 2 && nconv[1] == 1);
    free(tv);
  }

  /* Summation binding on a 3-D convolution (value and gradient). */
  {
    TImage *t3 = calloc(1, sizeof *t3);
    make_image(t3, 3, S3, 1, M3, O3, &P3D);
    double x3[3];
    to_world(t3, PI3, x3);
    for (int nd = 0; nd < 2; nd++) {
      MidOptOpts off = {true, true, false, true, true}, on = mid_opt_defaults();
      unsigned long c[2];
      double v[2];
      for (int k = 0; k < 2; k++) {
        HB h;
        hb_init(&h, 3, 0, NULL);
        IrVar *F = hb_field(&h, h.img, "c4hexic", -1);
        const EinExpr *e = ein_field(h.ec, 0, 0, NULL);
        if (nd) e = ein_diff(h.ec, ein_icon(2), e);
        build_probe_op(&h, F, ein_probe(h.ec, e, 1));
        c[k] = opt_run(&h, k ? &on : &off, &t3->img, x3, &v[k], NULL, NULL);
        int deriv[3] = {0, 0, nd};
        double want = ein_poly_eval(&P3D, x3, deriv);
        CHECK_NEAR(v[k], want, 1e-10 * (fabs(want) > 1 ? fabs(want) : 1));
        hb_free(&h);
      }
      printf("summation binding, 3-D c4hexic %s: expanded size %lu -> %lu\n",
             nd ? "dF/dz" : "value", c[0], c[1]);
      CHECK(c[1] < c[0]);
    }
    free(t3);
  }
  free(ti);
}

int main(void) {
  test_probes();
  test_probe_control();
  test_composite();
  test_inside();
  test_border_maps();
  test_border_probes();
  test_unsupported();
  test_position();
  test_sumbind_paper();
  test_opt_examples();
  return unit_finish("mid");
}
