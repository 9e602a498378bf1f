/* dc_sphere.h -- sphere(r) / sphere(p, r) on the device (doc/language.md
 * §9.2), included by the generated device half before its strand
 * methods when the program queries (D_SPHERE_DIM > 0).
 * The generated device half provides
 *
 *   D_SPHERE_DIM                         1, 2 or 3: the type of `pos`
 *   d_sphere_pos(in, N, i, p)            the pos of slot i of a store
 *   d_sphere_hint(g)                     host: the largest query radius
 *                                        known at the start of a step (0:
 *                                        none), the cell size
 *
 * Semantics: those of the CPU index (rt/diderot_spatial.h), so that the
 * neighbour sets, and their order, are the same: a query centred at c
 * with radius r returns every strand q alive at the start of the step
 * (status active or stable) other than the caller with
 *     r > 0  and  Σ_k (q_k − c_k)² < r·r
 * evaluated in dreal, k = 0..dim−1 in that order, never contracted into
 * fused multiply-adds (the DC_FMUL/DC_FADD intrinsics), in ascending slot
 * order. Points with a NaN or infinite coordinate are never indexed.
 *
 * Grid (rebuilt every step from the start-of-step store, all on the
 * device but for a small copy of block partials):
 *   1. gather the positions of the alive slots and per-block bounding
 *      boxes; the host combines the boxes and picks the cell edge h: the
 *      radius hint, grown until the dense cell array over the box has at
 *      most 2n+64 cells (correctness never depends on h, only speed);
 *   2. count the points per cell (atomics), exclusive scan (block sums,
 *      one-thread scan of the block partials, block-local scans), scatter
 *      positions and slots into cell order.
 * A cell coordinate is floor((x − org)·inv) in double, clamped to the grid;
 * build and query use the same function, which is monotone in x, and the
 * query box is [fl(c − r), fl(c + r)] per axis, so every qualifying point
 * lies in a visited cell (the argument of rt_spatial.c).
 *
 * Results: two passes over the box (count, then fill) with one atomic
 * allocation from a per-step pool in between; the filled range is sorted
 * (insertion sort: results are small). When the pool is too small the
 * allocation fails, the pool counter still records the demand, and the
 * host runs the step again with a pool that fits (dc_run.h restores the
 * start-of-step state first), so no query result is ever truncated.
 */
#ifndef DIDEROT_CUDA_SPHERE_H
#define DIDEROT_CUDA_SPHERE_H

/* defined by the generated code after its strand methods */
static DC_DEV void d_sphere_pos(const dreal *d_in, int64_t d_N, uint32_t i, dreal *p);
static double d_sphere_hint(const d_dglobals *g);

#ifdef DIDEROT_CUDA_EMULATE
/* volatile: no contraction into fused multiply-adds by the host compiler */
static inline float dc_fmul(float a, float b) { volatile float p = a * b; return p; }
static inline double dc_fmul(double a, double b) { volatile double p = a * b; return p; }
static inline float dc_fadd(float a, float b) { volatile float s = a + b; return s; }
static inline double dc_fadd(double a, double b) { volatile double s = a + b; return s; }
#else
static __device__ inline float dc_fmul(float a, float b) { return __fmul_rn(a, b); }
static __device__ inline double dc_fmul(double a, double b) { return __dmul_rn(a, b); }
static __device__ inline float dc_fadd(float a, float b) { return __fadd_rn(a, b); }
static __device__ inline double dc_fadd(double a, double b) { return __dadd_rn(a, b); }
#endif

/* Cell coordinate of x on axis a (monotone in x; NaN goes to cell 0). */
static DC_HD inline int32_t dc_cell_coord(const DcGrid *g, int a, double x) {
  double t = floor((x - g->org[a]) * g->inv);
  if (!(t > 0)) return 0;
  if (t >= (double)(g->nc[a] - 1)) return g->nc[a] - 1;
  return (int32_t)t;
}

