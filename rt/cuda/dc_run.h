/* dc_run.h -- the super-step driver of the CUDA target, included by the
 * generated device half (NAME.cu) after its program-specific parts:
 *
 *   dreal, DcStore {dreal *w; uint32_t cap}, D_STATE_WORDS, D_BLOCK, D_PAD,
 *   D_HAS_NEW, D_READS_IN, D_SPHERE_DIM, D_HAS_PRINT, d_dglobals,
 *   d_store_words(cap), d_get/d_put (a packed record from/to slot i of a
 *   store), the kernels d_k_step and d_k_stabilize_all, d_globals_fix
 *   (device copies of images and of the D_SEQ_GLOBALS global sequences
 *   that device code reads, canonical strings), d_record_strings (the
 *   same for the strings of a packed record), D_SEQ_ARENA/D_SEQ_STATE and,
 *   with them, dc_seq.h (dynamic sequences built by kernels and kept in
 *   strand state).
 *
 * The host half calls the extern "C" entry points below. The device is
 * authoritative for the strands from the first run on; the host world
 * (rt_world.c) receives a copy after every run (outputs, counts, the
 * library API), through packed records, so its own layout does not matter.
 *
 * One super-step (the CPU scheduler's semantics, diderot_world.h):
 *   0. when strands read other strands' state, query `sphere` or print: a
 *      device copy of the store (start-of-step state), the sphere grid
 *      over it (dc_sphere.h), copies of status/fresh;
 *   1. d_k_step over the active worklist (one launch): start for fresh
 *      strands, update, stabilize at once, `die` marks DYING, `new`
 *      appends to a buffer by an atomic counter;
 *   2. counts and the compaction of the worklist by block partials (one
 *      small copy back: the totals);
 *   3. after deaths in a collection, the storage is compacted in order
 *      (slots keep creation order) and the worklist rebuilt;
 *   4. new strands are sorted by the CPU scheduler's key (creator's chunk,
 *      phase, creator, order) and appended active and fresh;
 *   1b. if sphere results, print records or built sequences overflowed
 *      their buffers, the state is restored from the copies of 0 and 1
 *      runs again with larger buffers; print records are then formatted
 *      in order (dc_print.h);
 *   4b. the sequences in strand state are collected into the device's
 *      sequence heap (dc_seq.h) when some may live elsewhere;
 *   5. the global update runs on the host; globals are copied to the device
 *      again (and images uploaded once); unreachable sequences of the host
 *      world are freed (drt_world_collect_seqs).
 * Synchronisation: the copy of the totals in 2 (and of the keys when
 * strands were created).
 */
#ifndef DIDEROT_CUDA_RUN_H
#define DIDEROT_CUDA_RUN_H


typedef struct DcWorld {
  DrtWorld *rt;
  DrtErrors *err;
  const DrtProgram *prog;
  void *hostw;                             /* the host half's world */
  void (*getg)(const void *, void *);      /* its globals → d_dglobals */
  DcStore st, st2, nst;                    /* storage, compaction target, new strands */
  unsigned char *status, *status2, *fresh, *fresh2;
  uint32_t *work, *work2, *perm;           /* worklists, permutations */
  unsigned long long *nkey;                /* keys of new strands */
  uint32_t n, cap, ncap, permcap, nwork, nactive, nstable, chunk;
  uint32_t *ids, idcap, next_id;           /* host: each slot's strand id (run-time errors) */
  bool grid;
  d_dglobals *dglobals;
  DcImages images;
  DcSeqCache seqs[D_SEQ_GLOBALS > 0 ? D_SEQ_GLOBALS : 1]; /* global sequences */
  DcScratch scratch;
  DcStore in;                              /* start-of-step copy (D_READS_IN) */
  unsigned char *status_save, *fresh_save; /* for a rerun (sphere pool) */
  uint32_t *pool, poolcap;                 /* sphere results of a step */
  unsigned char *pbuf;                     /* print records of a step */
  uint32_t pcap;
  char *arena;                             /* sequences built by a kernel (dc_seq.h) */
  unsigned long long acap;
#if D_SEQ_STATE
  DcSeqHeap seq;                           /* sequences in strand state */
#endif
  DcCounts *mcnt;                          /* a reduction's map: its print demand */
  bool host_fresh;     /* the host world's strands equal the device's */
  bool compact_pending;/* a global die: compact when the global block ends */
#if D_SPHERE_DIM
  DcSphere sphere;
#endif
} DcWorld;

/* ---- kernels ------------------------------------------------------------------------- */

/* dst slot base+j <- src slot from[j] (from NULL: j), with status/fresh
 * when ss is not NULL. */
static __global__ void dc_k_move(DcStore src, const uint32_t *from, uint32_t n, DcStore dst,
                                 uint32_t base, const unsigned char *ss, const unsigned char *sf,
                                 unsigned char *ds, unsigned char *df) {
  uint32_t j = threadIdx.x + blockDim.x * blockIdx.x;
  if (j >= n) return;
  uint32_t i = from ? from[j] : j;
  dreal pk[D_STATE_WORDS];
  d_get(src.w, src.cap, i, pk);
  d_put(dst.w, dst.cap, base + j, pk);
  if (ss) {
    ds[base + j] = ss[i];
    df[base + j] = sf[i];
  }
}

/* Packed records (the host world's order of words) to or from the first
 * n slots of a store: the layout is converted on the device, where the
 * strided accesses are cheap (converted on the host, a run of 16M strands
 * of 16 words probing once took 4.5 s on an H200 machine, 2.7 s this way;
 * bench/results.md). */
static __global__ void dc_k_records(DcStore st, dreal *recs, uint32_t n, bool put) {
  uint32_t j = threadIdx.x + blockDim.x * blockIdx.x;
  if (j >= n) return;
  if (put) d_put(st.w, st.cap, j, recs + (size_t)j * D_STATE_WORDS);
  else d_get(st.w, st.cap, j, recs + (size_t)j * D_STATE_WORDS);
}

