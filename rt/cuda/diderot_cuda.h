/* diderot_cuda.h -- the CUDA part of the Diderot runtime: what the
 * device half (NAME.cu) of a program compiled with --target=cuda
 * includes first. Header-only (compiled with the program by nvcc, or by
 * the host C++ compiler in emulation), so the runtime library itself needs
 * no CUDA toolkit.
 *
 * With DIDEROT_CUDA_EMULATE defined, CUDA is replaced by the sequential
 * CPU emulation of emu.h; everything below is written so that both give
 * the same results (kernels that cooperate inside a block are written in
 * phases, see emu.h).
 *
 * Contents: qualifiers (DC_HD, D_FN for the generated helpers,
 * DRT_TENSOR_FN for diderot_tensor.h), launch macros, error checks that
 * report into the world's DrtErrors, the generic device primitives of the
 * super-step driver (status counting and order-preserving compaction by
 * block partials, block-partial reductions), and image upload. The driver
 * itself is dc_run.h, included by the generated code after its
 * program-specific definitions.
 */
#ifndef DIDEROT_CUDA_H
#define DIDEROT_CUDA_H

#ifdef DIDEROT_CUDA_EMULATE
#include "emu.h"
#else
#include <cuda_runtime.h>
#define DC_LAUNCH(k, grid, block, ...) k<<<(grid), (block)>>>(__VA_ARGS__)
#define DC_LAUNCH_PHASED(k, grid, block, ...) k<<<(grid), (block)>>>(__VA_ARGS__)
#define DC_FOR_THREADS(t) for (unsigned t = threadIdx.x, t##_once_ = 1; t##_once_; t##_once_ = 0)
#define DC_SYNC() __syncthreads()
#define DC_SHARED __shared__
#endif

#define DC_HD __host__ __device__
#define DC_DEV __device__
/* the generated helpers (d_powi, border control) and the tensor kernels */
#define D_FN static inline DC_HD
#define DRT_TENSOR_FN static inline DC_HD

#include <limits>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diderot_world.h"

/* Threads per block of the reduction and compaction kernels (a power of
 * two: the tree reductions halve it). */
enum { DC_RBLOCK = 256 };

/* ---- errors ------------------------------------------------------------------- */

/* false (and an error in err) when a CUDA call failed. */
static inline bool dc_ok(DrtErrors *err, cudaError_t e, const char *what) {
  if (e == cudaSuccess) return true;
  drt_error(err, "CUDA: %s: %s", what, cudaGetErrorString(e));
  return false;
}
/* Memory for `count` things of `each` bytes, or false with the memory
 * error in the user's terms (the counts, and what the GPU has free, or
 * the process's limits for host memory), as the CPU runtime reports. */
static inline bool dc_dev_alloc(DrtErrors *err, void **p, uint64_t count, uint64_t each,
                                const char *things, const char *what) {
  *p = NULL;
  uint64_t bytes = each && count > UINT64_MAX / each ? UINT64_MAX : count * each;
  cudaError_t e = bytes > SIZE_MAX ? cudaErrorMemoryAllocation
                                   : cudaMalloc(p, bytes ? (size_t)bytes : 1);
  if (e == cudaSuccess) return true;
  *p = NULL;
  size_t fr = 0, tot = 0;
  if (e == cudaErrorMemoryAllocation && cudaMemGetInfo(&fr, &tot) == cudaSuccess)
    drt_mem_device_error(err, what, count, things, bytes, fr, tot);
  else if (e == cudaErrorMemoryAllocation)
    drt_mem_error(err, what, count, things, bytes);
  else
    dc_ok(err, e, what);
  return false;
}
static inline void *dc_host_alloc(DrtErrors *err, uint64_t count, uint64_t each,
                                  const char *things, const char *what) {
  uint64_t bytes = each && count > UINT64_MAX / each ? UINT64_MAX : count * each;
  void *p = bytes <= SIZE_MAX ? malloc(bytes ? (size_t)bytes : 1) : NULL;
  if (!p) drt_mem_error(err, what, count, things, bytes);
  return p;
}
/* After a launch: the launch error, if any. */
static inline bool dc_launched(DrtErrors *err, const char *what) {
  return dc_ok(err, cudaGetLastError(), what);
}

