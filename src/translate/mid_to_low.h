/* mid_to_low.h -- MidIR → LowIR: EIN bodies become scalar and vector code
 * (seed paper 004, §5.6).
 *
 * The contract (what the LowIR produced here looks like) is the comment at
 * the top of mid_to_low.c.
 */
#ifndef DIDEROT_TRANSLATE_MID_TO_LOW_H
#define DIDEROT_TRANSLATE_MID_TO_LOW_H

#include <stdbool.h>
#include <stdio.h>

#include "ir/ir.h"
#include "util/diag.h"

typedef struct MidToLowOptions {
  bool no_vn;  /* --disable-low-vn: skip LowIR value numbering */
  bool no_dce; /* keep the expanded code as emitted (tests) */
  /* Image sample layout (doc/layouts.md §4.2): 0 for linear NRRD order;
   * B (a power of two) for B^d bricks, voxels colexicographic inside a
   * brick and bricks colexicographic over ceil(N_a / B) per axis, the
   * components of a voxel contiguous. The runtime must store images so. */
  int brick;
  /* With brick: every stored brick carries a halo as wide as the widest
   * kernel support s of the module's probes (s - 1 samples below, s
   * above), so a probe's taps without border control lie in the brick of
   * its position (lyt_image_layout; the LowIR module's image_halo says s). */
  bool halo;
  /* --no-probe-checks: probes without border control read the image
   * without checking that the kernel support is inside it. */
  bool no_probe_checks;
} MidToLowOptions;

typedef struct MidToLowStats {
  IrSize mid;       /* the input */
  IrSize expanded;  /* right after the expansion */
  IrSize low;       /* after value numbering and dead-code elimination */
  int ein_expanded; /* EIN operators expanded */
  int kernel_evals; /* KERNEL_EVAL → Horner */
  int voxel_loads;  /* LOAD_VOXELS → loads */
  int vn_removed;   /* instructions merged by value numbering */
  int dce_removed;  /* instructions removed as dead */
} MidToLowStats;

/* Lower a MidIR module into a new LowIR module that shares its arena and
 * type table (ir_module_next_level). Problems are reported to `diag` (may
 * be NULL) and give NULL. opts and stats may be NULL; stats is overwritten. */
IrModule *mid_to_low(IrModule *mid, DiagCtx *diag, const MidToLowOptions *opts,
                     MidToLowStats *stats);

/* One line for --stats. */
void mid_to_low_stats_print(FILE *out, const MidToLowStats *s);

#endif
