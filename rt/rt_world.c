/* rt_world.c -- the world and the bulk-synchronous scheduler (doc/language.md
 * §8.3, §14); the design is described in diderot_world.h. */
#include "rt_world_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory ---------------------------------------------------------------- */

/* (drt_alloc_aligned, drt_first_touch, drt_grow_aligned: rt_mem.c) */
static void drt_first_touch(DrtWorld *w, unsigned char *p, size_t bytes) {
  drt_mem_first_touch(w->pfor, w->nworkers, p, bytes);
}

/* Bytes of the arrays for cap slots (states through the layout, which
 * takes a uint32_t capacity; beyond one, the packed records). */
static uint64_t drt_world_bytes(const void *ctx, uint64_t cap) {
  const DrtWorld *w = ctx;
  uint64_t states;
  if (!w->lay) states = drt_mem_mul(cap, w->ssz);
  else if (cap <= UINT32_MAX) states = w->lay->bytes((uint32_t)cap);
  else states = drt_mem_mul(cap, (w->lay->bytes(1u << 20) + (1u << 20) - 1) >> 20);
  return drt_mem_world_bytes(cap, states, w->prog.shared);
}

/* Room for at least `need` slots, planned (rt_mem.c: exactly for a grid,
 * else by doubling or what fits) against what the process may use before
 * anything is allocated. One attempt: a failure is an error in the user's
 * terms, never retried. */
static bool drt_reserve(DrtWorld *w, uint64_t need, bool exact) {
  if (need <= w->cap) return true;
  DrtMemPlan plan = {w->cap, need, w->lay ? w->lay->pad : 1, DRT_MAX_STRANDS, exact,
                     drt_world_bytes, w, "strands"};
  DrtMemRoom room = {0, NULL};
  uint32_t cap = (uint32_t)drt_mem_plan(&w->err, &plan, &room);
  if (!cap) return false;
  /* (as big arrays: huge pages for large worlds) */
  if (!drt_grow_aligned(&w->status, 64, w->n, cap) || !drt_grow_aligned(&w->fresh, 64, w->n, cap))
    goto oom;
  unsigned char *ids = (unsigned char *)w->ids;
  if (!drt_grow_aligned(&ids, 64, (size_t)w->n * sizeof *w->ids, (size_t)cap * sizeof *w->ids))
    goto oom;
  w->ids = (uint32_t *)ids;
  if (w->lay) {
    /* the capacity is a stride of the layout: every slot moves (as bytes
     * when slots do not depend on it) */
    unsigned char *q = drt_big_alloc(64, w->lay->bytes(cap));
    if (!q) goto oom;
    drt_first_touch(w, q, w->lay->bytes(cap));
    if (w->lay->packed_stride && w->n)
      memcpy(q, w->state, (size_t)w->n * w->lay->packed_stride);
    else
      for (uint32_t i = 0; i < w->n; i++) {
        w->lay->get(w->state, w->cap, i, w->tmp);
        w->lay->put(q, cap, i, w->tmp);
      }
    free(w->state);
    w->state = q;
  } else if (!drt_grow_aligned(&w->state, w->align, (size_t)w->n * w->ssz,
                               (size_t)cap * w->ssz)) {
    goto oom;
  } else {
    drt_first_touch(w, w->state + (size_t)w->n * w->ssz, (size_t)(cap - w->n) * w->ssz);
  }
  w->cap = cap;
  return true;
oom:
  drt_mem_failed(&w->err, NULL, need, "strands", drt_world_bytes(w, cap));
  return false;
}

/* Creation failed (too many strands, out of memory): refuse the strands
 * still to come at once (the generated create function returns at the
 * first refusal; emit_c_program.c). */
static void drt_create_failed(DrtWorld *w) { w->create_failed = true; }

/* ---- creation and queries ---------------------------------------------------- */

DrtWorld *drt_world_new(const DrtProgram *prog, void *globals) {
  if (!prog) return NULL;
  DrtWorld *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->prog = *prog;
  w->globals = globals;
  w->align = prog->state_align ? prog->state_align : 16;
  if (w->align < sizeof(void *)) w->align = sizeof(void *);
  size_t s = prog->state_size ? prog->state_size : 1;
  w->ssz = (s + w->align - 1) / w->align * w->align;
  w->nworkers = 1;
  w->stage = DRT_STAGE_POST_NEW;
  w->lay = prog->layout;
  w->seqs = drt_seqheap_new();
  if (!w->seqs) {
    free(w);
    return NULL;
  }
  drt_sched_init(&w->sched, w->lay ? w->lay->chunk : 0);
  if (w->lay) {
    w->tmp = drt_alloc_aligned(w->align, w->ssz);
    if (!w->tmp || !w->lay->bytes || !w->lay->get || !w->lay->put || !w->lay->pad ||
        (w->lay->pad & (w->lay->pad - 1))) {
      free(w->tmp);
      drt_seqheap_free(w->seqs);
      free(w);
      return NULL;
    }
  }
  return w;
}

static void drt_free_states(DrtWorld *w, unsigned char *base, size_t n) {
  if (!w->prog.free_state) return;
  for (size_t i = 0; i < n; i++) w->prog.free_state(base + i * w->ssz);
}

/* free_state of slot i (gathered into a packed record with a layout). */
static void drt_free_slot(DrtWorld *w, uint32_t i) {
  if (!w->prog.free_state) return;
  if (!w->lay) {
    w->prog.free_state(w->state + (size_t)i * w->ssz);
    return;
  }
  w->lay->get(w->state, w->cap, i, w->tmp);
  w->prog.free_state(w->tmp);
}