static __global__ void dc_k_iota(uint32_t *out, uint32_t first, uint32_t n) {
  uint32_t j = threadIdx.x + blockDim.x * blockIdx.x;
  if (j < n) out[j] = first + j;
}

static __global__ void dc_k_mark(const uint32_t *work, uint32_t n, unsigned char *status,
                                 unsigned char v) {
  uint32_t j = threadIdx.x + blockDim.x * blockIdx.x;
  if (j < n) status[work[j]] = v;
}

/* ---- memory --------------------------------------------------------------------------- */

static bool dc_alloc(DcWorld *cw, void **p, size_t bytes) {
  *p = NULL;
  return dc_ok(cw->err, cudaMalloc(p, bytes ? bytes : 1), "device allocation");
}

static bool dc_store_alloc(DcWorld *cw, DcStore *s, uint32_t cap) {
  s->cap = cap;
  return dc_alloc(cw, (void **)&s->w, d_store_words(cap) * sizeof(dreal));
}

static void dc_store_free(DcStore *s) {
  cudaFree(s->w);
  s->w = NULL;
  s->cap = 0;
}

/* Room for `need` slots: the capacity is a stride of the store's layout,
 * so growing moves every strand. */
static bool dc_reserve(DcWorld *cw, uint32_t need) {
  if (need <= cw->cap && cw->st.w) return true;
  uint32_t cap = cw->cap ? cw->cap : 1024;
  while (cap < need) {
    if (cap > UINT32_MAX / 2) {
      drt_error(cw->err, "too many strands");
      return false;
    }
    cap *= 2;
  }
  cap = (cap + D_PAD - 1) / D_PAD * D_PAD;
  DcStore s;
  s.w = NULL;
  unsigned char *status = NULL, *fresh = NULL;
  uint32_t *work = NULL, *work2 = NULL;
  /* one error for the whole reservation, in strands: what a strand costs
   * on the device (state, status, fresh, two worklist entries) */
  s.cap = cap;
  DrtErrors quiet;
  drt_errors_init(&quiet);
  bool ok = dc_dev_alloc(&quiet, (void **)&s.w, d_store_words(cap), sizeof(dreal), "words", "strands") &&
            dc_dev_alloc(&quiet, (void **)&status, cap, 1, "strands", "status") &&
            dc_dev_alloc(&quiet, (void **)&fresh, cap, 1, "strands", "fresh") &&
            dc_dev_alloc(&quiet, (void **)&work, cap, sizeof(uint32_t), "strands", "worklist") &&
            dc_dev_alloc(&quiet, (void **)&work2, cap, sizeof(uint32_t), "strands", "worklist");
  drt_errors_free(&quiet);
  if (!ok) {
    cudaFree(s.w);
    cudaFree(status);
    cudaFree(fresh);
    cudaFree(work);
    cudaFree(work2);
    size_t fr = 0, tot = 0;
    uint64_t bytes = (uint64_t)d_store_words(cap) * sizeof(dreal) + (uint64_t)cap * (2 + 2 * sizeof(uint32_t));
    if (cudaMemGetInfo(&fr, &tot) == cudaSuccess)
      drt_mem_device_error(cw->err, NULL, cap, "strands", bytes, fr, tot);
    else
      drt_mem_error(cw->err, NULL, cap, "strands", bytes);
    return false;
  }
  if (cw->n) {
    DC_LAUNCH(dc_k_move, dc_blocks(cw->n, D_BLOCK), D_BLOCK, cw->st, (const uint32_t *)NULL, cw->n,
              s, 0u, cw->status, cw->fresh, status, fresh);
    if (!dc_launched(cw->err, "growth")) return false;
  }
  if (cw->nwork &&
      !dc_ok(cw->err, cudaMemcpy(work, cw->work, cw->nwork * sizeof(uint32_t), cudaMemcpyDeviceToDevice),
             "copy"))
    return false;
  dc_store_free(&cw->st);
  dc_store_free(&cw->st2);
  cudaFree(cw->status);
  cudaFree(cw->fresh);
  cudaFree(cw->status2);
  cudaFree(cw->fresh2);
  cudaFree(cw->work);
  cudaFree(cw->work2);
  cw->status2 = cw->fresh2 = NULL;
  cw->st = s;
  cw->status = status;
  cw->fresh = fresh;
  cw->work = work;
  cw->work2 = work2;
  cw->cap = cap;
  return true;
}

static bool dc_perm_reserve(DcWorld *cw, uint32_t n) {
  if (n <= cw->permcap) return true;
  cudaFree(cw->perm);
  cw->perm = NULL;
  cw->permcap = 0;
  if (!dc_alloc(cw, (void **)&cw->perm, n * sizeof(uint32_t))) return false;
  cw->permcap = n;
  return true;
}

/* ---- globals, upload, download ----------------------------------------------------------- */

/* Copy the host half's globals to the device (images once; the global
 * sequences that device code reads when their contents changed). */
static bool dc_refresh_globals(DcWorld *cw) {
  d_dglobals g;
  memset(&g, 0, sizeof g);
  cw->getg(cw->hostw, &g);
  d_globals_fix(cw->err, &cw->images, cw->seqs, &g);
  if (drt_any_errors(cw->err)) return false;
  return dc_ok(cw->err, cudaMemcpy(cw->dglobals, &g, sizeof g, cudaMemcpyHostToDevice), "copy");
}

/* Rebuild the worklist: the active slots in order. */
static bool dc_rebuild_work(DcWorld *cw) {
  DcCounts t;
  if (!dc_compact(cw->err, &cw->scratch, NULL, cw->n, cw->status, 1u << DRT_ACTIVE, cw->work, &t))
    return false;
  cw->nwork = cw->nactive = t.kept;
  return true;
}

