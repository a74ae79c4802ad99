// A hook before every global load with the lane's address: counts the
// loads and sums the addresses (crates/dbi/tests/hooks.rs).
#include "lathe_hip_extra.h"

__device__ lathe_u64 loads;
__device__ lathe_u64 address_sum;
__device__ lathe_u64 last_pc;

extern "C" __device__ void on_load(lathe_u64 pc, lathe_u64 addr) {
  atomicAdd(&loads, (lathe_u64)1);
  atomicAdd(&address_sum, addr);
  last_pc = pc;
}
