/* rt_spatial.c -- the spatial index behind sphere() (doc/language.md §9.2).
 *
 * Grid. A point x falls in the cell with integer coordinates
 * k_a = floor((x_a − org_a)·inv), clamped to [−K, K] (K depends on dim so
 * that the dim coordinates pack into one 63-bit key). Build and query use
 * the same function, which is monotone in x under round-to-nearest.
 * The box [c − r, c + r] needs no slack for rounding: r is a value of the
 * real type, so if the true |q_a − c_a| >= r then the rounded difference
 * t_a >= r, fl(t_a²) >= fl(r²) and fl(Σ t²) >= fl(r²) (rounding and adding
 * non-negative terms are monotone, underflow and overflow included): a
 * qualifying point has c_a − r < q_a < c_a + r exactly, hence
 * fl(c_a − r) <= q_a <= fl(c_a + r), and monotone cell coordinates put it
 * inside the box. Correctness never depends on the cell size, only speed
 * does; clamping merges far-away cells, which only costs time.
 *
 * Cell size: the radius hint when given (a query then visits at most 3^d
 * cells); otherwise the cell that holds about 2 points at the density of
 * the bulk of the points, where the bulk is measured on a sample (5 % and
 * 95 % quantiles per axis) so that a few outliers do not blow up the cells.
 * Cell coordinates are taken relative to the sample's median.
 *
 * Storage: the points counting-sorted by bucket (stable, so each cell
 * lists its strands in ascending order) in pos, bucket offsets in start[].
 * A build reads each strand's position once, into records in input order
 * (the scratch array, swapped with pos afterwards: both keep their memory
 * from step to step); its later passes read the records.
 * A point is a record of dim reals followed by its strand index (in the
 * bytes of one more real), so a hit costs no extra cache miss: queries are
 * bound by memory latency, about one miss per row of cells. A bucket is a
 * cell of the dense array over the occupied cell box when that box has at
 * most 8n+4096 cells (rows of cells along axis 0 are then contiguous, and a
 * query scans one range per row); otherwise a slot of a hash table of
 * 2^⌈log2 n⌉ buckets: k0 plus a hash of the other coordinates, so rows
 * stay contiguous (modulo the table size). In hash mode the packed cell
 * coordinates are kept per point (keys) to skip the points of colliding
 * rows, which would otherwise be found twice. Queries gather candidates
 * (the runs of a query's rows scanned in one batch), test them exactly,
 * and sort the (small) result (sort_ids: an insertion sort, a bitmap of
 * the index range, dense or sparse, or a radix sort).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diderot_spatial.h"
#include "rt_internal.h"

enum {
  BRUTE_MAX = 32,     /* up to this many points a scan beats any grid */
  SAMPLE_MAX = 1024   /* points sampled to estimate the density */
};

/* Bits per axis in a packed cell key, by dimension. */
static const unsigned key_bits[4] = {0, 62, 31, 21};

void drt_spatial_init(DrtSpatial *sp) { memset(sp, 0, sizeof *sp); }

void drt_spatial_free(DrtSpatial *sp) {
  free(sp->pos);
  free(sp->keys);
  free(sp->start);
  free(sp->bucket);
  free(sp->scratch);
  free(sp->rank);
  memset(sp, 0, sizeof *sp);
}

size_t drt_spatial_bytes(const DrtSpatial *sp) {
  return sp->cap_pos + sp->cap_keys + sp->cap_start + sp->cap_bucket +
         sp->cap_scratch + sp->cap_rank;
}

void drt_strand_list_free(DrtStrandList *l) {
  free(l->ids);
  memset(l, 0, sizeof *l);
}

/* Make *p hold at least n elements of size sz (contents not kept). */
static bool reserve(void **p, size_t *cap, size_t n, size_t sz) {
  if (n > SIZE_MAX / sz) return false;
  size_t need = n * sz;
  if (need <= *cap && *p) return true;
  /* growing again: leave room so that slowly growing populations do
   * not reallocate every step */
  size_t want = *cap ? need + need / 4 : need;
  if (want < need) want = need;
  free(*p);
  *p = malloc(want ? want : 1);
  *cap = *p ? want : 0;
  return *p != NULL;
}

/* ---- reading the caller's positions ------------------------------- */

static const unsigned char *point_addr(const DrtSpatialPoints *p, size_t s) {
  const unsigned char *b = p->base;
  if (p->block <= 1) return b + s * p->block_stride;
  return b + (s / p->block) * p->block_stride + (s % p->block) * p->lane_stride;
}

enum { PT_DEAD, PT_NONFINITE, PT_OK };

/* Candidate j (an entry of ids, or strand j): its strand index and its
 * coordinates, exactly, as doubles. */
