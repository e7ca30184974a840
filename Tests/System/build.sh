#!/usr/bin/env bash
# Builds the board in a box: Debian's own kernel for qemu, gpio-sim built out of tree for
# it, and a tiny initramfs that boots into the host's root file system (read-only over
# virtio-9p, with a tmpfs overlay). Everything lands in the cache, outside the clone:
#   ${SEGMANCE_BOX_CACHE:-$HOME/.cache/segmance-box}/<kernel ABI>/
# and is reused when present (downloads in …/debs/). Prints the kernel folder last.
# Needs the packages of deploy/install-box-deps.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${SEGMANCE_BOX_CACHE:-$HOME/.cache/segmance-box}
# shellcheck source=lib.sh
. "$here/lib.sh"

kver=$(box_kernel_abi)
out="$cache/$kver"
debs="$cache/debs"
mkdir -p "$out" "$debs"
log() { echo "box build: $*" >&2; }
started=$SECONDS

# apt-get download into the cache, once. $1 = package, prints the .deb path.
fetch() {
  local deb
  deb=$(find "$debs" -maxdepth 1 -name "${1}_*.deb" | sort | tail -1)
  if [ -z "$deb" ]; then
    log "downloading $1"
    # As root, apt's download sandbox user cannot write the cache: download as root then.
    (cd "$debs" && apt-get download -q $( [ "$(id -u)" -eq 0 ] && echo -o APT::Sandbox::User=root ) "$1" >&2)
    deb=$(find "$debs" -maxdepth 1 -name "${1}_*.deb" | sort | tail -1)
  fi
  [ -n "$deb" ] || { log "apt-get download $1 gave no package"; exit 1; }
  echo "$deb"
}

# 1. The kernel image and its modules, unpacked (not installed).
if [ ! -f "$out/kernel/boot/vmlinuz-$kver" ]; then
  deb=$(fetch "linux-image-$kver")
  rm -rf "$out/kernel.tmp" && dpkg -x "$deb" "$out/kernel.tmp" && mv "$out/kernel.tmp" "$out/kernel"
fi

# 2. vmlinux for PVH direct boot: qemu skips the firmware and the in-guest decompression
#    (~3.5 s a boot under TCG). Debian ships no extract-vmlinux: find the xz stream.
if [ ! -f "$out/vmlinux" ]; then
  python3 - "$out/kernel/boot/vmlinuz-$kver" > "$out/vmlinux.xz" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
start = data.find(b"\xfd7zXZ\x00")
if start < 0:
    sys.exit("no xz stream in " + sys.argv[1])
sys.stdout.buffer.write(data[start:])
PY
  # The stream is followed by the rest of the bzImage: xz reports trailing garbage.
  xz -dc --single-stream < "$out/vmlinux.xz" > "$out/vmlinux.tmp" 2>/dev/null || true
  rm -f "$out/vmlinux.xz"
  if readelf -n "$out/vmlinux.tmp" 2>/dev/null | grep -q 'Xen'; then
    mv "$out/vmlinux.tmp" "$out/vmlinux"
  else
    log "no PVH note in the extracted vmlinux: booting vmlinuz (slower)"
    rm -f "$out/vmlinux.tmp"
  fi
fi

