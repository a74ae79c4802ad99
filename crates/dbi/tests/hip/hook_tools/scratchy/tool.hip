// A hook that calls a noinline device function and uses scratch (a local
// array indexed by a run-time value): crates/dbi/tests/hooks.rs.
#include "lathe_hip_extra.h"

__device__ lathe_u64 total;
__device__ unsigned int calls;

__device__ __attribute__((noinline)) unsigned tool_mix(unsigned x) {
  return x * 2654435761u + 12345u;
}

extern "C" __device__ void scratchy_hook(unsigned int lane, unsigned int site) {
  volatile unsigned a[24];
  for (unsigned k = 0; k < 24; k++) a[k] = lane * 3u + k;
  unsigned v = a[(lane + site) % 24u];
  atomicAdd(&total, (lathe_u64)(v + (tool_mix(lane) & 1u)));
  atomicAdd(&calls, 1u);
}
