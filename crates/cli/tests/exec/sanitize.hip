// Driven by `lathe exec --check …` in crates/cli/tests/exec_check.rs, built
// with -g. One bug per mode; the line of each bug is marked `BUG:` and the
// test finds it by that mark.
//   sanitize oob        a kernel writes 4 floats past a 4,000-byte buffer
//   sanitize page       the last block's thread writes one float past the
//                       end (same 4 KiB page)
//   sanitize uaf        a kernel writes a buffer after hipFree
//   sanitize uninit     a kernel reads a buffer nothing wrote
//   sanitize lds_uninit a kernel reads shared memory nothing wrote
//   sanitize divergent  __syncthreads() inside if (threadIdx.x < 128) of a
//                       256-thread block
//   sanitize ok         dynamic LDS, atomics and barriers, all correct
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x) do { hipError_t e_ = (x); if (e_ != hipSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, hipGetErrorString(e_)); exit(2); } } while (0)

__global__ void fill_past(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n + 4) x[i] = 1.0f;  // BUG: oob
}

__global__ void last_block(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) x[i] = 2.0f;  // BUG: page
}

__global__ void store_after_free(int* p) {
  p[threadIdx.x] = 7;  // BUG: uaf
}

__global__ void sum_unwritten(const int* in, int* out) {
  int v = in[threadIdx.x];  // BUG: uninit
  atomicAdd(out, v);
}

__global__ void lds_unwritten(int* out) {
  __shared__ int tile[128];
  if (threadIdx.x < 64) tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x];  // BUG: lds_uninit
}

__global__ void divergent_barrier(int* out) {
  __shared__ int s[256];
  s[threadIdx.x] = threadIdx.x;
  if (threadIdx.x < 128) {
    __syncthreads();  // BUG: divergent
    out[threadIdx.x] = s[255 - threadIdx.x];
  }
}

// Correct: block sums through dynamic LDS with barriers, then atomics.
__global__ void block_sums(const int* in, int* total, int n) {
  extern __shared__ int part[];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  part[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(total, part[0]);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "ok";
  if (strcmp(mode, "oob") == 0) {
    float* d;
    CHECK(hipMalloc(&d, 4000));
    CHECK(hipMemset(d, 0, 4000));
    hipLaunchKernelGGL(fill_past, dim3(4), dim3(256), 0, 0, d, 1000);
    CHECK(hipDeviceSynchronize());
    float h;
    CHECK(hipMemcpy(&h, d, 4, hipMemcpyDeviceToHost));
    printf("oob: %g\n", h);
    CHECK(hipFree(d));
  } else if (strcmp(mode, "page") == 0) {
    int n = 1000;
    float* d;
    CHECK(hipMalloc(&d, n * sizeof(float)));
    hipLaunchKernelGGL(last_block, dim3((n + 255) / 256), dim3(256), 0, 0, d, n);
    CHECK(hipDeviceSynchronize());
    printf("page: done\n");
    CHECK(hipFree(d));
  } else if (strcmp(mode, "uaf") == 0) {
    int* d;
    CHECK(hipMalloc(&d, 256 * sizeof(int)));
    CHECK(hipFree(d));
    hipLaunchKernelGGL(store_after_free, dim3(1), dim3(64), 0, 0, d);
    hipError_t e = hipDeviceSynchronize();
    printf("uaf: %s\n", hipGetErrorString(e));
  } else if (strcmp(mode, "uninit") == 0) {
    int *in, *out;
    CHECK(hipMalloc(&in, 64 * sizeof(int)));
    CHECK(hipMalloc(&out, sizeof(int)));
    CHECK(hipMemset(out, 0, sizeof(int)));
    hipLaunchKernelGGL(sum_unwritten, dim3(1), dim3(64), 0, 0, in, out);
    int h;
    CHECK(hipMemcpy(&h, out, sizeof(int), hipMemcpyDeviceToHost));
    printf("uninit: %d\n", h);
  } else if (strcmp(mode, "lds_uninit") == 0) {
    int* out;
    CHECK(hipMalloc(&out, 128 * sizeof(int)));
    hipLaunchKernelGGL(lds_unwritten, dim3(1), dim3(128), 0, 0, out);
    CHECK(hipDeviceSynchronize());
    printf("lds_uninit: done\n");
  } else if (strcmp(mode, "divergent") == 0) {
    int* out;
    CHECK(hipMalloc(&out, 256 * sizeof(int)));
    hipLaunchKernelGGL(divergent_barrier, dim3(1), dim3(256), 0, 0, out);
    CHECK(hipDeviceSynchronize());
    printf("divergent: done\n");
  } else if (strcmp(mode, "ok") == 0) {
    int n = 3000;
    std::vector<int> h(n);
    long want = 0;
    for (int i = 0; i < n; i++) {
      h[i] = i % 13;
      want += h[i];
    }
    int *in, *total;
    CHECK(hipMalloc(&in, n * sizeof(int)));
    CHECK(hipMalloc(&total, sizeof(int)));
    CHECK(hipMemcpy(in, h.data(), n * sizeof(int), hipMemcpyHostToDevice));
    CHECK(hipMemset(total, 0, sizeof(int)));
    hipLaunchKernelGGL(block_sums, dim3((n + 255) / 256), dim3(256), 256 * sizeof(int), 0, in,
                       total, n);
    int got;
    CHECK(hipMemcpy(&got, total, sizeof(int), hipMemcpyDeviceToHost));
    printf("ok: %d %s\n", got, got == want ? "match" : "MISMATCH");
    CHECK(hipFree(in));
    CHECK(hipFree(total));
    return got == want ? 0 : 1;
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 3;
  }
  return 0;
}
