/* ir.h -- the SSA/CFG intermediate representation of the middle end.
 *
 * One data structure serves the three levels (seed paper 004, §2.4):
 *   HighIR  source types (fields, kernels, images); tensor and field
 *           computations are EIN operators λ params ⟨e⟩_σ (args);
 *   MidIR   no fields: voxel addressing, world-to-index transforms, kernel
 *           evaluation, EIN over tensors;
 *   LowIR   scalars and vectors of arbitrary width, memory loads, Horner
 *           evaluation of kernel polynomials, index arithmetic.
 * Each level has its own operator table, kept as data in an X-macro file
 * (common_ops.def + high_ops.def / mid_ops.def / low_ops.def): name,
 * arity, result-type rule and flags. Adding an operator touches one line
 * there (plus a rule in ir_ops.c if no existing rule fits).
 *
 * Shape of a module: globals (constants, inputs, plain globals), strand
 * state variables, and code units, each an IrCFG: functions, the global
 * initialisation, strand initialisation (its parameters are the strand's),
 * the methods start/update/stabilize, the global start/update blocks and the
 * initial strand creation. A CFG is a list of blocks; a block has phis, a
 * list of instructions and one terminator. Loops (foreach, comprehensions)
 * are CFG loops with phis in the header.
 *
 * Invariants (ir_check.c verifies them): every variable has exactly one
 * definition (an instruction or a CFG parameter) that dominates every use;
 * a phi has one argument per predecessor, in the order of block->preds; the
 * entry block has no predecessors and no phis; every block ends in a
 * terminator; operators get the arity and the argument types their rule
 * asks for.
 *
 * Memory: everything lives in the module's arena. Arrays grow by copying
 * (the old copy is abandoned in the arena). Def-use information is not
 * maintained incrementally: ir_cfg_build_uses() rebuilds it on demand.
 */
#ifndef DIDEROT_IR_IR_H
#define DIDEROT_IR_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/kernel.h"
#include "ir/ein.h"
#include "util/arena.h"

typedef enum IrLevel { IR_HIGH, IR_MID, IR_LOW } IrLevel;

/* ---- operators ------------------------------------------------------------ */

typedef enum IrHighOp {
#define IR_OP(id, name, arity, rule, flags) IR_HOP_##id,
#include "ir/high_ops.def"
#undef IR_OP
  IR_HOP_COUNT
} IrHighOp;

typedef enum IrMidOp {
#define IR_OP(id, name, arity, rule, flags) IR_MOP_##id,
#include "ir/mid_ops.def"
#undef IR_OP
  IR_MOP_COUNT
} IrMidOp;

typedef enum IrLowOp {
#define IR_OP(id, name, arity, rule, flags) IR_LOP_##id,
#include "ir/low_ops.def"
#undef IR_OP
  IR_LOP_COUNT
} IrLowOp;

/* The common operators: the same number at every level (each table starts
 * with common_ops.def), for passes that work at any level. */
typedef enum IrCommonOp {
#define IR_OP(id, name, arity, rule, flags) IR_OP_##id,
#include "ir/common_ops.def"
#undef IR_OP
  IR_OP_COMMON_COUNT
} IrCommonOp;

/* Result-type rules; ir_ops.c implements each (what it accepts is written
 * there next to the code). */
