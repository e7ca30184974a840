#!/bin/bash
# In the arm64 guest (trixie's arm64 kernel and root): the hardware of board/sim-vm.toml,
# each device checked with trixie's own tools (devices.sh), then, with $SEGMANCE_BOX_DEB
# (the arm64 .deb), the package installed with apt (its dependencies from trixie, in the
# root image) and checked, the daemon's checks from it as user segmance (daemon.sh: the
# rehearsal against the twin's audio and frames, the foot pedal, the stick hot-plug), and
# the package removed. Ends with "box: N passed, N failed".
. "$BOX_DIR/guest/boxlib.sh"
. "$BOX_DIR/guest/hardware.sh"
here=$BOX_DIR/arm64/guest
passed=0 failed=0
check() {
  local name=$1 t0
  shift
  t0=$(date +%s%N)
  if "$@"; then passed=$((passed + 1)); echo "box: $name passed in $(box_elapsed "$t0") s"
  else failed=$((failed + 1)); echo "box: $name FAILED in $(box_elapsed "$t0") s"; fi
}
echo "box: $(uname -m), kernel $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME")"
t0=$(date +%s%N)
box_hardware || { echo "box: the simulated hardware did not come up"; echo "box: 0 passed, 1 failed"; exit 1; }
echo "box: hardware up in $(box_elapsed "$t0") s"
check "devices" bash "$here/devices.sh"
if [ -n "${SEGMANCE_BOX_DEB:-}" ]; then
  check "package install" bash "$BOX_DIR/guest/package-test.sh" install
  if [ -x /usr/bin/segmance ] && box_udev_start; then
    export SEGMANCE_BOX_SEGMANCE=/usr/bin/segmance SEGMANCE_BOX_USER=segmance
    for t in ${SEGMANCE_BOX_ARM64_CHECKS:-rehearsal pedal stick}; do
      check "daemon: $t" bash "$here/daemon.sh" "$t"
    done
    box_udev_stop
  else
    echo "box: the package did not install, or udevd did not start: no daemon checks"
    failed=$((failed + 1))
  fi
  check "package remove" bash "$BOX_DIR/guest/package-test.sh" remove
fi
echo "box: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
