// Launches an empty kernel argv[1] times (default 25) and nothing else.
#include "common.h"

__global__ void empty_kernel() {}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 25;
  for (int i = 0; i < n; i++) hipLaunchKernelGGL(empty_kernel, dim3(1), dim3(64), 0, 0);
  CHECK(hipDeviceSynchronize());
  printf("launched %d\n", n);
  return finish("launches");
}
