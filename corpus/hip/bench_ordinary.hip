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

// A particle step: each particle feels three fixed attractors (inverse
// square with softening, rsqrt), its speed is clamped (sqrt, compare and
// select) and it bounces off the walls of a box (compares, selects).
__global__ void particles(float *pos, float *vel, int iters) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = (float)(i & 63) * 0.25f - 8.0f, y = (float)((i >> 6) & 63) * 0.25f - 8.0f;
  float vx = 0.0f, vy = 0.0f;
  const float ax[3] = {-3.0f, 2.5f, 0.5f}, ay[3] = {1.0f, -2.0f, 3.5f}, am[3] = {1.0f, 0.75f, 0.5f};
  const float dt = 0.01f, vmax = 4.0f;
  for (int k = 0; k < iters; ++k) {
    float fx = 0.0f, fy = 0.0f;
    for (int a = 0; a < 3; ++a) {
      float dx = ax[a] - x, dy = ay[a] - y;
      float r2 = dx * dx + dy * dy + 0.25f;
      float inv = __builtin_amdgcn_rsqf(r2);
      float s = am[a] * inv * inv * inv;
      fx += s * dx;
      fy += s * dy;
    }
    vx += fx * dt;
    vy += fy * dt;
    float sp = __builtin_sqrtf(vx * vx + vy * vy);
    if (sp > vmax) {
      float c = vmax / sp;
      vx *= c;
      vy *= c;
    }
    x += vx * dt;
    y += vy * dt;
    if (x < -10.0f || x > 10.0f) vx = -vx;
    if (y < -10.0f || y > 10.0f) vy = -vy;
    x = clampf(x, -10.0f, 10.0f);
    y = clampf(y, -10.0f, 10.0f);
  }
  pos[2 * i] = x;
  pos[2 * i + 1] = y;
  vel[2 * i] = vx;
  vel[2 * i + 1] = vy;
}

// Integer hashing into a histogram: a murmur-style 32-bit finaliser per
// key, the bucket and a 64-bit slot address computed from it (as a
// scatter would), a running 64-bit checksum of the addresses, and one
// atomic increment of the final bucket per thread.
__global__ void hash_hist(unsigned *hist, lathe_u64 *sums, lathe_u64 base, int iters) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned key = i;
  lathe_u64 sum = 0;
  unsigned bucket = 0;
  for (int k = 0; k < iters; ++k) {
    unsigned h = key ^ (unsigned)k;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    bucket = h & 255;
    unsigned way = (h >> 8) % 12u;
    lathe_u64 addr = base + (lathe_u64)bucket * 384 + (lathe_u64)way * 32 + (key & 3) * 8;
    sum += addr > base + 49152 ? addr - base : addr >> 4;
    key = h;
  }
  sums[i] = sum;
  atomicAdd(&hist[bucket], 1u);
}

// A saxpy as a tutorial writes it: a grid-stride loop with its bounds
// check, the result clamped to [-2, 2], the whole pass repeated `reps`
// times in place (each pass reads x and y and writes y).
__global__ void saxpy_clamp(float *y, const float *x, float a, int n, int reps) {
  for (int r = 0; r < reps; ++r) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      float v = a * x[i] + y[i];
      y[i] = v < -2.0f ? -2.0f : (v > 2.0f ? 2.0f : v);
    }
  }
}

// A 5-point f64 stencil on a row-major width x height grid with
// edge-replicating neighbours: each thread owns a column and walks its
// rows (64-bit row offsets, clamped indices, a capped result).
__global__ void stencil_f64(double *out, const double *in, int width, int height) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= width) return;
  int jl = j > 0 ? j - 1 : 0, jr = j < width - 1 ? j + 1 : width - 1;
  for (int r = 0; r < height; ++r) {
    int ru = r > 0 ? r - 1 : 0, rd = r < height - 1 ? r + 1 : height - 1;
    lathe_u64 row = (lathe_u64)r * width;
    double c = in[row + j];
    double s = in[row + jl] + in[row + jr] + in[(lathe_u64)ru * width + j] + in[(lathe_u64)rd * width + j];
    double v = 0.5 * c + 0.125 * s;
    out[row + j] = v > 1.0 ? 1.0 : v;
  }
}
