// Driven by `lathe exec --capture` in crates/cli/tests/exec_capture.rs:
// a kernel that touches a 4 KiB vector while the program also holds a
// 16 MiB buffer it filled but no kernel reads. A capsule of `bump`
// stores the vector's page, not the big buffer (only its base and size).
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x) do { hipError_t e_ = (x); if (e_ != hipSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, hipGetErrorString(e_)); exit(2); } } while (0)

__global__ void bump(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 3 * i + 1;
}

int main() {
  const size_t big = 16 << 20;
  const int n = 1024;
  std::vector<char> fill(big, 0x5a);
  char* unused;
  CHECK(hipMalloc(&unused, big));
  CHECK(hipMemcpy(unused, fill.data(), big, hipMemcpyHostToDevice));
  std::vector<int> h(n);
  for (int i = 0; i < n; i++) h[i] = 7 * i;
  int* x;
  CHECK(hipMalloc(&x, n * sizeof(int)));
  CHECK(hipMemcpy(x, h.data(), n * sizeof(int), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(bump, dim3(n / 256), dim3(256), 0, 0, x, n);
  CHECK(hipMemcpy(h.data(), x, n * sizeof(int), hipMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i++)
    if (h[i] != 10 * i + 1) bad++;
  printf("unused: %s\n", bad ? "wrong" : "ok");
  CHECK(hipFree(x));
  CHECK(hipFree(unused));
  return bad ? 1 : 0;
}
