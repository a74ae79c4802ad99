// Kernels that fault on purpose: an atomic at a byte offset the caller
// chooses (misaligned when the offset is not a multiple of 4).
#include "lathe_hip.h"

__global__ void atomic_at(int *base, int byte_offset) {
  int *p = (int *)((char *)base + byte_offset);
  __hip_atomic_fetch_add(p, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
