// Issue 22, capsule images: a kernel whose code object carries dynamic
// relocations (a table of pointers to device globals and one of device
// function pointers, both in .data), so the loaded code allocation holds
// relocated words that a replay image must reproduce exactly.
#include <hip/hip_runtime.h>
#include <cstdio>

__device__ int first[4] = {1, 2, 3, 4};
// Visible to other code objects: pointers to it are relocated against
// its symbol (R_AMDGPU_ABS64), not the load delta alone.
__attribute__((visibility("default"))) __device__ int second[4] = {10, 20, 30, 40};
__device__ int* tables[2] = {first, second};

__device__ __noinline__ int twice(int x) { return 2 * x; }
__device__ __noinline__ int square(int x) { return x * x; }
typedef int (*op_t)(int);
__device__ op_t ops[2] = {twice, square};

__global__ void pick(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ops[i & 1](tables[(i >> 1) & 1][i & 3]);
}

int main() {
  const int n = 256;
  int* d = nullptr;
  if (hipMalloc(&d, n * sizeof(int)) != hipSuccess) return 1;
  hipLaunchKernelGGL(pick, dim3(n / 64), dim3(64), 0, 0, d, n);
  int h[n];
  if (hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost) != hipSuccess) return 1;
  const int first_h[4] = {1, 2, 3, 4}, second_h[4] = {10, 20, 30, 40};
  for (int i = 0; i < n; i++) {
    int v = ((i >> 1) & 1 ? second_h : first_h)[i & 3];
    int want = (i & 1) ? v * v : 2 * v;
    if (h[i] != want) {
      printf("capture_reloc: out[%d] = %d, want %d\n", i, h[i], want);
      return 1;
    }
  }
  printf("capture_reloc: ok\n");
  return 0;
}
