#!/bin/bash
# In the arm64 guest: one of the daemon's checks, from the installed package.
#   daemon.sh rehearsal|pedal   daemon.py (the rehearsal against the x86-64 twin, the pedal)
#   daemon.sh stick             the x86 box's stick check (guest/stick-test.sh): hot-plug, the
#                               udev rule, the mount helper, yank and re-plug, exFAT, NTFS, ext4
#                               imported by the package's segmance, APFS named
set -euo pipefail
case "$1" in
  stick) exec bash "$BOX_DIR/guest/stick-test.sh" ;;
  *) exec python3 "$BOX_DIR/arm64/guest/daemon.py" "$1" ;;
esac
