#!/bin/bash
# In the guest: *Save to stick* through the mount helper, as on the device. The player's side
# is `segmance export` into a spool folder owned by another user (what the daemon writes
# there) and the request file it leaves; the helper's side is the ExecStart of
# deploy/segmance-stick-save.service, run with that unit's capability bounding set, as its
# .path unit would start it. On a FAT32 and an exFAT stick (guest/stick-image.sh): the saved
# folder appears whole, every file that was there is unchanged (sha256 before and after),
# a second save goes beside ("NAME 2"), the stick is read-only again after each save, and the
# folder imports into an empty library. Then a write-protected stick (qemu's readonly drive)
# answers "locked", a stick too small "full", and a stick pulled in the middle of a 40 MB
# save (device_del on the qemu monitor) answers "gone" and, plugged again, shows no
# partial folder. A dot folder a pulled save left (planted on the FAT32 stick, as the pull
# leaves one only when the kernel wrote the folder out before the device went) is skipped by
# the scanner and removed by the next save.
set -euo pipefail
. "$BOX_DIR/guest/boxlib.sh"
repo=$(cd "$BOX_DIR/../.." && pwd)
segmance=${SEGMANCE_BOX_SEGMANCE:-$repo/.build/debug/segmance}
status_dir=/run/segmance-stick
img=/share/save.img
fail() { echo "save: FAIL: $*" >&2; exit 1; }

# unit_command UNIT KEY INSTANCE: the unit's KEY= line as systemd would run it, with the
# unit's CapabilityBoundingSet, the repository's helper, and the spool below /tmp.
unit_command() {
  local unit=$repo/deploy/$1 caps
  caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit" | tr 'A-Z' 'a-z' | sed 's/cap_/+/g; s/ /,/g')
  printf 'setpriv --bounding-set -all,%s -- ' "$caps"
  sed -n "s/^$2=//p" "$unit" | sed "s|/usr/lib/segmance/segmance-stick|$repo/deploy/segmance-stick|;
    s|/var/lib/segmance/stick-save|$spool|; s/%I/${3:-}/g"
}
partition() {
  local p
  for p in /sys/class/block/sd*[0-9]; do
    [ -e "$p" ] && [ -b "/dev/$(basename "$p")" ] && { basename "$p"; return 0; }
  done
  return 1
}
n=0
plug() {        # plug [readonly]: the image as a new removable USB disk; sets part and dir
  n=$((n + 1))
  box_hmp "drive_add 0 if=none,id=save$n,file=$BOX_SHARE_HOST/save.img,format=raw${1:+,readonly=on}" > /dev/null
  box_hmp "device_add usb-storage,id=save$n,drive=save$n,bus=xhci.0,removable=on" > /dev/null
  box_wait 30 "the stick's partition" partition
  part=$(partition) dir=/media/segmance/$(partition)
  eval "$(unit_command segmance-stick@.service ExecStart "$part")"
  findmnt "$dir" > /dev/null || fail "$dir is not mounted"
}
unplug() {
  eval "$(unit_command segmance-stick@.service ExecStop "$part")"
  box_hmp "device_del save$n" > /dev/null
  box_wait 30 "/dev/$part to go" test ! -e "/sys/class/block/$part"
}
read_only() { [[ ",$(findmnt -no OPTIONS "$dir")," == *,ro,* ]]; }
hashes() { (cd "$dir" && find . -type f ! -path './Segmance/.*' -print0 | sort -z | xargs -0r sha256sum); }

# The player: its spool belongs to another user, 0700, as /var/lib/segmance/stick-save is
# the player's; the helper reads the routines as that user.
export SEGMANCE_STICK_USER=nobody
# stage TITLE LIBRARY: what the daemon does on *Save to stick*: the outbox emptied, the
# routine exported into it, the request left.
stage() {
  rm -rf "$spool" && mkdir -p "$spool/outbox"
  "$segmance" export "$1" "$spool/outbox" --library "$2" > /dev/null
  chown -R nobody:nogroup "$spool" && chmod -R go-rwx "$spool"
  printf 'id=%s\ndevice=%s\n' "$3" "$part" > "$spool/request"
  chown nobody:nogroup "$spool/request"
}
save() {        # save: runs the helper as segmance-stick-save.service would
  eval "$(unit_command segmance-stick-save.service ExecStart)" 2> /tmp/save.err \
    || fail "the helper failed: $(cat /tmp/save.err)"
  [ ! -e "$spool/request" ] || fail "the request is still there"
}
answer() { sed -n "s/^$1=//p" "$status_dir/save-result"; }

