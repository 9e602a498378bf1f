/* ast_to_high_impl.h -- declarations shared by ast_to_high*.c.
 *
 * SSA construction follows Braun et al., "Simple and efficient construction
 * of SSA form" (CC 2013): a source variable is a *slot*; each block maps
 * slots to their current value; reading a slot in a block without a local
 * definition looks through the predecessors, placing phis at joins (and
 * incomplete phis in blocks whose predecessors are not all known yet, i.e.
 * loop headers before their back edge is added: such blocks are not
 * "sealed"). Trivial phis are removed when a CFG is finished.
 */
#ifndef DIDEROT_TRANSLATE_AST_TO_HIGH_IMPL_H
#define DIDEROT_TRANSLATE_AST_TO_HIGH_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "frontend/basis.h"
#include "frontend/const_eval.h"
#include "frontend/env.h"
#include "frontend/types.h"
#include "ir/ir.h"
#include "translate/ast_to_high.h"
#include "translate/ein_builders.h"

/* A (key, value) hash map with uint64 keys, for slots and block defs. */
typedef struct ThMap {
  uint64_t *keys; /* 0 = empty (keys are stored +1) */
  void **vals;
  size_t cap, n;
} ThMap;
void *th_map_get(const ThMap *m, uint64_t key);
void th_map_put(Arena *a, ThMap *m, uint64_t key, void *val);

typedef enum SlotKind { SLOT_LOCAL, SLOT_GLOBAL, SLOT_STATE } SlotKind;

typedef struct Slot {
  SlotKind kind;
  const IrType *ty;
  const char *name;
  IrGlobal *global;   /* SLOT_GLOBAL */
  IrStateVar *state;  /* SLOT_STATE */
  bool assigned;      /* written by this CFG (global/state: written back) */
} Slot;

typedef struct Tr Tr;

/* Where the code of a CFG runs (exits and the meaning of stabilize/die). */
typedef enum FnWhere { FW_INIT, FW_STRAND_INIT, FW_METHOD, FW_STABILIZE, FW_GLOBAL, FW_FUNC } FnWhere;

/* An inlined function being translated: its `return`s jump to ret. */
typedef struct InlineFrame {
  IrBlock *ret;
  int slot; /* the return value's slot */
  const IrType *ty;
  struct InlineFrame *up;
} InlineFrame;

typedef struct PendingPhi {
  IrBlock *block;
  int slot;
  IrInstr *phi;
  int next; /* 1 + the index of the block's next pending phi; 0: none */
} PendingPhi;

typedef struct Fn {
  Tr *t;
  IrCFG *cfg;
  FnWhere where;
  IrBlock *cur;    /* NULL: the code being translated is unreachable */
  int inst;        /* inline instance of locals (0: top level) */
  int nentry;      /* instructions inserted at the top of the entry block */
  ThMap slot_of;   /* (symbol or key, instance) -> slot index + 1 */
  Slot *slots;
  int nslots, capslots;
  ThMap defs;      /* (block id, slot) -> IrVar */
  bool *sealed;    /* by block id */
  int *pend_head;  /* by block id: 1 + the index of its last pending phi; 0: none */
  int capsealed;
  PendingPhi *pend;
  int npend, cappend;
  IrBlock **exits; /* blocks ending in an exit that writes back */
  int nexits, capexits;
  InlineFrame *frame;
  bool strand_params_local; /* STRAND_INIT: strand parameters are CFG params */
} Fn;

struct Tr {
  Arena *a;
  DiagCtx *d;
  EinContext *ein;
  Program *prog;
  IrModule *m;
  const HighTranslateOptions *opts;
  TypeCtx tc;
  ConstEval ce;
  Symbol *strand;
  ThMap globals;      /* Symbol* -> IrGlobal* */
  ThMap states;       /* Symbol* -> IrStateVar* (strand params: the hidden copy) */
  int next_inst;      /* inline instances */
  int nreduce;        /* map functions made so far */
  int depth;          /* nesting of re-translated global definitions */
  Decl *ffunc;        /* the field function whose body is being translated
                         (§4.12; its x is a field there), or NULL */
  bool failed;
  const char *internal; /* the first internal error */
  /* kernel inputs (ast_to_high_choice.c): declaration order; the kernel
   * each is bound to in the copy being translated; which symbols' code
   * uses one (memo) */
  Symbol **choice_syms;
  int nchoice, capchoice;
  ThMap choice_bind, choice_uses;
};

/* ---- ast_to_high.c ---- */
const IrType *th_type(Tr *t, const Type *ty);
EinParam th_param(const IrType *ty);
/* Report a construct this translation does not support (ERR_NOT_YET). */
void th_unsupported(Tr *t, Span sp, const char *what);
/* An internal inconsistency (never user error); makes the result NULL. */
void th_internal(Tr *t, const char *what);

