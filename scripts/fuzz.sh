#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS each (default 120) on nightly and
# prints one line per target: runs, coverage, and whether it found a crash.
# Targets run one after another, one job each; the script exits non-zero
# if any target failed (its crash input is in fuzz/artifacts/<target>/).
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#   FUZZ_SKIP="capsule" scripts/fuzz.sh 300     # every target but capsule
#   FUZZ_FLAGS=--dev scripts/fuzz.sh 300 interp  # unoptimised build (much
#                          quicker to compile on a loaded machine, slower runs)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --fuzz
cd fuzz
secs=${1:-120}
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
mkdir -p corpus
failed=0
for t in "${targets[@]}"; do
  if [[ " ${FUZZ_SKIP:-} " == *" $t "* ]]; then
    echo "$t: skipped (FUZZ_SKIP)"
    continue
  fi
  mkdir -p "corpus/$t"
  seeds="seeds/$t"
  [[ -d $seeds ]] || seeds=""
  log=$(mktemp)
  if cargo +nightly fuzz run ${FUZZ_FLAGS:-} "$t" "corpus/$t" $seeds -- -max_total_time="$secs" -rss_limit_mb=2048 -max_len=65536 >"$log" 2>&1; then
    status=ok
  else
    status="FAILED (see $log)"
    failed=1
  fi
  summary=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW)' "$log" | tail -n 1 || true)
  echo "$t: ${secs}s $status ${summary}"
done
exit $failed
