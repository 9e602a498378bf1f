/* emit_c_cfg.c -- CFGs as C functions (goto-based: a label per block,
 * phis as assignments on the incoming edges), with a comment naming the
 * source line of each run of instructions. The target's hooks
 * (EmitHooks) print what is not plain C: loops in lanes after their
 * header block, a target's own instructions. */
#include "backend/core/core.h"

#include <string.h>

#include "util/source.h"

static void emit_phi_edge(EmitCtx *e, EmitBuf *out, IrBlock *from, IrBlock *to, int slot_of_pred,
                          const char *indent) {
  (void)slot_of_pred;
  /* the first predecessor slot that is `from` (a branch with both arms to
   * one block is one edge for phis: ir_phi_set sets every slot alike) */
  int k = ir_block_pred_index(to, from);
  if (k < 0) return;
  for (int i = 0; i < to->nphis; i++) {
    IrInstr *phi = to->phis[i];
    if (!phi->dst || k >= phi->nargs) continue;
    emit_buf_printf(out, "%s%s_in = %s;\n", indent, emit_var(e, phi->dst),
                    emit_var(e, phi->args[k]));
  }
}

static const char *exit_code(IrTermKind k) {
  switch (k) {
  case IR_T_STABILIZE: return "DRT_EXIT_STABILIZE";
  case IR_T_DIE: return "DRT_EXIT_DIE";
  default: return "DRT_EXIT_CONTINUE";
  }
}

static void emit_term(EmitCtx *e, EmitBuf *out, IrBlock *b) {
  IrTerm *t = &b->term;
  bool method = e->cfg->kind == IR_CFG_START || e->cfg->kind == IR_CFG_UPDATE;
  switch (t->kind) {
  case IR_T_JUMP:
    emit_phi_edge(e, out, b, t->succ[0], 0, "  ");
    emit_buf_printf(out, "  goto L%d;\n", t->succ[0]->id);
    return;
  case IR_T_BRANCH:
    emit_buf_printf(out, "  if (%s) {\n", emit_var(e, t->value));
    emit_phi_edge(e, out, b, t->succ[0], 0, "    ");
    emit_buf_printf(out, "    goto L%d;\n  } else {\n", t->succ[0]->id);
    emit_phi_edge(e, out, b, t->succ[1], 1, "    ");
    emit_buf_printf(out, "    goto L%d;\n  }\n", t->succ[1]->id);
    return;
  case IR_T_RETURN:
    if (t->value) emit_buf_printf(out, "  return %s;\n", emit_var(e, t->value));
    else if (method) emit_buf_puts(out, "  return DRT_EXIT_CONTINUE;\n");
    else emit_buf_puts(out, "  return;\n");
    return;
  case IR_T_STABILIZE:
  case IR_T_DIE:
  case IR_T_CONTINUE:
    if (!method) {
      emit_fail(e, "a strand exit outside a strand method");
      return;
    }
    emit_buf_printf(out, "  return %s;\n", exit_code(t->kind));
    return;
  case IR_T_ERROR:
    /* the error is recorded (probe_fail): leave the unit; the runtime
     * stops the program when the unit returns */
    emit_leave_on_error(e, out, "  ");
    return;
  case IR_T_NONE: break;
  }
  emit_fail(e, "a block without a terminator");
}

/* A C comment "line N: TEXT" for the source line an instruction came from, so
 * that generated code maps back to the program (TEXT trimmed, shortened,
 * without comment delimiters); the line number alone when the source
 * cannot be read. */
