// Emulator benchmark kernels (bench/emu.py), one per workload class of
// issue 12: VALU-bound, memory-streaming, LDS/barrier, call-heavy, MFMA
// GEMM; plus a kernel that never ends, for the `lathe run --timeout`
// watchdog test. Built with clang-22 -O3 for gfx90a (and gfx942 for the
// fp8 GEMM). bench/emu.py checks
// every output against a CPU reference.
#include "lathe_hip_extra.h"

// VALU-bound: per iteration four dependent f32 FMAs (a contracting linear
// recurrence, so values stay finite) and a u32 shift/xor/add mix. No memory
// in the loop.
__global__ void valu_loop(float *fout, unsigned *uout, int iters) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = (float)(i & 255) * 0.001f, b = 0.5f, c = 1.0f, d = 0.25f;
  unsigned x = i * 2654435761u, y = i ^ 0x9e3779b9u;
  for (int k = 0; k < iters; ++k) {
    a = __builtin_fmaf(a, 0.5f, b * 0.25f);
    b = __builtin_fmaf(b, 0.5f, c * 0.25f);
    c = __builtin_fmaf(c, 0.5f, d * 0.25f);
    d = __builtin_fmaf(d, 0.5f, __builtin_fmaf(a, 0.25f, 1.0f));
    x = (x << 5) ^ (x >> 3) ^ y;
    y = y + x;
    x ^= y >> 7;
  }
  fout[i] = a + b + c + d;
  uout[i] = x ^ y;
}

// Two loops written as a HIP programmer would, not from the fast tier's
// µop list (issue 17). `xs_select`: an xorshift32 draw mapped to [-2, 2),
// a quadratic, fminf/fmaxf clamps and a data-dependent branch that the
// compiler turns into compares and selects.
__global__ void xs_select(float *out, unsigned *cnt, int iters) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned s = tid * 747796405u + 2891336453u;
  float acc = 0.0f;
  unsigned above = 0;
  for (int k = 0; k < iters; ++k) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    float u = (float)(s & 0xffffff) * (1.0f / 16777216.0f);
    float x = __builtin_fmaf(4.0f, u, -2.0f);
    float y = __builtin_fmaf(x, x, -1.0f);
    y = __builtin_fminf(__builtin_fmaxf(y, -0.5f), 1.5f);
    if (y > 0.25f) {
      acc += y;
      above += (s >> 28) + 1;
    } else {
      acc -= 0.5f * y;
    }
  }
  out[tid] = acc;
  cnt[tid] = above ^ s;
}

// `addr64`: 64-bit index arithmetic as a strided gather computes it (row
// times a 64-bit stride, a signed column offset, a conditional advance),
// with a 64-bit running hash of the addresses. No memory in the loop.
__global__ void addr64(unsigned long long *out, unsigned long long base, long long stride,
                       int iters) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long off = base + (unsigned long long)tid * 4096u;
  unsigned long long sum = 0;
  unsigned h = tid;
  for (int k = 0; k < iters; ++k) {
    h = h * 1664525u + 1013904223u;
    long long row = (h >> 20) & 1023;
    long long col = (long long)(h & 0xffff) - 32768;
    unsigned long long a = off + (unsigned long long)(row * stride) + (unsigned long long)(col * 8);
    sum += a ^ (a >> 7);
    off += (a & 0x40) ? 64 : 8;
  }
  out[tid] = sum;
}

// Memory-streaming: a[i] = b[i] + s * c[i].
__global__ void triad(float *a, const float *b, const float *c, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + s * c[i];
}

// LDS/barrier: each block of 256 sums its 256 inputs `rounds` times with a
// tree reduction through LDS (eight barriers per round); out[block] is the
// sum of the per-round sums.
__global__ void lds_reduce(unsigned *out, const unsigned *in, int rounds) {
  __shared__ unsigned s[256];
  unsigned t = threadIdx.x;
  unsigned v = in[blockIdx.x * 256 + t];
  unsigned total = 0;
  for (int r = 0; r < rounds; ++r) {
    s[t] = v + r;
    __syncthreads();
    for (unsigned w = 128; w > 0; w >>= 1) {
      if (t < w) s[t] += s[t + w];
      __syncthreads();
    }
    total += s[0];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = total;
}

// Call-heavy: a recursive device function (real calls, stack in scratch).
__device__ __noinline__ unsigned fib(unsigned n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__global__ void fib_calls(unsigned *out, int base) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = fib(base + (i & 3));
}


// MFMA GEMM, fp16 in, f32 out: C (n x n) = A (n x n, row-major) * B, with
// B given transposed (Bt[j][k] = B[k][j]). One wave per 32x32 tile of C,
// v_mfma_f32_32x32x8f16 over k. n must be a multiple of 32.
__global__ void gemm_f16(float *C, const _Float16 *A, const _Float16 *Bt, int n) {
  unsigned lane = threadIdx.x;
  unsigned i = lane % 32, g = lane / 32;
  unsigned tiles = n / 32;
  unsigned ti = blockIdx.x / tiles, tj = blockIdx.x % tiles;
  const _Float16 *arow = A + (lathe_u64)(ti * 32 + i) * n + 4 * g;
  const _Float16 *bcol = Bt + (lathe_u64)(tj * 32 + i) * n + 4 * g;
  float16_t acc = {};
  for (int k = 0; k < n; k += 8) {
    half4_t a = *(const half4_t *)(arow + k);
    half4_t b = *(const half4_t *)(bcol + k);
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, acc, 0, 0, 0);
  }
  for (int v = 0; v < 16; ++v)
    C[(lathe_u64)(ti * 32 + 8 * (v / 4) + 4 * g + v % 4) * n + tj * 32 + i] = acc[v];
}

#if defined(__gfx942__)
// The same with fp8 (E4M3, gfx942) in: v_mfma_f32_32x32x16_fp8_fp8, eight
// bytes per lane (k = 8 * (lane / 32) + byte).
__global__ void gemm_fp8(float *C, const unsigned char *A, const unsigned char *Bt, int n) {
  unsigned lane = threadIdx.x;
  unsigned i = lane % 32, g = lane / 32;
  unsigned tiles = n / 32;
  unsigned ti = blockIdx.x / tiles, tj = blockIdx.x % tiles;
  const unsigned char *arow = A + (lathe_u64)(ti * 32 + i) * n + 8 * g;
  const unsigned char *bcol = Bt + (lathe_u64)(tj * 32 + i) * n + 8 * g;
  float16_t acc = {};
  for (int k = 0; k < n; k += 16) {
    long a = *(const long *)(arow + k);
    long b = *(const long *)(bcol + k);
    acc = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(a, b, acc, 0, 0, 0);
  }
  for (int v = 0; v < 16; ++v)
    C[(lathe_u64)(ti * 32 + 8 * (v / 4) + 4 * g + v % 4) * n + tj * 32 + i] = acc[v];
}
#endif

// Never ends unless `stop` is non-zero (it never is): for the watchdog.
__global__ void spin_forever(unsigned *out, const volatile unsigned *stop) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = i;
  while (!*stop) x = x * 1664525u + 1013904223u;
  out[i] = x;
}
