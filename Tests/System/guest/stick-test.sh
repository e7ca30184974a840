#!/bin/bash
# In the guest: a FAT32 USB stick image hot-plugged through the qemu monitor appears as
# /dev/sdX1, udev's rule (deploy/90-segmance.rules) asks for segmance-stick@sdX1.service,
# whose ExecStart (deploy/segmance-stick) mounts it read-only, nosuid, nodev, noexec under
# /media/segmance; yanked, it goes and ExecStop unmounts it; plugged again, it comes back.
# The image is byte-for-byte unchanged at the end: the stick is never written. Then exFAT,
# NTFS (the kernel's ntfs3) and ext4 sticks the same way, each with a routine imported by
# `segmance import`, and an APFS stick refused with its reason in /run/segmance-stick.
set -euo pipefail
. "$BOX_DIR/guest/boxlib.sh"
repo=$(cd "$BOX_DIR/../.." && pwd)
unit=$repo/deploy/segmance-stick@.service
fail() { echo "stick: FAIL: $*" >&2; exit 1; }

# The unit's ExecStart/ExecStop for instance $2, as systemd would run it: with the unit's
# CapabilityBoundingSet (CAP_SYS_ADMIN alone: no loading modules, so mount(2) has the kernel
# load the file system's module itself).
unit_command() {
  caps=$(sed -n 's/^CapabilityBoundingSet=CAP_//p' "$unit" | tr 'A-Z' 'a-z')
  [ "$caps" = sys_admin ] || fail "the unit's capability bounding set changed: $caps"
  printf 'setpriv --bounding-set -all,+%s -- ' "$caps"
  sed -n "s/^$1=//p" "$unit" | sed "s|/usr/lib/segmance/segmance-stick|$repo/deploy/segmance-stick|; s/%I/$2/g"
}

# 1. A stick: MBR, one FAT32 partition, a routine, Mac debris and a script.
img=/share/stick.img
truncate -s 48M "$img"
echo 'start=2048, type=c' | sfdisk -q "$img"
mkfs.vfat -F 32 -n SEGMANCE --offset 2048 "$img" $(( (48 * 1024 * 1024 - 1024 * 1024) / 1024 )) > /dev/null
python3 - /tmp/intro.wav <<'PY'
import math, struct, sys, wave
w = wave.open(sys.argv[1], "wb"); w.setnchannels(2); w.setsampwidth(2); w.setframerate(48000)
w.writeframes(b"".join(struct.pack("<hh", int(8000 * math.sin(i / 20)), 0) for i in range(4800)))
w.close()
PY
printf 'title = "Salsa Shines"\ncountdown = 3\n' > /tmp/routine.toml
printf '#!/bin/sh\necho ran\n' > /tmp/run.sh
mmd -i "$img@@1M" "::Salsa Shines"
mcopy -i "$img@@1M" /tmp/intro.wav "::Salsa Shines/01 Intro.wav"
mcopy -i "$img@@1M" /tmp/routine.toml "::Salsa Shines/routine.toml"
mcopy -i "$img@@1M" /tmp/run.sh ::run.sh
mcopy -i "$img@@1M" /tmp/routine.toml "::._routine.toml"
sum_before=$(sha256sum < "$img")
mkdir -p /etc/udev/rules.d
cp "$repo/deploy/90-segmance.rules" /etc/udev/rules.d/

partition() {   # the first partition of a USB disk, e.g. sda1
  local p
  for p in /sys/class/block/sd*[0-9]; do
    [ -e "$p" ] && [ -b "/dev/$(basename "$p")" ] && { basename "$p"; return 0; }
  done
  return 1
}
plug() {        # plug ID: the image on the xhci bus as a removable USB disk
  box_hmp "drive_add 0 if=none,id=$1,file=$BOX_SHARE_HOST/stick.img,format=raw" > /dev/null
  box_hmp "device_add usb-storage,id=$1,drive=$1,bus=xhci.0,removable=on" > /dev/null
}

# 2. Plugged in.
t0=$(date +%s%N)
plug stick1
box_wait 30 "the stick's partition" partition
part=$(partition)
echo "stick: /dev/$part after $(box_elapsed "$t0") s"

