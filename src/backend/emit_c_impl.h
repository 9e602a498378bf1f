/* emit_c_impl.h -- shared state of the C back end's files (emit_c.c: types,
 * names and CFGs; emit_c_expr.c: instructions; emit_c_program.c: the
 * program glue). Not a public interface. */
#ifndef DIDEROT_BACKEND_EMIT_C_IMPL_H
#define DIDEROT_BACKEND_EMIT_C_IMPL_H

#include "backend/emit_c.h"

typedef struct EmitLayout EmitLayout; /* emit_c_layout.c */

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
  EmitLayout *lay;          /* the program's data layouts (emit_c_layout.c) */
  int tmp;                  /* counter of helper temporaries */
  /* A target hook (emit_cuda.c): prints `in` and returns true, or returns
   * false for the C printing. NULL for the C targets. */
  bool (*instr_hook)(struct EmitCtx *e, EmitBuf *out, IrInstr *in);
  void *hook_data;
  bool failed;
  char err[256];
  /* opt->source, read on first use for the source-line comments */
  const struct Source *src;
  bool src_tried;
  /* --simd=strands (emit_c_simd.c): the plan, decided once */
  void *simd_plan;
  bool simd_planned;
  const char *simd_why; /* why there is no plan */
  bool lane_helpers_done; /* emit_lanes_helpers printed (groups and loops share them) */
  /* loops with their iterations in lanes (emit_c_loops.c): plans by header */
  void *loop_plans;
  int nloop_plans, caploop_plans;
  /* some loop has a plan (even under --no-loop-lanes, which prints it
   * scalar: both builds are then compiled alike, without contraction) */
  bool loop_lanes_found;
} EmitCtx;

/* ---- emit_c.c ---- */
/* A fresh context printing module m (no hook, no layouts yet). */
void emit_ctx_init(EmitCtx *e, Arena *a, IrModule *m, const EmitOptions *opt);
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
/* Leave the unit being printed after a recorded run-time error (IR_T_ERROR). */
void emit_leave_on_error(EmitCtx *e, EmitBuf *out, const char *indent);
/* The C math function of a one-argument real operator (sqrt, ...), or NULL. */
const char *emit_math_fn1(int op);
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
const char *emit_output_item_bytes(EmitCtx *e, const IrStateVar *s);
void emit_layout_output_copy(EmitCtx *e, EmitBuf *out, const IrStateVar *sv, const char *ctype,
                             int ncomp);
/* "d_relayout_image(img, dim, ncomp)" to run after an image load, or NULL
 * when images keep NRRD order. */
const char *emit_image_relayout_call(EmitCtx *e, const char *img, const char *dim,
                                     const char *ncomp);
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

/* ---- emit_c_step.c: the update phase of a chunk (DrtUpdateChunk) ---- */
/* Whether the program gets d_update_chunk (the C targets, with an update). */
bool emit_step_chunked(const EmitCtx *e);
/* Whether the program may run strand by strand (DrtProgram.strandwise). */
bool emit_step_strandwise(EmitCtx *e);
/* Whether values of t hold dynamic sequences. */
bool emit_type_has_dseq(const IrType *t);
/* The signature of the update method's body, inlined into the chunk loop. */
const char *emit_step_update_signature(EmitCtx *e);
/* d_strand_update (the DrtMethod), d_step_one and d_update_chunk. */
void emit_step_glue(EmitCtx *e, EmitBuf *out);

/* ---- emit_c_simd.c: across-strand SIMD (--simd=strands) ---- */
/* Whether the update is printed as an across-strand group update too (the
 * option is set and the update can be if-converted); decided once. */
bool emit_simd_used(EmitCtx *e);
/* The group function d_update_group (after the CFG functions). */
void emit_simd_group(EmitCtx *e, EmitBuf *out);
/* The part of d_update_chunk that runs whole groups (i, lo, hi, ns_, nd_
 * in scope; leaves i at the first strand the scalar loop must run). */
void emit_simd_chunk_loop(EmitCtx *e, EmitBuf *out);
/* A line for the top of the file and --stats: what --simd=strands did
 * (NULL without the option). */
const char *emit_simd_report(EmitCtx *e);

/* For the group update: the offset of strand d_i's state in the store (the
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

/* ---- emit_c_lanes.c: instructions over groups of strands ---- */
/* The C type of a group value of type t (NULL: none); images and strings
 * are one value for the group. */
