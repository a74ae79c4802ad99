// Driven by `lathe exec` and `lathe run` in crates/cli/tests/exec_daily.rs:
//   daily spin ITERS LAUNCHES  prints its pid, then per launch "launch L"
//                              before a 4x64 kernel looping ITERS times
//   daily oob                  a kernel whose lane 1 stores 4096 bytes
//                              past the start of a 64-byte allocation
// (reduce_sum is only run by `lathe run`.)
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

__global__ void spin(int* out, int iters) {
  int acc = threadIdx.x;
  for (int i = 0; i < iters; i++) acc = acc * 1664525 + 1013904223;
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void strided_store(int* p, int v) { p[threadIdx.x * 1024] = v; }

// Named in tests by its source spelling, `reduce_sum(const float*, float*, int)`.
__global__ void reduce_sum(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, in[i]);
}

int main(int argc, char** argv) {
  if (argc == 4 && strcmp(argv[1], "spin") == 0) {
    int iters = atoi(argv[2]), launches = atoi(argv[3]);
    printf("daily: pid %d\n", (int)getpid());
    fflush(stdout);
    int* d;
    if (hipMalloc(&d, 256 * sizeof(int)) != hipSuccess) return 2;
    for (int l = 0; l < launches; l++) {
      printf("launch %d\n", l);
      fflush(stdout);
      hipLaunchKernelGGL(spin, dim3(4), dim3(64), 0, 0, d, iters);
      if (hipDeviceSynchronize() != hipSuccess) return 2;
    }
    printf("daily: done\n");
    return 0;
  }
  if (argc == 2 && strcmp(argv[1], "oob") == 0) {
    int* p;
    if (hipMalloc(&p, 64) != hipSuccess) return 2;
    hipLaunchKernelGGL(strided_store, dim3(1), dim3(64), 0, 0, p, 7);
    hipError_t e = hipDeviceSynchronize();
    printf("daily: synchronize returned %s\n", hipGetErrorString(e));
    return 0;
  }
  fprintf(stderr, "usage: daily spin ITERS LAUNCHES | daily oob\n");
  return 3;
}
