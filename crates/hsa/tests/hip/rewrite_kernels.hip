// Code object for the code-rewrite test (built with --cuda-device-only):
// two kernels whose code differs only in the value they store, so one's
// code can be copied over the other's.
#include <hip/hip_runtime.h>

extern "C" __global__ void put_a(unsigned* o) {
  if (threadIdx.x == 0) o[blockIdx.x] = 0x1234567u;
}

extern "C" __global__ void put_b(unsigned* o) {
  if (threadIdx.x == 0) o[blockIdx.x] = 0x7654321u;
}
