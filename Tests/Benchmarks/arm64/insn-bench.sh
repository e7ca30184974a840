#!/usr/bin/env bash
# The cost on a Pi's CPU, counted on aarch64 (insn-bench.py says how): instructions per audio
# second of the render function at 100 % and 75 %, and of the control loop and LCD, with
# the Pi 4 and Pi 5 estimates; budget: the render at 75 % <= 25 % of one Pi 4 core, at
# 100 % <= 2 %.
#   Tests/Benchmarks/arm64/insn-bench.sh [--check] [--write-figures docs/figures.md]
# The arm64 binary: $SEGMANCE_ARM64 or the .deb's (SEGMANCE_BOX_DEB, else built by
# deploy/build-deb.sh --arch arm64); the arm64 root of the box (Tests/System/arm64/build.sh)
# is its library prefix. Needs qemu-user (the dynamic qemu-aarch64: plugins) and gcc.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
cache=${SEGMANCE_BOX_CACHE:-$HOME/.cache/segmance-box}
mkdir -p .build
plugin=.build/insn-threads.so
[ "$plugin" -nt "$here/insn-threads.c" ] || gcc -O2 -shared -fPIC -o "$plugin" "$here/insn-threads.c"
arm=${SEGMANCE_ARM64:-}
deb=${SEGMANCE_BOX_DEB:-}
if [ -z "$arm" ]; then
  [ -n "$deb" ] || deb=$(deploy/build-deb.sh --arch arm64 | tail -1)
  rm -rf .build/insn-deb && dpkg-deb -x "$deb" .build/insn-deb
  arm=.build/insn-deb/usr/bin/segmance
fi
Tests/System/arm64/build.sh ${deb:+"$deb"} > /dev/null
exec python3 "$here/insn-bench.py" --segmance "$arm" --root "$cache/arm64/root.img.d" --plugin "$plugin" "$@"
