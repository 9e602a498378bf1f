/* test_ir.c -- the SSA/CFG IR: types, operator tables and their rules,
 * construction and editing, the checker (accepts well-formed CFGs and
 * rejects each kind of broken one), DCE, value numbering and the printer.
 *
 * CFGs are built by hand; expected results are derived by hand from the
 * definitions (dominance, liveness, equal expressions) and from the spec
 * (doc/language.md §4.1 type syntax, §6.3 probe shapes).
 */
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "unit.h"

/* ---- helpers ------------------------------------------------------------------------- */

static int check_errors(IrCFG *cfg, IrCheck *chk) {
  memset(chk, 0, sizeof *chk);
  return ir_check_cfg(cfg, chk);
}

/* Exactly one kind of error, and the first message mentions `frag`. */
#define CHECK_REJECT(cfg, kind, frag)                                                 \
  do {                                                                                \
    IrCheck chk_;                                                                     \
    int n_ = check_errors((cfg), &chk_);                                              \
    CHECK_MSG(n_ >= 1, "expected an error of kind %d", (int)(kind));                  \
    CHECK_MSG(chk_.kinds == (1u << (kind)), "kinds 0x%x, want 0x%x (%s)", chk_.kinds, \
              1u << (kind), chk_.first);                                              \
    CHECK_MSG(strstr(chk_.first, (frag)) != NULL, "message \"%s\" lacks \"%s\"",      \
              chk_.first, (frag));                                                    \
  } while (0)

#define CHECK_ACCEPT(cfg)                                                \
  do {                                                                   \
    IrCheck chk_;                                                        \
    int n_ = check_errors((cfg), &chk_);                                 \
    CHECK_MSG(n_ == 0, "%d errors, first: %s", n_, chk_.first);          \
  } while (0)

static IrInstr *op_instr(IrCFG *cfg, IrBlock *b, IrVar *dst, int op, int nargs, IrVar **args) {
  IrInstr *in = ir_instr_new(cfg, IR_I_OP, dst, nargs, args);
  in->op = op;
  ir_block_append(b, in);
  return in;
}

static bool has_instr(const IrBlock *b, const IrVar *dst) {
  for (int i = 0; i < b->ninstrs; i++)
    if (b->instrs[i]->dst == dst) return true;
  for (int i = 0; i < b->nphis; i++)
    if (b->phis[i]->dst == dst) return true;
  return false;
}

static char *type_s(Arena *a, const IrType *t) { return ir_type_str(a, t); }

/* ---- types ------------------------------------------------------------------------------ */

static void test_types(void) {
  Arena *a = arena_new();
  IrModule *m = ir_module_new(a, IR_HIGH);
  int d33[] = {3, 3}, d13[] = {1, 3}, d3[] = {3}, d1[] = {1}, d11[] = {1, 1};
  const IrType *m33 = ir_type_tensor(m, 2, d33);
  CHECK(m33 == ir_type_tensor(m, 2, d33)); /* interned */
  /* §3.1: axes of size 1 are dropped */
  CHECK(ir_type_tensor(m, 2, d13) == ir_type_tensor(m, 1, d3));
  CHECK(ir_type_tensor(m, 1, d1) == ir_type_real(m));
  CHECK(ir_type_tensor(m, 2, d11) == ir_type_real(m));
  CHECK(ir_type_is_real(ir_type_tensor(m, 0, NULL)));
  CHECK(ir_type_tensor(m, 2, (int[]){3, 0}) == NULL);
  CHECK(ir_type_image(m, 4, 0, NULL) == NULL);
  CHECK(ir_type_vec(m, 0) == NULL);

  CHECK_STR(type_s(a, m33), "tensor[3,3]");
  CHECK_STR(type_s(a, ir_type_real(m)), "real");
  CHECK_STR(type_s(a, ir_type_seq(m, ir_type_int(m), 3)), "int[3]");
  CHECK_STR(type_s(a, ir_type_seq(m, ir_type_tensor(m, 1, d3), IR_SEQ_DYNAMIC)), "tensor[3][]");
  CHECK_STR(type_s(a, ir_type_image(m, 3, 0, NULL)), "image(3)[]");
  CHECK_STR(type_s(a, ir_type_image(m, 2, 1, (int[]){2})), "image(2)[2]");
  CHECK_STR(type_s(a, ir_type_field(m, 2, 3, 1, d3)), "field#2(3)[3]");
  CHECK_STR(type_s(a, ir_type_field(m, IR_CONT_INF, 2, 0, NULL)), "field(2)[]");
  CHECK_STR(type_s(a, ir_type_kernel(m, 1)), "kernel#1");
  CHECK_STR(type_s(a, ir_type_vec(m, 4)), "vec<4>");
  CHECK_STR(type_s(a, ir_type_strand(m, "Ray")), "Ray");
  CHECK_STR(type_s(a, ir_type_bool(m)), "bool");
  CHECK_STR(type_s(a, ir_type_string(m)), "string");

  /* levels: fields only in HighIR, kernels not in LowIR, vectors only there */
  const IrType *f = ir_type_field(m, 1, 2, 0, NULL);
  CHECK(ir_type_allowed(IR_HIGH, f) && !ir_type_allowed(IR_MID, f) && !ir_type_allowed(IR_LOW, f));
  const IrType *k = ir_type_kernel(m, 2);
  CHECK(ir_type_allowed(IR_MID, k) && !ir_type_allowed(IR_LOW, k));
  const IrType *v = ir_type_vec(m, 8);
  CHECK(ir_type_allowed(IR_LOW, v) && !ir_type_allowed(IR_HIGH, v));
  CHECK(!ir_type_allowed(IR_MID, ir_type_seq(m, f, 2)));
  /* value types (§3.1) */
  CHECK(ir_type_is_value(ir_type_seq(m, m33, IR_SEQ_DYNAMIC)));
  CHECK(!ir_type_is_value(ir_type_seq(m, ir_type_seq(m, ir_type_int(m), IR_SEQ_DYNAMIC),
                                      IR_SEQ_DYNAMIC)));
  CHECK(!ir_type_is_value(f) && !ir_type_is_value(ir_type_image(m, 2, 0, NULL)));

  /* a module at the next level shares the type table */
  IrModule *mid = ir_module_next_level(m, IR_MID);
  CHECK(ir_type_tensor(mid, 2, d33) == m33);
  arena_free(a);
}

/* ---- operator tables ------------------------------------------------------------------ */

static void test_tables(void) {
  /* the common operators have the same number at every level */
  CHECK(ir_op_lookup(IR_HIGH, "iadd") == IR_OP_IADD);
  CHECK(ir_op_lookup(IR_MID, "iadd") == IR_OP_IADD);
  CHECK(ir_op_lookup(IR_LOW, "iadd") == IR_OP_IADD);
  CHECK(ir_op_lookup(IR_LOW, "print") == IR_OP_PRINT);
  CHECK(ir_op_lookup(IR_HIGH, "ein") == IR_HOP_EIN && ir_op_ein(IR_HIGH) == IR_HOP_EIN);
  CHECK(ir_op_lookup(IR_MID, "ein") == IR_MOP_EIN && ir_op_ein(IR_MID) == IR_MOP_EIN);
  CHECK(ir_op_lookup(IR_LOW, "ein") == -1 && ir_op_ein(IR_LOW) == -1);
  /* fields are gone below HighIR, vectors appear in LowIR */
  CHECK(ir_op_lookup(IR_HIGH, "convolve") >= 0 && ir_op_lookup(IR_MID, "convolve") < 0);
  CHECK(ir_op_lookup(IR_MID, "load_voxels") >= 0 && ir_op_lookup(IR_HIGH, "load_voxels") < 0);
  CHECK(ir_op_lookup(IR_LOW, "vadd") >= 0 && ir_op_lookup(IR_MID, "vadd") < 0);
  CHECK(ir_op_lookup(IR_LOW, "horner") == IR_LOP_HORNER);
  CHECK(ir_op_lookup(IR_HIGH, "no_such_op") == -1);
  CHECK(ir_op_info(IR_HIGH, -1) == NULL && ir_op_info(IR_HIGH, IR_HOP_COUNT) == NULL);
  CHECK(ir_op_count(IR_LOW) == IR_LOP_COUNT);

  const IrOpInfo *i = ir_op_info(IR_HIGH, IR_OP_IADD);
  CHECK(i->arity == 2 && (i->flags & IR_OPF_PURE) && (i->flags & IR_OPF_COMM));
  i = ir_op_info(IR_HIGH, IR_OP_ISUB);
  CHECK(!(i->flags & IR_OPF_COMM));
  i = ir_op_info(IR_MID, IR_OP_PRINT);
  CHECK(i->arity == IR_VARIADIC && (i->flags & IR_OPF_EFFECT) && !(i->flags & IR_OPF_PURE));
  i = ir_op_info(IR_HIGH, IR_OP_NUM_ACTIVE);
  CHECK((i->flags & IR_OPF_READ) && !(i->flags & IR_OPF_PURE));
  /* every entry has a name and a known rule, names unique per level */
  for (int lv = IR_HIGH; lv <= IR_LOW; lv++)
    for (int op = 0; op < ir_op_count((IrLevel)lv); op++) {
      const IrOpInfo *e = ir_op_info((IrLevel)lv, op);
      CHECK(e && e->name && e->rule < IR_RULE_COUNT);
      CHECK(ir_op_lookup((IrLevel)lv, e->name) == op);
      unsigned kinds = e->flags & (IR_OPF_PURE | IR_OPF_READ | IR_OPF_EFFECT);
      CHECK(kinds == IR_OPF_PURE || kinds == IR_OPF_READ || kinds == IR_OPF_EFFECT);
    }
}

