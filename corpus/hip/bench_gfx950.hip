// gfx950 (CDNA4) benchmark kernel for bench/emu.py: C = A * B with fp8
// (OCP E4M3) inputs through v_mfma_f32_32x32x64_f8f6f4, one wave per 32x32
// tile of C; A is row-major, Bt is B transposed (row j = column j of B).
// Lane l = i + 32 g holds k = 32 g .. 32 g + 31 of row i (the ISA guide's
// general layout, 32 bytes = eight dwords a lane).
#include "lathe_hip_extra.h"

// gfx950-only builtins. Tests that build every corpus source for every
// processor (the ISA corpus listings) get, elsewhere, stand-ins that
// return the accumulator unchanged (never run: bench/emu.py and the
// gfx950 tests build them for gfx950 only).
#if !defined(__gfx950__)
#define LATHE_THIRD(a, b, c, ...) c
#define __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(...) LATHE_THIRD(__VA_ARGS__)
#define __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(...) LATHE_THIRD(__VA_ARGS__)
#define __builtin_amdgcn_mfma_f32_16x16x32_bf16(...) LATHE_THIRD(__VA_ARGS__)
#endif

typedef int v8i __attribute__((ext_vector_type(8)));

extern "C" __global__ void gemm_f8f6f4(float *C, const unsigned char *A, const unsigned char *Bt,
                                       int n) {
  unsigned lane = threadIdx.x;
  unsigned i = lane % 32, g = lane / 32;
  unsigned tiles = n / 32;
  unsigned ti = blockIdx.x / tiles, tj = blockIdx.x % tiles;
  const unsigned char *arow = A + (lathe_u64)(ti * 32 + i) * n + 32 * g;
  const unsigned char *bcol = Bt + (lathe_u64)(tj * 32 + i) * n + 32 * g;
  float16_t acc = {};
  for (int k = 0; k < n; k += 64) {
    v8i a = *(const v8i *)(arow + k);
    v8i b = *(const v8i *)(bcol + k);
    acc = __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(a, b, acc, 0, 0, 0, 0, 0, 0);
  }
  for (int v = 0; v < 16; ++v)
    C[(lathe_u64)(ti * 32 + 8 * (v / 4) + 4 * g + v % 4) * n + tj * 32 + i] = acc[v];
}