#define IR_RULES(X)                                                              \
  X(NONE) X(INT0) X(INT1) X(INT2) X(CMP_ORD) X(CMP_EQ) X(BOOL1) X(BOOL2)         \
  X(SELECT) X(NUM2) X(INT_TO_REAL) X(REAL1) X(REAL2) X(REAL_INT) X(TENSOR_CONS)  \
  X(TENSOR_INDEX) X(CLAMP) X(MAT_SQUARE) X(EVALS) X(EVECS) X(SEQ_CONS)           \
  X(SEQ_LENGTH) X(SEQ_INDEX) X(SEQ_APPEND) X(SEQ_PREPEND) X(SEQ_CONCAT) X(INDEX_FAIL) X(RANGE) \
  X(RED_BOOL) X(RED_NUM) X(RED_MEAN) X(LOAD_SEQ) X(LOAD_IMAGE) X(IMAGE_SIZE) X(IMAGE_WORLD) X(IMAGE_SAMPLE) \
  X(SPHERE) X(SPHERE_AT) X(STRAND_REDUCE) X(NEW) X(PRINT) X(PROBE_FAIL) X(EIN) X(CONVOLVE)     \
  X(INSIDE) X(IMAGE_SAME) X(BORDER_CONST) X(IMG_TRANSFORM) X(IMG_TRANSLATE)      \
  X(WORLD_TO_INDEX) X(TENSOR_SAME) X(REAL_TO_INT) X(TRUNC_TO_INT) X(LOAD_VOXELS) X(KERNEL_EVAL)  \
  X(INSIDE_IMAGE) X(FLOOR_TO_INT) X(VEC1) X(VEC2) X(VSCALE) X(VSUM) X(VDOT)      \
  X(VINDEX) X(VSPLAT) X(VSLICE) X(VCONS) X(VEC_TO_TENSOR) X(TENSOR_TO_VEC)       \
  X(HORNER) X(LOAD) X(VLOAD) X(POSITION) X(FIELD_EIGEN) X(INPUT_GIVEN) X(FIELD_COMPOSE)

typedef enum IrRule {
#define IR_RULE_X(id) IR_RULE_##id,
  IR_RULES(IR_RULE_X)
#undef IR_RULE_X
  IR_RULE_COUNT
} IrRule;

enum {
  IR_OPF_PURE = 1u << 0,   /* no effect; result a function of the arguments */
  IR_OPF_READ = 1u << 1,   /* no effect, but reads mutable state */
  IR_OPF_EFFECT = 1u << 2, /* observable effect */
  IR_OPF_COMM = 1u << 3    /* commutative in its two arguments */
};
#define IR_VARIADIC (-1)

typedef struct IrOpInfo {
  const char *name;
  int arity; /* or IR_VARIADIC */
  IrRule rule;
  unsigned flags;
} IrOpInfo;

/* The table entry of `op` at `level`, or NULL when op is out of range. */
const IrOpInfo *ir_op_info(IrLevel level, int op);
int ir_op_count(IrLevel level);
/* The operator called `name` at `level`, or -1. */
int ir_op_lookup(IrLevel level, const char *name);
/* The EIN operator's number at levels that have one (-1 at LowIR). */
int ir_op_ein(IrLevel level);
const char *ir_level_name(IrLevel level); /* "high", "mid", "low" */

/* Immediate operands of some operators. */
typedef enum IrBorder {
  IR_BORDER_NONE, IR_BORDER_CLAMP, IR_BORDER_MIRROR, IR_BORDER_WRAP
} IrBorder;
typedef enum IrReduce {
  IR_REDUCE_ALL, IR_REDUCE_EXISTS, IR_REDUCE_SUM, IR_REDUCE_PRODUCT,
  IR_REDUCE_MIN, IR_REDUCE_MAX, IR_REDUCE_MEAN,
  /* STRAND_REDUCE only: the parallel map { e | x in S.all } (§3.5); the
   * result is T[] of the map values, in strand storage order. */
  IR_REDUCE_COLLECT
} IrReduce;
typedef enum IrStrandSet { IR_SET_ALL, IR_SET_ACTIVE, IR_SET_STABLE } IrStrandSet;

/* ---- types ------------------------------------------------------------------ */

typedef enum IrTypeKind {
  IR_TY_BOOL,
  IR_TY_INT,
  IR_TY_STRING,
  IR_TY_TENSOR, /* dims[order]; real is the order-0 tensor */
  IR_TY_VEC,    /* LowIR only: `width` reals in one vector */
  IR_TY_SEQ,    /* elem, len (IR_SEQ_DYNAMIC for T[]) */
  IR_TY_IMAGE,  /* dim, dims (voxel shape) */
  IR_TY_FIELD,  /* HighIR only: cont, dim, dims */
  IR_TY_KERNEL, /* HighIR and MidIR: cont */
  IR_TY_STRAND  /* name */
} IrTypeKind;

#define IR_SEQ_DYNAMIC (-1)
#define IR_CONT_INF 0x3fffffff
enum { IR_MAX_ORDER = 8 };

