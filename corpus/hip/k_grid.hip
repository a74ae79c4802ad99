// Verification corpus: 2D and 3D grids with partial workgroups in every
// dimension; every kernel bounds-checks all dimensions.
#include "lathe_hip_extra.h"

#pragma clang fp contract(off)

// out = ((((4c - l) - r) - u) - d) with edge-clamped neighbours.
__global__ void grid2d_stencil(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int xl = x > 0 ? x - 1 : 0, xr = x < w - 1 ? x + 1 : w - 1;
    int yu = y > 0 ? y - 1 : 0, yd = y < h - 1 ? y + 1 : h - 1;
    float c = in[y * w + x];
    out[y * w + x] = ((((4.0f * c) - in[y * w + xl]) - in[y * w + xr]) - in[yu * w + x]) -
                     in[yd * w + x];
  }
}

// ids[p] = tid.x | tid.y << 4 | tid.z << 8 | bid.x << 12 | bid.y << 18 |
// bid.z << 24; vals[p] = in[p] * (x + 1) + in[(x, y, (z + 1) % d)] +
// 100 * blockDim.x + 10 * blockDim.y + blockDim.z, p = (z * h + y) * w + x.
__global__ void grid3d_ids(unsigned *ids, int *vals, const int *in, int w, int h, int d) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < (unsigned)w && y < (unsigned)h && z < (unsigned)d) {
    unsigned p = (z * h + y) * w + x;
    ids[p] = threadIdx.x | threadIdx.y << 4 | threadIdx.z << 8 | blockIdx.x << 12 |
             blockIdx.y << 18 | blockIdx.z << 24;
    unsigned zn = (z + 1) % (unsigned)d;
    vals[p] = (int)((unsigned)in[p] * (x + 1) + (unsigned)in[(zn * h + y) * w + x] +
                    100 * blockDim.x + 10 * blockDim.y + blockDim.z);
  }
}
