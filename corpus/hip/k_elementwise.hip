// Verification corpus: element-wise integer and float kernels.
// Float expressions are written so that every rounding step is explicit:
// floating-point contraction is off, fused operations use __builtin_fmaf.
#include "lathe_hip_extra.h"

#pragma clang fp contract(off)

__global__ void vadd_i32(int *c, const int *a, const int *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = (int)((unsigned)a[i] + (unsigned)b[i]);
}

// y = fma(a, x, y), one rounding.
__global__ void saxpy(float *y, float a, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __builtin_fmaf(a, x[i], y[i]);
}

__global__ void clamp_f32(float *out, const float *in, float lo, float hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __builtin_fminf(__builtin_fmaxf(in[i], lo), hi);
}

// out = mask odd ? a - b : max(a, b)
__global__ void select_i32(int *out, const int *a, const int *b, const int *mask, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = a[i], y = b[i];
    out[i] = (mask[i] & 1) ? (int)((unsigned)x - (unsigned)y) : (x > y ? x : y);
  }
}

// Four results per element: popcount, clz(x|1), bit reverse, mulhi ^ rotl.
__global__ void bitops_u32(unsigned *out, const unsigned *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned x = in[i];
    out[4 * i + 0] = __builtin_popcount(x);
    out[4 * i + 1] = __builtin_clz(x | 1u);
    out[4 * i + 2] = __builtin_bitreverse32(x);
    unsigned hi = (unsigned)(((lathe_u64)x * 0x9E3779B9ull) >> 32);
    out[4 * i + 3] = hi ^ ((x << 7) | (x >> 25));
  }
}

// out = ((a * b) + (c * c)) - a, every operation rounded separately.
__global__ void mad_mix_f32(float *out, const float *a, const float *b, const float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float ab = a[i] * b[i];
    float cc = c[i] * c[i];
    out[i] = (ab + cc) - a[i];
  }
}

// Conversions: oi[2i] = (int)f (truncate), oi[2i+1] = (int)rint(f) (ties to
// even); of[2i] = (float)k (round to nearest even), of[2i+1] = (float)(unsigned)k.
__global__ void convert_mix(int *oi, float *of, const float *fin, const int *iin, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float f = fin[i];
    int k = iin[i];
    oi[2 * i] = (int)f;
    oi[2 * i + 1] = (int)__builtin_rintf(f);
    of[2 * i] = (float)k;
    of[2 * i + 1] = (float)(unsigned)k;
  }
}
