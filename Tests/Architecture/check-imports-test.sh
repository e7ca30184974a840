#!/usr/bin/env bash
# Shows check-imports.sh catching what it forbids: each violation of the table below is
# planted in turn in a scratch copy of the package (Package.swift, Sources, docs), and the
# check must fail with a line naming the planted file and the rule; the unplanted copy and
# the planted files marked "passes" must pass. .ci/run runs it after check-imports.sh.
#
#   Tests/Architecture/check-imports-test.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$repo/Package.swift" "$repo/Sources" "$repo/docs" "$scratch/"
check="$repo/Tests/Architecture/check-imports.sh"

# outcome | file planted (new, in the copy) | its one line | what the failure line says
cases=(
  "fails|Sources/SegmanceCore/Planted.swift|import CLinuxSystem|imports CLinuxSystem (only LinuxSystem may"
  "fails|Sources/SegmanceLibrary/Planted.swift|let r = pthread_create(&t, nil, body, nil)|calls pthread_create"
  "fails|Sources/SegmanceLibrary/Planted.swift|_ = mlockall(MCL_CURRENT)|calls mlockall"
  "fails|Sources/SegmanceLibrary/Planted.swift|_ = mlock(base, 4096)|calls mlock"
  "fails|Sources/SegmanceLibrary/Planted.swift|nanosleep(&pause, nil)|calls nanosleep"
  "fails|Sources/SegmanceLibrary/Planted.swift|let text = String(cString: strerror(errno))|calls strerror"
  "fails|Sources/SegmanceLibrary/Planted.swift|let text = Glibc.strerror(errno)|calls strerror"
  "fails|Sources/SegmanceEngine/Planted.swift|import CALSA|SegmanceEngine must not use CALSA"
  "fails|Sources/SegmanceEngine/Planted.swift|let r = pthread_create(&t, nil, body, nil)|calls pthread_create"
  "fails|Sources/ALSA/Planted.swift|nanosleep(&pause, nil)|calls nanosleep"
  "passes|Sources/SegmanceLibrary/Planted.swift|// strerror(errno) and mlockall(MCL_FUTURE) in a comment|"
  "passes|Sources/SegmanceLibrary/Planted.swift|let text = av_strerror(code, &buffer, 64)|"
)

failures=0
bad() { echo "check-imports-test: $*" >&2; failures=$((failures + 1)); }

if ! out=$("$check" "$scratch" 2>&1); then
  bad "the unplanted copy fails: $out"
fi

for case in "${cases[@]}"; do
  IFS='|' read -r outcome file line says <<< "$case"
  printf '%s\n' "$line" > "$scratch/$file"
  status=0
  out=$("$check" "$scratch" 2>&1) || status=$?
  rm "$scratch/$file"
  if [ "$outcome" = passes ]; then
    [ "$status" -eq 0 ] || bad "'$line' in $file should pass; the check said: $out"
    continue
  fi
  if [ "$status" -eq 0 ]; then
    bad "'$line' in $file was not caught"
  elif ! grep -F "$file" <<< "$out" | grep -qF "$says"; then
    bad "'$line' in $file failed without a line naming $file and '$says': $out"
  fi
done

if [ "$failures" -gt 0 ]; then
  echo "check-imports-test: $failures of ${#cases[@]} planted cases (and the clean copy) went wrong" >&2
  exit 1
fi
echo "check-imports-test: ${#cases[@]} planted cases and the clean copy judged as expected"
