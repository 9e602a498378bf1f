/* mid_opt.h -- MidIR optimisations: split, slice, summation binding (seed
 * paper 004, §5.7), then value numbering and dead-code elimination.
 *
 * The goal is the size of the IR after lowering: MidIR EIN operators are
 * unrolled by mid_to_low, so a duplicated subterm or a loop-invariant
 * factor inside a Σ is paid for once per iteration. The passes work on the
 * EIN operators of a MidIR module as high_to_mid.c produces them (tensor
 * parameters only, parameters ordered by first use):
 *
 *  split    (§5.7.1) every maximal Σ subterm that is an operand of another
 *           operator becomes its own operator over its free indices (in
 *           binding order) and is replaced by a tensor parameter indexed by
 *           those indices. Equal subterms become equal operators on equal
 *           arguments, which value numbering merges.
 *  slice    (§5.7.2) an operator whose body is a Σ (a convolution) and that
 *           reads a voxel tensor (load_voxels) with the same constant c at
 *           a component position everywhere computes all components
 *           instead: t = λ⟨body[c := γ]⟩_{γ,σ} and g = λT⟨T_{c,σ}⟩(t), so the
 *           probes of different components of one field share t.
 *  sum-binding (§5.7.3) Σ_V (A·e) → A·Σ_V e when A does not mention V, and
 *           a Σ over several indices whose factors do not all mention every
 *           index is nested: Σ_{V}(Π B)(Σ_v Π A) (A: the factors that
 *           mention v), recursively, which turns (2s)^d-tap convolutions
 *           into separable ones and Σ_jk a_j b_k c_j d_k into
 *           (Σ_j a_j c_j)(Σ_k b_k d_k).
 *
 * Every pass keeps values (up to floating-point reassociation) and leaves
 * IR that passes ir_check.
 */
#ifndef DIDEROT_OPT_MID_OPT_H
#define DIDEROT_OPT_MID_OPT_H

#include <stdbool.h>
#include <stdio.h>

#include "ir/ein.h"
#include "ir/ir.h"

typedef struct MidOptOpts {
  bool split, slice, sum_binding, vn, dce;
} MidOptOpts;

typedef struct MidOptStats {
  unsigned long split_ops;     /* operators extracted by split */
  unsigned long slice_ops;     /* operators generalised by slice */
  unsigned long sumbind_hoist; /* factors moved out of a Σ */
  unsigned long sumbind_nest;  /* Σ over several indices nested */
  unsigned long vn_removed, dce_removed;
  IrSize before, after;
  unsigned long cost_before, cost_after; /* mid_module_cost */
} MidOptStats;

/* Everything on. */
MidOptOpts mid_opt_defaults(void);

/* The pipeline: split → VN → slice → VN → sum binding → VN → DCE (each
 * step when enabled, each over every CFG before the next step). stats may
 * be NULL; it is accumulated into. */
void mid_optimize(IrModule *m, EinContext *ec, const MidOptOpts *opts, MidOptStats *stats);
/* The same, running hook (may be NULL) after each step: "mid.split",
 * "mid.split-vn", "mid.slice", "mid.slice-vn", "mid.sum-binding", "mid.vn",
 * "mid.dce" (disabled steps are skipped). */
void mid_optimize_hooked(IrModule *m, EinContext *ec, const MidOptOpts *opts, MidOptStats *stats,
                         const IrPassHook *hook);

/* The passes one by one (the number of rewrites). */
int mid_split_cfg(IrCFG *cfg, EinContext *ec, MidOptStats *stats);
int mid_slice_cfg(IrCFG *cfg, EinContext *ec, MidOptStats *stats);
int mid_sumbind_cfg(IrCFG *cfg, EinContext *ec, MidOptStats *stats);
/* Summation binding of one expression. */
const EinExpr *mid_sumbind_expr(EinContext *ec, const EinExpr *e, MidOptStats *stats);

/* An estimate of the size after lowering: for an EIN operator, the scalar
 * operations of its body unrolled over σ and every Σ (a Σ over n values of
 * e costs n·cost(e) + n − 1; +, * with k operands k − 1; other operators
 * 1; parameters and constants 0); every other instruction counts 1. */
unsigned long mid_ein_cost(const EinOp *op);
unsigned long mid_module_cost(const IrModule *m);

/* Emits λ params⟨body⟩_σ(args) in block b before instrs[pos] (at the end
 * when pos < 0), after dropping unused parameters, merging parameters bound
 * to the same variable and ordering them by first use. NULL when the
 * operator is rejected (ir_op_check_types). */
IrVar *mid_emit_ein(IrBlock *b, int pos, const char *hint, EinContext *ec, int nparams,
                    const EinParam *params, IrVar *const *args, int nsigma, const int *sigma,
                    const EinExpr *body);
/* The same canonicalisation applied to an existing EIN instruction. */
void mid_set_ein(IrInstr *in, EinContext *ec, int nparams, const EinParam *params,
                 IrVar *const *args, int nsigma, const int *sigma, const EinExpr *body);

/* "stats: count mid.NAME N" lines for --stats. */
void mid_opt_stats_print(FILE *out, const MidOptStats *s);

#endif
