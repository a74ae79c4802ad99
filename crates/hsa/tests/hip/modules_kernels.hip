// Code object for the modules test (built with --genco): kernels that call
// a device function.
#include <hip/hip_runtime.h>

__device__ __attribute__((noinline)) int mix(int a, int b) { return a * 31 + (b ^ 0x55); }

extern "C" __global__ void mix_kernel(int* out, const int* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = mix(in[i], i);
}

extern "C" __global__ void scale_kernel(float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= a;
}