static inline uint32_t dc_blocks(uint32_t n, uint32_t per) { return n ? (n - 1) / per + 1 : 1; }

/* ---- counting and compaction ------------------------------------------------------ */

/* Totals written by dc_k_scan_parts (one small copy back per step). */
/* The first failed probe of a step (dc_probe_fail): what the host's
 * drt_world_probe_error reports. name is the address of the image name's
 * host copy (device strings are, diderot_cuda.h's literal table). */
typedef struct DcProbeErr {
  long long strand;         /* -1: not in a strand method */
  const char *name;
  int line, dim, has_x, size[3];
  int index;                /* 1: a sequence index, 2: a tensor index
                               (dc_index_fail): n[0] is the index, n[1] the
                               sequence's length or the axis's size */
  int col;                  /* of an index: the source column */
  long long n[3];
  double x[3];
} DcProbeErr;

typedef struct DcCounts {
  uint32_t kept;  /* items whose status is in the mask */
  uint32_t dying; /* items whose status is DYING or DEAD */
  uint32_t nnew;  /* strands created by `new` this step (atomic append) */
  uint32_t pool;  /* sphere results of this step: the pool's demand */
  uint32_t pbytes;/* print records of this step: the buffer's demand */
  uint32_t perr;  /* failed probes of this step (the first is in probe) */
  unsigned long long abytes; /* sequences built this step: the arena's demand (dc_seq.h) */
  DcProbeErr probe;
} DcCounts;

/* The spatial index of sphere queries (dc_sphere.h), as the step kernel
 * sees it: points sorted by cell, cell c holding [start[c], start[c+1]). */
typedef struct DcGrid {
  const void *pts;         /* dreal[dim] per point */
  const uint32_t *ids;     /* the slot of each point */
  const uint32_t *start;   /* cells + 1 offsets */
  double org[3], inv;      /* cell coordinate: floor((x - org)·inv), clamped */
  int32_t nc[3];           /* cells per axis */
  uint32_t npts;           /* 0: nothing indexed */
} DcGrid;

/* What the step kernel gets besides the globals and the stores. */
typedef struct DcStep {
  const uint32_t *work;     /* the active worklist (storage slots, ascending) */
  uint32_t nwork;
  unsigned char *status, *fresh; /* per slot */
  DcCounts *cnt;            /* cnt->nnew: the append counter of `new` */
  unsigned long long *nkey; /* two words per new strand: its ordering key */
  uint32_t ncap;            /* room in the new-strand buffer */
  uint32_t chunk;           /* the CPU scheduler's chunk (ordering only) */
  const void *in;           /* start-of-step copy of the store (dreal words):
                               other strands' state, the caller's sphere centre */
  DcGrid grid;              /* sphere queries */
  uint32_t *pool;           /* sphere results (cnt->pool allocates) */
  uint32_t poolcap;
  uint32_t nactive, nstable;/* strand counts at the start of the step */
  uint32_t count_down;      /* 1 in a global `stabilize`: counts seen by the
                               strand at worklist position w move by w */
  unsigned char *pbuf;      /* print records (cnt->pbytes allocates) */
  uint32_t pcap;
  char *arena;              /* sequences built by the kernel (cnt->abytes allocates) */
  unsigned long long acap;
} DcStep;

/* A probe without border control outside its image (doc/language.md §6.4):
 * the first of the step is recorded for the host, which stops the run
 * after the kernel (dc_step); the method then leaves (DRT_EXIT_ERROR). */
