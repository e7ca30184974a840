#!/usr/bin/env bash
# Builds the segmance Debian package for this machine's architecture:
#   deploy/build-deb.sh [OUTPUT_DIR]      (default .build-deb/dist; prints the .deb's path)
# The binary is a release build with the Swift runtime linked in (--static-swift-stdlib,
# in its own scratch path .build-deb), so the package needs no /opt/swift; it depends on
# the Debian packages of the C libraries it links. Contents: /usr/bin/segmance, the systemd
# units, the udev rule and stick mount helper, the board profiles, the default config
# /etc/segmance/segmance.toml (a conffile); postinst creates user segmance in the groups
# audio, gpio, i2c and input. Needs the packages of deploy/install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
out=${1:-.build-deb/dist}
arch=$(dpkg --print-architecture)
if [ -n "${SEGMANCE_VERSION:-}" ]; then
  version=$SEGMANCE_VERSION
elif git rev-parse --git-dir >/dev/null 2>&1; then
  version="0.1.0~git$(git log -1 --format=%cd --date=format:%Y%m%d).$(git rev-parse --short=8 HEAD)"
else
  version=0.1.0
fi

swift build -c release --static-swift-stdlib --scratch-path .build-deb --product segmance
swift build -c release --static-swift-stdlib --scratch-path .build-deb --product segmance-ffmpeg
binary="$(swift build -c release --static-swift-stdlib --scratch-path .build-deb --show-bin-path)/segmance"

stage=.build-deb/stage
rm -rf "$stage"
install -D -m 0755 "$binary" "$stage/usr/bin/segmance"
strip --strip-unneeded "$stage/usr/bin/segmance"
# The FFmpeg decoder runs as a process of its own (segmance does not load FFmpeg's libraries).
install -D -m 0755 "$(dirname "$binary")/segmance-ffmpeg" "$stage/usr/lib/segmance/segmance-ffmpeg"
strip --strip-unneeded "$stage/usr/lib/segmance/segmance-ffmpeg"
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
  path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64|AArch64|aarch64|ARM|hard-float/ {print $NF; exit}')
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