/* ---- type rules through ir_emit ------------------------------------------------------------ */

static void test_rules_high(void) {
  Arena *a = arena_new();
  IrModule *m = ir_module_new(a, IR_HIGH);
  ir_module_set_strand(m, "P");
  IrCFG *cfg = ir_cfg_new(m, IR_CFG_UPDATE, NULL);
  IrBlock *b = cfg->entry;
  int d3[] = {3}, d33[] = {3, 3}, d23[] = {2, 3};
  IrVar *x = ir_cfg_add_param(cfg, "x", ir_type_tensor(m, 1, d3));
  IrVar *mat = ir_cfg_add_param(cfg, "M", ir_type_tensor(m, 2, d33));
  IrVar *img = ir_cfg_add_param(cfg, "img", ir_type_image(m, 3, 0, NULL));
  IrVar *r = ir_cfg_add_param(cfg, "r", ir_type_real(m));
  IrVar *i = ir_cfg_add_param(cfg, "i", ir_type_int(m));
  IrVar *h = ir_emit_kernel(b, kernel_lookup("bspln3"), 2);
  CHECK(h && h->ty == ir_type_kernel(m, 2));

  /* img ⊛ h : field#2(3)[] (§4.3, §3.7) */
  IrVar *F = ir_emit2(b, IR_HOP_CONVOLVE, img, h);
  CHECK(F && F->ty == ir_type_field(m, 2, 3, 0, NULL));
  IrVar *in = ir_emit2(b, IR_HOP_INSIDE, x, F);
  CHECK(in && in->ty == ir_type_bool(m));
  CHECK(ir_emit2(b, IR_HOP_INSIDE, r, F) == NULL); /* 1-D position for a 3-D field */
  /* evals/evecs of mat3 (§4.4) */
  IrVar *ev = ir_emit1(b, IR_OP_EVALS, mat);
  CHECK(ev && ev->ty == ir_type_seq(m, ir_type_real(m), 3));
  IrVar *evec = ir_emit1(b, IR_OP_EVECS, mat);
  CHECK(evec && evec->ty == ir_type_seq(m, ir_type_tensor(m, 1, d3), 3));
  CHECK(ir_emit1(b, IR_OP_EVALS, x) == NULL);
  /* size(img) : int[3] */
  IrVar *sz = ir_emit1(b, IR_OP_IMAGE_SIZE, img);
  CHECK(sz && sz->ty == ir_type_seq(m, ir_type_int(m), 3));
  /* [x, x] : tensor[2,3]; t[1] of it : tensor[3]; t[1,2] : real */
  IrVar *tc = ir_emit2(b, IR_OP_TENSOR_CONS, x, x);
  CHECK(tc && tc->ty == ir_type_tensor(m, 2, d23));
  IrVar *ti = ir_emit_op(b, NULL, IR_OP_TENSOR_INDEX, NULL, 1, &tc, 1, (int[]){1});
  CHECK(ti && ti->ty == ir_type_tensor(m, 1, d3));
  IrVar *tr = ir_emit_op(b, NULL, IR_OP_TENSOR_INDEX, NULL, 1, &tc, 2, (int[]){1, 2});
  CHECK(tr && ir_type_is_real(tr->ty));
  CHECK(ir_emit_op(b, NULL, IR_OP_TENSOR_INDEX, NULL, 1, &tc, 2, (int[]){2, 0}) == NULL);
  /* sequences */
  IrVar *lo = ir_emit_int(b, 0);
  IrVar *rg = ir_emit2(b, IR_OP_RANGE, lo, i);
  CHECK(rg && rg->ty == ir_type_seq(m, ir_type_int(m), IR_SEQ_DYNAMIC));
  IrVar *ap = ir_emit2(b, IR_OP_SEQ_APPEND, sz, i);
  CHECK(ap && ap->ty == rg->ty); /* int[3] @ int : int[] */
  CHECK(ir_emit2(b, IR_OP_SEQ_APPEND, sz, r) == NULL);
  IrVar *sm = ir_emit1(b, IR_OP_RED_SUM, rg);
  CHECK(sm && sm->ty == ir_type_int(m));
  CHECK(ir_emit1(b, IR_OP_RED_MEAN, rg) == NULL); /* mean needs real[] (§4.9) */
  IrVar *e3[3] = {r, r, r};
  IrVar *sq = ir_emit(b, IR_OP_SEQ_CONS, 3, e3);
  CHECK(sq && sq->ty == ir_type_seq(m, ir_type_real(m), 3));
  CHECK(ir_emit(b, IR_OP_SEQ_CONS, 0, NULL) == NULL); /* {} needs its type */
  IrVar *empty =
      ir_emit_op(b, NULL, IR_OP_SEQ_CONS, ir_type_seq(m, ir_type_int(m), 0), 0, NULL, 0, NULL);
  CHECK(empty != NULL);
  /* comparisons: no tensor ordering, string equality allowed (§4.2) */
  CHECK(ir_emit2(b, IR_OP_LT, x, x) == NULL);
  IrVar *s1 = ir_emit_string(b, "x");
  CHECK(ir_emit2(b, IR_OP_EQ, s1, s1) != NULL);
  CHECK(ir_emit2(b, IR_OP_LT, s1, s1) == NULL);
  CHECK(ir_emit2(b, IR_OP_MIN, i, r) == NULL);
  /* spatial queries need a strand (set above) */
  IrVar *sp = ir_emit1(b, IR_OP_SPHERE, r);
  CHECK(sp && sp->ty == ir_type_seq(m, ir_type_strand(m, "P"), IR_SEQ_DYNAMIC));
  CHECK(ir_emit2(b, IR_OP_SPHERE_AT, x, r) != NULL);
  /* load_image needs the type given */
  IrVar *fn = ir_emit_string(b, "f.nrrd");
  CHECK(ir_emit1(b, IR_OP_LOAD_IMAGE, fn) == NULL);
  IrVar *li = ir_emit_op(b, NULL, IR_OP_LOAD_IMAGE, img->ty, 1, &fn, 0, NULL);
  CHECK(li && li->ty == img->ty);
  /* effect-only operators */
  CHECK(ir_emit_effect(b, IR_OP_PRINT, 2, (IrVar *[]){x, s1}, 0, NULL) != NULL);
  CHECK(ir_emit_effect(b, IR_OP_PRINT, 1, &F, 0, NULL) == NULL); /* fields are not values */
  CHECK(ir_emit(b, IR_OP_PRINT, 1, &x) == NULL);                  /* has no result */

  /* EIN: the dot product λT0,T1⟨Σ_k T0[k] T1[k]⟩ on tensor[3] × tensor[3] */
  EinContext *ec = ein_context_new(a);
  EinParam pv[2] = {ein_param_tensor(1, d3), ein_param_tensor(1, d3)};
  EinIdx k = ein_ivar(0);
  const EinExpr *body =
      ein_sum1(ec, 0, 0, 2, ein_mul2(ec, ein_tensor(ec, 0, 1, &k), ein_tensor(ec, 1, 1, &k)));
  const EinOp *dot = ein_op_new(ec, 2, pv, 0, NULL, body);
  IrVar *dv = ir_emit_ein(b, "d", dot, NULL, 2, (IrVar *[]){x, x});
  CHECK(dv && ir_type_is_real(dv->ty));
  CHECK(ir_emit_ein(b, "d", dot, NULL, 2, (IrVar *[]){x, r}) == NULL);
  CHECK(ir_emit_ein(b, "d", dot, NULL, 1, &x) == NULL);
  /* ∇F on a scalar 3-D field: λF0⟨∂_i F0⟩_{i:3}, field#1(3)[3] given */
  EinParam pf = ein_param_field(3, 0, NULL);
  EinIdx iv = ein_ivar(0);
  const EinOp *grad = ein_op_new(ec, 1, &pf, 1, d3, ein_diff(ec, iv, ein_field(ec, 0, 0, NULL)));
  const IrType *gty = ir_type_field(m, 1, 3, 1, d3);
  IrVar *gF = ir_emit_ein(b, "g", grad, gty, 1, &F);
  CHECK(gF && gF->ty == gty);
  CHECK(ir_emit_ein(b, "g", grad, ir_type_field(m, 1, 2, 1, d3), 1, &F) == NULL);

  ir_block_set_exit(b, IR_T_CONTINUE);
  CHECK_ACCEPT(cfg);
  arena_free(a);
}