static int fetch(const DrtSpatialPoints *p, size_t j, uint32_t *id,
                 double x[3]) {
  size_t s = p->ids ? p->ids[j] : j;
  if (p->alive && !p->alive[s * (p->alive_stride ? p->alive_stride : 1)])
    return PT_DEAD;
  const unsigned char *a = point_addr(p, s);
  bool finite = true;
  for (unsigned k = 0; k < p->dim; k++) {
    if (p->type == nrrdTypeFloat) {
      float f;
      memcpy(&f, a + k * p->comp_stride, sizeof f);
      x[k] = f;
    } else {
      memcpy(&x[k], a + k * p->comp_stride, sizeof x[k]);
    }
    finite = finite && isfinite(x[k]);
  }
  *id = (uint32_t)s;
  return finite ? PT_OK : PT_NONFINITE;
}

/* ---- cells ------------------------------------------------------------ */

static int64_t key_clamp(unsigned dim) {
  return ((int64_t)1 << (key_bits[dim] - 1)) - 1;
}

/* The cell coordinate of x on axis a; monotone non-decreasing in x. */
static int64_t cell_of(const DrtSpatial *sp, double x, unsigned a, int64_t K) {
  double v = (x - sp->org[a]) * sp->inv;
  if (!(v > -(double)K)) return -K;
  if (v >= (double)K) return K;
  int64_t t = (int64_t)v;   /* truncation; floor is a libm call without */
  return t - ((double)t > v); /* SSE4.1 and this is on the hot path */
}

static uint64_t pack_key(const int64_t k[3], unsigned dim, int64_t K) {
  uint64_t key = 0;
  for (unsigned a = 0; a < dim; a++)
    key |= (uint64_t)(k[a] + K) << (key_bits[dim] * a);
  return key;
}

/* A 64-bit finalizer (murmur3's): spreads neighbouring keys over buckets. */
static uint64_t mix64(uint64_t z) {
  z ^= z >> 33;
  z *= 0xff51afd7ed558ccdULL;
  z ^= z >> 33;
  z *= 0xc4ceb9fe1a85ec53ULL;
  z ^= z >> 33;
  return z;
}

static size_t dense_index(const DrtSpatial *sp, const int64_t k[3]) {
  size_t i = 0;
  for (unsigned a = sp->dim; a-- > 0;)
    i = i * sp->nrow[a] + (size_t)(k[a] - sp->kmin[a]);
  return i;
}

/* The hash bucket of a packed key: k0 plus a hash of the other
 * coordinates, so that a row of cells along axis 0 occupies consecutive
 * buckets and a query scans one range per row, as in dense mode. */
static size_t hash_bucket(const DrtSpatial *sp, uint64_t key) {
  unsigned kb = key_bits[sp->dim];
  uint64_t k0 = key & (((uint64_t)1 << kb) - 1);
  return (size_t)((k0 + mix64(key >> kb)) & (sp->ncells - 1));
}

/* Put the k-th smallest of a[lo..hi) at a[k], smaller-or-equal ones
 * before it and greater-or-equal ones after (quickselect, median-of-three
 * pivots): the order statistics of a sort in O(n) time, as the cell size
 * is chosen again at every build. The values are finite. */
static void swap_d(double *a, size_t i, size_t j) {
  double t = a[i];
  a[i] = a[j];
  a[j] = t;
}

static void select_kth(double *a, size_t lo, size_t hi, size_t k) {
  while (hi - lo > 2) {
    /* the median of three at the lower middle: Hoare's scheme then
     * stops with lo <= j <= hi - 2, so both sides shrink */
    size_t mid = lo + (hi - 1 - lo) / 2;
    if (a[mid] < a[lo]) swap_d(a, mid, lo);
    if (a[hi - 1] < a[lo]) swap_d(a, hi - 1, lo);
    if (a[hi - 1] < a[mid]) swap_d(a, hi - 1, mid);
    const double piv = a[mid];
    size_t i = lo, j = hi - 1;
    for (;;) {   /* Hoare partition: a[lo..i) <= piv <= a[j+1..hi) */
      while (a[i] < piv) i++;
      while (a[j] > piv) j--;
      if (i >= j) break;
      swap_d(a, i, j);
      i++;
      j--;
    }
    if (k <= j) hi = j + 1;
    else lo = j + 1;
  }
  if (hi - lo == 2 && a[lo] > a[lo + 1]) swap_d(a, lo, lo + 1);
}

/* Choose org and the cell size from the sample (ns points per axis in
 * samp[a]), the bounding box [lo, hi] and the number of points nv. */