static DC_DEV inline void dc_probe_fail(const DcStep *a, long long strand, const char *name,
                                        int line, const int *size, int d, const long long *n,
                                        const double *x) {
  if (atomicAdd(&a->cnt->perr, 1u) != 0u) return;
  DcProbeErr *p = &a->cnt->probe;
  p->strand = strand;
  p->index = 0;
  p->name = name;
  p->line = line;
  p->dim = d;
  p->has_x = x != NULL;
  for (int i = 0; i < d && i < 3; i++) {
    p->size[i] = size[i];
    p->n[i] = n[i];
    p->x[i] = x ? x[i] : 0.0;
  }
}

/* s[i] or a tensor's a[i] with i outside 0..n-1 (index_fail, what 0 or
 * 1), recorded as a failed probe is. */
static DC_DEV inline void dc_index_fail(const DcStep *a, long long strand, int line, int col, int what,
                                        long long i, long long n) {
  if (atomicAdd(&a->cnt->perr, 1u) != 0u) return;
  DcProbeErr *p = &a->cnt->probe;
  p->strand = strand;
  p->line = line;
  p->col = col;
  p->index = what ? 2 : 1;
  p->n[0] = i;
  p->n[1] = n;
}

/* `new` from strand `creator`: a slot in the new-strand buffer by an
 * atomic counter, with the key that orders new strands as the CPU
 * scheduler does: (creator's chunk, phase (start 0, update 1)), then
 * (creator, k-th creation). A slot >= ncap is an overflow (the host
 * reports it). */
static DC_DEV inline uint32_t dc_new_slot(const DcStep *a, uint32_t creator, unsigned phase,
                                          uint32_t k) {
  uint32_t p = atomicAdd(&a->cnt->nnew, 1u);
  if (p < a->ncap) {
    a->nkey[2 * p] = (unsigned long long)(creator / a->chunk) * 2u + phase;
    a->nkey[2 * p + 1] = ((unsigned long long)creator << 32) | k;
  }
  return p;
}

/* Item k of a list (NULL: the identity list). */
static DC_HD inline uint32_t dc_item(const uint32_t *list, uint32_t k) { return list ? list[k] : k; }

/* Per block: how many items have a status in `mask`, and how many are
 * dying (block partials; the tree is the phased form of a shared-memory
 * reduction). */
static __global__ void dc_k_count(const uint32_t *list, uint32_t n, const unsigned char *status,
                                  unsigned mask, uint32_t *kept, uint32_t *dying) {
  DC_SHARED uint32_t sk[DC_RBLOCK], sd[DC_RBLOCK];
  DC_FOR_THREADS(t) {
    uint32_t k = blockIdx.x * blockDim.x + t;
    sk[t] = sd[t] = 0;
    if (k < n) {
      unsigned char s = status[dc_item(list, k)];
      sk[t] = (mask >> s) & 1u;
      sd[t] = s == DRT_DYING || s == DRT_DEAD;
    }
  }
  for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
    DC_SYNC();
    DC_FOR_THREADS(t) {
      if (t < h) {
        sk[t] += sk[t + h];
        sd[t] += sd[t + h];
      }
    }
  }
  DC_SYNC();
  DC_FOR_THREADS(t) {
    if (t == 0) {
      kept[blockIdx.x] = sk[0];
      dying[blockIdx.x] = sd[0];
    }
  }
}

/* One thread: exclusive prefix sums of the block partials (in place) and
 * the totals. The number of blocks is small (items / DC_RBLOCK). */
static __global__ void dc_k_scan_parts(uint32_t *kept, const uint32_t *dying, uint32_t nblocks,
                                       DcCounts *cnt) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  uint32_t acc = 0, d = 0;
  for (uint32_t b = 0; b < nblocks; b++) {
    uint32_t v = kept[b];
    kept[b] = acc;
    acc += v;
    d += dying[b];
  }
  cnt->kept = acc;
  cnt->dying = d;
}

