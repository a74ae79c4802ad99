// Verification corpus: f64 arithmetic (fma, correctly rounded division and
// square root, conversions) and packed f16 (v_pk_* on half2).
// Contraction is off: every a*b+c that is not written as an fma rounds twice.
#include "lathe_hip_extra.h"

#pragma clang fp contract(off)

// Eight results per element, see below. b is never 0; |a * 1e6| < 2^62.
__global__ void f64_ops(double *out, const double *a, const double *b, const double *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double x = a[i], y = b[i], z = c[i];
    double *o = out + 8 * i;
    o[0] = __builtin_fma(x, y, z);
    o[1] = x / y;
    o[2] = __builtin_sqrt(__builtin_fabs(x));
    // Horner with fma, highest coefficient first.
    double r = 1.0 / 720.0;
    r = __builtin_fma(r, x, -1.0 / 120.0);
    r = __builtin_fma(r, x, 1.0 / 24.0);
    r = __builtin_fma(r, x, -1.0 / 6.0);
    r = __builtin_fma(r, x, 0.5);
    r = __builtin_fma(r, x, -1.0);
    o[3] = r;
    o[4] = x * y + z;
    o[5] = __builtin_floor(x);
    o[6] = (double)(lathe_i64)(x * 1e6);
    o[7] = (double)(float)x;
  }
}

// Per half2 element: out[3i] = fma(a, b, c); out[3i+1] = a * b + c (two
// roundings); out[3i+2] = max(a, b) - c. All lane-wise in f16.
__global__ void f16x2_ops(half2_t *out, const half2_t *a, const half2_t *b, const half2_t *c,
                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    half2_t x = a[i], y = b[i], z = c[i];
    out[3 * i] = __builtin_elementwise_fma(x, y, z);
    out[3 * i + 1] = x * y + z;
    out[3 * i + 2] = __builtin_elementwise_max(x, y) - z;
  }
}

// f32 -> f16 (round to nearest even, subnormals, overflow to inf):
// outh[i] = bits of h; outf[i] = (float)(h * h) with the product in f16.
__global__ void f16_convert(float *outf, unsigned short *outh, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    _Float16 h = (_Float16)in[i];
    outh[i] = __builtin_bit_cast(unsigned short, h);
    _Float16 hh = h * h;
    outf[i] = (float)hh;
  }
}
