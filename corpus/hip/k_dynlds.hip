// Verification corpus: dynamic LDS (extern __shared__), alone and after
// static LDS. The grid is exactly n work-items, so the last workgroup is
// partial; `cnt` is the number of work-items in this workgroup.
#include "lathe_hip_extra.h"

extern __shared__ unsigned char lathe_dyn[];

// Reverses each workgroup's chunk in place. Dynamic LDS: blockDim.x * 4 bytes.
__global__ void dyn_reverse_f32(float *data, int n) {
  float *buf = (float *)lathe_dyn;
  int t = threadIdx.x;
  int start = blockIdx.x * blockDim.x;
  int cnt = n - start < (int)blockDim.x ? n - start : (int)blockDim.x;
  int i = start + t;
  buf[t] = data[i];
  __syncthreads();
  data[i] = buf[cnt - 1 - t];
}

// Static s_hdr[8] plus dynamic (blockDim.x + 64) ints; needs cnt >= 64.
// out[i] = dyn[(t + 5) % cnt] + 3 * s_hdr[t % 8] + dyn[blockDim.x + (7t % 64)]
// with dyn[t] = in[i], s_hdr[k] = k*k + blockIdx.x, dyn[blockDim.x + t] =
// in[i] ^ 0x5555 (t < 64).
__global__ void dyn_static_mix(int *out, const int *in, int n) {
  __shared__ int s_hdr[8];
  int *dyn = (int *)lathe_dyn;
  int t = threadIdx.x;
  int start = blockIdx.x * blockDim.x;
  int cnt = n - start < (int)blockDim.x ? n - start : (int)blockDim.x;
  int i = start + t;
  int x = in[i];
  dyn[t] = x;
  if (t < 8) s_hdr[t] = t * t + (int)blockIdx.x;
  if (t < 64) dyn[blockDim.x + t] = x ^ 0x5555;
  __syncthreads();
  out[i] = dyn[(t + 5) % cnt] + 3 * s_hdr[t % 8] + dyn[blockDim.x + (7 * t) % 64];
}