/* The inclusive prefix sums of the block's values in the shared array a
 * (Hillis-Steele, double-buffered with the shared array b): returns a or
 * b, whichever holds them. Called by every thread of a phased kernel. */
static DC_DEV uint32_t *dc_block_scan(uint32_t *a, uint32_t *b) {
  uint32_t *src = a, *dst = b;
  for (unsigned h = 1; h < blockDim.x; h <<= 1) {
    DC_SYNC();
    DC_FOR_THREADS(t) { dst[t] = src[t] + (t >= h ? src[t - h] : 0u); }
    uint32_t *tmp = src;
    src = dst;
    dst = tmp;
  }
  DC_SYNC();
  return src;
}

/* Order-preserving scatter of the kept items: a block-local scan plus the
 * block's offset. */
static __global__ void dc_k_scatter(const uint32_t *list, uint32_t n, const unsigned char *status,
                                    unsigned mask, const uint32_t *offset, uint32_t *out) {
  DC_SHARED uint32_t a[DC_RBLOCK], b[DC_RBLOCK], f[DC_RBLOCK];
  DC_FOR_THREADS(t) {
    uint32_t k = blockIdx.x * blockDim.x + t;
    f[t] = k < n ? (mask >> status[dc_item(list, k)]) & 1u : 0u;
    a[t] = f[t];
  }
  uint32_t *src = dc_block_scan(a, b);
  DC_FOR_THREADS(t) {
    uint32_t k = blockIdx.x * blockDim.x + t;
    if (k < n && f[t]) out[offset[blockIdx.x] + src[t] - 1] = dc_item(list, k);
  }
}

/* Scratch space of the counting/compaction kernels. */
typedef struct DcScratch {
  uint32_t *kept, *dying; /* per-block partials */
  uint32_t nblocks;       /* their capacity */
  DcCounts *cnt;          /* device totals */
} DcScratch;

static inline bool dc_scratch_reserve(DrtErrors *err, DcScratch *s, uint32_t nblocks) {
  if (!s->cnt && !dc_ok(err, cudaMalloc((void **)&s->cnt, sizeof(DcCounts)), "allocation"))
    return false;
  if (nblocks <= s->nblocks) return true;
  cudaFree(s->kept);
  cudaFree(s->dying);
  s->kept = s->dying = NULL;
  s->nblocks = 0;
  if (!dc_ok(err, cudaMalloc((void **)&s->kept, nblocks * sizeof(uint32_t)), "allocation") ||
      !dc_ok(err, cudaMalloc((void **)&s->dying, nblocks * sizeof(uint32_t)), "allocation"))
    return false;
  s->nblocks = nblocks;
  return true;
}

static inline void dc_scratch_free(DcScratch *s) {
  cudaFree(s->kept);
  cudaFree(s->dying);
  cudaFree(s->cnt);
  memset(s, 0, sizeof *s);
}

/* Count the n items of list (NULL: 0..n-1) by status and, when out is not
 * NULL, write the kept ones to out in order. The totals (and cnt->nnew,
 * untouched) are copied back into *host. False on a CUDA error. */
static inline bool dc_compact(DrtErrors *err, DcScratch *s, const uint32_t *list, uint32_t n,
                              const unsigned char *status, unsigned mask, uint32_t *out,
                              DcCounts *host) {
  uint32_t nb = dc_blocks(n, DC_RBLOCK);
  if (!dc_scratch_reserve(err, s, nb)) return false;
  if (n) {
    DC_LAUNCH_PHASED(dc_k_count, nb, DC_RBLOCK, list, n, status, mask, s->kept, s->dying);
    DC_LAUNCH(dc_k_scan_parts, 1, 1, s->kept, s->dying, nb, s->cnt);
    if (out) DC_LAUNCH_PHASED(dc_k_scatter, nb, DC_RBLOCK, list, n, status, mask, s->kept, out);
  } else {
    DcCounts z;
    if (!dc_ok(err, cudaMemcpy(&z, s->cnt, sizeof z, cudaMemcpyDeviceToHost), "copy")) return false;
    z.kept = z.dying = 0;
    if (!dc_ok(err, cudaMemcpy(s->cnt, &z, sizeof z, cudaMemcpyHostToDevice), "copy")) return false;
  }
  if (!dc_launched(err, "compaction")) return false;
  return dc_ok(err, cudaMemcpy(host, s->cnt, sizeof *host, cudaMemcpyDeviceToHost), "copy");
}