/* SSA */
Fn *th_fn_new(Tr *t, IrCfgKind kind, const char *name, FnWhere where);
IrBlock *th_block(Fn *f, const char *label);
void th_seal(Fn *f, IrBlock *b);
int th_slot_sym(Fn *f, Symbol *s);             /* slot of a variable symbol */
int th_slot_key(Fn *f, const void *key, const IrType *ty, const char *name);
void th_write(Fn *f, int slot, IrBlock *b, IrVar *v);
IrVar *th_read(Fn *f, int slot, IrBlock *b);
/* Ends the current block with an exit (after recording the write-back). */
void th_exit(Fn *f, IrTermKind kind);
/* Write assigned globals back now (before a strand_reduce reads them). */
void th_flush_globals(Fn *f);
/* Finish: write-backs at the exits, trivial phi removal. */
void th_fn_finish(Fn *f);
/* A jump from the current block (if reachable) to `to`. */
void th_jump(Fn *f, IrBlock *to);

/* Literals / defaults. */
IrVar *th_value(Fn *f, const ConstValue *cv, const IrType *ty);
IrVar *th_zero(Fn *f, IrBlock *b, const IrType *ty);

/* ---- ast_to_high_expr.c ---- */
IrVar *th_expr(Fn *f, Expr *e);
/* Coerce v (of frontend type `from`) to `to` (§3.3). */
IrVar *th_coerce(Fn *f, IrVar *v, const Type *from, const Type *to);
IrVar *th_ein(Fn *f, const EinOp *op, const Type *res, int n, IrVar *const *args);
/* The current value of a variable symbol (globals of field/kernel type are
 * re-translated from their definition). */
IrVar *th_var(Fn *f, Symbol *s, Span sp);

/* Record the kernel an immutable local/parameter of kernel type is bound to
 * (so that h#k resolves at compile time). */
void th_bind_kernel(Fn *f, Symbol *s, const Expr *init);
const Kernel *th_kernel_of(Fn *f, const Expr *e);
void th_bind_kernel_k(Fn *f, Symbol *s, const Kernel *k);

/* ---- ast_to_high_walk.c: what declare_state needs to know ---- */
/* used[i] = whether s (and what follows it) reads strand parameter ps[i] */
void th_mark_params_stmt(Tr *t, const Stmt *s, bool *used, Symbol *const *ps, int np);
/* state variables read through other strands (n.x): shared */
void th_mark_shared_stmt(Tr *t, const Stmt *s);
void th_mark_shared_expr(Tr *t, const Expr *e);

/* ---- ast_to_high_choice.c: inputs chosen at run time (kernel#k) ---- */
bool th_is_choice(const Symbol *s);
/* The int IrGlobal of the kernel input declared by d (its choices). */
void th_choice_global(Tr *t, Decl *d);
/* The kernel s stands for in the copy being translated (NULL: none). */
const Kernel *th_choice_kernel(Fn *f, const Symbol *s);
/* What s is bound to in the copy being translated (a Kernel, or the
 * HighIR border operator as a const int *), NULL outside the copies. */
const void *th_choice_bound(Fn *f, const Symbol *s);
void th_choice_bind(Tr *t, const Symbol *s, const void *v);
/* s's choices: names[i] and what each binds s to; how many */
const void **th_choices_of(Tr *t, const Symbol *s, const char ***names, int *n);
int th_choice_count(Tr *t, const Symbol *s);
/* The choice inputs code uses (bit i: choice_syms[i]). */
uint64_t th_uses_choice_stmt(Tr *t, const Stmt *s);
uint64_t th_uses_choice_expr(Tr *t, const Expr *e);
/* Translate body(f, ctx) once per combination of the choices in `uses`,
 * behind tests of the inputs' indices (just once when uses is 0); more
 * than TH_MAX_CHOICE_COPIES combinations is an error. */
#define TH_MAX_CHOICE_COPIES 256
typedef void (*ThChoiceBody)(Fn *f, void *ctx);
void th_with_choices(Fn *f, uint64_t uses, ThChoiceBody body, void *ctx);

/* ---- ast_to_high_stmt.c ---- */
void th_stmt(Fn *f, Stmt *s);
/* Calls of user functions (inlined). */
IrVar *th_inline_call(Fn *f, Expr *e);
/* A comprehension as a value (sequence), or a reduction over one. */
IrVar *th_comprehension(Fn *f, Expr *e);
IrVar *th_reduce(Fn *f, Expr *e, BuiltinId id);
/* The loop nest of the strand creation (CREATE CFG). */
void th_create(Fn *f, Create *c);

#endif
