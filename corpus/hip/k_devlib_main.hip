// Verification corpus: kernels calling the library in k_devlib_lib.hip
// (built separately with -fgpu-rdc; the symbols below are undefined here).
#include "lathe_hip_extra.h"

extern __device__ unsigned devlib_hash(unsigned x);
extern __device__ float devlib_horner(const float *c, int deg, float x);
extern __device__ int devlib_gcd(int a, int b);
extern __device__ unsigned devlib_table[16];
extern __device__ unsigned devlib_calls;

// Polynomial coefficients c0..c5 (lowest first), owned by this object.
__constant__ float devmain_coeffs[6] = {0.5f, -1.25f, 0.75f, 2.0f, -0.125f, 0.0625f};

// out[i] = devlib_hash(in[i]) + devlib_table[i & 15].
__global__ void devlib_hash_kernel(unsigned *out, const unsigned *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = devlib_hash(in[i]) + devlib_table[i & 15];
}

__global__ void devlib_poly_kernel(float *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = devlib_horner(devmain_coeffs, 5, x[i]);
}

__global__ void devlib_gcd_kernel(int *out, const int *a, const int *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = devlib_gcd(a[i], b[i]);
}