static void test_rules_mid_low(void) {
  Arena *a = arena_new();
  IrModule *m = ir_module_new(a, IR_MID);
  IrCFG *cfg = ir_cfg_new(m, IR_CFG_FUNC, "probe");
  cfg->result = ir_type_real(m);
  IrBlock *b = cfg->entry;
  int d3[] = {3}, d444[] = {4, 4, 4}, d222[] = {2, 2, 2};
  IrVar *img = ir_cfg_add_param(cfg, "img", ir_type_image(m, 3, 0, NULL));
  IrVar *vimg = ir_cfg_add_param(cfg, "vimg", ir_type_image(m, 2, 1, (int[]){2}));
  IrVar *x = ir_cfg_add_param(cfg, "x", ir_type_tensor(m, 1, d3));
  IrVar *h = ir_emit_kernel(b, kernel_lookup("ctmr"), 1);
  /* §8.4: p = W x + t, n = floor(p), f = p - n */
  IrVar *W = ir_emit1(b, IR_MOP_IMG_TRANSFORM, img);
  CHECK(W && W->ty == ir_type_tensor(m, 2, (int[]){3, 3}));
  IrVar *t = ir_emit1(b, IR_MOP_IMG_TRANSLATE, img);
  CHECK(t && t->ty == x->ty);
  IrVar *p = ir_emit2(b, IR_MOP_WORLD_TO_INDEX, img, x);
  CHECK(p && p->ty == x->ty);
  IrVar *fl = ir_emit1(b, IR_MOP_TFLOOR, p);
  IrVar *fr = ir_emit1(b, IR_MOP_TFRACT, p);
  CHECK(fl && fr && fr->ty == x->ty);
  IrVar *n = ir_emit1(b, IR_MOP_REAL_TO_INT, fl);
  CHECK(n && n->ty == ir_type_seq(m, ir_type_int(m), 3));
  /* (2s)^d neighbourhood: ctmr has s = 2, so 4×4×4 for a scalar 3-D image */
  IrVar *vox = ir_emit_op(b, NULL, IR_MOP_LOAD_VOXELS, NULL, 2, (IrVar *[]){img, n}, 2,
                          (int[]){2, IR_BORDER_CLAMP});
  CHECK(vox && vox->ty == ir_type_tensor(m, 3, d444));
  /* tent (s = 1) on a 2-D image of 2-vectors: 2×2 taps × 2 components */
  IrVar *n2 = ir_emit_op(b, NULL, IR_OP_SEQ_CONS, NULL, 2,
                         (IrVar *[]){ir_emit_int(b, 0), ir_emit_int(b, 1)}, 0, NULL);
  IrVar *vv = ir_emit_op(b, NULL, IR_MOP_LOAD_VOXELS, NULL, 2, (IrVar *[]){vimg, n2}, 2,
                         (int[]){1, IR_BORDER_NONE});
  CHECK(vv && vv->ty == ir_type_tensor(m, 3, d222));
  CHECK(ir_emit_op(b, NULL, IR_MOP_LOAD_VOXELS, NULL, 2, (IrVar *[]){img, n2}, 2,
                   (int[]){1, 0}) == NULL); /* int[2] index for a 3-D image */
  CHECK(ir_emit_op(b, NULL, IR_MOP_LOAD_VOXELS, NULL, 2, (IrVar *[]){img, n}, 2,
                   (int[]){4, 0}) == NULL); /* support 4 does not exist */
  /* kernel taps h'(f - i), i = -1..2: tensor[4] */
  IrVar *f0 = ir_emit_op(b, NULL, IR_OP_TENSOR_INDEX, NULL, 1, &fr, 1, (int[]){0});
  IrVar *taps =
      ir_emit_op(b, NULL, IR_MOP_KERNEL_EVAL, NULL, 2, (IrVar *[]){h, f0}, 2, (int[]){1, 2});
  CHECK(taps && taps->ty == ir_type_tensor(m, 1, (int[]){4}));
  IrVar *ins =
      ir_emit_op(b, NULL, IR_MOP_INSIDE_IMAGE, NULL, 2, (IrVar *[]){img, p}, 1, (int[]){2});
  CHECK(ins && ins->ty == ir_type_bool(m));
  /* no convolution at MidIR */
  CHECK(ir_op_lookup(IR_MID, "convolve") < 0);
  ir_block_set_return(b, f0);
  CHECK_ACCEPT(cfg);

  /* LowIR */
  IrModule *lm = ir_module_next_level(m, IR_LOW);
  IrCFG *lc = ir_cfg_new(lm, IR_CFG_FUNC, "low");
  lc->result = ir_type_real(lm);
  IrBlock *lb = lc->entry;
  IrVar *limg = ir_cfg_add_param(lc, "img", ir_type_image(lm, 3, 0, NULL));
  IrVar *off = ir_cfg_add_param(lc, "off", ir_type_int(lm));
  IrVar *fx = ir_cfg_add_param(lc, "f", ir_type_real(lm));
  IrVar *v4 = ir_emit_op(lb, NULL, IR_LOP_VLOAD, NULL, 2, (IrVar *[]){limg, off}, 1, (int[]){4});
  CHECK(v4 && v4->ty == ir_type_vec(lm, 4));
  IrVar *sx = ir_emit_op(lb, NULL, IR_LOP_VSPLAT, NULL, 1, &fx, 1, (int[]){4});
  IrVar *hz = ir_emit(lb, IR_LOP_HORNER, 4, (IrVar *[]){sx, v4, v4, v4});
  CHECK(hz && hz->ty == v4->ty);
  CHECK(ir_emit(lb, IR_LOP_HORNER, 1, &sx) == NULL);
  CHECK(ir_emit(lb, IR_LOP_HORNER, 2, (IrVar *[]){sx, fx}) == NULL);
  IrVar *dt = ir_emit2(lb, IR_LOP_VDOT, hz, v4);
  CHECK(dt && ir_type_is_real(dt->ty));
  IrVar *sl = ir_emit_op(lb, NULL, IR_LOP_VSLICE, NULL, 1, &v4, 2, (int[]){1, 2});
  CHECK(sl && sl->ty == ir_type_vec(lm, 2));
  CHECK(ir_emit_op(lb, NULL, IR_LOP_VSLICE, NULL, 1, &v4, 2, (int[]){3, 2}) == NULL);
  CHECK(ir_emit_op(lb, NULL, IR_LOP_VINDEX, NULL, 1, &v4, 1, (int[]){4}) == NULL);
  IrVar *ld = ir_emit2(lb, IR_LOP_LOAD, limg, off);
  IrVar *ci = ir_emit2(lb, IR_LOP_CLAMP_INDEX, off, off);
  CHECK(ld && ir_type_is_real(ld->ty) && ci && ir_type_is_int(ci->ty));
  IrVar *tv = ir_emit1(lb, IR_LOP_VEC_TO_TENSOR, v4);
  CHECK(tv && tv->ty == ir_type_tensor(lm, 1, (int[]){4}));
  IrVar *sum = ir_emit2(lb, IR_LOP_RADD, dt, ld);
  ir_block_set_return(lb, sum);
  CHECK_ACCEPT(lc);
  arena_free(a);
}

/* ---- well-formed CFGs ------------------------------------------------------------------- */

