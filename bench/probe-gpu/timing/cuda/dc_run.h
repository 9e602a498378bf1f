/* bench/probe-gpu/timing/cuda/dc_run.h -- a timing shim for benchmarks, not
 * part of the runtime. Put this folder first on nvcc's include path
 * (DIDEROT_NVCC="nvcc -I.../bench/probe-gpu/timing"): the generated device
 * half's `#include "cuda/dc_run.h"` then finds this file, which redefines
 * the launch macros so that every launch made by the super-step driver
 * (the step kernel, moves of strands) is timed with CUDA events, wraps the
 * driver's cudaMemcpy/cudaMemset calls (uploads, downloads, start-of-step
 * copies) in wall-clock timers, creates the CUDA context before main (so
 * that `-t` does not include it), and prints the totals to stderr at exit:
 *
 *   dc_timing: kernel NAME launches=N ms=T
 *   dc_timing: copy KIND calls=N bytes=B ms=T
 *
 * Launches made inside rt/cuda/diderot_cuda.h (counting and compaction of
 * the worklist, reductions) are not timed one by one: they are
 * asynchronous, so their time shows up in the next synchronous copy
 * (usually "copy D2H" of the step's totals).
 * Each timed launch is followed by a synchronization: use it for
 * breakdowns, and the plain build for end-to-end times. */
#ifndef DC_TIMING_SHIM_H
#define DC_TIMING_SHIM_H
#ifndef DIDEROT_CUDA_EMULATE
#include <chrono>
#include <stdio.h>
#include <string.h>

struct DctEntry {
  const char *name;
  unsigned long long n, bytes;
  double ms;
};
static DctEntry dct_tab[64];
static int dct_n;
static cudaEvent_t dct_e0, dct_e1;

static DctEntry *dct_find(const char *name) {
  for (int i = 0; i < dct_n; i++)
    if (!strcmp(dct_tab[i].name, name)) return &dct_tab[i];
  if (dct_n == 64) return &dct_tab[63];
  dct_tab[dct_n].name = name;
  return &dct_tab[dct_n++];
}
static void dct_report(void) {
  for (int i = 0; i < dct_n; i++) {
    if (!strncmp(dct_tab[i].name, "copy", 4))
      fprintf(stderr, "dc_timing: %s calls=%llu bytes=%llu ms=%.4f\n", dct_tab[i].name,
              dct_tab[i].n, dct_tab[i].bytes, dct_tab[i].ms);
    else
      fprintf(stderr, "dc_timing: kernel %s launches=%llu ms=%.4f\n", dct_tab[i].name,
              dct_tab[i].n, dct_tab[i].ms);
  }
}
/* the context before main, so that the program's -t leaves it out */
static struct DctInit {
  DctInit() {
    cudaFree(0);
    cudaEventCreate(&dct_e0);
    cudaEventCreate(&dct_e1);
    atexit(dct_report);
  }
} dct_init_;
static void dct_begin(void) { cudaEventRecord(dct_e0); }
static void dct_end(const char *name) {
  cudaEventRecord(dct_e1);
  cudaEventSynchronize(dct_e1);
  float ms = 0;
  cudaEventElapsedTime(&ms, dct_e0, dct_e1);
  DctEntry *e = dct_find(name);
  e->n++;
  e->ms += ms;
}
static double dct_now_ms(void) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}
static cudaError_t dct_memcpy(void *d, const void *s, size_t n, cudaMemcpyKind k) {
  double t0 = dct_now_ms();
  cudaError_t r = cudaMemcpy(d, s, n, k);
  DctEntry *e = dct_find(k == cudaMemcpyHostToDevice   ? "copy H2D"
                         : k == cudaMemcpyDeviceToHost ? "copy D2H"
                                                       : "copy D2D");
  e->n++;
  e->bytes += n;
  e->ms += dct_now_ms() - t0;
  return r;
}
static cudaError_t dct_memset(void *d, int v, size_t n) {
  double t0 = dct_now_ms();
  cudaError_t r = cudaMemset(d, v, n);
  DctEntry *e = dct_find("copy memset");
  e->n++;
  e->bytes += n;
  e->ms += dct_now_ms() - t0;
  return r;
}
#undef DC_LAUNCH
#undef DC_LAUNCH_PHASED
#define DC_LAUNCH(k, grid, block, ...)                                                           \
  do {                                                                                           \
    dct_begin();                                                                                 \
    k<<<(grid), (block)>>>(__VA_ARGS__);                                                         \
    dct_end(#k);                                                                                 \
  } while (0)
#define DC_LAUNCH_PHASED DC_LAUNCH
#define cudaMemcpy dct_memcpy
#define cudaMemset dct_memset
#endif
#endif
#include_next "cuda/dc_run.h"
