/* diderot_spatial.h -- the spatial index behind sphere(r) / sphere(p, r)
 * (doc/language.md §9.2), part of libdiderot-rt (rt_spatial.c).
 *
 * Use, once per super-step (doc/language.md §8.3): drt_spatial_build()
 * from the start-of-step positions of the alive strands, then any number
 * of drt_spatial_sphere_f/_d() queries, possibly from many OpenMP threads at
 * once (queries only read the index; each thread passes its own
 * DrtStrandList). The index owns a copy of the positions, so the strand
 * arrays may change after the build.
 *
 * Result of a query centred at c with radius r, excluding strand X: every
 * indexed strand q != X with
 *     r > 0  and  Σ_k (q_k − c_k)² < r·r
 * where the sum runs over k = 0..dim−1 in that order and everything is
 * evaluated in the index's real type (float or double, no fused
 * multiply-add; the library is built with -std=c11, which implies
 * -ffp-contract=off). So points exactly at distance r are not included,
 * r ≤ 0 or NaN gives nothing, and a strand whose position has a NaN or an
 * infinite coordinate is never indexed (it could not satisfy the test).
 * The strand indices are appended in ascending order.
 *
 * Structure (chosen per build, see rt_spatial.c for details):
 *  - brute force for at most 32 strands or on request (--no-space-partition);
 *  - otherwise a uniform grid of cubic cells (edge = the radius hint, or
 *    from the point density), counting-sorted in O(n): a dense cell array
 *    over the points' bounding box when it has at most 8n+4096 cells, else a
 *    hash of the occupied cells (points far apart, outliers, huge ranges).
 * Memory per indexed strand: a record of dim+1 reals (the position and the
 * strand index) and as much build scratch (each point is read once, into
 * a record), 4 bytes more of build scratch, 4 of the strand's record
 * (drt_spatial_positions) and 4 bytes per cell (about
 * 0.5–0.7 cells per strand with a radius hint for ~6 neighbours in a
 * filled volume, more for points on a surface; at most 8n+4096, i.e. 32
 * bytes per strand plus 16 KB), e.g. 43 bytes in 3-D float, 75 in 3-D
 * double with a filled volume; hash mode adds 8
 * bytes of cell key and 4–8 of buckets. drt_spatial_bytes() reports it.
 */
#ifndef DIDEROT_SPATIAL_H
#define DIDEROT_SPATIAL_H

#include "diderot_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Passed as `exclude` when no strand is to be left out. */
#define DRT_SPATIAL_NO_EXCLUDE UINT32_MAX

/* Where the positions are. The coordinate k of strand s (0 <= s < count)
 * is the real at byte address
 *     base + (s / block)·block_stride + (s % block)·lane_stride
 *          + k·comp_stride
 * which covers the strand-state layouts of doc/layouts.md §4.1:
 *  - AoS (struct S with pos at offset o): base = (char *)a + o, block = 1,
 *    block_stride = sizeof(S), comp_stride = sizeof(real);
 *  - SoA: block = 1, block_stride = sizeof(real), comp_stride =
 *    N·sizeof(real);
 *  - AoSoA of width W: block = W, lane_stride = sizeof(real), comp_stride
 *    = W·sizeof(real), block_stride = W·F·sizeof(real).
 * Addresses need no particular alignment. The strands indexed are those
 * of `ids` (if non-NULL: nids strictly ascending indices < count) or else
 * all of 0..count-1, restricted to those whose alive byte
 * alive[s·alive_stride] is non-zero when `alive` is non-NULL. */
typedef struct DrtSpatialPoints {
  unsigned dim;            /* 1, 2 or 3: the type of `pos` */
  int type;                /* nrrdTypeFloat or nrrdTypeDouble */
  size_t count;            /* strand indices run over 0..count-1 */
  const void *base;        /* coordinate 0 of strand 0 */
  size_t block;            /* strands per block; 0 or 1: no blocking */
  size_t block_stride;     /* bytes, see above */
  size_t lane_stride;      /* bytes, only used when block > 1 */
  size_t comp_stride;      /* bytes */
  const unsigned char *alive;  /* optional alive flags (non-zero: alive) */
  size_t alive_stride;     /* bytes between flags; 0 means 1 */
  const uint32_t *ids;     /* optional list of the strands to consider */
  size_t nids;
} DrtSpatialPoints;

/* Tuning of a build; NULL means all defaults (zero). */
typedef struct DrtSpatialOptions {
  double radius_hint;      /* the usual query radius, if known (e.g. the
                              global `r` of sphere(r)); <= 0: unknown */
  bool brute_force;        /* never use a grid (--no-space-partition) */
} DrtSpatialOptions;

