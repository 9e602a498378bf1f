/* test_emit.c -- the C back end on hand-built LowIR: each function is
 * printed as C (emit_c_functions), compiled with the system C compiler
 * (cc_compile, with the runtime of this build tree), run, and its printed
 * results compared with values computed here in C. Every case runs in the
 * four modes {vector, --scalar} x {float, --double}. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cc.h"
#include "backend/cpu/cpu.h"
#include "backend/program/program.h"
#include "ir/ir.h"
#include "unit.h"

#include <sys/wait.h>
#include <teem/nrrd.h>

typedef struct T {
  Arena *a;
  IrModule *m;
  IrCFG *fns[16];
  int nfns;
  const char *calls; /* main()'s body: printf of each result */
} T;

/* The C compiler's environment, as the driver reads it (src/driver/main.c):
 * the sanitizer flags of scripts/check-asan.sh reach these builds too. */
static const CcEnv *test_cc_env(void) {
  static CcEnv env;
  env = (CcEnv){.rt_dir = getenv("DIDEROT_RT_DIR"), .path = getenv("PATH"), .cc = getenv("CC"),
                .cxx = getenv("CXX"), .objcopy = getenv("OBJCOPY"),
                .cflags = getenv("CFLAGS_DIDEROT"), .cflags_extra = getenv("CFLAGS_DIDEROT_EXTRA")};
  return &env;
}

static const IrType *tensor1(IrModule *m, int n) { return ir_type_tensor(m, 1, (int[]){n}); }

static IrVar *op(IrBlock *b, int o, int n, IrVar *const *args) {
  IrVar *r = ir_emit_op(b, NULL, o, NULL, n, args, 0, NULL);
  CHECK(r != NULL);
  return r;
}
static IrVar *opi(IrBlock *b, int o, int n, IrVar *const *args, int nimm, const int *imm) {
  IrVar *r = ir_emit_op(b, NULL, o, NULL, n, args, nimm, imm);
  CHECK(r != NULL);
  return r;
}

static IrCFG *fn(T *t, const char *name, const IrType *result) {
  IrCFG *c = ir_cfg_new(t->m, IR_CFG_FUNC, name);
  c->result = result;
  t->fns[t->nfns++] = c;
  return c;
}

/* dot(a, b) of tensor[4] through vec<4> and a vdot; and Σ a_i / b_i of
 * tensor[3] through vec<3> (its padding lane must not reach the sum). */
static void build_dot(T *t) {
  IrModule *m = t->m;
  IrCFG *c = fn(t, "dot4", ir_type_real(m));
  IrVar *a = ir_cfg_add_param(c, "a", tensor1(m, 4)), *b = ir_cfg_add_param(c, "b", tensor1(m, 4));
  IrBlock *e = c->entry;
  IrVar *va = op(e, IR_LOP_TENSOR_TO_VEC, 1, &a), *vb = op(e, IR_LOP_TENSOR_TO_VEC, 1, &b);
  ir_block_set_return(e, op(e, IR_LOP_VDOT, 2, (IrVar *[]){va, vb}));

  c = fn(t, "quot3", ir_type_real(m));
  a = ir_cfg_add_param(c, "a", tensor1(m, 3));
  b = ir_cfg_add_param(c, "b", tensor1(m, 3));
  e = c->entry;
  va = op(e, IR_LOP_TENSOR_TO_VEC, 1, &a);
  vb = op(e, IR_LOP_TENSOR_TO_VEC, 1, &b);
  IrVar *q = op(e, IR_LOP_VDIV, 2, (IrVar *[]){va, vb});
  ir_block_set_return(e, op(e, IR_LOP_VSUM, 1, &q));
}

/* Σ_{i=1..n} i·i with a loop (phis in the header), and fib(n) whose
 * header phis swap values (a, b) <- (b, a + b): a parallel copy. */
