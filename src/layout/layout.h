/* layout.h -- CuTe-style hierarchical shape:stride layouts with symbolic
 * extents, and their algebra (LAYOUTS.md §2, §4).
 *
 * Convention: COLEXICOGRAPHIC (the first mode is fastest, like NRRD's axis 0
 * and CuTe). A 1-D coordinate i of a tuple mode splits as
 *   c_k = (i / prod_{m<k} size_m) % size_k, the last mode taking the rest.
 * LEGO's row-major world (layout_lego.h) converts to this explicitly.
 *
 * A layout is a tree: a leaf is one shape:stride pair of index expressions
 * (constants or symbolic sizes, see index_expr.h); an inner node is a tuple
 * of modes. Shapes and strides are congruent by construction.
 *
 * Operations that need a fact they cannot prove (a divisibility condition,
 * admissibility of a composition, an ordering of symbolic strides) fail with
 * a status and a message allocated in the context's arena; they never return
 * a layout that might compute the wrong function. Strides must be >= 0.
 */
#ifndef DIDEROT_LAYOUT_LAYOUT_H
#define DIDEROT_LAYOUT_LAYOUT_H

#include "layout/index_expr.h"

typedef struct Layout Layout;
struct Layout {
  int n;                       /* 0 for a leaf, else the number of modes */
  const IxExpr *shape, *stride; /* leaf only */
  const Layout *const *mode;   /* n modes */
};

typedef enum {
  LYT_OK = 0,
  LYT_E_ARG,           /* malformed request (ranks, negative stride, ...) */
  LYT_E_DIVISIBILITY,  /* a CuTe divisibility condition fails or is unproven */
  LYT_E_ADMISSIBILITY, /* A o B would carry between A's digits: not A(B(i)) */
  LYT_E_UNPROVEN,      /* a symbolic comparison could not be decided */
  LYT_E_NOT_BIJECTIVE, /* an inverse was asked of a non-bijective layout */
  LYT_E_PARSE
} LytStatus;

typedef struct {
  LytStatus status;
  const char *msg; /* in the context's arena; NULL when status == LYT_OK */
} LytError;

/* ---- construction -------------------------------------------------------- */
const Layout *lyt_leaf(IxCtx *c, const IxExpr *shape, const IxExpr *stride);
const Layout *lyt_leafk(IxCtx *c, int64_t shape, int64_t stride);
const Layout *lyt_tuple(IxCtx *c, const Layout *const *modes, int n);
const Layout *lyt_pair(IxCtx *c, const Layout *a, const Layout *b);
/* The same tree with compact column-major strides starting at 1. */
const Layout *lyt_compact_col(IxCtx *c, const Layout *shape_like);
/* Flat compact layouts: column-major (first fastest), row-major (last
 * fastest), and LEGO-like `ordered`: order[r] is the dimension that is the
 * r-th fastest. */
const Layout *lyt_col_major(IxCtx *c, const IxExpr *const *shape, int n);
const Layout *lyt_row_major(IxCtx *c, const IxExpr *const *shape, int n);
const Layout *lyt_ordered(IxCtx *c, const IxExpr *const *shape, const int *order, int n);
/* CuTe notation "((2,2),3):((1,6),2)"; leaves are integers, variable names
 * known to the context, or products of those ("4*N"). */
const Layout *lyt_parse(IxCtx *c, const char *text, LytError *err);
/* A by-mode tiler "<3:1,(2,4):(1,8)>" (or a single layout); returns the
 * number of modes written to out (at most max), 0 on error. */
int lyt_parse_tiler(IxCtx *c, const char *text, const Layout **out, int max, LytError *err);

/* ---- queries ------------------------------------------------------------- */
int lyt_rank(const Layout *l);
int lyt_depth(const Layout *l);
const Layout *lyt_mode(const Layout *l, int i); /* a leaf is its own mode 0 */
const IxExpr *lyt_size(IxCtx *c, const Layout *l);
const IxExpr *lyt_cosize(IxCtx *c, const Layout *l); /* 1 + sum (s-1)*d */
int lyt_nleaves(const Layout *l);
/* Leaves in colexicographic order; arrays of lyt_nleaves(l) entries. */
void lyt_leaves(const Layout *l, const IxExpr **shape, const IxExpr **stride);
bool lyt_equal(const Layout *a, const Layout *b); /* same tree and leaves */
/* CuTe's compatible(A, B) on the shapes. */
bool lyt_compatible(IxCtx *c, const Layout *a, const Layout *b);
const char *lyt_to_string(IxCtx *c, const Layout *l);

