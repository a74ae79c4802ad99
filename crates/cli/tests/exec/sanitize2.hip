// Driven by `lathe exec --check …` in crates/cli/tests/exec_check.rs, built
// with -g: racecheck, and the memcheck/synccheck cases sanitize.hip does not
// cover. The lines the tests look for are marked `AT: NAME`.
//   sanitize2 race_dyn     a rotate through dynamic LDS with no barrier
//                          between the store and the load
//   sanitize2 race_reduce  the classic reduction missing the
//                          __syncthreads() after the store
//   sanitize2 same_inst    two lanes of one store write different values
//                          to one LDS word
//   sanitize2 misaligned   an atomic at an address 2 bytes off
//   sanitize2 scratch      a private array written past its end
//   sanitize2 lds_past     dynamic LDS written one element past its size
//   sanitize2 divergent_fn __syncthreads() in a noinline device
//                          function called by half the block
//   sanitize2 ok [N]       dynamic LDS, LDS and global atomics, barriers:
//                          all correct, checked against the host
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x) do { hipError_t e_ = (x); if (e_ != hipSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, hipGetErrorString(e_)); exit(2); } } while (0)

__global__ void rotate_dyn(int* out) {
  extern __shared__ int buf[];
  int t = threadIdx.x;
  buf[t] = t * 3 + 1;  // AT: race_dyn_store
  out[t] = buf[(t + 64) % blockDim.x];  // AT: race_dyn_load
}

__global__ void reduce_nosync(const int* in, int* out) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];  // AT: reduce_store
  for (int k = 128; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];  // AT: reduce_add
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void same_word(int* out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = 0;
  __syncthreads();
  s[t / 2] = t;  // AT: same_inst
  __syncthreads();
  out[t] = s[t];
}

__global__ void misaligned_atomic(int* p) {
  int* q = (int*)((char*)p + 2);
  atomicAdd(q + threadIdx.x, 1);  // AT: misaligned
}

__global__ void private_past(int* out, int k) {
  int a[256];
  for (int j = 0; j < 256; j++) a[j] = j ^ threadIdx.x;
  if (threadIdx.x < 64) a[k + threadIdx.x] = 1;  // AT: scratch
  out[threadIdx.x] = a[(threadIdx.x * 7) & 255];
}

__global__ void lds_past(int* out) {
  extern __shared__ int d[];
  int t = threadIdx.x;
  d[t + 1] = t;  // AT: lds_past
  __syncthreads();
  out[t] = d[t];
}

// (`__noinline__` is empty in HIP 5.2's headers: the attribute itself.)
__device__ __attribute__((noinline)) void wait_all(int* s, int t) {
  s[t] += 1;
  __syncthreads();  // AT: divergent_fn
}

__global__ void divergent_call(int* out) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = t;
  if (t < 128) {
    wait_all(s, t);
    out[t] = s[255 - t];
  }
}

// Correct: a histogram in LDS with LDS atomics, block sums through dynamic
// LDS with barriers, global atomics for the totals.
__global__ void hist_sums(const int* in, int* hist, int* total, int n) {
  extern __shared__ int part[];
  __shared__ int bins[16];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  if (t < 16) bins[t] = 0;
  int v = i < n ? in[i] : 0;
  part[t] = v;
  __syncthreads();
  if (i < n) atomicAdd(&bins[v & 15], 1);
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t < 16) atomicAdd(&hist[t], bins[t]);
  if (t == 0) atomicAdd(total, part[0]);
}

static int* dev(int n) {
  int* d;
  CHECK(hipMalloc(&d, n * sizeof(int)));
  CHECK(hipMemset(d, 0, n * sizeof(int)));
  return d;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "ok";
  if (strcmp(mode, "race_dyn") == 0) {
    int* out = dev(128);
    hipLaunchKernelGGL(rotate_dyn, dim3(1), dim3(128), 128 * sizeof(int), 0, out);
    CHECK(hipDeviceSynchronize());
    printf("race_dyn: done\n");
  } else if (strcmp(mode, "race_reduce") == 0) {
    std::vector<int> h(512, 1);
    int* in = dev(512);
    int* out = dev(2);
    CHECK(hipMemcpy(in, h.data(), 512 * sizeof(int), hipMemcpyHostToDevice));
    hipLaunchKernelGGL(reduce_nosync, dim3(2), dim3(256), 0, 0, in, out);
    int got[2];
    CHECK(hipMemcpy(got, out, sizeof got, hipMemcpyDeviceToHost));
    printf("race_reduce: %d %d (256 each when ordered)\n", got[0], got[1]);
  } else if (strcmp(mode, "same_inst") == 0) {
    int* out = dev(64);
    hipLaunchKernelGGL(same_word, dim3(1), dim3(64), 0, 0, out);
    CHECK(hipDeviceSynchronize());
    printf("same_inst: done\n");
  } else if (strcmp(mode, "misaligned") == 0) {
    int* p = dev(128);
    hipLaunchKernelGGL(misaligned_atomic, dim3(1), dim3(64), 0, 0, p);
    hipError_t e = hipDeviceSynchronize();
    printf("misaligned: %s\n", hipGetErrorString(e));
  } else if (strcmp(mode, "scratch") == 0) {
    int* out = dev(128);
    hipLaunchKernelGGL(private_past, dim3(1), dim3(128), 0, 0, out, 256);
    CHECK(hipDeviceSynchronize());
    printf("scratch: done\n");
  } else if (strcmp(mode, "lds_past") == 0) {
    int* out = dev(64);
    hipLaunchKernelGGL(lds_past, dim3(1), dim3(64), 64 * sizeof(int), 0, out);
    hipError_t e = hipDeviceSynchronize();
    printf("lds_past: %s\n", hipGetErrorString(e));
  } else if (strcmp(mode, "divergent_fn") == 0) {
    int* out = dev(256);
    hipLaunchKernelGGL(divergent_call, dim3(1), dim3(256), 0, 0, out);
    CHECK(hipDeviceSynchronize());
    printf("divergent_fn: done\n");
  } else if (strcmp(mode, "ok") == 0) {
    int n = argc > 2 ? atoi(argv[2]) : 3000;  // larger in bench/exec_check.py
    std::vector<int> h(n), want_hist(16, 0);
    long want = 0;
    for (int i = 0; i < n; i++) {
      h[i] = (i * 7) % 23;
      want += h[i];
      want_hist[h[i] & 15]++;
    }
    int* in = dev(n);
    int* hist = dev(16);
    int* total = dev(1);
    CHECK(hipMemcpy(in, h.data(), n * sizeof(int), hipMemcpyHostToDevice));
    hipLaunchKernelGGL(hist_sums, dim3((n + 255) / 256), dim3(256), 256 * sizeof(int), 0, in,
                       hist, total, n);
    int got, got_hist[16];
    CHECK(hipMemcpy(&got, total, sizeof(int), hipMemcpyDeviceToHost));
    CHECK(hipMemcpy(got_hist, hist, sizeof got_hist, hipMemcpyDeviceToHost));
    bool ok = got == want;
    for (int b = 0; b < 16; b++) ok = ok && got_hist[b] == want_hist[b];
    printf("ok: %d %s\n", got, ok ? "match" : "MISMATCH");
    return ok ? 0 : 1;
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 3;
  }
  return 0;
}
