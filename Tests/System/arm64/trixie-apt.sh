# Host-side: apt-get against Debian 13 trixie (amd64 + arm64) in a configuration of its own,
# so the host's apt sources stay untouched. Source it; needs $cache (the box's cache folder).
#   trixie_apt ARGS...        apt-get with that configuration (update, download …)
#   trixie_cache ARGS...      apt-cache with it (show, depends …)
#   trixie_fetch PACKAGE:ARCH downloads the package into $cache/arm64/debs once, prints its path
#   trixie_kernel_abi         the ABI linux-image-arm64 depends on today, e.g. 6.12.57+deb13-arm64
trixie_dir="$cache/arm64/apt"

trixie_apt() { trixie_tool apt-get "$@"; }
trixie_cache() { trixie_tool apt-cache "$@"; }

trixie_tool() {
  local tool=$1 opts=(
    -o "Dir::Etc::sourcelist=$trixie_dir/sources.list" -o Dir::Etc::sourceparts=/dev/null
    -o "Dir::State::Lists=$trixie_dir/lists" -o "Dir::State::status=$trixie_dir/status"
    -o "Dir::Cache=$trixie_dir/cache" -o APT::Architectures::=amd64 -o APT::Architectures::=arm64
  )
  # As root, apt's download sandbox user cannot write the cache.
  [ "$(id -u)" -ne 0 ] || opts+=(-o APT::Sandbox::User=root)
  if [ ! -f "$trixie_dir/sources.list" ]; then
    mkdir -p "$trixie_dir/lists/partial" "$trixie_dir/cache/archives/partial"
    : > "$trixie_dir/status"
    echo "deb [arch=amd64,arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
      "${SEGMANCE_BOX_TRIXIE_MIRROR:-http://deb.debian.org/debian} trixie main" > "$trixie_dir/sources.list"
  fi
  shift
  "$tool" "${opts[@]}" "$@"
}

# The lists are read again when older than a day (Debian replaces old kernel ABI packages).
trixie_update() {
  if [ -z "$(find "$trixie_dir/lists" -name '*_Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
    trixie_apt update -qq >&2
  fi
}

trixie_fetch() {
  local debs="$cache/arm64/debs" name=${1%%:*} deb
  mkdir -p "$debs"
  deb=$(find "$debs" -maxdepth 1 -name "${name}_*.deb" | sort | tail -1)
  if [ -z "$deb" ]; then
    trixie_update
    echo "box build: downloading $1 (trixie)" >&2
    (cd "$debs" && trixie_apt download -q "$1" >&2)
    deb=$(find "$debs" -maxdepth 1 -name "${name}_*.deb" | sort | tail -1)
  fi
  [ -n "$deb" ] || { echo "box build: apt-get download $1 gave no package" >&2; return 1; }
  echo "$deb"
}

trixie_kernel_abi() {
  local abi
  trixie_update
  abi=$(trixie_cache show linux-image-arm64:arm64 2>/dev/null \
    | sed -n 's/^Depends: .*linux-image-\([^ ,]*-arm64\)\( .*\)\{0,1\}$/\1/p' | head -1)
  [ -n "$abi" ] || { echo "box: cannot resolve trixie's arm64 kernel ABI" >&2; return 1; }
  echo "$abi"
}