/* ---- reductions over strand sets (global blocks) ----------------------------------- */

/* Status masks of the strand sets (DrtSet order: all, active, stable). */
static DC_HD inline unsigned dc_set_mask(int set) {
  return set == DRT_SET_ACTIVE ? 1u << DRT_ACTIVE
         : set == DRT_SET_STABLE ? 1u << DRT_STABLE
                                 : (1u << DRT_ACTIVE) | (1u << DRT_STABLE);
}

/* The mean of an empty set: NaN for reals.  Integer instantiations (sums of
 * ints share this function) never take it, but `(T)NAN` there would be a
 * float-to-int conversion nvcc warns about (#173). */
template <typename T> static inline T dc_red_empty_mean() {
  return std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN() : T(0);
}

template <typename T> static DC_HD inline T dc_red_identity(int op);
template <> DC_HD inline double dc_red_identity<double>(int op) {
  return op == DRT_RED_ALL || op == DRT_RED_PRODUCT ? 1.0
         : op == DRT_RED_MIN ? (double)INFINITY
         : op == DRT_RED_MAX ? -(double)INFINITY : 0.0;
}
template <> DC_HD inline float dc_red_identity<float>(int op) {
  return op == DRT_RED_ALL || op == DRT_RED_PRODUCT ? 1.0f
         : op == DRT_RED_MIN ? (float)INFINITY
         : op == DRT_RED_MAX ? -(float)INFINITY : 0.0f;
}
template <> DC_HD inline int32_t dc_red_identity<int32_t>(int op) {
  return op == DRT_RED_ALL || op == DRT_RED_PRODUCT ? 1
         : op == DRT_RED_MIN ? INT32_MAX : op == DRT_RED_MAX ? INT32_MIN : 0;
}
template <> DC_HD inline int64_t dc_red_identity<int64_t>(int op) {
  return op == DRT_RED_ALL || op == DRT_RED_PRODUCT ? 1
         : op == DRT_RED_MIN ? INT64_MAX : op == DRT_RED_MAX ? INT64_MIN : 0;
}
template <> DC_HD inline bool dc_red_identity<bool>(int op) { return op == DRT_RED_ALL; }

/* a (op) b; integer sums and products wrap (computed unsigned). */
template <typename T> static DC_HD inline T dc_red_combine(int op, T a, T b) {
  switch (op) {
  case DRT_RED_ALL: return (T)(a && b);
  case DRT_RED_EXISTS: return (T)(a || b);
  case DRT_RED_PRODUCT: return (T)(a * b);
  case DRT_RED_MIN: return b < a ? b : a;
  case DRT_RED_MAX: return b > a ? b : a;
  default: return (T)(a + b);
  }
}
template <> DC_HD inline int32_t dc_red_combine<int32_t>(int op, int32_t a, int32_t b) {
  switch (op) {
  case DRT_RED_ALL: return a && b;
  case DRT_RED_EXISTS: return a || b;
  case DRT_RED_PRODUCT: return (int32_t)((uint32_t)a * (uint32_t)b);
  case DRT_RED_MIN: return b < a ? b : a;
  case DRT_RED_MAX: return b > a ? b : a;
  default: return (int32_t)((uint32_t)a + (uint32_t)b);
  }
}
template <> DC_HD inline int64_t dc_red_combine<int64_t>(int op, int64_t a, int64_t b) {
  switch (op) {
  case DRT_RED_ALL: return a && b;
  case DRT_RED_EXISTS: return a || b;
  case DRT_RED_PRODUCT: return (int64_t)((uint64_t)a * (uint64_t)b);
  case DRT_RED_MIN: return b < a ? b : a;
  case DRT_RED_MAX: return b > a ? b : a;
  default: return (int64_t)((uint64_t)a + (uint64_t)b);
  }
}

