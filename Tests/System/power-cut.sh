#!/usr/bin/env bash
# Power cuts in the board in a box: Tests/System/power-cut.sh N [SEED]
# N times, the box imports, re-imports, or saves settings and the resume point into a
# library on its own virtio disk (an ext4 image file on the host), and its power is cut at
# a random moment (qemu killed: what the guest had not written out is lost); the next boot
# checks the library is whole and that everything acknowledged before the cut is there
# (Tests/System/power_cut.py says exactly what). Prints its seed first (the same seed
# replays the same workloads and cut times) and ends with "N cuts, 0 damaged" on success.
# Runs the package's binary (the release build deploy/build-deb.sh makes, in .build-deb:
# built here if needed) and builds the box (Tests/System/build.sh) first. Run it under
# `flock /tmp/segmance-box.lock` on a shared machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
[ $# -ge 1 ] || { echo "usage: Tests/System/power-cut.sh N [SEED]" >&2; exit 2; }
swift build -c release --static-swift-stdlib --scratch-path .build-deb --product segmance > /dev/null
export SEGMANCE_CUT_BIN="$(swift build -c release --static-swift-stdlib --scratch-path .build-deb --show-bin-path)/segmance"
"$here/build.sh" > /dev/null
exec python3 "$here/power_cut.py" "$@"
