# Guest-side helpers of the board in a box. Source it: . "$BOX_DIR/guest/boxlib.sh"

# box_hmp "<qemu monitor command>": runs it on the host's qemu monitor (through boxrun, over
# the virtio-serial port segmance.box) and prints the monitor's reply.
box_hmp() {
  local port="" p line
  modprobe virtio_console
  for p in /sys/class/virtio-ports/*; do
    [ "$(cat "$p/name" 2>/dev/null)" = segmance.box ] && port=/dev/$(basename "$p")
  done
  [ -n "$port" ] || { echo "box_hmp: no virtio port segmance.box" >&2; return 1; }
  exec 9<>"$port"
  printf '%s\n' "$*" >&9
  while IFS= read -r -t 60 line <&9; do
    [ "$line" = . ] && { exec 9>&-; return 0; }
    printf '%s\n' "$line"
  done
  exec 9>&-
  echo "box_hmp: no answer for: $*" >&2
  return 1
}

# box_wait SECONDS DESCRIPTION CMD...: runs CMD every 20 ms until it succeeds; fails with
# DESCRIPTION after SECONDS. For kernel state with no event to wait on (a disk enumerating).
box_wait() {
  local limit=$1 what=$2 deadline
  shift 2
  deadline=$(( $(date +%s%N) + limit * 1000000000 ))
  until "$@" > /dev/null; do
    if [ "$(date +%s%N)" -gt "$deadline" ]; then
      echo "box_wait: $what: not after $limit s" >&2
      return 1
    fi
    sleep 0.02
  done
}

# box_elapsed START_NS: seconds since START_NS (from date +%s%N), e.g. 1.234.
box_elapsed() {
  local ns=$(( $(date +%s%N) - $1 ))
  printf '%d.%03d' $((ns / 1000000000)) $(((ns / 1000000) % 1000))
}

# box_udev_start / box_udev_stop: udevd as on the board, so the device nodes get the groups
# and modes of the rules installed (Debian's: audio for /dev/snd, input for evdev; the
# package's 90-segmance.rules: gpio, i2c) and a daemon running as user segmance can open them.
box_udev_start() {
  /lib/systemd/systemd-udevd --daemon || return 1
  udevadm trigger --action=add && udevadm settle --timeout=60
}
box_udev_stop() {
  udevadm control --exit
}
