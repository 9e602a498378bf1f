/* high_to_mid.h -- HighIR → MidIR: fields disappear (seed paper 004, §5.5).
 *
 * The contract (what the MidIR produced here looks like) is the comment at
 * the top of high_to_mid.c; the MidIR optimisations are src/opt/mid_opt.h.
 */
#ifndef DIDEROT_TRANSLATE_HIGH_TO_MID_H
#define DIDEROT_TRANSLATE_HIGH_TO_MID_H

#include <stdio.h>

#include "ir/ein.h"
#include "ir/ir.h"
#include "opt/ein_normalize.h"
#include "util/diag.h"

typedef struct HighToMidStats {
  unsigned long probes;       /* probe terms expanded into convolutions */
  unsigned long insides;      /* inside() tests expanded */
  unsigned long fused_fields; /* field definitions substituted into probes */
  EinNormStats norm;          /* normalization of re-fused operators */
} HighToMidStats;

/* Translate a HighIR module. The MidIR module shares the arena and the
 * type table (ir_module_next_level); `ec` is the EIN context the HighIR
 * operators were built in (new operators are built there too). Problems
 * are reported to `diag` (may be NULL) and give NULL. stats may be NULL;
 * it is accumulated into. */
IrModule *high_to_mid(IrModule *high, EinContext *ec, DiagCtx *diag, HighToMidStats *stats);

void high_to_mid_stats_print(FILE *out, const HighToMidStats *s);

#endif
