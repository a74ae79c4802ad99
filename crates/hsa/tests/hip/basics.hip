// Basics: hipMalloc / hipMemcpy / hipMemset and a kernel, checked on the host.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cstring>

#define CHECK(x) do { hipError_t e = (x); if (e != hipSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, hipGetErrorString(e)); exit(2); } } while (0)

__global__ void axpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  // The modelled GPU as HIP sees it (an MI210).
  hipDeviceProp_t prop;
  CHECK(hipGetDeviceProperties(&prop, 0));
  printf("device: %s, %s, %d CUs, wave %d, %d KiB LDS, %d MHz, %zu GiB\n", prop.name, prop.gcnArchName,
         prop.multiProcessorCount, prop.warpSize, (int)(prop.sharedMemPerBlock / 1024), prop.clockRate / 1000,
         prop.totalGlobalMem >> 30);
  int bad = 0;
  if (strncmp(prop.gcnArchName, "gfx90a:sramecc+:xnack-", 22) != 0 || prop.multiProcessorCount != 104 ||
      prop.warpSize != 64 || prop.sharedMemPerBlock != 65536 || prop.clockRate != 1700000 ||
      prop.totalGlobalMem != (64ull << 30) || prop.maxThreadsPerBlock != 1024) {
    fprintf(stderr, "unexpected device properties\n");
    bad++;
  }
  const int n = 10000;
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; i++) { x[i] = i * 0.5f; y[i] = 1000.0f - i; }
  float *dx, *dy;
  CHECK(hipMalloc(&dx, n * sizeof(float)));
  CHECK(hipMalloc(&dy, n * sizeof(float)));
  CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(axpy, dim3((n + 255) / 256), dim3(256), 0, 0, dy, dx, 2.0f, n);
  CHECK(hipGetLastError());
  CHECK(hipMemcpy(out.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    float want = 2.0f * x[i] + y[i];
    if (out[i] != want) { if (bad++ < 5) fprintf(stderr, "y[%d] = %f, want %f\n", i, out[i], want); }
  }
  // hipMemset then read back.
  CHECK(hipMemset(dy, 0x3c, n * sizeof(float)));
  CHECK(hipMemcpy(out.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    unsigned u; memcpy(&u, &out[i], 4);
    if (u != 0x3c3c3c3cu) { if (bad++ < 10) fprintf(stderr, "memset [%d] = %08x\n", i, u); }
  }
  CHECK(hipFree(dx));
  CHECK(hipFree(dy));
  if (bad) { fprintf(stderr, "basics: %d mismatches\n", bad); return 1; }
  printf("basics: ok\n");
  return 0;
}