void drt_world_free(DrtWorld *w) {
  if (!w) return;
  if (w->prog.free_state)
    for (uint32_t i = 0; i < w->n; i++)
      if (w->status[i] != DRT_DEAD && !(w->pending && i + 1 == w->n)) drt_free_slot(w, i);
  if (w->pending && w->prog.free_state) w->prog.free_state(w->tmp);
  for (uint32_t c = 0; c < w->nbufs; c++) {
    drt_free_states(w, w->bufs[c].states, w->bufs[c].n);
    free(w->bufs[c].states);
  }
  free(w->bufs);
  free(w->state);
  free(w->in_state);
  free(w->status);
  free(w->trace_prev);
  free(w->fresh);
  free(w->ids);
  free(w->tmp);
  free(w->own);
  free(w->act);
  free(w->mapbuf);
  drt_seqheap_free(w->seqs);
  drt_distrib_strs_free(w);
  drt_errors_free(&w->err);
  free(w);
}

void *drt_seq_alloc(DrtWorld *w, size_t bytes) {
  return w ? drt_seqheap_alloc(w->seqs, bytes) : malloc(bytes ? bytes : 1);
}

void *drt_seq_join(DrtWorld *w, const void *a, size_t na, const void *b, size_t nb) {
  if (w) return drt_seqheap_join(w->seqs, a, na, b, nb);
  char *p = malloc(na + nb ? na + nb : 1);
  if (p && na) memcpy(p, a, na);
  if (p && nb) memcpy(p + na, b, nb);
  return p;
}

bool drt_seq_mark(DrtWorld *w, const void *data) { return drt_seqheap_mark(w->seqs, data); }

/* Between steps: free the sequences no global or alive strand holds
 * (mid-step, method temporaries would be live but unmarked). Without a
 * seq_roots hook nothing holds one: the temporaries of methods and global
 * blocks are all garbage. */
void drt_world_collect_seqs(DrtWorld *w) {
  if (!w || w->in_step || !drt_seqheap_due(w->seqs) || !drt_seqheap_begin(w->seqs)) return;
  if (w->prog.seq_roots) w->prog.seq_roots(w, w->globals);
  drt_seqheap_sweep(w->seqs);
}

size_t drt_world_seq_bytes(const DrtWorld *w) { return w ? drt_seqheap_bytes(w->seqs) : 0; }

DrtErrors *drt_world_errors(DrtWorld *w) { return &w->err; }
DrtStage drt_world_stage(const DrtWorld *w) { return w->stage; }
void *drt_world_globals(const DrtWorld *w) { return w->globals; }
void drt_world_set_verbose(DrtWorld *w, bool v) { w->verbose = v; }
void drt_world_set_trace(DrtWorld *w, FILE *f) { w->trace = f; }
bool drt_world_verbose(const DrtWorld *w) { return w->verbose; }
void drt_world_set_progress(DrtWorld *w, DrtProgressFn fn, void *data, double interval) {
  w->progress = fn;
  w->progress_data = data;
  w->progress_interval = interval > 0 ? interval : 0;
}

/* The clock is read only when someone listens. */
void drt_world_progress_begin(DrtWorld *w) {
  if (!w->progress) return;
  w->progress_t0 = w->progress_last = drt_seconds();
  w->progress_reported = false;
}

bool drt_world_progress_step(DrtWorld *w, uint32_t step, uint32_t nactive, uint32_t nstable) {
  w->progress_reported = false;
  if (drt_interrupted()) return true; /* SIGINT, SIGTERM: stop after this step (rt_exec.c) */
  if (!w->progress) return false;
  double t = drt_seconds();
  if (t - w->progress_last < w->progress_interval) return false;
  w->progress_last = t;
  w->progress_reported = true;
  return w->progress(w->progress_data, step, nactive, nstable, t - w->progress_t0);
}

void drt_world_progress_end(DrtWorld *w, uint32_t step, uint32_t nactive, uint32_t nstable) {
  /* the run under way has ended: an interrupt is said now (every target) */
  (void)drt_interrupt_stop(&w->err, &w->interrupt_told, step);
  if (w->progress && !w->progress_reported)
    w->progress(w->progress_data, step, nactive, nstable, drt_seconds() - w->progress_t0);
}

void drt_world_set_parallel(DrtWorld *w, DrtParallelFor pfor, uint32_t nworkers,
                            uint32_t chunk) {
  w->pfor = pfor;
  w->nworkers = nworkers ? nworkers : 1;
  /* a chunk given here is the host's (drt_world_set_schedule) */
  if (chunk) drt_sched_host_chunk(&w->sched, chunk);
}
uint32_t drt_world_nworkers(const DrtWorld *w) { return w->nworkers; }

void drt_world_set_parallel_kinds(DrtWorld *w, DrtParallelFor dynamic_kind,
                                  DrtParallelFor static_kind, DrtParallelFor guided_kind) {
  w->pfor_kinds[0] = dynamic_kind;
  w->pfor_kinds[1] = static_kind;
  w->pfor_kinds[2] = guided_kind;
}

/* The parallel loop of the run: the schedule's OpenMP kind where one was
 * chosen at run time (fixed as the run began), else the program's own. */
static DrtParallelFor drt_world_pfor(const DrtWorld *w) {
  DrtSchedOmp k = w->sched.run.omp;
  if (!w->pfor || k == DRT_OMP_DEFAULT || !w->pfor_kinds[k - 1]) return w->pfor;
  return w->pfor_kinds[k - 1];
}