/* Room for n ids (host memory). */
static bool dc_ids_reserve(DcWorld *cw, uint32_t n) {
  if (n <= cw->idcap) return true;
  uint32_t cap = cw->idcap ? cw->idcap : 64;
  while (cap < n) cap = cap > UINT32_MAX / 2 ? n : 2 * cap;
  uint32_t *ids = (uint32_t *)realloc(cw->ids, (size_t)cap * sizeof *ids);
  if (!ids) {
    drt_mem_error(cw->err, "strand ids", cap, "strands", (uint64_t)cap * sizeof *ids);
    return false;
  }
  cw->ids = ids;
  cw->idcap = cap;
  return true;
}

/* The host world's strands to the device (the first run): packed
 * records, converted to the store's layout on the device. */
static bool dc_upload(DcWorld *cw) {
  DrtWorld *rt = cw->rt;
  uint32_t n = drt_world_nslots(rt);
  if (!dc_reserve(cw, n)) return false;
  size_t rec = D_STATE_WORDS * sizeof(dreal);
  dreal *drecs = NULL;
  dreal *recs = (dreal *)dc_host_alloc(cw->err, n, rec + 2, "strands", "upload to the GPU");
  unsigned char *hst = recs ? (unsigned char *)malloc(n ? n : 1) : NULL;
  unsigned char *hfr = hst ? (unsigned char *)malloc(n ? n : 1) : NULL;
  bool ok = recs && hst && hfr;
  if (recs && !ok) drt_mem_error(cw->err, "upload to the GPU", n, "strands", (uint64_t)n * (rec + 2));
  ok = ok && dc_ids_reserve(cw, n);
  cw->next_id = drt_world_next_id(rt);
  for (uint32_t i = 0; ok && i < n; i++) {
    cw->ids[i] = (uint32_t)drt_world_strand_id(rt, i);
    drt_world_external_get(rt, i, recs + (size_t)i * D_STATE_WORDS);
    d_record_strings(cw->err, recs + (size_t)i * D_STATE_WORDS); /* canonical copies */
    hst[i] = drt_world_status(rt, i);
    hfr[i] = 1; /* created, not started */
  }
#if D_SEQ_STATE
  ok = ok && dc_seq_state_upload(cw->err, &cw->seq, recs, n, hst);
#endif
  ok = ok && (!n || (dc_dev_alloc(cw->err, (void **)&drecs, n, rec, "strands", "upload to the GPU") &&
                     dc_ok(cw->err, cudaMemcpy(drecs, recs, n * rec, cudaMemcpyHostToDevice), "upload") &&
                     dc_ok(cw->err, cudaMemcpy(cw->status, hst, n, cudaMemcpyHostToDevice), "upload") &&
                     dc_ok(cw->err, cudaMemcpy(cw->fresh, hfr, n, cudaMemcpyHostToDevice), "upload")));
  if (ok && n) {
    DC_LAUNCH(dc_k_records, dc_blocks(n, D_BLOCK), D_BLOCK, cw->st, drecs, n, true);
    ok = dc_launched(cw->err, "upload");
  }
  cudaFree(drecs);
  free(recs);
  free(hst);
  free(hfr);
  if (!ok) return false;
  cw->n = n;
  cw->nstable = drt_world_nstable(rt);
  cw->host_fresh = true;
  return dc_rebuild_work(cw);
}

/* The device strands to the host world (after every run): packed records
 * made on the device. */
static bool dc_download(DcWorld *cw, uint32_t steps) {
  uint32_t n = cw->n;
  size_t rec = D_STATE_WORDS * sizeof(dreal);
  dreal *drecs = NULL;
  dreal *recs = (dreal *)dc_host_alloc(cw->err, n, rec + 2, "strands", "download from the GPU");
  unsigned char *hst = recs ? (unsigned char *)malloc(n ? n : 1) : NULL;
  unsigned char *hfr = hst ? (unsigned char *)malloc(n ? n : 1) : NULL;
  bool ok = recs && hst && hfr;
  if (recs && !ok) drt_mem_error(cw->err, "download from the GPU", n, "strands", (uint64_t)n * (rec + 2));
  if (ok && n && dc_dev_alloc(cw->err, (void **)&drecs, n, rec, "strands", "download from the GPU")) {
    DC_LAUNCH(dc_k_records, dc_blocks(n, D_BLOCK), D_BLOCK, cw->st, drecs, n, false);
    ok = dc_launched(cw->err, "download") &&
         dc_ok(cw->err, cudaMemcpy(recs, drecs, n * rec, cudaMemcpyDeviceToHost), "download") &&
         dc_ok(cw->err, cudaMemcpy(hst, cw->status, n, cudaMemcpyDeviceToHost), "download") &&
         dc_ok(cw->err, cudaMemcpy(hfr, cw->fresh, n, cudaMemcpyDeviceToHost), "download");
  } else if (n) {
    ok = false;
  }
  cudaFree(drecs);
#if D_SEQ_STATE
  ok = ok && dc_seq_state_download(cw->err, cw->rt, &cw->seq, recs, n, hst);
#endif
  if (ok) ok = !drt_world_external_sync(cw->rt, n, recs, hst, hfr, cw->ids, cw->next_id, steps);
  cw->host_fresh = ok;
  free(recs);
  free(hst);
  free(hfr);
  return ok;
}

/* ---- the steps ----------------------------------------------------------------------------- */

/* Before a kernel over the strands: the start-of-step copy of the store
 * (other strands' state is read from it) and, with sphere queries, the
 * index over it and copies of status/fresh so that the kernel can run
 * again when the result pool was too small. *a gets the pointers. */
/* Kernels whose output buffers can overflow, and then run again. */
#define DC_RERUNS (D_SPHERE_DIM > 0 || D_HAS_PRINT || D_SEQ_ARENA)

