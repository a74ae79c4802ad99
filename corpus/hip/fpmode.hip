// Float MODE: f32 arithmetic on denormal inputs and with denormal results.
// Built with and without -fgpu-flush-denormals-to-zero (the kernel
// descriptor then asks for f32 denormals flushed on input and output).
#include "lathe_hip.h"

__global__ void denorm_ops(float *out, const float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = a[i], y = b[i];
    out[5 * i + 0] = x * y;
    out[5 * i + 1] = x + y;
    out[5 * i + 2] = __builtin_fmaf(x, y, x);
    out[5 * i + 3] = x < y ? 1.0f : 0.0f;
    out[5 * i + 4] = x - y;
  }
}

// Sets MODE.FP_ROUND for f32 to round-toward-zero (hwreg(HW_REG_MODE, 0,
// 2) = 3) before an add: a rounding mode the emulator does not model.
__global__ void round_toward_zero(float *out, const float *a, int n) {
  __builtin_amdgcn_s_setreg(0x801, 3);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 1.0f;
}
