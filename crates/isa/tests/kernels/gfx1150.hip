// GFX11.5 (gfx1150-1153) additions for lathe-isa's listing test
// (tests/corpus.rs): the SALU float operations (s_add/sub/mul/fmac_f32,
// f16 forms, s_ceil/floor/trunc, conversions, s_cmp_*_f32) that LLVM selects
// for uniform float arithmetic. Built by clang-22 -O0/-O3, wave32 and
// wave64; the corpus's kernels do not reach them.
#define __global__ __attribute__((global))

__global__ void uniform_float(float *out, float a, float b, float c, _Float16 h, _Float16 k,
                              int n) {
  float x = a * b + c;
  float y = __builtin_ceilf(a) + __builtin_floorf(b) - __builtin_truncf(c);
  float z = a < b ? x : y;
  _Float16 hh = h * k + h;
  if (a > c) z = z / b;
  out[__builtin_amdgcn_workitem_id_x()] =
      z + (float)hh + (float)n + __builtin_fmaxf(a, b) + __builtin_fminf(b, c);
}

__global__ void uniform_compares(int *out, float a, float b, _Float16 h, _Float16 k) {
  int r = 0;
  if (a == b) r |= 1;
  if (a != b) r |= 2;
  if (a >= b) r |= 4;
  if (h < k) r |= 8;
  if (h <= k) r |= 16;
  if (__builtin_isnan(a)) r |= 32;
  out[__builtin_amdgcn_workitem_id_x()] = r + (int)(a * 3.5f) + (int)(unsigned)(b - a);
}