static void choose_cells(DrtSpatial *sp, double samp[3][SAMPLE_MAX], size_t ns,
                         const double lo[3], const double hi[3], size_t nv,
                         double hint) {
  double logvol = 0;
  unsigned dims = 0;
  const bool hinted = hint > 0 && isfinite(hint);   /* no density needed */
  for (unsigned a = 0; a < sp->dim; a++) {
    double ext = 0;
    if (ns > 0) {
      double *v = samp[a];
      select_kth(v, 0, ns, ns / 2);
      sp->org[a] = v[ns / 2];
      if (ns >= 20 && !hinted) {
        select_kth(v, 0, ns / 2, ns / 20);
        select_kth(v, ns / 2 + 1, ns, ns - 1 - ns / 20);
        ext = (v[ns - 1 - ns / 20] - v[ns / 20]) / 0.9;
      }
    } else {
      sp->org[a] = lo[a];
    }
    /* a bulk of equal coordinates (or a tiny sample): use the full box */
    if (!(ext > 0) || !isfinite(ext)) ext = hi[a] - lo[a];
    if (ext > 0 && isfinite(ext)) {
      logvol += log(ext);
      dims++;
    } else if (ext > 0) {
      logvol += log(DBL_MAX);   /* hi − lo overflowed */
      dims++;
    }
  }
  double h;
  if (hinted)
    h = hint;
  else if (dims == 0)
    h = 1;   /* all points equal: any size works */
  else
    h = exp((logvol - log((double)nv / 2)) / dims);
  if (!(h >= 1e-300)) h = 1e-300;
  if (!(h <= 1e300)) h = 1e300;
  sp->cell = h;
  sp->inv = 1 / h;
}

/* ---- build ------------------------------------------------------------- */

static bool check_points(DrtErrors *e, const DrtSpatialPoints *p) {
  if (!p) {
    drt_error(e, "spatial index: no points given");
    return true;
  }
  if (p->dim < 1 || p->dim > 3) {
    drt_error(e, "spatial index: dimension %u, expected 1, 2 or 3", p->dim);
    return true;
  }
  if (p->type != nrrdTypeFloat && p->type != nrrdTypeDouble) {
    drt_error(e, "spatial index: position type '%s', expected float or "
              "double", drt_type_name(p->type));
    return true;
  }
  if (p->count >= UINT32_MAX) {
    drt_error(e, "spatial index: %zu strands, at most %lu are supported",
              p->count, (unsigned long)UINT32_MAX - 1);
    return true;
  }
  if (p->count > 0 && !p->base) {
    drt_error(e, "spatial index: no position data");
    return true;
  }
  if (p->ids) {
    for (size_t j = 0; j < p->nids; j++) {
      if (p->ids[j] >= p->count || (j > 0 && p->ids[j] <= p->ids[j - 1])) {
        drt_error(e, "spatial index: strand list entry %zu (%lu) is out of "
                  "range or not in strictly ascending order", j,
                  (unsigned long)p->ids[j]);
        return true;
      }
    }
  }
  return false;
}

static void make_empty(DrtSpatial *sp) {
  sp->mode = DRT_SPATIAL_BRUTE;
  sp->npoints = 0;
  sp->ncells = 0;
  sp->cell = 0;
}

static bool oom(DrtErrors *e, DrtSpatial *sp) {
  make_empty(sp);
  drt_error(e, "spatial index: out of memory");
  return true;
}

/* Store point x with strand id as record i of recs (pos or scratch). */
static void put_point(const DrtSpatial *sp, void *recs, size_t i, uint32_t id,
                      const double x[3]) {
  if (sp->type == nrrdTypeFloat) {
    float *rec = (float *)recs + i * (sp->dim + 1);
    for (unsigned k = 0; k < sp->dim; k++) rec[k] = (float)x[k];   /* exact */
    memcpy(rec + sp->dim, &id, sizeof id);
  } else {
    double *rec = (double *)recs + i * (sp->dim + 1);
    for (unsigned k = 0; k < sp->dim; k++) rec[k] = x[k];
    memcpy(rec + sp->dim, &id, sizeof id);
  }
}

/* The strand index of record i. */
static uint32_t point_id(const DrtSpatial *sp, size_t i) {
  uint32_t id;
  size_t esize = sp->type == nrrdTypeFloat ? sizeof(float) : sizeof(double);
  memcpy(&id, (const char *)sp->pos + (i * (sp->dim + 1) + sp->dim) * esize,
         sizeof id);
  return id;
}

size_t drt_spatial_order(const DrtSpatial *sp, uint32_t *ids) {
  for (size_t i = 0; i < sp->npoints; i++) ids[i] = point_id(sp, i);
  return sp->npoints;
}

