/* ast_to_high.h -- translation of the typed AST into HighIR.
 *
 * The contract of the resulting module (what later stages may rely on) is
 * the comment at the top of ast_to_high.c.
 */
#ifndef DIDEROT_TRANSLATE_AST_TO_HIGH_H
#define DIDEROT_TRANSLATE_AST_TO_HIGH_H

#include <stdbool.h>

#include "frontend/ast.h"
#include "ir/ein.h"
#include "ir/ir.h"
#include "util/diag.h"

typedef struct HighTranslateOptions {
  bool long_int;    /* --long-int: int is 64-bit (identities of min/max) */
  bool double_real; /* --double */
} HighTranslateOptions;

/* Translate a program that typechecked without errors. EIN operators are
 * built in `ein` (the context every later stage shares). Constructs that
 * are not supported are reported through `d` (ERR_NOT_YET) and give NULL.
 * An internal inconsistency (a compiler bug) gives NULL with a message in
 * *internal (when non-NULL; NULL otherwise). The module of a successful
 * translation passes ir_check. */
IrModule *ast_to_high(Arena *a, DiagCtx *d, EinContext *ein, Program *p,
                      const HighTranslateOptions *opts, const char **internal);

#endif