# 3. udev: the rule leaves the disk alone and wants the mount unit for the partition. (The
#    disk first: the partition takes ID_BUS from the disk's udev database.)
disk_wants=$(udevadm test --action=add "/sys/class/block/${part%%[0-9]*}" 2>&1 | sed -n 's/^ *SYSTEMD_WANTS=//p')
[ -z "$disk_wants" ] || fail "udev wants '$disk_wants' for the whole disk"
wanted=$(udevadm test --action=add "/sys/class/block/$part" 2>&1 | sed -n 's/^ *SYSTEMD_WANTS=//p')
[ "$wanted" = "segmance-stick@$part.service" ] || fail "udev wants '$wanted' for $part"

# 4. Mounted by the unit's ExecStart.
dir=/media/segmance/$part
eval "$(unit_command ExecStart "$part")"
options=$(findmnt -no OPTIONS "$dir") || fail "$dir is not a mount point"
echo "stick: mounted at $dir with $options"
for o in ro nosuid nodev noexec; do
  [[ ",$options," == *",$o,"* ]] || fail "mount option $o missing: $options"
done
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
nobody cmp -s "$dir/Salsa Shines/01 Intro.wav" /tmp/intro.wav || fail "another user cannot read the routine"
if touch "$dir/written" 2> /tmp/err; then fail "the stick is writable"; fi
grep -q 'Read-only file system' /tmp/err || fail "writing failed otherwise: $(cat /tmp/err)"
if "$dir/run.sh" 2> /dev/null; then fail "a program on the stick ran"; fi
if sh -c "cd '$dir' && exec ./run.sh" 2> /dev/null; then fail "a program on the stick ran"; fi

# The helper refuses what is not a stick's file system, and names that leave /dev.
helper=$repo/deploy/segmance-stick
disk=${part%%[0-9]*}
if "$helper" mount "$disk" 2> /tmp/err; then fail "the partition table of /dev/$disk was mounted"; fi
grep -q "/dev/$disk: no file system found" /tmp/err || fail "refusal of /dev/$disk: $(cat /tmp/err)"
if "$helper" mount ../sda1 2> /tmp/err; then fail "a path was taken for a device name"; fi
grep -q "is not a kernel block device name" /tmp/err || fail "refusal of ../sda1: $(cat /tmp/err)"
[ ! -e "/media/segmance/$disk" ] || fail "a mount point was left for /dev/$disk"

# 5. Yanked while mounted: the disk goes, ExecStop (BindsTo=dev-%i.device) unmounts.
t0=$(date +%s%N)
box_hmp "device_del stick1" > /dev/null
box_wait 30 "/dev/$part to go" test ! -e "/sys/class/block/$part"
echo "stick: /dev/$part gone after $(box_elapsed "$t0") s"
if ls "$dir/Salsa Shines" > /dev/null 2>&1; then echo "stick: (the dead mount still lists)"; fi
eval "$(unit_command ExecStop "$part")"
findmnt "$dir" > /dev/null && fail "$dir still mounted after ExecStop"
[ ! -e "$dir" ] || fail "$dir left behind"

# 6. Plugged in again (a new drive: qemu drops the old one with its device).
plug stick2
box_wait 30 "the stick's partition again" partition
part=$(partition)
eval "$(unit_command ExecStart "$part")"
cmp -s "/media/segmance/$part/Salsa Shines/routine.toml" /tmp/routine.toml || fail "the re-plugged stick reads wrong"
eval "$(unit_command ExecStop "$part")"
box_hmp "device_del stick2" > /dev/null
box_wait 30 "/dev/$part to go" test ! -e "/sys/class/block/$part"

[ "$(sha256sum < "$img")" = "$sum_before" ] || fail "the stick image changed"
echo "stick: FAT32 OK (the image is unchanged)"

