/* layout_lego.h -- LEGO bijective layout pieces (LAYOUTS.md §1).
 *
 * Convention: LEGO's own ROW-MAJOR flattening (the LAST index is fastest),
 * kept so that the paper's definitions and vectors read the same here:
 *   B_{n1..nq}(i1..iq) = ((i1*n2 + i2)*n3 + ...) + iq.
 * lego_to_layout converts an all-RegP GroupBy to a CuTe layout (layout.h,
 * colexicographic) that takes the same natural coordinate (i1..iq); only the
 * 1-D order of that coordinate differs between the two worlds.
 *
 * Pieces:
 *   RegP(dims, sigma)  reorder the dims of a tile: apply = B_{sigma(n)}(sigma(i))
 *                      (sigma is 0-based here, the paper's is 1-based);
 *   GenP(dims, f, g)   a user bijection given as expression builders;
 *   OrderBy(P1..Pq)    one reordering over a q-level tile hierarchy;
 *   GroupBy(n', O1..Ov) the logical view; Ov is applied first, O1 last.
 * Every piece has apply (coordinate -> flat) and inv (flat -> coordinate).
 */
#ifndef DIDEROT_LAYOUT_LAYOUT_LEGO_H
#define DIDEROT_LAYOUT_LAYOUT_LEGO_H

#include "layout/index_expr.h"
#include "layout/layout.h"

/* GenP generators: build the expressions, they are not integer functions. */
typedef const IxExpr *(*LegoApplyFn)(IxCtx *c, const void *user, const IxExpr *const *crd);
typedef void (*LegoInvFn)(IxCtx *c, const void *user, const IxExpr *flat, const IxExpr **crd);

typedef enum { LEGO_REGP, LEGO_GENP } LegoKind;

typedef struct {
  LegoKind kind;
  int d;
  const IxExpr *const *dims; /* logical tile sizes */
  const int *sigma;          /* RegP: 0-based gather permutation */
  LegoApplyFn apply;         /* GenP */
  LegoInvFn inv;
  const void *user;
  const char *name;
} LegoPiece;

typedef struct {
  int n; /* levels, outermost first */
  const LegoPiece *const *p;
} LegoOrderBy;

typedef struct {
  int d;
  const IxExpr *const *dims;
  int n; /* chain[0] is O1 (applied last) */
  const LegoOrderBy *const *chain;
} LegoGroupBy;

/* ---- canonical bijections (row-major) ---------------------------------- */
const IxExpr *lego_flatten(IxCtx *c, const IxExpr *const *dims, const IxExpr *const *idx,
                           int d);
void lego_unflatten(IxCtx *c, const IxExpr *const *dims, int d, const IxExpr *f,
                    const IxExpr **out);

/* ---- construction (NULL + err on invalid input) ------------------------ */
const LegoPiece *lego_regp(IxCtx *c, const IxExpr *const *dims, const int *sigma, int d,
                           LytError *err);
/* Verified exhaustively (bijective onto [0, N), inverse correct) when every
 * dim is a constant and N <= 1<<16; symbolic GenPs are trusted. */
const LegoPiece *lego_genp(IxCtx *c, const IxExpr *const *dims, int d, LegoApplyFn apply,
                           LegoInvFn inv, const void *user, const char *name, LytError *err);
const LegoOrderBy *lego_orderby(IxCtx *c, const LegoPiece *const *p, int n);
/* chain[0..n) = O1..On; every OrderBy must have the GroupBy's element count. */
const LegoGroupBy *lego_groupby(IxCtx *c, const IxExpr *const *dims, int d,
                                const LegoOrderBy *const *chain, int n, LytError *err);

/* ---- sugar ---------------------------------------------------------------- */
const LegoPiece *lego_row(IxCtx *c, const IxExpr *const *dims, int d);
/* Col([n1..nd]) = RegP([nd..n1], [d..1]): dims are given in PHYSICAL order,
 * the first logical index is the fastest. */
const LegoPiece *lego_col(IxCtx *c, const IxExpr *const *phys_dims, int d);
/* TileBy_{q x d}: tiles[h*d + k] is n^h_k (level h, dimension k). */
const LegoGroupBy *lego_tileby(IxCtx *c, const IxExpr *const *tiles, int q, int d,
                               LytError *err);
/* Built-in GenPs: the anti-diagonal order of an n x n tile (LAYOUTS.md L2),
 * and Morton/Z order of d dims of 2^bits each (last index in the lowest bit). */
const LegoPiece *lego_antidiag(IxCtx *c, const IxExpr *n, LytError *err);
const LegoPiece *lego_morton(IxCtx *c, int d, int bits, LytError *err);

/* ---- maps ------------------------------------------------------------------ */
const IxExpr *lego_piece_size(IxCtx *c, const LegoPiece *p);
const IxExpr *lego_piece_apply(IxCtx *c, const LegoPiece *p, const IxExpr *const *crd);
void lego_piece_inv(IxCtx *c, const LegoPiece *p, const IxExpr *f, const IxExpr **out);
int lego_orderby_rank(const LegoOrderBy *o); /* total dims */
const IxExpr *lego_orderby_size(IxCtx *c, const LegoOrderBy *o);
const IxExpr *lego_orderby_apply(IxCtx *c, const LegoOrderBy *o, const IxExpr *const *crd);
void lego_orderby_inv(IxCtx *c, const LegoOrderBy *o, const IxExpr *f, const IxExpr **out);
/* The whole layout: logical coordinate -> physical index, and back. */
const IxExpr *lego_apply(IxCtx *c, const LegoGroupBy *g, const IxExpr *const *crd);
void lego_inv(IxCtx *c, const LegoGroupBy *g, const IxExpr *f, const IxExpr **out);

/* An all-RegP GroupBy as a CuTe layout over the same natural coordinate. */
const Layout *lego_to_layout(IxCtx *c, const LegoGroupBy *g, LytError *err);

#endif
