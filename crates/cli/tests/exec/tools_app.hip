// A HIP program for `lathe exec --tool` tests: kernels on 1-D, 2-D and
// 3-D grids (the 1-D one is seed 002's `complex_float(char*, int)` on
// 39063 blocks of 256), each checked on the host. Prints one checksum
// line per kernel and exits 0 only if every result is right.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                             \
  do {                                                                       \
    hipError_t e_ = (x);                                                     \
    if (e_ != hipSuccess) {                                                  \
      std::printf("%s failed: %s\n", #x, hipGetErrorString(e_));             \
      std::exit(2);                                                          \
    }                                                                        \
  } while (0)

__global__ void complex_float(char* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = (char)((i ^ (i >> 7)) * 3);
}

__global__ void grid2d(float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float v = (float)x * 0.5f + (float)y;
    if ((x + y) & 1) v = -v;  // divergent
    out[y * w + x] = v;
  }
}

__global__ void grid3d(int* out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) {
    int s = 0;
    for (int k = 0; k <= (x & 3); ++k) s += k * y + z;  // data-dependent trip count
    out[(z * ny + y) * nx + x] = s;
  }
}

int main() {
  int bad = 0;
  // 1-D: 39063 blocks of 256 (10000128 threads), n a bit less.
  const int n = 10000000;
  char* dp;
  CHECK(hipMalloc(&dp, n));
  hipLaunchKernelGGL(complex_float, dim3(39063), dim3(256), 0, 0, dp, n);
  std::vector<char> hp(n);
  CHECK(hipMemcpy(hp.data(), dp, n, hipMemcpyDeviceToHost));
  long sum1 = 0;
  for (int i = 0; i < n; ++i) {
    char want = (char)((i ^ (i >> 7)) * 3);
    if (hp[i] != want) ++bad;
    sum1 += (unsigned char)hp[i];
  }
  std::printf("complex_float: sum %ld\n", sum1);

  // 2-D: 100 x 37 on blocks of 16 x 8 (edges partly outside).
  const int w = 100, h = 37;
  float* df;
  CHECK(hipMalloc(&df, w * h * sizeof(float)));
  hipLaunchKernelGGL(grid2d, dim3((w + 15) / 16, (h + 7) / 8), dim3(16, 8), 0, 0, df, w, h);
  std::vector<float> hf(w * h);
  CHECK(hipMemcpy(hf.data(), df, w * h * sizeof(float), hipMemcpyDeviceToHost));
  double sum2 = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float v = (float)x * 0.5f + (float)y;
      if ((x + y) & 1) v = -v;
      if (hf[y * w + x] != v) ++bad;
      sum2 += hf[y * w + x];
    }
  std::printf("grid2d: sum %.1f\n", sum2);

  // 3-D: 21 x 10 x 7 on blocks of 8 x 4 x 2.
  const int nx = 21, ny = 10, nz = 7;
  int* di;
  CHECK(hipMalloc(&di, nx * ny * nz * sizeof(int)));
  hipLaunchKernelGGL(grid3d, dim3((nx + 7) / 8, (ny + 3) / 4, (nz + 1) / 2), dim3(8, 4, 2), 0, 0,
                     di, nx, ny, nz);
  std::vector<int> hi(nx * ny * nz);
  CHECK(hipMemcpy(hi.data(), di, hi.size() * sizeof(int), hipMemcpyDeviceToHost));
  long sum3 = 0;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        int s = 0;
        for (int k = 0; k <= (x & 3); ++k) s += k * y + z;
        if (hi[(z * ny + y) * nx + x] != s) ++bad;
        sum3 += hi[(z * ny + y) * nx + x];
      }
  std::printf("grid3d: sum %ld\n", sum3);

  CHECK(hipFree(dp));
  CHECK(hipFree(df));
  CHECK(hipFree(di));
  std::printf("%s: %d wrong\n", bad ? "FAILED" : "ok", bad);
  return bad ? 1 : 0;
}
