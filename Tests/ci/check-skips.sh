#!/usr/bin/env bash
# Reads a `swift test` log and fails when a host test was skipped for any reason but the
# board in a box: everything else a host test needs is installed by deploy/install-deps.sh,
# so a skip there means a missing install step or a broken condition, not a pass. The one
# other skip allowed is a test body that a parent test runs in a child process of its own
# (its reason says "runs only in the child process"; the parent test is not skipped).
#   Tests/ci/check-skips.sh LOG
# Prints how many tests and suites skipped, and why (one line a reason, with its count).
set -euo pipefail
log=$1
box='needs the board in a box'
skips=$(grep -E '^(➜|􀙟) (Test|Suite) .* skipped' "$log" || true)
total=$(printf '%s' "$skips" | grep -c . || true)
echo "skips: $total tests and suites skipped"
if [ "$total" -gt 0 ]; then
  printf '%s\n' "$skips" | sed -E 's/^.* skipped(: )?//' | sort | uniq -c | sed 's/^/skips: /'
fi
others=$(printf '%s' "$skips" | grep -v -e "$box" -e 'runs only in the child process' || true)
if [ -n "$others" ]; then
  echo "skips: these host tests skipped for a reason other than the board in a box; deploy/install-deps.sh (or the CI's root) should give them what they need:" >&2
  printf '%s\n' "$others" >&2
  exit 1
fi
