// Four host threads launch kernels at once, each on its own stream, and
// check their own results.
#include "common.h"
#include <thread>
#include <vector>
#include <atomic>

__global__ void affine(int* out, int a, int b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * i + b;
}

int main() {
  const int n = 1 << 13;
  std::atomic<int> bad{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; t++) {
    ts.emplace_back([t, n, &bad] {
      hipStream_t s;
      CHECK(hipStreamCreate(&s));
      int* d;
      CHECK(hipMalloc(&d, n * sizeof(int)));
      std::vector<int> h(n);
      for (int rep = 0; rep < 5; rep++) {
        hipLaunchKernelGGL(affine, dim3(n / 128), dim3(128), 0, s, d, t + 2, rep * 1000 + t, n);
        CHECK(hipMemcpyAsync(h.data(), d, n * sizeof(int), hipMemcpyDeviceToHost, s));
        CHECK(hipStreamSynchronize(s));
        for (int i = 0; i < n; i++)
          if (h[i] != (t + 2) * i + rep * 1000 + t) { bad++; break; }
      }
      CHECK(hipFree(d));
      CHECK(hipStreamDestroy(s));
    });
  }
  for (auto& th : ts) th.join();
  EXPECT(bad == 0, "%d thread/repetition results wrong", bad.load());
  return finish("threads");
}