/* Block partials of map(i) over the strands of the set: a shared-memory
 * tree per block; the partials and member counts are combined on the host
 * in block order (deterministic for a given number of strands). MAP is a
 * functor with a __device__ operator()(uint32_t strand) -> T. */
template <typename T, int OP, typename MAP>
static __global__ void dc_k_reduce(MAP map, const unsigned char *status, uint32_t n, unsigned mask,
                                   T *part, uint32_t *count) {
  DC_SHARED T sv[DC_RBLOCK];
  DC_SHARED uint32_t sc[DC_RBLOCK];
  DC_FOR_THREADS(t) {
    uint32_t i = blockIdx.x * blockDim.x + t;
    sv[t] = dc_red_identity<T>(OP);
    sc[t] = 0;
    if (i < n && ((mask >> status[i]) & 1u)) {
      sv[t] = map(i);
      sc[t] = 1;
    }
  }
  for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
    DC_SYNC();
    DC_FOR_THREADS(t) {
      if (t < h) {
        sv[t] = dc_red_combine<T>(OP, sv[t], sv[t + h]);
        sc[t] += sc[t + h];
      }
    }
  }
  DC_SYNC();
  DC_FOR_THREADS(t) {
    if (t == 0) {
      part[blockIdx.x] = sv[0];
      count[blockIdx.x] = sc[0];
    }
  }
}

/* Run dc_k_reduce over n strands and combine the partials; mean divides
 * the sum by the number of members (NaN for none, doc/differences.md Q20). */
template <typename T, int OP, typename MAP>
static T dc_reduce(DrtErrors *err, MAP map, const unsigned char *status, uint32_t n, int set) {
  uint32_t nb = dc_blocks(n, DC_RBLOCK);
  T acc = dc_red_identity<T>(OP);
  uint32_t members = 0;
  T *part = NULL, *hp = (T *)malloc(nb * sizeof(T));
  uint32_t *cnt = NULL, *hc = (uint32_t *)malloc(nb * sizeof(uint32_t));
  bool ok = hp && hc && n &&
            dc_ok(err, cudaMalloc((void **)&part, nb * sizeof(T)), "allocation") &&
            dc_ok(err, cudaMalloc((void **)&cnt, nb * sizeof(uint32_t)), "allocation");
  if (ok) {
    void (*k)(MAP, const unsigned char *, uint32_t, unsigned, T *, uint32_t *) =
        dc_k_reduce<T, OP, MAP>;
    DC_LAUNCH_PHASED(k, nb, DC_RBLOCK, map, status, n, dc_set_mask(set), part, cnt);
    ok = dc_launched(err, "reduction") &&
         dc_ok(err, cudaMemcpy(hp, part, nb * sizeof(T), cudaMemcpyDeviceToHost), "copy") &&
         dc_ok(err, cudaMemcpy(hc, cnt, nb * sizeof(uint32_t), cudaMemcpyDeviceToHost), "copy");
  }
  if (ok)
    for (uint32_t b = 0; b < nb; b++) {
      if (!hc[b]) continue;
      members += hc[b];
      acc = dc_red_combine<T>(OP, acc, hp[b]);
    }
  if (!hp || !hc) drt_error(err, "out of memory in a reduction");
  cudaFree(part);
  cudaFree(cnt);
  free(hp);
  free(hc);
  if (OP == DRT_RED_MEAN) acc = members ? (T)(acc / (T)members) : dc_red_empty_mean<T>();
  return acc;
}

