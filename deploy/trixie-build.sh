#!/usr/bin/env bash
# Runs a shell command in the Debian 13 build root (deploy/trixie-root.sh makes it if missing):
#   deploy/trixie-build.sh 'swift build --scratch-path .build-trixie'
# The command runs in /src, a copy of this clone's files inside the root (rsync: only what
# changed; without .git, .build* and Package.resolved, whose GRDB pin is the mirror's 6.1
# manifest, not the root's 6.0 one), with the clone itself at /clone and the Swift package
# mirror at /opt/swift-packages. The mounts live in a mount namespace of their own (unshare):
# they vanish when the command ends.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: deploy/trixie-build.sh COMMAND" >&2; exit 2; }
root=$(deploy/trixie-root.sh)
packages_mirror=${SEGMANCE_SWIFT_PACKAGES:-/opt/swift-packages}
exec unshare --mount --propagation private sh -ec '
  root=$1 mirror=$2 clone=$3 command=$4
  mount --bind /proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount --rbind /sys "$root/sys"
  mount --bind "$mirror" "$root/opt/swift-packages"
  mount --bind "$clone" "$root/clone"
  exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb \
    sh -ec "rsync -a --delete --exclude=/.git --exclude=/.build* --exclude=/Package.resolved /clone/ /src/
      cd /src && $command"
' trixie-build "$root" "$packages_mirror" "$PWD" "$1"
