/* test_ir_dom.c -- the cached dominator tree (IrCFG.dom_valid): reused while
 * the CFG is unchanged, recomputed after an edit through ir.c, and a stale
 * cache (an edit that did not clear it) reported by the IR checker. */
#include <string.h>

#include "ir/ir.h"
#include "unit.h"

/* b0: branch n < 0 to b1 / b2; both jump to b3, which returns a phi. */
static IrCFG *diamond(IrModule *m, IrBlock **bl) {
  IrCFG *cfg = ir_cfg_new(m, IR_CFG_FUNC, "f");
  cfg->result = ir_type_real(m);
  IrVar *x = ir_cfg_add_param(cfg, "x", ir_type_real(m));
  IrVar *n = ir_cfg_add_param(cfg, "n", ir_type_int(m));
  bl[0] = cfg->entry;
  bl[1] = ir_block_new(cfg, "then");
  bl[2] = ir_block_new(cfg, "else");
  bl[3] = ir_block_new(cfg, "join");
  IrVar *t = ir_emit2(bl[0], IR_OP_LT, n, ir_emit_int(bl[0], 0));
  ir_block_set_branch(bl[0], t, bl[1], bl[2]);
  IrVar *y = ir_emit1(bl[1], IR_OP_SQRT, x);
  ir_block_set_jump(bl[1], bl[3]);
  IrVar *z = ir_emit1(bl[2], IR_OP_INT_TO_REAL, n);
  ir_block_set_jump(bl[2], bl[3]);
  IrVar *r = ir_phi_new(bl[3], "r", ir_type_real(m));
  ir_phi_set(r->def, bl[1], y);
  ir_phi_set(r->def, bl[2], z);
  ir_block_set_return(bl[3], r);
  return cfg;
}

int main(void) {
  Arena *a = arena_new();
  IrModule *m = ir_module_new(a, IR_HIGH);
  IrBlock *bl[4];
  IrCFG *cfg = diamond(m, bl);
  CHECK(!cfg->dom_valid);
  CHECK(ir_cfg_compute_dominators(cfg) == 4);
  CHECK(cfg->dom_valid);
  CHECK(bl[3]->idom == bl[0] && bl[0]->ndomkids == 3);
  /* unchanged: the same tree, no new children array */
  IrBlock **kids = bl[0]->domkids;
  CHECK(ir_cfg_compute_dominators(cfg) == 4);
  CHECK(bl[0]->domkids == kids && bl[3]->idom == bl[0]);

  /* an edit through ir.c clears the cache: b0 now jumps to b1 only, so b2
   * is unreachable and b1 dominates the join */
  ir_block_set_jump(bl[0], bl[1]);
  CHECK(!cfg->dom_valid);
  CHECK(ir_cfg_compute_dominators(cfg) == 3);
  CHECK(bl[2]->rpo == -1 && bl[3]->idom == bl[1] && ir_dominates(bl[1], bl[3]));
  IrCheck chk;
  memset(&chk, 0, sizeof chk);
  CHECK_MSG(ir_check_cfg(cfg, &chk) == 0, "%s", chk.first);

  /* a stale cache (as if an edit had bypassed ir.c): the checker says so */
  ir_block_set_branch(bl[0], bl[0]->instrs[1]->dst, bl[1], bl[2]);
  cfg->dom_valid = true;
  CHECK(ir_cfg_compute_dominators(cfg) == 3); /* the cache, believed */
  memset(&chk, 0, sizeof chk);
  CHECK(ir_check_cfg(cfg, &chk) == 1);
  CHECK_MSG(strstr(chk.first, "stale") != NULL, "%s", chk.first);
  /* the checker's fresh tree replaced it */
  CHECK(cfg->dom_valid && bl[3]->idom == bl[0] && bl[2]->rpo >= 0);
  memset(&chk, 0, sizeof chk);
  CHECK_MSG(ir_check_cfg(cfg, &chk) == 0, "%s", chk.first);
  arena_free(a);
  return unit_finish("ir_dom");
}
