/* rt_sphere.c -- the spatial index of a world and the result pools of
 * sphere() queries (see diderot_sphere.h). */
#include "diderot_sphere.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* One query's result: the indices in l; for the _pos queries, buf holds
 * the positions followed by a copy of the indices. */
typedef struct DrtSphereResult {
  DrtStrandList l;
  void *buf;
  size_t cap;   /* bytes */
} DrtSphereResult;

/* One thread's results: lists[0..nused) belong to the strand method
 * invocation now running on the thread (owner, under build `stamp`).
 * Padded so that two threads' pools never share a cache line. */
typedef struct DrtSpherePool {
  DrtSphereResult *lists;
  size_t nused, nlists;
  uint32_t owner;
  uint64_t stamp;
  bool oom;
  char pad[64];
} DrtSpherePool;

struct DrtSphere {
  unsigned dim;
  int type;
  bool brute;
  DrtSpatial sp;
  void *pos;              /* positions of the slots, dim reals each */
  size_t cap_pos;         /* bytes */
  unsigned char *alive;   /* alive flags when some slot is not alive */
  size_t cap_alive;
  DrtSpherePool *pools;
  uint32_t npools;
  uint64_t stamp;         /* builds so far (0: never built) */
  uint32_t step;          /* drt_world_total_steps at the last build */
  atomic_bool bad_tid;    /* a query came from a thread without a pool */
};

DrtSphere *drt_sphere_new(unsigned dim, int type, bool brute_force) {
  if (dim < 1 || dim > 3 || (type != nrrdTypeFloat && type != nrrdTypeDouble)) return NULL;
  DrtSphere *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->dim = dim;
  s->type = type;
  s->brute = brute_force;
  drt_spatial_init(&s->sp);
  atomic_init(&s->bad_tid, false);
  return s;
}

void drt_sphere_free(DrtSphere *s) {
  if (!s) return;
  drt_spatial_free(&s->sp);
  for (uint32_t t = 0; t < s->npools; t++) {
    for (size_t i = 0; i < s->pools[t].nlists; i++) {
      drt_strand_list_free(&s->pools[t].lists[i].l);
      free(s->pools[t].lists[i].buf);
    }
    free(s->pools[t].lists);
  }
  free(s->pools);
  free(s->pos);
  free(s->alive);
  free(s);
}

static size_t drt_sphere_rsz(const DrtSphere *s) {
  return s->type == nrrdTypeFloat ? sizeof(float) : sizeof(double);
}

/* Grow *p to at least `need` bytes (contents not kept). */
static bool drt_sphere_room(void **p, size_t *cap, size_t need) {
  if (need <= *cap) return true;
  size_t c = *cap ? *cap : 256;
  while (c < need) c *= 2;
  void *q = malloc(c);
  if (!q) return false;
  free(*p);
  *p = q;
  *cap = c;
  return true;
}

void *drt_sphere_positions(DrtSphere *s, DrtErrors *e, size_t n) {
  size_t rsz = drt_sphere_rsz(s);
  if (n > SIZE_MAX / (rsz * s->dim) ||
      !drt_sphere_room(&s->pos, &s->cap_pos, (n ? n : 1) * rsz * s->dim)) {
    drt_error(e, "out of memory for the positions of %zu strands (sphere)", n);
    return NULL;
  }
  return s->pos;
}

/* One pool per worker plus one (a sequential caller outside a parallel
 * loop is thread 0 as well, so one spare is plenty). */
static bool drt_sphere_pools(DrtSphere *s, uint32_t n) {
  if (n <= s->npools) return true;
  DrtSpherePool *p = realloc(s->pools, n * sizeof *p);
  if (!p) return false;
  memset(p + s->npools, 0, (n - s->npools) * sizeof *p);
  s->pools = p;
  s->npools = n;
  return true;
}

