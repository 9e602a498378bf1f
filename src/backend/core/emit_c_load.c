/* emit_c_load.c -- how values meet NRRD files: the sample type and shape of
 * a value type (for inputs, outputs and sequences), and the loader calls of
 * LOAD_IMAGE and LOAD_SEQ, which the instruction printer and the program
 * glue both print. */
#include "backend/core/core.h"

#include <string.h>

EmitElemInfo emit_elem_info(const IrType *t) {
  EmitElemInfo i;
  memset(&i, 0, sizeof i);
  i.ok = true;
  i.ncomp = 1;
  if (t->kind == IR_TY_SEQ && t->len != IR_SEQ_DYNAMIC) {
    i.seqlen = (unsigned)t->len;
    t = t->elem;
    if (t->kind == IR_TY_SEQ) i.ok = false;
  }
  switch (t->kind) {
  case IR_TY_BOOL: i.nrrd = "nrrdTypeUChar"; i.ctype = "bool"; i.is_bool = true; break;
  case IR_TY_INT: i.nrrd = "D_INT_NRRD"; i.ctype = "dint"; i.is_int = true; break;
  case IR_TY_TENSOR:
    i.nrrd = "D_REAL_NRRD";
    i.ctype = "dreal";
    i.is_real = true;
    i.rank = (unsigned)t->order;
    for (int k = 0; k < t->order; k++) {
      i.shape[k] = t->dims[k];
      i.ncomp *= (unsigned)t->dims[k];
    }
    break;
  case IR_TY_STRING: i.is_string = true; i.ok = false; break;
  default: i.ok = false; break;
  }
  if (i.seqlen) i.ncomp *= i.seqlen;
  return i;
}

/* C text of the bytes one strand adds to output s (fixed-size outputs) */
const char *emit_output_item_bytes(EmitCtx *e, const IrStateVar *s) {
  EmitElemInfo ei = emit_elem_info(s->ty);
  return arena_printf(e->a, "%u * sizeof(%s)", ei.ncomp, ei.ctype ? ei.ctype : "char");
}


/* The spec of an image global: the proxy's sample type, or any type;
 * never sizes (one build serves images of any size, §8.2). */
const char *emit_image_spec_args(EmitCtx *e, const IrGlobal *g) {
  const IrType *t = g->ty;
  int C = emit_tensor_size(t);
  const IrProxy *p = g->proxy;
  return p ? arena_printf(e->a, "%d, %d, %d", t->dim, C, p->nrrd_type)
           : arena_printf(e->a, "%d, %d, nrrdTypeDefault", t->dim, C);
}

/* The image global that receives a LOAD_IMAGE result, for its proxy. */
static IrGlobal *global_of_load(EmitCtx *e, const IrVar *v) {
  IrCFG *cfg = ir_module_find_cfg(e->m, IR_CFG_GLOBAL_INIT);
  if (!cfg) return NULL;
  for (int bi = 0; bi < cfg->nblocks; bi++)
    for (int i = 0; i < cfg->blocks[bi]->ninstrs; i++) {
      IrInstr *in = cfg->blocks[bi]->instrs[i];
      if (in->kind == IR_I_GLOBAL_SET && in->nargs == 1 && in->args[0] == v) return in->global;
    }
  return NULL;
}

/* Loader calls for LOAD_IMAGE and LOAD_SEQ (used by emit_c_expr.c). */
const char *emit_load_image_call(EmitCtx *e, const IrVar *dst, const char *file) {
  IrGlobal *g = global_of_load(e, dst);
  if (g && g->ty->kind == IR_TY_IMAGE)
    return arena_printf(e->a, "d_load_image(wrld, %s, %s, NULL, %s)",
                        emit_string_lit(e, arena_printf(e->a, "image '%s'", g->name)), file,
                        emit_image_spec_args(e, g));
  const IrType *t = dst->ty;
  return arena_printf(e->a, "d_load_image(wrld, \"image\", %s, NULL, %d, %d, nrrdTypeDefault)",
                      file, t->dim, emit_tensor_size(t));
}

const char *emit_load_seq_call(EmitCtx *e, const IrType *t, const char *what, const char *file,
                               const char *nin, const char *dst) {
  EmitElemInfo ei = emit_elem_info(t->elem);
  if (!ei.ok) {
    emit_fail(e, "sequences of this element type cannot be loaded");
    return "";
  }
  return arena_printf(e->a, "d_load_dseq(wrld, %s, %s, %s, %s, %u, %s, &%s.len, (void **)&%s.v)",
                      what, file, nin, ei.nrrd, ei.ncomp, ei.is_bool ? "true" : "false", dst, dst);
}

