#!/usr/bin/env bash
# Installs what the engine benchmark (Tests/Benchmarks/engine-bench.sh) needs besides the
# build and test packages: the peers it compares against, aplay (alsa-utils) and MPD 0.23,
# and python3 for the script; for `segmance-bench stretch`, SoundTouch (libsoundtouch-dev,
# whose soundstretch tool is in the soundstretch package) and the rubberband tool as the peers
# of the library engines. Not needed to build or test.
set -euo pipefail
exec "$(dirname "$0")/install-deps.sh" alsa-utils mpd python3 libsoundtouch-dev soundstretch rubberband-cli