DrtSchedState *drt_world_sched(DrtWorld *w, DrtSchedFacts *f, DrtErrors **err) {
  f->strandwise = w->prog.strandwise && w->prog.update_chunk && w->lay;
  f->running = w->stage >= DRT_STAGE_RUNNING;
  f->omp_kinds = w->pfor_kinds[0] && w->pfor_kinds[1] && w->pfor_kinds[2];
  f->pad = w->lay ? w->lay->pad : 1;
  f->lay_chunk = w->lay ? w->lay->chunk : 0;
  *err = &w->err;
  return &w->sched;
}

uint32_t drt_world_nstrands(const DrtWorld *w) { return w->nactive + w->nstable; }
uint32_t drt_world_nactive(const DrtWorld *w) { return w->nactive; }
uint32_t drt_world_nstable(const DrtWorld *w) { return w->nstable; }
uint32_t drt_world_total_steps(const DrtWorld *w) { return w->steps; }
uint32_t drt_world_nslots(const DrtWorld *w) { return w->n; }
long long drt_world_strand_id(const DrtWorld *w, uint32_t slot) {
  return slot < w->n ? (long long)w->ids[slot] : (long long)slot;
}

uint32_t drt_world_next_id(const DrtWorld *w) { return w->next_id; }

unsigned char drt_world_status(const DrtWorld *w, uint32_t id) {
  return id < w->n ? w->status[id] : DRT_DEAD;
}
void *drt_world_state(const DrtWorld *w, uint32_t id) {
  return w->lay ? NULL : w->state + (size_t)id * w->ssz;
}
const void *drt_world_in_state(const DrtWorld *w, uint32_t id) {
  if (w->lay) return NULL;
  return (w->in_state && w->in_step ? w->in_state : w->state) + (size_t)id * w->ssz;
}
void *drt_world_store(const DrtWorld *w) { return w->state; }
const void *drt_world_in_store(const DrtWorld *w) {
  return w->in_state && w->in_step ? w->in_state : w->state;
}
uint32_t drt_world_capacity(const DrtWorld *w) { return w->cap; }
bool drt_world_is_grid(const DrtWorld *w) { return w->grid; }
unsigned drt_world_grid_axes(const DrtWorld *w, const size_t **sizes) {
  if (sizes) *sizes = w->sizes;
  return w->grid ? w->naxes : 0;
}

/* ---- the stage machine ----------------------------------------------------------- */

bool drt_world_init(DrtWorld *w) {
  if (w->stage != DRT_STAGE_POST_NEW) {
    drt_error(&w->err, "multiple calls to init_world");
    return true;
  }
  w->stage = DRT_STAGE_POST_INIT;
  return false;
}

bool drt_world_create_begin(DrtWorld *w) {
  if (w->stage == DRT_STAGE_POST_NEW) {
    drt_error(&w->err, "must call init_world before create_strands");
    return true;
  }
  if (w->stage != DRT_STAGE_POST_INIT) {
    drt_error(&w->err, "multiple calls to create_strands");
    return true;
  }
  return false;
}

bool drt_world_set_grid(DrtWorld *w, unsigned naxes, const size_t *sizes) {
  if (naxes < 1 || naxes > DRT_MAX_AXES) {
    drt_error(&w->err, "a strand grid of %u axes is not supported", naxes);
    return true;
  }
  w->grid = true;
  w->naxes = naxes;
  for (unsigned i = 0; i < naxes; i++) w->sizes[i] = sizes[i];
  /* the whole grid at once: growth by doubling would move every strand
   * ~log2(n) times (through get/put with a layout) */
  if (drt_reserve(w, drt_mem_grid_count(naxes, sizes), true)) return false;
  drt_create_failed(w);
  return true;
}

/* Layouts: scatter the packed record of the last created strand. */
static void drt_commit_pending(DrtWorld *w) {
  if (!w->pending) return;
  w->lay->put(w->state, w->cap, w->n - 1, w->tmp);
  w->pending = false;
}

void *drt_world_create_strand(DrtWorld *w) {
  if (w->create_failed) return NULL;
  /* nothing is written yet: an executable ends now (rt_exec.c) */
  if (drt_interrupted() && drt_interrupt_stop(&w->err, &w->interrupt_told, UINT32_MAX)) {
    drt_create_failed(w);
    return NULL;
  }
  if (w->lay) drt_commit_pending(w);
  if (w->n >= w->cap && !drt_reserve(w, (uint64_t)w->n + 1, w->grid)) {
    drt_create_failed(w);
    return NULL;
  }
  if (w->lay && !w->lay->packed_stride) {
    uint32_t i = w->n++;
    memset(w->tmp, 0, w->ssz);
    w->status[i] = DRT_ACTIVE;
    w->fresh[i] = 1;
    w->ids[i] = w->next_id++;
    w->nactive++;
    w->pending = true;
    return w->tmp;
  }
  uint32_t i = w->n++;
  /* AoS (no layout, or one that is the identity on packed records): the
   * state is initialised in place */
  size_t sz = w->lay ? w->lay->packed_stride : w->ssz;
  unsigned char *s = w->state + (size_t)i * sz;
  memset(s, 0, sz);
  w->status[i] = DRT_ACTIVE;
  w->fresh[i] = 1;
  w->ids[i] = w->next_id++;
  w->nactive++;
  return s;
}

bool drt_world_create_end(DrtWorld *w) {
  if (w->lay) drt_commit_pending(w);
  if (w->grid && !drt_any_errors(&w->err)) {
    uint64_t want = drt_mem_grid_count(w->naxes, w->sizes);
    if (want != w->n) {
      drt_error(&w->err, "internal: grid of %" PRIu64 " cells but %u strands were created", want,
                (unsigned)w->n);
      return true;
    }
  }
  if (drt_any_errors(&w->err)) return true;
  w->stage = DRT_STAGE_POST_CREATE;
  return false;
}

/* ---- effects ----------------------------------------------------------------------- */

