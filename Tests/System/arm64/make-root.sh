#!/usr/bin/env bash
# The arm64 box's root file system: Debian 13 trixie for arm64 made by mmdebstrap (the
# packages' scripts run as arm64 binaries through qemu-user-static and binfmt_misc), with the
# guest's tools and the runtime libraries of the package, packed as an ext4 image the VM
# boots read-only (a tmpfs overlay on top, as the x86 box does with the host's root).
#   Tests/System/arm64/make-root.sh ROOT_IMAGE [EXTRA_PACKAGE...]
# Rebuilt only when the package list (the ones below and the extras: the .deb's Depends)
# names one the image lacks; what the image holds is listed beside it. Needs root, mmdebstrap,
# qemu-user-static.
set -euo pipefail
image=$1
shift
mirror=${SEGMANCE_BOX_TRIXIE_MIRROR:-http://deb.debian.org/debian}
packages=(
  kmod udev systemd adduser busybox procps psmisc   # the guest's init, modules, udevd, the postinst
  gpiod alsa-utils i2c-tools                        # gpioinfo, aplay / arecord, i2cdetect
  dosfstools mtools fdisk exfatprogs ntfs-3g e2fsprogs   # the stick images
  python3 ca-certificates                           # the guest scripts' helpers
  # the package's runtime libraries (its Depends are added from the .deb when there is one)
  libasound2t64 libgpiod3 libsndfile1 libsqlite3-0 libsoxr0 librubberband2 libaubio5
  libavformat61 libavcodec61 libavutil59 libswresample5 libswiftlang
  "$@"
)
list=$(printf '%s\n' "${packages[@]}" | sort -u)
# An image made with these packages and more serves too (the box's, with the .deb's Depends,
# serves the twin agreement's run without them).
if [ -f "$image" ] && [ -z "$(comm -23 <(echo "$list") "$image.packages" 2>/dev/null)" ]; then
  echo "$image"
  exit 0
fi
log() { echo "box build: $*" >&2; }
work="$image.d"
started=$SECONDS
[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  cat /usr/lib/binfmt.d/qemu-aarch64.conf > /proc/sys/fs/binfmt_misc/register
fi
if [ ! -x "$work/usr/bin/apt-get" ]; then
  # mmdebstrap resolves and downloads with the host's apt and installs every package in one
  # pass: only the packages' own scripts run under qemu-user.
  command -v mmdebstrap >/dev/null || "$(dirname "$0")/../../../deploy/apt-install.sh" box-build mmdebstrap >&2
  log "mmdebstrap trixie arm64 with ${#packages[@]} packages into $work"
  rm -rf "$work" "$work.tmp"
  mmdebstrap --mode=root --arch=arm64 --variant=minbase --skip=cleanup/apt/lists \
    --include="$(printf '%s,' "${packages[@]}")" trixie "$work.tmp" "$mirror" >&2
  mv "$work.tmp" "$work"
else
  # What is installed already stays; apt-get (under qemu-user, slow) adds what the list names now.
  for d in proc dev; do mount --bind "/$d" "$work/$d"; done
  trap 'umount "$work/proc" "$work/dev" 2>/dev/null || true' EXIT
  # apt-get update under qemu-user takes minutes: only when the root's lists are a day old.
  if [ -z "$(find "$work/var/lib/apt/lists" -name '*_Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
    chroot "$work" apt-get update -qq >&2
  fi
  log "installing ${#packages[@]} packages into the root"
  DEBIAN_FRONTEND=noninteractive chroot "$work" apt-get install -y -q --no-install-recommends "${packages[@]}" >&2
  chroot "$work" apt-get clean
  umount "$work/proc" "$work/dev"
  trap - EXIT
  for d in proc dev; do ! mountpoint -q "$work/$d" || { log "$work/$d is still mounted"; exit 1; }; done
fi
# The guest has no network: apt installs a .deb from what the root holds.
echo 'Acquire::Languages "none";' > "$work/etc/apt/apt.conf.d/90box"
size=$(( $(du -sm "$work" | cut -f1) * 13 / 10 + 200 ))
rm -f "$image.tmp"
mkfs.ext4 -q -L segmance-arm64 -d "$work" "$image.tmp" "${size}M"
mv "$image.tmp" "$image"
sort -u <(echo "$list") "$image.packages" 2>/dev/null > "$image.packages.tmp" || echo "$list" > "$image.packages.tmp"
mv "$image.packages.tmp" "$image.packages"
log "root image ready in $((SECONDS - started)) s: $image (${size} MB)"
echo "$image"
