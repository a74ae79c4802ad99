// Verification corpus: divergent control flow: per-lane trip counts, break,
// continue, early return, switch and nested ifs. All arithmetic is unsigned
// (wrapping).
#include "lathe_hip_extra.h"

// Collatz steps of in[i] (as u64), capped at 500 steps; bit 31 set if the cap
// was hit (0 never reaches 1).
__global__ void collatz_steps(unsigned *out, const unsigned *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    lathe_u64 x = in[i];
    unsigned steps = 0;
    while (x != 1) {
      if (steps >= 500) break;
      x = (x & 1) ? 3 * x + 1 : x / 2;
      ++steps;
    }
    out[i] = steps | (x == 1 ? 0u : 0x80000000u);
  }
}

// Negative inputs return early with -3x; otherwise a switch on x % 5 seeds
// acc, then j = 0 .. (x & 31) - 1: skip j % 3 == 0, stop once acc > 100000,
// odd j: acc +/- j depending on bit 1 of acc, even j: acc = 3 acc + 1.
__global__ void divergent_mix(unsigned *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = in[i];
  if (x < 0) {
    out[i] = (unsigned)x * 0xFFFFFFFDu;
    return;
  }
  unsigned acc = 0;
  switch (x % 5) {
  case 0:
    acc = (unsigned)x * 2u;
    break;
  case 1:
    acc = (unsigned)x + 100u;
    break;
  case 2:
    acc = (unsigned)x ^ 0xffu;
    [[fallthrough]];
  case 3:
    acc += 7u;
    break;
  default:
    acc = 0xFFFFFFFFu;
  }
  for (int j = 0; j < (x & 31); ++j) {
    if (j % 3 == 0) continue;
    if (acc > 100000u) break;
    if (j & 1) {
      if (acc & 2u)
        acc += (unsigned)j;
      else
        acc -= (unsigned)j;
    } else {
      acc = acc * 3u + 1u;
    }
  }
  out[i] = acc;
}

// Nested loops with a flagged break out of both and a continue inside:
// a = u & 15, b = (u >> 4) & 15; see the code for the exact rules.
__global__ void nested_loops(unsigned *out, const unsigned *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned u = in[i];
    unsigned a = u & 15u, b = (u >> 4) & 15u;
    unsigned s = 0;
    bool done = false;
    for (unsigned p = 0; p < a && !done; ++p) {
      for (unsigned q = 0; q < b; ++q) {
        if (((p * 7u + q * 3u) ^ u) % 11u == 0) {
          done = true;
          break;
        }
        if ((p + q) % 4u == 1) continue;
        s = s * 5u + p * q + 1u;
      }
      if (s % 7u == 3u) s += 1000u;
    }
    out[i] = s;
  }
}