/* The first size of a device buffer: `dflt`, or the value of the
 * environment variable `var` (tests use tiny sizes to force reruns).
 * Inline: unused by programs without sphere queries or print. */
static inline uint32_t dc_buffer_size(const char *var, uint32_t dflt) {
  const char *v = getenv(var);
  long n = v ? atol(v) : 0;
  return n > 0 && n < (long)UINT32_MAX ? (uint32_t)n : dflt;
}

/* The sequence arena (allocated the first time) into a kernel's
 * arguments. */
static bool dc_seq_arena(DcWorld *cw, DcStep *a) {
#if D_SEQ_ARENA
  if (!cw->arena) {
    /* about 256 bytes per strand */
    uint32_t want = dc_buffer_size("DIDEROT_CUDA_SEQ_ARENA", cw->n < 4096 ? 1u << 20 : 256u * cw->n);
    if (!dc_alloc(cw, (void **)&cw->arena, want)) return false;
    cw->acap = want;
  }
  a->arena = cw->arena;
  a->acap = cw->acap;
#else
  (void)cw;
  (void)a;
#endif
  return true;
}

/* The print buffer (allocated the first time) into a kernel's arguments. */
static bool dc_print_buffer(DcWorld *cw, DcStep *a) {
#if D_HAS_PRINT
  if (!cw->pbuf) {
    uint32_t want = dc_buffer_size("DIDEROT_CUDA_PRINT_BUFFER", 1u << 20);
    if (!dc_alloc(cw, (void **)&cw->pbuf, want)) return false;
    cw->pcap = want;
  }
  a->pbuf = cw->pbuf;
  a->pcap = cw->pcap;
#else
  (void)cw;
  (void)a;
#endif
  return true;
}

static bool dc_snapshot(DcWorld *cw, DcStep *a) {
  a->in = cw->st.w;
  if (!D_READS_IN && !DC_RERUNS) return true;
  if (cw->in.cap != cw->cap) {
    dc_store_free(&cw->in);
    cudaFree(cw->status_save);
    cudaFree(cw->fresh_save);
    cw->status_save = cw->fresh_save = NULL;
    if (!dc_store_alloc(cw, &cw->in, cw->cap) ||
        (DC_RERUNS && (!dc_alloc(cw, (void **)&cw->status_save, cw->cap) ||
                       !dc_alloc(cw, (void **)&cw->fresh_save, cw->cap))))
      return false;
  }
  if (!dc_ok(cw->err, cudaMemcpy(cw->in.w, cw->st.w, d_store_words(cw->cap) * sizeof(dreal),
                                 cudaMemcpyDeviceToDevice), "copy"))
    return false;
  a->in = cw->in.w;
  if (DC_RERUNS && cw->n &&
      (!dc_ok(cw->err, cudaMemcpy(cw->status_save, cw->status, cw->n, cudaMemcpyDeviceToDevice), "copy") ||
       !dc_ok(cw->err, cudaMemcpy(cw->fresh_save, cw->fresh, cw->n, cudaMemcpyDeviceToDevice), "copy")))
    return false;
  if (!dc_print_buffer(cw, a) || !dc_seq_arena(cw, a)) return false;
#if D_SPHERE_DIM
  d_dglobals g;
  memset(&g, 0, sizeof g);
  cw->getg(cw->hostw, &g);
  cw->sphere.brute = D_BRUTE_SPHERE;
  if (!dc_sphere_build(cw->err, &cw->sphere, &a->grid, cw->in.w, cw->cap, cw->n, cw->status,
                       d_sphere_hint(&g)))
    return false;
  if (!cw->pool) {
    /* about 16 neighbours per strand */
    uint32_t want = dc_buffer_size("DIDEROT_CUDA_SPHERE_POOL", cw->n < 4096 ? 65536 : 16 * cw->n);
    if (!dc_alloc(cw, (void **)&cw->pool, (size_t)want * sizeof(uint32_t))) return false;
    cw->poolcap = want;
  }
  a->pool = cw->pool;
  a->poolcap = cw->poolcap;
#endif
  return true;
}

/* Grow a device buffer to `demand` plus a quarter (contents dropped). */
static bool dc_grow(DcWorld *cw, void **buf, uint32_t *cap, uint32_t demand, size_t item) {
  size_t want = (size_t)demand + demand / 4;
  if (want > UINT32_MAX) want = UINT32_MAX;
  cudaFree(*buf);
  *buf = NULL;
  *cap = 0;
  if (!dc_alloc(cw, buf, want * item)) return false;
  *cap = (uint32_t)want;
  return true;
}

/* Grow the sequence arena for a demand of `demand` bytes: twice that, as
 * the methods that found it full stopped there (their later allocations
 * are not counted). */
static bool dc_arena_grow(DcWorld *cw, unsigned long long demand) {
  cudaFree(cw->arena);
  cw->arena = NULL;
  cw->acap = 0;
  if (!dc_alloc(cw, (void **)&cw->arena, 2 * demand)) return false;
  cw->acap = 2 * demand;
  return true;
}

/* After a kernel: true when its sphere results or print records did not
 * fit; the start-of-step state is then restored and the buffers made large
 * enough for the kernel to run again (*fail: an error instead). */
