#!/bin/bash
# In the guest (root): a full disk under the library, for real. The library on an 8 MB ext4
# (a loop device, no blocks reserved), a stick of three routines imported into it: "Alpha"
# (2 s of audio, 384 KB of PCM) fits, "Bravo" (three 12 s files, 6.9 MB) fills the disk on
# its third file, "Charlie" comes after. Bravo must be abandoned with a message naming it and
# the reason, the import stop there, nothing of Bravo stay (no partial file, no orphan media:
# `segmance library check` has nothing to recover), and the library go on working on the
# full disk: the resume point is saved and `segmance sim` plays Alpha. Then a rehearsal while
# the card fills (below).
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
what, folder = sys.argv[1], sys.argv[2]
if what == "stick":
    tone(f"{folder}/Alpha/01 Only.wav", 2, 400)
    for i in range(3):
        tone(f"{folder}/Bravo/0{i + 1} Part.wav", 12, 500 + 100 * i)
    tone(f"{folder}/Charlie/01 Only.wav", 1, 300)
else:  # the rehearsal's: Long, and twenty routines of distinct tones (the store keeps one copy of equal files)
    tone(f"{folder}/long/Long/01 Long.wav", 35, 400)
    for i in range(20):
        tone(f"{folder}/more/More {i + 10}/01 Part.wav", 3, 300 + 100 * i)
PY
python3 "$work/tones.py" stick "$work/stick" || fail "the stick's files could not be written"

status=0
"$segmance" import "$work/stick" --library "$lib" > "$work/import.out" 2> "$work/import.err" || status=$?
echo "full disk: segmance import said (status $status):"
sed 's/^/  /' "$work/import.out" "$work/import.err"
[ "$status" -eq 1 ] || fail "the import exited $status, not 1"
grep -qx 'Alpha: added' "$work/import.out" || fail "Alpha was not added"
grep -qE "^Bravo: not imported \(the library's disk is full \(write\($lib/media/tmp-[^)]*\): No space left on device \(the last 2 MB are kept for the library's saves\)\)\)$" \
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
loop=

# A rehearsal while the card fills (issue "nothing a teacher made is lost"): a 16 MB ext4
# holding "Long" (35 s); during the rehearsal a stick of twenty 3 s routines is imported at
# once (auto import), up to the 2 MB the library keeps for its saves; then a loop is marked,
# the volume changed, and 30 s of music bring a resume save. Each save must land. Then the
# card is filled by something else to its last 48 KB and the box plays again: each save
# either lands or the LCD says `Card full:`; after it, the library is whole.
truncate -s 16M "$work/card.img"
mkfs.ext4 -q -F -m 0 "$work/card.img" || fail "mkfs.ext4 of the card failed"
loop=$(losetup --find --show "$work/card.img") || fail "no loop device for the card"
mkdir -p "$work/card"
mount -t ext4 "$loop" "$work/card" || fail "mounting the card failed"
lib=$work/card/library
python3 "$work/tones.py" rehearsal "$work" || fail "the rehearsal's sticks could not be written"
"$segmance" import "$work/long" --library "$lib" > /dev/null 2>&1 || fail "Long could not be imported"
cat > "$work/rehearsal.scenario" <<SC
0.5  tap play              # Long plays (no countdown)
1.0  stick $work/more      # imported at once while it plays: the card fills up to the reserve
5.0  tap loop              # A at about 0:04.5
9.0  tap loop              # B at about 0:08.5: the loop is saved
10.0 chord play +2         # volume 80 -> 90 %, saved when the bar goes
40.0 end                   # 30 s of music: the resume point is saved while playing
SC
"$segmance" sim --library "$lib" --countdown 0 --auto-import --scenario "$work/rehearsal.scenario" \
  --wav "$work/rehearsal.wav" --frames "$work/rehearsal.txt" > /dev/null 2> "$work/rehearsal.err" \
  || fail "segmance sim (the rehearsal) failed: $(tail -5 "$work/rehearsal.err")"
grep -q "^import: More [0-9]* not imported: the library's disk is full" "$work/rehearsal.err" \
  || fail "the rehearsal's import did not fill the card: $(grep import: "$work/rehearsal.err" | tail -3)"
free=$(df -k --output=avail "$work/card" | tail -1 | tr -d ' ')
echo "full disk: the rehearsal's import filled the card to $free KB free"
[ "$free" -ge 1984 ] || fail "the import took the 2 MB kept for the library's saves: $free KB free"
grep -q "Card full:" "$work/rehearsal.txt" && fail "a save failed with the reserve free: $(grep 'not saved' "$work/rehearsal.err")"
show=$("$segmance" library show Long --library "$lib") || fail "library show Long failed"
echo "$show" | grep -qE "loop 0:0[3-5]\.[0-9]–0:0[7-9]\.[0-9]" || fail "the loop marked in the rehearsal was not saved: $show"
"$segmance" library settings --library "$lib" | grep -qx "volume = 90" || fail "the volume 90 % was not saved"
resume=$("$segmance" library resume --library "$lib") || fail "library resume failed"
frame=$(echo "$resume" | sed -n 's/^"Long", part 1 "Long", frame \([0-9]*\)$/\1/p')
[ -n "$frame" ] && [ "$frame" -gt 0 ] || fail "no resume point saved in Long while it played: $resume"
echo "full disk: during the rehearsal the loop, the volume and the resume point were saved ($resume)"

# Something else takes the card to its last 48 KB; the box plays again and saves again.
avail=$(df -B1 --output=avail "$work/card" | tail -1 | tr -d ' ')
fallocate -l $((avail - 48 * 1024)) "$work/card/filler" 2> /dev/null \
  || dd if=/dev/zero of="$work/card/filler" bs=4096 count=$(((avail - 48 * 1024) / 4096)) 2> /dev/null
cat > "$work/full.scenario" <<SC
0.5  hold select 0.8       # (a control first: the title notice goes)
1.5  tap loop              # clear the loop: saved, or "Card full"
2.5  chord play -4         # volume 70 (the saved 90, capped at the start) -> 50 %: saved, or "Card full"
5.0  hold play 0.8         # stop: the resume point, or "Card full"
12.0 end
SC
"$segmance" sim --library "$lib" --countdown 0 --scenario "$work/full.scenario" \
  --wav "$work/full.wav" --frames "$work/full.txt" > /dev/null 2> "$work/full.err" \
  || fail "segmance sim on the full card failed: $(tail -5 "$work/full.err")"
card_full=0
grep -q "Card full:" "$work/full.txt" && card_full=1
for what in "loop \"Long\" part 1 frames cleared" "settings " "resume \"Long\""; do
  if grep -q "^not saved: $what" "$work/full.err"; then
    [ "$card_full" = 1 ] || fail "\"$what\" was not saved and the LCD did not say so"
    echo "full disk: not saved, and the LCD said so: $what"
  else
    echo "full disk: saved on the full card: $what"
  fi
done
if ! grep -q '^not saved: settings ' "$work/full.err"; then
  "$segmance" library settings --library "$lib" | grep -qx "volume = 50" || fail "the volume is said saved but is not 50 %"
fi
if ! grep -q '^not saved: loop ' "$work/full.err"; then
  "$segmance" library show Long --library "$lib" | grep -qE "  loop 0:0[3-5]" && fail "the loop is said cleared but is still saved"
fi
rm -f "$work/card/filler"
check=$("$segmance" library check --library "$lib" 2>&1) || fail "library check after the full card failed: $check"
echo "$check" | grep -q "is whole" || fail "library check after the full card said: $check"
echo "full disk: after the full card, $check"
umount "$work/card"
losetup -d "$loop"
