# Host-side helpers shared by the box scripts. Source it.

# The ABI of Debian's current kernel (e.g. 6.1.0-56-amd64), from linux-image-amd64's
# dependency: Debian replaces old ABI packages, so it is resolved, never pinned.
box_kernel_abi() {
  local abi
  abi=$(apt-cache depends linux-image-amd64 2>/dev/null \
    | sed -n 's/^ *Depends: linux-image-\(.*-amd64\)$/\1/p' | head -1)
  [ -n "$abi" ] || { echo "box: cannot resolve the kernel ABI (apt-get update?)" >&2; return 1; }
  echo "$abi"
}
