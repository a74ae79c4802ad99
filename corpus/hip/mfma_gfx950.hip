// gfx950 (CDNA4) matrix instructions, one wave each: D (16x16 f32) = A * B
// + C with every operand in the layout of the CDNA4 ISA guide's general
// rule (lane l = i + 16 g holds k = KL g .. KL g + KL - 1 of row i of A,
// column i of B; D row 4 g + v, column i in item v). A and B arrive as
// bytes (8-bit codes, or two fp4 codes per byte, low nibble first) or as
// bf16 bits in matrix order; the kernels only place them.
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
typedef float v4f __attribute__((ext_vector_type(4)));
typedef __bf16 v8bf __attribute__((ext_vector_type(8)));

// A is 16x128 and B 128x16 in `bits`-bit codes (8 or 4), row-major,
// packed little-endian; lane (i, g) packs its 32 k values into `bits` words.
__device__ v8i pack(const unsigned char *m, int bits, bool col, unsigned i, unsigned g) {
  v8i r = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int t = 0; t < 32; ++t) {
    unsigned k = 32 * g + t;
    unsigned e = col ? k * 16 + i : i * 128 + k;  // element index
    unsigned code = bits == 8 ? m[e] : (m[e / 2] >> (4 * (e % 2))) & 15;
    unsigned bit = t * bits;
    r[bit / 32] |= (int)(code << (bit % 32));
  }
  return r;
}

#define F8F6F4(NAME, CBSZ, BLGP, ABITS, BBITS)                                            \
  __global__ void NAME(float *D, const unsigned char *A, const unsigned char *B,         \
                       const float *C) {                                                  \
    unsigned lane = threadIdx.x, i = lane % 16, g = lane / 16;                            \
    v4f acc;                                                                              \
    for (int v = 0; v < 4; ++v) acc[v] = C[(4 * g + v) * 16 + i];                         \
    acc = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(                               \
        pack(A, ABITS, false, i, g), pack(B, BBITS, true, i, g), acc, CBSZ, BLGP, 0, 0, 0, 0); \
    for (int v = 0; v < 4; ++v) D[(4 * g + v) * 16 + i] = acc[v];                         \
  }

// fp8 x fp8, bf8 x fp4, fp4 x bf8 (CBSZ/BLGP: 0 fp8, 1 bf8, 4 fp4).
F8F6F4(f8f6f4_fp8_fp8, 0, 0, 8, 8)
F8F6F4(f8f6f4_bf8_fp4, 1, 4, 8, 4)
F8F6F4(f8f6f4_fp4_bf8, 4, 1, 4, 8)

// v_mfma_f32_16x16x32_bf16: A 16x32, B 32x16 bf16 bits, 8 k values a lane.
__global__ void mfma_bf16_16x16x32(float *D, const unsigned short *A, const unsigned short *B,
                                   const float *C) {
  unsigned lane = threadIdx.x, i = lane % 16, g = lane / 16;
  v8bf a, b;
  for (int t = 0; t < 8; ++t) {
    unsigned k = 8 * g + t;
    a[t] = __builtin_bit_cast(__bf16, A[i * 32 + k]);
    b[t] = __builtin_bit_cast(__bf16, B[k * 16 + i]);
  }
  v4f acc;
  for (int v = 0; v < 4; ++v) acc[v] = C[(4 * g + v) * 16 + i];
  acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(a, b, acc, 0, 0, 0);
  for (int v = 0; v < 4; ++v) D[(4 * g + v) * 16 + i] = acc[v];
}
