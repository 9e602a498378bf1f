/* layout.h -- the one public header of src/layout: what the rest of the
 * compiler (translate/, backend/) and the unit tests use of the layout
 * module. Four parts, each documented where it starts:
 *   - index expressions (IxExpr, ix_*): integer expressions with value
 *     ranges, their simplifier and C printer (index_expr.c,
 *     index_simplify.c);
 *   - layouts (Layout, lyt_*): CuTe-style shape:stride layouts over index
 *     expressions and their algebra (layout.c);
 *   - LEGO pieces (lego_*): bijective layouts in LEGO's row-major world,
 *     convertible to layouts (layout_lego.c);
 *   - the image layouts of generated programs, linear or brick:B
 *     (lyt_image_layout, layout_image.c).
 * The module calls nothing outside src/layout, src/util and libc.
 */
#ifndef DIDEROT_LAYOUT_LAYOUT_H
#define DIDEROT_LAYOUT_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "util/arena.h"

/* ==== index expressions =================================================
 * Integer index expressions for generated array indexing.
 *
 * Expressions are immutable, hash-consed DAGs owned by an IxCtx (structural
 * equality is pointer equality). Builders keep a canonical polynomial form:
 * a sum is a constant plus terms sorted by node id, a term is a coefficient
 * times a sorted product of atoms (variables, div/mod nodes, ...). Builders
 * only do exact algebra (constant folding, collecting like terms,
 * distribution); ix_simplify adds the rewrites that need range facts.
 *
 * Semantics are mathematical: / and % are FLOOR division and modulo (the
 * printer emits C's truncating operators only where the dividend is proven
 * non-negative and the divisor positive), shifts are multiplication /
 * floor division by powers of two, and & is two's-complement AND.
 *
 * Every variable has a range [lo, hi] (hi may be IX_INF, unknown) and may
 * carry a symbolic exclusive bound (`x < N` with N itself a variable) and a
 * known divisor (`align`, e.g. a size padded to a multiple of 16).
 */

#define IX_INF INT64_MAX
#define IX_NINF INT64_MIN

typedef enum {
  IX_CONST,  /* k */
  IX_VAR,    /* k = variable id */
  IX_ADD,    /* k + arg[0] + ... + arg[n-1] */
  IX_MUL,    /* k * arg[0] * ... * arg[n-1] */
  IX_DIV,    /* floor(arg[0] / arg[1]) */
  IX_MOD,    /* arg[0] - arg[1] * floor(arg[0] / arg[1]) */
  IX_MIN,    /* min(arg[0], arg[1]) */
  IX_MAX,    /* max(arg[0], arg[1]) */
  IX_LT,     /* arg[0] < arg[1] ? 1 : 0 */
  IX_SELECT, /* arg[0] != 0 ? arg[1] : arg[2] */
  IX_ISQRT,  /* floor(sqrt(arg[0])), arg[0] >= 0 */
  IX_SHL,    /* arg[0] << k (only made by ix_lower) */
  IX_SHR,    /* arg[0] >> k (only made by ix_lower) */
  IX_AND     /* arg[0] & k  (only made by ix_lower) */
} IxOp;

typedef struct IxExpr IxExpr;
struct IxExpr {
  IxOp op;
  int n;                    /* number of operands */
  int64_t k;                /* see IxOp */
  const IxExpr *const *arg; /* operands */
  int64_t lo, hi;           /* value range (IX_NINF / IX_INF when unknown) */
  uint32_t hash, id;        /* id: creation order, the canonical sort key */
  const IxExpr *simp;       /* memo of ix_simplify (a cache, not identity) */
  const IxExpr *low;        /* memo of ix_lower */
};

typedef struct IxCtx IxCtx;

IxCtx *ix_ctx_new(Arena *arena);
Arena *ix_arena(IxCtx *c);
/* Set when constant folding overflowed int64; results are then unusable. */
bool ix_overflowed(const IxCtx *c);

/* ---- variables ----------------------------------------------------------
 * lo/hi inclusive (hi may be IX_INF). `bound`, if non-NULL, is an exclusive
 * symbolic upper bound (x < bound). `align` >= 1 is a known divisor of the
 * value (1 when nothing is known). Returns the variable's expression.
 */
const IxExpr *ix_var(IxCtx *c, const char *name, int64_t lo, int64_t hi);
const IxExpr *ix_var_full(IxCtx *c, const char *name, int64_t lo, int64_t hi,
                          const IxExpr *bound, int64_t align);
