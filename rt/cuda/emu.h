/* emu.h -- CPU emulation of the part of CUDA that diderotc's generated
 * kernels and rt/cuda use, so that the same .cu text compiles as ordinary
 * C++ and runs on a machine without a GPU (`diderotc --target=cuda
 * --cuda-emulate`, or DIDEROT_CUDA_EMULATE=1).
 *
 * Execution model: sequential. A launch DC_LAUNCH(k, grid, block, args)
 * runs every (block, thread) in order, setting the thread-local
 * blockIdx/threadIdx/blockDim/gridDim before each call, so index
 * arithmetic derived from them is exercised exactly as on the device.
 * Kernels that cooperate inside a block (shared memory + __syncthreads)
 * are written in phases (DC_FOR_THREADS ... DC_SYNC ...) and launched with
 * DC_LAUNCH_PHASED: the emulator then calls the kernel once per block and
 * each phase loops over the block's threads, which gives exactly the
 * barrier semantics. Atomics are plain read-modify-writes (there is no
 * concurrency). Device memory is host memory; cudaMemcpy is memcpy.
 *
 * Only what is used is provided; a kernel that needs more fails to compile
 * in emulation rather than running with different semantics.
 */
#ifndef DIDEROT_CUDA_EMU_H
#define DIDEROT_CUDA_EMU_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
typedef dim3 uint3;

/* The coordinates of the emulated thread (one copy per host thread). */
static thread_local dim3 threadIdx(0, 0, 0), blockIdx(0, 0, 0), blockDim(1, 1, 1), gridDim(1, 1, 1);

static inline void __syncthreads(void) {}
static inline unsigned atomicAdd(unsigned *p, unsigned v) {
  unsigned old = *p;
  *p = old + v;
  return old;
}
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  unsigned long long old = *p;
  *p = old + v;
  return old;
}
static inline int atomicAdd(int *p, int v) {
  int old = *p;
  *p = old + v;
  return old;
}

/* ---- the runtime API subset ---- */
typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind {
  cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice
};

static inline cudaError_t cudaMalloc(void **p, size_t n) {
  *p = malloc(n ? n : 1);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
/* (host memory: the caller reports the process's limits instead) */
static inline cudaError_t cudaMemGetInfo(size_t *fr, size_t *total) {
  *fr = *total = 0;
  return cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaFree(void *p) {
  free(p);
  return cudaSuccess;
}
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k) {
  (void)k;
  if (n) memmove(d, s, n);
  return cudaSuccess;
}
static inline cudaError_t cudaMemset(void *d, int v, size_t n) {
  if (n) memset(d, v, n);
  return cudaSuccess;
}
static inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }
static inline const char *cudaGetErrorString(cudaError_t e) {
  return e == cudaSuccess ? "no error" : "out of memory";
}

/* Launch k over grid x block, one emulated thread after the other. */
#define DC_LAUNCH(k, grid, block, ...)                                              \
  do {                                                                              \
    gridDim = dim3(grid);                                                           \
    blockDim = dim3(block);                                                         \
    for (blockIdx.z = 0; blockIdx.z < gridDim.z; blockIdx.z++)                      \
      for (blockIdx.y = 0; blockIdx.y < gridDim.y; blockIdx.y++)                    \
        for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++)                  \
          for (threadIdx.z = 0; threadIdx.z < blockDim.z; threadIdx.z++)            \
            for (threadIdx.y = 0; threadIdx.y < blockDim.y; threadIdx.y++)          \
              for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++)        \
                k(__VA_ARGS__);                                                     \
  } while (0)

/* A phased kernel (1-D blocks): called once per block; DC_FOR_THREADS
 * loops over the block's threads. */
#define DC_LAUNCH_PHASED(k, grid, block, ...)                                       \
  do {                                                                              \
    gridDim = dim3(grid);                                                           \
    blockDim = dim3(block);                                                         \
    threadIdx = dim3(0, 0, 0);                                                      \
    for (blockIdx = dim3(0, 0, 0); blockIdx.x < gridDim.x; blockIdx.x++) k(__VA_ARGS__); \
  } while (0)
#define DC_FOR_THREADS(t) for (unsigned t = 0; t < blockDim.x; t++)
#define DC_SYNC() ((void)0)
/* Block-shared arrays: one static array (blocks run one at a time). */
#define DC_SHARED static

#endif
