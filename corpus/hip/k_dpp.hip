// Verification corpus: DPP (data-parallel primitives) on wave64, GFX9
// encodings (quad_perm, row_shl/shr/ror, wave_shl/rol/shr/ror, row_mirror,
// row_half_mirror, row_bcast:15/31) through __builtin_amdgcn_update_dpp and
// __builtin_amdgcn_mov_dpp. The grid is a multiple of 64: all lanes active.
//
// Semantics assumed (GFX9 ISA): lane l reads lane src(l); if src(l) is
// outside the row/wave, the lane is written with 0 when bound_ctrl is set and
// keeps `old` otherwise; lanes whose row (l/16) is off in row_mask or whose
// bank ((l%16)/4) is off in bank_mask are not written and keep `old`.
#include "lathe_hip_extra.h"

#pragma clang fp contract(off)

// Inclusive wave scan: row_shr 1,2,4,8 (old 0, no bound_ctrl), then
// row_bcast:15 into rows 1 and 3, then row_bcast:31 into rows 2 and 3.
__global__ void dpp_scan_i32(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  v += __builtin_amdgcn_update_dpp(0, v, LATHE_DPP_ROW_SHR(1), 0xf, 0xf, false);
  v += __builtin_amdgcn_update_dpp(0, v, LATHE_DPP_ROW_SHR(2), 0xf, 0xf, false);
  v += __builtin_amdgcn_update_dpp(0, v, LATHE_DPP_ROW_SHR(4), 0xf, 0xf, false);
  v += __builtin_amdgcn_update_dpp(0, v, LATHE_DPP_ROW_SHR(8), 0xf, 0xf, false);
  v += __builtin_amdgcn_update_dpp(0, v, LATHE_DPP_ROW_BCAST15, 0xa, 0xf, false);
  v += __builtin_amdgcn_update_dpp(0, v, LATHE_DPP_ROW_BCAST31, 0xc, 0xf, false);
  out[i] = v;
}

// Every DPP pattern once: out[p * stride + i] for pattern p (15 patterns),
// with old = 0xDEAD0000 | lane so unwritten lanes are visible.
__global__ void dpp_patterns(unsigned *out, const unsigned *in, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  unsigned old = 0xDEAD0000u | lathe_lane_id();
  int r[15];
  int iv = (int)v, io = (int)old;
  r[0] = __builtin_amdgcn_update_dpp(io, iv, LATHE_DPP_QUAD_PERM(1, 0, 3, 2), 0xf, 0xf, false);
  r[1] = __builtin_amdgcn_update_dpp(io, iv, LATHE_DPP_QUAD_PERM(3, 3, 0, 1), 0xf, 0xf, false);
  r[2] = __builtin_amdgcn_update_dpp(io, iv, LATHE_DPP_ROW_SHL(3), 0xf, 0xf, true);
  r[3] = __builtin_amdgcn_update_dpp(io, iv, LATHE_DPP_ROW_SHR(5), 0xf, 0xf, false);
  r[4] = __builtin_amdgcn_update_dpp(io, iv, LATHE_DPP_ROW_ROR(5), 0xf, 0xf, false);
  r[5] = __builtin_amdgcn_update_dpp(io, iv, LATHE_DPP_ROW_MIRROR, 0xf, 0xf, false);
  r[6] = __builtin_amdgcn_update_dpp(io, iv, LATHE_DPP_ROW_HALF_MIRROR, 0xf, 0xf, false);
  r[7] = __builtin_amdgcn_update_dpp(io, iv, LATHE_DPP_WAVE_SHL1, 0xf, 0xf, false);
  r[8] = __builtin_amdgcn_update_dpp(io, iv, LATHE_DPP_WAVE_ROL1, 0xf, 0xf, false);
  r[9] = __builtin_amdgcn_update_dpp(io, iv, LATHE_DPP_WAVE_SHR1, 0xf, 0xf, true);
  r[10] = __builtin_amdgcn_update_dpp(io, iv, LATHE_DPP_WAVE_ROR1, 0xf, 0xf, false);
  r[11] = __builtin_amdgcn_update_dpp(io, iv, LATHE_DPP_ROW_BCAST15, 0xa, 0xf, false);
  r[12] = __builtin_amdgcn_update_dpp(io, iv, LATHE_DPP_ROW_BCAST31, 0xc, 0xf, false);
  r[13] = __builtin_amdgcn_update_dpp(io, iv, LATHE_DPP_ROW_SHR(1), 0x5, 0x3, true);
  r[14] = __builtin_amdgcn_mov_dpp(iv, LATHE_DPP_ROW_ROR(1), 0xf, 0xf, true);
  for (int p = 0; p < 15; ++p) out[p * stride + i] = (unsigned)r[p];
}

// Per-row float inclusive scan with row_shr 1,2,4,8 and bound_ctrl (invalid
// lanes read 0.0f): v = v + dpp(v). Every lane stores its value.
__global__ void dpp_row_scan_f32(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  v = v + lathe_as_float(__builtin_amdgcn_update_dpp(0, lathe_as_int(v), LATHE_DPP_ROW_SHR(1), 0xf, 0xf, true));
  v = v + lathe_as_float(__builtin_amdgcn_update_dpp(0, lathe_as_int(v), LATHE_DPP_ROW_SHR(2), 0xf, 0xf, true));
  v = v + lathe_as_float(__builtin_amdgcn_update_dpp(0, lathe_as_int(v), LATHE_DPP_ROW_SHR(4), 0xf, 0xf, true));
  v = v + lathe_as_float(__builtin_amdgcn_update_dpp(0, lathe_as_int(v), LATHE_DPP_ROW_SHR(8), 0xf, 0xf, true));
  out[i] = v;
}
