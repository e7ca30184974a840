#!/usr/bin/env bash
# The system tests: real kernel drivers in the board in a box.
#   Tests/System/run.sh            build what they need, boot the VM once, run them all
#   Tests/System/run.sh --arch arm64   the arm64 box instead (Tests/System/arm64/run.sh)
#   SEGMANCE_BOX_NO_DEB=1 …        without the .deb: the daemon's tests run a release build
#                                  (.build/release/segmance) as root
#   SEGMANCE_BOX_FILTER=REGEX …    only the Swift system tests whose name matches (the shell
#                                  checks of the stick and the package still run)
#   SEGMANCE_BOX_KEEP=1 …          keep the run folder (the daemons' logs, the LCD's screens,
#                                  the capture beside the twin's audio; boxrun --keep)
#   SEGMANCE_BOX_GPIOD_API=2 …     the GPIO system tests (ButtonsAndEncoder) only, with the test
#                                  bundle built against trixie's libgpiod 2 (gpiod2-prefix.sh) in
#                                  .build-gpiod2: the same tests on the API Raspberry Pi OS has
# Builds the test bundle (swift build --build-tests), the box (Tests/System/build.sh,
# cached in ${SEGMANCE_BOX_CACHE:-$HOME/.cache/segmance-box}) and the package
# (deploy/build-deb.sh: the release binary the daemon's tests run, installed in the VM),
# then runs Tests/System/guest/run-all.sh in the VM. Prints the time of each step, the
# figures the daemon's tests measured, and ends with "system: N passed, N failed". Needs
# deploy/install-deps.sh and deploy/install-box-deps.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = --arch ]; then
  case "${2:-}" in
    arm64) exec "$here/arm64/run.sh" ;;
    x86_64|amd64) ;;
    *) echo "run.sh: --arch arm64 or x86_64" >&2; exit 2 ;;
  esac
fi
cd "$here/../.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
log=${SEGMANCE_BOX_LOG:-.build/system-tests.log}
mkdir -p "$(dirname "$log")"

timed() {   # timed NAME CMD...: runs CMD, says how long it took
  local name=$1 t0=$SECONDS
  shift
  "$@"
  echo "system: $name took $((SECONDS - t0)) s"
}

if [ "${SEGMANCE_BOX_GPIOD_API:-1}" = 2 ]; then
  prefix=$("$here/gpiod2-prefix.sh")
  libdir=$prefix/usr/lib/x86_64-linux-gnu
  # GNU ld searches every -L for -lgpiod in order, and the other libraries' pkg-config files
  # put /usr/lib/x86_64-linux-gnu first: in a mount namespace of its own, the build sees
  # libgpiod 2's library and header where bookworm's libgpiod 1 has its own.
  timed "test bundle build against libgpiod 2" unshare --mount --propagation private sh -ec '
    mount --bind "$1/libgpiod.so" /usr/lib/x86_64-linux-gnu/libgpiod.so
    mount --bind "$2/gpiod.h" /usr/include/gpiod.h
    exec swift build --build-tests --scratch-path .build-gpiod2 -Xlinker -rpath -Xlinker "$1"
  ' gpiod2 "$libdir" "$prefix/usr/include"
  export SEGMANCE_BOX_BUNDLE=.build-gpiod2/debug/SegmancePackageTests.xctest SEGMANCE_BOX_SWIFT_ONLY=1
  export SEGMANCE_BOX_FILTER=${SEGMANCE_BOX_FILTER:-ButtonsAndEncoder}
  readelf -d "$SEGMANCE_BOX_BUNDLE" | grep -q 'Shared library: \[libgpiod.so.3\]' \
    || { echo "system: the bundle of .build-gpiod2 does not link libgpiod.so.3"; exit 1; }
else
  timed "test bundle build" swift build --build-tests
fi
t0=$SECONDS
"$here/build.sh" > /dev/null
echo "system: box build took $((SECONDS - t0)) s"
if [ "${SEGMANCE_BOX_SWIFT_ONLY:-0}" = 1 ]; then
  :
elif [ "${SEGMANCE_BOX_NO_DEB:-0}" != 1 ]; then
  t0=$SECONDS
  deb=$(deploy/build-deb.sh | tail -1)
  echo "system: package build took $((SECONDS - t0)) s: $deb"
  export SEGMANCE_BOX_DEB="$PWD/$deb"
else
  timed "release build of segmance" swift build -c release --product segmance
  timed "release build of segmance-ffmpeg" swift build -c release --product segmance-ffmpeg
  export SEGMANCE_BOX_SEGMANCE="$PWD/.build/release/segmance"
fi

t0=$SECONDS
status=0
"$here/boxrun" --timeout 1500 --log "$log" ${SEGMANCE_BOX_KEEP:+--keep} -- bash "$here/guest/run-all.sh" || status=$?
boot=$(sed -n 's/^\[ *\([0-9.]*\)\] \[box\] userspace up.*/\1/p' "$log" | head -1)
echo "system: VM run took $((SECONDS - t0)) s (boot to guest userspace ${boot:-?} s); console log: $log"
# What the daemon's tests measured and compared, and each group's time.
sed -n 's/^\[ *[0-9.]*\] \(latency: .*\|rehearsal: .*\|box: .* in [0-9.]* s\)$/system: \1/p' "$log"
summary=$(sed -n 's/^\[ *[0-9.]*\] box: \([0-9]* passed, [0-9]* failed\)$/\1/p' "$log" | tail -1)
if [ -z "$summary" ]; then
  echo "system: the guest ended without a result (status $status)"
  echo "system: 0 passed, 1 failed"
  exit 1
fi
echo "system: $summary"
exit "$status"