/* function f(x: real, n: int) -> real: if n < 0 then sqrt(x) else real(n) */
static IrCFG *build_diamond(IrModule *m, IrVar **phi_out) {
  IrCFG *cfg = ir_cfg_new(m, IR_CFG_FUNC, "f");
  cfg->result = ir_type_real(m);
  IrVar *x = ir_cfg_add_param(cfg, "x", ir_type_real(m));
  IrVar *n = ir_cfg_add_param(cfg, "n", ir_type_int(m));
  IrBlock *b0 = cfg->entry;
  IrBlock *b1 = ir_block_new(cfg, "then");
  IrBlock *b2 = ir_block_new(cfg, "else");
  IrBlock *b3 = ir_block_new(cfg, "join");
  IrVar *c = ir_emit_int(b0, 0);
  IrVar *t = ir_emit2(b0, IR_OP_LT, n, c);
  ir_block_set_branch(b0, t, b1, b2);
  IrVar *y = ir_emit1(b1, IR_OP_SQRT, x);
  ir_block_set_jump(b1, b3);
  IrVar *z = ir_emit1(b2, IR_OP_INT_TO_REAL, n);
  ir_block_set_jump(b2, b3);
  IrVar *r = ir_phi_new(b3, "r", ir_type_real(m));
  ir_phi_set(r->def, b1, y);
  ir_phi_set(r->def, b2, z);
  ir_block_set_return(b3, r);
  cfg->exit = b3;
  if (phi_out) *phi_out = r;
  return cfg;
}

static const char *const diamond_text =
    "function f(x#0: real, n#1: int) -> real\n"
    "b0 entry:\n"
    "  c#2: int = 0\n"
    "  t#3: bool = lt(n#1, c#2)\n"
    "  if t#3 then b1 else b2\n"
    "b1 then:  ; preds b0\n"
    "  t#4: real = sqrt(x#0)\n"
    "  jump b3\n"
    "b2 else:  ; preds b0\n"
    "  t#5: real = int_to_real(n#1)\n"
    "  jump b3\n"
    "b3 join:  ; preds b1 b2\n"
    "  r#6: real = phi(b1: t#4, b2: t#5)\n"
    "  return r#6\n";

static void test_diamond(void) {
  Arena *a = arena_new();
  IrModule *m = ir_module_new(a, IR_HIGH);
  IrVar *r;
  IrCFG *cfg = build_diamond(m, &r);
  CHECK_ACCEPT(cfg);
  CHECK_STR(ir_cfg_str(a, cfg, 0), diamond_text);

  /* dominators: b0 dominates everything; neither arm dominates the join */
  CHECK(ir_cfg_compute_dominators(cfg) == 4);
  IrBlock **bl = cfg->blocks;
  CHECK(bl[1]->idom == bl[0] && bl[2]->idom == bl[0] && bl[3]->idom == bl[0]);
  CHECK(bl[0]->idom == NULL);
  CHECK(ir_dominates(bl[0], bl[3]) && ir_dominates(bl[3], bl[3]));
  CHECK(!ir_dominates(bl[1], bl[3]) && !ir_dominates(bl[2], bl[3]) && !ir_dominates(bl[3], bl[0]));
  CHECK(bl[0]->ndomkids == 3);

  /* uses */
  ir_cfg_build_uses(cfg);
  IrVar *x = cfg->params[0], *n = cfg->params[1];
  CHECK(x->nuses == 1 && n->nuses == 2 && r->nuses == 1);
  CHECK(r->uses[0].instr == NULL && r->uses[0].block == bl[3]); /* the return */
  CHECK(x->uses[0].instr && x->uses[0].instr->op == IR_OP_SQRT && x->uses[0].arg == 0);

  /* nothing to remove */
  CHECK(ir_dce_cfg(cfg) == 0);
  CHECK(ir_vn_cfg(cfg) == 0);
  CHECK_STR(ir_cfg_str(a, cfg, 0), diamond_text);
  arena_free(a);
}

/* global_update(): i = 0; while (i < 10) i = i + 1; print(i) */
static void test_loop(void) {
  Arena *a = arena_new();
  IrModule *m = ir_module_new(a, IR_HIGH);
  IrCFG *cfg = ir_cfg_new(m, IR_CFG_GLOBAL_UPDATE, NULL);
  IrBlock *b0 = cfg->entry, *hd = ir_block_new(cfg, "header"), *body = ir_block_new(cfg, "body"),
          *ex = ir_block_new(cfg, "exit");
  IrVar *zero = ir_emit_int(b0, 0), *one = ir_emit_int(b0, 1), *ten = ir_emit_int(b0, 10);
  ir_block_set_jump(b0, hd);
  IrVar *i = ir_phi_new(hd, "i", ir_type_int(m));
  IrVar *c = ir_emit2(hd, IR_OP_LT, i, ten);
  ir_block_set_branch(hd, c, body, ex);
  IrVar *i2 = ir_emit2(body, IR_OP_IADD, i, one);
  ir_block_set_jump(body, hd);
  ir_phi_set(i->def, b0, zero);
  ir_phi_set(i->def, body, i2);
  ir_emit_effect(ex, IR_OP_PRINT, 1, &i, 0, NULL);
  ir_block_set_return(ex, NULL);
  CHECK(hd->npreds == 2 && i->def->nargs == 2);
  CHECK_ACCEPT(cfg);
  ir_cfg_compute_dominators(cfg);
  CHECK(hd->idom == b0 && body->idom == hd && ex->idom == hd);
  CHECK(!ir_dominates(body, hd));

  /* the back edge: i2 is defined in the body and used by the header's phi
   * at the end of the body, which it dominates */
  IrCheck chk;
  CHECK(check_errors(cfg, &chk) == 0);

  /* splitting the body keeps the phi's argument with the edge */
  IrBlock *tail = ir_block_split(body, 0, "tail");
  CHECK(tail && body->term.kind == IR_T_JUMP && body->term.succ[0] == tail);
  CHECK(tail->ninstrs == 1 && body->ninstrs == 0);
  CHECK(ir_block_pred_index(hd, tail) == 1 && i->def->args[1] == i2);
  CHECK_ACCEPT(cfg);
  /* an edge split on the loop exit */
  IrBlock *mid = ir_edge_split(hd, 1);
  CHECK(mid && hd->term.succ[1] == mid && ex->npreds == 1 && ex->preds[0] == mid);
  CHECK_ACCEPT(cfg);
  arena_free(a);
}

/* Edits on a branch whose two edges reach the same block: the phi keeps one
 * argument per edge, in slot order. */
static void test_edges(void) {
  Arena *a = arena_new();
  IrModule *m = ir_module_new(a, IR_HIGH);
  IrGlobal *g = ir_global_new(m, IR_GLOBAL_VAR, "flag", ir_type_bool(m));
  IrCFG *cfg = ir_cfg_new(m, IR_CFG_GLOBAL_UPDATE, NULL);
  IrBlock *b0 = cfg->entry, *b1 = ir_block_new(cfg, "join");
  IrVar *c = ir_emit_global_get(b0, NULL, g);
  IrVar *x = ir_emit_int(b0, 1), *y = ir_emit_int(b0, 2);
  ir_block_set_branch(b0, c, b1, b1);
  IrVar *p = ir_phi_new(b1, "p", ir_type_int(m));
  CHECK(b1->npreds == 2 && p->def->nargs == 2);
  ir_phi_set_arg(p->def, 0, x);
  ir_phi_set_arg(p->def, 1, y);
  ir_emit_effect(b1, IR_OP_PRINT, 1, &p, 0, NULL);
  ir_block_set_return(b1, NULL);
  CHECK_ACCEPT(cfg);

  /* split after the literals: the branch moves to the new block */
  IrBlock *nb = ir_block_split(b0, 3, "br");
  CHECK(b1->npreds == 2 && b1->preds[0] == nb && b1->preds[1] == nb);
  CHECK(p->def->args[0] == x && p->def->args[1] == y);
  CHECK_ACCEPT(cfg);

  /* slot 0 through a new block e */
  IrBlock *e = ir_block_new(cfg, "e");
  ir_block_retarget(nb, 0, e);
  CHECK(b1->npreds == 1 && p->def->nargs == 1 && p->def->args[0] == y);
  ir_block_set_jump(e, b1);
  ir_phi_set(p->def, e, x);
  CHECK_ACCEPT(cfg);
  /* and back: slot 0 is again the first of nb's two entries */
  ir_block_retarget(nb, 0, b1);
  CHECK(b1->npreds == 3 && e->npreds == 0);
  ir_phi_set_arg(p->def, ir_block_pred_index(b1, nb), x);
  CHECK(ir_remove_unreachable(cfg) == 1);
  CHECK(b1->npreds == 2 && b1->preds[0] == nb && b1->preds[1] == nb);
  CHECK(p->def->args[0] == x && p->def->args[1] == y);
  CHECK_ACCEPT(cfg);

  /* an edge split on slot 1 keeps y with its edge */
  IrBlock *mid = ir_edge_split(nb, 1);
  CHECK(b1->preds[0] == nb && b1->preds[1] == mid && p->def->args[1] == y);
  CHECK_ACCEPT(cfg);
  /* folding the branch to slot 1 drops slot 0's edge and x */
  ir_block_branch_to_jump(nb, 1);
  CHECK(nb->term.kind == IR_T_JUMP && nb->term.succ[0] == mid);
  CHECK(b1->npreds == 1 && b1->preds[0] == mid && p->def->nargs == 1 && p->def->args[0] == y);
  CHECK_ACCEPT(cfg);

  /* a phi turned into a copy moves among the instructions */
  ir_instr_set_copy(p->def, y);
  CHECK(b1->nphis == 0 && b1->instrs[0] == p->def && p->def->kind == IR_I_COPY);
  CHECK_ACCEPT(cfg);
  arena_free(a);
}

