// Verification corpus: device math library (ocml) through the real HIP
// headers. Built with Debian's hipcc (ROCm 5.2, clang-15) for gfx90a only:
//   hipcc --offload-arch=gfx90a --cuda-device-only --no-gpu-bundle-output -c -O3
// (-c keeps hipcc from adding host link flags.)
#include <hip/hip_runtime.h>

// Nine results per element for x = in[i] (|x| <= 20).
__global__ void math_f32(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = in[i];
    float *o = out + 9 * i;
    o[0] = sinf(x);
    o[1] = cosf(x);
    o[2] = expf(x * 0.25f);
    o[3] = logf(fabsf(x) + 0.5f);
    o[4] = powf(fabsf(x) + 0.5f, 1.7f);
    o[5] = tanhf(x * 0.2f);
    o[6] = erff(x * 0.1f);
    o[7] = atan2f(x, 1.3f);
    o[8] = sqrtf(fabsf(x));
  }
}

// Five results per element for x = in[i] (|x| <= 20).
__global__ void math_f64(double *out, const double *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double x = in[i];
    double *o = out + 5 * i;
    o[0] = sin(x);
    o[1] = exp(x * 0.25);
    o[2] = log(fabs(x) + 0.5);
    o[3] = pow(fabs(x) + 0.5, 1.7);
    o[4] = cbrt(x);
  }
}