# 7. The other file systems a stick comes in, each made by its own mkfs (stick-image.sh):
#    mounted by the helper with the driver and options for it, read by another user, a routine
#    imported from it by the real `segmance import`, and the image unchanged at the end (ext4's
#    journal not replayed, NTFS's log not touched). Then a Mac's APFS stick (faked by its
#    container superblock): udev asks for the unit, the helper mounts nothing and says why in
#    the status folder; ExecStop clears it.
segmance=${SEGMANCE_BOX_SEGMANCE:-$repo/.build/debug/segmance}
status_dir=/run/segmance-stick
mkdir -p /tmp/content/"Salsa Shines"
cp /tmp/intro.wav "/tmp/content/Salsa Shines/01 Intro.wav"
cp /tmp/routine.toml "/tmp/content/Salsa Shines/routine.toml"
n=3
for fs in exfat ntfs ext4 apfs; do
  n=$((n + 1))
  bash "$BOX_DIR/guest/stick-image.sh" "$fs" "$img" 16 /tmp/content
  sum_before=$(sha256sum < "$img")
  plug "stick$n"
  box_wait 30 "the $fs stick's partition" partition
  part=$(partition)
  udevadm test --action=add "/sys/class/block/${part%%[0-9]*}" > /dev/null 2>&1
  wanted=$(udevadm test --action=add "/sys/class/block/$part" 2>&1 | sed -n 's/^ *SYSTEMD_WANTS=//p')
  [ "$wanted" = "segmance-stick@$part.service" ] || fail "udev wants '$wanted' for the $fs stick's $part"
  dir=/media/segmance/$part
  eval "$(unit_command ExecStart "$part")" 2> /tmp/helper.err || fail "$fs: ExecStart failed: $(cat /tmp/helper.err)"
  if [ "$fs" = apfs ]; then
    ! findmnt "$dir" > /dev/null || fail "the APFS stick was mounted"
    [ ! -e "$dir" ] || fail "a mount point was left for the APFS stick"
    grep -qx "reason=apfs" "$status_dir/$part" || fail "no APFS refusal in $status_dir/$part: $(cat "$status_dir/$part" 2>&1)"
    grep -q "^message=/dev/$part is APFS (a Mac's default format), which Linux cannot read: reformat the stick as exFAT" \
      "$status_dir/$part" || fail "the APFS refusal says: $(cat "$status_dir/$part")"
    [ "$(stat -c '%a' "$status_dir/$part")" = 644 ] || fail "the player cannot read $status_dir/$part"
    echo "stick: apfs refused: $(sed -n 's/^message=//p' "$status_dir/$part")"
  else
    fstype=$(findmnt -no FSTYPE "$dir") || fail "$dir is not a mount point ($fs): $(cat /tmp/helper.err)"
    options=$(findmnt -no OPTIONS "$dir")
    echo "stick: $fs mounted with $fstype $options"
    case $fs in exfat) want=exfat ;; ntfs) want=ntfs3 ;; ext4) want=ext4 ;; esac
    [ "$fstype" = "$want" ] || fail "$fs was mounted with $fstype, not $want"
    for o in ro nosuid nodev noexec; do
      [[ ",$options," == *",$o,"* ]] || fail "$fs: mount option $o missing: $options"
    done
    nobody cmp -s "$dir/Salsa Shines/01 Intro.wav" /tmp/intro.wav || fail "$fs: another user cannot read the routine"
    if touch "$dir/written" 2> /dev/null; then fail "the $fs stick is writable"; fi
    rm -rf "/tmp/library-$fs"
    "$segmance" import "$dir" --library "/tmp/library-$fs" > /tmp/import.out 2>&1 \
      || fail "$fs: segmance import failed: $(cat /tmp/import.out)"
    "$segmance" library list --library "/tmp/library-$fs" > /tmp/list.out 2>&1
    grep -q '^Salsa Shines' /tmp/list.out || fail "$fs: the routine is not in the library: $(cat /tmp/import.out /tmp/list.out)"
    echo "stick: $fs imported: $(head -1 /tmp/list.out)"
  fi
  eval "$(unit_command ExecStop "$part")"
  ! findmnt "$dir" > /dev/null || fail "$dir still mounted after ExecStop ($fs)"
  [ ! -e "$status_dir/$part" ] || fail "$status_dir/$part left after ExecStop"
  box_hmp "device_del stick$n" > /dev/null
  box_wait 30 "/dev/$part to go" test ! -e "/sys/class/block/$part"
  [ "$(sha256sum < "$img")" = "$sum_before" ] || fail "the $fs stick image changed"
done
echo "stick: OK (every image is unchanged)"
