// v_sin_f32 / v_cos_f32 (the hardware's, input in revolutions: sin(2*pi*x)),
// one lane per input. Built with and without -fgpu-flush-denormals-to-zero
// (the descriptor's f32 denormal mode then flushes inputs and outputs).
#include "lathe_hip.h"

__global__ void sin_cos_rev(float *out, const float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[2 * i + 0] = __builtin_amdgcn_sinf(a[i]);
    out[2 * i + 1] = __builtin_amdgcn_cosf(a[i]);
  }
}