const char *emit_lanes_type(EmitCtx *e, const IrType *t);
bool emit_lanes_wide_ints(const EmitCtx *e);
/* d_splat, d_splati, d_any, d_sel, d_seli. */
void emit_lanes_helpers(EmitCtx *e, EmitBuf *out);
/* Instruction in of block blk (whose mask is d_m<blk>) over the group;
 * false when it has no lane form (out NULL: only that answer). */
bool emit_lanes_instr(EmitCtx *e, EmitBuf *out, IrInstr *in, int blk);
/* The group keeps each state variable in a carrier (d_sv<index>) across
 * its updates: the declaration of sv's (NULL: sv has no lanes), and its
 * transfer from (load) or to the store for the lanes of mask m. */
const char *emit_lanes_state_decl(EmitCtx *e, const IrStateVar *sv);
void emit_lanes_state_xfer(EmitCtx *e, EmitBuf *out, const IrStateVar *sv, bool load,
                           const char *m);
/* Lane value x (of type t) = the scalar C value s in every lane; scalar s
 * = lane l of x (l a C expression). */
void emit_lanes_splat(EmitCtx *e, EmitBuf *out, const IrType *t, const char *x, const char *s);
void emit_lanes_extract(EmitCtx *e, EmitBuf *out, const IrType *t, const char *s, const char *x,
                        const char *l);
/* d = m ? a : b lane by lane (m a -1/0 mask), for group values of type t. */
void emit_lanes_select(EmitCtx *e, EmitBuf *out, const IrType *t, const char *d, const char *m,
                       const char *a, const char *b);
/* A row of w taps of image img under block blk's mask into dst[0..w):
 * at offset a, or at a + clamp(x + k, n) (x, n non-NULL: clamp border
 * control); d_row<w>[c] (emit_lanes_helpers). */
void emit_lanes_row(EmitCtx *e, EmitBuf *out, int w, const char *img, const char *a,
                    const char *x, const char *n, int blk, const char *const *dst);

/* ---- emit_c_loops.c: loops over sequences with iterations in lanes ---- */
/* How many loops of the module's CFGs have a plan (printed in lanes unless
 * --no-loop-lanes); decides the helpers and the FP contraction. */
int emit_loops_planned(EmitCtx *e);
/* After the instructions of block b of the CFG being printed: when b heads
 * such a loop, the code that runs D_SIMD_W iterations at once and returns
 * to b (else nothing). */
void emit_loop_lanes(EmitCtx *e, EmitBuf *out, IrBlock *b);
/* The declarations those need (at the top of cfg's function). */
void emit_loop_lanes_decls(EmitCtx *e, EmitBuf *out, IrCFG *cfg);

/* ---- emit_c_snap.c: executable snapshots (--snapshot, §7.2) ---- */
/* The DRT_CLI_* features of drt_cli_std_options. */
const char *emit_snapshot_cli_features(EmitCtx *e);
/* `spf[]` and the -sp / -sp-NAME entries (opts, nopts in scope). */
void emit_snapshot_options(EmitCtx *e, EmitBuf *out);
/* d_snapshot(wrld, spf, writer, step), before main (after the outputs). */
void emit_snapshot_fn(EmitCtx *e, EmitBuf *out);
/* The statement running the world: run_limit (up to so.limit steps) or,
 * with --snapshot, the snapshot loop around run_chunk (chunk_ steps). */
const char *emit_snapshot_run(EmitCtx *e, const char *run_limit, const char *run_chunk);

/* ---- emit_cuda.c: the hooks of the host half of --target=cuda ---- */
/* Instructions of global blocks that touch the strands (counts, reductions,
 * global stabilize/die): calls into the device half. */
bool emit_cuda_host_instr(EmitCtx *e, EmitBuf *out, IrInstr *in);
/* After the structs: the field of d_world with the device world is the
 * line emit_cuda_world_field() returns; then the globals as the device
 * sees them, their copier and the device half's entry points. */
const char *emit_cuda_world_field(void);
void emit_cuda_host_glue(EmitCtx *e, EmitBuf *out);
/* The C statement that runs up to `limit` steps of world `wrld` (a
 * d_world *), without the ';'. */
const char *emit_cuda_run_call(EmitCtx *e, const char *wrld, const char *limit);

#endif
