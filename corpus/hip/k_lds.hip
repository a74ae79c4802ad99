// Verification corpus: LDS tiling with barriers.
#include "lathe_hip_extra.h"

#pragma clang fp contract(off)

#define TILE 16

// out (h x w... transposed: w rows of h) = transpose of in (h rows of w).
// Block (16, 16); the grid is rounded up to whole tiles (bounds checked).
__global__ void transpose_tiled(float *out, const float *in, int w, int h) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  int ox = blockIdx.y * TILE + threadIdx.x; // column in out (= row in in)
  int oy = blockIdx.x * TILE + threadIdx.y; // row in out (= column in in)
  if (ox < h && oy < w) out[oy * h + ox] = tile[threadIdx.x][threadIdx.y];
}

// C (M x N) = A (M x K) * B (K x N), wrapping int arithmetic, 16x16 tiles.
__global__ void matmul_tiled_i32(int *C, const int *A, const int *B, int M, int N, int K) {
  __shared__ int As[TILE][TILE];
  __shared__ int Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  unsigned acc = 0;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0;
    Bs[ty][tx] = (col < N && k0 + ty < K) ? B[(k0 + ty) * N + col] : 0;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += (unsigned)As[ty][k] * (unsigned)Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = (int)acc;
}

// Float version: acc = fma(A[row][k], B[k][col], acc) for k = 0, 1, ...,
// ceil(K/16)*16 - 1 in order, with A = B = 0 past K (padding steps included).
__global__ void matmul_tiled_f32(float *C, const float *A, const float *B, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (col < N && k0 + ty < K) ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc = __builtin_fmaf(As[ty][k], Bs[k][tx], acc);
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

// 1D 3-point stencil through LDS with halos; the grid is exactly n work-items
// (the last workgroup is partial). out[i] = (in[i-1] + 2*in[i]) + in[i+1],
// with 0 outside [0, n).
__global__ void stencil_lds(float *out, const float *in, int n) {
  __shared__ float tile[256 + 2];
  int t = threadIdx.x;
  int start = blockIdx.x * blockDim.x;
  int i = start + t;
  if (i < n) tile[t + 1] = in[i];
  if (t == 0) {
    tile[0] = start > 0 ? in[start - 1] : 0.0f;
    int r = start + (int)blockDim.x;
    tile[blockDim.x + 1] = r < n ? in[r] : 0.0f;
  }
  __syncthreads();
  if (i < n) {
    float right = i + 1 < n ? tile[t + 2] : 0.0f;
    out[i] = (tile[t] + 2.0f * tile[t + 1]) + right;
  }
}

// Block tree reduction in LDS (exact, wrapping ints): blockDim.x must be a
// power of two and the grid whole workgroups; out[block] = sum of its inputs.
__global__ void block_reduce_i32(int *out, const int *in, int n) {
  __shared__ int buf[256];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + t;
  buf[t] = i < (unsigned)n ? in[i] : 0;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] = (int)((unsigned)buf[t] + (unsigned)buf[t + s]);
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}

// Each work-group of 64 reverses its slice through LDS. clang-22 -O3 reads
// tile[63 - t] as `ds_read_b32 vN, v(-4t) offset:252`: a negative base
// plus the offset, which the hardware adds in 32 bits.
__global__ void lds_reverse(float *out, const float *in) {
  __shared__ float tile[64];
  int t = threadIdx.x;
  tile[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  out[blockIdx.x * 64 + t] = tile[63 - t];
}
