#!/usr/bin/env bash
# Builds the arm64 board in a box: Debian 13 trixie's arm64 kernel for qemu-system-aarch64
# -M virt, the drivers it lacks built out of tree for it, a tiny arm64 initramfs, and the
# arm64 trixie root image (make-root.sh) the guest runs on. Everything lands in the cache,
# outside the clone:  ${SEGMANCE_BOX_CACHE:-$HOME/.cache/segmance-box}/arm64/<kernel ABI>/
# (downloads in …/arm64/debs, trixie's apt lists in …/arm64/apt, the root in …/arm64/root.img)
# and is reused when present. Prints the kernel folder last.
#   Tests/System/arm64/build.sh [DEB]   with a .deb, its Depends are installed into the root
# Needs the packages of deploy/install-box-deps.sh --arch arm64, and root (mmdebstrap).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${SEGMANCE_BOX_CACHE:-$HOME/.cache/segmance-box}
# shellcheck source=trixie-apt.sh
. "$here/trixie-apt.sh"
log() { echo "box build: $*" >&2; }
started=$SECONDS

kver=$(trixie_kernel_abi)
out="$cache/arm64/$kver"
mkdir -p "$out"

# 1. The kernel image and its modules, unpacked. Debian's arm64 vmlinuz is the plain Image
#    (gzipped in some releases: unpacked then, as qemu 7.2 boots it faster so).
if [ ! -f "$out/Image" ]; then
  deb=$(trixie_fetch "linux-image-$kver:arm64")
  rm -rf "$out/kernel" "$out/kernel.tmp" && dpkg -x "$deb" "$out/kernel.tmp" && mv "$out/kernel.tmp" "$out/kernel"
  gzip -dcf < "$out/kernel/boot/vmlinuz-$kver" > "$out/Image.tmp" && mv "$out/Image.tmp" "$out/Image"
fi

# 2. A kbuild for the cross build: trixie's arm64 headers with its amd64 kbuild tools. Those
#    need trixie's glibc (2.41; the host has 2.36), so each runs through trixie's own loader.
#    The compiler is the host's aarch64-linux-gnu-gcc (12; the kernel was built with 14).
kdir="$out/headers/usr/src/linux-headers-$kver"
if [ ! -f "$out/headers/.ready" ]; then
  rm -rf "$out/headers" && mkdir -p "$out/headers"
  common=$(trixie_cache depends "linux-headers-$kver:arm64" 2>/dev/null \
    | sed -n 's/^ *Depends: <\{0,1\}\(linux-headers-[^:>]*-common\).*/\1/p' | head -1)
  kbuild=$(trixie_cache depends "linux-headers-$kver:arm64" 2>/dev/null \
    | sed -n 's/^ *Depends: <\{0,1\}\(linux-kbuild-[^:>]*\).*/\1/p' | head -1)
  for p in "linux-headers-$kver:arm64" "$common:all" "$kbuild:amd64" "libc6:amd64"; do
    dpkg -x "$(trixie_fetch "$p")" "$out/headers"
  done
  libc="$out/headers/usr/lib/x86_64-linux-gnu"
  find "$out/headers/usr/lib/$kbuild" -type f -perm -u+x ! -name '*.real-*' | while read -r f; do
    head -c 4 "$f" | grep -q 'ELF' || continue
    real="$f.elf"
    # Debian's modpost picks modpost.real-<endianness>-<bits> by argv[0]: arm64 is lsb-64.
    [ "$(basename "$f")" = modpost ] && real="$f.real-lsb-64" && rm "$f" || mv "$f" "$real"
    printf '#!/bin/sh\nexec %s --library-path %s %s "$@"\n' "$libc/ld-linux-x86-64.so.2" "$libc" "$real" > "$f"
    chmod +x "$f"
  done
  # The flavour's Makefile includes the common one by its installed path.
  sed -i "s|/usr/src/|$out/headers/usr/src/|" "$kdir/Makefile"
  touch "$out/headers/.ready"
fi
kmake() {   # kmake DIR ARGS...: an out-of-tree module against the arm64 kbuild
  local dir=$1
  shift
  # gcc 12 has no -fmin-function-alignment (14's): kbuild falls back to -falign-functions.
  # No BTF for these modules (pahole is not needed).
  make -s -C "$kdir" M="$dir" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CC=aarch64-linux-gnu-gcc \
    CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT= CONFIG_DEBUG_INFO_BTF_MODULES= "$@" modules >&2
}

