/* const_eval.h -- constant expressions (doc/language.md §3).
 *
 * Three services over *typechecked* expressions (they read Expr.ty,
 * Expr.sym, Expr.builtin and coercions):
 *  - const_check: is the expression a legal constant expression? (only
 *    `const` variables, literals and the BF_CONST operations);
 *  - const_fold: its value, when the compiler can compute it. Integer and
 *    boolean operations always fold (C semantics: `/` truncates toward
 *    zero, `%` takes the sign of the dividend, wrap-around at 32 or 64
 *    bits); reals, tensors, strings and fixed sequences fold too, in
 *    double precision. NULL means "constant but not folded here" (or an
 *    error that was reported);
 *  - `--Cname=value` overrides, parsed per §7.1 into a value of the
 *    constant's declared type.
 * Later phases may call const_fold/const_int on typechecked expressions
 * (e.g. tensor slice indices, which must be constant).
 */
#ifndef DIDEROT_FRONTEND_CONST_EVAL_H
#define DIDEROT_FRONTEND_CONST_EVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "frontend/ast.h"
#include "frontend/types.h"
#include "util/diag.h"

typedef enum CVKind { CV_BOOL, CV_INT, CV_TENSOR, CV_STRING, CV_SEQ } CVKind;

typedef struct ConstValue ConstValue;
struct ConstValue {
  CVKind kind;
  const Type *ty;
  bool b;            /* BOOL */
  int64_t i;         /* INT */
  int nr;            /* TENSOR: number of components (1 for real) */
  const double *r;   /* TENSOR: components, row-major (ty->shape) */
  const char *s;     /* STRING: bytes (may contain NUL) */
  size_t slen;
  int n;             /* SEQ: elements */
  const ConstValue *const *elems;
};

typedef struct ConstEval {
  Arena *arena;
  TypeCtx *tc;
  DiagCtx *diag; /* may be NULL: no reports */
  bool long_int; /* int is 64-bit */
} ConstEval;

/* Report (when `report`) the first part of `e` that is not allowed in a
 * constant expression; returns true when e is constant. */
bool const_check(const ConstEval *ce, const Expr *e, bool report);
/* The value of `e` (after its coercion), or NULL when it is not folded. */
const ConstValue *const_fold(const ConstEval *ce, const Expr *e);
/* Fold to an int; false when e is not a folded int. */
bool const_int(const ConstEval *ce, const Expr *e, int64_t *out);

/* Decimal digits to an int within 32 (or 64) bits; false if out of range
 * (then *out is the saturated value). `allow_min` accepts 2^31 / 2^63,
 * the magnitude of the most negative int, for the operand of unary '-'. */
bool const_int_literal(const char *digits, bool long_int, bool allow_min, int64_t *out);

/* Parse an override value (§7.1 syntax) as type `ty`; NULL if it does not
 * denote a value of that type. */
const ConstValue *const_parse_override(const ConstEval *ce, const char *text, const Type *ty);

/* Constructors (used by the typechecker and tests). */
const ConstValue *const_make_int(const ConstEval *ce, int64_t v);
const ConstValue *const_make_real(const ConstEval *ce, double v);
const ConstValue *const_make_bool(const ConstEval *ce, bool v);

/* Diderot-like text of a value ("3", "0.5", "[1,2]", "{1,2}", "\"s\"")
 * for dumps and tests. */
const char *const_value_str(Arena *a, const ConstValue *v);
bool const_value_equal(const ConstValue *a, const ConstValue *b);

#endif
