// hipModuleLoad / hipModuleLoadData / hipModuleGetFunction /
// hipModuleLaunchKernel on a code object built separately (argv[1]).
#include "common.h"
#include <fstream>
#include <iterator>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: modules CODE_OBJECT\n"); return 2; }
  const int n = 3000;
  hipModule_t m1, m2;
  CHECK(hipModuleLoad(&m1, argv[1]));
  std::ifstream f(argv[1], std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  CHECK(hipModuleLoadData(&m2, bytes.data()));
  hipFunction_t mixk, scalek;
  CHECK(hipModuleGetFunction(&mixk, m1, "mix_kernel"));
  CHECK(hipModuleGetFunction(&scalek, m2, "scale_kernel"));
  hipFunction_t missing;
  EXPECT(hipModuleGetFunction(&missing, m1, "no_such_kernel") != hipSuccess, "a missing kernel was found");

  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; i++) in[i] = i * 7 - 100;
  int *din, *dout;
  CHECK(hipMalloc(&din, n * sizeof(int)));
  CHECK(hipMalloc(&dout, n * sizeof(int)));
  CHECK(hipMemcpy(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
  struct { int* out; const int* in; int n; } args1 = {dout, din, n};
  size_t size1 = sizeof(args1);
  void* cfg1[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args1, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size1, HIP_LAUNCH_PARAM_END};
  CHECK(hipModuleLaunchKernel(mixk, (n + 127) / 128, 1, 1, 128, 1, 1, 0, 0, nullptr, cfg1));
  CHECK(hipMemcpy(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT(out[i] == in[i] * 31 + (i ^ 0x55), "mix[%d] = %d", i, out[i]);

  std::vector<float> y(n), y2(n);
  for (int i = 0; i < n; i++) y[i] = i * 0.25f;
  float* dy;
  CHECK(hipMalloc(&dy, n * sizeof(float)));
  CHECK(hipMemcpy(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice));
  float a = -1.5f;
  int nn = n;
  void* params[] = {&dy, &a, &nn};
  CHECK(hipModuleLaunchKernel(scalek, (n + 255) / 256, 1, 1, 256, 1, 1, 0, 0, params, nullptr));
  CHECK(hipMemcpy(y2.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT(y2[i] == y[i] * a, "scale[%d] = %f", i, y2[i]);

  CHECK(hipModuleUnload(m1));
  CHECK(hipModuleUnload(m2));
  return finish("modules");
}