/* Types are interned in the module's type table: within modules that share
 * it (ir_module_next_level), equal types are the same pointer. Shapes are
 * normalised as in the frontend: axes of size 1 are dropped. */
typedef struct IrType IrType;
struct IrType {
  IrTypeKind kind;
  int order;
  const int *dims;
  int dim;
  int cont;
  int width;
  int len;
  const IrType *elem;
  const char *name;
  uint32_t hash;
};

typedef struct IrModule IrModule;
typedef struct IrCFG IrCFG;
typedef struct IrBlock IrBlock;
typedef struct IrInstr IrInstr;
typedef struct IrVar IrVar;

const IrType *ir_type_bool(IrModule *m);
const IrType *ir_type_int(IrModule *m);
const IrType *ir_type_string(IrModule *m);
const IrType *ir_type_real(IrModule *m);
const IrType *ir_type_tensor(IrModule *m, int order, const int *dims);
const IrType *ir_type_vec(IrModule *m, int width);
const IrType *ir_type_seq(IrModule *m, const IrType *elem, int len);
const IrType *ir_type_image(IrModule *m, int dim, int order, const int *dims);
const IrType *ir_type_field(IrModule *m, int cont, int dim, int order, const int *dims);
const IrType *ir_type_kernel(IrModule *m, int cont);
const IrType *ir_type_strand(IrModule *m, const char *name);
bool ir_type_is_real(const IrType *t);
bool ir_type_is_int(const IrType *t);
bool ir_type_is_bool(const IrType *t);
/* Structural equality (pointer equality within one type table). */
bool ir_type_equal(const IrType *a, const IrType *b);
/* Whether values of this type may exist at `level`. */
bool ir_type_allowed(IrLevel level, const IrType *t);
/* Value types of doc/language.md §4.3 (print arguments, state). */
bool ir_type_is_value(const IrType *t);
/* "tensor[3,3]", "real", "int[]", "field#2(3)[]", "vec<4>", ... */
char *ir_type_str(Arena *a, const IrType *t);
/* snprintf-style: writes at most n bytes, returns the full length. */
int ir_type_snprint(char *buf, size_t n, const IrType *t);
void ir_type_fprint(FILE *out, const IrType *t);

/* ---- variables -------------------------------------------------------------- */

/* One use of a variable (see ir_cfg_build_uses). */
typedef struct IrUse {
  IrBlock *block;
  IrInstr *instr; /* NULL: the block's terminator */
  int arg;        /* argument position in instr */
} IrUse;

struct IrVar {
  int id;           /* unique in the module; printed as name#id */
  const char *name; /* hint for printing ("t" when none) */
  const IrType *ty;
  IrInstr *def;     /* the defining instruction; NULL for a parameter */
  int param;        /* parameter position, or -1 */
  IrCFG *cfg;
  /* Filled by ir_cfg_build_uses(); stale after any change. */
  int nuses;
  IrUse *uses;
};

/* ---- instructions ------------------------------------------------------------ */

typedef enum IrInstrKind {
  IR_I_OP,         /* dst = op[imm](args); dst NULL for effect-only ops */
  IR_I_LIT,        /* dst = literal */
  IR_I_COPY,       /* dst = args[0] */
  IR_I_PHI,        /* dst = φ(args), one per predecessor (block->preds order) */
  IR_I_GLOBAL_GET, /* dst = global */
  IR_I_GLOBAL_SET, /* global = args[0] */
  IR_I_STATE_GET,  /* dst = self.state, or args[0].state (another strand) */
  IR_I_STATE_SET   /* self.state = args[0] */
} IrInstrKind;

typedef enum IrLitKind {
  IR_LIT_BOOL, IR_LIT_INT, IR_LIT_REAL, IR_LIT_STRING, IR_LIT_KERNEL
} IrLitKind;

typedef struct IrLit {
  IrLitKind kind;
  bool b;
  int64_t i;
  double r;
  const char *s;
  const Kernel *kernel; /* the kernel's type carries the continuity (name#k) */
} IrLit;

typedef struct IrGlobal IrGlobal;
typedef struct IrStateVar IrStateVar;

