// Verification corpus: MFMA (matrix fused multiply-add) tiles, one wave64
// per workgroup. Lane layouts (row-major matrices, lane = threadIdx.x):
//  16x16xK blocks: A[i][k] with i = lane % 16 and k from lane / 16;
//    B[k][j] with j = lane % 16; accumulator register v holds
//    D[4 * (lane / 16) + v][lane % 16] -- except v_mfma_f64_16x16x4f64,
//    whose register v holds D[4 * v + lane / 16][lane % 16].
//  32x32x8f16: A[i][4 * (lane / 32) + v], i = lane % 32 (v = 0..3);
//    B[4 * (lane / 32) + v][j], j = lane % 32; accumulator v holds
//    D[8 * (v / 4) + 4 * (lane / 32) + v % 4][lane % 32].
// (AMD's matrix instruction layouts, as in amd-lab-notes/matrix-cores.)
// The exact cases use small integer values so that every product and partial
// sum is exact whatever order the hardware sums in.
#include "lathe_hip_extra.h"

// Batched D = A * B + C, 16x16 f32 matrices (K = 16 as four 16x16x4f32
// steps); block b handles matrices at offset 256 * b.
__global__ void mfma_f32_16x16x4f32_gemm(float *D, const float *A, const float *B, const float *C) {
  unsigned lane = threadIdx.x;
  unsigned base = blockIdx.x * 256;
  unsigned i = lane % 16, q = lane / 16;
  float4_t acc;
  for (int v = 0; v < 4; ++v) acc[v] = C[base + (4 * q + v) * 16 + i];
  for (int kb = 0; kb < 4; ++kb) {
    float a = A[base + i * 16 + kb * 4 + q];
    float b = B[base + (kb * 4 + q) * 16 + i];
    acc = __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, acc, 0, 0, 0);
  }
  for (int v = 0; v < 4; ++v) D[base + (4 * q + v) * 16 + i] = acc[v];
}

// D (32x32 f32) = A (32x32 f16) * B (32x32 f16), four 32x32x8f16 steps.
__global__ void mfma_f32_32x32x8f16_gemm(float *D, const _Float16 *A, const _Float16 *B) {
  unsigned lane = threadIdx.x;
  unsigned i = lane % 32, g = lane / 32;
  float16_t acc = {};
  for (int kb = 0; kb < 4; ++kb) {
    half4_t a, b;
    for (int v = 0; v < 4; ++v) {
      a[v] = A[i * 32 + kb * 8 + 4 * g + v];
      b[v] = B[(kb * 8 + 4 * g + v) * 32 + i];
    }
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, acc, 0, 0, 0);
  }
  for (int v = 0; v < 16; ++v) D[(8 * (v / 4) + 4 * g + v % 4) * 32 + i] = acc[v];
}

// D (16x16 f64) = A * B + C, four 16x16x4f64 steps (note the f64 output
// layout: register v, lane group q = lane / 16 hold row 4 * v + q).
__global__ void mfma_f64_16x16x4f64_gemm(double *D, const double *A, const double *B,
                                         const double *C) {
  unsigned lane = threadIdx.x;
  unsigned i = lane % 16, q = lane / 16;
  double4_t acc;
  for (int v = 0; v < 4; ++v) acc[v] = C[(4 * v + q) * 16 + i];
  for (int kb = 0; kb < 4; ++kb) {
    double a = A[i * 16 + kb * 4 + q];
    double b = B[(kb * 4 + q) * 16 + i];
    acc = __builtin_amdgcn_mfma_f64_16x16x4f64(a, b, acc, 0, 0, 0);
  }
  for (int v = 0; v < 4; ++v) D[(4 * v + q) * 16 + i] = acc[v];
}

// D (16x16 i32) = A (16x32 i8) * B (32x16 i8) + C. gfx90a: two
// v_mfma_i32_16x16x16i8 steps (4 bytes per lane, k = 16 s + 4 q + byte);
// gfx942, gfx950: one v_mfma_i32_16x16x32_i8 (8 bytes per lane, k = 8 q + byte).
__global__ void mfma_i8_gemm(int *D, const signed char *A, const signed char *B, const int *C) {
  unsigned lane = threadIdx.x;
  unsigned i = lane % 16, q = lane / 16;
  int4_t acc;
  for (int v = 0; v < 4; ++v) acc[v] = C[(4 * q + v) * 16 + i];
#if defined(__gfx90a__)
  for (int s = 0; s < 2; ++s) {
    unsigned a = 0, b = 0;
    for (int e = 0; e < 4; ++e) {
      unsigned k = 16 * s + 4 * q + e;
      a |= (unsigned)(unsigned char)A[i * 32 + k] << (8 * e);
      b |= (unsigned)(unsigned char)B[k * 16 + i] << (8 * e);
    }
    acc = __builtin_amdgcn_mfma_i32_16x16x16i8((int)a, (int)b, acc, 0, 0, 0);
  }
#elif defined(__gfx942__) || defined(__gfx950__)
  lathe_u64 a = 0, b = 0;
  for (int e = 0; e < 8; ++e) {
    unsigned k = 8 * q + e;
    a |= (lathe_u64)(unsigned char)A[i * 32 + k] << (8 * e);
    b |= (lathe_u64)(unsigned char)B[k * 16 + i] << (8 * e);
  }
  acc = __builtin_amdgcn_mfma_i32_16x16x32_i8((long)a, (long)b, acc, 0, 0, 0);
#else
#error "mfma_i8_gemm: gfx90a, gfx942 or gfx950 only"
#endif
  for (int v = 0; v < 4; ++v) D[(4 * q + v) * 16 + i] = acc[v];
}

// D (16x16 f32) = A (16x32 bf16) * B (32x16 bf16), two
// v_mfma_f32_16x16x16bf16_1k steps (4 bf16 per lane, k = 16 s + 4 q + v).
// bf16 values are passed as raw bits.
__global__ void mfma_bf16_gemm(float *D, const unsigned short *A, const unsigned short *B) {
  unsigned lane = threadIdx.x;
  unsigned i = lane % 16, q = lane / 16;
  float4_t acc = {};
  for (int s = 0; s < 2; ++s) {
    short4_t a, b;
    for (int v = 0; v < 4; ++v) {
      unsigned k = 16 * s + 4 * q + v;
      a[v] = (short)A[i * 32 + k];
      b[v] = (short)B[k * 16 + i];
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, acc, 0, 0, 0);
  }
  for (int v = 0; v < 4; ++v) D[(4 * q + v) * 16 + i] = acc[v];
}
