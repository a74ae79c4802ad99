// Driven by `lathe exec --check racecheck` in crates/cli/tests/exec_check.rs,
// built with -g: racecheck on global memory between blocks of one launch.
// The lines the tests look for are marked `AT: NAME`.
//   sanitize3 race      each block writes its slice, then reads the first
//                       element of the next block's slice: nothing orders
//                       the read against that block's write
//   sanitize3 reduce [B] the "last block" reduction: partial sums stored
//                       plainly, __threadfence(), an atomic counter, the
//                       last block reads every partial (correct)
//   sanitize3 hist [N]  a histogram of atomics only (correct)
//   sanitize3 chain     a chained scan: block b waits for block b-1's flag
//                       (an atomic load), reads its plain prefix, stores
//                       its own and releases its flag (correct)
//   sanitize3 disjoint  blocks write disjoint bytes, some sharing a word
//                       (correct)
//   sanitize3 noret     each block writes its slot, __threadfence(), an
//                       atomicAdd whose result is dropped, then reads the
//                       slot of the block before it: a non-returning
//                       atomic observes nothing, so nothing orders the
//                       read against that block's write (a race)
// Each mode checks its result against the host and prints "match".
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x) do { hipError_t e_ = (x); if (e_ != hipSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, hipGetErrorString(e_)); exit(2); } } while (0)

__global__ void neighbour(int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = i * 7;  // AT: race_store
  int next = (blockIdx.x + 1) * blockDim.x;
  if (threadIdx.x == 0 && next < n) out[blockIdx.x] = a[next];  // AT: race_load
}

__device__ unsigned int arrived = 0;

__global__ void last_block_sum(const int* in, int* partial, int* total) {
  __shared__ int s[256];
  __shared__ bool last;
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    unsigned int v = atomicAdd(&arrived, 1);
    last = (v == gridDim.x - 1);
  }
  __syncthreads();
  if (last && t == 0) {
    int sum = 0;
    for (unsigned int b = 0; b < gridDim.x; b++) sum += partial[b];
    *total = sum;
    arrived = 0;
  }
}

__global__ void histogram(const int* in, unsigned int* bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[in[i] & 63], 1u);
}

__global__ void chain(const int* in, int* prefix, int* flag) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  if (t == 0) {
    int sum = 0;
    for (int k = 0; k < 64; k++) sum += s[k];
    int before = 0;
    if (blockIdx.x > 0) {
      while (__atomic_load_n(&flag[blockIdx.x - 1], __ATOMIC_ACQUIRE) == 0) {
      }
      before = prefix[blockIdx.x - 1];
    }
    prefix[blockIdx.x] = before + sum;
    __atomic_store_n(&flag[blockIdx.x], 1, __ATOMIC_RELEASE);
  }
}

__global__ void noret(int* slot, unsigned int* count, int* out) {
  if (threadIdx.x == 0) {
    slot[blockIdx.x] = blockIdx.x + 1;  // AT: noret_store
    __threadfence();
    atomicAdd(count, 1u);
    if (blockIdx.x > 0) out[blockIdx.x] = slot[blockIdx.x - 1];  // AT: noret_load
  }
}