struct IrInstr {
  IrInstrKind kind;
  int op;           /* IR_I_OP: the operator of the module's level */
  IrVar *dst;
  int nargs;
  IrVar **args;
  int nimm;
  const int *imm;   /* immediate operands (indices, support, border, ...) */
  const EinOp *ein; /* the EIN operator of an EIN instruction */
  IrCFG *fn;        /* STRAND_REDUCE: the map function */
  IrGlobal *global; /* GLOBAL_GET / GLOBAL_SET */
  IrStateVar *state;/* STATE_GET / STATE_SET */
  IrLit lit;        /* IR_I_LIT */
  IrBlock *block;   /* containing block (NULL when detached) */
  bool mark;        /* scratch flag for passes */
  int line;         /* source line it came from (0: unknown); set from
                       cfg->cur_line when created, for comments in generated C */
};

/* ---- blocks ------------------------------------------------------------------- */

typedef enum IrTermKind {
  IR_T_NONE,      /* not yet terminated (rejected by the checker) */
  IR_T_JUMP,      /* succ[0] */
  IR_T_BRANCH,    /* if value then succ[0] else succ[1] */
  IR_T_RETURN,    /* value (functions) or none (other units) */
  IR_T_STABILIZE, /* strand start/update: become stable and exit */
  IR_T_DIE,       /* strand start/update: die */
  IR_T_CONTINUE,  /* strand start/update: end this super-step, stay active */
  IR_T_ERROR      /* any unit: leave it at once; the run-time error that
                     stops the program was recorded just before (LowIR
                     probe_fail), so no successor and no result */
} IrTermKind;

typedef struct IrTerm {
  IrTermKind kind;
  IrVar *value; /* BRANCH condition, RETURN value (may be NULL) */
  IrBlock *succ[2];
} IrTerm;

struct IrBlock {
  int id;            /* unique in the CFG; printed as b<id> */
  const char *label; /* hint printed after the id, or NULL */
  IrCFG *cfg;
  int nphis, capphis;
  IrInstr **phis;
  int ninstrs, capinstrs;
  IrInstr **instrs;
  IrTerm term;
  int npreds, cappreds;
  IrBlock **preds;
  /* Filled by ir_cfg_compute_dominators(). */
  int rpo;           /* reverse-postorder number; -1 when unreachable */
  IrBlock *idom;     /* NULL for the entry and unreachable blocks */
  int ndomkids;
  IrBlock **domkids; /* dominator-tree children, in reverse postorder */
  int dom_pre, dom_post;
  int scratch;       /* free for passes (e.g. membership stamps) */
  /* The first elements of phis, instrs and preds live in the block itself
   * (ir.c grows them into the arena past that): most blocks of a big CFG
   * hold one or two of each, and a walk over the blocks then reads the
   * block's own cache lines instead of three arrays elsewhere. An IrBlock
   * is never copied by value. */
  IrInstr *inl_phis[1], *inl_instrs[2];
  IrBlock *inl_preds[2];
};

/* ---- CFGs and modules ---------------------------------------------------------- */

typedef enum IrCfgKind {
  IR_CFG_FUNC,          /* a function (result type in cfg->result) */
  IR_CFG_GLOBAL_INIT,   /* constants, inputs defaults, globals, global initialize */
  IR_CFG_STRAND_INIT,   /* parameters: the strand's; state initialisation */
  IR_CFG_START,         /* strand methods */
  IR_CFG_UPDATE,
  IR_CFG_STABILIZE,
  IR_CFG_GLOBAL_START,  /* global blocks */
  IR_CFG_GLOBAL_UPDATE,
  IR_CFG_CREATE         /* initial strands (create_array / create_collection) */
} IrCfgKind;

struct IrCFG {
  IrModule *module;
  IrCfgKind kind;
  const char *name;
  int nparams, capparams;
  IrVar **params;
  const IrType *result; /* functions; NULL otherwise */
  int nblocks, capblocks;
  IrBlock **blocks;     /* in order; blocks[0] is the entry */
  IrBlock *entry;
  IrBlock *exit;        /* optional unique exit block (NULL if none) */
  int next_block_id;
  int cur_line;         /* line given to new instructions (translators set it
                           per statement / per instruction translated; 0 after) */
  /* The dominator tree of the blocks' fields is current: set by
   * ir_cfg_compute_dominators, cleared by every edit of blocks or edges
   * (ir.c's block and terminator functions). dom_reached is its count of
   * reachable blocks, dom_print a fingerprint that the IR checker compares
   * with a fresh computation. */
  bool dom_valid;
  int dom_reached;
  uint64_t dom_print;
};

