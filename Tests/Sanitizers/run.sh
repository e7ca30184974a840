#!/usr/bin/env bash
# Tests/Sanitizers/run.sh [thread] [address]: the host suite under the sanitizers, each in
# a build folder of its own (.build/tsan, .build/asan), so the normal build is untouched.
#
#   thread   ThreadSanitizer over the threads that share memory: the engine (its render
#            thread, the SPSC rings, the seqlocks, the reports) with the appliance, the
#            daemon (its poll loop, the import worker, signals), the rings and the one
#            Seqlock (over the position, the play history and the device clock) raced
#            between two threads (README.md here says what each guards).
#   address  AddressSanitizer (with LeakSanitizer) over the whole host suite, or over the
#            suites SANITIZER_ADDRESS_FILTER names (CI: the code that handles raw memory,
#            see .ci/run).
#
# Both run by default. Each ends with "sanitizers: KIND: N tests passed" or fails with the
# sanitizer's report (a report fails the run even when every test passed: the sanitizer
# sets the exit status). The tests a sanitizer cannot run are skipped by name below, each
# with its reason; docs/testing.md lists them too.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(thread address)

# Tests neither sanitizer can run, skipped by name; each name below has its reason in
# `why`, and the run prints every test it skipped with it (a skip without a reason fails).
common_skip='MallocCounterTests|noAllocationOnTheRenderThread|fileCaptureEqualsTheTwinsWAVSampleForSample|theStretchersAreMadeAtTheFirstSpeedChange|SpokenReplayTests'
common_skip+='|FFmpegDecoderTests|MacStickImportTests|ImportProcessTests|ImportWorkerLimitsTests|HostileStickDaemon'
common_skip+='|ImportWorkerLabelTests'
common_skip+='|XrunTests|LatencyBoundTests|MarkTests|PositionWatchTests|AvailMinWakeTests'

# ThreadSanitizer: the tests whose threads share memory (a debug build: ThreadSanitizer
# sees the accesses compiled in the project's modules, not copies made inside the Swift
# runtime for unspecialized generic code, such as SPSCRing's slots, which SPSCRing
# announces to it itself; the rings' atomics and the daemon's shared state are seen).
# SPSCRingThreadTests, PositionSeqlockTests, PlayHistorySeqlockTests and
# DeviceClockSeqlockTests race the engine's rings and its Seqlock's three uses between two
# threads; Tests/Sanitizers/README.md says what each test guards and shows each failing on
# a ring or seqlock whose ordering was weakened.
thread_filter='SPSCRingTests|SPSCRingThreadTests|PositionSeqlockTests|PlayHistorySeqlockTests|DeviceClockSeqlockTests'
thread_filter+='|CommandTimingTests|LiveApplianceTests|ReplayTests|DaemonLoopTests|DaemonResumeTests'
# The deep buffer's rewinds, a command during a refill, the stretchers' hand-off at a speed change.
thread_filter+='|RewindTests|StretcherHandOffTests'
thread_filter+='|SignalDescriptorTests|SystemdNotifierTests|ControlLineTests|DaemonStartupErrorTests'
thread_skip=$common_skip

# AddressSanitizer: the whole host suite, less the above and
#   ResidencyTests: they assert how many kilobytes of media are resident; ASan's shadow
#     memory and quarantine change what is resident.
address_filter=${SANITIZER_ADDRESS_FILTER:-.}
address_skip="$common_skip|ResidencyTests"

declare -A why
for name in MallocCounterTests noAllocationOnTheRenderThread fileCaptureEqualsTheTwinsWAVSampleForSample \
            theStretchersAreMadeAtTheFirstSpeedChange SpokenReplayTests; do
  why[$name]="counts heap calls with CMallocCounter, which interposes malloc; under a sanitizer the sanitizer owns malloc and it counts nothing (-1)"
done
for name in FFmpegDecoderTests MacStickImportTests ImportProcessTests ImportWorkerLimitsTests HostileStickDaemon \
            ImportWorkerLabelTests; do
  why[$name]="starts the FFmpeg helper or the import worker, which limit their address space (RLIMIT_AS, 1 GiB); the sanitized child cannot map its shadow memory under it and exits at once"
done
for name in XrunTests LatencyBoundTests PositionWatchTests AvailMinWakeTests; do
  why[$name]="paced by jackd through alsa-lib's jack plugin: libjack's uninstrumented threads abort ThreadSanitizer; under AddressSanitizer the slowed render thread misses the one-period deadlines"
