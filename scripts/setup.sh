#!/usr/bin/env bash
# Installs everything Lathe's tests and demos need on a fresh Debian 12 machine.
# Idempotent and non-interactive. Safe to run again.
#   scripts/setup.sh          # tools for the tests (LLVM 22 and 15, ROCm 5.2 HIP, jax wheel)
#   scripts/setup.sh --bench  # also linux-perf for profiling the benchmarks
#   scripts/setup.sh --mutants  # also cargo-mutants (docs/mutants.md), from crates.io
#   scripts/setup.sh --fuzz     # also the nightly toolchain and cargo-fuzz (scripts/fuzz.sh)
# Every package whose programs the tests, scripts, benchmarks or README run
# is listed here; crates/testkit/tests/setup_packages.rs checks that with
# dpkg -S. Never install anything by hand: add it here and rerun.
set -euo pipefail
cd "$(dirname "$0")/.."

want=(clang-22 clang-tools-22 llvm-22 lld-22 clang-15 clang-tools-15 hipcc libamdhip64-dev rocm-device-libs libhsa-runtime-dev libamd-comgr2 librocsparse0 librocsparse-dev librocrand-dev gcc g++ python3 python3-minimal python3-pip)
if [[ "${1:-}" == "--bench" ]]; then
  want+=(linux-perf make)
fi

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# jax-rocm7-plugin 0.10.2: real CCOB v3 bundles for ~20 targets.
cache=.cache
wheel_dir=$cache/wheels
jax_dir=$cache/jax-rocm7-plugin
if [[ ! -d $jax_dir/jax_rocm7_plugin ]]; then
  mkdir -p "$wheel_dir"
  if ! ls "$wheel_dir"/jax_rocm7_plugin-0.10.2-*.whl >/dev/null 2>&1; then
    echo "setup: downloading jax-rocm7-plugin==0.10.2" >&2
    python3 -m pip download -q --no-deps --only-binary=:all: \
      --python-version 3.11 --platform manylinux_2_27_x86_64 \
      -d "$wheel_dir" jax-rocm7-plugin==0.10.2
  fi
  rm -rf "$jax_dir.tmp"
  mkdir -p "$jax_dir.tmp"
  python3 -m zipfile -e "$wheel_dir"/jax_rocm7_plugin-0.10.2-*.whl "$jax_dir.tmp"
  mv "$jax_dir.tmp" "$jax_dir"
fi

if ! command -v cargo >/dev/null; then
  echo "setup: cargo is required (rustup)" >&2
  exit 1
fi
if [[ "${1:-}" == "--mutants" ]] && ! command -v cargo-mutants >/dev/null; then
  echo "setup: installing cargo-mutants" >&2
  cargo install --locked cargo-mutants
fi
if [[ "${1:-}" == "--fuzz" ]]; then
  if ! rustup toolchain list | grep -q '^nightly'; then
    echo "setup: installing the nightly toolchain (cargo-fuzz builds with sanitizers)" >&2
    rustup toolchain install nightly --profile minimal
  fi
  if ! command -v cargo-fuzz >/dev/null; then
    echo "setup: installing cargo-fuzz" >&2
    cargo install --locked cargo-fuzz
  fi
fi
echo "setup: ok" >&2
