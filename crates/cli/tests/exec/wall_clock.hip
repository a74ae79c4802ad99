// wall_clock64() under `lathe exec` (issue 20, decision D21): each
// work-group's first wave spins on wall_clock64() (s_memrealtime) until
// RATE_KHZ x MS ticks have passed, as a program that knows the real-time
// clock's rate computes N ms, and records its wall-clock start and end, the
// shader-clock cycles (clock64()) over the same spin and its iteration
// count. The launch is timed with events on the null stream.
//
// ROCm 5.2's HIP has wall_clock64() but not yet
// hipDeviceAttributeWallClockRate, so the rate comes from the command line.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>

// ROCm 5.2's header defines wall_clock64() for the device pass only; the
// host pass needs a declaration to parse the kernel.
#ifndef __HIP_DEVICE_COMPILE__
__device__ long long int wall_clock64();
#endif

struct Rec {
  long long w0, w1, cycles, iters;
};

__global__ void spin_wall(long long ticks, Rec *out) {
  long long w0 = wall_clock64();
  long long c0 = clock64();
  long long n = 0;
  while (wall_clock64() - w0 < ticks) n++;
  long long w1 = wall_clock64();
  long long c1 = clock64();
  if (threadIdx.x == 0) out[blockIdx.x] = Rec{w0, w1, c1 - c0, n};
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s RATE_KHZ MS BLOCKS\n", argv[0]);
    return 2;
  }
  long long rate_khz = atoll(argv[1]);
  int ms = atoi(argv[2]);
  int blocks = atoi(argv[3]);
  hipDeviceProp_t p;
  if (hipGetDeviceProperties(&p, 0) != hipSuccess) return 1;
  Rec *d;
  if (hipMalloc(&d, blocks * sizeof(Rec)) != hipSuccess) return 1;
  hipEvent_t a, b;
  hipEventCreate(&a);
  hipEventCreate(&b);
  hipEventRecord(a);
  spin_wall<<<blocks, 64>>>(rate_khz * ms, d);
  hipEventRecord(b);
  if (hipEventSynchronize(b) != hipSuccess) return 1;
  float ev = -1;
  hipEventElapsedTime(&ev, a, b);
  Rec *h = (Rec *)malloc(blocks * sizeof(Rec));
  if (hipMemcpy(h, d, blocks * sizeof(Rec), hipMemcpyDeviceToHost) != hipSuccess) return 1;
  printf("clockRate_khz %d\n", p.clockRate);
  printf("event_ms %.3f\n", ev);
  for (int i = 0; i < blocks; i++)
    printf("rec %d w0 %lld w1 %lld cycles %lld iters %lld\n", i, h[i].w0, h[i].w1, h[i].cycles, h[i].iters);
  return 0;
}
