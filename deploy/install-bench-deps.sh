#!/usr/bin/env bash
# Installs the peers the engine benchmark compares against (Tests/Benchmarks/engine-bench.sh):
# aplay (alsa-utils) and MPD 0.23, plus python3 for the script. Not needed to build or test.
set -euo pipefail
packages=(
  alsa-utils         # aplay
  mpd                # Music Player Daemon 0.23 (bookworm)
  python3            # the benchmark script
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-bench-deps: all packages present"
  exit 0
fi
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
echo "install-bench-deps: installing ${missing[*]}"
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
