#!/bin/bash
# In the guest (root): a full disk under the library, for real. The library on an 8 MB ext4
# (a loop device, no blocks reserved), a stick of three routines imported into it: "Alpha"
# (2 s of audio, 384 KB of PCM) fits, "Bravo" (three 12 s files, 6.9 MB) fills the disk on
# its third file, "Charlie" comes after. Bravo must be abandoned with a message naming it and
# the reason, the import stop there, nothing of Bravo stay (no partial file, no orphan media:
# `segmance library check` has nothing to recover), and the library go on working on the
# full disk: the resume point is saved and `segmance sim` plays Alpha.
set -u
repo=$(cd "$BOX_DIR/../.." && pwd)
segmance=${SEGMANCE_BOX_SEGMANCE:-$repo/.build/debug/segmance}
work=/run/full-disk
loop=
fail() {
  echo "full disk: $*"
  umount "$work/disk" 2> /dev/null
  [ -n "$loop" ] && losetup -d "$loop"
  exit 1
}

rm -rf "$work" && mkdir -p "$work/disk"
truncate -s 8M "$work/disk.img"
mkfs.ext4 -q -F -m 0 "$work/disk.img" || fail "mkfs.ext4 failed"
modprobe loop
modprobe ext4
loop=$(losetup --find --show "$work/disk.img") || fail "no loop device"
mount -t ext4 "$loop" "$work/disk" || fail "mounting $loop failed"
lib=$work/disk/library

cat > "$work/tones.py" <<'PY'
import math, os, sys, wave
def tone(path, seconds, frequency, rate=48_000):
    """A stereo WAV of a tone; one 10 ms period repeated (frequencies are multiples of 100 Hz)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    period = bytearray()
    for n in range(rate // 100):
        v = int(12_000 * math.sin(2 * math.pi * frequency * n / rate))
        period += v.to_bytes(2, "little", signed=True) * 2
    with wave.open(path, "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(bytes(period) * int(seconds * 100))
stick = sys.argv[1]
tone(f"{stick}/Alpha/01 Only.wav", 2, 400)
for i in range(3):
    tone(f"{stick}/Bravo/0{i + 1} Part.wav", 12, 500 + 100 * i)
tone(f"{stick}/Charlie/01 Only.wav", 1, 300)
PY
python3 "$work/tones.py" "$work/stick" || fail "the stick's files could not be written"

status=0
"$segmance" import "$work/stick" --library "$lib" > "$work/import.out" 2> "$work/import.err" || status=$?
echo "full disk: segmance import said (status $status):"
sed 's/^/  /' "$work/import.out" "$work/import.err"
[ "$status" -eq 1 ] || fail "the import exited $status, not 1"
grep -qx 'Alpha: added' "$work/import.out" || fail "Alpha was not added"
grep -qE "^Bravo: not imported \(the library's disk is full \(write\($lib/media/tmp-[^)]*\): No space left on device\)\)$" \
  "$work/import.out" || fail "no line naming Bravo and the full disk"
[ "$(tail -1 "$work/import.out")" = "Import stopped: library disk full" ] \
  || fail "the import did not end with 'Import stopped: library disk full'"
echo "full disk: $(df -k --output=avail "$work/disk" | tail -1 | tr -d ' ') KB free after the import"

check=$("$segmance" library check --library "$lib" 2>&1) || fail "library check failed: $check"
[ "$check" = "The library $lib is whole: 1 routine." ] || fail "library check said: $check"
media=$(ls -A "$lib/media")
[ "$(echo "$media" | wc -l)" -eq 1 ] && [ "$(stat -c %s "$lib/media/$media")" -eq 384000 ] \
  || fail "the media folder holds more than Alpha's 384000 bytes: $(ls -l "$lib/media")"

"$segmance" library resume --library "$lib" --routine Alpha --part 1 --frame 4800 > /dev/null \
  || fail "the resume point could not be saved on the full disk"
printf '0.5 tap play\n1.8 tap play\n' > "$work/play.scenario"
"$segmance" sim --library "$lib" --countdown 0 --scenario "$work/play.scenario" \
  --wav "$work/play.wav" --frames "$work/play.txt" > /dev/null 2>&1 || fail "segmance sim failed"
grep -q '▶ 1/1' "$work/play.txt" || fail "the twin's LCD never showed ▶ 1/1: $(head -5 "$work/play.txt")"
peak=$(python3 - "$work/play.wav" <<'PY'
import array, sys, wave
w = wave.open(sys.argv[1])
rate = w.getframerate()
w.setpos(rate)   # 1.0 s to 1.5 s: playing since 0.5 s
print(max(abs(s) for s in array.array("h", w.readframes(rate // 2))))
PY
)
[ "${peak:-0}" -gt 1000 ] || fail "Alpha did not play: peak ${peak:-?} between 1 and 1.5 s"
echo "full disk: Alpha plays from the full disk (peak $peak between 1 and 1.5 s)"
umount "$work/disk"
losetup -d "$loop"
