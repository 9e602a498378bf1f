/* diderot_sphere.h -- sphere(r) / sphere(p, r) of a generated program
 * (doc/language.md §9.2, §8.3), part of libdiderot-rt (rt_sphere.c): the
 * spatial index of diderot_spatial.h tied to a world, plus per-thread
 * pools that hold query results.
 *
 * Once per super-step (the DrtProgram begin_step hook, after the runtime
 * has taken the start-of-step copies) the generated code writes the
 * start-of-step position of every storage slot into
 * drt_sphere_positions() and calls drt_sphere_build(): the index then
 * holds the strands alive at the start of the step (status active or
 * stable). Queries during the step see exactly those strands, whatever
 * the strands do meanwhile (stabilize, die, new), which is the visibility
 * rule of §6.3.
 *
 * Results. A query returns the strand indices in ascending order (storage
 * order, so results do not depend on the index structure or on threads),
 * in memory owned by the calling thread's pool. A result stays valid
 * while the same strand method invocation runs: the pool is recycled when
 * a query comes from another strand or another build. The generated code
 * never keeps a sphere result beyond the method (the typechecker does not
 * allow strand sequences in state, globals or parameters).
 *
 * Threads. drt_sphere_build() sizes one pool per worker of the world
 * (drt_world_nworkers) plus one; the parallel target passes
 * omp_get_thread_num() as `tid`, the sequential target 0. Queries only
 * read the index, so any number of threads may query at once.
 */
#ifndef DIDEROT_SPHERE_H
#define DIDEROT_SPHERE_H

#include "diderot_spatial.h"
#include "diderot_world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct DrtSphere DrtSphere;

/* A new index for positions of `dim` (1..3) reals of `type`
 * (nrrdTypeFloat or nrrdTypeDouble); brute_force selects brute-force
 * queries (--no-space-partition). NULL when out of memory or on bad
 * arguments. */
DrtSphere *drt_sphere_new(unsigned dim, int type, bool brute_force);
void drt_sphere_free(DrtSphere *s);

/* Room for the positions of n slots (dim reals each, slot after slot);
 * NULL (with an error in e) when out of memory. Valid until the next
 * call. */
void *drt_sphere_positions(DrtSphere *s, DrtErrors *e, size_t n);

/* Build the index from the positions of the drt_world_nslots(w) slots
 * written into drt_sphere_positions(), keeping the alive ones. The radius
 * hint (<= 0: unknown) sizes the grid cells. Errors (out of memory, also
 * in a query of the previous step) go to the world's errors; returns true
 * on error (the index is then empty). */
bool drt_sphere_build(DrtSphere *s, DrtWorld *w, double radius_hint);

/* Whether the index was built in the current super-step of w: false
 * outside a step (e.g. in a stabilize method run by a global
 * `stabilize`, where the caller rebuilds it from the current states). */
bool drt_sphere_current(const DrtSphere *s, const DrtWorld *w);

/* The strands within distance r of c (dim reals), except `caller`
 * (DRT_SPATIAL_NO_EXCLUDE for none), ascending; *len gets their number.
 * An out-of-memory or a bad tid gives an empty result and an error at
 * the next build. */
const uint32_t *drt_sphere_query_f(DrtSphere *s, uint32_t tid, uint32_t caller,
                                   const float *c, float r, uint32_t *len);
const uint32_t *drt_sphere_query_d(DrtSphere *s, uint32_t tid, uint32_t caller,
                                   const double *c, double r, uint32_t *len);

/* The same, with the positions of the result as the index holds them
 * (the start-of-step positions, exactly) just before it: strand
 * result[i] is at ((const REAL *)result - len·dim)[i·dim .. i·dim+dim).
 * The generated code reads a neighbour's `pos` there rather than in the
 * strand array: the index keeps its copy in cell order, so the neighbours
 * of one query sit close together in memory (halftone with 30,000
 * particles lost a quarter of its time to cache misses on the strand
 * array). */
const uint32_t *drt_sphere_query_pos_f(DrtSphere *s, uint32_t tid, uint32_t caller,
                                       const float *c, float r, uint32_t *len);
const uint32_t *drt_sphere_query_pos_d(DrtSphere *s, uint32_t tid, uint32_t caller,
                                       const double *c, double r, uint32_t *len);

/* The same for a group of strands that query for each of its lanes at
 * once (the across-strand SIMD update): the results of one group stay
 * valid together until another strand or group queries on the thread.
 * `group` is the group's first strand, below DRT_SPHERE_GROUP (the bit
 * that tells group owners from strand owners); with_pos as in
 * drt_sphere_query_pos_*. */
#define DRT_SPHERE_GROUP 0x80000000u
const uint32_t *drt_sphere_query_group_f(DrtSphere *s, uint32_t tid, uint32_t group,
                                         uint32_t caller, const float *c, float r, bool with_pos,
                                         uint32_t *len);
const uint32_t *drt_sphere_query_group_d(DrtSphere *s, uint32_t tid, uint32_t group,
                                         uint32_t caller, const double *c, double r,
                                         bool with_pos, uint32_t *len);

/* The underlying index (read-only; e.g. drt_spatial_bytes). */
const DrtSpatial *drt_sphere_index(const DrtSphere *s);
/* Heap bytes held: index, positions and result pools. */
size_t drt_sphere_bytes(const DrtSphere *s);

#ifdef __cplusplus
}
#endif

#endif
