#!/usr/bin/env bash
# Runs every Lathe test: installs what the tests need (scripts/setup.sh), then
# format and lint checks, then the whole workspace's tests. Tests that need
# external inputs (LLVM 22, the jax wheel) fail rather than skip here, and
# the generator's regeneration check (crates/isa/tests/regen.rs) runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export LATHE_REQUIRE_EXTERNAL=1
cargo fmt --all -- --check
cargo fmt --all --manifest-path fuzz/Cargo.toml -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
# The fuzz targets (a separate workspace: cargo-fuzz needs nightly to run
# them) are type-checked and linted on stable, so they cannot rot unseen.
# Not --locked: fuzz/Cargo.lock follows the crates' dependencies.
cargo clippy --manifest-path fuzz/Cargo.toml --all-targets --target-dir target/fuzz -- -D warnings
# Build first: cargo test does not build the HSA runtime's cdylib
# (libhsa_runtime64.so), which the hsa and `lathe exec` tests load.
cargo build --workspace --locked --profile ci
cargo test --workspace --locked --profile ci