done
why[MarkTests]="judges the engine's clock against the paced test PCM's in real time (under a sanitizer it plays at a quarter pace, not the rate the engine projects at) and counts heap calls"
why[ResidencyTests]="asserts how many kilobytes of media are resident; AddressSanitizer's shadow memory and quarantine change that"

# Lists the tests of FILTER that SKIP leaves out, each with its reason; returns 1 when one
# has none. Reads `swift test list` of the sanitized build.
skipped() {   # skipped KIND SCRATCH FILTER SKIP
  local kind=$1 scratch=$2 filter=$3 skip=$4 names name pattern reason status=0
  names=$(swift test list --skip-build --disable-xctest --sanitize="$kind" --scratch-path "$scratch" 2>/dev/null \
    | grep -E "$filter" | grep -E "$skip" || true)
  echo "sanitizers: $kind: $(printf '%s' "$names" | grep -c . || true) tests skipped by name:"
  while IFS= read -r name; do
    [ -n "$name" ] || continue
    reason=""
    for pattern in "${!why[@]}"; do
      if [[ $name == *"$pattern"* ]]; then reason=${why[$pattern]}; break; fi
    done
    echo "  skipped $name: ${reason:-NO REASON GIVEN (add it to why in Tests/Sanitizers/run.sh)}"
    [ -n "$reason" ] || status=1
  done <<< "$names"
  return $status
}

status=0
for kind in "${kinds[@]}"; do
  case "$kind" in
    thread) filter=$thread_filter skip=$thread_skip scratch=.build/tsan
      # A race is reported only when the stack of its earlier access can still be rebuilt
      # from that thread's history; at the default (2: 128 K accesses) a thread that works
      # or spins between a ring's push and the other side's pop (the render thread renders
      # a whole period) has written over it, and the race is dropped unreported. 7: 4 M.
      export TSAN_OPTIONS="history_size=7${TSAN_OPTIONS:+:$TSAN_OPTIONS}" ;;
    address) filter=$address_filter skip=$address_skip scratch=.build/asan ;;
    *) echo "usage: Tests/Sanitizers/run.sh [thread] [address]" >&2; exit 64 ;;
  esac
  started=$SECONDS
  swift build --build-tests --sanitize="$kind" --scratch-path "$scratch" 2>&1 | grep -E 'error|warning: unre|Compiling|Build complete' | grep -v '^\[' || true
  echo "sanitizers: $kind: built in $((SECONDS - started)) s"
  started=$SECONDS
  log=$(mktemp)
  result=0
  # Leaks in the toolchain's Foundation, not ours, are suppressed by name (lsan.supp says why).
  export LSAN_OPTIONS="suppressions=$PWD/Tests/Sanitizers/lsan.supp:print_suppressions=0"
  # XCTest holds no tests here (--disable-xctest: its runner leaks at exit); a hung test
  # fails the run after 40 minutes rather than running into CI's limit.
  timeout --kill-after=60 2400 swift test --skip-build --disable-xctest --sanitize="$kind" --scratch-path "$scratch" \
    --filter "$filter" --skip "$skip" > "$log" 2>&1 || result=$?
  skipped "$kind" "$scratch" "$filter" "$skip" || result=1
  reports=$(grep -cE '^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: (AddressSanitizer|LeakSanitizer))' "$log" || true)
  summary=$(grep -E 'Test run with [0-9]+ tests? ' "$log" | tail -1 || true)
  ran=$(printf '%s' "$summary" | sed -nE 's/.*Test run with ([0-9]+) tests?.*/\1/p')
  # A run of no test passes nothing: a filter that matches nothing, or a build without tests.
  if [ "${ran:-0}" -eq 0 ]; then
    echo "sanitizers: $kind: 0 tests ran (filter '$filter')" >&2
    result=1
  fi
  if [ "$result" -eq 0 ] && [ "$reports" -eq 0 ]; then
    echo "sanitizers: $kind: ${summary#*Test run with } ($((SECONDS - started)) s)"
  else
    status=1
    echo "sanitizers: $kind: FAILED (exit status $result, $reports sanitizer reports; ${summary:-no summary}); the log: $log" >&2
    grep -E -A30 '^(WARNING: ThreadSanitizer|==[0-9]+==ERROR)' "$log" | head -80 >&2 || true
    grep -E '^✘' "$log" | head -20 >&2 || true
  fi
done
exit "$status"
