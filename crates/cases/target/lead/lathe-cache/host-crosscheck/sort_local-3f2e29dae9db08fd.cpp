#include "lathe_hip_extra.h"
#include "/work/main/corpus/hip/k_scratch.hip"
int main(int, char **argv) {
  auto bufs = lathe_read(argv[1]);
  blockDim = {64u, 1u, 1u};
  for (unsigned z = 0; z < 1u; ++z) for (unsigned y = 0; y < 1u; ++y) for (unsigned x = 0; x < 100u; ++x) {
    blockIdx = {x / 64u, y / 1u, z / 1u};
    threadIdx = {x % 64u, y % 1u, z % 1u};
    sort_local(LatheArg{bufs[0].data(), 0, 0}, LatheArg{bufs[1].data(), 0, 0}, LatheArg{0, 100LL, 0});
  }
  FILE *f = fopen(argv[2], "wb");
  for (auto &b : bufs) lathe_write(f, b.data(), b.size());
  fclose(f);
  return 0;
}