static void build_loops(T *t) {
  IrModule *m = t->m;
  IrCFG *c = fn(t, "sumsq", ir_type_int(m));
  IrVar *n = ir_cfg_add_param(c, "n", ir_type_int(m));
  IrBlock *e = c->entry, *h = ir_block_new(c, "header"), *body = ir_block_new(c, "body"),
          *x = ir_block_new(c, "exit");
  IrVar *one = ir_emit_int(e, 1), *zero = ir_emit_int(e, 0);
  ir_block_set_jump(e, h);
  IrVar *i = ir_phi_new(h, "i", ir_type_int(m)), *s = ir_phi_new(h, "s", ir_type_int(m));
  IrVar *cond = op(h, IR_OP_LE, 2, (IrVar *[]){i, n});
  ir_block_set_branch(h, cond, body, x);
  IrVar *sq = op(body, IR_OP_IMUL, 2, (IrVar *[]){i, i});
  IrVar *s1 = op(body, IR_OP_IADD, 2, (IrVar *[]){s, sq});
  IrVar *i1 = op(body, IR_OP_IADD, 2, (IrVar *[]){i, one});
  ir_block_set_jump(body, h);
  ir_phi_set(i->def, e, one);
  ir_phi_set(i->def, body, i1);
  ir_phi_set(s->def, e, zero);
  ir_phi_set(s->def, body, s1);
  ir_block_set_return(x, s);

  c = fn(t, "fib", ir_type_int(m));
  n = ir_cfg_add_param(c, "n", ir_type_int(m));
  e = c->entry;
  h = ir_block_new(c, "header");
  body = ir_block_new(c, "body");
  x = ir_block_new(c, "exit");
  zero = ir_emit_int(e, 0);
  one = ir_emit_int(e, 1);
  ir_block_set_jump(e, h);
  IrVar *k = ir_phi_new(h, "k", ir_type_int(m)), *fa = ir_phi_new(h, "a", ir_type_int(m)),
        *fb = ir_phi_new(h, "b", ir_type_int(m));
  ir_block_set_branch(h, op(h, IR_OP_LT, 2, (IrVar *[]){k, n}), body, x);
  IrVar *sum = op(body, IR_OP_IADD, 2, (IrVar *[]){fa, fb});
  IrVar *k1 = op(body, IR_OP_IADD, 2, (IrVar *[]){k, one});
  ir_block_set_jump(body, h);
  ir_phi_set(k->def, e, zero);
  ir_phi_set(k->def, body, k1);
  ir_phi_set(fa->def, e, zero);
  ir_phi_set(fa->def, body, fb); /* a <- b */
  ir_phi_set(fb->def, e, one);
  ir_phi_set(fb->def, body, sum); /* b <- a + b (the old a) */
  ir_block_set_return(x, fa);
}

/* p(x) = 1 + 2x - 3x^2 + 0.5x^3 by horner on reals, and the same four
 * polynomials shifted per lane (lane k adds k to c0) on vec<4>; the
 * function returns lane 0 + 10·lane 3 of the vector result. */
static void build_horner(T *t) {
  IrModule *m = t->m;
  IrCFG *c = fn(t, "horner", ir_type_real(m));
  IrVar *xv = ir_cfg_add_param(c, "x", ir_type_real(m));
  IrBlock *e = c->entry;
  IrVar *cs[4] = {ir_emit_real(e, 1), ir_emit_real(e, 2), ir_emit_real(e, -3), ir_emit_real(e, 0.5)};
  ir_block_set_return(e, op(e, IR_LOP_HORNER, 5, (IrVar *[]){xv, cs[0], cs[1], cs[2], cs[3]}));

  c = fn(t, "vhorner", ir_type_real(m));
  xv = ir_cfg_add_param(c, "x", ir_type_real(m));
  e = c->entry;
  IrVar *vx = opi(e, IR_LOP_VSPLAT, 1, &xv, 1, (int[]){4});
  IrVar *lanes[4];
  for (int k = 0; k < 4; k++) lanes[k] = ir_emit_real(e, 1 + k);
  IrVar *c0 = op(e, IR_LOP_VCONS, 4, lanes);
  IrVar *vc[3];
  double coef[3] = {2, -3, 0.5};
  for (int k = 0; k < 3; k++) {
    IrVar *r = ir_emit_real(e, coef[k]);
    vc[k] = opi(e, IR_LOP_VSPLAT, 1, &r, 1, (int[]){4});
  }
  IrVar *hv = op(e, IR_LOP_HORNER, 5, (IrVar *[]){vx, c0, vc[0], vc[1], vc[2]});
  IrVar *l0 = opi(e, IR_LOP_VINDEX, 1, &hv, 1, (int[]){0});
  IrVar *l3 = opi(e, IR_LOP_VINDEX, 1, &hv, 1, (int[]){3});
  IrVar *ten = ir_emit_real(e, 10);
  IrVar *l3t = op(e, IR_LOP_RMUL, 2, (IrVar *[]){l3, ten});
  ir_block_set_return(e, op(e, IR_LOP_RADD, 2, (IrVar *[]){l0, l3t}));
}

