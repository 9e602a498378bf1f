/* basis.h -- the built-in operators and functions of Diderot
 * (doc/language.md §5, §10).
 *
 * The table is data: basis.def lists every overload, in resolution order
 * (the first exact match wins, then the first match with coercions:
 * doc/language.md §4.2),
 * as
 *
 *     BUILTIN(ID, "name", FLAGS, "signature")
 *
 * ID      enum name of this overload (BI_ID); later phases switch on it.
 * name    the operator spelling ("+", "•", "∇", "unary-") or function name
 *         ("sqrt", "evals"). All overloads of a name are consecutive.
 * FLAGS   0 or an |-combination of BF_* below.
 * signature, in a small type language parsed once at start-up by
 *         basis_parse_signature():
 *
 *   sig     ::= '(' [ ty {',' ty} ] ')' '->' ty
 *   ty      ::= 'bool' | 'int' | 'string' | 'real'          (real = tensor[])
 *             | 'tensor' shape
 *             | 'image' '(' dim ')' shape
 *             | 'field' '#' cont '(' dim ')' shape
 *             | 'kernel' '#' cont
 *             | 'T'                                         (a type variable)
 *             | ty '[' ']'                                  (dynamic sequence)
 *             | ty '[' dim ']'                              (fixed sequence)
 *   shape   ::= '[' [ item {',' item} ] ']'
 *   item    ::= INT | dimvar | shapevar
 *   dim     ::= INT | dimvar
 *   dimvar  ::= 'd' | 'n' | 'm' | 'p'                       (dimension variables)
 *   shapevar::= 'σ' | 'α' | 'β'                             (shape variables: any
 *                                                            list of dims, maybe empty;
 *                                                            at most one per shape)
 *   cont    ::= 'k' | 'k-1' | INT | 'inf'                   (continuity)
 *
 * Variables are scoped to one signature. Examples:
 *   BUILTIN(ADD_TT, "+", BF_CONST, "(tensor[σ], tensor[σ]) -> tensor[σ]")
 *   BUILTIN(GRAD, "∇", 0, "(field#k(d)[]) -> field#k-1(d)[d]")
 *   BUILTIN(JACOBIAN, "∇⊗", 0, "(field#k(d)[σ]) -> field#k-1(d)[σ,d]")
 *
 * Forms whose typing is not a signature (• ⊗ : probes, comprehensions,
 * reductions over strand sets, sphere, load_*, real(), identity/zeros/nan,
 * tensor construction) are typed by code in the typechecker; they still
 * get BUILTIN entries with the signature "special" so that every built-in
 * name has an id.
 */
#ifndef DIDEROT_FRONTEND_BASIS_H
#define DIDEROT_FRONTEND_BASIS_H

#include <stdbool.h>

/* Flags of a basis entry. */
enum {
  BF_CONST = 1 << 0,   /* allowed in constant expressions (§3.8) */
  BF_LIFTED = 1 << 1,  /* a field form of a tensor operation (pointwise) */
  BF_REDUCE = 1 << 2,  /* a reduction (all exists sum product max min mean) */
  BF_SPECIAL = 1 << 3, /* typed by code, signature is "special" */
  BF_UNSUPPORTED = 1 << 4, /* parses/typechecks in the reference but has no
                              meaning (border, variance, concat): rejected */
};

typedef enum BuiltinId {
#define BUILTIN(id, name, flags, sig) BI_##id,
#include "frontend/basis.def"
#undef BUILTIN
  BI__COUNT
} BuiltinId;

typedef struct Builtin {
  BuiltinId id;
  const char *name;
  unsigned flags;
  const char *sig;
} Builtin;

/* The whole table, indexed by BuiltinId. */
extern const Builtin basis_table[BI__COUNT];

/* The overloads of `name`, in resolution order: *count receives how many.
 * Returns NULL when `name` is not a built-in. */
const Builtin *basis_lookup(const char *name, int *count);

#endif