/* Coordinate a of record i of an array of records in the layout of pos
 * (the scratch copy, or pos itself), exactly, as a double. */
static double rec_coord(const DrtSpatial *sp, const void *recs, size_t i,
                        unsigned a) {
  size_t at = i * (sp->dim + 1) + a;
  if (sp->type == nrrdTypeFloat) return ((const float *)recs)[at];
  return ((const double *)recs)[at];
}

bool drt_spatial_build(DrtErrors *e, DrtSpatial *sp,
                       const DrtSpatialPoints *pts,
                       const DrtSpatialOptions *opt) {
  make_empty(sp);
  sp->nonfinite = 0;
  if (check_points(e, pts)) return true;
  sp->dim = pts->dim;
  sp->type = pts->type;
  const unsigned dim = pts->dim;
  const int64_t K = key_clamp(dim);
  const size_t ncand = pts->ids ? pts->nids : pts->count;
  const size_t esize = pts->type == nrrdTypeFloat ? sizeof(float)
                                                  : sizeof(double);
  const size_t rsize = (dim + 1) * esize;   /* bytes per record */

  /* pass 1: each candidate read once (fetch is the costly part: strides,
   * liveness, finiteness) into records in the scratch array, which is
   * swapped with pos below (both keep their memory from build to build);
   * bounding box, sample */
  if (ncand > SIZE_MAX / (dim + 1) ||
      !reserve(&sp->scratch, &sp->cap_scratch, ncand * (dim + 1), esize))
    return oom(e, sp);
  double samp[3][SAMPLE_MAX];
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, x[3];
  size_t nv = 0, ns = 0, step = ncand / SAMPLE_MAX + 1;
  uint32_t id;
  for (size_t j = 0; j < ncand; j++) {
    int st = fetch(pts, j, &id, x);
    if (st != PT_OK) {
      sp->nonfinite += st == PT_NONFINITE;
      continue;
    }
    for (unsigned a = 0; a < dim; a++) {
      if (nv == 0 || x[a] < lo[a]) lo[a] = x[a];
      if (nv == 0 || x[a] > hi[a]) hi[a] = x[a];
    }
    if (j % step == 0 && ns < SAMPLE_MAX) {
      for (unsigned a = 0; a < dim; a++) samp[a][ns] = x[a];
      ns++;
    }
    put_point(sp, sp->scratch, nv++, id, x);
  }
  if (nv == 0) return false;
  if (!reserve(&sp->pos, &sp->cap_pos, nv * (dim + 1), esize) ||
      !reserve((void **)&sp->rank, &sp->cap_rank, pts->count, sizeof(uint32_t)))
    return oom(e, sp);
  const unsigned char *recs = sp->scratch;

  if (nv <= BRUTE_MAX || (opt && opt->brute_force)) {
    /* brute force: the copy in strand order, so results come sorted */
    void *t = sp->pos;
    size_t tc = sp->cap_pos;
    sp->pos = sp->scratch;
    sp->cap_pos = sp->cap_scratch;
    sp->scratch = t;
    sp->cap_scratch = tc;
    for (size_t i = 0; i < nv; i++) sp->rank[point_id(sp, i)] = (uint32_t)i;
    sp->npoints = nv;
    return false;
  }

  choose_cells(sp, samp, ns, lo, hi, nv, opt ? opt->radius_hint : 0);

  /* pass 2: the occupied cell box, which decides dense or hash */
  int64_t k[3] = {0, 0, 0};
  for (unsigned a = 0; a < 3; a++) sp->kmin[a] = sp->kmax[a] = 0;
  for (size_t i = 0; i < nv; i++)
    for (unsigned a = 0; a < dim; a++) {
      k[a] = cell_of(sp, rec_coord(sp, recs, i, a), a, K);
      if (i == 0 || k[a] < sp->kmin[a]) sp->kmin[a] = k[a];
      if (i == 0 || k[a] > sp->kmax[a]) sp->kmax[a] = k[a];
    }
  double cells = 1;
  for (unsigned a = 0; a < dim; a++)
    cells *= (double)(sp->kmax[a] - sp->kmin[a]) + 1;
  /* dense up to 32 bytes of start[] per point plus 16 KB: points on a
   * surface in 3-D (the sphere example) leave most cells of their box
   * empty, and hashing their rows cost a third of that program's time */
  const bool hash = !(cells <= 8.0 * (double)nv + 4096 && cells < (double)UINT32_MAX);
  if (!hash) {
    sp->mode = DRT_SPATIAL_DENSE;
    sp->ncells = (size_t)cells;
    for (unsigned a = 0; a < 3; a++)
      sp->nrow[a] = a < dim ? (size_t)(sp->kmax[a] - sp->kmin[a] + 1) : 1;
  } else {
    sp->mode = DRT_SPATIAL_HASH;
    sp->ncells = 1;
    while (sp->ncells < nv) sp->ncells *= 2;
    if (!reserve((void **)&sp->keys, &sp->cap_keys, nv, sizeof(uint64_t)))
      return oom(e, sp);
  }
  if (!reserve((void **)&sp->start, &sp->cap_start, sp->ncells + 1,
               sizeof(uint32_t)) ||
      !reserve((void **)&sp->bucket, &sp->cap_bucket, nv, sizeof(uint32_t)))
    return oom(e, sp);

  /* pass 3: bucket of each point, counts */
  uint32_t *start = sp->start;
  memset(start, 0, (sp->ncells + 1) * sizeof *start);
  for (size_t i = 0; i < nv; i++) {
    for (unsigned a = 0; a < dim; a++)
      k[a] = cell_of(sp, rec_coord(sp, recs, i, a), a, K);
    size_t b = hash ? hash_bucket(sp, pack_key(k, dim, K)) : dense_index(sp, k);
    sp->bucket[i] = (uint32_t)b;
    start[b]++;
  }
  uint32_t sum = 0;
  for (size_t b = 0; b < sp->ncells; b++) {
    uint32_t c = start[b];
    start[b] = sum;
    sum += c;
  }
  start[sp->ncells] = sum;

  /* pass 4: scatter (stable), then start[b] holds the end of bucket b */
  unsigned char *pos = sp->pos;
  for (size_t i = 0; i < nv; i++) {
    size_t dst = start[sp->bucket[i]]++;
    memcpy(pos + dst * rsize, recs + i * rsize, rsize);
    sp->rank[point_id(sp, dst)] = (uint32_t)dst;
    if (hash) {
      for (unsigned a = 0; a < dim; a++)
        k[a] = cell_of(sp, rec_coord(sp, recs, i, a), a, K);
      sp->keys[dst] = pack_key(k, dim, K);
    }
  }
  memmove(start + 1, start, sp->ncells * sizeof *start);
  start[0] = 0;
  sp->npoints = nv;
  return false;
}

