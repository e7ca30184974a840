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
# - segmance-bench stretch --check: the renderer's time-stretcher (Rubber Band R3 short) at
#   50/75/150 %: <= 4 CPU s per audio-minute at 75 %, clicks on time (mean +-3 ms, each
#   <= 10 ms), the tone 440 +- 3 Hz; SoundTouch and the rubberband tool beside it;
# - Tests/Benchmarks/engine-bench.sh --short --check (15 s windows, 3 rounds, 300 events, a
#   60 s speed soak; the full run is the default): latency (every run's p99), xruns, every
#   event measured, edge -> sound, CPU against aplay, RSS, start -> ready with the device open.
# No environment variable moves a budget: each budget is a constant of its benchmark.
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
check "segmance-bench stretch --check" "$bin/segmance-bench" stretch --check "$@"
check "engine-bench.sh --short --check" Tests/Benchmarks/engine-bench.sh --short --check "$@"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "budgets: missed in: ${failed[*]}" >&2
  exit 1
fi
echo "budgets: every budget met"
