#!/usr/bin/env bash
# Makes (once) a Debian 13 "trixie" build root with trixie's Swift 6.0.3 and prints its path:
#   deploy/trixie-root.sh
# The root lives outside the clone, in ${SEGMANCE_BUILD_CACHE:-$HOME/.cache/segmance-build}/trixie-root:
# - trixie's swiftlang (amd64) and the -dev packages of the C libraries (amd64 and, multiarch,
#   arm64), lld and an aarch64 C toolchain for the cross link;
# - /opt/swift-arm64: trixie's arm64 swiftlang and libswiftlang unpacked (dpkg -x), whose
#   aarch64 standard library and modules are the cross compiler's resource directory;
# - /opt/grdb: GRDB from the package mirror with its manifest's swift-tools-version set to 6.0
#   (the only GRDB there declares 6.1; its sources build with 6.0.3), which the root's git uses
#   instead of github.com/groue/GRDB.swift. Nothing of GRDB is committed here.
# Run it as root (mmdebstrap, chroot). A second run only checks what is there and adds what
# is missing. deploy/trixie-build.sh runs commands in the root with the package mirror and the
# clone bind-mounted.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${SEGMANCE_BUILD_CACHE:-$HOME/.cache/segmance-build}
root=$cache/trixie-root
mirror=${SEGMANCE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages_mirror=${SEGMANCE_SWIFT_PACKAGES:-/opt/swift-packages}
# The C libraries the targets link (Package.swift), for both architectures.
dev_packages="libasound2-dev libgpiod-dev libsndfile1-dev libsqlite3-dev libsoxr-dev librubberband-dev
  libaubio-dev libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libc6-dev libstdc++-14-dev"
mkdir -p "$cache"

log() { echo "trixie-root: $*" >&2; }

stamp=$root/var/lib/segmance-root-packages
wanted="swiftlang git pkg-config file rsync lld gcc-aarch64-linux-gnu $dev_packages
  $(for p in $dev_packages; do printf '%s:arm64 ' "$p"; done)"
if [ ! -x "$root/usr/bin/apt-get" ]; then
  command -v mmdebstrap >/dev/null || deploy/apt-install.sh trixie-root mmdebstrap >&2
  # mmdebstrap resolves and downloads with the host's apt and installs every package in one
  # pass: about a minute here, where debootstrap and apt-get in the root took nine.
  log "mmdebstrap trixie (amd64 and arm64) into $root"
  rm -rf "$root.tmp"
  # shellcheck disable=SC2086
  mmdebstrap --mode=root --variant=minbase --architectures=amd64,arm64 --skip=cleanup/apt/lists \
    --include="$(echo ca-certificates $wanted | tr ' ' ,)" trixie "$root.tmp" "$mirror" >&2
  echo "$wanted" > "$root.tmp${stamp#"$root"}"
  mv "$root.tmp" "$root"
fi

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

mounted=()
cleanup() { for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}"; done; }
trap cleanup EXIT
for dir in proc dev; do
  if ! mountpoint -q "$root/$dir"; then mount --bind "/$dir" "$root/$dir"; mounted+=("$root/$dir"); fi
done

if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
  log "installing trixie's Swift and the -dev packages (amd64 and arm64)"
  in_root dpkg --add-architecture arm64
  in_root apt-get update -q >&2
  # shellcheck disable=SC2086
  in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $wanted >&2
  echo "$wanted" > "$stamp"
fi

# The arm64 Swift: the standard library, Foundation and their modules for aarch64. Its files
# share paths with the amd64 compiler's, so it is unpacked beside it rather than installed.
if [ ! -f "$root/opt/swift-arm64/.complete" ]; then
  log "unpacking trixie's arm64 swiftlang and libswiftlang into /opt/swift-arm64"
  in_root sh -c 'rm -rf /opt/swift-arm64 /tmp/swift-arm64 && mkdir -p /tmp/swift-arm64 && cd /tmp/swift-arm64 &&
    apt-get download -q -o APT::Sandbox::User=root swiftlang:arm64 libswiftlang:arm64 >&2 &&
    for deb in *.deb; do dpkg -x "$deb" /opt/swift-arm64; done && rm -rf /tmp/swift-arm64 &&
    touch /opt/swift-arm64/.complete'
fi

# GRDB usable by Swift 6.0.3: a local copy of the mirror's repository whose every tag's
# manifest says swift-tools-version:6.0.
if [ ! -f "$root/opt/grdb/.complete" ]; then
  log "making GRDB's manifests say swift-tools-version:6.0 in /opt/grdb"
  rm -rf "$root/opt/grdb"
  mkdir -p "$root/opt/grdb"
  git clone -q --bare "$packages_mirror/groue/GRDB.swift.git" "$root/opt/grdb/GRDB.swift.git"
  work=$(mktemp -d)
  git clone -q "$root/opt/grdb/GRDB.swift.git" "$work/grdb"
  for tag in $(git -C "$work/grdb" tag --list '7.*'); do
    git -C "$work/grdb" checkout -q "$tag"
    if head -1 "$work/grdb/Package.swift" | grep -q 'swift-tools-version: *6\.[1-9]'; then
      sed -i '1s/.*/\/\/ swift-tools-version:6.0/' "$work/grdb/Package.swift"
      git -C "$work/grdb" -c user.name=segmance -c user.email=segmance@localhost \
        commit -q -am "Package.swift: swift-tools-version 6.0 for Debian's Swift 6.0.3"
      git -C "$work/grdb" tag -f "$tag" >/dev/null
    fi
  done
  git -C "$work/grdb" push -q -f --tags origin
  rm -rf "$work"
  touch "$root/opt/grdb/.complete"
fi

# The root's git takes github.com from the package mirror, and GRDB from /opt/grdb (the
# longer match wins).
cat > "$root/root/.gitconfig" <<GITCONFIG
[url "/opt/swift-packages/"]
	insteadOf = https://github.com/
[url "/opt/grdb/GRDB.swift.git"]
	insteadOf = https://github.com/groue/GRDB.swift.git
	insteadOf = https://github.com/groue/GRDB.swift
[safe]
	directory = *
GITCONFIG
mkdir -p "$root/opt/swift-packages" "$root/clone" "$root/src"
echo "$root"