/* ---- the checker rejects broken CFGs ------------------------------------------------------- */

static void test_reject(void) {
  Arena *a = arena_new();
  IrModule *m = ir_module_new(a, IR_HIGH);
  const IrType *ti = ir_type_int(m), *tr = ir_type_real(m);

  { /* use before def in one block */
    IrCFG *cfg = ir_cfg_new(m, IR_CFG_FUNC, "ubd");
    cfg->result = ti;
    IrVar *x = ir_var_new(cfg, "x", ti), *y = ir_var_new(cfg, "y", ti);
    op_instr(cfg, cfg->entry, y, IR_OP_IADD, 2, (IrVar *[]){x, x});
    IrInstr *lit = ir_instr_new(cfg, IR_I_LIT, x, 0, NULL);
    lit->lit.kind = IR_LIT_INT;
    ir_block_append(cfg->entry, lit);
    ir_block_set_return(cfg->entry, y);
    CHECK_REJECT(cfg, IR_CHK_DOMINANCE, "before its definition");
    /* moving the literal first repairs it */
    ir_instr_remove(lit);
    ir_block_insert(cfg->entry, 0, lit);
    CHECK_ACCEPT(cfg);
  }
  { /* a definition in one arm used at the join */
    IrCFG *cfg = build_diamond(m, NULL);
    IrBlock *b3 = cfg->blocks[3];
    IrVar *y = cfg->blocks[1]->instrs[0]->dst;
    IrVar *u = ir_emit2(b3, IR_OP_POW, y, y);
    CHECK(u != NULL);
    CHECK_REJECT(cfg, IR_CHK_DOMINANCE, "does not dominate");
  }
  { /* a phi argument from the wrong predecessor */
    IrCFG *cfg = build_diamond(m, NULL);
    IrInstr *phi = cfg->blocks[3]->phis[0];
    IrVar *t = phi->args[0];
    phi->args[0] = phi->args[1];
    phi->args[1] = t;
    CHECK_REJECT(cfg, IR_CHK_DOMINANCE, "does not dominate");
  }
  { /* wrong arity */
    IrCFG *cfg = ir_cfg_new(m, IR_CFG_FUNC, "arity");
    cfg->result = ti;
    IrVar *p = ir_cfg_add_param(cfg, "p", ti);
    IrVar *s = ir_var_new(cfg, "s", ti);
    op_instr(cfg, cfg->entry, s, IR_OP_IADD, 3, (IrVar *[]){p, p, p});
    ir_block_set_return(cfg->entry, s);
    CHECK_REJECT(cfg, IR_CHK_ARITY, "iadd: 3 arguments, expected 2");
  }
  { /* wrong argument type */
    IrCFG *cfg = ir_cfg_new(m, IR_CFG_FUNC, "argtype");
    cfg->result = ti;
    IrVar *p = ir_cfg_add_param(cfg, "p", ti), *q = ir_cfg_add_param(cfg, "q", tr);
    IrVar *s = ir_var_new(cfg, "s", ti);
    op_instr(cfg, cfg->entry, s, IR_OP_IADD, 2, (IrVar *[]){p, q});
    ir_block_set_return(cfg->entry, s);
    CHECK_REJECT(cfg, IR_CHK_TYPE, "argument 2 has type real, expected int");
  }
  { /* wrong result type */
    IrCFG *cfg = ir_cfg_new(m, IR_CFG_FUNC, "restype");
    cfg->result = tr;
    IrVar *p = ir_cfg_add_param(cfg, "p", ti);
    IrVar *s = ir_var_new(cfg, "s", tr);
    op_instr(cfg, cfg->entry, s, IR_OP_IADD, 2, (IrVar *[]){p, p});
    ir_block_set_return(cfg->entry, s);
    CHECK_REJECT(cfg, IR_CHK_TYPE, "wrong type");
  }
  { /* phi arity != predecessors */
    IrCFG *cfg = build_diamond(m, NULL);
    cfg->blocks[3]->phis[0]->nargs = 1;
    CHECK_REJECT(cfg, IR_CHK_PHI, "1 arguments for 2 predecessors");
  }
  { /* a phi argument never set */
    IrCFG *cfg = build_diamond(m, NULL);
    cfg->blocks[3]->phis[0]->args[1] = NULL;
    CHECK_REJECT(cfg, IR_CHK_PHI, "argument 1 is missing");
  }
  { /* missing terminator */
    IrCFG *cfg = build_diamond(m, NULL);
    ir_block_clear_term(cfg->blocks[2]);
    /* b2 no longer reaches the join: the join's phi loses that argument */
    CHECK(cfg->blocks[3]->npreds == 1 && cfg->blocks[3]->phis[0]->nargs == 1);
    CHECK_REJECT(cfg, IR_CHK_TERMINATOR, "no terminator");
  }
  { /* two definitions of one variable */
    IrCFG *cfg = ir_cfg_new(m, IR_CFG_FUNC, "twice");
    cfg->result = ti;
    IrVar *p = ir_cfg_add_param(cfg, "p", ti);
    IrVar *s = ir_var_new(cfg, "s", ti);
    op_instr(cfg, cfg->entry, s, IR_OP_IADD, 2, (IrVar *[]){p, p});
    IrInstr *second = op_instr(cfg, cfg->entry, s, IR_OP_IMUL, 2, (IrVar *[]){p, p});
    (void)second;
    ir_block_set_return(cfg->entry, s);
    CHECK_REJECT(cfg, IR_CHK_MULTI_DEF, "defined more than once");
  }
  { /* a variable with no definition */
    IrCFG *cfg = ir_cfg_new(m, IR_CFG_FUNC, "undef");
    cfg->result = ti;
    IrVar *ghost = ir_var_new(cfg, "ghost", ti);
    ir_block_set_return(cfg->entry, ghost);
    CHECK_REJECT(cfg, IR_CHK_UNDEF, "has no definition");
  }
  { /* predecessor lists that disagree with the edges */
    IrCFG *cfg = build_diamond(m, NULL);
    IrBlock *b3 = cfg->blocks[3];
    b3->preds[1] = cfg->blocks[0]; /* b0 does not jump to b3 */
    CHECK(check_errors(cfg, &(IrCheck){0}) > 0);
    IrCheck chk;
    check_errors(cfg, &chk);
    CHECK(chk.kinds & (1u << IR_CHK_EDGE));
  }
  { /* immediates out of range */
    IrCFG *cfg = ir_cfg_new(m, IR_CFG_FUNC, "imm");
    cfg->result = tr;
    IrVar *v = ir_cfg_add_param(cfg, "v", ir_type_tensor(m, 1, (int[]){3}));
    IrVar *s = ir_var_new(cfg, "s", tr);
    IrInstr *in = op_instr(cfg, cfg->entry, s, IR_OP_TENSOR_INDEX, 1, &v);
    ir_instr_set_imm(cfg, in, 1, (int[]){3});
    ir_block_set_return(cfg->entry, s);
    CHECK_REJECT(cfg, IR_CHK_IMM, "index 3 out of range 0..2");
  }
  { /* a state write outside the strand, a strand exit in a function */
    IrModule *sm = ir_module_new(a, IR_HIGH);
    ir_module_set_strand(sm, "S");
    IrStateVar *pos = ir_state_new(sm, "pos", ir_type_real(sm), true);
    IrCFG *cfg = ir_cfg_new(sm, IR_CFG_GLOBAL_START, NULL);
    ir_emit_state_set(cfg->entry, pos, ir_emit_real(cfg->entry, 1.0));
    ir_block_set_return(cfg->entry, NULL);
    CHECK_REJECT(cfg, IR_CHK_PLACEMENT, "strand state pos accessed in global_start");
    IrCFG *fn = ir_cfg_new(sm, IR_CFG_FUNC, "g");
    fn->result = ir_type_real(sm);
    ir_block_set_exit(fn->entry, IR_T_STABILIZE);
    CHECK_REJECT(fn, IR_CHK_PLACEMENT, "strand exit");
    IrCFG *up = ir_cfg_new(sm, IR_CFG_UPDATE, NULL);
    IrGlobal *g = ir_global_new(sm, IR_GLOBAL_VAR, "count", ir_type_int(sm));
    ir_emit_global_set(up->entry, g, ir_emit_int(up->entry, 1));
    ir_block_set_exit(up->entry, IR_T_STABILIZE);
    CHECK_REJECT(up, IR_CHK_PLACEMENT, "assignment to global count in update");
    /* but the update method may read state and stabilize */
    IrCFG *up2 = ir_cfg_new(sm, IR_CFG_UPDATE, NULL);
    IrVar *pv = ir_emit_state_get(up2->entry, NULL, pos, NULL);
    ir_emit_state_set(up2->entry, pos, pv);
    ir_block_set_exit(up2->entry, IR_T_STABILIZE);
    CHECK_ACCEPT(up2);
    /* the error exit of a failed probe: allowed in every unit, even a
     * function with a result (it returns nothing: the run stops) */
    IrCFG *fe = ir_cfg_new(sm, IR_CFG_FUNC, "ge");
    fe->result = ir_type_real(sm);
    ir_block_set_exit(fe->entry, IR_T_ERROR);
    CHECK(fe->entry->term.kind == IR_T_ERROR && ir_block_nsuccs(fe->entry) == 0);
    CHECK_ACCEPT(fe);
    IrCFG *ge = ir_cfg_new(sm, IR_CFG_GLOBAL_START, NULL);
    ir_block_set_exit(ge->entry, IR_T_ERROR);
    CHECK_ACCEPT(ge);
  }
  { /* a field below HighIR, and a HighIR-only operator number */
    IrModule *mm = ir_module_new(a, IR_MID);
    IrCFG *cfg = ir_cfg_new(mm, IR_CFG_FUNC, "lvl");
    cfg->result = ir_type_real(mm);
    ir_cfg_add_param(cfg, "F", ir_type_field(mm, 1, 2, 0, NULL));
    ir_block_set_return(cfg->entry, ir_emit_real(cfg->entry, 0.5));
    CHECK_REJECT(cfg, IR_CHK_LEVEL, "not available at mid level");
    IrCFG *c2 = ir_cfg_new(mm, IR_CFG_FUNC, "op");
    c2->result = ir_type_real(mm);
    IrVar *s = ir_var_new(c2, "s", ir_type_real(mm));
    op_instr(c2, c2->entry, s, IR_MOP_COUNT + 5, 0, NULL);
    ir_block_set_return(c2->entry, s);
    CHECK_REJECT(c2, IR_CHK_LEVEL, "does not exist at mid level");
  }
  { /* a return value outside a function, a branch on an int */
    IrCFG *cfg = ir_cfg_new(m, IR_CFG_GLOBAL_INIT, NULL);
    ir_block_set_return(cfg->entry, ir_emit_int(cfg->entry, 3));
    CHECK_REJECT(cfg, IR_CHK_TERMINATOR, "return with a value");
    IrCFG *c2 = ir_cfg_new(m, IR_CFG_GLOBAL_INIT, NULL);
    IrBlock *t = ir_block_new(c2, NULL);
    ir_block_set_return(t, NULL);
    ir_block_set_branch(c2->entry, ir_emit_int(c2->entry, 1), t, t);
    CHECK_REJECT(c2, IR_CHK_TYPE, "is not bool");
  }
  arena_free(a);
}

