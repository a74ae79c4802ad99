// instr-count: counts executed instructions. Hooks at every basic-block
// entry and after every instruction that writes EXEC get the number of
// instructions that run with the EXEC they see (`segment_insts`, a
// constant of the site), the EXEC mask and the lane id; the first active
// lane adds the count to the wave-instruction counter and count x active
// lanes to the thread-instruction counter. Each instruction is in exactly
// one segment, counted with the lanes it runs with, so both counts are
// exact. Waves that run a block with no active lane execute its
// instructions too: the manifest asks for those calls ("inactive_waves"),
// which come in lane 0 with exec = 0.
#include "lathe_hip_extra.h"

__device__ lathe_u64 wave_instructions;
__device__ lathe_u64 thread_instructions;

extern "C" __device__ void count_segment(unsigned int insts, lathe_u64 exec, unsigned int lane) {
  unsigned int first = exec == 0 ? 0u : (unsigned int)__builtin_ctzll(exec);
  if (lane == first && insts != 0) {
    atomicAdd(&wave_instructions, (lathe_u64)insts);
    atomicAdd(&thread_instructions, (lathe_u64)insts * (lathe_u64)__builtin_popcountll(exec));
  }
}
