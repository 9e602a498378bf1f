/* typecheck_impl.h -- declarations shared by the typechecker's files
 * (typecheck.c, check_type.c, check_expr.c, check_builtin_ext.c,
 * check_access.c, check_stmt.c, var_uses.c).
 *
 * What the typechecker leaves on the AST (the contract with later phases):
 *  - AstType.resolved: the Type of every type expression.
 *  - Expr.ty: the type of the node *after* any coercion; Expr.coerce_from:
 *    the type before it when a coercion of §3.3 was inserted at this node
 *    (int->real, T[n]->T[], field#k->field#k'). An int literal coerced to
 *    real keeps kind E_INT with coerce_from = int.
 *  - Expr.sym: E_VAR: the variable (or SYM_KERNEL for a built-in kernel);
 *    E_KERNEL_CONT: the kernel symbol (built-in or kernel variable);
 *    E_APPLY: the callee (SYM_FUNC, SYM_BUILTIN, SYM_STRAND in creation,
 *    or a field variable/field function for a probe; NULL when the callee
 *    is another field-valued expression -- a probe is recognised by
 *    e->a->ty being a field); E_SELECT: the state variable, or NULL for
 *    a strand set (S.all/S.active/S.stable, whose type is S[]).
 *  - Expr.builtin: the `const Builtin *` overload chosen for operators
 *    (E_BINARY, E_UNARY, E_NORM), built-in calls, and the special forms
 *    that have a basis entry (•, ⊗, :, identity, zeros, nan, real,
 *    load_image, load_sequence, sphere).
 *  - Decl/Param/Iter/Stmt.sym: the declared symbol (S_DECL, S_FOREACH's
 *    Iter, S_ASSIGN: the assigned variable; S_NEW: the strand).
 *  - S_ASSIGN with op (x op= e): Stmt.cond is set to a synthesized, typed
 *    E_BINARY node `x op e` (its b is Stmt.expr itself), coerced to x's
 *    type, so later phases need not resolve the operator again.
 *  - Symbol.cval for constants; Symbol.proxy for images with a proxy.
 */
#ifndef DIDEROT_FRONTEND_TYPECHECK_IMPL_H
#define DIDEROT_FRONTEND_TYPECHECK_IMPL_H

#include "common/kernel.h"
#include "frontend/basis.h"
#include "frontend/const_eval.h"
#include "frontend/env.h"
#include "frontend/typecheck.h"
#include "frontend/types.h"

/* Where the code being checked is (control-flow rules of §3.6). */
typedef enum TcWhere {
  W_GLOBAL_DECL, /* const/input/global initializers */
  W_FUNC,
  W_FIELD_FUNC,
  W_GLOBAL_INIT,
  W_STRAND_STATE, /* state-variable initializers */
  W_STRAND_INIT,
  W_START,
  W_UPDATE,
  W_STABILIZE,
  W_GLOBAL_START,
  W_GLOBAL_UPDATE,
  W_CREATE,
} TcWhere;

enum { TC_BASIS_CACHE = 256 };
typedef struct TcBasisCache {
  const char *name;
  const Builtin *first;
  int count;
} TcBasisCache;

/* Memoized overload resolutions: most operands have shared types (int,
 * real, small tensors), so (overloads, argument type pointers) repeats. */
enum { TC_RESOLVE_CACHE = 1024 };
typedef struct TcResolved {
  const Builtin *cands;
  int n;
  const Type *args[2];
  const Builtin *chosen;
  const Type *params[2];
  const Type *result;
} TcResolved;

typedef struct Tc {
  Arena *arena;
  DiagCtx *diag;
  Program *prog;
  const TypecheckOptions *opts;
  TypeCtx tc;
  ConstEval ce;
  Env *env;
  TcWhere where;
  /* the input whose default is being checked (a name declared after it
   * gets a note), or NULL */
  const Decl *input_default;
  Symbol *func;    /* the function being checked */
  Symbol *strand;  /* the strand (set before the globals are checked) */
  int loop_depth;  /* foreach nesting */
  int nsyms;
  bool has_tyvars; /* some `{}` created a type variable (zonk at the end) */
  SymTable *builtins; /* built-in function and kernel symbols, made lazily */
  Symbol *real_is_double; /* the built-in constant (an extension), made lazily */
  int nbuiltins;
  const Scheme *schemes[BI__COUNT];
  bool scheme_done[BI__COUNT];
  TcBasisCache basis_cache[TC_BASIS_CACHE]; /* name -> overloads */
  TcResolved resolved[TC_RESOLVE_CACHE];
  /* every declared symbol, for the unused-variable analysis */
  Symbol **decls;
  int ndecls, capdecls;
  bool input_type; /* resolving an input's declared type (border is allowed) */
} Tc;

/* the name of the built-in constant that says whether reals are doubles */
#define TC_REAL_IS_DOUBLE "real_is_double"

/* check_type.c */
typedef enum TcExtension {
#define EXT(id, what) id,
#include "frontend/extensions.def"
#undef EXT
  EXT__COUNT
} TcExtension;
/* A use of extension `x` at `at`: an error under --strict, else nothing. */
void tc_extension(Tc *t, TcExtension x, Span at);
/* check_position.c: state variable s (declared by d) of strand ss, and
 * ss->pos, the variable that places the strand for sphere(). */
