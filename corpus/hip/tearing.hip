// Single-copy atomicity of naturally aligned 64-bit accesses across
// work-groups that run at the same time (issue 20): even work-groups store
// (v, ~v) pairs into shared slots with relaxed 64-bit stores
// (global_store_dwordx2), odd work-groups load them with relaxed 64-bit
// loads (global_load_dwordx2) and count pairs whose halves disagree. The
// hardware makes each such access single-copy atomic, so the count is 0
// under any interleaving; a torn access (one half from another store) is
// counted.
#include "lathe_hip_extra.h"

extern "C" __global__ void tear64(unsigned long long *slots, unsigned *torn,
                                  unsigned iters) {
  unsigned slot = threadIdx.x;
  if (blockIdx.x % 2 == 0) {
    for (unsigned i = 0; i < iters; ++i) {
      unsigned v = blockIdx.x * 7919u + i * 104729u + threadIdx.x * 31u;
      unsigned long long pair = ((unsigned long long)~v << 32) | v;
      __hip_atomic_store(&slots[slot], pair, __ATOMIC_RELAXED,
                         __HIP_MEMORY_SCOPE_AGENT);
    }
  } else {
    unsigned bad = 0;
    for (unsigned i = 0; i < iters; ++i) {
      unsigned long long pair = __hip_atomic_load(
          &slots[slot], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
      unsigned lo = (unsigned)pair, hi = (unsigned)(pair >> 32);
      // Slots start as (0, 0xffffffff): also a valid pair.
      bad += hi != ~lo;
    }
    if (bad)
      atomicAdd(torn, bad);
  }
}