/* Σ_k (q_k − c_k)² in dreal without contraction. */
static DC_DEV inline dreal dc_dist2(const dreal *q, const dreal *c) {
  dreal s = 0;
  for (int k = 0; k < D_SPHERE_DIM; k++) {
    dreal t = q[k] - c[k];
    s = dc_fadd(s, dc_fmul(t, t));
  }
  return s;
}

/* Visit the points of the cells of the box around c: f(point index). */
template <typename F>
static DC_DEV inline void dc_sphere_scan(const DcGrid *g, const dreal *c, dreal r, F f) {
  int32_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  for (int k = 0; k < D_SPHERE_DIM; k++) {
    lo[k] = dc_cell_coord(g, k, (double)(dreal)(c[k] - r));
    hi[k] = dc_cell_coord(g, k, (double)(dreal)(c[k] + r));
  }
  for (int32_t z = lo[2]; z <= hi[2]; z++)
    for (int32_t y = lo[1]; y <= hi[1]; y++) {
      /* a row of cells along axis 0 is contiguous */
      uint32_t row = ((uint32_t)z * (uint32_t)g->nc[1] + (uint32_t)y) * (uint32_t)g->nc[0];
      for (uint32_t p = g->start[row + (uint32_t)lo[0]]; p < g->start[row + (uint32_t)hi[0] + 1]; p++)
        f(p);
    }
}

/* The strands within r of c except `caller`, ascending; *len gets their
 * number. NULL (len 0) for none, or when the pool is exhausted (the host
 * then reruns the step). */
static DC_DEV const uint32_t *dc_sphere_query(const DcStep *a, uint32_t caller, const dreal *c,
                                              dreal r, uint32_t *len) {
  *len = 0;
  const DcGrid *g = &a->grid;
  if (!(r > 0) || !g->npts) return NULL;
  const dreal rr = dc_fmul(r, r);
  uint32_t n = 0;
  dc_sphere_scan(g, c, r, [&](uint32_t p) {
    n += g->ids[p] != caller && dc_dist2((const dreal *)g->pts + (size_t)p * D_SPHERE_DIM, c) < rr;
  });
  if (!n) return NULL;
  uint32_t base = atomicAdd(&a->cnt->pool, n);
  if (base > a->poolcap || n > a->poolcap - base) return NULL;
  uint32_t *out = a->pool + base, m = 0;
  dc_sphere_scan(g, c, r, [&](uint32_t p) {
    uint32_t id = g->ids[p];
    if (id != caller && dc_dist2((const dreal *)g->pts + (size_t)p * D_SPHERE_DIM, c) < rr) {
      uint32_t j = m++;
      while (j > 0 && out[j - 1] > id) {
        out[j] = out[j - 1];
        j--;
      }
      out[j] = id;
    }
  });
  *len = n;
  return out;
}

/* ---- the build ----------------------------------------------------------------------- */

/* Positions of the alive slots (a NaN first coordinate marks the others)
 * and per-block bounding boxes: part[b·2·dim + k] min, [.. + dim + k] max. */
