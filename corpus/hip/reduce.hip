// LDS tiling with barriers, dynamic shared memory, and a recursive device
// function that needs scratch.
#include "lathe_hip.h"

__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float tile[256];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + t;
  tile[t] = i < (unsigned)n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) tile[t] += tile[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = tile[0];
}

extern __shared__ int dyn_lds[];

__global__ void reverse_dynamic(int *data, int n) {
  unsigned t = threadIdx.x;
  if (t < (unsigned)n) dyn_lds[t] = data[t];
  __syncthreads();
  if (t < (unsigned)n) data[t] = dyn_lds[n - 1 - t];
}

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__global__ void fib_kernel(int *out) { out[threadIdx.x] = fib(threadIdx.x % 12); }
