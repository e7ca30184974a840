#!/usr/bin/env bash
# Power cuts under the library: Tests/System/power-cut.sh N [SEED]
# One boot of the box imports, re-imports, removes and saves (settings, resume point, the
# daemon's own saves: volume, the 30 s resume save, an A-B loop; its menu's making on the box:
# a split, a move and a named loop added, a part renamed) into a library on a disk
# under the kernel's dm-log-writes, which records every write and flush the disk was given;
# the host then rebuilds N crash states from that log (at flush points, and between them
# with unflushed writes lost) and checks each one: fsck clean, `segmance library check`
# whole, every save acknowledged before that point still there (Tests/System/power_log.py
# says exactly what). Prints its seed first (the same seed picks the same states) and ends
# with "N crash states, 0 damaged" on success.
#   Tests/System/power-cut.sh --kill N [SEED]: the older cuts (power_cut.py): N boots, each
#   killed by the host at a random moment, the next boot judging the library.
# Runs the package's binary (the release build deploy/build-deb.sh makes, in .build-deb:
# built here if needed) and builds the box (Tests/System/build.sh) first. Run it under
# `flock /tmp/box.lock` on a shared machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
script=power_log.py
if [ "${1:-}" = --kill ]; then script=power_cut.py; shift; fi
[ $# -ge 1 ] || { echo "usage: Tests/System/power-cut.sh [--kill] N [SEED]" >&2; exit 2; }
swift build -c release --static-swift-stdlib --scratch-path .build-deb --product segmance > /dev/null
bin=$(swift build -c release --static-swift-stdlib --scratch-path .build-deb --show-bin-path)
export SEGMANCE_CUT_BIN="$bin/segmance"
"$here/build.sh" > /dev/null
exec python3 "$here/$script" "$@"