/* Tensors: m = [[a0,a1,a2],[b0,b1,b2]] (tensor_cons of vec_to_tensor of
 * 2·v and v - w), then m[1,2] + m[0,1]·4, clamped to [-5, 5] per
 * component first; plus powi and a select. Returns
 *   clamp(m)[1,2] + 4·clamp(m)[0,1] + x^n + (n > 2 ? 100 : 0). */
static void build_tensor(T *t) {
  IrModule *m = t->m;
  IrCFG *c = fn(t, "tens", ir_type_real(m));
  IrVar *v = ir_cfg_add_param(c, "v", tensor1(m, 3)), *w = ir_cfg_add_param(c, "w", tensor1(m, 3));
  IrVar *xv = ir_cfg_add_param(c, "x", ir_type_real(m)), *n = ir_cfg_add_param(c, "n", ir_type_int(m));
  IrBlock *e = c->entry;
  IrVar *vv = op(e, IR_LOP_TENSOR_TO_VEC, 1, &v), *vw = op(e, IR_LOP_TENSOR_TO_VEC, 1, &w);
  IrVar *two = ir_emit_real(e, 2);
  IrVar *r0 = op(e, IR_LOP_VSCALE, 2, (IrVar *[]){two, vv});
  IrVar *r1 = op(e, IR_LOP_VSUB, 2, (IrVar *[]){vv, vw});
  IrVar *t0 = op(e, IR_LOP_VEC_TO_TENSOR, 1, &r0), *t1 = op(e, IR_LOP_VEC_TO_TENSOR, 1, &r1);
  IrVar *mat = op(e, IR_OP_TENSOR_CONS, 2, (IrVar *[]){t0, t1});
  IrVar *lo = ir_emit_real(e, -5), *hi = ir_emit_real(e, 5);
  IrVar *cm = op(e, IR_OP_CLAMP, 3, (IrVar *[]){lo, hi, mat});
  IrVar *m12 = opi(e, IR_OP_TENSOR_INDEX, 1, &cm, 2, (int[]){1, 2});
  IrVar *row0 = opi(e, IR_OP_TENSOR_INDEX, 1, &cm, 1, (int[]){0});
  IrVar *m01 = opi(e, IR_OP_TENSOR_INDEX, 1, &row0, 1, (int[]){1});
  IrVar *four = ir_emit_real(e, 4);
  IrVar *acc = op(e, IR_LOP_RADD, 2, (IrVar *[]){m12, op(e, IR_LOP_RMUL, 2, (IrVar *[]){four, m01})});
  IrVar *pw = op(e, IR_OP_POWI, 2, (IrVar *[]){xv, n});
  IrVar *twoi = ir_emit_int(e, 2);
  IrVar *gt = op(e, IR_OP_GT, 2, (IrVar *[]){n, twoi});
  IrVar *sel = op(e, IR_OP_SELECT, 3, (IrVar *[]){gt, ir_emit_real(e, 100), ir_emit_real(e, 0)});
  acc = op(e, IR_LOP_RADD, 2, (IrVar *[]){acc, pw});
  ir_block_set_return(e, op(e, IR_LOP_RADD, 2, (IrVar *[]){acc, sel}));
}

static double horner_ref(double x, double c0) { return c0 + x * (2 + x * (-3 + x * 0.5)); }

