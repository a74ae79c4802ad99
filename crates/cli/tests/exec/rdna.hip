// The modelled GPU as a HIP program built for it sees it: one line of
// hipGetDeviceProperties (flushed, so it survives a stop), then with
// "launch" a kernel whose result is checked on the host.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(x) do { hipError_t e = (x); if (e != hipSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, hipGetErrorString(e)); exit(2); } } while (0)

__global__ void iota3(unsigned* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 1;
}

int main(int argc, char** argv) {
  hipDeviceProp_t p;
  CHECK(hipGetDeviceProperties(&p, 0));
  printf("device: %s, %s, %d CUs, warp %d, %zu KiB LDS, %d KiB L2, %d threads per block\n", p.name, p.gcnArchName,
         p.multiProcessorCount, p.warpSize, p.sharedMemPerBlock / 1024, p.l2CacheSize / 1024, p.maxThreadsPerBlock);
  fflush(stdout);
  if (argc < 2 || strcmp(argv[1], "launch") != 0) return 0;
  const unsigned n = 1000;
  unsigned* d;
  CHECK(hipMalloc(&d, n * sizeof(unsigned)));
  hipLaunchKernelGGL(iota3, dim3((n + 63) / 64), dim3(64), 0, 0, d, n);
  CHECK(hipGetLastError());
  unsigned h[n];
  CHECK(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost));
  for (unsigned i = 0; i < n; i++)
    if (h[i] != 3 * i + 1) { fprintf(stderr, "out[%u] = %u\n", i, h[i]); return 1; }
  printf("launch: ok\n");
  return 0;
}
