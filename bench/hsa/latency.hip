// Launch latency, two patterns, each N times after a warm-up, for each of R
// batches (microseconds per launch + wait):
// * `null`: an empty kernel on the null stream, waited for with
//   hipDeviceSynchronize;
// * `stream`: a counting kernel on a created stream, waited for with
//   hipStreamSynchronize. The count is checked at the end.
#include <hip/hip_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void empty() {}
__global__ void tick(unsigned* c) { if (threadIdx.x == 0) *c += 1; }

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10000, batches = argc > 2 ? atoi(argv[2]) : 5;
  unsigned* c;
  if (hipMalloc(&c, 4) != hipSuccess || hipMemset(c, 0, 4) != hipSuccess) {
    fprintf(stderr, "hipMalloc/hipMemset failed\n");
    return 2;
  }
  hipStream_t s; hipStreamCreate(&s);
  for (int i = 0; i < 100; i++) {
    hipLaunchKernelGGL(empty, dim3(1), dim3(64), 0, 0); hipDeviceSynchronize();
    hipLaunchKernelGGL(tick, dim3(1), dim3(64), 0, s, c); hipStreamSynchronize(s);
  }
  for (int b = 0; b < batches; b++) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; i++) { hipLaunchKernelGGL(empty, dim3(1), dim3(64), 0, 0); hipDeviceSynchronize(); }
    auto t1 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; i++) { hipLaunchKernelGGL(tick, dim3(1), dim3(64), 0, s, c); hipStreamSynchronize(s); }
    auto t2 = std::chrono::steady_clock::now();
    printf("latency_null_us %.3f\n", std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
    printf("latency_stream_us %.3f\n", std::chrono::duration<double, std::micro>(t2 - t1).count() / n);
  }
  if (hipGetLastError() != hipSuccess) {
    fprintf(stderr, "a launch failed\n");
    return 2;
  }
  unsigned h = 0; hipMemcpy(&h, c, 4, hipMemcpyDeviceToHost);
  unsigned want = 100 + (unsigned)n * batches;
  printf("count %u want %u\n", h, want);
  return h == want ? 0 : 1;
}