bool drt_sphere_build(DrtSphere *s, DrtWorld *w, double radius_hint) {
  DrtErrors *e = drt_world_errors(w);
  bool bad = false;
  for (uint32_t t = 0; t < s->npools; t++)
    if (s->pools[t].oom) {
      s->pools[t].oom = false;
      bad = true;
    }
  if (bad) drt_error(e, "out of memory in a sphere query");
  if (atomic_exchange(&s->bad_tid, false)) {
    drt_error(e, "internal: a sphere query from a thread without a result pool");
    bad = true;
  }
  uint32_t n = drt_world_nslots(w);
  s->stamp++;
  s->step = drt_world_total_steps(w);
  if (!drt_sphere_pools(s, drt_world_nworkers(w) + 1)) {
    drt_error(e, "out of memory (sphere result pools)");
    bad = true;
  }
  /* Between steps every slot is alive (dead strands are squeezed out);
   * flags are only needed otherwise. */
  const unsigned char *alive = NULL;
  uint32_t nalive = 0;
  for (uint32_t i = 0; i < n; i++) {
    unsigned char st = drt_world_status(w, i);
    nalive += st == DRT_ACTIVE || st == DRT_STABLE;
  }
  if (nalive < n) {
    if (drt_sphere_room((void **)&s->alive, &s->cap_alive, n)) {
      for (uint32_t i = 0; i < n; i++) {
        unsigned char st = drt_world_status(w, i);
        s->alive[i] = st == DRT_ACTIVE || st == DRT_STABLE;
      }
      alive = s->alive;
    } else {
      drt_error(e, "out of memory (sphere)");
      bad = true;
      n = 0;
    }
  }
  size_t rsz = drt_sphere_rsz(s);
  if (n && s->cap_pos < (size_t)n * rsz * s->dim) {
    drt_error(e, "internal: sphere positions not written");
    n = 0;
    bad = true;
  }
  DrtSpatialPoints pts = {.dim = s->dim, .type = s->type, .count = n, .base = s->pos,
                          .block = 1, .block_stride = rsz * s->dim, .comp_stride = rsz,
                          .alive = alive, .alive_stride = 1};
  DrtSpatialOptions opt = {.radius_hint = radius_hint, .brute_force = s->brute};
  return drt_spatial_build(e, &s->sp, &pts, &opt) || bad;
}

bool drt_sphere_current(const DrtSphere *s, const DrtWorld *w) {
  return s->stamp > 0 && s->step == drt_world_total_steps(w);
}

/* The next free result of thread tid for a query of `caller`, or NULL. */
static DrtSphereResult *drt_sphere_list(DrtSphere *s, uint32_t tid, uint32_t caller,
                                      DrtSpherePool **pool) {
  if (tid >= s->npools) {
    atomic_store(&s->bad_tid, true);
    return NULL;
  }
  DrtSpherePool *p = &s->pools[tid];
  *pool = p;
  if (p->owner != caller || p->stamp != s->stamp) {
    p->owner = caller;
    p->stamp = s->stamp;
    p->nused = 0;
  }
  if (p->nused == p->nlists) {
    size_t n = p->nlists ? 2 * p->nlists : 4;
    DrtSphereResult *l = realloc(p->lists, n * sizeof *l);
    if (!l) {
      p->oom = true;
      return NULL;
    }
    memset(l + p->nlists, 0, (n - p->nlists) * sizeof *l);
    p->lists = l;
    p->nlists = n;
  }
  DrtSphereResult *l = &p->lists[p->nused];
  l->l.len = 0;
  return l;
}

/* The result l->l laid out in l->buf as [positions][indices]; NULL when
 * out of memory. */
static const uint32_t *drt_sphere_with_pos(DrtSphere *s, DrtSphereResult *l) {
  size_t n = l->l.len, psz = n * s->dim * drt_sphere_rsz(s);
  if (!drt_sphere_room(&l->buf, &l->cap, psz + (n ? n : 1) * sizeof(uint32_t))) return NULL;
  uint32_t *ids = (uint32_t *)((char *)l->buf + psz);
  if (s->type == nrrdTypeFloat) drt_spatial_positions_f(&s->sp, l->l.ids, n, l->buf);
  else drt_spatial_positions_d(&s->sp, l->l.ids, n, l->buf);
  if (n) memcpy(ids, l->l.ids, n * sizeof *ids);
  return ids;
}

