// Verification corpus: global and LDS atomics. Every final value checked is
// independent of the order in which the lanes' atomics happen.
#include "lathe_hip_extra.h"

// res[0] += x; res[1] = min; res[2] = max (signed); res[3] = umin;
// res[4] = umax; res[5] &= x; res[6] |= x; res[7] ^= x.
__global__ void atomic_int_ops(int *res, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = in[i];
    atomicAdd(&res[0], x);
    atomicMin(&res[1], x);
    atomicMax(&res[2], x);
    atomicMin((unsigned *)&res[3], (unsigned)x);
    atomicMax((unsigned *)&res[4], (unsigned)x);
    atomicAnd((unsigned *)&res[5], (unsigned)x);
    atomicOr((unsigned *)&res[6], (unsigned)x);
    atomicXor((unsigned *)&res[7], (unsigned)x);
  }
}

// tickets[i] = old value of counter[0] (a permutation of 0..n-1);
// counter[1] counts with wrap at 9 (atomic inc: n % 10 at the end).
__global__ void atomic_ticket(unsigned *counter, unsigned *tickets, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    tickets[i] = atomicAdd(&counter[0], 1u);
    atomicInc(&counter[1], 9u);
  }
}

// CAS loops: res_f[0] = max of in (float compare), sum64[0] += bits of in as
// u64 (64-bit CAS), sum64[1] += (u64)i * i (64-bit atomic add).
__global__ void atomic_cas_loops(float *res_f, lathe_u64 *sum64, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = in[i];
    unsigned *p = (unsigned *)res_f;
    unsigned old = *(volatile unsigned *)p;
    while (__builtin_bit_cast(float, old) < x) {
      unsigned seen = atomicCAS(p, old, __builtin_bit_cast(unsigned, x));
      if (seen == old) break;
      old = seen;
    }
    lathe_u64 add = (lathe_u64)__builtin_bit_cast(unsigned, x);
    lathe_u64 o64 = *(volatile lathe_u64 *)sum64;
    for (;;) {
      lathe_u64 seen = atomicCAS(sum64, o64, o64 + add);
      if (seen == o64) break;
      o64 = seen;
    }
    atomicAdd(&sum64[1], (lathe_u64)i * (lathe_u64)i);
  }
}

// Float and double atomic adds of integer-valued inputs (exact in any order).
__global__ void atomic_fadd(float *accf, double *accd, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&accf[i & 3], in[i]);
    atomicAdd(&accd[i & 1], (double)in[i] * 1024.0);
  }
}

// LDS histogram of (in & 63) per block, merged with global atomics; plus the
// block's min and max in LDS (ds_min/ds_max), merged into gmin/gmax.
// nbins <= 64, blockDim.x = 256, grid rounded up to whole workgroups.
__global__ void histogram_lds(unsigned *hist, unsigned *gminmax, const unsigned *in, int n,
                              int nbins) {
  __shared__ unsigned bins[64];
  __shared__ unsigned bmin, bmax;
  unsigned t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  if (t < 64) bins[t] = 0;
  if (t == 0) {
    bmin = 0xffffffffu;
    bmax = 0;
  }
  __syncthreads();
  if (i < n) {
    unsigned x = in[i];
    atomicAdd(&bins[x % (unsigned)nbins], 1u);
    atomicMin(&bmin, x);
    atomicMax(&bmax, x);
  }
  __syncthreads();
  if ((int)t < nbins && bins[t] != 0) atomicAdd(&hist[t], bins[t]);
  if (t == 0) {
    atomicMin(&gminmax[0], bmin);
    atomicMax(&gminmax[1], bmax);
  }
}
