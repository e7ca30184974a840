#!/usr/bin/env bash
# The twin on arm64 agrees with the twin on x86-64: the render function does not depend on
# the CPU. The demo scenario (segmance demo-stick, Tests/Scenarios/demo.scenario) run by the
# host's x86-64 segmance and by the arm64 one under qemu-user (qemu-aarch64-static, the arm64
# trixie root of the box as its library prefix):
#   - the import: each twin imports the same stick into a library of its own; what libsndfile
#     decodes at the output rate is stored as it is, the same bytes; what soxr resamples (the
#     stick's 44.1 kHz song) is rounded by each CPU's SIMD and fused multiply-adds (SSE
#     against NEON) and may differ by one LSB: its difference printed and bounded by 1 LSB;
#   - at 100 % (no stretcher), both twins playing from the same library (the x86-64 import,
#     copied for each run), so what is compared is the render function alone: the same frame
#     log and the same WAV, byte for byte;
#   - with the stretcher (Tests/Scenarios/speed75.scenario: the demo stick's first routine at
#     75 %): the difference of the two WAVs, peak and RMS in dBFS, printed and bounded by
#     SEGMANCE_TWIN_STRETCH_BOUND_DB (the peak of the difference). The two twins link
#     different Rubber Bands (bookworm's 3.1.2 on the host, trixie's 3.3.0 for arm64): the
#     difference is mostly the library's, not the CPU's (2026-11-28: 1,862,953 of 2,880,000
#     samples, peak -15.1 dBFS, RMS -31.3 dBFS), so the default bound, -12 dBFS, only says
#     the stretched audio is the same music at the same place, not the same samples.
#   Tests/System/arm64/twin-agreement.sh [ARM64_SEGMANCE]
# ARM64_SEGMANCE: the arm64 binary (default: /usr/bin/segmance of the .deb that
# SEGMANCE_BOX_DEB names, else of deploy/build-deb.sh --arch arm64). Ends with
# "twin agreement: N passed, N failed".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
cache=${SEGMANCE_BOX_CACHE:-$HOME/.cache/segmance-box}
bound=${SEGMANCE_TWIN_STRETCH_BOUND_DB:--12}
work=$PWD/.build/twin-agreement
rm -rf "$work" && mkdir -p "$work"

arm=${1:-}
deb=${SEGMANCE_BOX_DEB:-}
if [ -z "$arm" ]; then
  [ -n "$deb" ] || deb=$(deploy/build-deb.sh --arch arm64 | tail -1)
  dpkg-deb -x "$deb" "$work/deb"
  arm=$work/deb/usr/bin/segmance
fi
file -L "$arm" | grep -q 'ARM aarch64' || { echo "twin agreement: $arm is not an arm64 binary" >&2; exit 1; }
# The root with the package's dependencies (build.sh installs them from the .deb's Depends).
"$here/build.sh" ${deb:+"$deb"} > /dev/null
root=$cache/arm64/root.img.d
x86=${SEGMANCE_TWIN_X86:-.build/release/segmance}
[ -x "$x86" ] || swift build -c release --product segmance > /dev/null
run_arm() { qemu-aarch64-static -L "$root" "$arm" "$@"; }

passed=0 failed=0
verdict() {   # verdict NAME STATUS [DETAIL]
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "twin agreement: $1: yes${3:+ ($3)}"
  else failed=$((failed + 1)); echo "twin agreement: $1: NO${3:+ ($3)}"; fi
}

t0=$SECONDS
"$x86" demo-stick "$work/x86-stick" > /dev/null
run_arm demo-stick "$work/arm-stick" > /dev/null
# The stick's WAVs and manifests are the generator's own bytes; its FLAC is encoded by each
# system's libsndfile and libFLAC (bookworm's on the host, trixie's for arm64): other bytes.
status=0
(cd "$work/x86-stick" && find . -type f ! -name '*.flac' -exec cmp -s {} "$work/arm-stick/{}" \; -print) \
  > "$work/same.txt" || status=$?
[ "$(wc -l < "$work/same.txt")" -eq "$(cd "$work/x86-stick" && find . -type f ! -name '*.flac' | wc -l)" ] || status=1
verdict "demo stick: its WAVs and manifests identical" "$status" "$(wc -l < "$work/same.txt") files; FLAC not compared"

# The import: each CPU's own. Files at the output rate are copied, the same bytes; a
# resampled one may differ by rounding, at most one LSB.
"$x86" import "$work/x86-stick" --library "$work/x86-library" > /dev/null
run_arm import "$work/x86-stick" --library "$work/arm-library" > /dev/null
status=0 same=0 resampled=""
for media in "$work"/x86-library/media/*.pcm; do
  other=$work/arm-library/media/$(basename "$media")
  if cmp -s "$media" "$other"; then same=$((same + 1)); continue; fi
  resampled+="${resampled:+; }$(python3 "$here/wav-difference.py" "$media" "$other" -90.3)" || status=1
done
verdict "import: the library's audio, resampled within 1 LSB" "$status" \
  "$same of $(ls "$work"/x86-library/media/*.pcm | wc -l) files the same bytes${resampled:+; resampled: $resampled}"

# The render function alone: both twins play from copies of the x86-64 import.
sim() {   # sim BINARY-RUNNER NAME SCENARIO
  rm -rf "$work/library-$2" && cp -a "$work/x86-library" "$work/library-$2"
  $1 sim --stick "$work/x86-stick" --library "$work/library-$2" --scenario "$3" \
    --wav "$work/$2.wav" --frames "$work/$2.txt" > /dev/null
}

# 100 %: no stretcher runs; byte for byte.
sim "$x86" x86 Tests/Scenarios/demo.scenario
t_arm=$SECONDS
sim run_arm arm Tests/Scenarios/demo.scenario
echo "twin agreement: the demo under qemu-user took $((SECONDS - t_arm)) s"
status=0; cmp -s "$work/x86.txt" "$work/arm.txt" || status=$?
verdict "frame log, demo, byte for byte" "$status" "$(wc -l < "$work/x86.txt") lines"
status=0; cmp -s "$work/x86.wav" "$work/arm.wav" || status=$?
verdict "WAV, demo at 100 %, byte for byte" "$status" "$(stat -c %s "$work/x86.wav") bytes"

# 75 %: the stretcher runs; the difference stated and bounded.
sim "$x86" x86-75 Tests/Scenarios/speed75.scenario
sim run_arm arm-75 Tests/Scenarios/speed75.scenario
status=0; cmp -s "$work/x86-75.txt" "$work/arm-75.txt" || status=$?
verdict "frame log, 75 %, byte for byte" "$status"
status=0
detail=$(python3 "$here/wav-difference.py" "$work/x86-75.wav" "$work/arm-75.wav" "$bound") || status=$?
verdict "WAV at 75 %, difference within $bound dBFS peak" "$status" "$detail"
echo "twin agreement: took $((SECONDS - t0)) s"
echo "twin agreement: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
