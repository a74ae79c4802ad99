// A hook before every instruction (also in waves with no active lane):
// counts wave- and thread-instructions one by one, so the counts equal
// the emulator's per-instruction ground truth exactly, and every kind of
// site (SCC, VCC, M0 live, EXEC being written) is exercised
// (crates/dbi/tests/hooks.rs).
#include "lathe_hip_extra.h"

__device__ lathe_u64 waves;
__device__ lathe_u64 lanes;

extern "C" __device__ void every(lathe_u64 exec, unsigned int lane) {
  unsigned int first = exec == 0 ? 0u : (unsigned int)__builtin_ctzll(exec);
  if (lane == first) {
    atomicAdd(&waves, (lathe_u64)1);
    atomicAdd(&lanes, (lathe_u64)__builtin_popcountll(exec));
  }
}
