#!/usr/bin/env bash
# Tests/Fuzz/run.sh SECONDS [TARGET...]: builds the libFuzzer targets of this package
# (-sanitize=fuzzer,address, release), runs each for SECONDS (all five when none is named)
# from its seeds in Corpus/ plus what earlier runs found, prints each target's executions,
# and ends with "fuzz: N executions in K targets, M crashes". Exit status 1 on any crash.
#
# A crash is whatever libFuzzer stops on: a trap or a failed precondition in the target, an
# AddressSanitizer report, a leak, an input that runs over -timeout seconds (a hang) or a
# process over -rss_limit_mb (a memory blow-up). The input is kept under
# .build/fuzz-work/crashes/ and replays with: .build/fuzz/release/TARGET FILE
set -euo pipefail
seconds=${1:?usage: Tests/Fuzz/run.sh SECONDS [TARGET...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzManifest FuzzClassFile FuzzStickScan FuzzSndFile FuzzFFmpeg)

# One input may take 10 s (the slowest seed decodes in milliseconds) and the process 2 GiB
# (ASan's shadow and quarantine included; a decode of a seed needs under 200 MB).
timeout_s=10
rss_mb=2048
scratch="$repo/.build/fuzz"
work="$repo/.build/fuzz-work"
mkdir -p "$work/crashes" "$work/logs"

build_started=$SECONDS
for target in "${targets[@]}"; do
  # The build's own exit status decides (not the grep that thins its output), and a binary
  # left by an earlier build is removed first: a failed build never fuzzes a stale target.
  rm -f "$scratch/release/$target"
  build=0
  swift build -c release --package-path "$here" --scratch-path "$scratch" --product "$target" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing 2>&1 \
    | { grep -vE '^\[[0-9]+/[0-9]+\]|ld.gold: warning: Cannot export local symbol' || true; } || build=$?
  if [ "$build" -ne 0 ] || [ ! -x "$scratch/release/$target" ]; then
    echo "fuzz: $target did not build (swift build exit status $build)" >&2
    exit 2
  fi
done
echo "fuzz: built ${#targets[@]} targets in $((SECONDS - build_started)) s"

total=0
crashes=0
for target in "${targets[@]}"; do
  corpus="$work/corpus/$target"
  tmp="$work/tmp/$target"
  log="$work/logs/$target.log"
  mkdir -p "$corpus"
  rm -rf "$tmp" && mkdir -p "$tmp"
  options=(-max_total_time="$seconds" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" -malloc_limit_mb="$rss_mb"
           -close_fd_mask=1 -print_final_stats=1 -artifact_prefix="$work/crashes/$target-")
  if [ -f "$here/$target.dict" ]; then options+=(-dict="$here/$target.dict"); fi
  status=0
  # libFuzzer ends itself SECONDS after it has run the corpus once (which on a loaded
  # machine may take minutes); the outer timeout only catches a fuzzer that hangs outside
  # an input (it counts as a crash).
  TMPDIR="$tmp" timeout --kill-after=10 $((2 * seconds + 1200)) \
    "$scratch/release/$target" "${options[@]}" "$corpus" "$here/Corpus/$target" > "$log" 2>&1 || status=$?
  rm -rf "$tmp"
  runs=$(sed -nE 's/^stat::number_of_executed_units: ([0-9]+).*/\1/p' "$log" | tail -1)
  [ -n "$runs" ] || runs=$(sed -nE 's/^#([0-9]+).*/\1/p' "$log" | tail -1)
  runs=${runs:-0}
  total=$((total + runs))
  if [ "$status" -eq 0 ]; then
    echo "fuzz: $target: $runs executions in $seconds s, corpus $(ls "$corpus" | wc -l) inputs, 0 crashes"
  else
    crashes=$((crashes + 1))
    echo "fuzz: $target: CRASH after $runs executions (exit status $status); its log, $log, ends:"
    grep -E 'ERROR|SUMMARY|Fatal error|failure|Test unit written|Timeout|out-of-memory|==[0-9]+==' "$log" | head -20 | sed 's/^/    /'
    tail -5 "$log" | sed 's/^/    /'
  fi
done
echo "fuzz: $total executions in ${#targets[@]} targets, $crashes crashes"
[ "$crashes" -eq 0 ]