/* ---- DCE ----------------------------------------------------------------------------------- */

static void test_dce(void) {
  Arena *a = arena_new();
  IrModule *m = ir_module_new(a, IR_HIGH);
  ir_module_set_strand(m, "S");
  IrGlobal *g = ir_global_new(m, IR_GLOBAL_CONST, "k", ir_type_int(m));
  IrStateVar *st = ir_state_new(m, "v", ir_type_int(m), true);

  { /* straight line: exactly the unneeded effect-free instructions go */
    IrCFG *cfg = ir_cfg_new(m, IR_CFG_UPDATE, NULL);
    IrBlock *b = cfg->entry;
    IrVar *two = ir_emit_int(b, 2), *three = ir_emit_int(b, 3);
    IrVar *s = ir_emit2(b, IR_OP_IADD, two, three);      /* printed */
    IrVar *d = ir_emit2(b, IR_OP_IMUL, two, three);      /* dead */
    IrVar *e = ir_emit1(b, IR_OP_INEG, d);               /* dead, uses d */
    IrVar *na = ir_emit(b, IR_OP_NUM_ACTIVE, 0, NULL);   /* READ, unused: dead */
    IrVar *gk = ir_emit_global_get(b, NULL, g);          /* dead */
    IrVar *sv = ir_emit_state_get(b, NULL, st, NULL);    /* stored back: live */
    IrVar *w = ir_emit2(b, IR_OP_IADD, sv, three);
    ir_emit_state_set(b, st, w);
    ir_emit_effect(b, IR_OP_PRINT, 1, &s, 0, NULL);
    ir_block_set_exit(b, IR_T_CONTINUE);
    CHECK_ACCEPT(cfg);
    CHECK(b->ninstrs == 11);
    CHECK(ir_dce_cfg(cfg) == 4);
    CHECK(b->ninstrs == 7);
    CHECK(has_instr(b, two) && has_instr(b, three) && has_instr(b, s) && has_instr(b, sv) &&
          has_instr(b, w));
    CHECK(!has_instr(b, d) && !has_instr(b, e) && !has_instr(b, na) && !has_instr(b, gk));
    CHECK(b->instrs[5]->kind == IR_I_STATE_SET && b->instrs[6]->op == IR_OP_PRINT);
    CHECK_ACCEPT(cfg);
    CHECK(ir_dce_cfg(cfg) == 0); /* idempotent */
  }
  { /* a loop: acc only feeds itself (a dead phi cycle), i feeds the exit */
    IrCFG *cfg = ir_cfg_new(m, IR_CFG_GLOBAL_UPDATE, NULL);
    IrBlock *b0 = cfg->entry, *hd = ir_block_new(cfg, NULL), *body = ir_block_new(cfg, NULL),
            *ex = ir_block_new(cfg, NULL);
    IrVar *zero = ir_emit_int(b0, 0), *one = ir_emit_int(b0, 1), *ten = ir_emit_int(b0, 10);
    ir_block_set_jump(b0, hd);
    IrVar *i = ir_phi_new(hd, "i", ir_type_int(m));
    IrVar *acc = ir_phi_new(hd, "acc", ir_type_int(m));
    IrVar *c = ir_emit2(hd, IR_OP_LT, i, ten);
    ir_block_set_branch(hd, c, body, ex);
    IrVar *i2 = ir_emit2(body, IR_OP_IADD, i, one);
    IrVar *acc2 = ir_emit2(body, IR_OP_IADD, acc, i);
    ir_block_set_jump(body, hd);
    ir_phi_set(i->def, b0, zero);
    ir_phi_set(i->def, body, i2);
    ir_phi_set(acc->def, b0, zero);
    ir_phi_set(acc->def, body, acc2);
    ir_emit_effect(ex, IR_OP_PRINT, 1, &i, 0, NULL);
    ir_block_set_return(ex, NULL);
    CHECK_ACCEPT(cfg);
    CHECK(ir_dce_cfg(cfg) == 2);
    CHECK(!has_instr(hd, acc) && !has_instr(body, acc2));
    CHECK(has_instr(hd, i) && has_instr(body, i2) && has_instr(hd, c) && has_instr(b0, zero));
    CHECK_ACCEPT(cfg);
  }
  { /* a branch on a literal: the dead arm goes, with its phi argument */
    IrCFG *cfg = ir_cfg_new(m, IR_CFG_GLOBAL_UPDATE, NULL);
    IrBlock *b0 = cfg->entry, *b1 = ir_block_new(cfg, NULL), *b2 = ir_block_new(cfg, NULL),
            *b3 = ir_block_new(cfg, NULL);
    IrVar *t = ir_emit_bool(b0, false);
    ir_block_set_branch(b0, t, b1, b2);
    IrVar *x = ir_emit_int(b1, 1);
    ir_block_set_jump(b1, b3);
    IrVar *y = ir_emit_int(b2, 2);
    ir_block_set_jump(b2, b3);
    IrVar *p = ir_phi_new(b3, "p", ir_type_int(m));
    ir_phi_set(p->def, b1, x);
    ir_phi_set(p->def, b2, y);
    ir_emit_effect(b3, IR_OP_PRINT, 1, &p, 0, NULL);
    ir_block_set_return(b3, NULL);
    CHECK_ACCEPT(cfg);
    /* removed: x (in the unreachable then-arm) and the literal condition */
    CHECK(ir_dce_cfg(cfg) == 2);
    CHECK(cfg->nblocks == 3 && b0->term.kind == IR_T_JUMP && b0->term.succ[0] == b2);
    CHECK(b3->npreds == 1 && b3->preds[0] == b2 && p->def->nargs == 1 && p->def->args[0] == y);
    CHECK(b0->ninstrs == 0);
    CHECK_ACCEPT(cfg);
  }
  { /* unreachable blocks alone */
    IrCFG *cfg = build_diamond(m, NULL);
    IrBlock *orphan = ir_block_new(cfg, "orphan");
    ir_block_set_jump(orphan, cfg->blocks[3]); /* adds a pred (and a NULL phi arg) to the join */
    CHECK(cfg->blocks[3]->npreds == 3);
    CHECK(ir_remove_unreachable(cfg) == 1);
    CHECK(cfg->nblocks == 4 && cfg->blocks[3]->npreds == 2 &&
          cfg->blocks[3]->phis[0]->nargs == 2);
    CHECK_ACCEPT(cfg);
  }
  arena_free(a);
}

