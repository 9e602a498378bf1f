/* lanes.h -- printing LowIR over SIMD lanes: the instruction printer over
 * groups of strands or iterations (emit_c_lanes.c), across-strand update
 * groups (emit_c_simd.c) and loops over sequences with their iterations in
 * lanes (emit_c_loops.c). Built on the core; the plans these files make
 * live in EmitLanesState, hung on EmitCtx.lanes on first use. */
#ifndef DIDEROT_BACKEND_LANES_H
#define DIDEROT_BACKEND_LANES_H

#include "backend/core/core.h"
#include "schedule/schedule.h"

/* The plans of the lanes printers for one context, made on first use. */
struct EmitLanesState {
  /* the across-strand group update (emit_c_simd.c): decided once */
  struct SimdPlan *simd_plan;
  bool simd_planned;
  const char *simd_why; /* why there is no plan */
  /* loops with their iterations in lanes (emit_c_loops.c): plans by header */
  struct LoopEntry *loop_plans;
  int nloop_plans, caploop_plans;
  bool loops_found; /* some loop has a plan */
};
/* e's lanes state (allocated in e's arena on first use). */
EmitLanesState *emit_lanes_state(EmitCtx *e);

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

/* ---- emit_c_simd.c: across-strand SIMD (--simd=strands) ---- */
/* Whether the update is printed as an across-strand group update too (the
 * option is set and the update can be if-converted); decided once. */
bool emit_simd_used(EmitCtx *e);
/* What the group planner finds in the update, whatever the options ask:
 * whether it can run in groups (else why not) and what plan_pays weighs
 * (update_groupable, groups_why, update_probes, update_again,
 * update_sphere of SchedFacts). */
void emit_simd_facts(EmitCtx *e, SchedFacts *f);
/* The group function d_update_group (after the CFG functions). */
void emit_simd_group(EmitCtx *e, EmitBuf *out);
/* The part of d_update_chunk that runs whole groups (i, lo, hi, ns_, nd_
 * in scope; leaves i at the first strand the scalar loop must run). */
void emit_simd_chunk_loop(EmitCtx *e, EmitBuf *out);
/* A line for the top of the file and --stats: what --simd=strands did
 * (NULL without the option). */
const char *emit_simd_report(EmitCtx *e);

/* ---- emit_c_loops.c: loops over sequences with iterations in lanes ---- */
/* How many loops of the module's CFGs have a plan (printed in lanes unless
 * --no-loop-lanes); decides the helpers and the FP contraction. */
int emit_loops_planned(EmitCtx *e);
/* After the instructions of block b of the CFG being printed: when b heads
 * such a loop, the code that runs D_SIMD_W iterations at once and returns
 * to b by goto L<b>, and true (else nothing, and false). */
bool emit_loop_lanes(EmitCtx *e, EmitBuf *out, IrBlock *b);
/* The declarations those need (at the top of cfg's function). */
void emit_loop_lanes_decls(EmitCtx *e, EmitBuf *out, IrCFG *cfg);
/* Whether some loop has a plan (even under --no-loop-lanes, which prints
 * it scalar: both builds are then compiled alike, without contraction). */
bool emit_loops_found(EmitCtx *e);

#endif