/* ---- images --------------------------------------------------------------------- */

/* Device copies of the program's images, uploaded once (linear NRRD
 * order, the layout the generated voxel offsets assume). */
typedef struct DcImages {
  const DrtImage **host;
  DrtImage **dev; /* device descriptors */
  void **data;    /* device samples */
  unsigned n, cap;
} DcImages;

/* The device descriptor of host image h (NULL for NULL; uploads it the
 * first time). */
static inline const DrtImage *dc_image(DrtErrors *err, DcImages *im, const DrtImage *h) {
  if (!h) return NULL;
  for (unsigned i = 0; i < im->n; i++)
    if (im->host[i] == h) return im->dev[i];
  if (im->n == im->cap) {
    unsigned cap = im->cap ? 2 * im->cap : 4;
    const DrtImage **nh = (const DrtImage **)realloc(im->host, cap * sizeof *nh);
    if (nh) im->host = nh;
    DrtImage **nd = (DrtImage **)realloc(im->dev, cap * sizeof *nd);
    if (nd) im->dev = nd;
    void **ndata = (void **)realloc(im->data, cap * sizeof *ndata);
    if (ndata) im->data = ndata;
    if (!nh || !nd || !ndata) {
      drt_error(err, "out of memory");
      return NULL;
    }
    im->cap = cap;
  }
  /* the samples as laid out (bricks may hold more than the image) */
  size_t bytes = (h->layout_data ? h->layout_nelems : h->nelems) * nrrdTypeSize[h->type];
  DrtImage copy = *h;
  void *data = NULL;
  DrtImage *dev = NULL;
  if (!dc_ok(err, cudaMalloc(&data, bytes ? bytes : 1), "image allocation") ||
      !dc_ok(err, cudaMemcpy(data, h->data, bytes, cudaMemcpyHostToDevice), "image upload") ||
      !dc_ok(err, cudaMalloc((void **)&dev, sizeof *dev), "image allocation")) {
    cudaFree(data);
    return NULL;
  }
  copy.data = data;
  copy.nrrd = NULL;
  if (!dc_ok(err, cudaMemcpy(dev, &copy, sizeof copy, cudaMemcpyHostToDevice), "image upload")) {
    cudaFree(data);
    cudaFree(dev);
    return NULL;
  }
  im->host[im->n] = h;
  im->dev[im->n] = dev;
  im->data[im->n] = data;
  im->n++;
  return dev;
}

/* ---- global sequences ------------------------------------------------------------ */

/* The device copy of a global dynamic sequence of fixed-size values that
 * device code reads. Copied again only when its bytes changed: the host
 * shadow is compared, not the pointer (freed host memory is reused). */
typedef struct DcSeqCache {
  void *dev, *shadow;
  size_t bytes, cap;
  bool loaded; /* a load_sequence of strand code: read once (d_load_dseq) */
  uint32_t len;
} DcSeqCache;

/* The device address for the host sequence data (bytes long); NULL for an
 * empty sequence, or with an error in err. */
static inline void *dc_seq_upload(DrtErrors *err, DcSeqCache *c, const void *host, size_t bytes) {
  if (!bytes) return NULL;
  if (c->dev && bytes == c->bytes && !memcmp(c->shadow, host, bytes)) return c->dev;
  if (bytes > c->cap) {
    cudaFree(c->dev);
    free(c->shadow);
    c->dev = NULL;
    c->cap = c->bytes = 0;
    if (!(c->shadow = malloc(bytes))) {
      drt_error(err, "out of memory");
      return NULL;
    }
    if (!dc_ok(err, cudaMalloc(&c->dev, bytes), "sequence allocation")) {
      c->dev = NULL;
      return NULL;
    }
    c->cap = bytes;
  }
  c->bytes = 0; /* unless the copy succeeds */
  if (!dc_ok(err, cudaMemcpy(c->dev, host, bytes, cudaMemcpyHostToDevice), "sequence upload"))
    return NULL;
  memcpy(c->shadow, host, bytes);
  c->bytes = bytes;
  return c->dev;
}