static __global__ void dc_k_sphere_gather(const dreal *in, uint32_t cap, uint32_t n,
                                          const unsigned char *status, dreal *pts, dreal *part) {
  DC_SHARED dreal lo[D_SPHERE_DIM][DC_RBLOCK], hi[D_SPHERE_DIM][DC_RBLOCK];
  DC_FOR_THREADS(t) {
    uint32_t i = blockIdx.x * blockDim.x + t;
    for (int k = 0; k < D_SPHERE_DIM; k++) {
      lo[k][t] = (dreal)INFINITY;
      hi[k][t] = -(dreal)INFINITY;
    }
    if (i < n) {
      dreal p[D_SPHERE_DIM];
      d_sphere_pos(in, cap, i, p);
      bool ok = status[i] == DRT_ACTIVE || status[i] == DRT_STABLE;
      for (int k = 0; k < D_SPHERE_DIM; k++) ok = ok && isfinite(p[k]);
      if (!ok) p[0] = (dreal)NAN;
      for (int k = 0; k < D_SPHERE_DIM; k++) {
        pts[(size_t)i * D_SPHERE_DIM + k] = p[k];
        if (ok) lo[k][t] = hi[k][t] = p[k];
      }
    }
  }
  for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
    DC_SYNC();
    DC_FOR_THREADS(t) {
      if (t < h)
        for (int k = 0; k < D_SPHERE_DIM; k++) {
          if (lo[k][t + h] < lo[k][t]) lo[k][t] = lo[k][t + h];
          if (hi[k][t + h] > hi[k][t]) hi[k][t] = hi[k][t + h];
        }
    }
  }
  DC_SYNC();
  DC_FOR_THREADS(t) {
    if (t == 0)
      for (int k = 0; k < D_SPHERE_DIM; k++) {
        part[blockIdx.x * 2 * D_SPHERE_DIM + k] = lo[k][0];
        part[blockIdx.x * 2 * D_SPHERE_DIM + D_SPHERE_DIM + k] = hi[k][0];
      }
  }
}

/* The cell of every indexed point (UINT32_MAX: not indexed), counted. */
static __global__ void dc_k_sphere_count(DcGrid g, const dreal *pts, uint32_t n, uint32_t *cell,
                                         uint32_t *count) {
  uint32_t i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i >= n) return;
  const dreal *p = pts + (size_t)i * D_SPHERE_DIM;
  if (p[0] != p[0]) {
    cell[i] = UINT32_MAX;
    return;
  }
  uint32_t c = 0;
  for (int k = D_SPHERE_DIM - 1; k >= 0; k--) c = c * (uint32_t)g.nc[k] + (uint32_t)dc_cell_coord(&g, k, (double)p[k]);
  cell[i] = c;
  atomicAdd(&count[c], 1u);
}

/* Per block: the sum of its counts. */
static __global__ void dc_k_sum_parts(const uint32_t *count, uint32_t n, uint32_t *part) {
  DC_SHARED uint32_t s[DC_RBLOCK];
  DC_FOR_THREADS(t) {
    uint32_t k = blockIdx.x * blockDim.x + t;
    s[t] = k < n ? count[k] : 0u;
  }
  for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
    DC_SYNC();
    DC_FOR_THREADS(t) {
      if (t < h) s[t] += s[t + h];
    }
  }
  DC_SYNC();
  DC_FOR_THREADS(t) {
    if (t == 0) part[blockIdx.x] = s[0];
  }
}

/* One thread: exclusive scan of the block partials in place; the total
 * goes to *total. */
static __global__ void dc_k_scan_sums(uint32_t *part, uint32_t nblocks, uint32_t *total) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  uint32_t acc = 0;
  for (uint32_t b = 0; b < nblocks; b++) {
    uint32_t v = part[b];
    part[b] = acc;
    acc += v;
  }
  *total = acc;
}

/* start[k] = Σ_{j<k} count[j] (block-local Hillis-Steele plus the block's
 * offset); fill[k] = start[k] for the scatter. */
static __global__ void dc_k_scan_cells(const uint32_t *count, uint32_t n, const uint32_t *offset,
                                       uint32_t *start, uint32_t *fill) {
  DC_SHARED uint32_t a[DC_RBLOCK], b[DC_RBLOCK], v[DC_RBLOCK];
  DC_FOR_THREADS(t) {
    uint32_t k = blockIdx.x * blockDim.x + t;
    v[t] = a[t] = k < n ? count[k] : 0u;
  }
  uint32_t *src = dc_block_scan(a, b);
  DC_FOR_THREADS(t) {
    uint32_t k = blockIdx.x * blockDim.x + t;
    if (k < n) start[k] = fill[k] = offset[blockIdx.x] + src[t] - v[t];
  }
}

/* Points into cell order (the order inside a cell does not matter: query
 * results are sorted). */
