// gfx950 (CDNA4) additions for lathe-isa's listing test (tests/corpus.rs):
// the f8f6f4 MFMAs with every A/B format (operand widths follow cbsz/blgp),
// the new bf16/f16 MFMAs, v_bitop3 and v_prng. Built by clang-22 -O0/-O3.
// (The scaled MFMAs, v_mfma_scale_*, are one 16-byte instruction in LLVM's
// listing and are not decoded yet: not here.)
typedef int v8i __attribute__((ext_vector_type(8)));
typedef float v4f __attribute__((ext_vector_type(4)));
typedef float v16f __attribute__((ext_vector_type(16)));
typedef __bf16 v8bf __attribute__((ext_vector_type(8)));
typedef _Float16 v8h __attribute__((ext_vector_type(8)));
#define G __attribute__((global))
#define TID __builtin_amdgcn_workitem_id_x()

extern "C" {
// cbsz/blgp 0 fp8, 1 bf8, 2 fp6, 3 bf6, 4 fp4 (scale 0: the unscaled form).
#define F8F6F4(NAME, A, B)                                                     \
  G void NAME(v4f *d, const v8i *a, const v8i *b) {                            \
    int t = TID;                                                               \
    d[t] = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a[t], b[t], d[t],  \
                                                            A, B, 0, 0, 0, 0); \
  }                                                                            \
  G void NAME##_32(v16f *d, const v8i *a, const v8i *b) {                      \
    int t = TID;                                                               \
    d[t] = __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(a[t], b[t], d[t],   \
                                                           A, B, 0, 0, 0, 0);  \
  }
F8F6F4(fp8_fp8, 0, 0)
F8F6F4(bf8_fp6, 1, 2)
F8F6F4(bf6_fp4, 3, 4)
F8F6F4(fp4_bf8, 4, 1)

G void bf16mfma(v4f *d, const v8bf *a, const v8bf *b) {
  int t = TID;
  d[t] = __builtin_amdgcn_mfma_f32_16x16x32_bf16(a[t], b[t], d[t], 0, 0, 0);
}
G void f16mfma(v16f *d, const v8h *a, const v8h *b) {
  int t = TID;
  d[t] = __builtin_amdgcn_mfma_f32_32x32x16_f16(a[t], b[t], d[t], 0, 0, 0);
}
G void bitop(unsigned *d, const unsigned *a) {
  int t = TID;
  unsigned x = a[t], y = a[t + 1], z = a[t + 2];
  d[t] = (x & y) | (~x & z) ^ (y | z);
  d[t + 1] = (x ^ y ^ z) & ~(x | z);
  d[t + 2] = __builtin_amdgcn_prng_b32(x);
}
}