void tc_state_position(Tc *t, Symbol *ss, Decl *d, Symbol *s);
Symbol *tc_new_symbol(Tc *t, SymKind k, const char *name, Span span, const Type *ty);
/* Declare in the innermost scope, reporting a redefinition there. */
void tc_declare(Tc *t, Symbol *s);
const Type *tc_resolve_type(Tc *t, AstType *at);
const char *tc_where_name(TcWhere w);
bool tc_in_strand(const Tc *t);
bool tc_in_global_block(const Tc *t);
/* A constant int expression (dimensions, lengths); reports with `what`. */
bool tc_const_int(Tc *t, Expr *e, const char *what, int64_t *out);
/* A written tensor shape (types, zeros[σ], nan[σ]): each dimension and
 * their product checked; `at` is where a too-large product is reported.
 * dims must hold 32; *order is at most 32. */
bool tc_shape_dims(Tc *t, ExprList *l, Span at, int *dims, int *order);
/* The k of '#k' (field and kernel types, h#k), at most TYPE_MAX_CONT. */
bool tc_continuity(Tc *t, const Token *tok, Span at, int *out);
/* Read the proxy header for `load_image(path)` initializing `s`. */
void tc_proxy(Tc *t, Symbol *s, Expr *init);
/* Type a load_image(path) that no declaration types (inside ⊛, clamp, a
 * call...) from its proxy's header, and bind it to the hidden global that
 * loads that file once (Program.image_loads). */
const Type *tc_expr_proxy(Tc *t, Expr *e);

/* check_choice.c: an input of type kernel#k (an extension, doc/language.md
 * §6.9); its choices are the kernels of continuity >= k, listed by
 * tc_kernel_choices_text ("tent, ctmr, ..."). */
void tc_kernel_input(Tc *t, Decl *d, Symbol *s);
/* An input of type border (clamp, mirror, wrap); its application b(img),
 * typed like clamp(img), is tc_border_apply in check_builtin_ext.c. */
void tc_border_input(Tc *t, Decl *d, Symbol *s);
const Type *tc_border_apply(Tc *t, Expr *e, Symbol *s);
/* The index of the border control a default names (0 clamp, 1 mirror,
 * 2 wrap), or -1. */
int tc_border_index(const char *name);
const char *tc_kernel_choices_text(Arena *a, int cont);

/* check_expr.c */
/* What may stand where a name was misspelled (tc_suggest). */
enum {
  TC_SUGGEST_VARIABLE = 1 << 0, /* anything with a value, field functions too */
  TC_SUGGEST_FUNCTION = 1 << 1, /* user functions and callable built-ins */
  TC_SUGGEST_KERNEL = 1 << 2,
  TC_SUGGEST_STRAND = 1 << 3,
};
/* The closest spelling of `name` among what is in scope of those kinds,
 * or NULL (for diag_suggest). */
const char *tc_suggest(Tc *t, const char *name, unsigned kinds);
/* Type `e` (hint: the expected type, for load_* and `{}`; may be NULL). */
const Type *check_expr(Tc *t, Expr *e, const Type *hint);
/* Coerce the checked `e` to `to`, recording the coercion; false (and no
 * report) when impossible. */
bool tc_coerce(Tc *t, Expr *e, const Type *to);
/* Check `e` and coerce it to `to`; false when not coercible (no report). */
bool tc_check_against(Tc *t, Expr *e, const Type *to);
/* The symbol an identifier denotes: variables, the strand, built-in
 * functions and kernels. */
Symbol *tc_lookup(Tc *t, const char *name);
/* Check strand-creation arguments (new S(..) / creation clause). */
bool tc_check_strand_args(Tc *t, Symbol *strand, ExprList *args, DiagId err, Span at);
/* Resolve the operator of the synthesized `x op e` node of a compound
 * assignment; NULL (no report) when it does not resolve. */
const Type *tc_resolve_compound(Tc *t, Expr *bin);
/* The parsed scheme of overload `b` (NULL for special forms). */
const Scheme *tc_scheme(Tc *t, const Builtin *b);
/* Check each argument of a list (no expected type). */
void tc_check_args(Tc *t, ExprList *args);

/* check_builtin_ext.c (facts only: no reports, no calls into the other
 * typechecker files) */
/* The TcExtension a built-in overload is (image queries, evals/evecs of a
 * field), or -1. */
int tc_builtin_extension(const Builtin *b);
/* Whether b may be used in code of kind w (the image queries: global code
 * only, doc/language.md §6.1). */
bool tc_builtin_allowed(const Builtin *b, TcWhere w);
/* "evals"/"evecs" when the field x is built from one (for the message of
 * a derivative of it), else NULL. */
const char *tc_eigen_field_of(const Expr *x);
/* While an input's default is checked: the global declaration named
 * `name` that is that input itself or comes after it (an undeclared name
 * there gets a note at it), else NULL. */
const Decl *tc_default_reads(const Tc *t, const char *name);
/* Whether the field x is built from a composition F ∘ G (as tc_eigen_field_of). */
bool tc_has_compose(const Expr *x);
/* The type of F ∘ G, or NULL when they do not compose (§6.6). */
const Type *tc_compose_type(Tc *t, const Type *F, const Type *G);

/* check_access.c: a[i, :], s[i]; x.name and S.all/active/stable; {e | x in s} */
const Type *tc_check_subscript(Tc *t, Expr *e);
const Type *tc_check_select(Tc *t, Expr *e);
const Type *tc_check_comprehension(Tc *t, Expr *e);

/* check_stmt.c */
void check_stmt(Tc *t, Stmt *s);
/* Check a block in a fresh scope. */
void check_block(Tc *t, Stmt *s);
/* Does every path through `s` end with `return`? */
bool stmt_always_returns(const Stmt *s);

/* var_uses.c */
void tc_var_uses(Tc *t);

#endif
