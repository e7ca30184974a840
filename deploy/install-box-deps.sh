#!/usr/bin/env bash
# Installs the Debian packages the board-in-a-box system tests need on the host (the guest
# runs the host's root file system, so these are the guest's tools too). Debian 12 bookworm.
# The kernel headers follow the ABI that linux-image-amd64 depends on today, the same one
# Tests/System/build.sh boots. Safe to run again.
#   deploy/install-box-deps.sh --arch arm64   also what the arm64 box (Tests/System/arm64/) needs:
#   qemu-system-aarch64, qemu-user (the twin agreement, the instruction counts), mmdebstrap
#   for its trixie root, the cross compiler for its out-of-tree modules.
set -euo pipefail
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)

# The kernel ABI (e.g. 6.1.0-56-amd64) the box boots; its headers build gpio-sim.
. "$(dirname "$0")/../Tests/System/lib.sh"
kver=$(box_kernel_abi 2>/dev/null) || { "${as_root[@]}" apt-get update -qq; kver=$(box_kernel_abi); }

packages=(
  qemu-system-x86           # the VM (TCG)
  busybox-static            # the initramfs, and cpio to pack it
  kmod                      # modprobe / depmod, on the host and in the guest
  xz-utils                  # vmlinux out of vmlinuz, linux-source
  make gcc                  # gpio-sim out of tree
  binutils                  # readelf (the PVH note, the package's libraries), strip
  "linux-headers-$kver"     # … against the booted kernel's headers
  python3                   # boxrun
  dosfstools mtools fdisk   # FAT32 stick images with a partition table
  exfatprogs ntfs-3g e2fsprogs  # exFAT, NTFS (mkntfs; ntfs-3g mounts where the kernel has no ntfs3), ext4 sticks
  alsa-utils                # aplay / arecord / the snd-aloop card's listing
  i2c-tools                 # i2cdetect on the i2c-stub bus
  gpiod                     # gpioinfo, to see a line requested
  udev                      # udevadm test of the stick rule in the guest
  systemd                   # systemd-analyze verify / security of the unit
  adduser                   # the package's postinst
)
if [ "${1:-}" = --arch ] && [ "${2:-}" = arm64 ]; then
  packages+=(
    qemu-system-arm           # qemu-system-aarch64 -M virt (TCG)
    qemu-user-static          # the trixie arm64 root's second stage, the arm64 twin (binfmt_misc)
    qemu-user                 # qemu-aarch64 with TCG plugins: the instruction counts
    mmdebstrap arch-test      # the arm64 trixie root (arch-test: mmdebstrap checks binfmt with it)
    gcc-aarch64-linux-gnu libc6-dev-arm64-cross   # gpio-sim and i2c-stub for trixie's arm64 kernel
    debian-archive-keyring    # trixie's lists, read in an apt configuration of their own
  )
fi
echo "install-box-deps: kernel ABI $kver"
exec "$(dirname "$0")/apt-install.sh" install-box-deps "${packages[@]}"
