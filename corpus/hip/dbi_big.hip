// lathe-dbi layout test: a loop whose body is ~48 KiB of straight-line
// code, so instrumenting every VALU instruction pushes the loop's back
// edge (and the exit branch) beyond the +-2^15-dword reach of s_branch /
// s_cbranch and the rewriter must relax them into long jumps.
#include "lathe_hip_extra.h"

__global__ void dbi_big_loop(unsigned *out, const unsigned *in, int n) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[t];
  unsigned y = t;
  for (int k = 0; k < n; ++k) {
#pragma unroll
    for (int j = 0; j < 2500; ++j) {
      x = x * 1664525u + (unsigned)(j * 7 + k);
      y ^= x >> (j & 15);
    }
  }
  out[t] = x ^ y;
}
