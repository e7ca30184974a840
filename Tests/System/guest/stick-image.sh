#!/bin/bash
# In the guest: stick-image.sh FS IMAGE MEGABYTES [CONTENT] makes a USB stick image: an MBR
# with one partition from 1 MiB to the end, holding file system FS — vfat (FAT32), exfat,
# ntfs, ext4, or apfs (faked: an APFS container superblock, "NXSB", as a Mac writes it;
# Linux has no driver) — with the folders of CONTENT copied in. FAT32 is written with mtools;
# the others through a loop device, mounted read-write here (ntfs with ntfs-3g).
set -euo pipefail
fs=$1 image=$2 megabytes=$3 content=${4:-}
rm -f "$image"
truncate -s "${megabytes}M" "$image"
case $fs in
  vfat) type=c ;; exfat|ntfs) type=7 ;; ext4) type=83 ;; apfs) type=af ;;
  *) echo "stick-image: unknown file system '$fs'" >&2; exit 2 ;;
esac
echo "start=2048, type=$type" | sfdisk -q "$image"
bytes=$(( (megabytes - 1) * 1024 * 1024 ))
case $fs in
vfat)
  mkfs.vfat -F 32 -n SEGMANCE --offset 2048 "$image" $((bytes / 1024)) > /dev/null
  if [ -n "$content" ]; then
    (cd "$content" && for folder in *; do mcopy -s -i "$image@@1M" "$folder" ::; done)
  fi
  ;;
apfs)
  # nx_superblock_t at the partition's start: object type 1 (container superblock), the magic
  # at 32, 4096-byte blocks, and the Fletcher-64 checksum over the rest of the block.
  python3 - "$image" <<'PY'
import struct, sys
block = bytearray(4096)
struct.pack_into("<HHHH", block, 24, 1, 0x8000, 0, 0)
block[32:36] = b"NXSB"
struct.pack_into("<IQ", block, 36, 4096, 4096)
s1 = s2 = 0
for (word,) in struct.iter_unpack("<I", bytes(block[8:])):
    s1 = (s1 + word) % 0xFFFFFFFF
    s2 = (s2 + s1) % 0xFFFFFFFF
c1 = 0xFFFFFFFF - ((s1 + s2) % 0xFFFFFFFF)
c2 = 0xFFFFFFFF - ((s1 + c1) % 0xFFFFFFFF)
struct.pack_into("<II", block, 0, c1, c2)
with open(sys.argv[1], "r+b") as f:
    f.seek(1 << 20)
    f.write(block)
PY
  ;;
*)
  modprobe loop
  loop=$(losetup --find --show --offset 1048576 --sizelimit "$bytes" "$image")
  mnt=$(mktemp -d)
  cleanup() { umount "$mnt" 2>/dev/null || true; rmdir "$mnt"; losetup -d "$loop"; }
  trap cleanup EXIT
  case $fs in
    exfat) mkfs.exfat -L SEGMANCE "$loop" > /dev/null; driver=exfat ;;
    # Written through ntfs-3g: 6.1's ntfs3 says "no space" making a folder on a fresh small
    # volume; it reads it fine (the helper mounts it with ntfs3).
    ntfs) mkntfs -F -f -q -L SEGMANCE "$loop" > /dev/null 2>&1; modprobe fuse; driver=ntfs-3g ;;
    ext4) mkfs.ext4 -q -L SEGMANCE "$loop"; driver=ext4 ;;
  esac
  if [ -n "$content" ]; then
    mount -t "$driver" "$loop" "$mnt"
    cp -r "$content"/. "$mnt"/
    umount "$mnt"
  fi
  ;;
esac
sync
