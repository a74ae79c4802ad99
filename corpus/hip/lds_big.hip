// More LDS than GFX9 before CDNA4 has: 150 KiB of dynamic LDS (gfx950 has
// 160 KiB per work-group, gfx90a/gfx942 64 KiB). One work-group stages
// `words` transformed words in LDS, then writes them out reversed, so every
// byte of the range is written and read back by another thread.
#include "lathe_hip_extra.h"

extern __shared__ unsigned char lathe_dyn[];

extern "C" __global__ void lds_big(const unsigned *in, unsigned *out, unsigned words) {
  unsigned *s = (unsigned *)lathe_dyn;
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x)
    s[i] = in[i] * 3u + 1u;
  __syncthreads();
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x)
    out[i] = s[words - 1 - i] ^ i;
}
