// "Ordinary" ALU kernels for bench/emu.py: code as a HIP programmer writes
// it, not shaped around what the emulator's fast tier covers (issue 17: a
// kernel with compares and selects ran 3.5x slower than valu_loop). f32 and
// integer arithmetic mixed with compares, selects and clamps, 64-bit
// address arithmetic, f32 division, f16 and packed f16, f64. Built with
// clang-22 -O3 for gfx90a; bench/emu.py checks every output against a CPU
// reference (integers exactly, floats within a tolerance).
#include "lathe_hip_extra.h"

__device__ inline float clampf(float v, float lo, float hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

// xorshift32 driving an f32 recurrence with fma, a clamp and a
// compare-and-select per iteration, and an integer clamp and counts.
__global__ void mix_clamp(float *fout, unsigned *uout, int iters) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = i * 2654435761u + 1u;
  float v = (float)(i & 1023) * (1.0f / 1024.0f), acc = 0.0f;
  unsigned hits = 0;
  for (int k = 0; k < iters; ++k) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    float r = (float)(x >> 8) * (1.0f / 16777216.0f);
    v = __builtin_fmaf(v, 0.75f, r * 0.5f - 0.125f);
    v = clampf(v, -1.0f, 1.0f);
    acc += r > 0.5f ? v + 1.0f : 0.5f * v + 0.75f;
    int q = (int)(x & 0xffff) - 32768;
    q = q < -1000 ? -1000 : (q > 1000 ? 1000 : q);
    hits += (unsigned)q + (q > 0 ? 3u : 1u) + (x >> 31);
  }
  fout[i] = acc + v;
  uout[i] = hits ^ x;
}

// A histogram-bin computation: an LCG value mapped to a float, binned
// (scale, truncate, clamp), and the bin's 64-bit address accumulated, as a
// scatter would compute it; plus a 64-bit multiply-add hash.
__global__ void bin_addr(lathe_u64 *out, unsigned *cnt, lathe_u64 base, float lo, float scale,
                         int iters) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = i * 747796405u + 2891336453u;
  lathe_u64 sum = 0, h = i;
  unsigned top = 0;
  for (int k = 0; k < iters; ++k) {
    x = x * 1664525u + 1013904223u;
    float val = (float)(x >> 9) * (1.0f / 131072.0f) - 4.0f;  // [-4, 60)
    int bin = (int)((val - lo) * scale);
    bin = bin < 0 ? 0 : (bin > 63 ? 63 : bin);
    lathe_u64 addr = base + (lathe_u64)bin * 4096 + (lathe_u64)(x & 0xff) * 8;
    sum += addr >> 3;
    h = h * 0x9e3779b1u + x;
    top += bin == 63;
  }
  out[2 * i] = sum;
  out[2 * i + 1] = h;
  cnt[i] = top;
}

// A tanh/sigmoid approximation in f32 (a rational function: IEEE
// division), with its results also folded through f16 and packed f16.
__global__ void act_approx(float *fout, _Float16 *hout, int iters) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = ((float)(int)(i & 255) - 128.0f) * (1.0f / 32.0f);
  float acc = 0.0f;
  half2_t h = {(_Float16)0.25f, (_Float16)-0.25f};
  const half2_t c = {(_Float16)0.5f, (_Float16)0.75f};
  const half2_t lo = {(_Float16)-2.0f, (_Float16)-2.0f}, hi = {(_Float16)2.0f, (_Float16)2.0f};
  for (int k = 0; k < iters; ++k) {
    float t = clampf(x, -3.0f, 3.0f);
    float t2 = t * t;
    float th = t * (27.0f + t2) / (27.0f + 9.0f * t2);
    float sg = 0.5f + 0.5f * th;
    acc += sg;
    x = x * 0.96875f + th * 0.0625f + (k & 1 ? 0.03125f : -0.03125f);
    half2_t in = {(_Float16)th, (_Float16)sg};
    h = h * c + in;
    h = __builtin_elementwise_min(__builtin_elementwise_max(h, lo), hi);
  }
  fout[i] = acc;
  hout[2 * i] = h.x;
  hout[2 * i + 1] = h.y;
}

// An f64 polynomial (Horner, fma) with a compare-and-select per iteration.
__global__ void poly_f64(double *out, int iters) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  double x = (double)(int)(i & 1023) * (1.0 / 1024.0) - 0.5;
  double s = 0.0;
  for (int k = 0; k < iters; ++k) {
    double p = ((((0.0083 * x + 0.0416) * x + 0.1666) * x + 0.5) * x + 1.0) * x + 1.0;
    s += p > 1.0 ? p - 1.0 : 0.5 * p;
    x = x * 0.9990234375 + (double)(k & 7) * 0.0001220703125;
  }
  out[i] = s;
}