static bool drt_bufs_reserve(DrtWorld *w, uint32_t nchunks) {
  if (nchunks <= w->nbufs) return true;
  DrtNewBuf *b = realloc(w->bufs, nchunks * sizeof *b);
  if (!b) return false;
  memset(b + w->nbufs, 0, (nchunks - w->nbufs) * sizeof *b);
  w->bufs = b;
  w->nbufs = nchunks;
  return true;
}

void *drt_world_new_strand(DrtCtx *ctx, uint32_t creator) {
  (void)creator; /* chunks run their strands in ascending order */
  DrtWorld *w = ctx->world;
  uint32_t c = w->in_step ? ctx->chunk : 0;
  if (!w->in_step && !drt_bufs_reserve(w, 1)) return NULL;
  if (c >= w->nbufs) return NULL;
  DrtNewBuf *b = &w->bufs[c];
  if (b->n == b->cap) {
    /* (any thread: the limits are read without the world's errors, which
     * drt_append_new reports after the step) */
    size_t cap = b->cap ? 2 * b->cap : 8;
    uint64_t bytes = drt_mem_mul(cap, w->ssz);
    if (b->oom || drt_mem_refuse(NULL, NULL, cap, "strands", bytes) ||
        !drt_grow_aligned(&b->states, w->align, b->n * w->ssz, cap * w->ssz)) {
      if (!b->oom) b->oom_n = cap;
      b->oom = true;
      return NULL;
    }
    b->cap = cap;
  }
  unsigned char *s = b->states + b->n++ * w->ssz;
  memset(s, 0, w->ssz);
  return s;
}

/* Remove dying/dead slots of a collection, keeping the order. */
static void drt_compact(DrtWorld *w) {
  if (w->grid) return;
  if (w->dist) {
    /* strands will move to other chunks, and so to other processes: every
     * process needs every state first (the status is the same everywhere) */
    bool any = false;
    for (uint32_t i = 0; i < w->n && !any; i++)
      any = w->status[i] == DRT_DYING || w->status[i] == DRT_DEAD;
    if (!any) return;
    uint32_t nchunks = w->n ? (w->n - 1) / w->sched.run.chunk + 1 : 0;
    drt_distrib_states(w, nchunks);
  }
  uint32_t k = 0;
  for (uint32_t i = 0; i < w->n; i++) {
    if (w->status[i] == DRT_DYING || w->status[i] == DRT_DEAD) {
      drt_free_slot(w, i);
      continue;
    }
    if (k != i) {
      if (w->lay) {
        w->lay->get(w->state, w->cap, i, w->tmp);
        w->lay->put(w->state, w->cap, k, w->tmp);
      } else {
        memcpy(w->state + (size_t)k * w->ssz, w->state + (size_t)i * w->ssz, w->ssz);
      }
      w->status[k] = w->status[i];
      w->fresh[k] = w->fresh[i];
      w->ids[k] = w->ids[i];
    }
    k++;
  }
  w->n = k;
}

/* Append the new strands of every chunk, in chunk order. */
static void drt_append_new(DrtWorld *w, uint32_t nchunks) {
  /* room for all of them at once, or an error once: never a try per chunk */
  uint64_t total = 0;
  bool told = false;
  for (uint32_t c = 0; c < nchunks && c < w->nbufs; c++) {
    DrtNewBuf *b = &w->bufs[c];
    if (b->oom && !told) {
      /* the limits now, as the chunk saw them (or the allocation failed) */
      if (!drt_mem_refuse(&w->err, "new strands", b->oom_n, "strands",
                          drt_mem_mul(b->oom_n, w->ssz)))
        drt_mem_failed(&w->err, "new strands", b->oom_n, "strands",
                       drt_mem_mul(b->oom_n, w->ssz));
      told = true;
    }
    b->oom = false;
    total += b->n;
  }
  if (!total) return;
  /* (64-bit: never wraps past 2^32 strands) */
  bool room = drt_reserve(w, (uint64_t)w->n + total, false);
  for (uint32_t c = 0; c < nchunks && c < w->nbufs; c++) {
    DrtNewBuf *b = &w->bufs[c];
    if (!b->n) continue;
    if (!room) {
      drt_free_states(w, b->states, b->n);
      b->n = 0;
      continue;
    }
    if (w->lay)
      for (size_t j = 0; j < b->n; j++)
        w->lay->put(w->state, w->cap, w->n + (uint32_t)j, b->states + j * w->ssz);
    else
      memcpy(w->state + (size_t)w->n * w->ssz, b->states, b->n * w->ssz);
    memset(w->status + w->n, DRT_ACTIVE, b->n);
    memset(w->fresh + w->n, 1, b->n);
    for (size_t j = 0; j < b->n; j++) w->ids[w->n + j] = w->next_id++;
    w->n += (uint32_t)b->n;
    w->nactive += (uint32_t)b->n;
    b->n = 0;
  }
}

void drt_world_stabilize_all(DrtWorld *w) {
  DrtCtx ctx = {w, w->globals, 0};
  for (uint32_t i = 0; i < w->n; i++) {
    if (w->status[i] != DRT_ACTIVE) continue;
    if (w->prog.stabilize)
      w->prog.stabilize(&ctx, i, w->lay ? w->state : w->state + (size_t)i * w->ssz);
    w->status[i] = DRT_STABLE;
    w->nactive--;
    w->nstable++;
  }
}

void drt_world_kill_all(DrtWorld *w) {
  for (uint32_t i = 0; i < w->n; i++) {
    if (w->status[i] != DRT_ACTIVE) continue;
    w->status[i] = w->grid ? DRT_DEAD : DRT_DYING;
    w->nactive--;
  }
  /* in a global block the slots stay put until it ends: the strand
   * references it collected ({ c | c in S.all }) must not move */
  if (!w->in_step && !w->in_global) drt_compact(w);
}

