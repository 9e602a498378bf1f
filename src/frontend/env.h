/* env.h -- symbols and scopes of the typechecker (doc/language.md §7.1).
 *
 * A `Symbol` is what a name denotes; the typechecker stores it on the AST
 * (Decl/Param/Iter/Stmt .sym, Expr.sym) and later phases read it:
 *   kind  what the name is (table below)
 *   ty    its type (TY_FUN for functions; kernel#k for kernels; the strand
 *         type for the strand)
 *   id    unique per compilation, dense from 0 (for per-variable tables)
 * Every symbol has exactly one Symbol object, so pointer equality is
 * variable identity (shadowing creates a new Symbol).
 *
 * The environment is one hash table of bindings plus a stack of scopes:
 * lookups are O(1), leaving a scope pops exactly the bindings it added.
 */
#ifndef DIDEROT_FRONTEND_ENV_H
#define DIDEROT_FRONTEND_ENV_H

#include <stdbool.h>

#include "frontend/ast.h"
#include "frontend/basis.h"
#include "frontend/proxy.h"
#include "frontend/types.h"
#include "util/arena.h"

struct ConstValue; /* const_eval.h */
struct Kernel;     /* common/kernel.h */

typedef enum SymKind {
  SYM_CONST,        /* const x = e  (cval holds the folded value, if any) */
  SYM_INPUT,        /* input T x ... */
  SYM_GLOBAL,       /* global variable */
  SYM_LOCAL,        /* local variable of a block */
  SYM_STATE,        /* strand state variable (SF_OUTPUT for outputs) */
  SYM_PARAM,        /* function parameter (also a field function's x) */
  SYM_STRAND_PARAM, /* strand parameter */
  SYM_ITER,         /* iteration variable (comprehension, foreach, creation) */
  SYM_FUNC,         /* user function; ty is TY_FUN */
  SYM_FIELD_FUNC,   /* field#k(d)[σ] F(tensor[d] x) = e; ty is the field */
  SYM_STRAND,       /* the strand; ty is TY_STRAND */
  SYM_BUILTIN,      /* built-in function: overloads/noverloads */
  SYM_KERNEL,       /* built-in kernel: kernel */
} SymKind;

/* Symbol flags. */
enum {
  SF_OUTPUT = 1 << 0,     /* SYM_STATE: output */
  SF_HAS_INIT = 1 << 1,   /* declared with an initializer / input default */
  SF_USED = 1 << 2,       /* read somewhere (unused warnings) */
  SF_ASSIGNED = 1 << 3,   /* assigned after its declaration */
  SF_LOAD_IMAGE = 1 << 4, /* initializer is load_image(...) (see proxy) */
  SF_LOAD_SEQ = 1 << 5,   /* initializer is load_sequence(...) */
  SF_COMPUTED_DEFAULT = 1 << 6, /* SYM_INPUT: a default computed by the program (an extension) */
  /* SYM_STRAND: whole-program facts for the back end */
  SF_STRAND_DIE = 1 << 8,    /* some 'die' (strand or global) */
  SF_STRAND_NEW = 1 << 9,    /* some 'new' */
  SF_STRAND_SPHERE = 1 << 10, /* 'sphere' queries */
  SF_STRAND_SETS = 1 << 11,  /* reductions / comprehensions over strand sets */
  SF_STRAND_SELECT = 1 << 12, /* reads another strand's state (s.x) */
  SF_GLOBAL_STABILIZE = 1 << 13, /* 'stabilize' in a global block */
  SF_FUNC_USES_GLOBALS = 1 << 14, /* SYM_FUNC: reads inputs/globals */
};

typedef struct Symbol Symbol;
struct Symbol {
  SymKind kind;
  const char *name;
  const Type *ty;
  Span span; /* the declared name (zero for built-ins) */
  unsigned flags;
  int id;
  Decl *decl;                    /* CONST INPUT GLOBAL STATE FUNC FIELD_FUNC */
  const struct ConstValue *cval; /* CONST (and foldable INPUT defaults) */
  const ProxyInfo *proxy;        /* image declared with load_image("f") */
  const char *proxy_path;        /* the path as resolved for proxy_read */
  const char *load_file;         /* hidden image global: the file as written */
  const struct Kernel *kernel;   /* KERNEL */
  const Builtin *overloads;      /* BUILTIN: the first overload */
  int noverloads;
  StrandDecl *strand;            /* STRAND */
  Symbol *const *state;          /* STRAND: state variables in order */
  int nstate;
  struct SymTable *state_index;  /* STRAND: state variables by name */
  Symbol *const *params;         /* STRAND, FUNC, FIELD_FUNC: parameters */
  int nparams;
  Symbol *pos;                   /* STRAND: the 'pos' state variable */
  int track;                     /* var_uses: index in the init analysis */
};

/* Human-readable kind ("constant", "function parameter", ...). */
const char *sym_kind_name(SymKind k);
/* Variables in the sense of §3.6 lookup: everything that has a value. */
bool sym_is_variable(const Symbol *s);

typedef struct Env Env;

Env *env_new(Arena *a);
void env_push(Env *e);
void env_pop(Env *e);
int env_depth(const Env *e);
/* The innermost binding of `name`, or NULL. */
Symbol *env_lookup(const Env *e, const char *name);
/* A binding of `name` in the innermost scope only. */
Symbol *env_lookup_local(const Env *e, const char *name);
/* Bind in the innermost scope (the caller checks redefinition). */
void env_bind(Env *e, Symbol *s);
/* Call fn on every binding, innermost scope first (shadowed ones too). */
void env_each(const Env *e, void (*fn)(Symbol *s, void *ctx), void *ctx);

/* A flat name -> symbol table (strand state variables). */
typedef struct SymTable SymTable;
SymTable *symtab_new(Arena *a, int expected);
void symtab_put(SymTable *t, Symbol *s);
Symbol *symtab_get(const SymTable *t, const char *name);

/* FNV-1a, shared by the tables. */
unsigned env_hash(const char *s);

#endif