# 3. gpio-sim: not enabled in Debian's kernels. Built from the matching linux-source with
#    irq_sim.c bundled (irq_to_desc() is not exported: generic_handle_irq() instead).
series=${kver%%-*}; series=${series%.*}                   # 6.1.0-56-amd64 -> 6.1
src="$out/src/linux-source-$series"
ko="$out/gpio-sim/gpio-sim-oot.ko"
if [ ! -f "$ko" ]; then
  if [ ! -f "$src/drivers/gpio/gpio-sim.c" ]; then
    deb=$(fetch "linux-source-$series")
    rm -rf "$out/src" && mkdir -p "$out/src"
    dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards "./usr/src/linux-source-$series.tar.xz" \
      | tar -C "$out/src" -xJ "linux-source-$series/drivers/gpio/gpio-sim.c" \
          "linux-source-$series/drivers/gpio/gpiolib.h" "linux-source-$series/kernel/irq/irq_sim.c"
  fi
  rm -rf "$out/gpio-sim" && mkdir -p "$out/gpio-sim"
  cp "$src/drivers/gpio/gpio-sim.c" "$src/drivers/gpio/gpiolib.h" "$src/kernel/irq/irq_sim.c" "$out/gpio-sim/"
  sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$out/gpio-sim/irq_sim.c"
  grep -q 'generic_handle_irq(irqnum)' "$out/gpio-sim/irq_sim.c" || { log "irq_sim.c patch did not apply"; exit 1; }
  printf 'obj-m := gpio-sim-oot.o\ngpio-sim-oot-y := gpio-sim.o irq_sim.o\n' > "$out/gpio-sim/Makefile"
  [ -d "/lib/modules/$kver/build" ] || { log "no headers for $kver: run deploy/install-box-deps.sh"; exit 1; }
  make -s -C "/lib/modules/$kver/build" M="$out/gpio-sim" modules >&2
fi

# 3b. ntfs3, the kernel's NTFS driver that the stick helper prefers: not enabled in Debian's
#     bookworm kernels (the helper falls back to ntfs-3g there). Built out of tree from the
#     same linux-source, so the box mounts NTFS sticks with it (exfat, hfsplus and ext4 are
#     Debian's own modules).
nko="$out/ntfs3/ntfs3.ko"
if [ ! -f "$nko" ]; then
  if [ ! -f "$src/fs/ntfs3/super.c" ]; then
    deb=$(fetch "linux-source-$series")
    mkdir -p "$out/src"
    dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards "./usr/src/linux-source-$series.tar.xz" \
      | tar -C "$out/src" -xJ --wildcards "linux-source-$series/fs/ntfs3/*"
  fi
  rm -rf "$out/ntfs3" && mkdir -p "$out/ntfs3"
  cp -r "$src/fs/ntfs3/." "$out/ntfs3/"
  [ -d "/lib/modules/$kver/build" ] || { log "no headers for $kver: run deploy/install-box-deps.sh"; exit 1; }
  make -s -C "/lib/modules/$kver/build" M="$out/ntfs3" CONFIG_NTFS3_FS=m modules >&2
fi
mkdir -p "$out/kernel/lib/modules/$kver/extra"
changed=0
for module in "$ko" "$nko"; do
  if ! cmp -s "$module" "$out/kernel/lib/modules/$kver/extra/$(basename "$module")"; then
    cp "$module" "$out/kernel/lib/modules/$kver/extra/"
    changed=1
  fi
done
[ "$changed" -eq 0 ] || depmod -b "$out/kernel" "$kver"

# 4. The initramfs: static busybox and the modules that reach the host root (9p over
#    virtio, overlayfs). Rebuilt when its init script changes.
init="$here/guest/initramfs-init"
if [ ! -f "$out/initrd.gz" ] || [ "$init" -nt "$out/initrd.gz" ] || [ "$0" -nt "$out/initrd.gz" ]; then
  root="$out/initramfs"
  rm -rf "$root" && mkdir -p "$root"/{bin,lib/modules,proc,sys,dev,newroot,lower,upper}
  cp /bin/busybox "$root/bin/busybox"
  for m in 9p 9pnet_virtio virtio_pci overlay; do
    modprobe -d "$out/kernel" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" {print $2}'
  done | awk '!seen[$0]++' | while read -r f; do
    cp "$f" "$root/lib/modules/" && basename "$f" >> "$root/lib/modules/order"
  done
  cp "$init" "$root/init" && chmod +x "$root/init"
  (cd "$root" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$out/initrd.gz.tmp"
  mv "$out/initrd.gz.tmp" "$out/initrd.gz"
fi
log "ready in $((SECONDS - started)) s: $out"
echo "$out"
