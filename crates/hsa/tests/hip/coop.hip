// Cooperative groups with a grid-wide sync. Lathe's emulator runs the
// work-groups of a dispatch in turn on its host threads, so a grid barrier
// would wait forever for work-groups that have not started: the runtime
// reports no cooperative queues, and HIP must then answer the cooperative
// launch attribute with 0 and refuse hipLaunchCooperativeKernel with an
// error instead of hanging.
#include "common.h"
#include <hip/hip_cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void rotate_after_grid_sync(int* a, int* out, int n) {
  cg::grid_group g = cg::this_grid();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = 3 * i;
  g.sync();
  out[i] = a[(i + 1) % n];
}

int main() {
  int attr = -1;
  CHECK(hipDeviceGetAttribute(&attr, hipDeviceAttributeCooperativeLaunch, 0));
  printf("coop: cooperative launch attribute %d\n", attr);
  const int blocks = 16, threads = 64, n = blocks * threads;
  int *a, *out;
  CHECK(hipMalloc(&a, n * sizeof(int)));
  CHECK(hipMalloc(&out, n * sizeof(int)));
  int nn = n;
  void* args[] = {&a, &out, &nn};
  hipError_t e = hipLaunchCooperativeKernel(reinterpret_cast<void*>(rotate_after_grid_sync),
                                            dim3(blocks), dim3(threads), args, 0, 0);
  printf("coop: launch returned %s\n", hipGetErrorName(e));
  if (e == hipSuccess) {
    CHECK(hipDeviceSynchronize());
    int h[n];
    CHECK(hipMemcpy(h, out, sizeof h, hipMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(h[i] == 3 * ((i + 1) % n), "out[%d] = %d", i, h[i]);
  }
  EXPECT(attr == 0, "the device claims cooperative launch");
  EXPECT(e != hipSuccess, "a cooperative launch was accepted");
  (void)hipGetLastError();
  CHECK(hipFree(a));
  CHECK(hipFree(out));
  return finish("coop");
}
