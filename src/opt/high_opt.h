/* high_opt.h -- the HighIR optimisation driver (seed paper 004, §5.2-§5.4).
 *
 * Phases, in order, over every CFG of the module:
 *  1. fusion: an argument of an EIN operator that is itself computed by an
 *     EIN operator is substituted into it (ein_op_subst) when the argument
 *     is a field (always: field values are definitions, and MidIR needs
 *     every probe to see its whole field), or a tensor used only by this
 *     consumer in the same block, or a constant operator (no parameters);
 *     a field argument computed by convolve(img, h) becomes V_α ⊛ H (image
 *     and kernel parameters); a real literal argument becomes a constant of
 *     the body. Duplicate and unused parameters are dropped.
 *  2. normalization of every EIN operator (ein_normalize);
 *  3. value numbering (ir_vn_module), 4. dead-code elimination.
 *
 * What the result guarantees (for MidIR): no EIN operator has a FIELD
 * parameter whose argument is defined by an EIN operator or convolve in
 * the same CFG; probes are in normal form (reconstructions V ⊛ H^β at the
 * leaves, probes right above them). A field-valued EIN result survives only
 * where a non-EIN operator (inside) uses it.
 */
#ifndef DIDEROT_OPT_HIGH_OPT_H
#define DIDEROT_OPT_HIGH_OPT_H

#include <stdbool.h>
#include <stdio.h>

#include "ir/ein.h"
#include "ir/ir.h"
#include "opt/ein_normalize.h"
#include "util/diag.h"

typedef struct HighOptStats {
  IrSize before, after_fusion, after_norm, after_vn, after_dce;
  unsigned long fused;      /* EIN operators substituted into consumers */
  unsigned long convolves;  /* convolutions substituted */
  unsigned long literals;   /* real literals made constants of the body */
  unsigned long pruned;     /* parameters dropped (duplicates, unused) */
  unsigned long vn_removed, dce_removed;
  EinNormStats norm;
} HighOptStats;

/* Optimise m in place (EIN operators built in `ein`). A normalization that
 * hits its step bound is reported through diag (may be NULL) and makes the
 * result false; the module is still valid IR. stats may be NULL. */
bool high_opt(IrModule *m, EinContext *ein, DiagCtx *diag, HighOptStats *stats);
/* The same, running hook (may be NULL) after each phase: "high.fusion",
 * "high.normalize", "high.vn", "high.dce". */
bool high_opt_hooked(IrModule *m, EinContext *ein, DiagCtx *diag, HighOptStats *stats,
                     const IrPassHook *hook);

/* The --stats report: the counters, then the rule counts (every rule that
 * fired); the IR sizes after each phase come from the hook. */
void high_opt_stats_print(FILE *out, const HighOptStats *s);

#endif
