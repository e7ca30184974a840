#!/usr/bin/env bash
# The budgets of docs/budgets.md as checks, as CI runs them (.ci/run): each benchmark with
# --check prints every figure beside its budget and the peer measured in the same run, and
# exits 1 when one is missed.
#
#     Tests/Benchmarks/budgets.sh [--write-figures docs/figures.md]
#
# - segmance-bench library --check: import per format (>= 200x real time), start to ready
#   with 200 routines (<= 150 ms, in process and the daemon cold, beside MPD cold), the
#   watchdog (WATCHDOG=1 at least every half WatchdogSec of deploy/segmance.service);
# - segmance-bench big-stick --check: the scan (<= 2 s), `segmance import` per format, the
#   daemon's resident memory while it imports (<= 20 MB; needs root for the bind mount);
# - Tests/Benchmarks/engine-bench.sh --check, shortened (WINDOW=15 ROUNDS=3 EVENTS=300 SOAK=60;
#   the full run is the default): latency, edge -> sound, CPU against aplay, RSS, start -> ready.
# Built as the package is (release, --static-swift-stdlib, in deploy/build-deb.sh's .build-deb).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
deploy/install-deps.sh >/dev/null
deploy/install-bench-deps.sh >/dev/null
for product in segmance segmance-ffmpeg segmance-bench; do
  swift build -c release --static-swift-stdlib --scratch-path .build-deb --product "$product" >/dev/null
done
bin=.build-deb/release
# Every check runs, even after one fails, so that one CI run names every budget missed.
failed=()
check() {   # check NAME COMMAND...
  local name=$1 started=$SECONDS
  shift
  if "$@"; then
    echo "budgets: $name passed ($((SECONDS - started)) s)"
  else
    echo "budgets: $name FAILED ($((SECONDS - started)) s)" >&2
    failed+=("$name")
  fi
}
check "segmance-bench library --check" "$bin/segmance-bench" library --check "$@"
check "segmance-bench big-stick --check" "$bin/segmance-bench" big-stick --check --segmance "$bin/segmance" "$@"
check "engine-bench.sh --check" env WINDOW="${WINDOW:-15}" ROUNDS="${ROUNDS:-3}" EVENTS="${EVENTS:-300}" SOAK="${SOAK:-60}" \
  Tests/Benchmarks/engine-bench.sh --check "$@"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "budgets: missed in: ${failed[*]}" >&2
  exit 1
fi
echo "budgets: every budget met"
