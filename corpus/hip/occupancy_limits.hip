// Kernels that push each occupancy limit in turn, on every generation:
// VGPRs just below and above the allocation granules (4, 8, 12, 16, 24),
// SGPRs across GFX8/9's 80/88/100 steps, static LDS across the pool sizes
// (64 KiB, 128 KiB in WGP mode, 160 KiB on gfx950) and work-group sizes
// that change how many work-groups fit. `lathe info`'s estimate is checked
// against clang's -Rpass-analysis=kernel-resource-usage for each
// (crates/cli/tests/info_targets.rs).
#include "lathe_hip_extra.h"

#define STR(x) #x
#define VCLOBBER(R) asm volatile("v_mov_b32 " STR(R) ", 0" ::: STR(R));
#define SCLOBBER(R) asm volatile("s_mov_b32 " STR(R) ", 0" ::: STR(R));

// A kernel with `WG` work-items at most, `LDS` bytes of static LDS and
// register `V` written (so at least V+1 VGPRs).
#define LDS_KERNEL(NAME, WG, LDS, V)                                           \
  __global__ __attribute__((amdgpu_flat_work_group_size(1, WG))) void NAME(    \
      float *out, const float *in) {                                           \
    __shared__ float tile[(LDS) / 4];                                          \
    VCLOBBER(V)                                                                \
    tile[threadIdx.x % ((LDS) / 4)] = in[threadIdx.x];                         \
    __syncthreads();                                                           \
    out[threadIdx.x] = tile[(threadIdx.x * 7 + 1) % ((LDS) / 4)];              \
  }

#define VGPR_KERNEL(NAME, WG, V)                                               \
  __global__ __attribute__((amdgpu_flat_work_group_size(1, WG))) void NAME(    \
      float *out) {                                                            \
    VCLOBBER(V)                                                                \
    out[threadIdx.x] = 1.0f;                                                   \
  }

#define SGPR_KERNEL(NAME, S)                                                   \
  __global__ void NAME(float *out) {                                           \
    SCLOBBER(S)                                                                \
    out[threadIdx.x] = 2.0f;                                                   \
  }

// VGPRs around the granules: 24, 25, 32, 33, 48, 49, 64, 65, 72, 96, 97,
// 128, 129, 168, 192, 256.
VGPR_KERNEL(vgpr_24, 256, v23)
VGPR_KERNEL(vgpr_25, 256, v24)
VGPR_KERNEL(vgpr_32, 256, v31)
VGPR_KERNEL(vgpr_33, 256, v32)
VGPR_KERNEL(vgpr_48, 256, v47)
VGPR_KERNEL(vgpr_49, 256, v48)
VGPR_KERNEL(vgpr_64, 256, v63)
VGPR_KERNEL(vgpr_65, 256, v64)
VGPR_KERNEL(vgpr_72, 128, v71)
VGPR_KERNEL(vgpr_96, 128, v95)
VGPR_KERNEL(vgpr_97, 128, v96)
VGPR_KERNEL(vgpr_128, 64, v127)
VGPR_KERNEL(vgpr_129, 64, v128)
VGPR_KERNEL(vgpr_168, 64, v167)
VGPR_KERNEL(vgpr_192, 64, v191)
VGPR_KERNEL(vgpr_256, 64, v255)

// SGPRs (plus the VCC/flat scratch/XNACK extras clang adds) across 80,
// 88 and 100. clang warns that s96 is reserved on gfx803/gfx90a: these
// kernels are compiled for their resource counts, never run.
SGPR_KERNEL(sgpr_70, s70)
SGPR_KERNEL(sgpr_76, s76)
SGPR_KERNEL(sgpr_80, s80)
SGPR_KERNEL(sgpr_84, s84)
SGPR_KERNEL(sgpr_92, s92)
SGPR_KERNEL(sgpr_95, s95)
SGPR_KERNEL(sgpr_93, s93)
SGPR_KERNEL(sgpr_94, s94)
SGPR_KERNEL(sgpr_96, s96)

// LDS against work-group size.
LDS_KERNEL(lds_1k_wg1024, 1024, 1024, v3)
LDS_KERNEL(lds_3000_wg64, 64, 3000, v3)
LDS_KERNEL(lds_3000_wg32, 32, 3000, v3)
LDS_KERNEL(lds_4k_wg256, 256, 4096, v3)
LDS_KERNEL(lds_6k_wg96, 96, 6144, v31)
LDS_KERNEL(lds_8k_wg128, 128, 8192, v3)
LDS_KERNEL(lds_12k_wg64, 64, 12000, v63)
LDS_KERNEL(lds_16k_wg512, 512, 16384, v3)
LDS_KERNEL(lds_20k_wg192, 192, 20000, v3)
LDS_KERNEL(lds_24k_wg640, 640, 24576, v3)
LDS_KERNEL(lds_33k_wg256, 256, 33000, v3)
LDS_KERNEL(lds_40k_wg48, 48, 40960, v127)
LDS_KERNEL(lds_48k_wg1024, 1024, 49152, v3)
LDS_KERNEL(lds_64k_wg256, 256, 65536, v3)

#if defined(__gfx950__)
// Beyond 64 KiB: only gfx950's 160 KiB allows these.
LDS_KERNEL(lds_80k_wg256, 256, 81920, v3)
LDS_KERNEL(lds_100k_wg64, 64, 100000, v31)
LDS_KERNEL(lds_160k_wg1024, 1024, 163840, v3)
#endif