/* A global block; then the strands its `die` killed go. */
void drt_world_probe_error(DrtWorld *w, long long strand, const char *name, int line,
                           const int *size, int d, const long long *n, const double *x) {
  /* strands of several threads may fail in one step: the first reports */
  if (__atomic_exchange_n(&w->failed, 1, __ATOMIC_ACQ_REL)) return;
  char who[48], at[32], pos[160] = "", idx[96] = "", dims[64] = "";
  if (strand >= 0) snprintf(who, sizeof who, "strand %lld: ", strand);
  else who[0] = 0;
  if (line > 0) snprintf(at, sizeof at, " at line %d", line);
  else at[0] = 0;
  size_t lp = 0, li = 0, ld = 0;
  for (int a = 0; a < d && a < 3; a++) {
    if (x) lp += (size_t)snprintf(pos + lp, sizeof pos - lp, "%s%.7g", a ? ", " : "", x[a]);
    /* a NaN or huge position saturates the index (d_floor_to_int) */
    if (n[a] <= -(1ll << 30) || n[a] >= 1ll << 30)
      li += (size_t)snprintf(idx + li, sizeof idx - li, "%sout of range", a ? ", " : "");
    else li += (size_t)snprintf(idx + li, sizeof idx - li, "%s%lld", a ? ", " : "", n[a]);
    ld += (size_t)snprintf(dims + ld, sizeof dims - ld, "%s%d", a ? "x" : "", size[a]);
  }
  drt_error(&w->err,
            "%sprobe%s of a field outside its image '%s'%s%s%s [index (%s), image is %s]: use "
            "inside(pos, F) or border control (clamp/wrap/mirror)",
            who, at, name, x ? " at position (" : "", pos, x ? ")" : "", idx, dims);
}

void drt_world_index_error(DrtWorld *w, long long strand, int line, int col, int tensor, long long i,
                           long long n) {
  if (__atomic_exchange_n(&w->failed, 1, __ATOMIC_ACQ_REL)) return;
  char who[48], at[48];
  if (strand >= 0) snprintf(who, sizeof who, "strand %lld: ", strand);
  else who[0] = 0;
  if (tensor) {
    if (line > 0) snprintf(at, sizeof at, " at line %d, column %d", line, col);
    else at[0] = 0;
    drt_error(&w->err, "%stensor index %lld%s is out of range for a dimension of size %lld", who, i, at, n);
    return;
  }
  if (line > 0) snprintf(at, sizeof at, " at line %d", line);
  else at[0] = 0;
  drt_error(&w->err, "%ssequence index %lld%s is out of range for a sequence of length %lld", who,
            i, at, n);
}

void drt_world_fail(DrtWorld *w) { __atomic_store_n(&w->failed, 1, __ATOMIC_RELEASE); }
bool drt_world_fail_first(DrtWorld *w) { return !__atomic_exchange_n(&w->failed, 1, __ATOMIC_ACQ_REL); }

/* An interrupt (SIGINT, SIGTERM: rt_exec.c) counts too: strand-by-strand
 * passes ask here every 64 updates of a strand, and stop. */
bool drt_world_failed(const DrtWorld *w) {
  return __atomic_load_n(&w->failed, __ATOMIC_ACQUIRE) || drt_interrupted();
}

static bool drt_world_interrupted(DrtWorld *w) {
  return drt_interrupt_stop(&w->err, &w->interrupt_told, w->steps);
}

static void drt_global_block(DrtWorld *w, DrtGlobalBlock block) {
  drt_trace_snap(w);
  w->in_global = true;
  block(w, w->globals);
  w->in_global = false;
  drt_trace_changes(w, w->steps, "global");
  drt_compact(w);
}

/* ---- the super-step ------------------------------------------------------------------- */

typedef struct DrtPhase {
  DrtWorld *w;
  bool start;     /* the start phase, else the update phase */
  uint32_t limit; /* update phase: up to limit updates of each strand
                   * (1: one super-step; more: strandwise) */
} DrtPhase;

static void drt_phase_chunk(void *arg, uint32_t c) {
  DrtPhase *ph = arg;
  DrtWorld *w = ph->w;
  DrtCtx ctx = {w, w->globals, c};
  DrtNewBuf *b = &w->bufs[c];
  uint32_t lo, hi;
  drt_world_chunk_range(w, c, &lo, &hi);
  if (!ph->start && w->prog.update_chunk && w->lay) {
    b->most = w->prog.update_chunk(&ctx, lo, hi, w->state, w->cap, w->status, w->fresh,
                                   ph->limit, &b->nstab, &b->ndie);
    return;
  }
  for (uint32_t i = lo; i < hi; i++) {
    if (w->status[i] != DRT_ACTIVE) continue;
    DrtExit r;
    void *self = w->lay ? w->state : w->state + (size_t)i * w->ssz;
    if (ph->start) {
      if (!w->fresh[i]) continue;
      w->fresh[i] = 0;
      r = w->prog.start(&ctx, i, self);
    } else {
      w->fresh[i] = 0;
      r = w->prog.update(&ctx, i, self);
    }
    if (r == DRT_EXIT_STABILIZE) {
      if (w->prog.stabilize) w->prog.stabilize(&ctx, i, self);
      w->status[i] = DRT_STABLE;
      b->nstab++;
    } else if (r == DRT_EXIT_DIE) {
      w->status[i] = DRT_DYING;
      b->ndie++;
    }
  }
}

/* With a distribution, body runs on this process's chunks only (w->own,
 * drt_distrib_own): the parallel loop's index is a place in that list. */