enum { DRT_SPATIAL_BRUTE = 0, DRT_SPATIAL_DENSE = 1, DRT_SPATIAL_HASH = 2 };

/* The index. Zero-initialise it (or drt_spatial_init), rebuild it each
 * step (memory is kept and reused), free it with drt_spatial_free. The
 * fields are read-only for callers; the ones after `cell` are private. */
typedef struct DrtSpatial {
  unsigned dim;
  int type;                /* nrrdTypeFloat or nrrdTypeDouble */
  int mode;                /* DRT_SPATIAL_BRUTE / _DENSE / _HASH */
  size_t npoints;          /* strands indexed */
  size_t nonfinite;        /* alive strands left out: NaN/inf position */
  size_t ncells;           /* cells (dense) or hash buckets */
  double cell;             /* cell edge length (0 in brute mode) */
  /* private */
  double org[3], inv;      /* cell coordinate: floor((x - org)·inv) */
  int64_t kmin[3], kmax[3];/* range of the occupied cell coordinates */
  size_t nrow[3];          /* dense: cells per axis */
  void *pos;               /* npoints records sorted by cell: dim reals,
                              then the strand index in one more real */
  uint64_t *keys;          /* hash mode: packed cell coordinates */
  uint32_t *start;         /* ncells+1 offsets into ids/pos/keys */
  uint32_t *bucket;        /* build scratch: bucket of each point */
  void *scratch;           /* build scratch: the records in input order */
  uint32_t *rank;          /* strand index -> its record in pos (indexed
                              strands only; `count` entries) */
  size_t cap_pos, cap_keys, cap_start, cap_bucket, cap_rank,
         cap_scratch;      /* bytes */
} DrtSpatial;

/* A growable list of strand indices; zero-initialise it. Queries append
 * to it (set len = 0 to reuse it): once it is large enough, queries
 * allocate nothing. */
typedef struct DrtStrandList {
  uint32_t *ids;
  size_t len, cap;
} DrtStrandList;

void drt_spatial_init(DrtSpatial *sp);
void drt_spatial_free(DrtSpatial *sp);

/* (Re)build sp from pts in O(n). Returns true on error (bad arguments:
 * dimension, type, count >= 2^32-1, ids not strictly ascending or out of
 * range; out of memory) after adding a message to e; sp is then empty
 * (every query returns nothing) but still valid. */
bool drt_spatial_build(DrtErrors *e, DrtSpatial *sp,
                       const DrtSpatialPoints *pts,
                       const DrtSpatialOptions *opt);

/* Append the strands within radius r of center (dim reals), except
 * `exclude` (a strand index or DRT_SPATIAL_NO_EXCLUDE), to out, in
 * ascending order. The _f form needs an index of floats, _d of doubles.
 * Returns true, leaving out->len as it was, when out of memory or on a
 * type mismatch; the caller reports it. Safe to call concurrently on the
 * same sp with different lists. */
bool drt_spatial_sphere_f(const DrtSpatial *sp, const float *center, float r,
                          uint32_t exclude, DrtStrandList *out);
bool drt_spatial_sphere_d(const DrtSpatial *sp, const double *center,
                          double r, uint32_t exclude, DrtStrandList *out);

/* The positions of n indexed strands ids[0..n) as the index holds them
 * (exactly the built positions), dim reals each, into out[0..n·dim):
 * the index's compact copy, kept in cell order, so the neighbours of one
 * query lie close together there, unlike in the strand array. Every
 * ids[i] must be a strand of the last build (e.g. a query result). The
 * _f form needs an index of floats, _d of doubles. */
void drt_spatial_positions_f(const DrtSpatial *sp, const uint32_t *ids, size_t n, float *out);
void drt_spatial_positions_d(const DrtSpatial *sp, const uint32_t *ids, size_t n, double *out);

/* Heap bytes held by sp (all arrays at their current capacity). */
size_t drt_spatial_bytes(const DrtSpatial *sp);

/* Write the indexed strands into ids[0..npoints) in the index's storage
 * order (cell by cell) and return npoints. Re-sorting the strands in this
 * order now and then restores the spatial locality of particle systems
 * (MDH.md §3.4). */
size_t drt_spatial_order(const DrtSpatial *sp, uint32_t *ids);

void drt_strand_list_free(DrtStrandList *l);

#ifdef __cplusplus
}
#endif

#endif
