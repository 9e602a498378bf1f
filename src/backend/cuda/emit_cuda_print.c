/* emit_cuda_print.c -- `print` in strand code with --target=cuda: each
 * print statement of the device half appends a record of its non-literal
 * arguments to the step's print buffer (rt/cuda/dc_print.h); the host
 * formats the records in the sequential target's order with a generated
 * decoder, one case per print statement ("site"), using the C targets'
 * printing code (emit_print_value), so both targets print the same text. */
#include "backend/cuda/emit_cuda.h"

#include "backend/core/core.h"

#define OUT(...) emit_buf_printf(out, __VA_ARGS__)

/* A string literal argument is printed by the decoder, not recorded. */
static const char *literal_text(const IrVar *v) {
  const IrInstr *d = v ? v->def : NULL;
  return d && d->kind == IR_I_LIT && d->lit.kind == IR_LIT_STRING ? d->lit.s : NULL;
}

/* A dynamic sequence is recorded as its length (8 bytes) and its elements
 * (device memory the host cannot read, rt/cuda/dc_seq.h). */
static bool dyn_seq(const IrVar *v) {
  return v->ty->kind == IR_TY_SEQ && v->ty->len == IR_SEQ_DYNAMIC;
}

void emit_cuda_print_instr(EmitCtx *e, EmitBuf *out, IrInstr *in, CudaPrintSites *ps) {
  if (ps->n == ps->cap) {
    int cap = ps->cap ? 2 * ps->cap : 8;
    IrInstr **ns = arena_alloc(e->a, (size_t)cap * sizeof *ns);
    for (int i = 0; i < ps->n; i++) ns[i] = ps->site[i];
    ps->site = ns;
    ps->cap = cap;
  }
  int site = ps->n;
  ps->site[ps->n++] = in;
  /* a string literal's text is the decoder's (below): its variable is
   * declared but never read here, which -Wunused-variable would report */
  for (int i = 0; i < in->nargs; i++)
    if (literal_text(in->args[i])) OUT("  (void)%s;\n", emit_var(e, in->args[i]));
  OUT("  { /* print: site %d */\n    const uint32_t sz_ = (uint32_t)sizeof(DcPrintHead)", site);
  for (int i = 0; i < in->nargs; i++) {
    const char *x = emit_var(e, in->args[i]);
    if (literal_text(in->args[i])) continue;
    if (dyn_seq(in->args[i]))
      OUT(" + 8u + dc_print_round((uint32_t)(%s.len * sizeof *%s.v))", x, x);
    else OUT(" + dc_print_round((uint32_t)sizeof(%s))", x);
  }
  OUT(";\n    unsigned char *r_ = dc_print_alloc(nc_->a, nc_->phase, nc_->w, nc_->pk++, %du, sz_);\n"
      "    if (r_) {\n      unsigned char *p_ = r_ + sizeof(DcPrintHead);\n      (void)p_;\n",
      site);
  for (int i = 0; i < in->nargs; i++) {
    if (literal_text(in->args[i])) continue;
    const char *x = emit_var(e, in->args[i]);
    if (dyn_seq(in->args[i])) {
      OUT("      memcpy(p_, &%s.len, sizeof %s.len);\n"
          "      if (%s.len) memcpy(p_ + 8, %s.v, %s.len * sizeof *%s.v);\n"
          "      p_ += 8u + dc_print_round((uint32_t)(%s.len * sizeof *%s.v));\n",
          x, x, x, x, x, x, x, x);
      continue;
    }
    OUT("      memcpy(p_, &%s, sizeof(%s));\n      p_ += dc_print_round((uint32_t)sizeof(%s));\n", x, x, x);
  }
  OUT("    }\n  }\n");
}

void emit_cuda_print_decoder(EmitCtx *e, EmitBuf *out, const CudaPrintSites *ps) {
  OUT("/* the text of a print record (host; rt/cuda/dc_print.h) */\n"
      "static void d_print_record(FILE *f, uint32_t site, const unsigned char *p_) {\n"
      "  struct { FILE *print; } w_ = {f}, *wrld = &w_;\n  (void)wrld;\n  (void)p_;\n"
      "  switch (site) {\n");
  for (int s = 0; s < ps->n; s++) {
    const IrInstr *in = ps->site[s];
    OUT("  case %d: {\n", s);
    for (int i = 0; i < in->nargs; i++) {
      const char *lit = literal_text(in->args[i]);
      if (lit) {
        OUT("  drt_print_string(wrld->print, %s);\n", emit_string_lit(e, lit));
        continue;
      }
      const char *a = arena_printf(e->a, "a%d_", i);
      if (dyn_seq(in->args[i])) {
        const char *el = emit_type(e, in->args[i]->ty->elem);
        OUT("  %s %s;\n  memcpy(&%s.len, p_, sizeof %s.len);\n"
            "  %s.v = (%s *)(void *)(p_ + 8);\n"
            "  p_ += 8u + dc_print_round((uint32_t)(%s.len * sizeof(%s)));\n",
            emit_type(e, in->args[i]->ty), a, a, a, a, el, a, el);
        emit_print_value(e, out, in->args[i]->ty, a);
        continue;
      }
      OUT("  %s %s;\n  memcpy(&%s, p_, sizeof %s);\n  p_ += dc_print_round((uint32_t)sizeof %s);\n",
          emit_type(e, in->args[i]->ty), a, a, a, a);
      emit_print_value(e, out, in->args[i]->ty, a);
    }
    OUT("  } break;\n");
  }
  OUT("  default: break;\n  }\n}\n\n");
}
