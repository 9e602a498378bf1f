/* ceil.cu -- the two ceilings of the card for the probe benchmark's floor
 * (METHOD.md: measure them, don't trust the datasheet):
 *   1. memory bandwidth: cudaMemcpy device-to-device and a float4 copy
 *      kernel over 1 GiB, counting bytes read plus bytes written;
 *   2. fp32 rate: a kernel of independent FMA chains (2 FLOP per FMA).
 * Each is the best of 10 timed repetitions (CUDA events) after a warm-up.
 * Build: nvcc -O3 -arch=sm_90 -o ceil ceil.cu. Prints key=value lines. */
#include <cstdio>
#include <cuda_runtime.h>

#define CK(x)                                                                                    \
  do {                                                                                           \
    cudaError_t e_ = (x);                                                                        \
    if (e_ != cudaSuccess) {                                                                     \
      fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                                   \
      return 1;                                                                                  \
    }                                                                                            \
  } while (0)

__global__ void copy4(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    b[i] = a[i];
}

__global__ void fma_chains(float *out, float s, int iters) {
  float a0 = threadIdx.x * 1e-7f, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4,
        a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int k = 0; k < 16; k++) {
      a0 = fmaf(a0, s, 0.5f); a1 = fmaf(a1, s, 0.5f); a2 = fmaf(a2, s, 0.5f);
      a3 = fmaf(a3, s, 0.5f); a4 = fmaf(a4, s, 0.5f); a5 = fmaf(a5, s, 0.5f);
      a6 = fmaf(a6, s, 0.5f); a7 = fmaf(a7, s, 0.5f);
    }
  }
  float r = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  if (r == 12345.f) out[0] = r; /* keeps the chains alive */
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  printf("name=%s\nsms=%d\nl2_bytes=%d\n", p.name, p.multiProcessorCount, p.l2CacheSize);
  size_t bytes = 1ull << 30;
  float *a, *b;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMemset(a, 1, bytes));
  CK(cudaMemset(b, 2, bytes));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  float best = 1e30f, ms;
  for (int r = 0; r < 11; r++) {
    cudaEventRecord(e0);
    CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    cudaEventRecord(e1);
    CK(cudaEventSynchronize(e1));
    cudaEventElapsedTime(&ms, e0, e1);
    if (r && ms < best) best = ms;
  }
  printf("memcpy_d2d_gbs=%.1f\n", 2.0 * bytes / (best * 1e-3) / 1e9);
  best = 1e30f;
  size_t n4 = bytes / sizeof(float4);
  for (int r = 0; r < 11; r++) {
    cudaEventRecord(e0);
    copy4<<<p.multiProcessorCount * 8, 512>>>((const float4 *)a, (float4 *)b, n4);
    cudaEventRecord(e1);
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    cudaEventElapsedTime(&ms, e0, e1);
    if (r && ms < best) best = ms;
  }
  printf("copy_kernel_gbs=%.1f\n", 2.0 * bytes / (best * 1e-3) / 1e9);
  best = 1e30f;
  int iters = 4096, blocks = p.multiProcessorCount * 16, threads = 256;
  for (int r = 0; r < 11; r++) {
    cudaEventRecord(e0);
    fma_chains<<<blocks, threads>>>(a, 0.999f, iters);
    cudaEventRecord(e1);
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    cudaEventElapsedTime(&ms, e0, e1);
    if (r && ms < best) best = ms;
  }
  double flop = 2.0 * 8 * 16 * (double)iters * blocks * threads;
  printf("fp32_fma_tflops=%.2f\n", flop / (best * 1e-3) / 1e12);
  return 0;
}
