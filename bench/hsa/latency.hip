// Launch latency: an (almost) empty kernel launched with hipLaunchKernelGGL
// and waited for with hipStreamSynchronize, N times after a warm-up. The
// kernel counts its runs so the result is checked. Prints microseconds per
// launch for each of R batches.
#include <hip/hip_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void tick(unsigned* c) { if (threadIdx.x == 0) *c += 1; }

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10000, batches = argc > 2 ? atoi(argv[2]) : 5;
  unsigned* c; hipMalloc(&c, 4); hipMemset(c, 0, 4);
  hipStream_t s; hipStreamCreate(&s);
  for (int i = 0; i < 100; i++) { hipLaunchKernelGGL(tick, dim3(1), dim3(64), 0, s, c); hipStreamSynchronize(s); }
  for (int b = 0; b < batches; b++) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; i++) { hipLaunchKernelGGL(tick, dim3(1), dim3(64), 0, s, c); hipStreamSynchronize(s); }
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
    printf("latency_us %.3f\n", us);
  }
  unsigned h = 0; hipMemcpy(&h, c, 4, hipMemcpyDeviceToHost);
  unsigned want = 100 + (unsigned)n * batches;
  printf("count %u want %u\n", h, want);
  return h == want ? 0 : 1;
}
