#include "lathe_hip_extra.h"
#include "/work/main/corpus/hip/k_grid.hip"
int main(int, char **argv) {
  auto bufs = lathe_read(argv[1]);
  blockDim = {4u, 4u, 2u};
  for (unsigned z = 0; z < 5u; ++z) for (unsigned y = 0; y < 7u; ++y) for (unsigned x = 0; x < 13u; ++x) {
    blockIdx = {x / 4u, y / 4u, z / 2u};
    threadIdx = {x % 4u, y % 4u, z % 2u};
    grid3d_ids(LatheArg{bufs[0].data(), 0, 0}, LatheArg{bufs[1].data(), 0, 0}, LatheArg{bufs[2].data(), 0, 0}, LatheArg{0, 13LL, 0}, LatheArg{0, 7LL, 0}, LatheArg{0, 5LL, 0});
  }
  FILE *f = fopen(argv[2], "wb");
  for (auto &b : bufs) lathe_write(f, b.data(), b.size());
  fclose(f);
  return 0;
}
