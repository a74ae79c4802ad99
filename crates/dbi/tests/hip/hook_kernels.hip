// Kernels for crates/dbi/tests/hooks.rs (HIP hooks): 1-D, 2-D and 3-D
// grids with partial work-groups, and a kernel calling a device function.
#include "lathe_hip.h"

extern "C" __global__ void hk_scale(float* out, const float* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.0f + 1.0f;
}

extern "C" __global__ void hk_fill2d(unsigned* out, unsigned nx, unsigned ny) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny) out[y * nx + x] = x * 7u + y * 13u + gridDim.x;
}

extern "C" __global__ void hk_fill3d(unsigned* out, unsigned nx, unsigned ny, unsigned nz) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) out[(z * ny + y) * nx + x] = x * 7u + y * 13u + z * 31u;
}

__device__ __attribute__((noinline)) unsigned hk_mix(unsigned a, unsigned b) {
  unsigned h = a * 2654435761u ^ b;
  for (unsigned k = 0; k < (a & 7u); k++) h = h * 31u + k;
  return h;
}

extern "C" __global__ void hk_calls(unsigned* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = hk_mix(i, n) + hk_mix(n, i);
}
