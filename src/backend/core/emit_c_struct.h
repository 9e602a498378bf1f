/* emit_c_struct.h -- a CFG as a tree of C statements (emit_c_struct.c),
 * printed by emit_c_cfg.c. Internal to src/backend/core. */
#ifndef DIDEROT_BACKEND_CORE_EMIT_C_STRUCT_H
#define DIDEROT_BACKEND_CORE_EMIT_C_STRUCT_H

#include "ir/ir.h"
#include "util/arena.h"

typedef enum EsKind {
  ES_SEQ,   /* its children, one after the other */
  ES_BLOCK, /* b's label (when a goto targets it), phis of a loop header, instructions */
  ES_IF,    /* if (b's condition) { first } else { first->next } */
  ES_LOOP,  /* for (;;) { first }: b is the loop's header */
  ES_EDGE,  /* the jump b -> to: the phi copies, then `jump` */
  ES_EXIT   /* b's terminator: return, die, stabilize, continue, an error */
} EsKind;

typedef enum EsJump {
  ES_INLINE,   /* `to` follows in the text, inside this statement */
  ES_FALL,     /* `to` is where control falls off this text */
  ES_CONTINUE, /* `to` is the innermost printed loop's header */
  ES_BREAK,    /* `to` is printed just after the innermost printed loop */
  ES_GOTO      /* anywhere else: `goto L<to>` */
} EsJump;

typedef struct EsNode EsNode;
struct EsNode {
  EsKind kind;
  IrBlock *b;
  IrBlock *to;  /* ES_EDGE */
  EsJump jump;  /* ES_EDGE */
  EsNode *first, *last; /* children (ES_SEQ, ES_IF, ES_LOOP) */
  EsNode *next;         /* the next sibling */
};

/* What the printer needs besides the tree, by a block's rpo number. */
typedef struct EsInfo {
  EsNode *tails; /* sequences reached only by goto, printed after the body (linked by next) */
  bool *label;   /* the block needs a label (a goto's target) */
  bool *via_in;  /* its phis are copied through x_in variables (a retreating
                    predecessor: a loop header), not assigned on each incoming edge */
} EsInfo;

/* The tree of cfg's reachable blocks (computes its dominators). */
EsNode *emit_struct_cfg(Arena *a, IrCFG *cfg, EsInfo *info);

#endif
