// Driven by `lathe exec --tool mem-trace` in crates/cli/tests/exec_memtrace.rs:
// one kernel touching global memory, LDS (__shared__), a private array
// indexed at run time (scratch) and, through a generic pointer in a
// device function that is not inlined, both (flat); launched twice.
// Checks its result on the host; prints "memspaces: ok".
#include <hip/hip_runtime.h>
#include <cstdio>

__device__ __attribute__((noinline)) int twice(const int* p) { return 2 * *p; }

__global__ void spaces(const int* in, int* out, int k) {
  __shared__ int tile[64];
  int t = threadIdx.x;
  tile[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  volatile int priv[16];
  for (int i = 0; i < 16; i++) priv[i] = i * k;
  int v = tile[t ^ 63] + priv[(t + k) & 15];
  out[blockIdx.x * 64 + t] = v + twice(&in[t]);
}

int main() {
  const int n = 128;
  int h[n], r[n];
  for (int i = 0; i < n; i++) h[i] = i;
  int *in, *out;
  if (hipMalloc(&in, sizeof h) != hipSuccess || hipMalloc(&out, sizeof h) != hipSuccess) return 2;
  hipMemcpy(in, h, sizeof h, hipMemcpyHostToDevice);
  for (int k = 1; k <= 2; k++) {
    hipLaunchKernelGGL(spaces, dim3(n / 64), dim3(64), 0, 0, in, out, k);
    hipMemcpy(r, out, sizeof r, hipMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) {
      int b = i / 64, t = i % 64;
      int want = h[b * 64 + 63 - t] + ((t + k) & 15) * k + 2 * h[t];
      if (r[i] != want) {
        printf("memspaces: [%d] = %d, want %d\n", i, r[i], want);
        return 1;
      }
    }
  }
  printf("memspaces: ok\n");
  return 0;
}