typedef struct DrtOwnFor {
  const DrtWorld *w;
  void (*body)(void *arg, uint32_t c);
  void *arg;
} DrtOwnFor;

static void drt_own_body(void *arg, uint32_t k) {
  DrtOwnFor *f = arg;
  f->body(f->arg, f->w->own[k]);
}

static void drt_for_chunks(DrtWorld *w, uint32_t nchunks, void (*body)(void *arg, uint32_t c),
                           void *arg) {
  if (w->dist) {
    DrtOwnFor f = {w, body, arg};
    if (w->pfor && w->nown > 1) drt_world_pfor(w)(w->nown, drt_own_body, &f, w->nworkers);
    else
      for (uint32_t k = 0; k < w->nown; k++) body(arg, w->own[k]);
  } else if (w->pfor && nchunks > 1) {
    drt_world_pfor(w)(nchunks, body, arg, w->nworkers);
  } else {
    for (uint32_t c = 0; c < nchunks; c++) body(arg, c);
  }
}

static void drt_run_phase(DrtWorld *w, bool start, uint32_t limit, uint32_t nchunks) {
  DrtPhase ph = {w, start, limit};
  drt_for_chunks(w, nchunks, drt_phase_chunk, &ph);
}

/* One super-step (§6.3; limit 1), or with limit > 1 up to limit updates of every
 * strand on its own (no-BSP mode: DrtProgram.strandwise, whose
 * conditions make the two the same but for the step count and the order
 * of the strands' work). Returns the number of super-steps this stands
 * for (the most updates one strand ran, at least 1), 0 when it could not
 * run. */
static uint32_t drt_step(DrtWorld *w, uint32_t limit) {
  uint32_t n = w->n;
  uint32_t nchunks = n ? (n - 1) / w->sched.run.chunk + 1 : 0;
  if (!drt_bufs_reserve(w, nchunks ? nchunks : 1) || !drt_distrib_own(w, nchunks)) {
    drt_mem_failed(&w->err, "the step's bookkeeping", nchunks, "chunks",
                   (uint64_t)nchunks * sizeof(DrtNewBuf));
    if (w->dist) drt_distrib_step(w, nchunks, true); /* the others must not wait */
    return 0;
  }
  for (uint32_t c = 0; c < nchunks; c++) w->bufs[c].nstab = w->bufs[c].ndie = w->bufs[c].most = 0;
  if (w->prog.shared && n) {
    /* a layout's copy must have the same capacity: it is a stride */
    if (w->lay ? w->in_cap != w->cap : w->in_cap < n) {
      free(w->in_state);
      w->in_state = w->lay ? drt_big_alloc(64, w->lay->bytes(w->cap))
                           : drt_big_alloc(w->align, (size_t)w->cap * w->ssz);
      if (!w->in_state) {
        w->in_cap = 0;
        drt_mem_failed(&w->err, "start-of-step copies", w->cap, "strands",
                       w->lay ? w->lay->bytes(w->cap) : (size_t)w->cap * w->ssz);
        return 0;
      }
      w->in_cap = w->cap;
    }
    memcpy(w->in_state, w->state, w->lay ? w->lay->bytes(w->cap) : (size_t)n * w->ssz);
  }
  w->in_step = true;
  drt_trace_snap(w);
  if (w->prog.begin_step) w->prog.begin_step(w, w->globals);
  if (w->prog.start) drt_run_phase(w, true, 1, nchunks);
  if (!drt_world_failed(w)) drt_run_phase(w, false, limit, nchunks);
  w->in_step = false;
  /* several processes: every one takes the owners' results (and stops
   * when one of them failed) */
  if (w->dist && drt_distrib_step(w, nchunks, drt_world_failed(w))) drt_world_fail(w);
  /* a failed probe: the step is abandoned (the error says why) */
  if (drt_world_failed(w)) return 0;
  /* strands that read others (and global blocks that collect them) see
   * every strand's state of this step on every process */
  if (w->dist && w->prog.exchange_states) {
    drt_distrib_states(w, nchunks);
    if (drt_world_failed(w)) return 0;
  }
  drt_trace_changes(w, w->steps + 1, "update");
  /* finish: counts, then dying strands go and new ones arrive */
  bool any_dead = false;
  uint32_t taken = 1;
  for (uint32_t c = 0; c < nchunks; c++) {
    w->nactive -= w->bufs[c].nstab + w->bufs[c].ndie;
    w->nstable += w->bufs[c].nstab;
    any_dead |= w->bufs[c].ndie > 0;
    if (w->bufs[c].most > taken) taken = w->bufs[c].most;
  }
  if (any_dead) drt_compact(w);
  uint32_t born = w->n;
  drt_append_new(w, nchunks);
  drt_trace_new(w, born, w->steps + 1, "update");
  w->steps += taken;
  if (w->dist && w->nactive) {
    /* work left: the transport may move chunks to even it out */
    drt_distrib_rebalance(w, w->n ? (w->n - 1) / w->sched.run.chunk + 1 : 0);
    if (drt_world_failed(w)) return 0;
  }
  if (w->prog.global_update) {
    drt_global_block(w, w->prog.global_update);
    born = w->n;
    drt_append_new(w, 1);
    drt_trace_new(w, born, w->steps, "global");
  }
  drt_world_collect_seqs(w);
  return taken;
}

