// Driven by `lathe exec` in crates/cli/tests/exec.rs:
//   app N L STATUS        scale a vector of N floats L times (128-wide
//                         blocks), then once over 2N, then a 2-D iota;
//                         checks every result on the host and exits with
//                         STATUS when all match (1 when one does not)
//   app fault             a kernel stores through a wild pointer
#include <hip/hip_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x) do { hipError_t e_ = (x); if (e_ != hipSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, hipGetErrorString(e_)); exit(2); } } while (0)

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

__global__ void iota2d(int* y, int width) {
  int cx = blockIdx.x * blockDim.x + threadIdx.x;
  int cy = blockIdx.y * blockDim.y + threadIdx.y;
  y[cy * width + cx] = cy * 1000 + cx;
}

__global__ void wild_store(int* p, int v) { p[threadIdx.x * 1024] = v; }

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "fault") == 0) {
    hipLaunchKernelGGL(wild_store, dim3(1), dim3(64), 0, 0, reinterpret_cast<int*>(0x10000), 7);
    hipError_t e = hipDeviceSynchronize();
    printf("app: synchronize returned %s\n", hipGetErrorString(e));
    return 0;
  }
  if (argc != 4) {
    fprintf(stderr, "usage: app N L STATUS | app fault\n");
    return 3;
  }
  int n = atoi(argv[1]), launches = atoi(argv[2]), status = atoi(argv[3]);
  int bad = 0;

  std::vector<float> h(2 * n);
  for (int i = 0; i < 2 * n; i++) h[i] = float(i % 97) + 0.5f;
  float* d;
  CHECK(hipMalloc(&d, 2 * n * sizeof(float)));
  CHECK(hipMemcpy(d, h.data(), 2 * n * sizeof(float), hipMemcpyHostToDevice));
  for (int l = 0; l < launches; l++)
    hipLaunchKernelGGL(scale, dim3((n + 127) / 128), dim3(128), 0, 0, d, 2.0f, n);
  hipLaunchKernelGGL(scale, dim3((2 * n + 127) / 128), dim3(128), 0, 0, d, 0.5f, 2 * n);
  std::vector<float> out(2 * n);
  CHECK(hipMemcpy(out.data(), d, 2 * n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < 2 * n; i++) {
    float want = h[i] * 0.5f;
    if (i < n) want = ldexpf(want, launches);
    if (out[i] != want && bad++ < 10) fprintf(stderr, "scale: [%d] = %g, want %g\n", i, out[i], want);
  }

  const int w = 64, rows = 8;
  int* y;
  CHECK(hipMalloc(&y, w * rows * sizeof(int)));
  hipLaunchKernelGGL(iota2d, dim3(w / 16, rows / 4), dim3(16, 4), 0, 0, y, w);
  std::vector<int> hy(w * rows);
  CHECK(hipMemcpy(hy.data(), y, w * rows * sizeof(int), hipMemcpyDeviceToHost));
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < w; c++)
      if (hy[r * w + c] != r * 1000 + c && bad++ < 10)
        fprintf(stderr, "iota2d: [%d][%d] = %d\n", r, c, hy[r * w + c]);

  CHECK(hipFree(d));
  CHECK(hipFree(y));
  if (bad) {
    fprintf(stderr, "app: %d mismatches\n", bad);
    return 1;
  }
  printf("app: ok, %d launches of scale over %d\n", launches, n);
  return status;
}
