// out[i] = 3i + 1 for i < n, one work-group of 64 work-items per 64
// elements (no hidden arguments read, so an HSA program launches it with
// the two explicit ones). Built by clang-22 with -nogpuinc for any target.
#include "lathe_hip.h"

extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(64, 64))) void
iota3(unsigned *out, unsigned n) {
  unsigned i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < n) out[i] = 3 * i + 1;
}