typedef enum IrGlobalKind { IR_GLOBAL_CONST, IR_GLOBAL_INPUT, IR_GLOBAL_VAR } IrGlobalKind;

/* A compile-time value: folded constants and input defaults (filled by the
 * AST -> HighIR translation; its kind follows ty: bool, int, string, tensor
 * (components row-major, nr = 1 for real) or fixed sequence). */
typedef struct IrValue IrValue;
struct IrValue {
  const IrType *ty;
  bool b;
  int64_t i;
  int nr;
  const double *r;
  const char *s;
  size_t slen;
  int n;
  const IrValue *const *elems;
};

/* The header of a proxy image (doc/language.md §6.1): it fixes the sample
 * type (with dimension and shape); sizes are run-time values. */
typedef struct IrProxy {
  int dim;                 /* spatial axes */
  int ncomp;               /* components per sample */
  int nrrd_type;           /* Teem's nrrdType* value */
  const char *sample_type; /* "float", "uchar", ... */
} IrProxy;

struct IrGlobal {
  int index;
  IrGlobalKind kind;
  const char *name;
  const IrType *ty;
  const char *desc; /* input description, or NULL */
  bool has_default; /* inputs */
  /* Set by the translation (see the contract in src/translate/ast_to_high.c). */
  const IrValue *value; /* folded constant value / input default, or NULL */
  const char *path;     /* load_image/load_sequence file of the default or initializer */
  const IrProxy *proxy; /* image with a proxy file at compile time, or NULL */
  /* an input whose default the program computes (an extension): the
   * default's source text (GLOBAL_INIT evaluates it when the input was
   * not given, see input_given); NULL otherwise */
  const char *default_text;
  /* a run-time choice (an extension, doc/language.md §6.9): an int input
   * holding the index of the chosen name in choices[0 .. nchoices); the
   * command line and --json take the names. choice_kind names what is
   * chosen ("kernel"); NULL (and nchoices 0) for every other global */
  const char *choice_kind;
  const char *const *choices;
  int nchoices;
};

struct IrStateVar {
  int index;
  const char *name;
  const IrType *ty;
  bool output;
  bool shared; /* read by other strands (n.x, sphere): needs in/out copies */
  bool position; /* places the strand for sphere() ('pos' or declared
                    'position', doc/language.md §9.3) */
};

typedef struct IrTypeTable IrTypeTable;

struct IrModule {
  Arena *arena;
  IrLevel level;
  IrTypeTable *types;
  int nglobals, capglobals;
  IrGlobal **globals;
  int nstate, capstate;
  IrStateVar **state;
  const char *strand_name; /* NULL until set */
  bool create_array;       /* initial strands form a grid */
  /* LowIR: the halo of bricked images (MidToLowOptions.halo), the widest
   * kernel support of the probes; 0: none. The back end's re-layout of a
   * loaded image fills it (lyt_image_storage). */
  int image_halo;
  int ncfgs, capcfgs;
  IrCFG **cfgs;
  int next_var_id;
  /* Blocks, instructions and variables are carved from runs of their own
   * kind (ir.c's pool_take), so that a walk over the blocks of a big CFG
   * reads consecutive memory instead of objects spread among every other
   * allocation of the arena (issue 37: on 10^5 blocks each walk missed the
   * cache at every block). */
  struct IrPool {
    char *next;
    int left;
  } pool_blocks, pool_instrs, pool_vars;
};

/* ---- construction ---------------------------------------------------------------- */

IrModule *ir_module_new(Arena *a, IrLevel level);
/* An empty module at `level` sharing prev's arena and type table (so types
 * carried over by a lowering pass stay pointer-comparable). */
