// Written as ordinary user code, not from the emulator's µop list: a
// per-thread procedural-noise pass (integer hashing, f32 math with
// compares, selects and clamps, a weight table read through 64-bit
// indices, a loop). bench/emu.py runs it next to bench_emu.hip's kernels.
// Built with -nogpuinc (as bench/emu.py builds every kernel): the
// project's small HIP header stands in for <hip/hip_runtime.h>, and
// fminf/fmaxf are the builtins HIP's math header maps them to.
#include "lathe_hip.h"

__device__ inline float fminf(float a, float b) { return __builtin_fminf(a, b); }
__device__ inline float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }

__device__ __forceinline__ unsigned mix32(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

__global__ void user_noise(float *out, unsigned *keys, const float *table, long long n,
                           int iters) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned h = mix32((unsigned)i ^ 0x9e3779b9u);
  float x = (float)(i & 1023) * (1.0f / 1024.0f);
  float acc = 0.0f;
  long long cursor = i * 3;
  for (int k = 0; k < iters; ++k) {
    h = mix32(h + (unsigned)k);
    float r = (float)(h >> 8) * (1.0f / 16777216.0f);
    float y = x * r - 0.5f * r * r;
    if (y > 0.125f)
      y = y - 0.125f;
    else
      y = y * 2.0f + 0.01f;
    acc += fminf(fmaxf(y, -0.75f), 0.75f);
    cursor += (long long)(h & 15) + 1;
    acc += table[cursor & 255] * (1.0f / 256.0f);
  }
  out[i] = acc;
  keys[i] = h ^ (unsigned)(cursor >> 3);
}
