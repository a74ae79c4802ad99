// griddim: records the grid's size in work-groups (gridDim) as the
// kernel sees it. The hook runs before the last instruction of each
// kernel's first basic block and copies its arguments (the kernel's
// hidden_block_count_x..z) into a __device__ variable the host reads
// after the launch.
#include "lathe_hip.h"

__device__ unsigned int grid_dim[3];

extern "C" __device__ void griddim_hook(unsigned int x, unsigned int y, unsigned int z) {
  grid_dim[0] = x;
  grid_dim[1] = y;
  grid_dim[2] = z;
}
