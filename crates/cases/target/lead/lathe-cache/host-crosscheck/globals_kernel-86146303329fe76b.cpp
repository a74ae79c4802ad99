#include "lathe_hip_extra.h"
#include "/work/main/corpus/hip/k_globals.hip"
int main(int, char **argv) {
  auto bufs = lathe_read(argv[1]);
  blockDim = {128u, 1u, 1u};
  for (unsigned z = 0; z < 1u; ++z) for (unsigned y = 0; y < 1u; ++y) for (unsigned x = 0; x < 300u; ++x) {
    blockIdx = {x / 128u, y / 1u, z / 1u};
    threadIdx = {x % 128u, y % 1u, z % 1u};
    globals_kernel(LatheArg{bufs[0].data(), 0, 0}, LatheArg{0, 300LL, 0});
  }
  FILE *f = fopen(argv[2], "wb");
  for (auto &b : bufs) lathe_write(f, b.data(), b.size());
  lathe_write(f, &kg_results, 256);
  lathe_write(f, &kg_counter, 4);
  lathe_write(f, &kg_managed, 4);
  fclose(f);
  return 0;
}
