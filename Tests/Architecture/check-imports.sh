#!/usr/bin/env bash
# The layers of docs/ARCHITECTURE.md, checked: what each target may import (in its sources)
# and depend on (in Package.swift), that only LinuxSystem imports CLinuxSystem, calls
# pthread_create, mlock*, nanosleep or strerror and reads CLOCK_MONOTONIC, and that the page
# names every target. Exits 1 and names every forbidden import or dependency.
# Needs only bash, grep and awk; .ci/run runs it before building.
#
#   Tests/Architecture/check-imports.sh          check the repository it lives in
#   Tests/Architecture/check-imports.sh DIR      check the package in DIR
set -euo pipefail
root=${1:-"$(cd "$(dirname "$0")/../.." && pwd)"}
cd "$root"

failures=0
fail() { echo "check-imports: $*" >&2; failures=$((failures + 1)); }

# Every target Package.swift declares: the project's own modules.
mapfile -t targets < <(sed 's://.*$::' Package.swift \
  | grep -oE '\.(target|executableTarget|testTarget|systemLibrary)\(name: *"[^"]+"' | sed -E 's/.*"([^"]+)"/\1/')
is_target() { local t; for t in "${targets[@]}"; do [ "$t" = "$1" ] && return 0; done; return 1; }

# "TARGET DEPENDENCY" per line, from Package.swift: every project target named between one
# target's declaration and the next (comments stripped; products of packages are not targets).
package_dependencies() {
  sed 's://.*$::' Package.swift | awk '
    { line = $0
      while (match(line, /\.(target|executableTarget|testTarget|systemLibrary)\(name: *"[^"]+"|"[^"]+"/)) {
        token = substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
        if (token ~ /^\./) { sub(/^[^"]*"/, "", token); sub(/"$/, "", token); current = token; continue }
        gsub(/"/, "", token)
        if (current != "") print current, token
      }
    }'
}
package_deps=$(package_dependencies)

# "FILE:LINE MODULE" for every import in a target's sources.
imports_of() {
  [ -d "Sources/$1" ] || return 0
  grep -rnE --include='*.swift' \
    '^[[:space:]]*((@[A-Za-z_]+|public|package|internal|fileprivate|private)[[:space:]]+)*import[[:space:]]+((struct|class|enum|protocol|typealias|func|var|let)[[:space:]]+)?[A-Za-z_]' \
    "Sources/$1" \
    | sed -E 's/^([^:]+:[0-9]+):[[:space:]]*((@[A-Za-z_]+|public|package|internal|fileprivate|private)[[:space:]]+)*import[[:space:]]+((struct|class|enum|protocol|typealias|func|var|let)[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*).*/\1 \6/'
}

# What TARGET uses of the project: its imports and its Package.swift dependencies.
# Calls CHECK "where" "module" for each.
each_use() {
  local target=$1 check=$2 where module
  while read -r where module; do
    [ -n "$module" ] && is_target "$module" && "$check" "$where" "$module"
  done < <(imports_of "$target")
  while read -r from module; do
    [ "$from" = "$target" ] && is_target "$module" && "$check" "Package.swift (target $target)" "$module"
  done <<< "$package_deps"
  return 0
}

# only TARGET "ALLOWED…": of the project, TARGET uses only these.
only() {
  local target=$1 allowed=" $2 "
  local listed=${2:-nothing}
  check_only() { [[ "$allowed" == *" $2 "* ]] || fail "$1: $target uses $2 (it may use: $listed)"; }
  each_use "$target" check_only
}

# never TARGET "FORBIDDEN…": TARGET uses none of these.
never() {
  local target=$1 forbidden=" $2 "
  check_never() { [[ "$forbidden" != *" $2 "* ]] || fail "$1: $target must not use $2"; }
  each_use "$target" check_never
}

# The pure layers.
only SegmanceCore ""
while read -r where module; do
  fail "$where: SegmanceCore imports $module (the core uses the standard library only)"
done < <(imports_of SegmanceCore)
only SegmanceControls "SegmanceCore"
only SegmanceScreen "SegmanceCore"
# The render function and the audio contract; it runs the time-stretcher (Rubber Band, a
# computation with no I/O, wrapped once) for speeds other than 100 %.
only SegmanceAudio "SegmanceCore RubberBand"
# What the kernel gives (and the one clock), below everything.
only LinuxSystem "CLinuxSystem"
# The real-time engine: the render side, the core, ALSA and the system layer; never the appliance or the twin.
only SegmanceEngine "SegmanceAudio SegmanceCore ALSA LinuxSystem CThreadSanitizer"
# Thin wrappers over C libraries and kernel interfaces know nothing of the appliance.
only ALSA "CALSA LinuxSystem"
# alsa-lib is wrapped once: CALSA only in ALSA (the engine uses ALSA's real-time calls).
for target in "${targets[@]}"; do
  [ "$target" = ALSA ] || never "$target" "CALSA"
done
only SndFile "CSndFile LinuxSystem"
only Soxr "CSoxr"
only GPIOD "CGPIOD LinuxSystem"
only Aubio "CAubio"
only RubberBand "CRubberBand"
only LinuxInput "LinuxSystem"
only LinuxI2C "CLinuxI2C LinuxSystem"
only FFmpeg "CFFmpeg LinuxSystem"
# The TOML parser reads untrusted text: pure, like the core.
only TOML ""
# What SegmanceMedia held, one concept a target: decoding, the FFmpeg helper, a piped child,
# speech, beat tracking, and the stick on top of them.
only AudioDecoding "SndFile Soxr"
only ChildProcess "LinuxSystem"
only FFmpegHelper "AudioDecoding ChildProcess"
only Speech "Soxr ChildProcess"
only BeatTracking "SegmanceCore Aubio LinuxSystem"
only SegmanceStick "SegmanceCore TOML SndFile AudioDecoding FFmpegHelper LinuxSystem"
# What SegmanceLibrary held: the SHA-256 wrapper below it, the transfers to and from a stick above it.
only SHA256Hash "CSHA256"
never SegmanceLibrary "StickTransfer"
# Sticks coming and going (the mount table, the mount helper's refusals): beside the library.
only StickWatch "SegmanceCore LinuxSystem"
# FFmpeg is decoded in a process of its own: only the helper (and the benchmark) link it.
only segmance-ffmpeg "FFmpeg CFFmpeg"
for target in AudioDecoding FFmpegHelper SegmanceStick SegmanceLibrary StickTransfer SegmanceAppliance SegmanceDaemon \
              segmance; do
  never "$target" "FFmpeg CFFmpeg"
done
# Beat detection runs at import (BeatTracking's BeatDetector, in the import worker): the
# layers that play never call aubio themselves.
for target in SegmanceCore SegmanceAudio SegmanceEngine SegmanceScreen SegmanceControls SegmanceAppliance SegmanceDaemon \
              SegmanceLibrary; do
  never "$target" "Aubio CAubio"
done
# Above the wrappers, below the appliance: media, library, boards, inputs, displays.
for target in AudioDecoding ChildProcess FFmpegHelper Speech BeatTracking SegmanceStick SegmanceLibrary StickTransfer \
              StickWatch SHA256Hash SegmanceBoard SegmanceInput CharacterDisplay; do
  never "$target" "SegmanceAppliance SegmanceTwin SegmanceDaemon SegmanceEngine segmance SegmanceBench"
done
# The appliance's wiring works with any audio side: no engine, no twin, no daemon.
never SegmanceAppliance "SegmanceTwin SegmanceDaemon SegmanceEngine segmance SegmanceBench"
# The twin is virtual time: no real-time engine, no daemon.
never SegmanceTwin "SegmanceDaemon SegmanceEngine segmance SegmanceBench"
# The daemon runs the appliance on the engine, never the twin.
never SegmanceDaemon "SegmanceTwin segmance SegmanceBench"

# One room for the operating system (docs/ARCHITECTURE.md, "LinuxSystem"): CLinuxSystem is
# imported, and threads, memory locks, sleeps and errno texts are made, in LinuxSystem only.
# Folders listed here are not checked yet, one a line:
system_exempt=(
)
is_system_exempt() { local d; for d in "${system_exempt[@]}"; do [[ "$1" == "$d"/* ]] && return 0; done; return 1; }
# "FILE:LINE TEXT" for each line of Sources/**/*.swift outside LinuxSystem (and the exempt
# folders) that matches the extended regex $1 in its code (a `//` comment is not code).
system_hits() {
  grep -rnE --include='*.swift' "$1" Sources | grep -v '^Sources/LinuxSystem/' \
    | while IFS= read -r hit; do
        local file=${hit%%:*} rest=${hit#*:}; local line=${rest%%:*} text=${rest#*:}
        is_system_exempt "$file" && continue
        if grep -qE "$1" <<< "${text%%//*}"; then echo "$file:$line ${text#"${text%%[![:space:]]*}"}"; fi
      done
  return 0
}
while read -r where text; do
  if [ -n "$where" ]; then fail "$where: imports CLinuxSystem (only LinuxSystem may; use its API)"; fi
done < <(system_hits '^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*import[[:space:]]+CLinuxSystem([^A-Za-z0-9_]|$)')
for call in pthread_create mlock mlock2 mlockall nanosleep strerror; do
  while read -r where text; do
    if [ -n "$where" ]; then
      fail "$where: calls $call (only LinuxSystem may: SystemThread, MemoryLock, sleepMonotonic, SystemError.text)"
    fi
  done < <(system_hits "(^|[^A-Za-z0-9_])$call[[:space:]]*\\(")
done
while read -r from module; do
  if [ "$module" = CLinuxSystem ] && [ "$from" != LinuxSystem ] && ! is_system_exempt "Sources/$from/"; then
    fail "Package.swift (target $from): depends on CLinuxSystem (only LinuxSystem may)"
  fi
done <<< "$package_deps"

# One monotonic clock: only LinuxSystem reads or sleeps on CLOCK_MONOTONIC.
while IFS= read -r hit; do
  fail "${hit%%:*}:$(cut -d: -f2 <<< "$hit"): reads CLOCK_MONOTONIC itself" \
    "(use LinuxSystem's monotonicNanoseconds / sleepUntilMonotonic)"
done < <(grep -rnE --include='*.swift' \
           '(clock_gettime|clock_nanosleep)[[:space:]]*\([[:space:]]*CLOCK_MONOTONIC' Sources \
           | grep -v '^Sources/LinuxSystem/' || true)

# The page that explains the layers names every target of Sources/.
for dir in Sources/*/; do
  name=$(basename "$dir")
  [ -n "$(ls -A "$dir")" ] || continue   # an empty folder git left behind is no target
  grep -qw -- "$name" docs/ARCHITECTURE.md || fail "Sources/$name: not in docs/ARCHITECTURE.md (add it to its layer)"
done

if [ "$failures" -gt 0 ]; then
  echo "check-imports: $failures forbidden import(s) or dependencies; the layers are in docs/ARCHITECTURE.md" >&2
  exit 1
fi
echo "check-imports: ${#targets[@]} targets, every import and dependency within its layer"
