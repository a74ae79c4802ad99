// Extra device helpers for the verification corpus (corpus/hip/k_*.hip),
// on top of lathe_hip.h: lane id, wave64 shuffles built on ds_bpermute,
// readlane/ballot, HIP-style atomics, DPP control codes and the small vector
// types the MFMA and packed-f16 kernels use.
//
// Everything here assumes wave64 (gfx90a and gfx942 only run wave64).
//
// Note: lathe_hip.h defines gridDim as grid_size / workgroup_size, which
// rounds down when the grid has a partial workgroup, so the k_* kernels never
// use gridDim; they take sizes as kernel arguments instead.
#pragma once
#include "lathe_hip.h"

typedef unsigned long long lathe_u64;
typedef long long lathe_i64;

typedef _Float16 half2_t __attribute__((ext_vector_type(2)));
typedef _Float16 half4_t __attribute__((ext_vector_type(4)));
typedef float float4_t __attribute__((ext_vector_type(4)));
typedef float float16_t __attribute__((ext_vector_type(16)));
typedef double double4_t __attribute__((ext_vector_type(4)));
typedef int int4_t __attribute__((ext_vector_type(4)));
typedef short short4_t __attribute__((ext_vector_type(4)));

// ---- lanes and cross-lane operations -------------------------------------

// Lane index within the wave (0..63), via v_mbcnt_lo/hi.
__device__ inline unsigned lathe_lane_id() {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}

__device__ inline int lathe_as_int(float f) { return __builtin_bit_cast(int, f); }
__device__ inline float lathe_as_float(int i) { return __builtin_bit_cast(float, i); }

// Value of `v` in lane `src` (0..63), via ds_bpermute_b32.
__device__ inline int lathe_shfl(int v, int src) {
  return __builtin_amdgcn_ds_bpermute(src << 2, v);
}
__device__ inline float lathe_shfl(float v, int src) {
  return lathe_as_float(lathe_shfl(lathe_as_int(v), src));
}

// __shfl_xor(v, mask) with width 64.
__device__ inline int lathe_shfl_xor(int v, int mask) {
  return lathe_shfl(v, (int)(lathe_lane_id() ^ (unsigned)mask));
}
__device__ inline float lathe_shfl_xor(float v, int mask) {
  return lathe_as_float(lathe_shfl_xor(lathe_as_int(v), mask));
}

// __shfl_up(v, d) with width 64: lanes below d get their own value.
__device__ inline int lathe_shfl_up(int v, unsigned d) {
  unsigned lane = lathe_lane_id();
  int src = lane >= d ? (int)(lane - d) : (int)lane;
  return lathe_shfl(v, src);
}

// Value of `v` in lane `lane` (must be wave-uniform), via v_readlane_b32.
__device__ inline int lathe_readlane(int v, int lane) { return __builtin_amdgcn_readlane(v, lane); }

// 64-bit mask of the active lanes where `pred` holds.
__device__ inline lathe_u64 lathe_ballot(int pred) { return __builtin_amdgcn_ballot_w64(pred != 0); }

// ---- DPP control codes (GFX9 encoding of the dpp_ctrl field) -------------

#define LATHE_DPP_QUAD_PERM(a, b, c, d) ((a) | ((b) << 2) | ((c) << 4) | ((d) << 6))
#define LATHE_DPP_ROW_SHL(n) (0x100 + (n))
#define LATHE_DPP_ROW_SHR(n) (0x110 + (n))
#define LATHE_DPP_ROW_ROR(n) (0x120 + (n))
#define LATHE_DPP_WAVE_SHL1 0x130
#define LATHE_DPP_WAVE_ROL1 0x134
#define LATHE_DPP_WAVE_SHR1 0x138
#define LATHE_DPP_WAVE_ROR1 0x13C
#define LATHE_DPP_ROW_MIRROR 0x140
#define LATHE_DPP_ROW_HALF_MIRROR 0x141
#define LATHE_DPP_ROW_BCAST15 0x142
#define LATHE_DPP_ROW_BCAST31 0x143

// ---- atomics (relaxed, agent scope, like HIP's atomicAdd & co.) ----------

#define LATHE_ATOMIC_FN(NAME, BUILTIN, T)                                      \
  __device__ inline T NAME(T *p, T v) {                                         \
    return BUILTIN(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);           \
  }
LATHE_ATOMIC_FN(atomicAdd, __hip_atomic_fetch_add, int)
LATHE_ATOMIC_FN(atomicAdd, __hip_atomic_fetch_add, unsigned)
LATHE_ATOMIC_FN(atomicAdd, __hip_atomic_fetch_add, lathe_u64)
LATHE_ATOMIC_FN(atomicAdd, __hip_atomic_fetch_add, float)
LATHE_ATOMIC_FN(atomicAdd, __hip_atomic_fetch_add, double)
LATHE_ATOMIC_FN(atomicMin, __hip_atomic_fetch_min, int)
LATHE_ATOMIC_FN(atomicMin, __hip_atomic_fetch_min, unsigned)
LATHE_ATOMIC_FN(atomicMax, __hip_atomic_fetch_max, int)
LATHE_ATOMIC_FN(atomicMax, __hip_atomic_fetch_max, unsigned)
LATHE_ATOMIC_FN(atomicAnd, __hip_atomic_fetch_and, unsigned)
LATHE_ATOMIC_FN(atomicOr, __hip_atomic_fetch_or, unsigned)
LATHE_ATOMIC_FN(atomicXor, __hip_atomic_fetch_xor, unsigned)
LATHE_ATOMIC_FN(atomicExch, __hip_atomic_exchange, unsigned)
#undef LATHE_ATOMIC_FN

// Compare-and-swap; returns the old value.
__device__ inline unsigned atomicCAS(unsigned *p, unsigned expected, unsigned desired) {
  __hip_atomic_compare_exchange_strong(p, &expected, desired, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                       __HIP_MEMORY_SCOPE_AGENT);
  return expected;
}
__device__ inline lathe_u64 atomicCAS(lathe_u64 *p, lathe_u64 expected, lathe_u64 desired) {
  __hip_atomic_compare_exchange_strong(p, &expected, desired, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                       __HIP_MEMORY_SCOPE_AGENT);
  return expected;
}

// Wrapping increment: new = old >= limit ? 0 : old + 1 (global_atomic_inc).
__device__ inline unsigned atomicInc(unsigned *p, unsigned limit) {
  return __builtin_amdgcn_atomic_inc32(p, limit, __ATOMIC_RELAXED, "agent");
}
