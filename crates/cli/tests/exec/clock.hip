// Device clocks under `lathe exec` (issue 20, decision D21): each
// work-group's first wave spins on clock64() for MS milliseconds of device
// time (clockRate cycles per ms, as HIP programs compute it) and records
// its shader-clock start and end, its real-time (s_memrealtime) ticks and
// its iteration count. The kernel is launched twice, timed with events.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>

struct Rec {
  long long start, end, real, iters;
};

__global__ void spin(long long cycles, Rec *out) {
  long long t0 = clock64();
  long long r0 = __builtin_amdgcn_s_memrealtime();
  long long n = 0;
  while (clock64() - t0 < cycles) n++;
  long long t1 = clock64();
  long long r1 = __builtin_amdgcn_s_memrealtime();
  if (threadIdx.x == 0) out[blockIdx.x] = Rec{t0, t1, r1 - r0, n};
}

int main(int argc, char **argv) {
  int ms = argc > 1 ? atoi(argv[1]) : 2;
  int blocks = argc > 2 ? atoi(argv[2]) : 4;
  hipDeviceProp_t p;
  if (hipGetDeviceProperties(&p, 0) != hipSuccess) return 1;
  Rec *d;
  if (hipMalloc(&d, 2 * blocks * sizeof(Rec)) != hipSuccess) return 1;
  hipEvent_t a, b;
  hipEventCreate(&a);
  hipEventCreate(&b);
  long long cycles = (long long)p.clockRate * ms;
  for (int l = 0; l < 2; l++) {
    hipEventRecord(a);
    spin<<<blocks, 64>>>(cycles, d + l * blocks);
    hipEventRecord(b);
    hipEventSynchronize(b);
    float ev = -1;
    hipEventElapsedTime(&ev, a, b);
    printf("launch %d event_ms %.3f\n", l, ev);
  }
  Rec *h = (Rec *)malloc(2 * blocks * sizeof(Rec));
  hipMemcpy(h, d, 2 * blocks * sizeof(Rec), hipMemcpyDeviceToHost);
  printf("clockRate_khz %d clockInstructionRate_khz %d\n", p.clockRate, p.clockInstructionRate);
  for (int i = 0; i < 2 * blocks; i++)
    printf("rec %d %d start %lld end %lld real %lld iters %lld\n", i / blocks, i % blocks,
           h[i].start, h[i].end, h[i].real, h[i].iters);
  return 0;
}