/* ---- value numbering ----------------------------------------------------------------------- */

static void test_vn(void) {
  Arena *a = arena_new();
  IrModule *m = ir_module_new(a, IR_HIGH);
  IrCFG *cfg = ir_cfg_new(m, IR_CFG_GLOBAL_UPDATE, NULL);
  IrBlock *b0 = cfg->entry, *b1 = ir_block_new(cfg, NULL), *b2 = ir_block_new(cfg, NULL),
          *b3 = ir_block_new(cfg, NULL);
  IrGlobal *ga = ir_global_new(m, IR_GLOBAL_VAR, "a", ir_type_int(m));
  IrGlobal *gb = ir_global_new(m, IR_GLOBAL_VAR, "b", ir_type_int(m));
  IrVar *av = ir_emit_global_get(b0, NULL, ga);
  IrVar *bv = ir_emit_global_get(b0, NULL, gb);
  IrVar *s1 = ir_emit2(b0, IR_OP_IADD, av, bv);
  IrVar *s2 = ir_emit2(b0, IR_OP_IADD, bv, av);       /* = s1 (commutative) */
  IrVar *d1 = ir_emit2(b0, IR_OP_ISUB, av, bv);
  IrVar *d2 = ir_emit2(b0, IR_OP_ISUB, bv, av);       /* not = d1 */
  IrVar *one1 = ir_emit_int(b0, 1);
  IrVar *one2 = ir_emit_int(b0, 1);                   /* = one1 */
  IrVar *onef = ir_emit_real(b0, 1.0);                /* not an int */
  IrVar *n1 = ir_emit(b0, IR_OP_NUM_ACTIVE, 0, NULL);
  IrVar *n2 = ir_emit(b0, IR_OP_NUM_ACTIVE, 0, NULL); /* READ: never merged */
  IrVar *cp = ir_emit_copy(b0, "cp", s2);             /* = s1 */
  IrVar *u = ir_emit2(b0, IR_OP_IMUL, cp, one2);      /* becomes imul(s1, one1) */
  IrVar *u2 = ir_emit2(b0, IR_OP_IMUL, s1, one1);     /* = u */
  IrVar *c = ir_emit2(b0, IR_OP_LT, av, bv);
  ir_block_set_branch(b0, c, b1, b2);
  IrVar *t1 = ir_emit2(b1, IR_OP_IMUL, av, bv);
  IrVar *w = ir_emit2(b1, IR_OP_IADD, av, bv);        /* = s1: b0 dominates b1 */
  ir_block_set_jump(b1, b3);
  IrVar *t2 = ir_emit2(b2, IR_OP_IMUL, av, bv);       /* not = t1: b1 does not dominate b2 */
  ir_block_set_jump(b2, b3);
  IrVar *p = ir_phi_new(b3, "p", ir_type_int(m));     /* φ(t1, t2): a real merge */
  IrVar *q = ir_phi_new(b3, "q", ir_type_int(m));     /* φ(w, s1) = s1 */
  IrVar *p2 = ir_phi_new(b3, "p2", ir_type_int(m));   /* same arguments as p */
  ir_phi_set(p->def, b1, t1);
  ir_phi_set(p->def, b2, t2);
  ir_phi_set(q->def, b1, w);
  ir_phi_set(q->def, b2, s1);
  ir_phi_set(p2->def, b1, t1);
  ir_phi_set(p2->def, b2, t2);
  IrVar *t3 = ir_emit2(b3, IR_OP_IMUL, av, bv);       /* neither arm dominates b3 */
  IrVar *pargs[] = {u2, n1, n2, d1, d2, p, p2, q, t3, onef};
  IrInstr *pr = ir_emit_effect(b3, IR_OP_PRINT, 10, pargs, 0, NULL);
  ir_block_set_return(b3, NULL);
  CHECK_ACCEPT(cfg);

  /* removed: s2, one2, cp, u2, w (instructions), q, p2 (phis) */
  CHECK(ir_vn_cfg(cfg) == 7);
  CHECK_ACCEPT(cfg);
  CHECK(!has_instr(b0, s2) && !has_instr(b0, one2) && !has_instr(b0, cp) && !has_instr(b0, u2));
  CHECK(!has_instr(b1, w) && !has_instr(b3, q) && !has_instr(b3, p2));
  CHECK(has_instr(b0, d2) && has_instr(b0, n2) && has_instr(b0, onef) && has_instr(b1, t1) &&
        has_instr(b2, t2) && has_instr(b3, t3) && has_instr(b3, p));
  CHECK(u->def->args[0] == s1 && u->def->args[1] == one1);
  IrVar *want[] = {u, n1, n2, d1, d2, p, p, s1, t3, onef};
  for (int i = 0; i < 10; i++) CHECK_MSG(pr->args[i] == want[i], "print argument %d", i);
  CHECK(ir_vn_cfg(cfg) == 0); /* a fixed point */
  arena_free(a);
}

