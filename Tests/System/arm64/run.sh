#!/usr/bin/env bash
# The arm64 board in a box: trixie's arm64 kernel on qemu-system-aarch64 -M virt (TCG,
# Cortex-A72), an arm64 trixie root, the devices of board/sim-vm.toml.
#   Tests/System/run.sh --arch arm64        (or this script)
#   SEGMANCE_BOX_DEB=PATH …                 the arm64 .deb to install (default: built by
#                                           deploy/build-deb.sh --arch arm64; none: devices only)
#   SEGMANCE_BOX_ARM64_CHECKS="rehearsal pedal stick"   the daemon's checks to run
#   SEGMANCE_BOX_KEEP=1 …                   keep the run folder (logs, captures)
# Builds the box (arm64/build.sh, cached), the x86-64 twin's references for the rehearsal
# (twin-reference.sh: the host's segmance sim, so the box also checks that the arm64 daemon
# plays what the x86-64 twin plays), boots once (serialized with flock /tmp/box.lock) and runs
# arm64/guest/run-all.sh. Ends with "system: N passed, N failed".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
log=${SEGMANCE_BOX_LOG:-.build/system-tests-arm64.log}
mkdir -p "$(dirname "$log")"
started=$SECONDS

deb=${SEGMANCE_BOX_DEB:-}
if [ -z "$deb" ] && grep -q -- '--arch' deploy/build-deb.sh; then
  t0=$SECONDS
  deb=$(deploy/build-deb.sh --arch arm64 | tail -1)
  echo "system: arm64 package build took $((SECONDS - t0)) s: $deb"
fi
t0=$SECONDS
"$here/build.sh" ${deb:+"$deb"} > /dev/null
echo "system: arm64 box build took $((SECONDS - t0)) s"
if [ -n "$deb" ]; then
  export SEGMANCE_BOX_DEB SEGMANCE_BOX_APT=1
  SEGMANCE_BOX_DEB=$(realpath "$deb")
  # The .deb may lie outside the repository: the guest sees its folder at the same path.
  SEGMANCE_BOX_BIND=$(dirname "$SEGMANCE_BOX_DEB")${SEGMANCE_BOX_BIND:+,$SEGMANCE_BOX_BIND}
  export SEGMANCE_BOX_BIND
  t0=$SECONDS
  SEGMANCE_BOX_TWIN_DIR=$PWD/.build/box-arm64-twin "$here/twin-reference.sh"
  export SEGMANCE_BOX_TWIN_DIR=$PWD/.build/box-arm64-twin
  echo "system: x86-64 twin references took $((SECONDS - t0)) s"
fi

t0=$SECONDS
status=0
flock /tmp/box.lock "$here/../boxrun" --arch arm64 --timeout 2400 --log "$log" ${SEGMANCE_BOX_KEEP:+--keep} \
  -- bash "$here/guest/run-all.sh" || status=$?
boot=$(sed -n 's/^\[ *\([0-9.]*\)\] \[box\] userspace up.*/\1/p' "$log" | head -1)
echo "system: arm64 VM run took $((SECONDS - t0)) s (boot to guest userspace ${boot:-?} s); console log: $log"
sed -n 's/^\[ *[0-9.]*\] \(box: .* in [0-9.]* s\|devices: .*\|rehearsal: .*\)$/system: \1/p' "$log"
summary=$(sed -n 's/^\[ *[0-9.]*\] box: \([0-9]* passed, [0-9]* failed\)$/\1/p' "$log" | tail -1)
echo "system: arm64 box took $((SECONDS - started)) s in all"
if [ -z "$summary" ]; then
  echo "system: the guest ended without a result (status $status)"
  echo "system: 0 passed, 1 failed"
  exit 1
fi
echo "system: $summary"
exit "$status"