uint32_t drt_world_run(DrtWorld *w, uint32_t max_steps) {
  if (w->stage < DRT_STAGE_POST_CREATE) {
    drt_error(&w->err, "attempt to run uninitialized program");
    return 0;
  }
  if (w->stage == DRT_STAGE_DONE || drt_world_interrupted(w)) return 0;
  if (drt_world_failed(w)) {
    if (!drt_any_errors(&w->err)) drt_error(&w->err, "the program stopped after a run-time error");
    return 0;
  }
  if (w->stage == DRT_STAGE_POST_CREATE) {
    if (drt_world_sched_fix(w)) return 0; /* a bad schedule: nothing runs */
    w->stage = DRT_STAGE_RUNNING;
    if (w->prog.global_start) drt_global_block(w, w->prog.global_start);
    if (drt_world_failed(w)) return 0;
  }
  if (!w->prog.update && !(w->prog.update_chunk && w->lay) && w->nactive) {
    drt_error(&w->err, "internal: the strand has no update method");
    return 0;
  }
  /* strand by strand (DrtProgram.strandwise), each strand up to the limit in one
   * pass; not when someone watches the steps: a progress callback (a
   * terminal's progress line, a library's callback, which may stop the run
   * at a step) or -v */
  bool strandwise = w->prog.strandwise && w->prog.update_chunk && w->lay && !w->progress &&
                    !w->verbose && !w->trace && w->sched.run.steps != 1;
  uint32_t steps = 0;
  drt_world_progress_begin(w);
  while (w->nactive > 0 && (max_steps == 0 || steps < max_steps)) {
    /* strand-wise: up to the schedule's updates per visit (-sched-steps)
     * and the step limit; the step count is the same either way (every
     * strand still active after a visit ran all of its updates) */
    uint32_t limit = !strandwise ? 1 : max_steps ? max_steps - steps : UINT32_MAX;
    if (limit > w->sched.run.steps) limit = w->sched.run.steps;
    uint32_t taken = drt_step(w, limit);
    if (!taken) break;
    steps += taken;
    if (w->verbose)
      fprintf(stderr, "step %u: %u active, %u stable\n", (unsigned)w->steps,
              (unsigned)w->nactive, (unsigned)w->nstable);
    if (drt_any_errors(&w->err)) break;
    if (drt_world_progress_step(w, w->steps, w->nactive, w->nstable)) break;
  }
  if (w->nactive == 0) w->stage = DRT_STAGE_DONE;
  drt_world_progress_end(w, w->steps, w->nactive, w->nstable);
  return steps;
}

/* ---- reductions ------------------------------------------------------------------------ */

bool drt_world_in_set(const DrtWorld *w, uint32_t id, DrtSet set) {
  unsigned char s = w->status[id];
  switch (set) {
  case DRT_SET_ALL: return s == DRT_ACTIVE || s == DRT_STABLE;
  case DRT_SET_ACTIVE: return s == DRT_ACTIVE;
  case DRT_SET_STABLE: return s == DRT_STABLE;
  }
  return false;
}

typedef struct DrtRed {
  DrtWorld *w;
  DrtSet set;
  DrtReduce op;
  bool is_float, is_int;
  DrtMapReal mapr;
  DrtMapInt mapi;
  void *env;
  double *pr;    /* partials per chunk */
  int64_t *pi;
  uint32_t *cnt; /* members per chunk */
} DrtRed;

static double drt_red_identity(DrtReduce op) {
  switch (op) {
  case DRT_RED_ALL: return 1;
  case DRT_RED_PRODUCT: return 1;
  case DRT_RED_MIN: return INFINITY;
  case DRT_RED_MAX: return -INFINITY;
  default: return 0;
  }
}

static int64_t drt_red_identity_int(DrtReduce op) {
  switch (op) {
  case DRT_RED_ALL:
  case DRT_RED_PRODUCT: return 1;
  case DRT_RED_MIN: return INT64_MAX;
  case DRT_RED_MAX: return INT64_MIN;
  default: return 0;
  }
}

static double drt_red_combine(const DrtRed *r, double a, double b) {
  double v;
  switch (r->op) {
  case DRT_RED_ALL: return (a != 0 && b != 0) ? 1 : 0;
  case DRT_RED_EXISTS: return (a != 0 || b != 0) ? 1 : 0;
  case DRT_RED_PRODUCT: v = a * b; break;
  case DRT_RED_MIN: return b < a ? b : a;
  case DRT_RED_MAX: return b > a ? b : a;
  default: v = a + b; break;
  }
  return r->is_float ? (double)(float)v : v;
}

static int64_t drt_red_combine_int(DrtReduce op, int64_t a, int64_t b) {
  switch (op) {
  case DRT_RED_ALL: return a && b;
  case DRT_RED_EXISTS: return a || b;
  /* wrap around like C unsigned arithmetic instead of overflowing */
  case DRT_RED_PRODUCT: return (int64_t)((uint64_t)a * (uint64_t)b);
  case DRT_RED_MIN: return b < a ? b : a;
  case DRT_RED_MAX: return b > a ? b : a;
  default: return (int64_t)((uint64_t)a + (uint64_t)b);
  }
}

static void drt_red_chunk(void *arg, uint32_t c) {
  DrtRed *r = arg;
  DrtWorld *w = r->w;
  uint32_t lo, hi;
  drt_world_chunk_range(w, c, &lo, &hi);
  double acc = drt_red_identity(r->op);
  int64_t acci = drt_red_identity_int(r->op);
  uint32_t cnt = 0;
  for (uint32_t i = lo; i < hi; i++) {
    if (!drt_world_in_set(w, i, r->set)) continue;
    const void *s = w->lay ? w->state : w->state + (size_t)i * w->ssz;
    cnt++;
    if (r->is_int) acci = drt_red_combine_int(r->op, acci, r->mapi(r->env, i, s));
    else acc = drt_red_combine(r, acc, r->mapr(r->env, i, s));
  }
  r->pr[c] = acc;
  r->pi[c] = acci;
  r->cnt[c] = cnt;
}