/* ---- queries ----------------------------------------------------------- */

typedef struct Query {
  const DrtSpatial *sp;
  float cf[3], r2f;
  double cd[3], r2d;
  uint32_t exclude;
  DrtStrandList *out;
  bool oom;
  /* hash mode: the row being scanned. A point is in it when its key has
   * row = key >> kb and k0 = key & kmask in [klo, klo + kspan]. */
  uint64_t row, klo, kspan, kmask;
  unsigned kb;
} Query;

static bool list_grow(DrtStrandList *l) {
  size_t cap = l->cap ? 2 * l->cap : 16;
  if (cap > SIZE_MAX / sizeof(uint32_t)) return false;
  uint32_t *ids = realloc(l->ids, cap * sizeof *ids);
  if (!ids) return false;
  l->ids = ids;
  l->cap = cap;
  return true;
}

/* A run [a, b) of consecutive records of the sorted copy: the cells
 * lo[0]..hi[0] of one row (dense mode, or hash mode's fallback to every
 * point). */
typedef struct Run {
  uint32_t a, b;
} Run;

enum { RUN_BATCH = 64 };   /* runs scanned per call (a 3-D query: 9) */

/* Test the points of runs[0..nrun) (when use_key, only those in the row
 * of cells q->row, klo..) and append the hits. The sums are written out
 * term by term in the order the header documents; DIM is a constant in
 * each expansion so that the tests on it vanish, and the type and the
 * dimension are dispatched once per batch of runs, not per run. With room
 * for every candidate of the batch in the list, each one's index is
 * stored and kept or not without a branch (a fifth to a half of a
 * query's candidates fail the test, at random: the branch mispredicted);
 * a list that cannot grow that far appends hit by hit, and fails only for
 * a hit it has no room for. */
