// A kernel calling ext_clobber (ext_lib.hip, another code object) twice:
// crates/dbi/tests/cross_object.rs.
#include "lathe_hip.h"

extern __device__ int ext_clobber(int x);

extern "C" __global__ void ext_calls(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ext_clobber(i) + 5 * ext_clobber(i + 7);
}
