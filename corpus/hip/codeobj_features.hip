// Kernels that exercise kernel-descriptor and metadata fields for the
// lathe-codeobj tests: launch bounds, 3-D work-item and work-group IDs,
// dispatch and queue pointers, scratch (private segment) use,
// large static LDS, a dynamic stack, AGPRs on gfx90a/gfx942, and a device
// function reachable only through a local symbol.
#include "lathe_hip.h"

struct Pair {
  int a;
  float b;
};

static __device__ __noinline__ int local_helper(int x) { return x * 7 + 1; }

__global__ void __attribute__((amdgpu_flat_work_group_size(1, 128))) bounded(int *out, Pair p) {
  out[threadIdx.x] = local_helper(p.a) + (int)p.b;
}

__global__ void ids3d(unsigned *out) {
  unsigned t = threadIdx.x + 4 * (threadIdx.y + 4 * threadIdx.z);
  out[t] = blockIdx.x + 100 * blockIdx.y + 10000 * blockIdx.z;
}

__global__ void dispatch_info(unsigned long *out) {
  const unsigned *d = (const unsigned *)__builtin_amdgcn_dispatch_ptr();
  const unsigned *q = (const unsigned *)__builtin_amdgcn_queue_ptr();
  out[0] = d[1];
  out[1] = q[0];
}

__global__ void scratch_array(int *out, int k) {
  int buf[64];
  for (int i = 0; i < 64; ++i) buf[i] = i * k;
  out[threadIdx.x] = buf[(threadIdx.x * 13 + k) & 63];
}

__global__ void big_lds(float *out) {
  __shared__ float tile[8192];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = tile[8191 - threadIdx.x];
}

__device__ __noinline__ int depth(int n) {
  volatile int pad[4];
  pad[n & 3] = n;
  return n <= 0 ? pad[0] : depth(n - 1) + pad[n & 3];
}

__global__ void dyn_stack(int *out) { out[threadIdx.x] = depth(threadIdx.x); }

__global__ void uses_agprs(float *out) {
#if defined(__gfx90a__) || defined(__gfx942__)
  float v = out[threadIdx.x];
  asm volatile("v_accvgpr_write_b32 a3, %0" ::"v"(v) : "a3");
  asm volatile("v_accvgpr_read_b32 %0, a3" : "=v"(v));
  out[threadIdx.x] = v;
#else
  out[threadIdx.x] = 0.0f;
#endif
}