/* Compile and run; returns the program's stdout (malloc'd) or NULL. */
static char *build_and_run(T *t, const EmitOptions *opt, const char *tag) {
  const char *text = NULL;
  char err[256];
  if (!emit_c_functions(t->a, t->m, t->fns, t->nfns, opt, &text, err, sizeof err)) {
    fprintf(stderr, "emit failed: %s\n", err);
    return NULL;
  }
  char cfile[64], exe[64];
  snprintf(cfile, sizeof cfile, "/tmp/test_emit_%d_%s.c", (int)getpid(), tag);
  snprintf(exe, sizeof exe, "/tmp/test_emit_%d_%s", (int)getpid(), tag);
  FILE *f = fopen(cfile, "w");
  if (!f) return NULL;
  fputs(text, f);
  fprintf(f, "int main(void) {\n%s  return 0;\n}\n", t->calls);
  fclose(f);
  CcRequest req = {.env = test_cc_env(), .c_file = cfile, .out_file = exe, .kind = CC_EXEC};
  const char *why = NULL;
  bool ok = cc_compile(t->a, &req, &why);
  if (!ok) {
    fprintf(stderr, "cc failed (%s), source kept in %s\n", why ? why : "compiler error", cfile);
    return NULL;
  }
  FILE *p = popen(exe, "r");
  char *res = calloc(1, 4096);
  size_t n = p ? fread(res, 1, 4095, p) : 0;
  res[n] = '\0';
  if (p) pclose(p);
  remove(cfile);
  remove(exe);
  return res;
}

static void run_mode(bool scalar, bool dbl) {
  Arena *a = arena_new();
  T t = {a, ir_module_new(a, IR_LOW), {0}, 0, NULL};
  build_dot(&t);
  build_loops(&t);
  build_horner(&t);
  build_tensor(&t);
  IrCheck chk = {0};
  chk.out = stderr;
  for (int i = 0; i < t.nfns; i++) ir_check_cfg(t.fns[i], &chk);
  CHECK(chk.nerrors == 0);
  /* call fns by their emitted names: fn_NAME_INDEX */
  t.calls =
      "  dten_4 a = {{1, 2, 3, 4}}, b = {{0.5, -1, 2, 0.25}};\n"
      "  dten_3 p = {{1, 2, 3}}, q = {{4, 8, 2}};\n"
      "  printf(\"%.17g\\n\", (double)fn_dot4_0(a, b));\n"
      "  printf(\"%.17g\\n\", (double)fn_quot3_1(p, q));\n"
      "  printf(\"%d\\n\", (int)fn_sumsq_2(10));\n"
      "  printf(\"%d\\n\", (int)fn_fib_3(20));\n"
      "  printf(\"%.17g\\n\", (double)fn_horner_4(1.5));\n"
      "  printf(\"%.17g\\n\", (double)fn_vhorner_5(0.25));\n"
      "  dten_3 v = {{1, -4, 2}}, w = {{-3, 1, 9}};\n"
      "  printf(\"%.17g\\n\", (double)fn_tens_6(v, w, 1.5, 3));\n";
  EmitOptions opt = {.scalar = scalar, .double_real = dbl, .source = "test_emit"};
  char tag[16];
  snprintf(tag, sizeof tag, "%d%d", scalar, dbl);
  char *out = build_and_run(&t, &opt, tag);
  CHECK_MSG(out != NULL, "mode scalar=%d double=%d", scalar, dbl);
  if (out) {
    double r[7] = {0};
    int got = sscanf(out, "%lf %lf %lf %lf %lf %lf %lf", &r[0], &r[1], &r[2], &r[3], &r[4], &r[5], &r[6]);
    CHECK_MSG(got == 7, "output: %s", out);
    double tol = dbl ? 1e-12 : 1e-5;
    CHECK_NEAR(r[0], 1 * 0.5 + 2 * -1 + 3 * 2 + 4 * 0.25, tol); /* 5.5 */
    CHECK_NEAR(r[1], 0.25 + 0.25 + 1.5, tol);                    /* 2 */
    CHECK(r[2] == 385);                                          /* 10·11·21/6 */
    CHECK(r[3] == 6765);                                         /* F(20) */
    CHECK_NEAR(r[4], horner_ref(1.5, 1), tol);
    CHECK_NEAR(r[5], horner_ref(0.25, 1) + 10 * horner_ref(0.25, 4), tol);
    /* 2v = (2,-8,4) clamps to (2,-5,4); v-w = (4,-5,-7) clamps to (4,-5,-5):
     * m[1,2] = -5, m[0,1] = -5, 1.5^3 = 3.375, n > 2 → 100 */
    CHECK_NEAR(r[6], -5 + 4 * -5 + 3.375 + 100, tol);
  }
  free(out);
  arena_free(a);
}

