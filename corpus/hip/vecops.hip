// Element-wise kernels, a non-inlined device function, and every kind of
// device variable (__device__, __constant__, __managed__).
#include "lathe_hip.h"

__constant__ float coeffs[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__device__ int hits;
__managed__ int managed_total;

__device__ __noinline__ float poly(float x) {
  return ((coeffs[3] * x + coeffs[2]) * x + coeffs[1]) * x + coeffs[0];
}

__global__ void axpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void eval_poly(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = poly(in[i]);
    __hip_atomic_fetch_add(&hits, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  }
}

__global__ void count_managed(const int *flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && flags[i])
    __hip_atomic_fetch_add(&managed_total, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