/* load_sequence("file") in strand code (the path is a constant): the
 * host reads the file once, before the first step that needs the globals,
 * and device code reads the device copy (d_globals_fix calls this with
 * the C targets' loader arguments, emit_load_seq_call). */
typedef struct DcSeqLoad {
  DrtErrors *err;
  DcSeqCache *c;
} DcSeqLoad;

static inline void d_load_dseq(DcSeqLoad *w, const char *what, const char *file, const Nrrd *nin,
                               int type, unsigned ncomp, bool is_bool, uint32_t *len, void **data) {
  DcSeqCache *c = w->c;
  (void)nin;
  if (!c->loaded) {
    DrtSeqSpec spec = {what, type, ncomp, is_bool};
    DrtSequence s;
    memset(&s, 0, sizeof s);
    bool bad = drt_sequence_load_file(w->err, &spec, file, &s);
    c->loaded = true;
    c->len = 0;
    if (!bad && s.len) {
      size_t bytes = s.len * ncomp * (size_t)nrrdTypeSize[type];
      if (dc_seq_upload(w->err, c, s.data, bytes)) c->len = (uint32_t)s.len;
    }
    free(s.data);
  }
  *len = c->len;
  *data = c->len ? c->dev : NULL;
}

static inline void dc_seqs_free(DcSeqCache *c, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    cudaFree(c[i].dev);
    free(c[i].shadow);
  }
  memset(c, 0, n * sizeof *c);
}

/* ---- strings ------------------------------------------------------------------------ */

/* A string in device code is the address of a host copy that the device
 * never reads: every text has one canonical copy, interned here (host
 * side, for the whole process), so device code compares strings by
 * address and a print record carries the address for the host to print.
 * The device's literals, the globals and the state of strands created on
 * the host are interned when they reach the device; Diderot builds no new
 * strings, so the device only passes these addresses around. The table is
 * never freed: strands copied back to the host world keep its addresses. */
typedef struct DcStrTab {
  char **slot; /* open addressing, cap a power of two */
  size_t cap, n;
} DcStrTab;

static inline size_t dc_str_hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return (size_t)h;
}

/* The canonical copy of s (s itself, with an error in err, when memory
 * runs out). */
static inline const char *dc_str_intern(DrtErrors *err, const char *s) {
  static DcStrTab tab;
  DcStrTab *t = &tab;
  if (!s) s = "";
  if (2 * (t->n + 1) > t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 64;
    char **slot = (char **)calloc(cap, sizeof *slot);
    if (!slot) {
      drt_error(err, "out of memory for strings");
      return s;
    }
    for (size_t i = 0; i < t->cap; i++)
      if (t->slot[i]) {
        size_t j = dc_str_hash(t->slot[i]) & (cap - 1);
        while (slot[j]) j = (j + 1) & (cap - 1);
        slot[j] = t->slot[i];
      }
    free(t->slot);
    t->slot = slot;
    t->cap = cap;
  }
  size_t j = dc_str_hash(s) & (t->cap - 1);
  for (; t->slot[j]; j = (j + 1) & (t->cap - 1))
    if (!strcmp(t->slot[j], s)) return t->slot[j];
  size_t len = strlen(s) + 1;
  char *c = (char *)malloc(len);
  if (!c) {
    drt_error(err, "out of memory for strings");
    return s;
  }
  memcpy(c, s, len);
  t->slot[j] = c;
  t->n++;
  return c;
}

static inline void dc_images_free(DcImages *im) {
  for (unsigned i = 0; i < im->n; i++) {
    cudaFree(im->dev[i]);
    cudaFree(im->data[i]);
  }
  free(im->host);
  free(im->dev);
  free(im->data);
  memset(im, 0, sizeof *im);
}

#endif
