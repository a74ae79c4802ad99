// lathe-dbi liveness test: `v` is loaded for every lane, then rewritten
// only by the odd lanes (a write under a partial EXEC). The even lanes'
// value survives the branch in the same register, so that register is
// live inside the branch although the branch writes it before reading it.
#include "lathe_hip_extra.h"

__global__ void dbi_divergent_write(unsigned *out, const unsigned *in,
                                    const unsigned *other) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[t];
  if (t & 1) {
    v = other[t] * 3u + 7u;
  }
  out[t] = v;
}
