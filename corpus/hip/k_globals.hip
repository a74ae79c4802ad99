// Verification corpus: __device__, __constant__ and __managed__ variables.
// The harness reads kg_results, kg_counter and kg_managed back after the run.
// kg_managed is managed: device code sees the symbol `kg_managed` as an
// 8-byte pointer the loader must point at the storage (initial value in
// `kg_managed.managed`).
#include "lathe_hip_extra.h"

#pragma clang fp contract(off)

__constant__ int kg_table[32] = {3,  1,  4,  1,  5,  9,  2,  6,  5,  3,  5,  8,  9,  7,  9,  3,
                                 2,  3,  8,  4,  6,  2,  6,  4,  3,  3,  8,  3,  2,  7,  9,  5};
__device__ int kg_scale = 7;
__device__ int kg_results[64];
__device__ unsigned kg_counter;
__managed__ int kg_managed = 100;

struct KgParams {
  float a;
  int b;
  double c;
};
__constant__ KgParams kg_params = {1.5f, -3, 0.25};
__device__ float kg_last[4] = {-1.0f, -1.0f, -1.0f, -1.0f};

// out[i] = kg_table[i % 32] * kg_scale + i; kg_results[i] = out[i] * 2 for
// i < 64; kg_counter += 1 and kg_managed += i % 3 for every i < n.
__global__ void globals_kernel(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = kg_table[i % 32] * kg_scale + i;
    out[i] = v;
    if (i < 64) kg_results[i] = v * 2;
    atomicAdd(&kg_counter, 1u);
    atomicAdd(&kg_managed, i % 3);
  }
}

// out[i] = (double)(a * i + b) * c with a, b, c from a __constant__ struct
// (float mul, float add, convert, double mul); kg_last[k] = out of the last
// element (i = n - 1) for k = 0..3 written by that work-item.
__global__ void globals_struct(double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float f = kg_params.a * (float)i + (float)kg_params.b;
    double d = (double)f * kg_params.c;
    out[i] = d;
    if (i == n - 1)
      for (int k = 0; k < 4; ++k) kg_last[k] = f + (float)k;
  }
}