static void test_vn_ein_and_loops(void) {
  Arena *a = arena_new();
  IrModule *m = ir_module_new(a, IR_HIGH);
  IrCFG *cfg = ir_cfg_new(m, IR_CFG_FUNC, "h");
  cfg->result = ir_type_real(m);
  int d3[] = {3};
  IrVar *x = ir_cfg_add_param(cfg, "x", ir_type_tensor(m, 1, d3));
  IrVar *y = ir_cfg_add_param(cfg, "y", ir_type_tensor(m, 1, d3));
  IrVar *n = ir_cfg_add_param(cfg, "n", ir_type_int(m));
  EinContext *ec = ein_context_new(a);
  EinParam pv[2] = {ein_param_tensor(1, d3), ein_param_tensor(1, d3)};
  EinIdx k = ein_ivar(0);
  /* the dot product built twice: hash-consing gives one operator */
  const EinOp *dot1 = ein_op_new(
      ec, 2, pv, 0, NULL,
      ein_sum1(ec, 0, 0, 2, ein_mul2(ec, ein_tensor(ec, 0, 1, &k), ein_tensor(ec, 1, 1, &k))));
  const EinOp *dot2 = ein_op_new(
      ec, 2, pv, 0, NULL,
      ein_sum1(ec, 0, 0, 2, ein_mul2(ec, ein_tensor(ec, 0, 1, &k), ein_tensor(ec, 1, 1, &k))));
  CHECK(dot1 == dot2);
  IrBlock *b0 = cfg->entry, *hd = ir_block_new(cfg, "loop"), *ex = ir_block_new(cfg, "done");
  IrVar *e1 = ir_emit_ein(b0, "e", dot1, NULL, 2, (IrVar *[]){x, y});
  IrVar *e2 = ir_emit_ein(b0, "e", dot2, NULL, 2, (IrVar *[]){x, y}); /* = e1 */
  IrVar *e3 = ir_emit_ein(b0, "e", dot1, NULL, 2, (IrVar *[]){y, x}); /* EIN is not commutative */
  IrVar *zero = ir_emit_int(b0, 0);
  ir_block_set_jump(b0, hd);
  /* r = φ(e1, r): loop-invariant, stands for e1 */
  IrVar *r = ir_phi_new(hd, "r", ir_type_real(m));
  IrVar *i = ir_phi_new(hd, "i", ir_type_int(m));
  IrVar *one = ir_emit_int(hd, 1);
  IrVar *i2 = ir_emit2(hd, IR_OP_IADD, i, one);
  IrVar *c = ir_emit2(hd, IR_OP_LT, i2, n);
  IrVar *e4 = ir_emit_ein(hd, "e", dot1, NULL, 2, (IrVar *[]){x, y}); /* = e1 (b0 dominates) */
  ir_block_set_branch(hd, c, hd, ex);
  ir_phi_set(r->def, b0, e2);
  ir_phi_set(r->def, hd, r);
  ir_phi_set(i->def, b0, zero);
  ir_phi_set(i->def, hd, i2);
  IrVar *sum = ir_emit2(ex, IR_OP_POW, r, e3);
  IrVar *sum2 = ir_emit2(ex, IR_OP_POW, sum, e4);
  ir_block_set_return(ex, sum2);
  CHECK_ACCEPT(cfg);
  /* removed: e2, e4, the phi r */
  CHECK(ir_vn_cfg(cfg) == 3);
  CHECK_ACCEPT(cfg);
  CHECK(!has_instr(b0, e2) && has_instr(b0, e3) && !has_instr(hd, r) && !has_instr(hd, e4));
  CHECK(has_instr(hd, i));
  CHECK(sum->def->args[0] == e1 && sum->def->args[1] == e3 && sum2->def->args[1] == e1);
  IrSize sz = ir_module_size(m);
  CHECK(sz.ein_ops == 2 && sz.blocks == 3 && sz.phis == 1);
  CHECK(sz.ein_nodes == 2 * dot1->body->size);
  /* the printer shows the operator and its arguments */
  char *text = ir_cfg_str(a, cfg, IR_PRINT_ASCII);
  CHECK(strstr(text, "e#") && strstr(text, ": real = ein \\T0,T1<") &&
        strstr(text, ">_{}(x#0, y#1)") && strstr(text, ">_{}(y#1, x#0)"));
  arena_free(a);
}

/* ---- module printing and in-place edits ---------------------------------------------------- */

static void test_module_print(void) {
  Arena *a = arena_new();
  IrModule *m = ir_module_new(a, IR_HIGH);
  ir_module_set_strand(m, "Ray");
  IrGlobal *iso = ir_global_new(m, IR_GLOBAL_INPUT, "isoval", ir_type_real(m));
  iso->desc = "iso\"value";
  iso->has_default = true;
  ir_global_new(m, IR_GLOBAL_VAR, "img", ir_type_image(m, 3, 0, NULL));
  IrStateVar *out = ir_state_new(m, "out", ir_type_real(m), true);
  IrStateVar *t = ir_state_new(m, "t", ir_type_real(m), false);
  t->shared = true;
  IrCFG *up = ir_cfg_new(m, IR_CFG_UPDATE, NULL);
  IrBlock *b = up->entry;
  IrVar *tv = ir_emit_state_get(b, NULL, t, NULL);
  IrVar *iv = ir_emit_global_get(b, NULL, iso);
  IrVar *c = ir_emit2(b, IR_OP_GT, tv, iv);
  IrBlock *st = ir_block_new(up, NULL), *go = ir_block_new(up, NULL);
  ir_block_set_branch(b, c, st, go);
  ir_emit_state_set(st, out, tv);
  ir_block_set_exit(st, IR_T_STABILIZE);
  IrVar *s = ir_emit_string(go, "a\tb\n");
  ir_emit_effect(go, IR_OP_PRINT, 1, &s, 0, NULL);
  ir_block_set_exit(go, IR_T_CONTINUE);
  CHECK(ir_check_module(m, NULL) == 0);
  const char *want =
      "module high strand Ray\n"
      "input real isoval \"iso\\\"value\" (default)\n"
      "global image(3)[] img\n"
      "state output real out\n"
      "state shared real t\n"
      "\n"
      "update()\n"
      "b0 entry:\n"
      "  t#0: real = state t\n"
      "  isoval#1: real = global isoval\n"
      "  t#2: bool = gt(t#0, isoval#1)\n"
      "  if t#2 then b1 else b2\n"
      "b1:  ; preds b0\n"
      "  state out = t#0\n"
      "  stabilize\n"
      "b2:  ; preds b0\n"
      "  c#3: string = \"a\\tb\\n\"\n"
      "  print(c#3)\n"
      "  continue\n";
  CHECK_STR(ir_module_str(a, m, 0), want);

  /* in-place replacement: gt becomes lt, the state read becomes a copy of
   * a literal inserted before it */
  IrInstr *gt = c->def;
  ir_instr_set_op(gt, IR_OP_LT, 2, (IrVar *[]){tv, iv}, 0, NULL);
  IrVar *lit = ir_var_new(up, "k", ir_type_real(m));
  IrInstr *li = ir_instr_new(up, IR_I_LIT, lit, 0, NULL);
  li->lit.kind = IR_LIT_REAL;
  li->lit.r = 2.0;
  ir_block_insert(b, 0, li);
  ir_instr_set_copy(tv->def, lit);
  CHECK(ir_instr_index(li) == 0 && ir_instr_index(tv->def) == 1);
  CHECK_ACCEPT(up);
  const char *want2 =
      "update()\n"
      "b0 entry:\n"
      "  k#4: real = 2.0\n"
      "  t#0: real = k#4\n"
      "  isoval#1: real = global isoval\n"
      "  t#2: bool = lt(t#0, isoval#1)\n"
      "  if t#2 then b1 else b2\n";
  CHECK(strncmp(ir_cfg_str(a, up, 0), want2, strlen(want2)) == 0);
  /* value numbering forwards the copy */
  CHECK(ir_vn_cfg(up) == 1);
  CHECK(c->def->args[0] == lit && st->instrs[0]->args[0] == lit);
  CHECK_ACCEPT(up);
  arena_free(a);
}

/* Construction calls with bad input never crash. */
static void test_robust(void) {
  Arena *a = arena_new();
  IrModule *m = ir_module_new(a, IR_LOW);
  IrCFG *cfg = ir_cfg_new(m, IR_CFG_FUNC, "r");
  IrBlock *b = cfg->entry;
  CHECK(ir_emit(b, IR_OP_IADD, 2, (IrVar *[]){NULL, NULL}) == NULL);
  CHECK(ir_emit(b, -3, 0, NULL) == NULL);
  CHECK(ir_emit(b, IR_LOP_COUNT, 0, NULL) == NULL);
  CHECK(ir_emit_ein(b, NULL, NULL, NULL, 0, NULL) == NULL); /* no EIN at LowIR */
  CHECK(ir_emit_copy(b, NULL, NULL) == NULL);
  CHECK(ir_emit_kernel(b, NULL, 1) == NULL);
  CHECK(b->ninstrs == 0);
  ir_block_set_jump(b, NULL);
  ir_block_retarget(b, 3, b);
  CHECK(ir_edge_split(b, 0) == NULL);
  /* an empty CFG, a CFG without terminators: errors, not crashes */
  IrCheck chk;
  CHECK(check_errors(cfg, &chk) >= 1);
  CHECK(ir_dce_cfg(cfg) == 0 && ir_vn_cfg(cfg) == 0);
  char *s = ir_cfg_str(a, cfg, 0);
  CHECK(strstr(s, "<no terminator>") != NULL);
  IrInstr *bad = ir_instr_new(cfg, IR_I_OP, NULL, 2, NULL);
  bad->op = IR_OP_IADD;
  ir_block_append(b, bad);
  FILE *null = fopen("/dev/null", "w");
  if (null) {
    ir_print_instr(null, bad, 0); /* <null> arguments print, no crash */
    fclose(null);
  }
  CHECK(check_errors(cfg, &chk) >= 2 && (chk.kinds & (1u << IR_CHK_UNDEF)));
  arena_free(a);
}

int main(void) {
  test_types();
  test_tables();
  test_rules_high();
  test_rules_mid_low();
  test_diamond();
  test_loop();
  test_edges();
  test_reject();
  test_dce();
  test_vn();
  test_vn_ein_and_loops();
  test_module_print();
  test_robust();
  return unit_finish("ir");
}