int ix_nvars(const IxCtx *c);
const char *ix_var_name(const IxCtx *c, int id);
const IxExpr *ix_var_by_name(const IxCtx *c, const char *name);
const IxExpr *ix_var_expr(const IxCtx *c, int id);

/* ---- builders (exact algebra only) -------------------------------------- */
const IxExpr *ix_const(IxCtx *c, int64_t k);
const IxExpr *ix_add(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_sub(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_neg(IxCtx *c, const IxExpr *a);
const IxExpr *ix_mul(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_addk(IxCtx *c, const IxExpr *a, int64_t k);
const IxExpr *ix_mulk(IxCtx *c, const IxExpr *a, int64_t k);
const IxExpr *ix_div(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_mod(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_divk(IxCtx *c, const IxExpr *a, int64_t k);
const IxExpr *ix_modk(IxCtx *c, const IxExpr *a, int64_t k);
const IxExpr *ix_min(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_max(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_lt(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_le(IxCtx *c, const IxExpr *a, const IxExpr *b);
const IxExpr *ix_select(IxCtx *c, const IxExpr *cond, const IxExpr *a,
                        const IxExpr *b);
const IxExpr *ix_isqrt(IxCtx *c, const IxExpr *a);
/* Shifts by constants and AND with a constant; these canonicalise to
 * mul/div/mod where that is exact (so the simplifier sees one form). */
const IxExpr *ix_shl(IxCtx *c, const IxExpr *a, int sh);
const IxExpr *ix_shr(IxCtx *c, const IxExpr *a, int sh);
const IxExpr *ix_and(IxCtx *c, const IxExpr *a, int64_t mask);

static inline bool ix_is_const(const IxExpr *e) { return e->op == IX_CONST; }
static inline bool ix_is_k(const IxExpr *e, int64_t k) {
  return e->op == IX_CONST && e->k == k;
}

/* ---- evaluation ---------------------------------------------------------
 * env[id] is the value of variable id. False on division by zero, a
 * negative isqrt argument or int64 overflow.
 */
bool ix_eval(const IxExpr *e, const int64_t *env, int64_t *out);
/* Replace variables: map[id] (NULL keeps the variable). */
const IxExpr *ix_subst(IxCtx *c, const IxExpr *e, const IxExpr *const *map);

/* ---- analysis ------------------------------------------------------------ */
/* Proofs from ranges (false means "not proven", not "false"). */
bool ix_prove_le(IxCtx *c, const IxExpr *a, const IxExpr *b);
bool ix_prove_lt(IxCtx *c, const IxExpr *a, const IxExpr *b);
/* a / b when b provably divides a (exact quotient), else NULL. */
const IxExpr *ix_exact_div(IxCtx *c, const IxExpr *a, const IxExpr *b);
/* Weighted operation count (div/mod >> mul > add/shift). */
int ix_cost(const IxExpr *e);
/* Number of nodes of a given op in the tree (for tests: "no div left"). */
int ix_count_op(const IxExpr *e, IxOp op);

/* ---- simplification ------------------------------------------------------ */
/* Range-based rewriting: LEGO's div/mod rules, nested div/mod fusion,
 * a*(x/a) + x%a -> x, min/max/select/compare decided by ranges. Sound on the
 * declared ranges, idempotent. */
const IxExpr *ix_simplify(IxCtx *c, const IxExpr *e);
/* Strength reduction for emission: /2^k, %2^k, *2^k become >>, &, << where
 * the operand is proven non-negative (never otherwise). Apply last. */
const IxExpr *ix_lower(IxCtx *c, const IxExpr *e);

/* ---- hoisting -------------------------------------------------------------- */
/* Does e mention any of vars[0..n)? */
bool ix_depends(const IxExpr *e, const int *vars, int n);
/* Additive split e = *inv + *dep, *inv independent of vars[0..n). */
void ix_split(IxCtx *c, const IxExpr *e, const int *vars, int n,
              const IxExpr **inv, const IxExpr **dep);
/* Maximal non-constant, non-variable subexpressions of e independent of
 * vars[0..n) (candidates for let-binding outside the loop); returns how many
 * were found, writing at most max of them. */
int ix_invariants(const IxExpr *e, const int *vars, int n, const IxExpr **out,
                  int max);

/* ---- printing -------------------------------------------------------------- */
/* C expression text. Uses ix_fdiv/ix_fmod/ix_min/ix_max/ix_isqrt from
 * IX_C_PRELUDE where plain C operators would be wrong or absent. */
const char *ix_to_c(IxCtx *c, const IxExpr *e);
extern const char IX_C_PRELUDE[];

/* ==== layouts ===========================================================
 * CuTe-style hierarchical shape:stride layouts with symbolic extents,
 * and their algebra (doc/layouts.md §2).
 *
 * Convention: COLEXICOGRAPHIC (the first mode is fastest, like NRRD's axis 0
 * and CuTe). A 1-D coordinate i of a tuple mode splits as
 *   c_k = (i / prod_{m<k} size_m) % size_k, the last mode taking the rest.
 * LEGO's row-major world (the LEGO pieces below) converts to this explicitly.
 *
 * A layout is a tree: a leaf is one shape:stride pair of index expressions
 * (constants or symbolic sizes, see above); an inner node is a tuple
 * of modes. Shapes and strides are congruent by construction.
 *
 * Operations that need a fact they cannot prove (a divisibility condition,
 * admissibility of a composition, an ordering of symbolic strides) fail with
 * a status and a message allocated in the context's arena; they never return
 * a layout that might compute the wrong function. Strides must be >= 0.
 */

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

/* CuTe's shape_div / shape_mod on a flat shape of n extents (doc/layouts.md
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

/* ==== LEGO pieces =======================================================
 * LEGO bijective layout pieces (doc/layouts.md §3).
 *
 * Convention: LEGO's own ROW-MAJOR flattening (the LAST index is fastest),
 * kept so that the paper's definitions and vectors read the same here:
 *   B_{n1..nq}(i1..iq) = ((i1*n2 + i2)*n3 + ...) + iq.
 * lego_to_layout converts an all-RegP GroupBy to a CuTe layout (above,
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
/* Built-in GenPs: the anti-diagonal order of an n x n tile (doc/layouts.md §3.3),
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

/* ==== image layouts =====================================================
 * The storage layout of an image's samples in generated code (one per
 * program, chosen by --image-layout): one top-level mode for the
 * components and one per axis, so that a voxel coordinate is a 1-D
 * coordinate of its axis's mode. brick 0 is linear NRRD order (components
 * fastest, then axis 0, 1, ...); brick B > 1 stores bricks of B^d voxels,
 * voxels colexicographic inside a brick and bricks colexicographic over
 * ceil(N_a / B) per axis. The one place that decides the layout: every
 * voxel offset the lowering emits and the back end's re-layout loop are
 * derived from it.
 */
/* The whole of `text` as a power of two in [lo, hi] (the W of aosoa:W,
 * the B of brick:B); false when it is anything else. */
bool lyt_parse_pow2(const char *text, long lo, long hi, int *out);
/* "linear" (brick 0), "brick:B" or "halo:B" (B a power of two, 2..64;
 * *halo: bricks with a halo, doc/layouts.md §4.2). */
bool lyt_parse_image_layout(const char *text, int *brick, bool *halo);
/* The layout of a d-D image (d <= 3) of ncomp components per voxel and
 * extents sizes[0..d) (constants or symbolic): where sample c of voxel x
 * lives. brick 0 is NRRD order. With halo H > 0 (the widest kernel
 * support of the program) every stored brick has H - 1 extra samples
 * below and H above on each axis, copies of its neighbours' voxels (of
 * the nearest voxel beyond the image's edge): the layout then maps a
 * voxel to its place in its own brick's interior, and the sample's
 * offset is lyt_image_origin plus the layout's value. */
const Layout *lyt_image_layout(IxCtx *ix, int d, int ncomp, const IxExpr *const *sizes, int brick,
                               int halo);
/* The stored samples (the layout of the array the program allocates): for
 * a halo, modes (E, NB_a) with E = B + 2H - 1, the natural coordinate
 * (c, l_0, b_0, l_1, b_1, ...) holding voxel b_a·B + l_a - (H - 1);
 * otherwise lyt_image_layout. */
const Layout *lyt_image_storage(IxCtx *ix, int d, int ncomp, const IxExpr *const *sizes, int brick,
                                int halo);
/* The offset of voxel 0's place in brick 0: C·(H - 1)·(1 + E + ... + E^(d-1)). */
int64_t lyt_image_origin(int d, int ncomp, int brick, int halo);

#endif
