#!/usr/bin/env bash
# Runs every Lathe test: installs what the tests need (scripts/setup.sh), then
# format and lint checks, then the whole workspace's tests. Tests that need
# external inputs (LLVM 22, the jax wheel) fail rather than skip here.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export LATHE_REQUIRE_EXTERNAL=1
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked --profile ci
