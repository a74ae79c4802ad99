// Verification corpus: a device-function library built as its own -fgpu-rdc
// code object. k_devlib_main.hip calls these functions and uses the library's
// variables; the two objects must be linked (by the loader or ld.lld).
#include "lathe_hip_extra.h"

#pragma clang fp contract(off)

// Mixing table (initialised data in the library's code object).
__device__ unsigned devlib_table[16] = {
    0x243F6A88u, 0x85A308D3u, 0x13198A2Eu, 0x03707344u, 0xA4093822u, 0x299F31D0u,
    0x082EFA98u, 0xEC4E6C89u, 0x452821E6u, 0x38D01377u, 0xBE5466CFu, 0x34E90C6Cu,
    0xC0AC29B7u, 0xC97C50DDu, 0x3F84D5B5u, 0xB5470917u};

// Number of devlib_hash calls (incremented atomically).
__device__ unsigned devlib_calls = 0;

// Murmur3 finaliser of x ^ table[x & 15].
__device__ __noinline__ unsigned devlib_hash(unsigned x) {
  atomicAdd(&devlib_calls, 1u);
  unsigned h = x ^ devlib_table[x & 15u];
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

// Horner with fma: r = c[deg]; for k = deg-1 down to 0: r = fma(r, x, c[k]).
__device__ __noinline__ float devlib_horner(const float *c, int deg, float x) {
  float r = c[deg];
  for (int k = deg - 1; k >= 0; --k) r = __builtin_fmaf(r, x, c[k]);
  return r;
}

// Euclid's algorithm, recursively, on non-negative ints.
__device__ __noinline__ int devlib_gcd(int a, int b) { return b == 0 ? a : devlib_gcd(b, a % b); }