static bool dc_rerun(DcWorld *cw, DcStep *a, const DcCounts *t, bool *fail) {
  *fail = false;
  bool pool = D_SPHERE_DIM && t->pool > cw->poolcap, prn = D_HAS_PRINT && t->pbytes > cw->pcap,
       seq = D_SEQ_ARENA && t->abytes > cw->acap;
  if (!pool && !prn && !seq) return false;
  if (drt_world_verbose(cw->rt))
    fprintf(stderr, "%s: the kernel runs again\n",
            pool ? "sphere results overflowed their pool"
            : prn ? "print output overflowed its buffer" : "sequences overflowed their arena");
  *fail = (pool && !dc_grow(cw, (void **)&cw->pool, &cw->poolcap, t->pool, sizeof(uint32_t))) ||
          (prn && !dc_grow(cw, (void **)&cw->pbuf, &cw->pcap, t->pbytes, 1)) ||
          (seq && !dc_arena_grow(cw, t->abytes)) ||
          !dc_ok(cw->err, cudaMemcpy(cw->st.w, cw->in.w, d_store_words(cw->cap) * sizeof(dreal),
                                     cudaMemcpyDeviceToDevice), "copy") ||
          (cw->n && (!dc_ok(cw->err, cudaMemcpy(cw->status, cw->status_save, cw->n, cudaMemcpyDeviceToDevice), "copy") ||
                     !dc_ok(cw->err, cudaMemcpy(cw->fresh, cw->fresh_save, cw->n, cudaMemcpyDeviceToDevice), "copy")));
  a->pool = cw->pool;
  a->poolcap = cw->poolcap;
  a->pbuf = cw->pbuf;
  a->pcap = cw->pcap;
  a->arena = cw->arena;
  a->acap = cw->acap;
  return !*fail;
}

/* The print output of a kernel, in the sequential target's order. */
static bool dc_print_out(DcWorld *cw, const DcCounts *t) {
#if D_HAS_PRINT
  return dc_print_flush(cw->err, d_cuda_print_file(cw->hostw), cw->pbuf, t->pbytes);
#else
  (void)cw;
  (void)t;
  return true;
#endif
}

/* Remove dying slots of a collection (order kept), then rebuild the
 * worklist. */
static bool dc_compact_storage(DcWorld *cw) {
  cw->compact_pending = false;
  if (cw->grid) return true;
  cw->host_fresh = false;
  DcCounts t;
  if (!dc_perm_reserve(cw, cw->n ? cw->n : 1) ||
      !dc_compact(cw->err, &cw->scratch, NULL, cw->n, cw->status,
                  (1u << DRT_ACTIVE) | (1u << DRT_STABLE), cw->perm, &t))
    return false;
  /* the ids follow their strands (perm[j] >= j: in place) */
  if (t.kept) {
    uint32_t *hp = (uint32_t *)dc_host_alloc(cw->err, t.kept, sizeof *hp, "strands", "compaction");
    if (!hp) return false;
    bool ok = dc_ok(cw->err, cudaMemcpy(hp, cw->perm, t.kept * sizeof *hp, cudaMemcpyDeviceToHost), "copy");
    for (uint32_t j = 0; ok && j < t.kept; j++) cw->ids[j] = cw->ids[hp[j]];
    free(hp);
    if (!ok) return false;
  }
  if (!cw->st2.w && !dc_store_alloc(cw, &cw->st2, cw->cap)) return false;
  if (!cw->status2 && (!dc_alloc(cw, (void **)&cw->status2, cw->cap) ||
                       !dc_alloc(cw, (void **)&cw->fresh2, cw->cap)))
    return false;
  if (t.kept) {
    DC_LAUNCH(dc_k_move, dc_blocks(t.kept, D_BLOCK), D_BLOCK, cw->st, (const uint32_t *)cw->perm,
              t.kept, cw->st2, 0u, cw->status, cw->fresh, cw->status2, cw->fresh2);
    if (!dc_launched(cw->err, "compaction")) return false;
  }
  DcStore s = cw->st;
  cw->st = cw->st2;
  cw->st2 = s;
  unsigned char *p = cw->status;
  cw->status = cw->status2;
  cw->status2 = p;
  p = cw->fresh;
  cw->fresh = cw->fresh2;
  cw->fresh2 = p;
  cw->n = t.kept;
  return dc_rebuild_work(cw);
}

typedef struct DcKey {
  unsigned long long hi, lo;
  uint32_t idx;
} DcKey;

static int dc_key_cmp(const void *a_, const void *b_) {
  const DcKey *a = (const DcKey *)a_, *b = (const DcKey *)b_;
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  return 0;
}

/* Append the nnew strands of the new-strand buffer in the CPU order. */
static bool dc_append_new(DcWorld *cw, uint32_t nnew) {
  if (nnew > cw->ncap) {
    drt_error(cw->err, "more than %u strands were created by 'new' in one step (the CUDA target's "
              "buffer holds twice the active strands, at least 1024)", (unsigned)cw->ncap);
    return false;
  }
  if ((uint64_t)cw->n + nnew > UINT32_MAX - 1) { /* (64-bit: counts never wrap) */
    drt_error(cw->err, "too many strands: %u and %u new ones", (unsigned)cw->n, (unsigned)nnew);
    return false;
  }
  const uint64_t each = 2 * sizeof(unsigned long long) + sizeof(DcKey) + sizeof(uint32_t);
  unsigned long long *hk = (unsigned long long *)malloc((size_t)2 * nnew * sizeof *hk);
  DcKey *keys = (DcKey *)malloc(nnew * sizeof *keys);
  uint32_t *perm = (uint32_t *)malloc(nnew * sizeof *perm);
  bool ok = hk && keys && perm;
  if (!ok) drt_mem_error(cw->err, "new strands", nnew, "strands", (uint64_t)nnew * each);
  ok = ok && dc_ok(cw->err, cudaMemcpy(hk, cw->nkey, (size_t)2 * nnew * sizeof *hk, cudaMemcpyDeviceToHost), "copy");
  if (ok) {
    for (uint32_t j = 0; j < nnew; j++) {
      keys[j].hi = hk[(size_t)2 * j];
      keys[j].lo = hk[(size_t)2 * j + 1];
      keys[j].idx = j;
    }
    qsort(keys, nnew, sizeof *keys, dc_key_cmp);
    for (uint32_t j = 0; j < nnew; j++) perm[j] = keys[j].idx;
  }
  uint32_t base = cw->n;
  ok = ok && dc_ids_reserve(cw, base + nnew);
  for (uint32_t j = 0; ok && j < nnew; j++) cw->ids[base + j] = cw->next_id++;
  ok = ok && dc_reserve(cw, base + nnew) && dc_perm_reserve(cw, nnew) &&
       dc_ok(cw->err, cudaMemcpy(cw->perm, perm, nnew * sizeof *perm, cudaMemcpyHostToDevice), "copy");
  free(hk);
  free(keys);
  free(perm);
  if (!ok) return false;
  DC_LAUNCH(dc_k_move, dc_blocks(nnew, D_BLOCK), D_BLOCK, cw->nst, (const uint32_t *)cw->perm, nnew,
            cw->st, base, (const unsigned char *)NULL, (const unsigned char *)NULL,
            (unsigned char *)NULL, (unsigned char *)NULL);
  DC_LAUNCH(dc_k_iota, dc_blocks(nnew, D_BLOCK), D_BLOCK, cw->work + cw->nwork, base, nnew);
  if (!dc_launched(cw->err, "new strands") ||
      !dc_ok(cw->err, cudaMemset(cw->status + base, DRT_ACTIVE, nnew), "set") ||
      !dc_ok(cw->err, cudaMemset(cw->fresh + base, 1, nnew), "set"))
    return false;
  cw->n += nnew;
  cw->nwork += nnew;
  cw->nactive += nnew;
  return true;
}

