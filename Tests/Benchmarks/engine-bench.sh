#!/usr/bin/env bash
# The real-time engine's figures beside aplay and MPD on one paced ALSA device:
# input event -> first changed sample handed to ALSA (p50/p99 over 1000 events) and the
# edge-to-sound estimate, CPU seconds per audio-minute and peak RSS while playing, and
# start -> ready. Takes about 20 minutes (60 s windows per player, 5 alternating
# segmance/aplay rounds, 1000 events per latency run, 3 runs per buffer); --short, as CI
# runs it (.ci/run through budgets.sh), about 10: 15 s windows, 3 rounds, 300 events, a 60 s
# speed soak. Every figure is printed beside its budget (the BUDGETS of engine_bench.py); no
# environment variable moves a budget or a length.
#
#     Tests/Benchmarks/engine-bench.sh [--short] [--check] [--write-figures docs/figures.md]
#
# --check: exit 1 when a figure misses its budget. --write-figures FILE: write this
# benchmark's section of the generated figures file.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
deploy/install-deps.sh >/dev/null
deploy/install-bench-deps.sh >/dev/null
# Built as the package builds the daemon (deploy/build-deb.sh, in the same scratch folder): the
# Swift runtime and Foundation linked in (--static-swift-stdlib), so memory is measured as it
# will be on a board.
swift build -c release --static-swift-stdlib --scratch-path .build-deb --product segmance-bench >/dev/null
swift build -c release --static-swift-stdlib --scratch-path .build-deb --product segmance >/dev/null
bench="$PWD/.build-deb/release/segmance-bench"
# The product's binary: the daemon's memory is counted without the libraries only the bench loads.
export SEGMANCE_PRODUCT="$PWD/.build-deb/release/segmance"

work=$(mktemp -d /tmp/segmance-engine-bench.XXXXXX)
server="segbench-$$"
jackd_pid=""
cleanup() {
  if [ -n "$jackd_pid" ]; then kill "$jackd_pid" 2>/dev/null || true; wait "$jackd_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

cat > "$work/asound.conf" <<CONF
</usr/share/alsa/alsa.conf>
pcm.bench_jack {
    type jack
    playback_ports { 0 system:playback_1 1 system:playback_2 }
}
pcm.bench {
    type plug
    slave.pcm "bench_jack"
}
CONF
export ALSA_CONFIG_PATH="$work/asound.conf"
export JACK_DEFAULT_SERVER="$server"
JACK_NO_AUDIO_RESERVATION=1 jackd -n "$server" -d dummy -r 48000 -p 128 -P 2 -C 0 >"$work/jackd.log" 2>&1 &
jackd_pid=$!
jack_wait -s "$server" -w -t 20 >/dev/null 2>&1

"$bench" prepare --dir "$work" >/dev/null
python3 Tests/Benchmarks/engine_bench.py "$bench" "$work" "$@"
