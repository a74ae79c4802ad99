// Kernels that call device functions defined in rdc_lib.hip (-fgpu-rdc).
#include "lathe_hip.h"

extern __device__ int lib_mix(int a, int b);
extern __device__ float lib_lerp(float a, float b, float t);
extern __device__ int lib_scale;

__global__ void use_lib(int *out, const int *a, const int *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = lib_mix(a[i], b[i]) + lib_scale;
}

__global__ void use_lerp(float *out, const float *a, const float *b, float t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = lib_lerp(a[i], b[i], t);
}