/* One query for `caller` into a result of `owner`'s pool (the caller
 * itself, or a group of strands querying for each of its lanes). The two
 * precisions differ only in the spatial query they call. */
#define SPHERE_QUERY_FN(NAME, REAL, SPATIAL)                                   \
  static const uint32_t *NAME(DrtSphere *s, uint32_t tid, uint32_t owner,     \
                              uint32_t caller, const REAL *c, REAL r,         \
                              bool with_pos, uint32_t *len) {                 \
    DrtSpherePool *p = NULL;                                                   \
    DrtSphereResult *l = drt_sphere_list(s, tid, owner, &p);                   \
    *len = 0;                                                                  \
    if (!l) return NULL;                                                       \
    if (SPATIAL(&s->sp, c, r, caller, &l->l)) {                                \
      p->oom = true;                                                           \
      return NULL;                                                             \
    }                                                                          \
    const uint32_t *ids = l->l.ids;                                            \
    if (with_pos && !(ids = drt_sphere_with_pos(s, l))) {                      \
      p->oom = true;                                                           \
      return NULL;                                                             \
    }                                                                          \
    p->nused++;                                                                \
    *len = (uint32_t)l->l.len;                                                 \
    return ids;                                                                \
  }

SPHERE_QUERY_FN(sphere_query_f, float, drt_spatial_sphere_f)
SPHERE_QUERY_FN(sphere_query_d, double, drt_spatial_sphere_d)
#undef SPHERE_QUERY_FN

const uint32_t *drt_sphere_query_f(DrtSphere *s, uint32_t tid, uint32_t caller, const float *c,
                                   float r, uint32_t *len) {
  return sphere_query_f(s, tid, caller, caller, c, r, false, len);
}
const uint32_t *drt_sphere_query_d(DrtSphere *s, uint32_t tid, uint32_t caller, const double *c,
                                   double r, uint32_t *len) {
  return sphere_query_d(s, tid, caller, caller, c, r, false, len);
}
const uint32_t *drt_sphere_query_pos_f(DrtSphere *s, uint32_t tid, uint32_t caller,
                                       const float *c, float r, uint32_t *len) {
  return sphere_query_f(s, tid, caller, caller, c, r, true, len);
}
const uint32_t *drt_sphere_query_pos_d(DrtSphere *s, uint32_t tid, uint32_t caller,
                                       const double *c, double r, uint32_t *len) {
  return sphere_query_d(s, tid, caller, caller, c, r, true, len);
}
const uint32_t *drt_sphere_query_group_f(DrtSphere *s, uint32_t tid, uint32_t group,
                                         uint32_t caller, const float *c, float r, bool with_pos,
                                         uint32_t *len) {
  return sphere_query_f(s, tid, DRT_SPHERE_GROUP | group, caller, c, r, with_pos, len);
}
const uint32_t *drt_sphere_query_group_d(DrtSphere *s, uint32_t tid, uint32_t group,
                                         uint32_t caller, const double *c, double r,
                                         bool with_pos, uint32_t *len) {
  return sphere_query_d(s, tid, DRT_SPHERE_GROUP | group, caller, c, r, with_pos, len);
}

const DrtSpatial *drt_sphere_index(const DrtSphere *s) { return &s->sp; }

size_t drt_sphere_bytes(const DrtSphere *s) {
  size_t b = drt_spatial_bytes(&s->sp) + s->cap_pos + s->cap_alive +
             s->npools * sizeof *s->pools;
  for (uint32_t t = 0; t < s->npools; t++) {
    b += s->pools[t].nlists * sizeof(DrtSphereResult);
    for (size_t i = 0; i < s->pools[t].nlists; i++)
      b += s->pools[t].lists[i].l.cap * sizeof(uint32_t) + s->pools[t].lists[i].cap;
  }
  return b;
}
