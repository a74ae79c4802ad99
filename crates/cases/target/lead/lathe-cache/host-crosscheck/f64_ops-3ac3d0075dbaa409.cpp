#include "lathe_hip_extra.h"
#include "/work/main/corpus/hip/k_f64_f16.hip"
int main(int, char **argv) {
  auto bufs = lathe_read(argv[1]);
  blockDim = {128u, 1u, 1u};
  for (unsigned z = 0; z < 1u; ++z) for (unsigned y = 0; y < 1u; ++y) for (unsigned x = 0; x < 500u; ++x) {
    blockIdx = {x / 128u, y / 1u, z / 1u};
    threadIdx = {x % 128u, y % 1u, z % 1u};
    f64_ops(LatheArg{bufs[0].data(), 0, 0}, LatheArg{bufs[1].data(), 0, 0}, LatheArg{bufs[2].data(), 0, 0}, LatheArg{bufs[3].data(), 0, 0}, LatheArg{0, 500LL, 0});
  }
  FILE *f = fopen(argv[2], "wb");
  for (auto &b : bufs) lathe_write(f, b.data(), b.size());
  fclose(f);
  return 0;
}