/* Emission errors are reported, not crashes: a field-typed parameter. */
static void test_refusal(void) {
  Arena *a = arena_new();
  IrModule *m = ir_module_new(a, IR_LOW);
  IrCFG *c = ir_cfg_new(m, IR_CFG_FUNC, "bad");
  c->result = ir_type_real(m);
  IrVar *p = ir_cfg_add_param(c, "f", ir_type_field(m, 1, 2, 0, NULL));
  (void)p;
  ir_block_set_return(c->entry, ir_emit_real(c->entry, 1));
  EmitOptions opt = {0};
  const char *text = NULL;
  char err[256] = "";
  CHECK(!emit_c_functions(a, m, &c, 1, &opt, &text, err, sizeof err));
  CHECK(strstr(err, "field") != NULL);
  arena_free(a);
}


/* ---- whole programs: the glue (executable and library) ----------------------
 * A hand-built LowIR program (what the translators produce):
 *   input int num = 5 ("count");  (not "n": -n is --nworkers with OpenMP)  input real scale = 2.0;
 *   real off = scale + 1;                       (global, GLOBAL_INIT)
 *   strand S(int k) { int i = k; output real x = 0; output vec2 v = [0,0];
 *     int age = 0;
 *     update { age += 1; [collection: if (i % 2 == 1) die;]
 *              if (age >= 2) { x = off * real(i); v = [real(i), -real(i)];
 *                              stabilize; } }
 *     stabilize { x = x + 0.5; } }
 *   create_array / create_collection { S(k) | k in 0..n-1 }
 * So with scale = s: x_i = (s + 1)·i + 0.5 and v_i = (i, −i); the
 * collection keeps the even i only. */
