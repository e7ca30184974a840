#!/bin/bash
# In the guest: every system test in one boot. The hardware of board/sim-vm.toml first,
# then the SystemTests Swift target (the host-built test bundle run in place) but for the
# daemon's tests, the USB stick check, *Save to stick* through the mount helper, the full-disk
# checks (guest/full-disk.sh, and the library's DiskFullTests, which need root), the package
# check when $SEGMANCE_BOX_DEB names a .deb, and the daemon's tests (SystemTests/Daemon): from
# the installed package, as user segmance, with udevd giving the devices to its groups — or,
# with no package, as root with $SEGMANCE_BOX_SEGMANCE. $SEGMANCE_BOX_FILTER (a regular
# expression) runs only the Swift tests it matches; $SEGMANCE_BOX_BUNDLE names another test
# bundle, and SEGMANCE_BOX_SWIFT_ONLY=1 stops after the Swift system tests. Ends with the line
# "box: N passed, N failed".
. "$BOX_DIR/guest/boxlib.sh"
. "$BOX_DIR/guest/hardware.sh"
passed=0 failed=0

t0=$(date +%s%N)
box_hardware || { echo "box: the simulated hardware did not come up"; echo "box: 0 passed, 1 failed"; exit 1; }
echo "box: hardware up in $(box_elapsed "$t0") s"

# swift_tests NAME ARGS...: the bundle `swift build --build-tests` made on the host runs
# unchanged in the guest (it finds the Swift runtime in /opt/swift through the shared root).
swift_tests() {
  local name=$1 t0 status total broken skipped log=/tmp/swift-$RANDOM.log
  shift
  t0=$(date +%s%N)
  ${harness_nice:+nice -n "$harness_nice"} "${SEGMANCE_BOX_BUNDLE:-.build/debug/SegmancePackageTests.xctest}" \
    --testing-library swift-testing "$@" 2>&1 \
    | sed 's/\x1b\[[0-9;]*m//g' | tee "$log"
  status=${PIPESTATUS[0]}
  total=$(sed -n 's/.*Test run with \([0-9]*\) tests\{0,1\} .*/\1/p' "$log" | tail -1)
  broken=$(grep -E '^✘ Test .* failed after' "$log" | grep -vc '^✘ Test run with' || true)
  skipped=$(grep -c 'skipped' "$log" || true)
  if [ -n "${SEGMANCE_BOX_FILTER:-}" ] && [ "${total:-0}" -eq 0 ]; then
    echo "box: $name: no test matches SEGMANCE_BOX_FILTER"
  elif [ -z "$total" ] || [ "$total" -eq 0 ] || [ "$skipped" -ne 0 ]; then
    echo "box: $name ran ${total:-no} tests, $skipped skipped"
    failed=$((failed + 1))
  else
    [ "$status" -eq 0 ] || [ "$broken" -gt 0 ] || broken=1
    passed=$((passed + total - broken)) failed=$((failed + broken))
  fi
  echo "box: $name: ${total:-0} tests, ${broken:-0} failed, in $(box_elapsed "$t0") s"
}

check() {
  local name=$1 t0
  shift
  t0=$(date +%s%N)
  if "$@"; then passed=$((passed + 1)); echo "box: $name passed in $(box_elapsed "$t0") s"
  else failed=$((failed + 1)); echo "box: $name FAILED in $(box_elapsed "$t0") s"; fi
}

# The daemon's tests watch the daemon from a debug build that scans the capture and decodes
# the LCD's I2C trace on the VM's two vCPUs; at nice 10 it yields to the daemon (started
# at nice 0 by DaemonRig), which on a box has the CPU to itself.
daemon_tests() { harness_nice=10 swift_tests "daemon tests" --filter "SystemTests/Daemon/.*$only"; }

# Test names look like SystemTests.SystemTests/Daemon/edgeToSoundLatency(). The filter is
# grouped: an alternation (a|b) must not match host unit tests outside SystemTests (it did,
# "aStick" ran library tests that bind-mount /proc/self/mem, and the guest hung twice).
only=${SEGMANCE_BOX_FILTER:+(${SEGMANCE_BOX_FILTER})}
swift_tests "Swift system tests" --filter "SystemTests/.*$only" --skip 'SystemTests/Daemon/'
if [ "${SEGMANCE_BOX_SWIFT_ONLY:-0}" = 1 ]; then
  echo "box: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
fi
check "USB stick" bash "$BOX_DIR/guest/stick-test.sh"
check "save to stick" bash "$BOX_DIR/guest/stick-save-test.sh"
check "full disk" bash "$BOX_DIR/guest/full-disk.sh"
# The library's own full-disk test mounts a tmpfs: it needs root, which the box has.
swift_tests "library tests needing root" --filter 'SegmanceLibraryTests\.DiskFullTests/'

package() { bash "$BOX_DIR/guest/package-test.sh" "$1" 2>&1 | grep -v "^(Reading database"; return "${PIPESTATUS[0]}"; }
if [ -n "${SEGMANCE_BOX_DEB:-}" ]; then
  check "package install" package install
  if [ -x /usr/bin/segmance ] && box_udev_start; then
    export SEGMANCE_BOX_SEGMANCE=/usr/bin/segmance SEGMANCE_BOX_USER=segmance
    echo "box: the daemon's tests run /usr/bin/segmance from the package as user segmance"
    daemon_tests
    box_udev_stop
  else
    echo "box: the package did not install, or udevd did not start: no daemon tests"
    failed=$((failed + 1))
  fi
  check "package remove" package remove
else
  echo "box: package check skipped: no SEGMANCE_BOX_DEB (Tests/System/run.sh builds one)"
  echo "box: the daemon's tests run ${SEGMANCE_BOX_SEGMANCE:-(no binary)} as root"
  daemon_tests
fi

echo "box: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
