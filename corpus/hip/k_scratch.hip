// Verification corpus: non-inlined and recursive device functions, stack
// arrays and large dynamically indexed local arrays (scratch memory).
// Recursion depth differs from lane to lane.
#include "lathe_hip_extra.h"

// Recursion with an array on each frame; all arithmetic wraps (u32).
__device__ __noinline__ unsigned rec_mix(int depth, unsigned seed) {
  unsigned arr[8];
  for (int j = 0; j < 8; ++j) arr[j] = seed * (unsigned)(2 * j + 1) + (seed >> j);
  if (depth == 0) return arr[seed & 7];
  unsigned r = rec_mix(depth - 1, arr[(seed >> 3) & 7] ^ (unsigned)depth);
  arr[r & 7] += r;
  return arr[(r >> 3) & 7] ^ arr[r & 7];
}

__device__ __noinline__ int fib_rec(int k) { return k < 2 ? k : fib_rec(k - 1) + fib_rec(k - 2); }

// out[2i] = rec_mix(in[i] % 10, in[i]); out[2i+1] = fib(in[i] % 16).
__global__ void recursion_mix(unsigned *out, const unsigned *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned x = in[i];
    out[2 * i] = rec_mix((int)(x % 10u), x);
    out[2 * i + 1] = (unsigned)fib_rec((int)(x % 16u));
  }
}

__device__ __noinline__ int ackermann(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
}

// out[i] = A(m[i], n[i]) (m <= 3, small n).
__global__ void ackermann_kernel(int *out, const int *m, const int *nv, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ackermann(m[i], nv[i]);
}

// A 200-entry private array with data-dependent indices:
// arr[j] = s*j + (j ^ i); for k < nidx: arr[(idx[k] + i) % 200] +=
// arr[(7k + i) % 200] ^ k; out[i] = fold h = h*31 + arr[j] (all u32).
__global__ void local_array_dyn(unsigned *out, const unsigned *in, const unsigned *idx, int n,
                                int nidx) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned arr[200];
  unsigned s = in[i];
  for (int j = 0; j < 200; ++j) arr[j] = s * (unsigned)j + ((unsigned)j ^ (unsigned)i);
  for (int k = 0; k < nidx; ++k) {
    unsigned a = (idx[k] + (unsigned)i) % 200u;
    unsigned b = ((unsigned)k * 7u + (unsigned)i) % 200u;
    arr[a] += arr[b] ^ (unsigned)k;
  }
  unsigned h = 0;
  for (int j = 0; j < 200; ++j) h = h * 31u + arr[j];
  out[i] = h;
}

// Hoare-partition quicksort on a private array passed by pointer.
__device__ __noinline__ void qsort_rec(int *a, int lo, int hi) {
  if (lo >= hi) return;
  int p = a[(lo + hi) / 2];
  int i = lo, j = hi;
  while (i <= j) {
    while (a[i] < p) ++i;
    while (a[j] > p) --j;
    if (i <= j) {
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
      ++i;
      --j;
    }
  }
  qsort_rec(a, lo, j);
  qsort_rec(a, i, hi);
}

// Each of n work-items sorts its own 24 values.
__global__ void sort_local(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int a[24];
  for (int j = 0; j < 24; ++j) a[j] = in[i * 24 + j];
  qsort_rec(a, 0, 23);
  for (int j = 0; j < 24; ++j) out[i * 24 + j] = a[j];
}