static IrModule *build_program(Arena *a, bool grid) {
  IrModule *m = ir_module_new(a, IR_LOW);
  ir_module_set_strand(m, "S");
  m->create_array = grid;
  const IrType *ti = ir_type_int(m), *tr = ir_type_real(m), *t2 = tensor1(m, 2);
  IrGlobal *gn = ir_global_new(m, IR_GLOBAL_INPUT, "num", ti);
  gn->desc = "count";
  gn->has_default = true;
  IrValue *vn = ARENA_NEW(a, IrValue);
  vn->ty = ti;
  vn->i = 5;
  gn->value = vn;
  IrGlobal *gs = ir_global_new(m, IR_GLOBAL_INPUT, "scale", tr);
  gs->has_default = true;
  IrValue *vs = ARENA_NEW(a, IrValue);
  static const double two = 2.0;
  vs->ty = tr;
  vs->nr = 1;
  vs->r = &two;
  gs->value = vs;
  IrGlobal *goff = ir_global_new(m, IR_GLOBAL_VAR, "off", tr);
  IrStateVar *si = ir_state_new(m, "i", ti, false), *sx = ir_state_new(m, "x", tr, true),
             *sv = ir_state_new(m, "v", t2, true), *sa = ir_state_new(m, "age", ti, false);

  IrCFG *gi = ir_cfg_new(m, IR_CFG_GLOBAL_INIT, "global_init");
  IrBlock *b = gi->entry;
  IrVar *sc = ir_emit_global_get(b, "scale", gs);
  ir_emit_global_set(b, goff, op(b, IR_LOP_RADD, 2, (IrVar *[]){sc, ir_emit_real(b, 1)}));
  ir_block_set_return(b, NULL);

  IrCFG *init = ir_cfg_new(m, IR_CFG_STRAND_INIT, "strand_init");
  IrVar *k = ir_cfg_add_param(init, "k", ti);
  b = init->entry;
  IrVar *z = ir_emit_real(b, 0);
  ir_emit_state_set(b, si, k);
  ir_emit_state_set(b, sx, z);
  ir_emit_state_set(b, sv, op(b, IR_OP_TENSOR_CONS, 2, (IrVar *[]){z, z}));
  ir_emit_state_set(b, sa, ir_emit_int(b, 0));
  ir_block_set_return(b, NULL);

  IrCFG *up = ir_cfg_new(m, IR_CFG_UPDATE, "update");
  b = up->entry;
  IrVar *i = ir_emit_state_get(b, "i", si, NULL), *age = ir_emit_state_get(b, "age", sa, NULL);
  IrVar *age1 = op(b, IR_OP_IADD, 2, (IrVar *[]){age, ir_emit_int(b, 1)});
  ir_emit_state_set(b, sa, age1);
  if (!grid) {
    IrBlock *die = ir_block_new(up, "die"), *live = ir_block_new(up, "live");
    IrVar *odd = op(b, IR_OP_EQ, 2,
                    (IrVar *[]){op(b, IR_OP_IMOD, 2, (IrVar *[]){i, ir_emit_int(b, 2)}), ir_emit_int(b, 1)});
    ir_block_set_branch(b, odd, die, live);
    ir_block_set_exit(die, IR_T_DIE);
    b = live;
  }
  IrBlock *st = ir_block_new(up, "stab"), *go = ir_block_new(up, "go_on");
  ir_block_set_branch(b, op(b, IR_OP_GE, 2, (IrVar *[]){age1, ir_emit_int(b, 2)}), st, go);
  IrVar *ri = op(st, IR_OP_INT_TO_REAL, 1, &i);
  IrVar *off = ir_emit_global_get(st, "off", goff);
  ir_emit_state_set(st, sx, op(st, IR_LOP_RMUL, 2, (IrVar *[]){off, ri}));
  ir_emit_state_set(st, sv, op(st, IR_OP_TENSOR_CONS, 2, (IrVar *[]){ri, op(st, IR_LOP_RNEG, 1, &ri)}));
  ir_block_set_exit(st, IR_T_STABILIZE);
  ir_block_set_exit(go, IR_T_CONTINUE);

  IrCFG *sb = ir_cfg_new(m, IR_CFG_STABILIZE, "stabilize");
  b = sb->entry;
  IrVar *x = ir_emit_state_get(b, "x", sx, NULL);
  ir_emit_state_set(b, sx, op(b, IR_LOP_RADD, 2, (IrVar *[]){x, ir_emit_real(b, 0.5)}));
  ir_block_set_return(b, NULL);

  IrCFG *cr = ir_cfg_new(m, IR_CFG_CREATE, "create");
  IrBlock *e = cr->entry, *h = ir_block_new(cr, "header"), *body = ir_block_new(cr, "body"),
          *x2 = ir_block_new(cr, "exit");
  IrVar *n = ir_emit_global_get(e, "n", gn), *zero = ir_emit_int(e, 0), *one = ir_emit_int(e, 1);
  if (grid) ir_emit_effect(e, IR_OP_CREATE_GRID, 2, (IrVar *[]){n, zero}, 0, NULL);
  ir_block_set_jump(e, h);
  IrVar *kk = ir_phi_new(h, "k", ti);
  ir_block_set_branch(h, op(h, IR_OP_LT, 2, (IrVar *[]){kk, n}), body, x2);
  ir_emit_effect(body, IR_OP_NEW, 1, &kk, 0, NULL);
  IrVar *k1 = op(body, IR_OP_IADD, 2, (IrVar *[]){kk, one});
  ir_block_set_jump(body, h);
  ir_phi_set(kk->def, e, zero);
  ir_phi_set(kk->def, body, k1);
  ir_block_set_return(x2, NULL);
  IrCheck chk = {0};
  chk.out = stderr;
  CHECK(ir_check_module(m, &chk) == 0);
  return m;
}