# A routine in a library, as the box has it.
mkdir -p "/tmp/save-content/Salsa Shines"
python3 - "/tmp/save-content/Salsa Shines/01 Intro.wav" <<'PY'
import math, struct, sys, wave
w = wave.open(sys.argv[1], "wb"); w.setnchannels(2); w.setsampwidth(2); w.setframerate(48000)
w.writeframes(b"".join(struct.pack("<hh", int(8000 * math.sin(i / 20)), 0) for i in range(48000)))
w.close()
PY
printf 'title = "Salsa Shines"\ncountdown = 3\n' > "/tmp/save-content/Salsa Shines/routine.toml"
library=/tmp/save-library
rm -rf "$library"
"$segmance" import /tmp/save-content --library "$library" > /dev/null || fail "import of the routine"

for fs in vfat exfat; do
  spool=/tmp/spool-$fs/stick-save
  bash "$BOX_DIR/guest/stick-image.sh" "$fs" "$img" 48 /tmp/save-content
  if [ "$fs" = vfat ]; then
    # What a save pulled out before its rename leaves: a dot folder with a song in it.
    mmd -i "$img@@1M" ::Segmance ::Segmance/.Old.saving
    mcopy -i "$img@@1M" "/tmp/save-content/Salsa Shines/01 Intro.wav" ::Segmance/.Old.saving/song.wav
  fi
  plug
  read_only || fail "$fs: not mounted read-only"
  if [ "$fs" = vfat ]; then
    rm -rf /tmp/save-debris
    "$segmance" import "$dir" --library /tmp/save-debris > /tmp/import.out 2>&1 || fail "import: $(cat /tmp/import.out)"
    [ "$("$segmance" library list --library /tmp/save-debris | grep -c .)" -eq 1 ] \
      || fail "the dot folder was imported: $("$segmance" library list --library /tmp/save-debris)"
  fi
  hashes > /tmp/before
  stage "Salsa Shines" "$library" "$fs-1"
  save
  [ "$(answer id)" = "$fs-1" ] && [ "$(answer status)" = saved ] \
    || fail "$fs: the answer: $(cat "$status_dir/save-result")"
  [ "$(answer folder)" = "Salsa Shines" ] || fail "$fs: folder $(answer folder)"
  [ "$(stat -c %a "$status_dir/save-result")" = 644 ] || fail "the player cannot read the answer"
  read_only || fail "$fs: not read-only again after the save: $(findmnt -no OPTIONS "$dir")"
  cmp -s "$dir/Segmance/Salsa Shines/routine.toml" "$spool/outbox/Segmance/Salsa Shines/routine.toml" \
    || fail "$fs: the saved routine.toml differs"
  for f in "$spool/outbox/Segmance/Salsa Shines"/*; do
    cmp -s "$f" "$dir/Segmance/Salsa Shines/${f##*/}" || fail "$fs: ${f##*/} differs on the stick"
  done
  ( cd "$dir" && sha256sum --quiet -c /tmp/before ) || fail "$fs: a file that was there changed"
  # The dot folder an earlier save left is gone too.
  ls -a "$dir/Segmance" | grep -q '^\.[^.]' && fail "$fs: a dot folder was left: $(ls -a "$dir/Segmance")"
  rm -rf "/tmp/save-fresh-$fs"
  "$segmance" import "$dir/Segmance" --library "/tmp/save-fresh-$fs" > /tmp/import.out 2>&1 \
    || fail "$fs: the saved folder does not import: $(cat /tmp/import.out)"
  "$segmance" library list --library "/tmp/save-fresh-$fs" | grep -q '^Salsa Shines' \
    || fail "$fs: the saved routine is not in the fresh library: $(cat /tmp/import.out)"
  # A second save goes beside the first; the first is unchanged.
  hashes > /tmp/before
  stage "Salsa Shines" "$library" "$fs-2"
  save
  [ "$(answer status)" = saved ] && [ "$(answer folder)" = "Salsa Shines 2" ] \
    || fail "$fs: second save: $(cat "$status_dir/save-result")"
  ( cd "$dir" && sha256sum --quiet -c /tmp/before ) || fail "$fs: the second save changed a file"
  read_only || fail "$fs: not read-only after the second save"
  echo "save: $fs: saved twice ($(answer folder)), every file that was there unchanged, read-only after"
  unplug
done

# A write-protected stick: the helper cannot remount it read-write, and says so.
spool=/tmp/spool-locked/stick-save
bash "$BOX_DIR/guest/stick-image.sh" vfat "$img" 48 /tmp/save-content
sum=$(sha256sum < "$img")
plug readonly
stage "Salsa Shines" "$library" locked-1
save
[ "$(answer status)" = locked ] || fail "write-protected: $(cat "$status_dir/save-result")"
read_only || fail "the write-protected stick is not read-only"
echo "save: write-protected: $(answer message)"
unplug
[ "$(sha256sum < "$img")" = "$sum" ] || fail "the write-protected image changed"

# A big routine: a 40 MB song (random: nothing compresses it on the way).
big=/tmp/big-content/Big
mkdir -p "$big"
head -c 40M /dev/urandom > "$big/song.wav"
printf 'title = "Big"\n' > "$big/routine.toml"
stage_big() {
  rm -rf "$spool" && mkdir -p "$spool/outbox/Segmance"
  cp -r "$big" "$spool/outbox/Segmance/"
  chown -R nobody:nogroup "$spool" && chmod -R go-rwx "$spool"
  printf 'id=%s\ndevice=%s\n' "$1" "$part" > "$spool/request"
}

# Too small for it: "full", before anything is written.
spool=/tmp/spool-full/stick-save
bash "$BOX_DIR/guest/stick-image.sh" exfat "$img" 24 /tmp/save-content
plug
hashes > /tmp/before
stage_big full-1
save
[ "$(answer status)" = full ] || fail "a full stick: $(cat "$status_dir/save-result")"
( cd "$dir" && sha256sum --quiet -c /tmp/before ) || fail "the full stick changed"
[ ! -e "$dir/Segmance/Big" ] || fail "a Big folder on the full stick"
read_only || fail "the full stick is not read-only again"
echo "save: full: $(answer message)"
unplug

# Pulled in the middle: device_del once the helper has begun the dot folder.
spool=/tmp/spool-pulled/stick-save
bash "$BOX_DIR/guest/stick-image.sh" vfat "$img" 96 /tmp/save-content
plug
stage_big pulled-1
eval "$(unit_command segmance-stick-save.service ExecStart)" 2> /tmp/save.err &
helper=$!
box_wait 60 "the helper to begin the dot folder" test -d "$dir/Segmance/.Big.saving"
sleep 0.5
box_hmp "device_del save$n" > /dev/null
t0=$(date +%s%N)
wait "$helper" || fail "the helper failed after the pull: $(cat /tmp/save.err)"
echo "save: the helper answered $(box_elapsed "$t0") s after the pull: $(answer status): $(answer message)"
[ "$(answer id)" = pulled-1 ] && [ "$(answer status)" = gone ] || fail "pulled: $(cat "$status_dir/save-result")"
box_wait 30 "/dev/$part to go" test ! -e "/sys/class/block/$part"
eval "$(unit_command segmance-stick@.service ExecStop "$part")"
findmnt "$dir" > /dev/null && fail "$dir still mounted after the pull"
plug
[ ! -e "$dir/Segmance/Big" ] || fail "a partial Big folder is visible after the pull"
left=no
[ -d "$dir/Segmance/.Big.saving" ] && left=yes
rm -rf /tmp/save-pulled
"$segmance" import "$dir" --library /tmp/save-pulled > /tmp/import.out 2>&1 \
  || fail "import after the pull: $(cat /tmp/import.out)"
if "$segmance" library list --library /tmp/save-pulled | grep -q '^Big'; then fail "the half-saved Big was imported"; fi
# The next save removes what the pull left.
spool=/tmp/spool-after/stick-save
stage "Salsa Shines" "$library" after-1
save
[ "$(answer status)" = saved ] || fail "the save after the pull: $(cat "$status_dir/save-result")"
[ ! -e "$dir/Segmance/.Big.saving" ] || fail "the pull's dot folder is still there after the next save"
echo "save: pulled: no partial folder visible (dot folder left by the pull: $left; removed by the next save)"
unplug
echo "save: OK"
