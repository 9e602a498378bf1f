/* core.h -- the core of the C back end: text buffers, C names of types
 * and variables, the prelude, LowIR instructions and CFGs as C, the data
 * layouts of strand state and images, sphere queries. Every printer above
 * it (lanes/, program/, cpu/, cuda/) builds on these; the core calls
 * nothing above it: what a target prints differently reaches it through
 * the hooks of EmitHooks, and the state of the planners above it lives in
 * their own structs (EmitCtx.lanes). */
#ifndef DIDEROT_BACKEND_CORE_H
#define DIDEROT_BACKEND_CORE_H

#include "backend/core/emit_options.h"

typedef struct EmitLayout EmitLayout;         /* emit_c_layout.c */
typedef struct EmitLanesState EmitLanesState; /* lanes/: the lanes planners' state */
typedef struct EmitGlueHooks EmitGlueHooks;   /* program/: a target's program glue */
struct EmitCtx;

/* What a target prints differently from the C targets, handed down to the
 * core's printers by the target that makes the context. NULL members: the
 * plain C printing. */
typedef struct EmitHooks {
  /* Prints `in` and returns true, or returns false for the C printing (the
   * CUDA host and device halves). */
  bool (*instr)(struct EmitCtx *e, EmitBuf *out, IrInstr *in);
  /* At the top of cfg's function, after the declarations, and after the
   * instructions of each block (the CPU target: loops in lanes);
   * block_end returns true when its text jumps to b's label (L<id>, at the
   * top of the block, before a loop header's x = x_in copies). */
  void (*cfg_decls)(struct EmitCtx *e, EmitBuf *out, IrCFG *cfg);
  bool (*block_end)(struct EmitCtx *e, EmitBuf *out, IrBlock *b);
  /* the text is C++ (the CUDA device half) */
  bool cplusplus;
  /* the world's chunks are spread over processes (the MPI target, mpi/):
   * a reduction over strands computes the map on this process's strands
   * and takes the others' values from their owners before combining them
   * in storage order (drt_world_map_values, rt/diderot_world.h) */
  bool distributed;
} EmitHooks;

typedef struct EmitCtx {
  Arena *a;
  IrModule *m;
  const EmitOptions *opt;
  EmitHooks hooks;          /* the target's (zero: plain C) */
  void *hook_data;          /* the target's own state, for its hooks */
  const EmitGlueHooks *glue; /* the program glue's target hooks (program/), or NULL */
  EmitBuf types;            /* typedefs, in dependency order */
  const IrType **tkeys;     /* memo of type names */
  const char **tnames;
  int ntypes, captypes;
  const char **once;        /* keys of the definitions printed once (emit_once) */
  int nonce, caponce;
  const char **vnames;      /* memo of variable names, by id */
  int nvnames;
  IrCFG *cfg;               /* the CFG being printed */
  EmitLayout *lay;          /* the program's data layouts (emit_c_layout.c) */
  int tmp;                  /* counter of helper temporaries */
  bool failed;
  char err[256];
  /* opt->source, read on first use for the source-line comments */
  const struct Source *src;
  bool src_tried;
  EmitLanesState *lanes;    /* lanes/: plans of groups and loops, made on first use */
  bool *hoisted;            /* by variable id: a literal set in its declaration
                               (emit_c_cfg.c; ids are unique in the module) */
  int nhoisted;
  const char *print_to;     /* the stream emit_print_value writes to (NULL: wrld->print) */
  const IrCFG **dist_maps;  /* the maps of reductions over strands other than collections */
  int ndist_maps;           /* (emit_c_expr.c, found in one walk on first use; -1: not yet) */
} EmitCtx;