# 3. What the kernel lacks (trixie's arm64 config: GPIO_SIM and I2C_STUB not set; snd-aloop,
#    uinput, usb-storage, xhci, ntfs3, exfat, hfsplus are modules): gpio-sim with irq_sim.c
#    (irq_to_desc() is not exported: generic_handle_irq() instead), and i2c-stub.
series=${kver%%-*}; series=${series%%+*}; series=${series%.*}     # 6.12.117+deb13-arm64 -> 6.12
src="$out/src/linux-source-$series"
if [ ! -f "$src/drivers/i2c/i2c-stub.c" ]; then
  deb=$(trixie_fetch "linux-source-$series:all")
  rm -rf "$out/src" && mkdir -p "$out/src"
  dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards "./usr/src/linux-source-$series.tar.xz" \
    | tar -C "$out/src" -xJ "linux-source-$series/drivers/gpio/gpio-sim.c" \
        "linux-source-$series/drivers/gpio/gpiolib.h" "linux-source-$series/kernel/irq/irq_sim.c" \
        "linux-source-$series/drivers/i2c/i2c-stub.c"
fi
ko="$out/gpio-sim/gpio-sim-oot.ko"
if [ ! -f "$ko" ]; then
  rm -rf "$out/gpio-sim" && mkdir -p "$out/gpio-sim"
  cp "$src/drivers/gpio/gpio-sim.c" "$src/drivers/gpio/gpiolib.h" "$src/kernel/irq/irq_sim.c" "$out/gpio-sim/"
  sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$out/gpio-sim/irq_sim.c"
  grep -q 'generic_handle_irq(irqnum)' "$out/gpio-sim/irq_sim.c" || { log "irq_sim.c patch did not apply"; exit 1; }
  printf 'obj-m := gpio-sim-oot.o\ngpio-sim-oot-y := gpio-sim.o irq_sim.o\n' > "$out/gpio-sim/Makefile"
  kmake "$out/gpio-sim"
fi
sko="$out/i2c-stub/i2c-stub.ko"
if [ ! -f "$sko" ]; then
  rm -rf "$out/i2c-stub" && mkdir -p "$out/i2c-stub"
  cp "$src/drivers/i2c/i2c-stub.c" "$out/i2c-stub/"
  echo 'obj-m := i2c-stub.o' > "$out/i2c-stub/Makefile"
  kmake "$out/i2c-stub"
fi
# trixie's kernel package keeps its modules under /usr/lib/modules (merged /usr).
kbase="$out/kernel/usr"
mods="$kbase/lib/modules/$kver"
mkdir -p "$mods/extra"
changed=0
for module in "$ko" "$sko"; do
  if ! cmp -s "$module" "$mods/extra/$(basename "$module")"; then
    cp "$module" "$mods/extra/" && changed=1
  fi
done
[ "$changed" -eq 0 ] || depmod -b "$kbase" "$kver"

# 4. The initramfs: trixie's static busybox for arm64 and the modules that reach the root
#    image (virtio-blk, ext4), the host's folders (9p over virtio) and the overlay.
init="$here/initramfs-init"
if [ ! -f "$out/initrd.gz" ] || [ "$init" -nt "$out/initrd.gz" ] || [ "$0" -nt "$out/initrd.gz" ]; then
  root="$out/initramfs"
  rm -rf "$root" && mkdir -p "$root"/{bin,lib/modules,proc,sys,dev,newroot,lower,upper}
  dpkg-deb --fsys-tarfile "$(trixie_fetch busybox-static:arm64)" | tar -xO ./usr/bin/busybox > "$root/bin/busybox"
  chmod +x "$root/bin/busybox"
  for m in virtio_blk ext4 9p 9pnet_virtio overlay; do
    modprobe -d "$kbase" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" {print $2}'
  done | awk '!seen[$0]++' | while read -r f; do
    # trixie's modules are xz-compressed: unpacked here, so busybox's insmod needs no xz.
    name=$(basename "$f" .xz)
    case "$f" in *.xz) xz -dc "$f" > "$root/lib/modules/$name" ;; *) cp "$f" "$root/lib/modules/" ;; esac
    echo "$name" >> "$root/lib/modules/order"
  done
  cp "$init" "$root/init" && chmod +x "$root/init"
  (cd "$root" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$out/initrd.gz.tmp"
  mv "$out/initrd.gz.tmp" "$out/initrd.gz"
fi

# 5. The root: trixie for arm64, with the package's dependencies when a .deb is given.
extra=()
if [ -n "${1:-}" ]; then
  # Depends: "a, b (>= 1), c | d" -> a b c (the first of each alternative)
  mapfile -t extra < <(dpkg-deb -f "$1" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/ //g' | grep .)
fi
# One root build at a time (it takes minutes: a second caller waits for the first).
flock "$cache/arm64/root.lock" "$here/make-root.sh" "$cache/arm64/root.img" "${extra[@]}" > /dev/null
log "ready in $((SECONDS - started)) s: $out"
echo "$out"
