#!/usr/bin/env bash
# Rebuilds the demo binary embedded in the `lathe` CLI (crates/cli/demo/):
# a HIP shared library built by clang-22 from corpus/hip/vecops.hip and
# corpus/hip/reduce.hip for gfx90a and gfx942, with a zstd-compressed (CCOB v3)
# offload bundle. `lathe info` with no FILE shows it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=crates/cli/demo/libdemo.so
COMPRESSED_BUNDLE_FORMAT_VERSION=3 OFFLOAD_BUNDLER_COMPRESSION=zstd \
/usr/lib/llvm-22/bin/clang++ -x hip -nogpuinc -nogpulib -O3 -fPIC -shared \
  -I corpus/include --offload-arch=gfx90a --offload-arch=gfx942 --offload-compress \
  corpus/hip/vecops.hip corpus/hip/reduce.hip -o "$out"
/usr/lib/llvm-22/bin/llvm-strip --strip-debug "$out"
ls -l "$out"
