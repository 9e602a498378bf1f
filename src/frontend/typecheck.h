/* typecheck.h -- the Diderot typechecker (doc/language.md §3-§10). */
#ifndef DIDEROT_FRONTEND_TYPECHECK_H
#define DIDEROT_FRONTEND_TYPECHECK_H

#include <stdbool.h>

#include "frontend/ast.h"
#include "util/diag.h"

/* A `--Cname=value` override from the command line (§3.8). */
typedef struct ConstOverride {
  const char *name;
  const char *value; /* the text after '=' */
  struct ConstOverride *next;
} ConstOverride;

typedef struct TypecheckOptions {
  bool long_int;              /* --long-int: int is 64-bit */
  bool double_real;           /* --double */
  const ConstOverride *consts;
  const char *proxy_dir;      /* directory proxy image paths are relative to */
  bool strict;                /* --strict: every extension (extensions.def) is an error */
} TypecheckOptions;

/* Check `p`, annotating it in place (Expr.ty, .sym, coercions, ...).
 * Returns true when the program is well typed (warnings allowed). */
bool typecheck_program(Arena *a, DiagCtx *d, Program *p, const TypecheckOptions *opts);

#endif