IrModule *ir_module_next_level(IrModule *prev, IrLevel level);
void ir_module_set_strand(IrModule *m, const char *name);
const IrType *ir_module_strand_type(IrModule *m); /* NULL when no strand */
IrGlobal *ir_global_new(IrModule *m, IrGlobalKind kind, const char *name, const IrType *ty);
IrStateVar *ir_state_new(IrModule *m, const char *name, const IrType *ty, bool output);
/* A new CFG with an (empty) entry block, appended to m->cfgs. */
IrCFG *ir_cfg_new(IrModule *m, IrCfgKind kind, const char *name);
/* The first CFG of `kind`, or NULL. */
IrCFG *ir_module_find_cfg(const IrModule *m, IrCfgKind kind);
const char *ir_cfg_kind_name(IrCfgKind k);
IrVar *ir_cfg_add_param(IrCFG *cfg, const char *hint, const IrType *ty);

IrBlock *ir_block_new(IrCFG *cfg, const char *label);
/* A variable with no definition yet (attach it with ir_instr_new / phi). */
IrVar *ir_var_new(IrCFG *cfg, const char *hint, const IrType *ty);

/* Detached instructions (dst's def is set to the new instruction). */
IrInstr *ir_instr_new(IrCFG *cfg, IrInstrKind kind, IrVar *dst, int nargs, IrVar *const *args);
void ir_instr_set_imm(IrCFG *cfg, IrInstr *in, int nimm, const int *imm);
void ir_block_append(IrBlock *b, IrInstr *in);
void ir_block_insert(IrBlock *b, int pos, IrInstr *in); /* before instrs[pos] */
/* Removes in from its block (phi or instruction); it stays allocated. */
void ir_instr_remove(IrInstr *in);
/* Position of in in its block's instruction list (-1 for phis/detached). */
int ir_instr_index(const IrInstr *in);

/* Emit at the end of b. The result type comes from the operator's rule when
 * `ty` is NULL; ir_emit_op returns NULL (and emits nothing) when the rule
 * rejects the arguments or cannot tell the type (e.g. load_image needs it
 * given). Effect-only operators (print, new, ...) have no result: ir_emit_op
 * rejects them, ir_emit_effect emits them and returns the instruction. */
IrVar *ir_emit_op(IrBlock *b, const char *hint, int op, const IrType *ty, int nargs,
                  IrVar *const *args, int nimm, const int *imm);
IrVar *ir_emit(IrBlock *b, int op, int nargs, IrVar *const *args);
IrVar *ir_emit1(IrBlock *b, int op, IrVar *a);
IrVar *ir_emit2(IrBlock *b, int op, IrVar *a, IrVar *c);
IrInstr *ir_emit_effect(IrBlock *b, int op, int nargs, IrVar *const *args, int nimm,
                        const int *imm);
/* EIN operator application; a field result needs `ty` (its continuity is
 * not derivable from the operator), a tensor result may pass NULL. */
IrVar *ir_emit_ein(IrBlock *b, const char *hint, const EinOp *op, const IrType *ty, int nargs,
                   IrVar *const *args);
IrVar *ir_emit_strand_reduce(IrBlock *b, const char *hint, IrReduce red, IrStrandSet set,
                             IrCFG *fn, int nargs, IrVar *const *args);
IrVar *ir_emit_bool(IrBlock *b, bool v);
IrVar *ir_emit_int(IrBlock *b, int64_t v);
IrVar *ir_emit_real(IrBlock *b, double v);
IrVar *ir_emit_string(IrBlock *b, const char *s);
IrVar *ir_emit_kernel(IrBlock *b, const Kernel *k, int cont);
IrVar *ir_emit_copy(IrBlock *b, const char *hint, IrVar *src);
IrVar *ir_emit_global_get(IrBlock *b, const char *hint, IrGlobal *g);
IrInstr *ir_emit_global_set(IrBlock *b, IrGlobal *g, IrVar *v);
/* strand NULL: the strand's own state */
IrVar *ir_emit_state_get(IrBlock *b, const char *hint, IrStateVar *s, IrVar *strand);
IrInstr *ir_emit_state_set(IrBlock *b, IrStateVar *s, IrVar *v);