/* Room for the strands that `new` may create in this step. */
static bool dc_new_reserve(DcWorld *cw) {
  uint32_t want = cw->nwork > UINT32_MAX / 4 ? UINT32_MAX / 2 : 2 * cw->nwork;
  if (want < 1024) want = 1024;
  if (want <= cw->ncap) return true;
  dc_store_free(&cw->nst);
  cudaFree(cw->nkey);
  cw->nkey = NULL;
  cw->ncap = 0;
  if (!dc_store_alloc(cw, &cw->nst, want) ||
      !dc_alloc(cw, (void **)&cw->nkey, 2 * (size_t)want * sizeof *cw->nkey))
    return false;
  cw->ncap = want;
  return true;
}

/* The arguments of a kernel over the active worklist (after the scratch
 * space is reserved): the world's arrays and counts, and dc_snapshot's
 * start-of-step copy, index and buffers. */
static bool dc_step_args(DcWorld *cw, DcStep *a) {
  memset(a, 0, sizeof *a);
  a->work = cw->work;
  a->nwork = cw->nwork;
  a->status = cw->status;
  a->fresh = cw->fresh;
  a->cnt = cw->scratch.cnt;
  a->nkey = cw->nkey;
  a->ncap = cw->ncap;
  a->chunk = cw->chunk;
  a->nactive = cw->nactive;
  a->nstable = cw->nstable;
  return dc_snapshot(cw, a);
}

/* After a kernel that may have put sequences into strand state: collect
 * them into the heap (dc_seq.h) when some may live outside it (built in
 * the arena, or a global's device copy, which the next upload reuses). */
static bool dc_seq_after(DcWorld *cw, const DcCounts *t) {
#if D_SEQ_STATE
  if (!t->abytes && !D_SEQ_GLOBALS) return true;
  return dc_seq_collect(cw->err, &cw->seq, cw->st, cw->n, cw->status, D_BLOCK);
#else
  (void)cw;
  (void)t;
  return true;
#endif
}

static bool dc_step(DcWorld *cw) {
  cw->host_fresh = false;
  if (!dc_scratch_reserve(cw->err, &cw->scratch, dc_blocks(cw->nwork, DC_RBLOCK))) return false;
  if (D_HAS_NEW && !dc_new_reserve(cw)) return false;
  DcStep a;
  if (!dc_step_args(cw, &a)) return false;
  DcCounts t;
  for (bool again = true, fail = false; again;) {
    if (!dc_ok(cw->err, cudaMemset(cw->scratch.cnt, 0, sizeof(DcCounts)), "set")) return false;
    if (cw->nwork) {
      DC_LAUNCH(d_k_step, dc_blocks(cw->nwork, D_BLOCK), D_BLOCK, (const d_dglobals *)cw->dglobals,
                cw->st, cw->nst, a);
      if (!dc_launched(cw->err, "update")) return false;
    }
    if (!dc_compact(cw->err, &cw->scratch, cw->work, cw->nwork, cw->status, 1u << DRT_ACTIVE, cw->work2, &t))
      return false;
    if (t.perr) break; /* the run stops: no rerun for overflowing buffers */
    again = dc_rerun(cw, &a, &t, &fail);
    if (fail) return false;
  }
  if (t.perr) {
    const DcProbeErr *p = &t.probe;
    /* the device reports a slot; the message names the strand's id */
    long long id = p->strand >= 0 && p->strand < cw->n ? (long long)cw->ids[p->strand] : p->strand;
    if (p->index) drt_world_index_error(cw->rt, id, p->line, p->col, p->index == 2, p->n[0], p->n[1]);
    else drt_world_probe_error(cw->rt, id, p->name, p->line, p->size, p->dim, p->n,
                          p->has_x ? p->x : NULL);
    return false;
  }
  if (!dc_print_out(cw, &t)) return false;
  uint32_t *w = cw->work;
  cw->work = cw->work2;
  cw->work2 = w;
  cw->nstable += cw->nwork - t.kept - t.dying;
  cw->nactive = cw->nwork = t.kept;
  if (t.dying && !dc_compact_storage(cw)) return false;
  if (t.nnew && !dc_append_new(cw, t.nnew)) return false;
  return dc_seq_after(cw, &t);
}

