// Device printf (HIP 5.2 hostcall: device code writes a buffer and signals
// the host through an HSA signal in device memory).
#include "common.h"

__global__ void hello(int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i % 16 == 0) printf("lane %d of %d says %d\n", i, (int)(gridDim.x * blockDim.x), base + i * i);
}

int main() {
  hipLaunchKernelGGL(hello, dim3(2), dim3(64), 0, 0, 7);
  CHECK(hipDeviceSynchronize());
  fflush(stdout);
  return finish("printf");
}