static bool drt_reduce(DrtRed *r, double *res, int64_t *resi) {
  DrtWorld *w = r->w;
  uint32_t nchunks = w->n ? (w->n - 1) / w->sched.run.chunk + 1 : 0;
  size_t k = nchunks ? nchunks : 1;
  r->pr = malloc(k * sizeof *r->pr);
  r->pi = malloc(k * sizeof *r->pi);
  r->cnt = malloc(k * sizeof *r->cnt);
  bool ok = r->pr && r->pi && r->cnt;
  if (ok) {
    if (w->dist) ok = drt_distrib_own(w, nchunks);
  }
  if (ok) {
    drt_for_chunks(w, nchunks, drt_red_chunk, r);
    if (w->dist) drt_distrib_partials(w, nchunks, r->pr, r->pi, r->cnt);
    double acc = drt_red_identity(r->op);
    int64_t acci = drt_red_identity_int(r->op);
    uint64_t cnt = 0;
    for (uint32_t c = 0; c < nchunks; c++) {
      if (!r->cnt[c]) continue;
      cnt += r->cnt[c];
      if (r->is_int) acci = drt_red_combine_int(r->op, acci, r->pi[c]);
      else acc = drt_red_combine(r, acc, r->pr[c]);
    }
    if (r->op == DRT_RED_MEAN) acc = cnt ? acc / (double)cnt : NAN;
    *res = r->is_float ? (double)(float)acc : acc;
    *resi = acci;
  } else {
    drt_error(&w->err, "out of memory in a reduction");
    *res = NAN;
    *resi = 0;
  }
  free(r->pr);
  free(r->pi);
  free(r->cnt);
  return ok;
}

float drt_world_reduce_float(DrtWorld *w, DrtSet set, DrtReduce op, DrtMapReal map, void *env) {
  DrtRed r = {.w = w, .set = set, .op = op, .is_float = true, .mapr = map, .env = env};
  double v;
  int64_t vi;
  drt_reduce(&r, &v, &vi);
  return (float)v;
}

double drt_world_reduce_double(DrtWorld *w, DrtSet set, DrtReduce op, DrtMapReal map,
                               void *env) {
  DrtRed r = {.w = w, .set = set, .op = op, .mapr = map, .env = env};
  double v;
  int64_t vi;
  drt_reduce(&r, &v, &vi);
  return v;
}

int64_t drt_world_reduce_int(DrtWorld *w, DrtSet set, DrtReduce op, DrtMapInt map, void *env) {
  DrtRed r = {.w = w, .set = set, .op = op, .is_int = true, .mapi = map, .env = env};
  double v;
  int64_t vi;
  drt_reduce(&r, &v, &vi);
  return vi;
}

/* ---- outputs ------------------------------------------------------------------------------ */

void drt_world_output_domain(const DrtWorld *w, bool snapshot, DrtDomain *dom) {
  memset(dom, 0, sizeof *dom);
  if (w->grid) {
    dom->naxes = w->naxes;
    dom->sizes = w->sizes;
    dom->count = w->n;
  } else {
    dom->count = snapshot ? w->nactive + w->nstable : w->nstable;
  }
}

bool drt_world_output_includes(const DrtWorld *w, uint32_t id, bool snapshot) {
  if (w->grid) return true;
  unsigned char s = w->status[id];
  return s == DRT_STABLE || (snapshot && s == DRT_ACTIVE);
}

/* ---- super-steps run elsewhere (the CUDA target, rt/cuda) ---------------------------- */

bool drt_world_external_begin(DrtWorld *w, bool *first) {
  *first = false;
  if (w->stage < DRT_STAGE_POST_CREATE) {
    drt_error(&w->err, "attempt to run uninitialized program");
    return true;
  }
  if (w->stage == DRT_STAGE_DONE) return true;
  if (w->stage == DRT_STAGE_POST_CREATE) {
    if (drt_world_sched_fix(w)) return true;
    w->stage = DRT_STAGE_RUNNING;
    *first = true;
  }
  return false;
}

void drt_world_external_get(const DrtWorld *w, uint32_t id, void *packed) {
  if (w->lay) w->lay->get(w->state, w->cap, id, packed);
  else memcpy(packed, w->state + (size_t)id * w->ssz, w->prog.state_size);
}

bool drt_world_external_sync(DrtWorld *w, uint32_t n, const void *packed,
                             const unsigned char *status, const unsigned char *fresh,
                             const uint32_t *ids, uint32_t next_id, uint32_t steps) {
  if (!drt_reserve(w, n, false)) return true;
  const unsigned char *p = packed;
  for (uint32_t i = 0; i < n; i++, p += w->prog.state_size) {
    if (w->lay) {
      w->lay->put(w->state, w->cap, i, p);
    } else {
      memset(w->state + (size_t)i * w->ssz, 0, w->ssz);
      memcpy(w->state + (size_t)i * w->ssz, p, w->prog.state_size);
    }
  }
  if (n) {
    memcpy(w->status, status, n);
    memcpy(w->fresh, fresh, n);
    memcpy(w->ids, ids, (size_t)n * sizeof *ids);
  }
  w->next_id = next_id;
  w->n = n;
  w->nactive = w->nstable = 0;
  for (uint32_t i = 0; i < n; i++) {
    w->nactive += status[i] == DRT_ACTIVE;
    w->nstable += status[i] == DRT_STABLE;
  }
  w->steps += steps;
  if (w->stage == DRT_STAGE_RUNNING && w->nactive == 0) w->stage = DRT_STAGE_DONE;
  return false;
}

uint32_t drt_world_chunk(const DrtWorld *w) { return w->sched.run.chunk; }
