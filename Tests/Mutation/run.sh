#!/usr/bin/env bash
# Tests/Mutation/run.sh [--sample] [FAULT...]: plants named faults, one at a time, in a
# scratch copy of this checkout and runs the smallest test set that should catch each.
#
# Each fault is Tests/Mutation/faults/NAME.patch: a unified diff (applied with `git apply`)
# after two header lines, `fault: WHAT IS BROKEN` and `catch: COMMAND` (run from the copy's
# root; the fault is caught when it exits non-zero). With no FAULT named every patch there
# is planted; --sample plants CI's fixed sample (SAMPLE below).
#
# The copy is the working tree (tracked and untracked files, not ignored ones) synced to
# ${TMPDIR:-/tmp}/segmance-mutation-<hash of this checkout's path>, with its own .build: the
# checkout is never written to, and a later run rebuilds only what changed. First every
# catching command runs on the copy as it is and must pass (a catcher that fails without
# its fault proves nothing); then each fault is applied, built, its catcher run, and the
# fault reverted. Prints each fault with the tests that failed, and ends with
# "mutation: N planted, M caught"; exit status 1 when a fault survived or did not build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export PATH="/opt/swift/usr/bin:$PATH"

# CI's sample: the faults its host can catch in a few minutes each (the ThreadSanitizer
# catcher builds a sanitized copy of its own, ~20 minutes: the full run plants it).
SAMPLE=(no-seam-crossfade manifest-first-fault-only resume-not-saved-while-playing media-store-no-fsync
        debounce-off-by-one loop-pass-counter device-clock-2ms-ahead)

names=()
for arg in "$@"; do
  case "$arg" in
    --sample) names+=("${SAMPLE[@]}") ;;
    -*) echo "usage: Tests/Mutation/run.sh [--sample] [FAULT...]" >&2; exit 64 ;;
    *) names+=("$arg") ;;
  esac
done
if [ ${#names[@]} -eq 0 ]; then
  for patch in "$here"/faults/*.patch; do names+=("$(basename "$patch" .patch)"); done
fi

# Each fault's header.
declare -A what catcher
for name in "${names[@]}"; do
  patch="$here/faults/$name.patch"
  [ -f "$patch" ] || { echo "mutation: no fault $patch" >&2; exit 64; }
  what[$name]=$(sed -n 's/^fault: //p' "$patch" | head -1)
  catcher[$name]=$(sed -n 's/^catch: //p' "$patch" | head -1)
  if [ -z "${what[$name]}" ] || [ -z "${catcher[$name]}" ]; then
    echo "mutation: $patch needs the header lines 'fault: …' and 'catch: COMMAND'" >&2
    exit 64
  fi
done

scratch="${TMPDIR:-/tmp}/segmance-mutation-$(printf '%s' "$repo" | sha1sum | cut -c1-12)"
logs="$scratch/.mutation-logs"
mkdir -p "$scratch" "$logs"
started=$SECONDS
# Copied when newer than the copy's (times kept, files overwritten in place), so unchanged
# files are not rebuilt; files gone from the checkout are removed from the copy (outside
# .build, the power cuts' release build in .build-deb, and the logs).
(cd "$repo" && git ls-files -z -co --exclude-standard | while IFS= read -r -d '' file; do
  if [ -e "$file" ]; then printf '%s\n' "$file"; fi; done | LC_ALL=C sort -u) > "$logs/files"
(cd "$repo" && tr '\n' '\0' < "$logs/files" | xargs -0 cp -a -u --parents -t "$scratch")
(cd "$scratch" && find . -path ./.build -prune -o -path './.build-deb*' -prune -o -path ./.mutation-logs -prune \
  -o -type f -print | sed 's|^\./||' \
  | LC_ALL=C sort | LC_ALL=C comm -23 - "$logs/files" | while IFS= read -r stale; do rm -f "$stale"; done)
echo "mutation: the copy is $scratch (synced in $((SECONDS - started)) s)"

build() {   # build LOG: the copy's debug build with its tests; its exit status
  (cd "$scratch" && timeout --kill-after=60 3600 swift build --build-tests) > "$1" 2>&1
}
catch_run() {   # catch_run COMMAND LOG: the catching command in the copy; its exit status
  (cd "$scratch" && timeout --kill-after=60 2400 bash -c "$1") > "$2" 2>&1
}
failed_tests() {   # failed_tests LOG: the names of the tests that failed (a display name in quotes)
  # The box's lines carry its clock first ("[ 347.88] ✘ Test …").
  sed -E 's/^\[ *[0-9.]+\] //' "$1" | grep -E '^(✘|􀢄) Test ' | grep -vE '^[^ ]+ Test run ' | sed -E 's/^[^ ]+ Test ("[^"]*"|[^ ]+).*/\1/' \
    | sort -u | head -6 | paste -sd ';' - | sed 's/;/; /g'
}

started=$SECONDS
if ! build "$logs/baseline-build.log"; then
  echo "mutation: the copy without a fault does not build; its log: $logs/baseline-build.log" >&2
  tail -20 "$logs/baseline-build.log" >&2
  exit 2
fi
echo "mutation: built the copy without a fault in $((SECONDS - started)) s"

# Every catcher must pass without its fault. On a shared host a catcher that counts
# underruns can fail for the load alone: one that fails is run again, three times in all,
# and must pass once (each failure is printed with the load); failing all three stops the run.
declare -A checked
for name in "${names[@]}"; do
  command=${catcher[$name]}
  [ -z "${checked[$command]:-}" ] || continue
  checked[$command]=1
  started=$SECONDS
  log="$logs/baseline-$name.log"
  tries=1
  while ! catch_run "$command" "$log"; do
    echo "mutation: '$command' failed without a fault planted, try $tries (failed: $(failed_tests "$log")); load: $(cut -d' ' -f1-3 /proc/loadavg)"
    cp "$log" "$log.$tries"
    if [ $tries -eq 3 ]; then
      echo "mutation: '$command' fails without a fault planted; its logs: $log.1 $log.2 $log.3" >&2
      exit 2
    fi
    tries=$((tries + 1))
  done
  echo "mutation: '$command' passes without a fault ($((SECONDS - started)) s, try $tries)"
done

planted=0
caught=0
survivors=()
for name in "${names[@]}"; do
  patch="$here/faults/$name.patch"
  started=$SECONDS
  if ! (cd "$scratch" && git apply "$patch"); then
    echo "mutation: $name: the patch does not apply to this checkout" >&2
    survivors+=("$name (does not apply)")
    continue
  fi
  planted=$((planted + 1))
  log="$logs/$name.log"
  if ! build "$logs/$name-build.log"; then
    echo "mutation: $name: does not build with the fault; its log: $logs/$name-build.log" >&2
    survivors+=("$name (does not build)")
  elif catch_run "${catcher[$name]}" "$log"; then
    echo "mutation: $name: SURVIVED '${catcher[$name]}' ($((SECONDS - started)) s): ${what[$name]}; its log: $log"
    survivors+=("$name")
  else
    caught=$((caught + 1))
    echo "mutation: $name: caught by '${catcher[$name]}' ($((SECONDS - started)) s; failed: $(failed_tests "$log")): ${what[$name]}"
  fi
  (cd "$scratch" && git apply -R "$patch")
done
echo "mutation: $planted planted, $caught caught"
if [ ${#survivors[@]} -gt 0 ]; then
  echo "mutation: not caught: ${survivors[*]}" >&2
  exit 1
fi
