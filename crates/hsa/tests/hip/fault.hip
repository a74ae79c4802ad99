// A kernel that writes through a wild pointer: the run must report the
// fault (kernel and instruction) and the process must not exit 0.
#include "common.h"

__global__ void wild_store(int* p, int v) {
  p[threadIdx.x * 1024] = v;
}

int main() {
  int* bogus = reinterpret_cast<int*>(0x10000);
  hipLaunchKernelGGL(wild_store, dim3(1), dim3(64), 0, 0, bogus, 42);
  hipError_t e = hipDeviceSynchronize();
  printf("fault: synchronize returned %s\n", hipGetErrorString(e));
  return 0;
}
