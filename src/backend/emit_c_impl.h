/* emit_c_impl.h -- shared state of the C back end's files (emit_c.c: types,
 * names and CFGs; emit_c_expr.c: instructions; emit_c_program.c: the
 * program glue). Not a public interface. */
#ifndef DIDEROT_BACKEND_EMIT_C_IMPL_H
#define DIDEROT_BACKEND_EMIT_C_IMPL_H

#include "backend/emit_c.h"

typedef struct EmitCtx {
  Arena *a;
  IrModule *m;
  const EmitOptions *opt;
  EmitBuf types;            /* typedefs, in dependency order */
  const IrType **tkeys;     /* memo of type names */
  const char **tnames;
  int ntypes, captypes;
  const char **vnames;      /* memo of variable names, by id */
  int nvnames;
  IrCFG *cfg;               /* the CFG being printed */
  int tmp;                  /* counter of helper temporaries */
  bool failed;
  char err[256];
} EmitCtx;

/* ---- emit_c.c ---- */
void emit_fail(EmitCtx *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The C type of t (typedefs are emitted on first use). */
const char *emit_type(EmitCtx *e, const IrType *t);
/* A C identifier for a source name (ASCII letters, digits and '_' kept;
 * every other byte as _xHH), prefixed by `prefix`. */
const char *emit_mangle(EmitCtx *e, const char *prefix, const char *name);
const char *emit_var(EmitCtx *e, const IrVar *v);
/* Padded lane count of vec<w> in vector mode (a power of two). */
int emit_vec_pad(int w);
/* "x[i]" (vector mode) or "x.v[i]" (scalar mode). */
const char *emit_lane(EmitCtx *e, const char *x, int i);
/* Number of reals in a tensor type (1 for real). */
int emit_tensor_size(const IrType *t);
/* "dreal" function suffix: "f" for float, "" for double. */
const char *emit_fsuf(EmitCtx *e);
/* A real literal in C. */
const char *emit_real_lit(EmitCtx *e, double r);
const char *emit_string_lit(EmitCtx *e, const char *s);
/* Print one CFG as a C function with the given signature line; `kind`
 * decides how exits are printed. */
void emit_cfg_body(EmitCtx *e, EmitBuf *out, IrCFG *cfg);
/* The prelude: includes, dint/dreal, helpers. */
void emit_prelude(EmitCtx *e, EmitBuf *out);

/* ---- emit_c_expr.c ---- */
/* One instruction as C statements (indented by two spaces). */
void emit_instr(EmitCtx *e, EmitBuf *out, IrInstr *in);
/* The C name of the state struct and its fields. */
const char *emit_state_field(EmitCtx *e, const IrStateVar *s);
const char *emit_global_field(EmitCtx *e, const IrGlobal *g);
/* The C name of a CFG's function. */
const char *emit_cfg_name(EmitCtx *e, const IrCFG *cfg);

/* ---- emit_c_program.c ---- */
bool emit_program_glue(EmitCtx *e, EmitBuf *out);
/* C calls loading an image (LOAD_IMAGE into dst; the proxy of the global
 * it is stored in is checked) or a dynamic sequence of type t into dst. */
const char *emit_load_image_call(EmitCtx *e, const IrVar *dst, const char *file);
const char *emit_load_seq_call(EmitCtx *e, const IrType *t, const char *what, const char *file,
                               const char *nin, const char *dst);

#endif