/* ---- emit_c.c: buffers, names, types, the prelude ---- */
/* A fresh context printing module m (no hooks, no layouts yet). */
void emit_ctx_init(EmitCtx *e, Arena *a, IrModule *m, const EmitOptions *opt);
void emit_fail(EmitCtx *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True the first time it is asked for `key` in this context: a definition
 * printed once however many printers want it (typedefs of lane types,
 * helper groups). */
bool emit_once(EmitCtx *e, const char *key);
/* The C type of t (typedefs are emitted on first use). */
const char *emit_type(EmitCtx *e, const IrType *t);
/* A C identifier for a source name (ASCII letters, digits and '_' kept;
 * every other byte as _xHH), prefixed by `prefix`. */
const char *emit_mangle(EmitCtx *e, const char *prefix, const char *name);
const char *emit_var(EmitCtx *e, const IrVar *v);
/* The C name of the state struct and its fields, of a global, of a CFG's
 * function. */
const char *emit_state_field(EmitCtx *e, const IrStateVar *s);
const char *emit_global_field(EmitCtx *e, const IrGlobal *g);
const char *emit_cfg_name(EmitCtx *e, const IrCFG *cfg);
/* Padded lane count of vec<w> in vector mode (a power of two). */
int emit_vec_pad(int w);
/* "x[i]" (vector mode) or "x.v[i]" (scalar mode). */
const char *emit_lane(EmitCtx *e, const char *x, int i);
/* Number of reals in a tensor type (1 for real). */
int emit_tensor_size(const IrType *t);
/* Whether values of t hold dynamic sequences. */
bool emit_type_has_dseq(const IrType *t);
/* "dreal" function suffix: "f" for float, "" for double. */
const char *emit_fsuf(EmitCtx *e);
/* A real literal in C. */
const char *emit_real_lit(EmitCtx *e, double r);
const char *emit_string_lit(EmitCtx *e, const char *s);
/* The prelude: includes, dint/dreal, helpers. */
void emit_prelude(EmitCtx *e, EmitBuf *out);
/* Leave the unit being printed after a recorded run-time error (IR_T_ERROR). */
void emit_leave_on_error(EmitCtx *e, EmitBuf *out, const char *indent);
/* Whether the program gets d_update_chunk, the update phase of a chunk of
 * strands (the C targets, with an update: program/emit_c_step.c). */
bool emit_step_chunked(const EmitCtx *e);

/* ---- emit_c_cfg.c ---- */
/* One CFG as the body of a C function (the signature is the caller's);
 * cfg->kind decides how exits are printed. */
void emit_cfg_body(EmitCtx *e, EmitBuf *out, IrCFG *cfg);

/* ---- emit_c_expr.c ---- */
/* One instruction as C statements (indented by two spaces). */
void emit_instr(EmitCtx *e, EmitBuf *out, IrInstr *in);
/* The C math function of a one-argument real operator (sqrt, ...), or NULL. */
const char *emit_math_fn1(int op);

/* ---- emit_c_load.c: values and NRRD files ---- */
/* Element description of a value type for outputs, inputs and sequences:
 * the sample type, the number of components, whether bool, and the shape
 * of one tensor element (rank, shape) inside `seqlen` fixed elements. */
typedef struct EmitElemInfo {
  const char *nrrd;  /* C text of the nrrdType */
  const char *ctype; /* C type of one sample */
  unsigned ncomp;
  bool is_bool, is_int, is_real, is_string;
  unsigned seqlen, rank;
  int shape[IR_MAX_ORDER];
  bool ok;
} EmitElemInfo;
EmitElemInfo emit_elem_info(const IrType *t);
/* C text of the bytes one strand adds to output s (fixed-size outputs). */
const char *emit_output_item_bytes(EmitCtx *e, const IrStateVar *s);
/* The spec arguments of an image global for d_load_image: dimension,
 * components, the proxy's sample type (or any); never sizes (§8.2). */
const char *emit_image_spec_args(EmitCtx *e, const IrGlobal *g);
/* C calls loading an image (LOAD_IMAGE into dst; the proxy of the global
 * it is stored in is checked) or a dynamic sequence of type t into dst. */
const char *emit_load_image_call(EmitCtx *e, const IrVar *dst, const char *file);
const char *emit_load_seq_call(EmitCtx *e, const IrType *t, const char *what, const char *file,
                               const char *nin, const char *dst);

/* ---- emit_c_layout.c: layout-derived indexing (emit_c_layout.h) ---- */
/* The program's layouts from e->opt; once, before any code is printed. */
bool emit_layout_init(EmitCtx *e);
/* Words (of dreal) in one strand's packed record. */
int emit_state_words(EmitCtx *e);
/* The first word of state variable s in a packed record (its bytes follow). */
int emit_state_offset(EmitCtx *e, const IrStateVar *s);
/* The state word table, the DrtStateLayout `d_layout` (bytes, get, put,
 * chunk ranges) and, with bricks, d_relayout_image(img, dim, ncomp). */
void emit_layout_glue(EmitCtx *e, EmitBuf *out);
/* The first lines of cfg's C function: wrld for methods and global
 * blocks; for state access the capacity d_N, the start-of-step store d_in
 * and, in methods, `dreal *self`, the strand's base in the store. */
void emit_layout_prologue(EmitCtx *e, EmitBuf *out, IrCFG *cfg);
/* STATE_GET / STATE_SET. */
void emit_state_access(EmitCtx *e, EmitBuf *out, const IrInstr *in);
/* `const dreal *d_in` (the store) and `int64_t d_N` from the DrtWorld *rt. */
void emit_layout_store_decl(EmitCtx *e, EmitBuf *out, const char *rt);
/* dst (an lvalue of sv's type) = state variable sv of strand `strand` (a
 * C expression) in the store `store` (a const dreal *; d_N in scope). */
void emit_state_read(EmitCtx *e, EmitBuf *out, const IrStateVar *sv, const char *store,
                     const char *strand, const char *dst, const char *indent);
/* The copy loop of a (non-dynamic) output: strands ns_, rt, snap, nout,
 * esz_ in scope. */
void emit_layout_output_copy(EmitCtx *e, EmitBuf *out, const IrStateVar *sv, const char *ctype,
                             int ncomp);
/* "d_relayout_image(errs, what, img, dim, ncomp)" to run after an image
 * load (its errors, out of memory for the bricks, go to errs), or NULL when
 * images keep NRRD order. */
const char *emit_image_relayout_call(EmitCtx *e, const char *errs, const char *what,
                                     const char *img, const char *dim, const char *ncomp);
/* A C comment with the layouts and their index operation counts (call
 * after the code is printed); the same lines for --stats. */
const char *emit_layout_report(EmitCtx *e);
void emit_layout_stats(EmitCtx *e, FILE *f);
/* The flat offset of the leading indices idx[0..n) of a tensor of type t
 * (its row-major component layout; the rest of the index is 0). */
int emit_tensor_offset(EmitCtx *e, const IrType *t, const int *idx, int n);
/* Index text of component comp of item `item` (a C name of an int64_t or
 * smaller) in an array of items of ncomp components each, (C,n):(1,C). */
const char *emit_interleaved_index(EmitCtx *e, int ncomp, int comp, const char *item);

/* For the across-strand group update (lanes/emit_c_simd.c): the offset of strand d_i's state in the store (the
 * layout's strand mode, over d_i), and the AoSoA width (0: not AoSoA). */
const char *emit_simd_state_dep(EmitCtx *e);
int emit_simd_aosoa_width(EmitCtx *e);
/* The layout's transfer of state variable sv of `self` to (load) or from
 * the scalar C value val (`self` and d_N in scope). */
void emit_simd_state_xfer(EmitCtx *e, EmitBuf *out, const IrStateVar *sv, bool load,
                          const char *val);
/* val (a group value of sv's type, `whole` for a real) = sv of the group's
 * strands by gathers from self_ at the lanes' offsets d_sidx; false (and
 * nothing printed) when sv is not stored as reals. */
bool emit_simd_state_gather(EmitCtx *e, EmitBuf *out, const IrStateVar *sv, const char *val,
                            bool whole);

/* Statements that print value x of type t to wrld->print (§6.6). */
void emit_print_value(EmitCtx *e, EmitBuf *out, const IrType *t, const char *x);

/* ---- emit_c_sphere.c ---- */
/* Whether the module has sphere queries. */
bool emit_sphere_used(EmitCtx *e);
/* The program's spatial-index glue (after the structs; nothing without
 * queries): d_sphere_init/build/begin_step/query. */
void emit_sphere_glue(EmitCtx *e, EmitBuf *out);
/* A SPHERE / SPHERE_AT instruction. */
void emit_sphere_query(EmitCtx *e, EmitBuf *out, IrInstr *in);
/* The same with the caller's start-of-step store read through `store`
 * after `store_decl` (which must leave d_N in scope) and the query
 * function called as CALL, id, centre, r, &len) (the CUDA back end). */
void emit_sphere_query_with(EmitCtx *e, EmitBuf *out, IrInstr *in, const char *store_decl,
                            const char *store, const char *call);
/* For the CUDA back end: the dimension of `pos` (0: no usable pos); the
 * statements reading the pos of a slot; the radius-hint statements
 * (globals through prefix g, into double h_). */
int emit_sphere_dim(EmitCtx *e);
/* dst[0..dim) = pos of slot `strand` of `store` (d_N in scope). */
void emit_sphere_pos_read(EmitCtx *e, EmitBuf *out, const char *store, const char *strand,
                          const char *dst);
void emit_sphere_hint(EmitCtx *e, EmitBuf *out, const char *g);
/* A read of `pos` of a sphere result's element, from the positions the
 * query returned (C targets); false (nothing printed) for other reads. */
bool emit_sphere_pos_get(EmitCtx *e, EmitBuf *out, const IrInstr *in);
/* In groups of strands (out NULL: whether there is a lane form). */
bool emit_sphere_query_lanes(EmitCtx *e, EmitBuf *out, IrInstr *in, const char *d, const char *m,
                             const char *const *center, const char *r);
/* one_list: the result is one list (a loop's iterations in lanes,
 * emit_c_loops.c), else a list per lane (a group of strands). */
bool emit_sphere_pos_get_lanes(EmitCtx *e, EmitBuf *out, const IrInstr *in, const char *m,
                               bool one_list, const char *dst);

#endif
