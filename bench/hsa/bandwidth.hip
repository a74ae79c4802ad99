// hipMemcpy of 256 MiB host->device and device->host, pageable and pinned,
// against the host's memcpy of the same size in the same run; every copy is
// checked with a pattern that changes per repetition. Prints GB/s per
// measurement.
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

// Each repetition writes a new pattern into both host sources before the
// copies (pageable and pinned get different ones), and each destination is
// cleared before its copy: a host->device copy that did nothing leaves the
// previous pattern on the device, and a device->host copy that did nothing
// leaves zeros, so every copy direction is checked on its own.
static void pattern(char* p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) p[i] = (char)(i * 131 + seed * 29 + (i >> 12));
}

int main(int argc, char** argv) {
  size_t bytes = (size_t)(argc > 1 ? atoi(argv[1]) : 256) << 20;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  char* src = (char*)malloc(bytes); char* dst = (char*)malloc(bytes);
  char *psrc, *pdst, *dev;
  if (hipHostMalloc(&psrc, bytes) != hipSuccess || hipHostMalloc(&pdst, bytes) != hipSuccess ||
      hipMalloc(&dev, bytes) != hipSuccess) {
    fprintf(stderr, "allocation failed\n");
    return 2;
  }
  int bad = 0;
  for (int r = 0; r < reps; r++) {
    pattern(src, bytes, 2 * r + 1);
    pattern(psrc, bytes, 2 * r + 2);
    memset(dst, 0, bytes);
    printf("memcpy %.3f\n", gbps(bytes, timed([&] { memcpy(dst, src, bytes); })));
    bad += memcmp(dst, src, bytes) != 0;
    printf("h2d_pageable %.3f\n", gbps(bytes, timed([&] { hipMemcpy(dev, src, bytes, hipMemcpyHostToDevice); })));
    memset(dst, 0, bytes);
    printf("d2h_pageable %.3f\n", gbps(bytes, timed([&] { hipMemcpy(dst, dev, bytes, hipMemcpyDeviceToHost); })));
    bad += memcmp(dst, src, bytes) != 0;
    printf("h2d_pinned %.3f\n", gbps(bytes, timed([&] { hipMemcpy(dev, psrc, bytes, hipMemcpyHostToDevice); })));
    memset(pdst, 0, bytes);
    printf("d2h_pinned %.3f\n", gbps(bytes, timed([&] { hipMemcpy(pdst, dev, bytes, hipMemcpyDeviceToHost); })));
    bad += memcmp(pdst, psrc, bytes) != 0;
  }
  printf("mismatches %d\n", bad);
  return bad ? 1 : 0;
}
