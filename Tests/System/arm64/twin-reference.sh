#!/usr/bin/env bash
# On the host: what the arm64 box's rehearsal is compared with, made by the x86-64 twin.
# A stick with one routine, "Rehearsal" (countdown 3 s; parts "01 Alpha", "02 Beta": 20 s of
# a chord each, made by python3), and the twin's audio and frames for PLAY pressed once:
#   $SEGMANCE_BOX_TWIN_DIR/stick, rehearsal.wav, rehearsal-frames.txt
# The twin is the host's release build (SEGMANCE_BOX_TWIN, default .build/release/segmance,
# built when missing).
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${SEGMANCE_BOX_TWIN_DIR:?where to write}
twin=${SEGMANCE_BOX_TWIN:-.build/release/segmance}
[ -x "$twin" ] || swift build -c release --product segmance > /dev/null
rm -rf "$out" && mkdir -p "$out/stick/Rehearsal"
printf 'title = "Rehearsal"\ncountdown = 3\n' > "$out/stick/Rehearsal/routine.toml"
python3 - "$out/stick/Rehearsal" <<'PY'
import math, struct, sys, wave
for name, root in (("01 Alpha.wav", 220.0), ("02 Beta.wav", 246.94)):
    w = wave.open(f"{sys.argv[1]}/{name}", "wb"); w.setnchannels(2); w.setsampwidth(2); w.setframerate(48000)
    frames = bytearray()
    for i in range(20 * 48000):
        t = i / 48000
        s = sum(math.sin(2 * math.pi * root * r * t) for r in (1, 1.25, 1.5)) / 3
        env = 0.5 + 0.5 * math.sin(2 * math.pi * 0.5 * t)
        frames += struct.pack("<hh", int(9000 * s * env), int(9000 * s * (1 - env)))
    w.writeframes(bytes(frames)); w.close()
PY
printf '0.5 tap play\n20.0 end\n' > "$out/rehearsal.scenario"
"$twin" sim --stick "$out/stick" --scenario "$out/rehearsal.scenario" \
  --wav "$out/rehearsal.wav" --frames "$out/rehearsal-frames.txt" > /dev/null
echo "$out"