__global__ void bytes(unsigned char* p) {
  // Block b writes byte b of each word: four blocks share every word.
  p[threadIdx.x * 4 + blockIdx.x] = (unsigned char)(blockIdx.x + threadIdx.x);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "reduce";
  if (strcmp(mode, "race") == 0) {
    const int blocks = 4, n = blocks * 128;
    int *a, *out;
    CHECK(hipMalloc(&a, n * sizeof(int)));
    CHECK(hipMalloc(&out, blocks * sizeof(int)));
    CHECK(hipMemset(out, 0, blocks * sizeof(int)));
    neighbour<<<blocks, 128>>>(a, out, n);
    CHECK(hipDeviceSynchronize());
    // What block b read depends on the order blocks run in: not printed.
    printf("race: done\n");
    return 0;
  }
  if (strcmp(mode, "reduce") == 0) {
    const int blocks = argc > 2 ? atoi(argv[2]) : 40, n = blocks * 256;  // larger in bench/exec_check.py
    std::vector<int> h(n);
    long want = 0;
    for (int i = 0; i < n; i++) {
      h[i] = (i * 37) % 101 - 50;
      want += h[i];
    }
    int *in, *partial, *total;
    CHECK(hipMalloc(&in, n * sizeof(int)));
    CHECK(hipMalloc(&partial, blocks * sizeof(int)));
    CHECK(hipMalloc(&total, sizeof(int)));
    CHECK(hipMemcpy(in, h.data(), n * sizeof(int), hipMemcpyHostToDevice));
    int got = 0;
    for (int rep = 0; rep < 2; rep++) {
      last_block_sum<<<blocks, 256>>>(in, partial, total);
      CHECK(hipDeviceSynchronize());
      CHECK(hipMemcpy(&got, total, sizeof(int), hipMemcpyDeviceToHost));
    }
    printf("reduce: %d %s\n", got, got == want ? "match" : "MISMATCH");
    return got == want ? 0 : 1;
  }
  if (strcmp(mode, "hist") == 0) {
    const int n = argc > 2 ? atoi(argv[2]) : 20000;  // larger in bench/exec_check.py
    std::vector<int> h(n);
    std::vector<unsigned int> want(64, 0), got(64);
    for (int i = 0; i < n; i++) {
      h[i] = (i * 2654435761u) >> 7;
      want[h[i] & 63]++;
    }
    int* in;
    unsigned int* bins;
    CHECK(hipMalloc(&in, n * sizeof(int)));
    CHECK(hipMalloc(&bins, 64 * sizeof(unsigned int)));
    CHECK(hipMemcpy(in, h.data(), n * sizeof(int), hipMemcpyHostToDevice));
    CHECK(hipMemset(bins, 0, 64 * sizeof(unsigned int)));
    histogram<<<16, 256>>>(in, bins, n);
    CHECK(hipDeviceSynchronize());
    CHECK(hipMemcpy(got.data(), bins, 64 * sizeof(unsigned int), hipMemcpyDeviceToHost));
    bool ok = got == want;
    printf("hist: %s\n", ok ? "match" : "MISMATCH");
    return ok ? 0 : 1;
  }
  if (strcmp(mode, "chain") == 0) {
    const int blocks = 24, n = blocks * 64;
    std::vector<int> h(n), got(blocks);
    for (int i = 0; i < n; i++) h[i] = i % 13;
    int *in, *prefix, *flag;
    CHECK(hipMalloc(&in, n * sizeof(int)));
    CHECK(hipMalloc(&prefix, blocks * sizeof(int)));
    CHECK(hipMalloc(&flag, blocks * sizeof(int)));
    CHECK(hipMemcpy(in, h.data(), n * sizeof(int), hipMemcpyHostToDevice));
    CHECK(hipMemset(flag, 0, blocks * sizeof(int)));
    chain<<<blocks, 64>>>(in, prefix, flag);
    CHECK(hipDeviceSynchronize());
    CHECK(hipMemcpy(got.data(), prefix, blocks * sizeof(int), hipMemcpyDeviceToHost));
    bool ok = true;
    int run = 0;
    for (int b = 0; b < blocks; b++) {
      for (int k = 0; k < 64; k++) run += h[b * 64 + k];
      ok = ok && got[b] == run;
    }
    printf("chain: %s\n", ok ? "match" : "MISMATCH");
    return ok ? 0 : 1;
  }
  if (strcmp(mode, "disjoint") == 0) {
    unsigned char* p;
    std::vector<unsigned char> got(256);
    CHECK(hipMalloc(&p, 256));
    bytes<<<4, 64>>>(p);
    CHECK(hipDeviceSynchronize());
    CHECK(hipMemcpy(got.data(), p, 256, hipMemcpyDeviceToHost));
    bool ok = true;
    for (int t = 0; t < 64; t++)
      for (int b = 0; b < 4; b++) ok = ok && got[t * 4 + b] == (unsigned char)(b + t);
    printf("disjoint: %s\n", ok ? "match" : "MISMATCH");
    return ok ? 0 : 1;
  }
  if (strcmp(mode, "noret") == 0) {
    const int blocks = 4;
    int *slot, *out;
    unsigned int* count;
    CHECK(hipMalloc(&slot, blocks * sizeof(int)));
    CHECK(hipMalloc(&out, blocks * sizeof(int)));
    CHECK(hipMalloc(&count, sizeof(unsigned int)));
    CHECK(hipMemset(count, 0, sizeof(unsigned int)));
    noret<<<blocks, 64>>>(slot, count, out);
    CHECK(hipDeviceSynchronize());
    // What block b read depends on the order blocks run in: not printed.
    printf("noret: done\n");
    return 0;
  }
  fprintf(stderr, "unknown mode %s\n", mode);
  return 2;
}
