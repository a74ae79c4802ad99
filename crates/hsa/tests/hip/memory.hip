// Pinned host memory (hipHostMalloc, hipHostRegister), managed memory
// (hipMallocManaged, __managed__), __device__ and __constant__ globals with
// hipMemcpyToSymbol / hipMemcpyFromSymbol, all used by kernels.
#include "common.h"
#include <vector>

__device__ int dev_table[256];
__constant__ float coeffs[4];
__managed__ int managed_counter;

__global__ void scale(int* out, const int* in, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * k + dev_table[i % 256];
}

__global__ void poly(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float v = x[i]; y[i] = coeffs[0] + v * (coeffs[1] + v * (coeffs[2] + v * coeffs[3])); }
}

__global__ void bump(int* table, int* managed_buf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 256) table[i] += 1;
  if (i < n) managed_buf[i] = managed_buf[i] * 2 + 1;
  if (i == 0) managed_counter += 7;
}

int main() {
  const int n = 4096;
  // __device__ table via hipMemcpyToSymbol.
  std::vector<int> table(256);
  for (int i = 0; i < 256; i++) table[i] = 1000 * i;
  CHECK(hipMemcpyToSymbol(HIP_SYMBOL(dev_table), table.data(), sizeof(int) * 256));

  // Pinned: hipHostMalloc buffers read and written by the kernel directly.
  int *hin, *hout;
  CHECK(hipHostMalloc(&hin, n * sizeof(int)));
  CHECK(hipHostMalloc(&hout, n * sizeof(int)));
  for (int i = 0; i < n; i++) { hin[i] = i - 77; hout[i] = -1; }
  hipLaunchKernelGGL(scale, dim3(n / 256), dim3(256), 0, 0, hout, hin, 3, n);
  CHECK(hipDeviceSynchronize());
  for (int i = 0; i < n; i++) EXPECT(hout[i] == (i - 77) * 3 + 1000 * (i % 256), "pinned out[%d] = %d", i, hout[i]);

  // hipHostRegister on malloc'ed memory, used through its device pointer.
  int* reg_in = (int*)malloc(n * sizeof(int));
  int* reg_out = (int*)malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) { reg_in[i] = 5 * i; reg_out[i] = 0; }
  CHECK(hipHostRegister(reg_in, n * sizeof(int), hipHostRegisterDefault));
  CHECK(hipHostRegister(reg_out, n * sizeof(int), hipHostRegisterDefault));
  int *d_in, *d_out;
  CHECK(hipHostGetDevicePointer((void**)&d_in, reg_in, 0));
  CHECK(hipHostGetDevicePointer((void**)&d_out, reg_out, 0));
  hipLaunchKernelGGL(scale, dim3(n / 256), dim3(256), 0, 0, d_out, d_in, -2, n);
  CHECK(hipDeviceSynchronize());
  for (int i = 0; i < n; i++) EXPECT(reg_out[i] == -10 * i + 1000 * (i % 256), "registered out[%d] = %d", i, reg_out[i]);
  CHECK(hipHostUnregister(reg_in));
  CHECK(hipHostUnregister(reg_out));
  free(reg_in); free(reg_out);

  // __constant__ coefficients.
  float c[4] = {1.0f, -2.0f, 0.5f, 0.25f};
  CHECK(hipMemcpyToSymbol(HIP_SYMBOL(coeffs), c, sizeof(c)));
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; i++) x[i] = (i % 97) * 0.125f - 3.0f;
  float *dx, *dy;
  CHECK(hipMalloc(&dx, n * sizeof(float)));
  CHECK(hipMalloc(&dy, n * sizeof(float)));
  CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(poly, dim3(n / 256), dim3(256), 0, 0, dy, dx, n);
  CHECK(hipMemcpy(y.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    float v = x[i];
    float want = c[0] + v * (c[1] + v * (c[2] + v * c[3]));
    EXPECT(y[i] == want, "poly y[%d] = %f want %f", i, y[i], want);
  }

  // Managed memory: hipMallocManaged buffer and a __managed__ variable.
  int* m;
  CHECK(hipMallocManaged(&m, n * sizeof(int)));
  for (int i = 0; i < n; i++) m[i] = i;
  managed_counter = 35;
  int* table_dummy;
  CHECK(hipMalloc(&table_dummy, 256 * sizeof(int)));
  hipLaunchKernelGGL(bump, dim3(n / 256), dim3(256), 0, 0, table_dummy, m, n);
  CHECK(hipDeviceSynchronize());
  for (int i = 0; i < n; i++) EXPECT(m[i] == 2 * i + 1, "managed m[%d] = %d", i, m[i]);
  EXPECT(managed_counter == 42, "__managed__ counter = %d, want 42", managed_counter);

  // hipMemcpyFromSymbol after a kernel updated the __device__ table.
  int* table_ptr;
  CHECK(hipGetSymbolAddress((void**)&table_ptr, HIP_SYMBOL(dev_table)));
  hipLaunchKernelGGL(bump, dim3(1), dim3(256), 0, 0, table_ptr, m, 0);
  CHECK(hipDeviceSynchronize());
  std::vector<int> back(256);
  CHECK(hipMemcpyFromSymbol(back.data(), HIP_SYMBOL(dev_table), sizeof(int) * 256));
  for (int i = 0; i < 256; i++) EXPECT(back[i] == 1000 * i + 1, "dev_table[%d] = %d", i, back[i]);

  CHECK(hipHostFree(hin)); CHECK(hipHostFree(hout));
  CHECK(hipFree(dx)); CHECK(hipFree(dy)); CHECK(hipFree(m));
  return finish("memory");
}