static DcWorld *dc_world_new(void *hostw, DrtWorld *rt, const DrtProgram *prog,
                             void (*getg)(const void *, void *)) {
  DcWorld *cw = (DcWorld *)calloc(1, sizeof *cw);
  if (!cw) {
    drt_error(drt_world_errors(rt), "out of memory");
    return NULL;
  }
  cw->rt = rt;
  cw->err = drt_world_errors(rt);
  cw->prog = prog;
  cw->hostw = hostw;
  cw->getg = getg;
  cw->grid = drt_world_is_grid(rt);
  cw->chunk = drt_world_chunk(rt);
  if (!cw->chunk) cw->chunk = 256;
  if (!dc_alloc(cw, (void **)&cw->dglobals, sizeof(d_dglobals))) return cw;
  return cw;
}

/* ---- entry points of the host half ----------------------------------------------------------- */

extern "C" void d_cuda_free(void *cw_) {
  DcWorld *cw = (DcWorld *)cw_;
  if (!cw) return;
  dc_store_free(&cw->st);
  dc_store_free(&cw->st2);
  dc_store_free(&cw->nst);
  dc_store_free(&cw->in);
  cudaFree(cw->status_save);
  cudaFree(cw->fresh_save);
  cudaFree(cw->pool);
  cudaFree(cw->pbuf);
  cudaFree(cw->arena);
#if D_SEQ_STATE
  dc_seq_heap_free(&cw->seq);
#endif
  cudaFree(cw->mcnt);
#if D_SPHERE_DIM
  dc_sphere_free(&cw->sphere);
#endif
  cudaFree(cw->status);
  cudaFree(cw->status2);
  cudaFree(cw->fresh);
  cudaFree(cw->fresh2);
  cudaFree(cw->work);
  cudaFree(cw->work2);
  cudaFree(cw->perm);
  cudaFree(cw->nkey);
  cudaFree(cw->dglobals);
  dc_images_free(&cw->images);
  dc_seqs_free(cw->seqs, D_SEQ_GLOBALS);
  dc_scratch_free(&cw->scratch);
  free(cw->ids);
  free(cw);
}

extern "C" uint32_t d_cuda_run(void *hostw, void **cuda, DrtWorld *rt, const DrtProgram *prog,
                               void (*getg)(const void *, void *), size_t gsize, uint32_t max_steps) {
  DrtErrors *err = drt_world_errors(rt);
  if (gsize != sizeof(d_dglobals)) {
    drt_error(err, "internal: the host and device halves disagree on the globals (%zu, %zu bytes)",
              gsize, sizeof(d_dglobals));
    return 0;
  }
  bool first = false;
  if (drt_world_external_begin(rt, &first)) return 0;
  DcWorld *cw = (DcWorld *)*cuda;
  if (!cw) {
    cw = dc_world_new(hostw, rt, prog, getg);
    if (!cw) return 0;
    *cuda = cw;
    if (drt_any_errors(err) || !dc_upload(cw)) return 0;
  }
  cw->hostw = hostw;
  cw->getg = getg;
  cw->prog = prog;
  uint32_t steps = 0;
  if (first && prog->global_start) {
    if (!dc_refresh_globals(cw)) return 0;
    prog->global_start(rt, hostw);
    if (cw->compact_pending) dc_compact_storage(cw);
  }
  bool fresh_globals = false;
  drt_world_progress_begin(rt); /* as drt_world_run (diderot_world.h) */
  while (!drt_any_errors(err) && cw->nactive > 0 && (max_steps == 0 || steps < max_steps)) {
    if (!fresh_globals && !dc_refresh_globals(cw)) break;
    fresh_globals = true;
    if (!dc_step(cw)) break;
    steps++;
    if (prog->global_update) {
      prog->global_update(rt, hostw);
      fresh_globals = false;
      if (cw->compact_pending) dc_compact_storage(cw);
    }
    drt_world_collect_seqs(rt); /* as drt_world_run: the global blocks' garbage */
    if (drt_world_verbose(rt))
      fprintf(stderr, "step %u: %u active, %u stable\n",
              (unsigned)(drt_world_total_steps(rt) + steps), (unsigned)cw->nactive,
              (unsigned)cw->nstable);
    if (drt_world_progress_step(rt, drt_world_total_steps(rt) + steps, cw->nactive, cw->nstable))
      break;
  }
  dc_download(cw, steps);
  drt_world_progress_end(rt, drt_world_total_steps(rt), drt_world_nactive(rt),
                         drt_world_nstable(rt));
  return steps;
}

/* Counts for the global blocks: 0 all alive, 1 active, 2 stable. */
extern "C" uint32_t d_cuda_count(void *cw_, int which) {
  DcWorld *cw = (DcWorld *)cw_;
  if (!cw) return 0;
  return which == 1 ? cw->nactive : which == 2 ? cw->nstable : cw->nactive + cw->nstable;
}

extern "C" void d_cuda_stabilize_all(void *cw_) {
  DcWorld *cw = (DcWorld *)cw_;
  if (!cw || !cw->nwork || !dc_refresh_globals(cw)) return;
  /* a block that read the strands through the host copy reads it again */
  bool refresh = cw->host_fresh;
  cw->host_fresh = false;
  /* as on the CPU: queries and other strands' state see the current
   * states, and each strand the counts moved by those before it */
  DcStep a;
  if (!dc_scratch_reserve(cw->err, &cw->scratch, 1) || !dc_step_args(cw, &a)) return;
  a.count_down = 1;
  for (bool again = true, fail = false; again;) {
    DcCounts t;
    if (!dc_ok(cw->err, cudaMemset(cw->scratch.cnt, 0, sizeof(DcCounts)), "set")) return;
    DC_LAUNCH(d_k_stabilize_all, dc_blocks(cw->nwork, D_BLOCK), D_BLOCK,
              (const d_dglobals *)cw->dglobals, cw->st, a);
    if (!dc_launched(cw->err, "stabilize") ||
        !dc_ok(cw->err, cudaMemcpy(&t, cw->scratch.cnt, sizeof t, cudaMemcpyDeviceToHost), "copy"))
      return;
    again = dc_rerun(cw, &a, &t, &fail);
    if (fail || (!again && (!dc_print_out(cw, &t) || !dc_seq_after(cw, &t)))) return;
  }
  cw->nstable += cw->nwork;
  cw->nactive = cw->nwork = 0;
  if (refresh) dc_download(cw, 0);
}