static void emit_line_comment(EmitCtx *e, EmitBuf *out, int line) {
  if (!e->src_tried) {
    e->src_tried = true;
    if (e->opt->source) e->src = source_load(e->a, e->opt->source);
  }
  size_t len = 0;
  const char *text = e->src && line <= e->src->nlines ? source_line(e->src, line, &len) : NULL;
  while (text && len && (*text == ' ' || *text == '\t')) text++, len--;
  while (text && len && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\r'))
    len--;
  if (!text || !len) {
    emit_buf_printf(out, "  /* line %d */\n", line);
    return;
  }
  char buf[72];
  size_t n = 0;
  for (size_t i = 0; i < len && n + 4 < sizeof buf; i++) {
    char c = text[i];
    if (c == '\t') c = ' ';
    /* no comment delimiters inside the comment */
    if ((c == '/' && i + 1 < len && text[i + 1] == '*') || (c == '*' && i + 1 < len && text[i + 1] == '/'))
      c = '.';
    buf[n++] = c;
  }
  if (n < len) {
    /* cut at a character boundary (UTF-8 continuation bytes are 10xxxxxx) */
    while (n && ((unsigned char)buf[n - 1] & 0xC0) == 0x80) n--;
    if (n && ((unsigned char)buf[n - 1] & 0xC0) == 0xC0) n--;
    buf[n++] = '.', buf[n++] = '.', buf[n++] = '.';
  }
  buf[n] = '\0';
  emit_buf_printf(out, "  /* line %d: %s */\n", line, buf);
}

void emit_cfg_body(EmitCtx *e, EmitBuf *out, IrCFG *cfg) {
  e->cfg = cfg;
  /* declarations: every instruction result and phi (with its edge copy) */
  for (int bi = 0; bi < cfg->nblocks; bi++) {
    IrBlock *b = cfg->blocks[bi];
    for (int i = 0; i < b->nphis; i++) {
      IrVar *d = b->phis[i]->dst;
      if (!d) continue;
      const char *ty = emit_type(e, d->ty);
      emit_buf_printf(out, "  %s %s;\n  %s %s_in;\n", ty, emit_var(e, d), ty, emit_var(e, d));
    }
    for (int i = 0; i < b->ninstrs; i++) {
      IrVar *d = b->instrs[i]->dst;
      /* a dynamic sequence's padding (after len) is copied bytewise into
       * strand state: zero it, or the copy reads an indeterminate value */
      bool pad = d && d->ty && d->ty->kind == IR_TY_SEQ && d->ty->len == IR_SEQ_DYNAMIC;
      /* C++ (the device half, NAME.cu) warns of {0} (-Wmissing-field-initializers);
       * {} zero-initializes there, padding included */
      bool cxx = e->hooks.cplusplus;
      if (d) emit_buf_printf(out, "  %s %s%s;\n", emit_type(e, d->ty), emit_var(e, d),
                             pad ? (cxx ? " = {}" : " = {0}") : "");
    }
  }
  if (e->hooks.cfg_decls) e->hooks.cfg_decls(e, out, cfg); /* the CPU target: loops in lanes */
  for (int bi = 0; bi < cfg->nblocks; bi++) {
    IrBlock *b = cfg->blocks[bi];
    if (b != cfg->entry || bi != 0) emit_buf_printf(out, " L%d:;%s%s\n", b->id,
                                                    b->label ? " /* " : "",
                                                    b->label ? arena_printf(e->a, "%s */",
                                                                            b->label) : "");
    for (int i = 0; i < b->nphis; i++)
      if (b->phis[i]->dst)
        emit_buf_printf(out, "  %s = %s_in;\n", emit_var(e, b->phis[i]->dst),
                        emit_var(e, b->phis[i]->dst));
    int line = 0;
    for (int i = 0; i < b->ninstrs; i++) {
      IrInstr *in = b->instrs[i];
      if (in->line > 0 && in->line != line) emit_line_comment(e, out, line = in->line);
      emit_instr(e, out, in);
    }
    if (e->hooks.block_end) e->hooks.block_end(e, out, b); /* a loop header's chunks in lanes */
    emit_term(e, out, b);
  }
  if (cfg->entry != cfg->blocks[0]) emit_fail(e, "the entry block is not the first block");
}

