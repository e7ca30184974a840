#!/bin/bash
# In the guest: every system test in one boot. The hardware of board/sim-vm.toml first,
# then the SystemTests Swift target (the host-built test bundle run in place), the USB stick
# check, and the package check when $SEGMANCE_BOX_DEB names a .deb. Ends with the line
# "box: N passed, N failed".
. "$BOX_DIR/guest/boxlib.sh"
. "$BOX_DIR/guest/hardware.sh"
passed=0 failed=0

t0=$(date +%s%N)
box_hardware || { echo "box: the simulated hardware did not come up"; echo "box: 0 passed, 1 failed"; exit 1; }
echo "box: hardware up in $(box_elapsed "$t0") s"

# The Swift tests: the bundle `swift build --build-tests` made on the host runs unchanged in
# the guest (it finds the Swift runtime in /opt/swift through the shared root).
t0=$(date +%s%N)
bundle=.build/debug/SegmancePackageTests.xctest
"$bundle" --testing-library swift-testing --filter SystemTests 2>&1 | sed 's/\x1b\[[0-9;]*m//g' | tee /tmp/swift.log
status=${PIPESTATUS[0]}
total=$(sed -n 's/.*Test run with \([0-9]*\) tests\{0,1\} .*/\1/p' /tmp/swift.log | tail -1)
broken=$(grep -E '^✘ Test .* failed after' /tmp/swift.log | grep -vc '^✘ Test run with' || true)
skipped=$(grep -c 'skipped' /tmp/swift.log || true)
if [ -z "$total" ] || [ "$total" -eq 0 ] || [ "$skipped" -ne 0 ]; then
  echo "box: the Swift system tests ran ${total:-no} tests, $skipped skipped"
  failed=$((failed + 1))
else
  [ "$status" -eq 0 ] || [ "$broken" -gt 0 ] || broken=1
  passed=$((passed + total - broken)) failed=$((failed + broken))
fi
echo "box: Swift system tests: $total tests, $broken failed, in $(box_elapsed "$t0") s"

check() {
  local name=$1 t0
  shift
  t0=$(date +%s%N)
  if "$@"; then passed=$((passed + 1)); echo "box: $name passed in $(box_elapsed "$t0") s"
  else failed=$((failed + 1)); echo "box: $name FAILED in $(box_elapsed "$t0") s"; fi
}
check "USB stick" bash "$BOX_DIR/guest/stick-test.sh"
if [ -n "${SEGMANCE_BOX_DEB:-}" ]; then
  check "package" bash -c 'bash "$BOX_DIR/guest/package-test.sh" 2>&1 | grep -v "^(Reading database"; exit ${PIPESTATUS[0]}'
else
  echo "box: package check skipped: no SEGMANCE_BOX_DEB (Tests/System/run.sh builds one)"
fi

echo "box: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