#define SCAN_BODY(REAL, C, R2, DIM, KEYS)                                      \
  do {                                                                         \
    const REAL *P = (const REAL *)sp->pos;                                     \
    const REAL c0 = C[0], c1 = C[1], c2 = C[2], r2 = R2;                       \
    const uint32_t ex = q->exclude;                                            \
    size_t total = 0;                                                          \
    for (size_t k = 0; k < nrun; k++) total += runs[k].b - runs[k].a;         \
    bool room_ = out->cap - out->len >= total;                                 \
    while (!room_ && list_grow(out)) room_ = out->cap - out->len >= total;     \
    if (room_) {                                                               \
      uint32_t *ids = out->ids;                                                \
      size_t len = out->len;                                                   \
      for (size_t k = 0; k < nrun; k++)                                        \
        for (size_t i = runs[k].a, b = runs[k].b; i < b; i++) {                \
          SCAN_TEST(REAL, DIM, KEYS);                                          \
          ids[len] = id;                                                       \
          len += hit;                                                          \
        }                                                                      \
      out->len = len;                                                          \
    } else {                                                                   \
      for (size_t k = 0; k < nrun; k++)                                        \
        for (size_t i = runs[k].a, b = runs[k].b; i < b; i++) {                \
          SCAN_TEST(REAL, DIM, KEYS);                                          \
          if (!hit) continue;                                                  \
          if (out->len == out->cap && !list_grow(out)) {                       \
            q->oom = true;                                                     \
            return;                                                            \
          }                                                                    \
          out->ids[out->len++] = id;                                           \
        }                                                                      \
    }                                                                          \
  } while (0)

/* Candidate i of SCAN_BODY: `continue` when outside the row, else its
 * strand `id` and whether it is a `hit`. */
#define SCAN_TEST(REAL, DIM, KEYS)                                             \
  if ((KEYS) && ((keys[i] >> kb) != row || (keys[i] & kmask) - klo > kspan))   \
    continue;                                                                  \
  const REAL *p = P + i * ((DIM) + 1);                                         \
  REAL t = p[0] - c0, d2 = t * t;                                              \
  if ((DIM) > 1) {                                                             \
    t = p[1] - c1;                                                             \
    d2 = d2 + t * t;                                                           \
  }                                                                            \
  if ((DIM) > 2) {                                                             \
    t = p[2] - c2;                                                             \
    d2 = d2 + t * t;                                                           \
  }                                                                            \
  uint32_t id;                                                                 \
  memcpy(&id, p + (DIM), sizeof id);                                           \
  const size_t hit = (d2 < r2) & (id != ex)

static void scan_runs(Query *q, const Run *runs, size_t nrun, bool use_key) {
  const DrtSpatial *sp = q->sp;
  const uint64_t *keys = use_key ? sp->keys : NULL;
  const uint64_t row = q->row, klo = q->klo, kspan = q->kspan;
  const uint64_t kmask = q->kmask;
  const unsigned kb = q->kb;
  DrtStrandList *out = q->out;
  if (q->oom || nrun == 0) return;
  bool f = sp->type == nrrdTypeFloat;
  /* KEYS a constant too: the dense runs test no key */
#define SCAN_DIMS(KEYS)                                                        \
  switch (sp->dim) {                                                           \
  case 1:                                                                      \
    if (f) SCAN_BODY(float, q->cf, q->r2f, 1, KEYS);                           \
    else SCAN_BODY(double, q->cd, q->r2d, 1, KEYS);                            \
    break;                                                                     \
  case 2:                                                                      \
    if (f) SCAN_BODY(float, q->cf, q->r2f, 2, KEYS);                           \
    else SCAN_BODY(double, q->cd, q->r2d, 2, KEYS);                            \
    break;                                                                     \
  default:                                                                     \
    if (f) SCAN_BODY(float, q->cf, q->r2f, 3, KEYS);                           \
    else SCAN_BODY(double, q->cd, q->r2d, 3, KEYS);                            \
    break;                                                                     \
  }
  if (keys) SCAN_DIMS(true) else SCAN_DIMS(false)
#undef SCAN_DIMS
}

static void scan(Query *q, size_t a, size_t b, bool use_key) {
  Run r = {(uint32_t)a, (uint32_t)b};
  scan_runs(q, &r, 1, use_key);
}

/* Sort the strand indices a[0..n) ascending; they are distinct (a query
 * finds each strand once). Most results are a few dozen indices spread
 * over a range of a few thousand (or, in a particle system whose strands
 * were created in random places, over all of them), so a bitmap of the
 * range does it without comparisons: all of it cleared and read back when
 * it is dense (O(n + range/64)), else in O(n + range/4096), with only the
 * words the indices fall in cleared and set and a summary bit per word
 * saying which to read back. Wider ones take an LSD radix sort over the
 * bytes that differ, with tmp[0..n) as scratch. A heapsort here used to
 * cost a third of a particle system's time (halftone); the radix sort,
 * which the bitmap replaced below 131072, still a sixth of it (its 256
 * counters per byte, for some 50 indices). */
enum {
  SORT_BITMAP_WORDS = 2048,                    /* 16 KB of stack: 131072 indices */
  SORT_SUMMARY_WORDS = SORT_BITMAP_WORDS / 64  /* a bit per bitmap word */
};