extern "C" void d_cuda_kill_all(void *cw_) {
  DcWorld *cw = (DcWorld *)cw_;
  if (!cw || !cw->nwork) return;
  DC_LAUNCH(dc_k_mark, dc_blocks(cw->nwork, D_BLOCK), D_BLOCK, (const uint32_t *)cw->work, cw->nwork,
            cw->status, (unsigned char)(cw->grid ? DRT_DEAD : DRT_DYING));
  if (!dc_launched(cw->err, "die")) return;
  cw->nactive = cw->nwork = 0;
  /* as on the CPU, the slots move when the global block ends: strands it
   * collected before the die keep their slots (their last state) */
  cw->compact_pending = true;
}

/* Before a global block reads strand state through references (`c.x`
 * for c in a collected C[]; the block's prologue): the device strands to
 * the host world, whose store the host half reads. Once per change of the
 * device strands; a global stabilize refreshes a copy taken before it.
 * Mid-run the host counts follow (drt_world_external_sync); the device's
 * stay authoritative. */
extern "C" void d_cuda_sync_states(void *cw_) {
  DcWorld *cw = (DcWorld *)cw_;
  if (cw && !cw->host_fresh) dc_download(cw, 0);
}

/* ---- the maps of reductions and collections (global blocks) ----------------------------- */

/* The map of a reduction runs as strand code (d_newctx) with a's counts
 * (the current ones, as the host's numActive() etc.) and print buffer: the
 * strand's slot is its position w, so that its records come out in the C
 * targets' order (slots in order). */
static inline bool dc_map_begin(DcWorld *cw, DcStep *a) {
  memset(a, 0, sizeof *a);
  a->nactive = cw->nactive;
  a->nstable = cw->nstable;
  if ((D_HAS_PRINT || D_SEQ_ARENA) && !cw->mcnt &&
      !dc_alloc(cw, (void **)&cw->mcnt, sizeof(DcCounts)))
    return false;
  a->cnt = cw->mcnt;
  return !(D_HAS_PRINT || D_SEQ_ARENA) ||
         (dc_print_buffer(cw, a) && dc_seq_arena(cw, a) &&
          dc_ok(cw->err, cudaMemset(cw->mcnt, 0, sizeof(DcCounts)), "set"));
}

/* After the map ran: true when its print records did not fit (the buffer
 * is then grown and the map must run again: maps change no state); else
 * the records are printed. */
static inline bool dc_map_again(DcWorld *cw) {
#if D_HAS_PRINT || D_SEQ_ARENA
  DcCounts t;
  if (drt_any_errors(cw->err) ||
      !dc_ok(cw->err, cudaMemcpy(&t, cw->mcnt, sizeof t, cudaMemcpyDeviceToHost), "copy"))
    return false;
  if (D_SEQ_ARENA && t.abytes > cw->acap) {
    if (drt_world_verbose(cw->rt))
      fprintf(stderr, "sequences overflowed their arena: the reduction runs again\n");
    return dc_arena_grow(cw, t.abytes);
  }
  if (D_HAS_PRINT && t.pbytes > cw->pcap) {
    if (drt_world_verbose(cw->rt))
      fprintf(stderr, "print output overflowed its buffer: the reduction runs again\n");
    return dc_grow(cw, (void **)&cw->pbuf, &cw->pcap, t.pbytes, 1);
  }
  dc_print_out(cw, &t);
#else
  (void)cw;
#endif
  return false;
}

/* ---- collecting strands into a sequence (global blocks) -------------------------------- */

/* out[j] = map(sel[j]) for the n selected slots. */
template <typename T, typename MAP>
static __global__ void dc_k_collect(MAP map, const uint32_t *sel, uint32_t n, T *out) {
  uint32_t j = threadIdx.x + blockDim.x * blockIdx.x;
  if (j < n) out[j] = map(sel[j]);
}

/* map(i) for the strands of `set` (DrtSet) in slot order, which is the C
 * targets' order (creation order, dead slots compacted away), into the
 * host array out (room for cap values). Returns how many were written;
 * 0 with an error in cw->err on failure. */
template <typename T, typename MAP>
static uint32_t dc_collect(DcWorld *cw, MAP map, int set, T *out, uint32_t cap) {
  DcCounts t;
  if (!cw->n) return 0;
  if (!dc_perm_reserve(cw, cw->n) ||
      !dc_compact(cw->err, &cw->scratch, NULL, cw->n, cw->status, dc_set_mask(set), cw->perm, &t))
    return 0;
  if (t.kept > cap) { /* cap is the alive count: the counts and statuses disagree */
    drt_error(cw->err, "internal: %u strands to collect, room for %u", (unsigned)t.kept,
              (unsigned)cap);
    return 0;
  }
  if (!t.kept) return 0;
  T *dv = NULL;
  if (!dc_alloc(cw, (void **)&dv, t.kept * sizeof(T))) return 0;
  void (*k)(MAP, const uint32_t *, uint32_t, T *) = dc_k_collect<T, MAP>;
  DC_LAUNCH(k, dc_blocks(t.kept, D_BLOCK), D_BLOCK, map, (const uint32_t *)cw->perm, t.kept, dv);
  bool ok = dc_launched(cw->err, "collect") &&
            dc_ok(cw->err, cudaMemcpy(out, dv, t.kept * sizeof(T), cudaMemcpyDeviceToHost), "copy");
  cudaFree(dv);
  return ok ? t.kept : 0;
}

#endif
