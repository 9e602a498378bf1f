/* high_to_mid_impl.h -- what high_to_mid.c shares with high_to_mid_leaves.c
 * (the probes of the leaves that are not convolutions: evals/evecs of a
 * field and compositions F ∘ G). The contract is in high_to_mid.c. */
#ifndef DIDEROT_TRANSLATE_HIGH_TO_MID_IMPL_H
#define DIDEROT_TRANSLATE_HIGH_TO_MID_IMPL_H

#include "translate/high_to_mid.h"

/* A leaf argument of a symbolic field: a MidIR tensor, an image (its
 * border mode kept aside, §8.6), a kernel known at compile time, the
 * position of a field function, or evals/evecs of a matrix field. */
typedef enum { MA_TENSOR, MA_IMAGE, MA_KERNEL, MA_POSITION, MA_EIGEN, MA_COMPOSE } MArgKind;
typedef struct FieldDef FieldDef;
typedef struct MArg {
  MArgKind kind;
  IrVar *var;       /* TENSOR, IMAGE (the underlying image) */
  IrBorder border;  /* IMAGE */
  const Kernel *k;  /* KERNEL */
  int cont;
  const FieldDef *eig;   /* EIGEN: the matrix field; COMPOSE: G of F ∘ G */
  const IrType *eig_ty;  /* EIGEN: its type, field(d)[n,n]; COMPOSE: G's type */
  int eig_op;            /* EIGEN: IR_OP_EVALS or IR_OP_EVECS */
  const FieldDef *outer; /* COMPOSE: F */
  const IrType *outer_ty; /* COMPOSE: F's type */
} MArg;

/* A field as an EIN operator over leaf arguments (no field parameters). */
struct FieldDef {
  const EinOp *op;
  int nargs;
  MArg *args;
};

typedef struct Tr {
  IrModule *high, *mid;
  EinContext *ec;
  Arena *a;
  DiagCtx *diag;
  HighToMidStats *st;
  IrGlobal **gmap;
  IrStateVar **smap;
  IrCFG **cfgmap;
  /* per CFG (indexed by HighIR variable id, reset for each CFG) */
  IrCFG *hcfg, *mcfg;
  IrVar **vmap;
  IrBlock **bmap; /* indexed by HighIR block id */
  IrBlock *cur;   /* where instructions are emitted */
  int depth;      /* recursion guard for field definitions */
  bool failed;
} Tr;

/* Parameters of the operator being built. */
typedef struct PList {
  int n, cap;
  EinParam *p;
  IrVar **args;
} PList;

typedef struct ProbeCtx ProbeCtx;
typedef struct ProbeSet {
  int n, cap;
  ProbeCtx **v;
} ProbeSet;

typedef struct Rewrite {
  Tr *t;
  const EinOp *op;
  const MArg *args;
  const int *tmap; /* tensor parameter → its index in pl */
  PList *pl;
  ProbeSet *probes;
  int fresh;
} Rewrite;

void h2m_fail(Tr *t, const char *what);     /* ERR_NOT_YET, once */
void h2m_internal(Tr *t, const char *what); /* ERR_LOWERING_FAILED, once */
IrVar *h2m_emit_op(Tr *t, const char *hint, int op, int nargs, IrVar *const *args, int nimm,
                   const int *imm);
/* A tensor parameter of the operator being built; its index. */
int h2m_plist_tensor(Tr *t, PList *l, IrVar *arg, int rank, const int *shape);
/* The MidIR value of the fused operator op over leaf arguments args. */
IrVar *h2m_emit_tensor_op(Tr *t, const EinOp *op, int nargs, const MArg *args, const char *name);

/* high_to_mid_leaves.c: the probe e = (... leaf ...)@P rewritten when its
 * leaf is evals/evecs of a field, or a composition; NULL when it is not
 * (or after a reported failure, t->failed). */
const EinExpr *h2m_eigen_probe(Rewrite *rw, const EinExpr *e);
const EinExpr *h2m_compose_probe(Rewrite *rw, const EinExpr *e);

#endif
