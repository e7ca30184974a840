# Brings up the simulated hardware of the board profile board/sim-vm.toml in the guest.
# Source it after boxlib.sh: . "$BOX_DIR/guest/hardware.sh"; box_hardware
#
#   buttons, encoder  gpio-sim chip "gpio-sim.0-node0", lines 0..6 named PLAY PREV NEXT
#                     LOOP SELECT ENC_A ENC_B (+ one spare), driven by writing pull-up /
#                     pull-down to /sys/bus/gpio/devices/<chip>/sim_gpioN/pull
#   LCD               i2c-stub at 0x27 on /dev/i2c-0; the smbus_write trace event is on
#   audio             snd-aloop: play hw:Loopback,0,0, capture hw:Loopback,1,0
#   pedal             /dev/uinput (a test creates the device), evdev nodes by devtmpfs
#   USB stick         usb-storage on qemu-xhci, hot-plugged with box_hmp; the modules of
#                     exfat, ntfs3, hfsplus and ext4 there (the kernel loads them on mount)
# Exports SEGMANCE_BOX=1 and SEGMANCE_BOX_GPIO_CHIP (gpiochipN) for the tests.

box_gpio_sim() {
  local cfg=/sys/kernel/config/gpio-sim/segmance i=0 name
  modprobe gpio-sim-oot
  mkdir "$cfg" "$cfg/bank0"
  echo 8 > "$cfg/bank0/num_lines"
  for name in PLAY PREV NEXT LOOP SELECT ENC_A ENC_B; do
    mkdir "$cfg/bank0/line$i"
    echo "$name" > "$cfg/bank0/line$i/name"
    i=$((i + 1))
  done
  echo 1 > "$cfg/live"
  SEGMANCE_BOX_GPIO_CHIP=$(cat "$cfg/bank0/chip_name")
  # Buttons and encoder contacts open: the lines rest high, as with the Pi's pull-ups.
  for i in 0 1 2 3 4 5 6; do
    echo pull-up > "/sys/bus/gpio/devices/$SEGMANCE_BOX_GPIO_CHIP/sim_gpio$i/pull"
  done
  export SEGMANCE_BOX_GPIO_CHIP
}

box_i2c_stub() {
  local t=/sys/kernel/tracing
  modprobe i2c-dev
  modprobe i2c-stub chip_addr=0x27
  [ "$(cat /sys/bus/i2c/devices/i2c-0/name)" = "SMBus stub driver" ] \
    || { echo "box: i2c-stub is not bus 0 (board/sim-vm.toml says bus 0)" >&2; return 1; }
  # One clock for every CPU, so the trace of a writer that moved between CPUs stays in order.
  echo global > "$t/trace_clock"
  echo 4096 > "$t/buffer_size_kb"
  echo 1 > "$t/events/smbus/smbus_write/enable"
}

box_sound() {
  modprobe snd-aloop
  [ -e /proc/asound/Loopback ] || { echo "box: no Loopback card" >&2; return 1; }
}

box_input() {
  modprobe evdev
  modprobe uinput
}

box_usb() {
  modprobe xhci-pci
  modprobe usb-storage
  modprobe sd_mod
  modprobe vfat
  modprobe nls_cp437
  modprobe nls_iso8859-1
  # The file systems of sticks beside FAT32: Debian's exfat and hfsplus, ntfs3 built out of
  # tree by build.sh (Debian's kernel lacks it), ext4 built in. Only checked, not loaded:
  # mounting a stick has the kernel load its module (the stick unit cannot load modules).
  local m
  for m in exfat ntfs3 hfsplus ext4; do
    modprobe -n -q "$m" || { echo "box: no $m module for sticks" >&2; return 1; }
  done
}

box_hardware() {
  box_gpio_sim && box_i2c_stub && box_sound && box_input && box_usb || return 1
  export SEGMANCE_BOX=1
}
