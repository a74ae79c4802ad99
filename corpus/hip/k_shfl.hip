// Verification corpus: wave64 cross-lane operations built on ds_bpermute,
// v_readlane and ballot. Every kernel expects whole waves (the grid is a
// multiple of 64) so all 64 lanes are active; inputs beyond n read as 0.
#include "lathe_hip_extra.h"

#pragma clang fp contract(off)

// Butterfly sum: for off = 32, 16, 8, 4, 2, 1: v = v + shfl_xor(v, off).
// Every lane stores its own final value (they differ in rounding).
__global__ void wave_sum_xor_f32(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int off = 32; off > 0; off >>= 1) v = v + lathe_shfl_xor(v, off);
  out[i] = v;
}

// Inclusive scan (Hillis-Steele, d = 1, 2, ..., 32) with shfl_up, wrapping.
__global__ void wave_scan_i32(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  unsigned lane = lathe_lane_id();
  for (unsigned d = 1; d < 64; d <<= 1) {
    int u = lathe_shfl_up(v, d);
    if (lane >= d) v = (int)((unsigned)v + (unsigned)u);
  }
  out[i] = v;
}

// Wave max via 64 readlanes; out = max - v + lane 17's value.
__global__ void wave_max_readlane(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int m = lathe_readlane(v, 0);
  for (int l = 1; l < 64; ++l) {
    int x = lathe_readlane(v, l);
    m = x > m ? x : m;
  }
  out[i] = (int)((unsigned)m - (unsigned)v + (unsigned)lathe_readlane(v, 17));
}

// Ballot of (in & 1): lane 0 stores the mask of its wave; every lane stores
// its rank among the set lanes below it (popcount of mask & lanes-below).
__global__ void wave_ballot(lathe_u64 *masks, int *rank, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  lathe_u64 m = lathe_ballot(v & 1);
  unsigned lane = lathe_lane_id();
  lathe_u64 below = lane == 0 ? 0ull : (~0ull >> (64 - lane));
  rank[i] = __builtin_popcountll(m & below);
  if (lane == 0) masks[i / 64] = m;
}

// Rotate the wave by a per-block amount: out[i] = in of lane (lane + r) % 64,
// where r = blockIdx.x * 5 + 1 (a gather through ds_bpermute).
__global__ void wave_rotate(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : -1;
  unsigned lane = lathe_lane_id();
  int r = (int)blockIdx.x * 5 + 1;
  out[i] = lathe_shfl(v, (int)((lane + (unsigned)r) & 63u));
}

// ds_swizzle_b32 with all lanes active, in the patterns LLVM names
// (AMDGPUModifierSyntax): QUAD_PERM(3,2,1,0) = 0x801b; BITMASK_PERM
// "ppipi" (lane ^ 5) = 0x141f; BROADCAST(8,3) = 0x0078; SWAP(16) = 0x401f;
// REVERSE(32) = 0x7c1f. 5 outputs per lane.
__global__ void wave_swizzle(int *out, const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  out[5 * i + 0] = __builtin_amdgcn_ds_swizzle(v, 0x801b);
  out[5 * i + 1] = __builtin_amdgcn_ds_swizzle(v, 0x141f);
  out[5 * i + 2] = __builtin_amdgcn_ds_swizzle(v, 0x0078);
  out[5 * i + 3] = __builtin_amdgcn_ds_swizzle(v, 0x401f);
  out[5 * i + 4] = __builtin_amdgcn_ds_swizzle(v, 0x7c1f);
}