static __global__ void dc_k_sphere_scatter(const dreal *pts, uint32_t n, const uint32_t *cell,
                                           uint32_t *fill, dreal *spts, uint32_t *ids) {
  uint32_t i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i >= n || cell[i] == UINT32_MAX) return;
  uint32_t p = atomicAdd(&fill[cell[i]], 1u);
  for (int k = 0; k < D_SPHERE_DIM; k++) spts[(size_t)p * D_SPHERE_DIM + k] = pts[(size_t)i * D_SPHERE_DIM + k];
  ids[p] = i;
}

/* Device memory of the index, reused from step to step. */
typedef struct DcSphere {
  dreal *pts, *spts, *part, *hpart;
  uint32_t *cell, *ids, *count, *start, *fill, *sums, *total;
  uint32_t cap_pts, cap_cells, cap_blocks;
  bool brute;        /* --no-space-partition: one cell */
} DcSphere;

static void dc_sphere_free(DcSphere *s) {
  cudaFree(s->pts);
  cudaFree(s->spts);
  cudaFree(s->part);
  free(s->hpart);
  cudaFree(s->cell);
  cudaFree(s->ids);
  cudaFree(s->count);
  cudaFree(s->start);
  cudaFree(s->fill);
  cudaFree(s->sums);
  cudaFree(s->total);
  bool brute = s->brute;
  memset(s, 0, sizeof *s);
  s->brute = brute;
}

/* Grow a device array to hold n items (contents not kept). */
static bool dc_sphere_room(DrtErrors *err, void **p, size_t n, size_t size) {
  cudaFree(*p);
  *p = NULL;
  return dc_ok(err, cudaMalloc(p, n ? n * size : 1), "sphere index allocation");
}