static void sort_ids(uint32_t *a, size_t n, uint32_t *tmp) {
  size_t i = 1;
  while (i < n && a[i - 1] < a[i]) i++;
  if (i >= n) return;
  if (n <= 16) {
    for (; i < n; i++) {
      uint32_t v = a[i];
      size_t j = i;
      for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
      a[j] = v;
    }
    return;
  }
  uint32_t lo = a[0], hi = a[0];
  for (size_t k = 1; k < n; k++) {
    lo = a[k] < lo ? a[k] : lo;
    hi = a[k] > hi ? a[k] : hi;
  }
  size_t words = ((size_t)(hi - lo) >> 6) + 1;
  if (words <= SORT_BITMAP_WORDS) {
    uint64_t bm[SORT_BITMAP_WORDS], sum[SORT_SUMMARY_WORDS];
    size_t o = 0;
    if (words <= 4 * n + 16) {   /* a dense range: clear and read it all */
      memset(bm, 0, words * sizeof *bm);
      for (size_t k = 0; k < n; k++) {
        uint32_t v = a[k] - lo;
        bm[v >> 6] |= (uint64_t)1 << (v & 63);
      }
      for (size_t w = 0; w < words; w++)
        for (uint64_t b = bm[w]; b; b &= b - 1)
          a[o++] = lo + (uint32_t)(w * 64 + (size_t)__builtin_ctzll(b));
      return;
    }
    size_t nsum = (words + 63) >> 6;
    memset(sum, 0, nsum * sizeof *sum);
    for (size_t k = 0; k < n; k++) bm[(a[k] - lo) >> 6] = 0;   /* no branch */
    for (size_t k = 0; k < n; k++) {
      uint32_t v = a[k] - lo, w = v >> 6;
      bm[w] |= (uint64_t)1 << (v & 63);
      sum[w >> 6] |= (uint64_t)1 << (w & 63);
    }
    for (size_t sw = 0; sw < nsum; sw++)
      for (uint64_t sb = sum[sw]; sb; sb &= sb - 1) {
        size_t w = sw * 64 + (size_t)__builtin_ctzll(sb);
        for (uint64_t b = bm[w]; b; b &= b - 1)
          a[o++] = lo + (uint32_t)(w * 64 + (size_t)__builtin_ctzll(b));
      }
    return;
  }
  uint32_t diff = lo ^ hi;   /* bytes above the highest differing one agree */
  for (size_t k = 0; k < n; k++) diff |= a[k] ^ lo;
  uint32_t *src = a, *dst = tmp;
  for (unsigned sh = 0; sh < 32; sh += 8) {
    if (!((diff >> sh) & 0xff)) continue;
    uint32_t cnt[256] = {0};
    for (size_t k = 0; k < n; k++) cnt[(src[k] >> sh) & 0xff]++;
    uint32_t sum = 0;
    for (unsigned b = 0; b < 256; b++) {
      uint32_t c = cnt[b];
      cnt[b] = sum;
      sum += c;
    }
    for (size_t k = 0; k < n; k++) dst[cnt[(src[k] >> sh) & 0xff]++] = src[k];
    uint32_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != a) memcpy(a, src, n * sizeof *a);
}

