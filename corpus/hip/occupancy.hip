// Kernels whose occupancy is limited by different resources: LDS, VGPRs
// (vector and accumulation registers), and none. Used to check `lathe info`'s
// occupancy estimate against LLVM's own (-Rpass-analysis=kernel-resource-usage).
#include "lathe_hip_extra.h"

__global__ __attribute__((amdgpu_flat_work_group_size(1, 256))) void lds_heavy(float *out, const float *in) {
  __shared__ float tile[10240]; // 40 KiB: one work-group per CU
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[255 - threadIdx.x] + tile[threadIdx.x + 9984];
}

__global__ __attribute__((amdgpu_flat_work_group_size(1, 256))) void vgpr_heavy(float *out) {
  asm volatile("v_mov_b32 v127, 0" ::: "v127");
  out[threadIdx.x] = 1.0f;
}

__global__ __attribute__((amdgpu_flat_work_group_size(1, 256))) void agpr_heavy(float *out) {
  asm volatile("v_accvgpr_write_b32 a100, 0" ::: "a100");
  asm volatile("v_mov_b32 v40, 0" ::: "v40");
  out[threadIdx.x] = 2.0f;
}

__global__ void light(float *out) { out[threadIdx.x] = 3.0f; }
