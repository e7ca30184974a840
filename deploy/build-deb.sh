#!/usr/bin/env bash
# Builds the segmance Debian package:
#   deploy/build-deb.sh [OUTPUT_DIR]                for this machine's Debian and architecture
#   deploy/build-deb.sh --arch arm64 [OUTPUT_DIR]   for Debian 13 / Raspberry Pi OS trixie on arm64
# (default OUTPUT_DIR .build-deb/dist; prints the .deb's path).
# The binary is a release build with the Swift runtime linked in (--static-swift-stdlib,
# in its own scratch path .build-deb), so the package needs no Swift on the machine; it
# depends on the Debian packages of the C libraries it links. Contents: /usr/bin/segmance, the systemd
# units, the udev rule and stick mount helper, the board profiles, the default config
# /etc/segmance/segmance.toml (a conffile); postinst creates user segmance in the groups
# audio, gpio, i2c and input. Needs the packages of deploy/install-deps.sh.
# With --arch arm64 it cross-compiles in the Debian 13 build root of deploy/trixie-root.sh
# (trixie's Swift 6.0.3 for amd64 with trixie's aarch64 Swift runtime and arm64 -dev packages;
# docs/arm64.md), so Depends: names trixie's packages.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
target_arch=
if [ "${1:-}" = --arch ]; then
  target_arch=${2:?--arch needs an architecture}
  shift 2
fi
out=${1:-.build-deb/dist}
if [ -n "${SEGMANCE_VERSION:-}" ]; then
  version=$SEGMANCE_VERSION
elif git rev-parse --git-dir >/dev/null 2>&1; then
  version="0.1.0~git$(git log -1 --format=%cd --date=format:%Y%m%d).$(git rev-parse --short=8 HEAD)"
else
  version=0.1.0
fi

if [ -n "$target_arch" ] && [ "$target_arch" != "$(dpkg --print-architecture)" ]; then
  [ "$target_arch" = arm64 ] || { echo "build-deb: --arch $target_arch: only arm64 is built here" >&2; exit 2; }
  root=$(deploy/trixie-root.sh)
  # Inside the root: this script again, cross-compiling, into the root's copy of the clone.
  deploy/trixie-build.sh "SEGMANCE_VERSION='$version' SEGMANCE_CROSS=aarch64 deploy/build-deb.sh .build-deb-arm64/dist" >&2
  mkdir -p "$out"
  cp "$root/src/.build-deb-arm64/dist/segmance_${version}_arm64.deb" "$out/"
  echo "$out/segmance_${version}_arm64.deb"
  exit 0
fi

scratch=.build-deb
swift_flags=(-c release --static-swift-stdlib)
strip=strip
arch=$(dpkg --print-architecture)
elf_class='x86-64|AArch64|aarch64|ARM|hard-float'
if [ "${SEGMANCE_CROSS:-}" = aarch64 ]; then
  # Cross-compiling in the trixie root: the arm64 -dev packages are installed multiarch, the
  # aarch64 Swift runtime and modules are unpacked in /opt/swift-arm64, lld links.
  export PKG_CONFIG_PATH=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig
  scratch=.build-deb-arm64
  swift_flags+=(--triple aarch64-unknown-linux-gnu --sdk /
    -Xswiftc -resource-dir -Xswiftc /opt/swift-arm64/usr/libexec/swift/lib/swift_static -Xswiftc -use-ld=lld)
  strip=aarch64-linux-gnu-strip
  arch=arm64
  elf_class='AArch64'
fi
swift_flags+=(--scratch-path "$scratch")

swift build "${swift_flags[@]}" --product segmance
swift build "${swift_flags[@]}" --product segmance-ffmpeg
binary="$(swift build "${swift_flags[@]}" --show-bin-path)/segmance"

stage=$scratch/stage
rm -rf "$stage"
install -D -m 0755 "$binary" "$stage/usr/bin/segmance"
"$strip" --strip-unneeded "$stage/usr/bin/segmance"
# The FFmpeg decoder runs as a process of its own (segmance does not load FFmpeg's libraries).
install -D -m 0755 "$(dirname "$binary")/segmance-ffmpeg" "$stage/usr/lib/segmance/segmance-ffmpeg"
"$strip" --strip-unneeded "$stage/usr/lib/segmance/segmance-ffmpeg"
install -D -m 0644 deploy/segmance.service "$stage/lib/systemd/system/segmance.service"
install -D -m 0644 deploy/segmance-stick@.service "$stage/lib/systemd/system/segmance-stick@.service"
install -D -m 0644 deploy/segmance-stick-save.path "$stage/lib/systemd/system/segmance-stick-save.path"
install -D -m 0644 deploy/segmance-stick-save.service "$stage/lib/systemd/system/segmance-stick-save.service"
install -D -m 0644 deploy/90-segmance.rules "$stage/lib/udev/rules.d/90-segmance.rules"
install -D -m 0755 deploy/segmance-stick "$stage/usr/lib/segmance/segmance-stick"
install -D -m 0644 deploy/segmance.tmpfiles "$stage/usr/lib/tmpfiles.d/segmance.conf"
install -D -m 0644 deploy/segmance.toml "$stage/etc/segmance/segmance.toml"
install -d "$stage/usr/share/segmance/board"
install -m 0644 board/*.toml board/README.md "$stage/usr/share/segmance/board/"
install -D -m 0644 README.md "$stage/usr/share/doc/segmance/README.md"

# Depends: libaubio5 (opened with dlopen by an import, so readelf does not see it), and the package of every shared library the binaries need (FFmpeg's: libavformat59,
# libavcodec59, libavutil57, libswresample4, through segmance-ffmpeg).
depends=$(for elf in "$stage/usr/bin/segmance" "$stage/usr/lib/segmance/segmance-ffmpeg"; do readelf -d "$elf"; done \
  | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | sort -u | while read -r lib; do
  # The dynamic loader is libc6's (an aarch64 link names it as a library too).
  case $lib in ld-linux-*) continue ;; esac
  path=$(ldconfig -p | awk -v l="$lib" -v c="$elf_class" '$1 == l && $0 ~ c {print $NF; exit}')
  [ -n "$path" ] || path=$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')
  [ -n "$path" ] || { echo "build-deb: no $lib on this machine" >&2; exit 1; }
  real=$(readlink -f "$path")
  dpkg -S "$path" 2>/dev/null || dpkg -S "$real" 2>/dev/null || dpkg -S "/usr$real" 2>/dev/null \
    || { echo "build-deb: no package owns $path" >&2; exit 1; }
done | cut -d: -f1 | sort -u | paste -sd, - | sed 's/,/, /g')

install -d "$stage/DEBIAN"
install -m 0755 deploy/debian/postinst deploy/debian/prerm deploy/debian/postrm "$stage/DEBIAN/"
echo /etc/segmance/segmance.toml > "$stage/DEBIAN/conffiles"
cat > "$stage/DEBIAN/control" <<CONTROL
Package: segmance
Version: $version
Architecture: $arch
Maintainer: Segmance Box team <segmance@localhost>
Section: sound
Priority: optional
Depends: adduser, libaubio5, $depends
Recommends: ntfs-3g, espeak-ng
Installed-Size: $(du -sk "$stage" | cut -f1)
Description: Segmance Box dance-rehearsal player
 Plays routines from a USB stick part by part, with countdowns, A-B loops and
 the moves on a character LCD, driven by buttons, a rotary encoder or a foot
 pedal. Runs as a systemd service (segmance.service) under its own user.
CONTROL

mkdir -p "$out"
deb="$out/segmance_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >&2
echo "$deb"
