#!/usr/bin/env bash
# deploy/apt-install.sh NAME PACKAGE...: installs those of the Debian packages that are
# missing (apt-get, through sudo when not root); says so as NAME. Used by the install-*.sh.
set -euo pipefail
name=$1
shift
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "$name: all packages present"
  exit 0
fi
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
echo "$name: installing ${missing[*]}"
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
