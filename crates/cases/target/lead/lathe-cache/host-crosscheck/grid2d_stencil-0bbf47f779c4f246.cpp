#include "lathe_hip_extra.h"
#include "/work/main/corpus/hip/k_grid.hip"
int main(int, char **argv) {
  auto bufs = lathe_read(argv[1]);
  blockDim = {16u, 8u, 1u};
  for (unsigned z = 0; z < 1u; ++z) for (unsigned y = 0; y < 45u; ++y) for (unsigned x = 0; x < 70u; ++x) {
    blockIdx = {x / 16u, y / 8u, z / 1u};
    threadIdx = {x % 16u, y % 8u, z % 1u};
    grid2d_stencil(LatheArg{bufs[0].data(), 0, 0}, LatheArg{bufs[1].data(), 0, 0}, LatheArg{0, 70LL, 0}, LatheArg{0, 45LL, 0});
  }
  FILE *f = fopen(argv[2], "wb");
  for (auto &b : bufs) lathe_write(f, b.data(), b.size());
  fclose(f);
  return 0;
}
