// Minimal HIP device-side definitions for building the Lathe corpus with
// clang-22 and `-nogpuinc -nogpulib` (Debian's ROCm 5.2 headers do not work
// with clang-22). Only what the corpus needs: attributes, thread/block
// indices, a few intrinsics, and the host-side launch declaration clang
// requires for `__global__` functions.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline __attribute__((always_inline))

#define LATHE_AXIS(NAME, X, Y, Z)                                               \
  struct NAME##_x { __device__ operator unsigned() const { return X; } };      \
  struct NAME##_y { __device__ operator unsigned() const { return Y; } };      \
  struct NAME##_z { __device__ operator unsigned() const { return Z; } };      \
  struct NAME { NAME##_x x; NAME##_y y; NAME##_z z; };

LATHE_AXIS(__lathe_tid, __builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(),
           __builtin_amdgcn_workitem_id_z())
LATHE_AXIS(__lathe_bid, __builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(),
           __builtin_amdgcn_workgroup_id_z())
LATHE_AXIS(__lathe_bdim, __builtin_amdgcn_workgroup_size_x(), __builtin_amdgcn_workgroup_size_y(),
           __builtin_amdgcn_workgroup_size_z())
// gridDim counts work-groups, including a trailing partial one.
#define LATHE_GDIM(D)                                                          \
  ((__builtin_amdgcn_grid_size_##D() + __builtin_amdgcn_workgroup_size_##D() - 1) / \
   __builtin_amdgcn_workgroup_size_##D())
LATHE_AXIS(__lathe_gdim, LATHE_GDIM(x), LATHE_GDIM(y), LATHE_GDIM(z))
#undef LATHE_GDIM
#undef LATHE_AXIS

#define threadIdx (__lathe_tid{})
#define blockIdx (__lathe_bid{})
#define blockDim (__lathe_bdim{})
#define gridDim (__lathe_gdim{})

__device__ inline void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

struct dim3 {
  unsigned x, y, z;
};
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *f, dim3 grid, dim3 block, void **args,
                               unsigned long shared_mem, hipStream_t stream);