/* The query proper; c is the centre as doubles (exact), r the radius. */
static bool query(Query *q, const double c[3], double r) {
  const DrtSpatial *sp = q->sp;
  DrtStrandList *out = q->out;
  const size_t base = out->len;
  const unsigned dim = sp->dim;
  if (!(r > 0)) return false;
  for (unsigned a = 0; a < dim; a++)
    if (!isfinite(c[a])) return false;   /* no distance can be < r */

  if (sp->mode == DRT_SPATIAL_BRUTE) {
    scan(q, 0, sp->npoints, false);   /* strand order: sorted */
  } else {
    const int64_t K = key_clamp(dim);
    int64_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    double ncell = 1;
    for (unsigned a = 0; a < dim; a++) {
      lo[a] = cell_of(sp, c[a] - r, a, K);
      hi[a] = cell_of(sp, c[a] + r, a, K);
      if (lo[a] < sp->kmin[a]) lo[a] = sp->kmin[a];
      if (hi[a] > sp->kmax[a]) hi[a] = sp->kmax[a];
      if (lo[a] > hi[a]) return false;
      ncell *= (double)(hi[a] - lo[a]) + 1;
    }
    const uint32_t *start = sp->start;
    if (sp->mode == DRT_SPATIAL_DENSE) {
      /* one contiguous run of cells lo[0]..hi[0] per row */
      const size_t len = (size_t)(hi[0] - lo[0]) + 1;
      const size_t s1 = sp->nrow[0], s2 = sp->nrow[0] * sp->nrow[1];
      size_t plane = dense_index(sp, lo), nrun = 0;
      Run runs[RUN_BATCH];
      for (int64_t k2 = lo[2]; k2 <= hi[2]; k2++, plane += s2) {
        size_t row = plane;
        for (int64_t k1 = lo[1]; k1 <= hi[1]; k1++, row += s1) {
          runs[nrun].a = start[row];
          runs[nrun].b = start[row + len];
          nrun += runs[nrun].a < runs[nrun].b;   /* empty rows: no run */
          if (nrun == RUN_BATCH) {
            scan_runs(q, runs, nrun, false);
            nrun = 0;
          }
        }
      }
      scan_runs(q, runs, nrun, false);
    } else if (4 * ncell > (double)sp->npoints) {
      scan(q, 0, sp->npoints, false);   /* cheaper than the cells */
    } else {
      /* rows of cells lo[0]..hi[0]: consecutive buckets, modulo ncells
       * (len < ncells since ncell <= npoints/4 <= ncells/4) */
      const size_t len = (size_t)(hi[0] - lo[0]) + 1, nb = sp->ncells;
      q->kb = key_bits[dim];
      q->kmask = ((uint64_t)1 << q->kb) - 1;
      q->klo = (uint64_t)(lo[0] + K);
      q->kspan = len - 1;
      int64_t k[3] = {lo[0], 0, 0};
      for (k[2] = lo[2]; k[2] <= hi[2]; k[2]++)
        for (k[1] = lo[1]; k[1] <= hi[1]; k[1]++) {
          uint64_t key = pack_key(k, dim, K);
          size_t b = hash_bucket(sp, key);
          q->row = key >> q->kb;
          if (b + len <= nb) {
            scan(q, start[b], start[b + len], true);
          } else {
            scan(q, start[b], start[nb], true);
            scan(q, 0, start[b + len - nb], true);
          }
        }
    }
    /* the sort's scratch: room for as many more indices in out */
    size_t m = out->len - base;
    while (!q->oom && out->cap - out->len < m)
      if (!list_grow(out)) q->oom = true;
    if (!q->oom) sort_ids(out->ids + base, m, out->ids + out->len);
  }
  if (q->oom) {
    out->len = base;
    return true;
  }
  return false;
}

/* The two precisions differ only in the fields of Query they fill. The
 * centre is copied element by element (a loop here becomes a memcpy
 * call); query() gets it widened to double, which is exact. */
#define SPHERE_FN(NAME, REAL, NRRD_TYPE, CQ, R2)                                \
  bool NAME(const DrtSpatial *sp, const REAL *center, REAL r, uint32_t exclude, \
            DrtStrandList *out) {                                              \
    if (sp->npoints == 0) return false;                                        \
    if (sp->type != NRRD_TYPE || !center) return true;                         \
    Query q;                                                                   \
    q.sp = sp;                                                                 \
    q.R2 = r * r;                                                              \
    q.exclude = exclude;                                                       \
    q.out = out;                                                               \
    q.oom = false;                                                             \
    q.CQ[0] = center[0];                                                       \
    q.CQ[1] = sp->dim > 1 ? center[1] : 0;                                     \
    q.CQ[2] = sp->dim > 2 ? center[2] : 0;                                     \
    double c[3] = {q.CQ[0], q.CQ[1], q.CQ[2]};                                 \
    return query(&q, c, r);                                                    \
  }

SPHERE_FN(drt_spatial_sphere_f, float, nrrdTypeFloat, cf, r2f)
SPHERE_FN(drt_spatial_sphere_d, double, nrrdTypeDouble, cd, r2d)
#undef SPHERE_FN

/* The records of the strands ids[0..n), copied out dim reals each; the
 * dimension a constant in each loop. */
#define POSITIONS_LOOP(REAL, DIM)                                              \
  for (size_t i = 0; i < n; i++) {                                             \
    const REAL *rec = P + (size_t)sp->rank[ids[i]] * ((DIM) + 1);              \
    for (unsigned k = 0; k < (DIM); k++) out[i * (DIM) + k] = rec[k];          \
  }
#define POSITIONS_FN(NAME, REAL)                                               \
  void NAME(const DrtSpatial *sp, const uint32_t *ids, size_t n, REAL *out) {  \
    const REAL *P = (const REAL *)sp->pos;                                     \
    switch (sp->dim) {                                                         \
    case 1: POSITIONS_LOOP(REAL, 1); break;                                    \
    case 2: POSITIONS_LOOP(REAL, 2); break;                                    \
    default: POSITIONS_LOOP(REAL, 3); break;                                   \
    }                                                                          \
  }

POSITIONS_FN(drt_spatial_positions_f, float)
POSITIONS_FN(drt_spatial_positions_d, double)
#undef POSITIONS_FN
#undef POSITIONS_LOOP