/* Build *g from the n slots of store `in` (capacity cap). */
static bool dc_sphere_build(DrtErrors *err, DcSphere *s, DcGrid *g, const dreal *in, uint32_t cap,
                            uint32_t n, const unsigned char *status, double hint) {
  memset(g, 0, sizeof *g);
  g->nc[0] = g->nc[1] = g->nc[2] = 1;
  g->inv = 1;
  uint32_t nb = dc_blocks(n, DC_RBLOCK);
  if (n > s->cap_pts) {
    uint32_t c = n + n / 4;
    if (!dc_sphere_room(err, (void **)&s->pts, (size_t)c * D_SPHERE_DIM, sizeof(dreal)) ||
        !dc_sphere_room(err, (void **)&s->spts, (size_t)c * D_SPHERE_DIM, sizeof(dreal)) ||
        !dc_sphere_room(err, (void **)&s->cell, c, sizeof(uint32_t)) ||
        !dc_sphere_room(err, (void **)&s->ids, c, sizeof(uint32_t)))
      return false;
    s->cap_pts = c;
  }
  if (nb > s->cap_blocks) {
    free(s->hpart);
    s->hpart = (dreal *)malloc((size_t)nb * 2 * D_SPHERE_DIM * sizeof(dreal));
    if (!s->hpart) {
      drt_error(err, "out of memory");
      return false;
    }
    if (!dc_sphere_room(err, (void **)&s->part, (size_t)nb * 2 * D_SPHERE_DIM, sizeof(dreal)))
      return false;
    s->cap_blocks = nb;
  }
  if (!n) return true;
  DC_LAUNCH_PHASED(dc_k_sphere_gather, nb, DC_RBLOCK, in, cap, n, status, s->pts, s->part);
  if (!dc_launched(err, "sphere index") ||
      !dc_ok(err, cudaMemcpy(s->hpart, s->part, (size_t)nb * 2 * D_SPHERE_DIM * sizeof(dreal),
                             cudaMemcpyDeviceToHost), "copy"))
    return false;
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  bool any = false;
  for (uint32_t b = 0; b < nb; b++) {
    const dreal *q = s->hpart + (size_t)b * 2 * D_SPHERE_DIM;
    if (!(q[0] <= q[D_SPHERE_DIM])) continue; /* a block without indexed points */
    for (int k = 0; k < D_SPHERE_DIM; k++) {
      if (!any || q[k] < lo[k]) lo[k] = q[k];
      if (!any || q[D_SPHERE_DIM + k] > hi[k]) hi[k] = q[D_SPHERE_DIM + k];
    }
    any = true;
  }
  /* the cell edge: the hint, or about 2 points per cell over the box; then
   * as large as needed for at most 2n+64 cells */
  double ext = 0, vol = 1;
  for (int k = 0; k < D_SPHERE_DIM; k++) {
    double e = hi[k] - lo[k];
    if (e > ext) ext = e;
    vol *= e > 0 ? e : 1;
  }
  double h = hint > 0 && isfinite(hint) ? hint : pow(2.0 * vol / (double)n, 1.0 / D_SPHERE_DIM);
  if (!(h > 0) || !isfinite(h)) h = ext > 0 ? ext : 1;
  double limit = 2.0 * (double)n + 64;
  for (;;) {
    double cells = 1;
    for (int k = 0; k < D_SPHERE_DIM; k++) cells *= floor((hi[k] - lo[k]) / h) + 1;
    if (s->brute || !any) {
      h = INFINITY;
      break;
    }
    if (cells <= limit) break;
    h *= 1.5;
  }
  uint32_t ncells = 1;
  for (int k = 0; k < 3; k++) {
    g->org[k] = k < D_SPHERE_DIM ? lo[k] : 0;
    g->nc[k] = k < D_SPHERE_DIM && isfinite(h) ? (int32_t)(floor((hi[k] - lo[k]) / h) + 1) : 1;
    ncells *= (uint32_t)g->nc[k];
  }
  g->inv = isfinite(h) ? 1.0 / h : 0;
  uint32_t cb = dc_blocks(ncells, DC_RBLOCK);
  if (ncells + 1 > s->cap_cells) {
    uint32_t c = ncells + 1 + ncells / 4;
    if (!dc_sphere_room(err, (void **)&s->count, c, sizeof(uint32_t)) ||
        !dc_sphere_room(err, (void **)&s->start, c, sizeof(uint32_t)) ||
        !dc_sphere_room(err, (void **)&s->fill, c, sizeof(uint32_t)) ||
        !dc_sphere_room(err, (void **)&s->sums, dc_blocks(c, DC_RBLOCK), sizeof(uint32_t)))
      return false;
    if (!s->total && !dc_ok(err, cudaMalloc((void **)&s->total, sizeof(uint32_t)), "allocation"))
      return false;
    s->cap_cells = c;
  }
  if (!dc_ok(err, cudaMemset(s->count, 0, ncells * sizeof(uint32_t)), "set")) return false;
  DC_LAUNCH(dc_k_sphere_count, dc_blocks(n, D_BLOCK), D_BLOCK, *g, (const dreal *)s->pts, n, s->cell,
            s->count);
  DC_LAUNCH_PHASED(dc_k_sum_parts, cb, DC_RBLOCK, (const uint32_t *)s->count, ncells, s->sums);
  DC_LAUNCH(dc_k_scan_sums, 1, 1, s->sums, cb, s->start + ncells);
  DC_LAUNCH_PHASED(dc_k_scan_cells, cb, DC_RBLOCK, (const uint32_t *)s->count, ncells,
                   (const uint32_t *)s->sums, s->start, s->fill);
  DC_LAUNCH(dc_k_sphere_scatter, dc_blocks(n, D_BLOCK), D_BLOCK, (const dreal *)s->pts, n,
            (const uint32_t *)s->cell, s->fill, s->spts, s->ids);
  if (!dc_launched(err, "sphere index")) return false;
  g->pts = s->spts;
  g->ids = s->ids;
  g->start = s->start;
  g->npts = n; /* an upper bound: only a zero count is used */
  return true;
}

#endif