/* Phis: a new phi has one NULL argument per current predecessor; adding a
 * predecessor later appends a NULL argument to every phi. */
IrVar *ir_phi_new(IrBlock *b, const char *hint, const IrType *ty);
void ir_phi_set_arg(IrInstr *phi, int k, IrVar *v);
/* Sets the argument of every predecessor slot that is `pred`. */
void ir_phi_set(IrInstr *phi, IrBlock *pred, IrVar *v);
/* Index of pred in b->preds (the first occurrence), or -1. */
int ir_block_pred_index(const IrBlock *b, const IrBlock *pred);

/* Terminators. Setting one replaces the previous terminator and its edges
 * (the block leaves its old successors' predecessor lists, with the
 * matching phi arguments). */
void ir_block_set_jump(IrBlock *b, IrBlock *target);
void ir_block_set_branch(IrBlock *b, IrVar *cond, IrBlock *then_b, IrBlock *else_b);
void ir_block_set_return(IrBlock *b, IrVar *value);
void ir_block_set_exit(IrBlock *b, IrTermKind kind); /* STABILIZE, DIE, CONTINUE */
void ir_block_clear_term(IrBlock *b);
int ir_block_nsuccs(const IrBlock *b);
/* Replace successor slot `slot` by `target` (phis of target get a NULL
 * argument for the new edge). */
void ir_block_retarget(IrBlock *b, int slot, IrBlock *target);

/* A branch becomes a jump along slot `keep` (0: then, 1: else); the kept
 * edge keeps its phi arguments. */
void ir_block_branch_to_jump(IrBlock *b, int keep);

/* Move instrs[pos..] and the terminator of b into a new block that b jumps
 * to; successors' predecessor entries (and their phis) follow. */
IrBlock *ir_block_split(IrBlock *b, int pos, const char *label);
/* Put a new block on the edge b --slot--> succ; returns it. */
IrBlock *ir_edge_split(IrBlock *b, int slot);
/* Remove a block whose predecessors are gone: its outgoing edges are
 * cleared and it leaves cfg->blocks. */
void ir_cfg_remove_block(IrCFG *cfg, IrBlock *b);

/* In-place replacement: the instruction keeps its dst and its position. */
void ir_instr_set_op(IrInstr *in, int op, int nargs, IrVar *const *args, int nimm,
                     const int *imm);
void ir_instr_set_copy(IrInstr *in, IrVar *src);
/* Rewrites every use of a variable v with repl[v->id] != NULL to that
 * replacement, followed to its end (repl maps ids below
 * cfg->module->next_var_id; chains must not loop): many replacements in
 * one walk of the CFG. */
void ir_cfg_replace_all(IrCFG *cfg, IrVar **repl);
/* Fills var->nuses / var->uses for every variable used in cfg. */
void ir_cfg_build_uses(IrCFG *cfg);

/* ---- type rules (ir_ops.c) -------------------------------------------------------- */

/* Checks instr `in` (an IR_I_OP at module level) against its operator's rule
 * and computes the result type into *result (NULL for effect-only
 * operators). `given` is the declared type (dst's type), used by rules
 * whose result is not determined by the arguments. Returns 0 when fine,
 * else an IrCheckKind (IR_CHK_ARITY, IR_CHK_TYPE, IR_CHK_IMM) with a message
 * in err. */
int ir_op_check_types(IrModule *m, const IrInstr *in, const IrType *given, const IrType **result,
                      char *err, size_t errlen);

/* ---- analyses ------------------------------------------------------------------------ */

/* Dominators (Cooper, Harvey & Kennedy's iterative algorithm over reverse
 * postorder); fills rpo, idom, domkids, dom_pre/dom_post of every block.
 * Returns the number of reachable blocks. When no block or edge changed
 * since the last call (cfg->dom_valid) the fields are current and it
 * returns at once: a compilation asks for them some 15 times per CFG, most
 * often with the CFG unchanged, and each computation walks every block. */
int ir_cfg_compute_dominators(IrCFG *cfg);
/* The same, computed afresh whatever dom_valid says (the IR checker's).
 * *stale is set when the cache claimed to be current and the fresh tree
 * differs (a CFG edit that did not clear dom_valid). */
