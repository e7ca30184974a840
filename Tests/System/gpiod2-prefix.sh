#!/usr/bin/env bash
# trixie's libgpiod 2 (libgpiod3 and libgpiod-dev, amd64) unpacked into a prefix of the box's
# cache, for a build of the test bundle against the API Raspberry Pi OS has (bookworm has
# libgpiod 1.6; libgpiod.so.3 needs only glibc 2.33). Prints the prefix. Downloads once
# (Tests/System/arm64/trixie-apt.sh: an apt configuration of its own, the host's sources
# untouched).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${SEGMANCE_BOX_CACHE:-$HOME/.cache/segmance-box}
# shellcheck source=arm64/trixie-apt.sh
. "$here/arm64/trixie-apt.sh"
prefix=$cache/gpiod2
if [ ! -f "$prefix/.ready" ]; then
  rm -rf "$prefix" && mkdir -p "$prefix"
  for p in libgpiod3:amd64 libgpiod-dev:amd64; do dpkg -x "$(trixie_fetch "$p")" "$prefix"; done
  grep -q "^Version: 2\." "$prefix/usr/lib/x86_64-linux-gnu/pkgconfig/libgpiod.pc"
  touch "$prefix/.ready"
fi
echo "$prefix"
