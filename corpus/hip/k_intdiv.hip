// Verification corpus: 32- and 64-bit integer division and remainder, signed
// (truncating, C semantics) and unsigned, by variable and constant divisors.
// Divisors are never 0 and INT_MIN / -1 never occurs.
#include "lathe_hip_extra.h"

__global__ void intdiv32(int *q, int *r, unsigned *uq, unsigned *ur, const int *a, const int *b,
                         int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = a[i], y = b[i];
    q[i] = x / y;
    r[i] = x % y;
    uq[i] = (unsigned)x / (unsigned)y;
    ur[i] = (unsigned)x % (unsigned)y;
  }
}

__global__ void intdiv64(lathe_i64 *q, lathe_i64 *r, lathe_u64 *uq, lathe_u64 *ur,
                         const lathe_i64 *a, const lathe_i64 *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    lathe_i64 x = a[i], y = b[i];
    q[i] = x / y;
    r[i] = x % y;
    uq[i] = (lathe_u64)x / (lathe_u64)y;
    ur[i] = (lathe_u64)x % (lathe_u64)y;
  }
}

// Six results per element: x/7, x%7, x/d, x%d, (unsigned)x/10, x/-3.
__global__ void intdiv_const(int *out, const int *a, int d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = a[i];
    int *o = out + 6 * i;
    o[0] = x / 7;
    o[1] = x % 7;
    o[2] = x / d;
    o[3] = x % d;
    o[4] = (int)((unsigned)x / 10u);
    o[5] = x / -3;
  }
}