int ir_cfg_recompute_dominators(IrCFG *cfg, bool *stale);
/* a dominates b (reflexive); valid after ir_cfg_compute_dominators(). */
bool ir_dominates(const IrBlock *a, const IrBlock *b);

/* ---- checker (ir_check.c) ------------------------------------------------------------- */

typedef enum IrCheckKind {
  IR_CHK_OK,
  IR_CHK_TERMINATOR, /* missing or malformed terminator, bad exit kind */
  IR_CHK_EDGE,       /* predecessor lists disagree with the terminators */
  IR_CHK_PHI,        /* phi arity != predecessors, entry phis, NULL phi argument */
  IR_CHK_MULTI_DEF,  /* a variable defined twice */
  IR_CHK_UNDEF,      /* a use with no definition (or from another CFG) */
  IR_CHK_DOMINANCE,  /* a definition that does not dominate a use */
  IR_CHK_ARITY,      /* wrong number of arguments */
  IR_CHK_TYPE,       /* argument or result types against the rule */
  IR_CHK_IMM,        /* wrong immediates */
  IR_CHK_LEVEL,      /* operator or type not available at this level */
  IR_CHK_PLACEMENT,  /* global/state access or exit where it is not allowed */
  IR_CHK_KIND_COUNT
} IrCheckKind;

typedef struct IrCheck {
  FILE *out;      /* messages go here when non-NULL */
  int nerrors;
  unsigned kinds; /* bit (1u << IrCheckKind) for each kind seen */
  char first[256];/* the first message */
} IrCheck;

/* Returns the number of errors found (also added to chk, which the caller
 * zero-initialises and may reuse across CFGs). chk may be NULL. Computes
 * dominators and uses block->scratch. */
int ir_check_cfg(IrCFG *cfg, IrCheck *chk);
int ir_check_module(IrModule *m, IrCheck *chk);

/* ---- passes ---------------------------------------------------------------------------- */

/* ir_dce.c: folds branches on literal conditions, removes unreachable
 * blocks, then removes instructions without effects whose results are not
 * needed (mark and sweep, so dead cycles of phis go too). Returns the
 * number of instructions removed. */
int ir_dce_cfg(IrCFG *cfg);
int ir_dce_module(IrModule *m);
/* Unreachable blocks only; returns how many were removed. */
int ir_remove_unreachable(IrCFG *cfg);

/* ir_vn.c: dominator-scoped value numbering over pure operators, literals
 * and copies (keyed by operator, immediates, EIN operator and the value
 * numbers of the arguments, sorted for commutative operators), plus
 * meaningless phis (all arguments the same, or the phi itself). Returns the
 * number of instructions removed. */
int ir_vn_cfg(IrCFG *cfg);
int ir_vn_module(IrModule *m);

/* ---- size (for --stats) ------------------------------------------------------------------ */

typedef struct IrSize {
  size_t blocks, instrs, phis, ein_ops, ein_nodes;
} IrSize;
IrSize ir_module_size(const IrModule *m);
IrSize ir_cfg_size(const IrCFG *cfg); /* one unit's part of it */

/* A callback that a pass driver (high_opt, mid_optimize, the driver's LowIR
 * passes) runs after each of its passes, with the pass named "level.pass"
 * (e.g. "mid.split"): per-pass --stats sizes, ir_check after every pass
 * (DIDEROT_CHECK_IR=1) and the differential tests (tests/unit/test_passes.c). */
typedef struct IrPassHook {
  void (*after)(void *ctx, const char *pass, IrModule *m);
  void *ctx;
} IrPassHook;

/* ---- printing (ir_print.c) ---------------------------------------------------------------- */

enum { IR_PRINT_ASCII = 1 }; /* EIN operators without non-ASCII symbols */
void ir_print_module(FILE *out, const IrModule *m, unsigned flags);
void ir_print_cfg(FILE *out, const IrCFG *cfg, unsigned flags);
void ir_print_instr(FILE *out, const IrInstr *in, unsigned flags);
char *ir_cfg_str(Arena *a, const IrCFG *cfg, unsigned flags);
char *ir_module_str(Arena *a, const IrModule *m, unsigned flags);

#endif