/* ---- algebra --------------------------------------------------------------- */
const Layout *lyt_coalesce(IxCtx *c, const Layout *l);
/* By-mode coalesce with a profile of rank n: modes 0..n-1 are coalesced
 * separately, the rest kept; the result has the rank of l. */
const Layout *lyt_coalesce_modes(IxCtx *c, const Layout *l, int n);
const Layout *lyt_compose(IxCtx *c, const Layout *a, const Layout *b, LytError *err);
/* By-mode composition with a tiler of nt modes. */
const Layout *lyt_compose_tiler(IxCtx *c, const Layout *a, const Layout *const *t, int nt,
                                LytError *err);
const Layout *lyt_complement(IxCtx *c, const Layout *a, const IxExpr *m, LytError *err);
const Layout *lyt_logical_divide(IxCtx *c, const Layout *a, const Layout *b, LytError *err);
const Layout *lyt_logical_divide_tiler(IxCtx *c, const Layout *a, const Layout *const *t, int nt,
                                       LytError *err);
const Layout *lyt_zipped_divide(IxCtx *c, const Layout *a, const Layout *const *t, int nt,
                                LytError *err);
const Layout *lyt_tiled_divide(IxCtx *c, const Layout *a, const Layout *const *t, int nt,
                               LytError *err);
const Layout *lyt_flat_divide(IxCtx *c, const Layout *a, const Layout *const *t, int nt,
                              LytError *err);
const Layout *lyt_logical_product(IxCtx *c, const Layout *a, const Layout *b, LytError *err);
const Layout *lyt_logical_product_tiler(IxCtx *c, const Layout *a, const Layout *const *t,
                                        int nt, LytError *err);
/* Ranks are padded to the larger with 1:0 modes; modes are coalesced. */
const Layout *lyt_blocked_product(IxCtx *c, const Layout *a, const Layout *b, LytError *err);
const Layout *lyt_raked_product(IxCtx *c, const Layout *a, const Layout *b, LytError *err);
/* R with L(R(i)) = i for i < size(R) (CuTe right_inverse); size(R) equals
 * size(L) exactly when L is a bijection onto [0, size(L)). */
const Layout *lyt_right_inverse(IxCtx *c, const Layout *l, LytError *err);

/* CuTe's shape_div / shape_mod on a flat shape of n extents (LAYOUTS.md
 * §2.3), the steps inside composition; false (err set) when a step's
 * divisibility condition fails or is unproven. */
bool lyt_shape_div(IxCtx *c, const IxExpr *const *s, int n, const IxExpr *d, const IxExpr **out,
                   LytError *err);
bool lyt_shape_mod(IxCtx *c, const IxExpr *const *s, int n, const IxExpr *m, const IxExpr **out,
                   LytError *err);

/* ---- evaluation and emission ------------------------------------------- */
/* The layout function at a 1-D coordinate (the test interpreter). */
bool lyt_eval(const Layout *l, int64_t idx, const int64_t *env, int64_t *out);
/* One variable per leaf, c_j in [0, shape_j) (a symbolic shape becomes the
 * variable's exclusive bound); out has lyt_nleaves(l) entries. */
void lyt_coord_vars(IxCtx *c, const Layout *l, const char *prefix, const IxExpr **out);
/* Forward map (crd2idx). ncrd == 1: a 1-D coordinate; ncrd == rank: one
 * coordinate per top-level mode; ncrd == nleaves: the natural coordinate.
 * Returns NULL (err set) for any other count. Not simplified. */
const IxExpr *lyt_emit_fwd(IxCtx *c, const Layout *l, const IxExpr *const *crd, int ncrd,
                           LytError *err);
/* idx2crd: the natural coordinate (nleaves entries) of a 1-D index. */
void lyt_emit_idx2crd(IxCtx *c, const Layout *l, const IxExpr *idx, const IxExpr **out);
/* Inverse of a bijective layout: the natural coordinate whose image is off. */
bool lyt_emit_inv(IxCtx *c, const Layout *l, const IxExpr *off, const IxExpr **out,
                  LytError *err);

#endif
