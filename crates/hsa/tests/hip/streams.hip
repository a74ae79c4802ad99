// Streams with async copies and events: hipEventElapsedTime is positive and
// hipStreamWaitEvent orders a second stream after the first.
#include "common.h"
#include <vector>

__global__ void slow_fill(int* p, int n, int v, int spins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int acc = 0;
    for (int k = 0; k < spins; k++) acc += (k ^ i) & 1;
    p[i] = v + (acc & 0);
  }
}

__global__ void add_from(int* dst, const int* src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] += src[i] * 10;
}

int main() {
  const int n = 1 << 14;
  hipStream_t s1, s2;
  CHECK(hipStreamCreate(&s1));
  CHECK(hipStreamCreate(&s2));
  int *a, *b, *host;
  CHECK(hipMalloc(&a, n * sizeof(int)));
  CHECK(hipMalloc(&b, n * sizeof(int)));
  CHECK(hipHostMalloc(&host, n * sizeof(int)));
  std::vector<int> ones(n, 1);
  CHECK(hipMemcpyAsync(b, ones.data(), n * sizeof(int), hipMemcpyHostToDevice, s2));
  CHECK(hipStreamSynchronize(s2));

  hipEvent_t start, stop, done1;
  CHECK(hipEventCreate(&start));
  CHECK(hipEventCreate(&stop));
  CHECK(hipEventCreate(&done1));
  CHECK(hipEventRecord(start, s1));
  hipLaunchKernelGGL(slow_fill, dim3(n / 256), dim3(256), 0, s1, a, n, 5, 200);
  CHECK(hipEventRecord(done1, s1));
  CHECK(hipEventRecord(stop, s1));
  // Stream 2 must see stream 1's result: b = 1 + 10 * 5 = 51 everywhere.
  CHECK(hipStreamWaitEvent(s2, done1, 0));
  hipLaunchKernelGGL(add_from, dim3(n / 256), dim3(256), 0, s2, b, a, n);
  CHECK(hipMemcpyAsync(host, b, n * sizeof(int), hipMemcpyDeviceToHost, s2));
  CHECK(hipStreamSynchronize(s2));
  for (int i = 0; i < n; i++) EXPECT(host[i] == 51, "b[%d] = %d, want 51", i, host[i]);

  CHECK(hipEventSynchronize(stop));
  float ms = -1;
  CHECK(hipEventElapsedTime(&ms, start, stop));
  EXPECT(ms > 0, "hipEventElapsedTime = %f ms, want > 0", ms);
  printf("elapsed %.3f ms\n", ms);

  CHECK(hipEventDestroy(start)); CHECK(hipEventDestroy(stop)); CHECK(hipEventDestroy(done1));
  CHECK(hipStreamDestroy(s1)); CHECK(hipStreamDestroy(s2));
  CHECK(hipFree(a)); CHECK(hipFree(b)); CHECK(hipHostFree(host));
  return finish("streams");
}