static int run_cmd(const char *cmd) {
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Load a float NRRD; returns its element count (0 on error). */
static size_t load_floats(const char *file, float *out, size_t max, unsigned *dim, size_t *sizes) {
  Nrrd *n = nrrdNew();
  size_t cnt = 0;
  if (!nrrdLoad(n, file, NULL) && n->type == nrrdTypeFloat) {
    cnt = nrrdElementNumber(n);
    if (cnt > max) cnt = max;
    memcpy(out, n->data, cnt * sizeof *out);
    *dim = n->dim;
    for (unsigned i = 0; i < n->dim && i < 4; i++) sizes[i] = n->axis[i].size;
  } else {
    char *err = biffGetDone(NRRD);
    free(err);
  }
  nrrdNuke(n);
  return cnt;
}

static void test_exec(bool grid, EmitTarget target) {
  Arena *a = arena_new();
  IrModule *m = build_program(a, grid);
  EmitOptions opt = {.exec = true, .target = target, .name = "prog", .source = "test"};
  const char *text = NULL;
  char err[256] = "";
  bool ok = emit_c_program(a, m, &opt, &text, NULL, err, sizeof err);
  CHECK_MSG(ok, "%s", err);
  if (!ok) {
    arena_free(a);
    return;
  }
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/test_emit_%d_prog", (int)getpid());
  run_cmd(arena_printf(a, "mkdir -p %s", dir));
  const char *cfile = arena_printf(a, "%s/prog.c", dir), *exe = arena_printf(a, "%s/prog", dir);
  FILE *f = fopen(cfile, "w");
  fputs(text, f);
  fclose(f);
  CcRequest req = {.env = test_cc_env(), .c_file = cfile, .out_file = exe, .kind = CC_EXEC,
                   .openmp = target == EMIT_TARGET_OMP};
  ok = cc_compile(a, &req, NULL);
  CHECK_MSG(ok, "generated program kept in %s", cfile);
  if (ok) {
    CHECK(run_cmd(arena_printf(a, "cd %s && ./prog -scale 3 -num 4 > out.txt 2>&1", dir)) == 0);
    float x[16], v[32];
    unsigned dim = 0;
    size_t sz[4] = {0};
    size_t nx = load_floats(arena_printf(a, "%s/x.nrrd", dir), x, 16, &dim, sz);
    int want_n = grid ? 4 : 2;
    CHECK(nx == (size_t)want_n && dim == 1 && sz[0] == (size_t)want_n);
    for (int j = 0; j < want_n && j < (int)nx; j++) {
      int ii = grid ? j : 2 * j;
      CHECK_NEAR(x[j], 4.0 * ii + 0.5, 0);
    }
    size_t nv = load_floats(arena_printf(a, "%s/v.nrrd", dir), v, 32, &dim, sz);
    CHECK(nv == (size_t)(2 * want_n) && dim == 2 && sz[0] == 2);
    for (int j = 0; j < want_n && 2 * j + 1 < (int)nv; j++) {
      int ii = grid ? j : 2 * j;
      CHECK(v[2 * j] == ii && v[2 * j + 1] == -ii);
    }
    /* defaults: n = 5, scale = 2 → x_4 = 3·4 + 0.5 (grid) */
    CHECK(run_cmd(arena_printf(a, "cd %s && ./prog -o-x d.nrrd > out.txt 2>&1", dir)) == 0);
    nx = load_floats(arena_printf(a, "%s/d.nrrd", dir), x, 16, &dim, sz);
    CHECK(nx == (grid ? 5u : 3u));
    if (nx >= 3) CHECK_NEAR(x[nx - 1], 3.0 * (grid ? 4 : 4) + 0.5, 0);
    /* one step: nothing stable → exit 1 and no output (§6.4) */
    CHECK(run_cmd(arena_printf(a, "cd %s && ./prog -l 1 -o-x l.nrrd 2> err.txt", dir)) == 1);
    CHECK(run_cmd(arena_printf(a, "grep -q 'no stable strands' %s/err.txt", dir)) == 0);
    CHECK(access(arena_printf(a, "%s/l.nrrd", dir), F_OK) != 0);
    /* usage: -h exits 0 and names the inputs (hest's synopsis); --help adds
     * the glossary with each description and default */
    CHECK(run_cmd(arena_printf(a, "cd %s && ./prog -h > h.txt", dir)) == 0);
    CHECK(run_cmd(arena_printf(a, "grep -q -- '-num' %s/h.txt && grep -q -- '-scale' %s/h.txt", dir, dir)) == 0);
    CHECK(run_cmd(arena_printf(a, "cd %s && ./prog --help > h.txt", dir)) == 0);
    CHECK(run_cmd(arena_printf(a, "grep -q 'count (int); default: \"5\"' %s/h.txt", dir)) == 0);
    CHECK(run_cmd(arena_printf(a, "cd %s && ./prog -bogus 2> /dev/null", dir)) == 2);
  }
  if (!getenv("TEST_EMIT_KEEP")) run_cmd(arena_printf(a, "rm -rf %s", dir));
  arena_free(a);
}

/* The library: NAME.h + NAME.o (runtime merged in), driven through the
 * API of §7.3 by a small C client. */
static void test_library(void) {
  Arena *a = arena_new();
  IrModule *m = build_program(a, false);
  EmitOptions opt = {.ns = "Tst", .name = "lib", .source = "test"};
  const char *text = NULL, *hdr = NULL, *js = NULL;
  char err[256] = "";
  CHECK(emit_c_program(a, m, &opt, &text, NULL, err, sizeof err));
  CHECK(emit_c_header(a, m, &opt, &hdr));
  CHECK(emit_c_json(a, m, &opt, &js));
  if (!text || !hdr) {
    arena_free(a);
    return;
  }
  CHECK(strstr(hdr, "bool Tst_input_set_num(Tst_world_t *w, int32_t v);") != NULL);
  CHECK(strstr(hdr, "bool Tst_output_get_x(Tst_world_t *w, Nrrd *data);") != NULL);
  CHECK(strstr(js, "\"Tst_input_set_scale\"") != NULL);
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/test_emit_%d_lib", (int)getpid());
  run_cmd(arena_printf(a, "mkdir -p %s", dir));
  FILE *f = fopen(arena_printf(a, "%s/lib.c", dir), "w");
  fputs(text, f);
  fclose(f);
  f = fopen(arena_printf(a, "%s/lib.h", dir), "w");
  fputs(hdr, f);
  fclose(f);
  f = fopen(arena_printf(a, "%s/client.c", dir), "w");
  fputs("#include <stdio.h>\n#include <stdlib.h>\n#include \"lib.h\"\n"
        "int main(void) {\n"
        "  Tst_world_t *w = Tst_new_world();\n"
        "  if (Tst_run(w, 1) != 0 || !Tst_any_errors(w)) return 10;\n"
        "  free(Tst_get_errors(w));\n"
        "  if (Tst_create_strands(w)) { free(Tst_get_errors(w)); } else return 11;\n"
        "  if (Tst_init_world(w)) return 12;\n"
        "  if (!Tst_init_world(w)) return 13;\n"
        "  free(Tst_get_errors(w));\n"
        "  int32_t n; Tst_input_get_num(w, &n); if (n != 5) return 14;\n"
        "  Tst_input_set_num(w, 7); Tst_input_set_scale(w, 1.0f);\n"
        "  if (Tst_create_strands(w)) { char *e = Tst_get_errors(w); fputs(e, stderr); return 15; }\n"
        "  if (Tst_num_active_strands(w) != 7) return 16;\n"
        "  if (Tst_run(w, 0) != 2) return 17;\n"
        "  if (Tst_num_stable_strands(w) != 4 || Tst_num_strands(w) != 4) return 18;\n"
        "  Nrrd *nx = nrrdNew();\n"
        "  if (Tst_output_get_x(w, nx)) return 19;\n"
        "  const float *x = nx->data;\n"
        "  for (int j = 0; j < 4; j++) if (x[j] != 2.0f * (2 * j) + 0.5f) return 20 + j;\n"
        "  nrrdNuke(nx);\n  Tst_shutdown(w);\n  return 0;\n}\n", f);
  fclose(f);
  CcRequest req = {.env = test_cc_env(), .c_file = arena_printf(a, "%s/lib.c", dir), .out_file = arena_printf(a, "%s/lib.o", dir),
                   .kind = CC_OBJECT};
  bool ok = cc_compile(a, &req, NULL);
  CHECK(ok);
  if (ok) {
    /* CFLAGS_DIDEROT_EXTRA: the sanitizers of scripts/check-asan.sh (cc.h) */
    const char *extra = getenv("CFLAGS_DIDEROT_EXTRA");
    CHECK(run_cmd(arena_printf(a, "cd %s && gcc -std=c11 %s client.c lib.o -lteem -lm -o client", dir,
                               extra ? extra : "")) == 0);
    int st = run_cmd(arena_printf(a, "cd %s && ./client", dir));
    CHECK_MSG(st == 0, "library client exit status %d", st);
  }
  if (!getenv("TEST_EMIT_KEEP")) run_cmd(arena_printf(a, "rm -rf %s", dir));
  arena_free(a);
}

int main(void) {
  test_exec(true, EMIT_TARGET_SEQ);
  test_exec(false, EMIT_TARGET_SEQ);
  test_exec(true, EMIT_TARGET_OMP);
  test_exec(false, EMIT_TARGET_OMP);
  test_library();
  for (int s = 0; s < 2; s++)
    for (int d = 0; d < 2; d++) run_mode(s, d);
  test_refusal();
  return unit_finish("emit");
}
