// hipMemcpy of 256 MiB host->device and device->host, pageable and pinned,
// against the host's memcpy of the same size in the same run; every copy is
// checked. Prints GB/s per measurement.
#include <hip/hip_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static double gbps(size_t bytes, double s) { return bytes / s / 1e9; }
template <class F> static double timed(F f) {
  auto t0 = std::chrono::steady_clock::now(); f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char** argv) {
  size_t bytes = (size_t)(argc > 1 ? atoi(argv[1]) : 256) << 20;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  char* src = (char*)malloc(bytes); char* dst = (char*)malloc(bytes);
  for (size_t i = 0; i < bytes; i++) src[i] = (char)(i * 131 + 7);
  memset(dst, 0, bytes);
  char *psrc, *pdst, *dev;
  hipHostMalloc(&psrc, bytes); hipHostMalloc(&pdst, bytes); hipMalloc(&dev, bytes);
  memcpy(psrc, src, bytes); memset(pdst, 0, bytes);
  int bad = 0;
  for (int r = 0; r < reps; r++) {
    printf("memcpy %.3f\n", gbps(bytes, timed([&] { memcpy(dst, src, bytes); })));
    printf("h2d_pageable %.3f\n", gbps(bytes, timed([&] { hipMemcpy(dev, src, bytes, hipMemcpyHostToDevice); })));
    memset(dst, 0, bytes);
    printf("d2h_pageable %.3f\n", gbps(bytes, timed([&] { hipMemcpy(dst, dev, bytes, hipMemcpyDeviceToHost); })));
    bad += memcmp(dst, src, bytes) != 0;
    printf("h2d_pinned %.3f\n", gbps(bytes, timed([&] { hipMemcpy(dev, psrc, bytes, hipMemcpyHostToDevice); })));
    memset(pdst, 0, bytes);
    printf("d2h_pinned %.3f\n", gbps(bytes, timed([&] { hipMemcpy(pdst, dev, bytes, hipMemcpyDeviceToHost); })));
    bad += memcmp(pdst, src, bytes) != 0;
  }
  printf("mismatches %d\n", bad);
  return bad ? 1 : 0;
}
