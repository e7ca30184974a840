#!/bin/bash
# In the arm64 guest: each simulated device of board/sim-vm.toml works with trixie's own
# arm64 tools, before any of the firmware runs (so a failure here is the box's, not the
# firmware's): gpio-sim edges seen by gpiomon (libgpiod 2), i2c-stub's bytes in the trace,
# a tone played to snd-aloop captured sample for sample, a uinput device listed by evdev,
# a USB stick hot-plugged, mounted read-only, read and yanked.
set -euo pipefail
. "$BOX_DIR/guest/boxlib.sh"
fail() { echo "devices: FAIL: $*" >&2; exit 1; }
chip=/dev/${SEGMANCE_BOX_GPIO_CHIP:?box_hardware first}
pull=/sys/bus/gpio/devices/$SEGMANCE_BOX_GPIO_CHIP/sim_gpio0/pull

# GPIO: the PLAY line rests high; pulled down, gpiomon reports a falling edge.
[ "$(gpioget -c "$chip" --numeric 0)" = 1 ] || fail "PLAY does not rest high"
gpiomon -c "$chip" -e falling -n 1 0 > /tmp/gpiomon.txt &
mon=$!
sleep 1                                  # TCG: let gpiomon request its line first
echo pull-down > "$pull"
box_wait 10 "gpiomon's edge" grep -qi 'falling' /tmp/gpiomon.txt || { kill "$mon"; fail "no falling edge"; }
wait "$mon"
[ "$(gpioget -c "$chip" --numeric 0)" = 0 ] || fail "PLAY does not read low"
echo pull-up > "$pull"
echo "devices: gpio-sim: $(cat /tmp/gpiomon.txt)"

# I2C: SMBus send-byte to the stub at 0x27, read back from the smbus_write trace event.
: > /sys/kernel/tracing/trace
i2cset -y 0 0x27 0x5a
grep -q 'smbus_write: i2c-0 a=027 f=0000 c=5a' /sys/kernel/tracing/trace \
  || { cat /sys/kernel/tracing/trace | tail -5; fail "the byte is not in the trace"; }
echo "devices: i2c-stub: the send-byte 0x5a to 0x27 is in the trace"

# Audio: a second of a 997 Hz tone played to hw:Loopback,0,0, captured from hw:Loopback,1,0.
python3 - /tmp/tone.wav <<'PY'
import math, struct, sys, wave
w = wave.open(sys.argv[1], "wb"); w.setnchannels(2); w.setsampwidth(2); w.setframerate(48000)
w.writeframes(b"".join(struct.pack("<hh", int(12000 * math.sin(2 * math.pi * 997 * i / 48000)), i % 7)
                       for i in range(48000)))
w.close()
PY
arecord -q -D hw:Loopback,1,0 -f S16_LE -c 2 -r 48000 -d 3 /tmp/captured.wav &
rec=$!
sleep 0.5
aplay -q -D hw:Loopback,0,0 --period-size=512 --buffer-size=2048 /tmp/tone.wav
wait "$rec"
python3 - /tmp/tone.wav /tmp/captured.wav <<'PY' || fail "the tone was not captured sample for sample"
import sys, wave
a = wave.open(sys.argv[1]).readframes(10**7); b = wave.open(sys.argv[2]).readframes(10**7)
start = b.find(a[:4096])
if start < 0 or start % 4:
    sys.exit("devices: the tone's start is not in the capture")
same = next((i for i in range(0, len(a), 4) if b[start + i:start + i + 4] != a[i:i + 4]), len(a)) // 4
# While aplay drains its last buffer (2048 frames) snd-aloop may slip a jiffy of silence in.
if same < 48000 - 2048:
    sys.exit("devices: the capture differs from the tone at frame %d of 48000" % same)
print("devices: snd-aloop: a tone played, captured bit for bit from frame %d: %d of 48000 frames "
      "(the rest is aplay's drain)" % (start // 4, same))
PY

# Input: a uinput device appears to evdev under its name.
python3 - <<'PY' || fail "no uinput device"
import fcntl, os, struct, time
fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
fcntl.ioctl(fd, 0x40045564, 1)             # UI_SET_EVBIT EV_KEY
fcntl.ioctl(fd, 0x40045565, 48)            # UI_SET_KEYBIT KEY_B
setup = struct.pack("<HHHH80sI", 3, 0x0c45, 0x7403, 1, b"PCsensor FootSwitch", 0)
fcntl.ioctl(fd, 0x405c5503, setup)         # UI_DEV_SETUP
fcntl.ioctl(fd, 0x5501)                    # UI_DEV_CREATE
for _ in range(200):
    if 'N: Name="PCsensor FootSwitch"' in open("/proc/bus/input/devices").read():
        break
    time.sleep(0.02)
else:
    raise SystemExit("devices: the uinput device is not in /proc/bus/input/devices")
fcntl.ioctl(fd, 0x5502)                    # UI_DEV_DESTROY
print("devices: uinput: PCsensor FootSwitch listed by evdev")
PY

# USB: a FAT32 stick hot-plugged on the xhci bus, read, yanked.
img=/share/devices-stick.img
truncate -s 40M "$img"
mkfs.vfat -F 32 -n BOXSTICK "$img" > /dev/null
echo "hello from the stick" > /tmp/hello.txt
mcopy -i "$img" /tmp/hello.txt ::hello.txt
box_hmp "drive_add 0 if=none,id=dstick,file=$BOX_SHARE_HOST/devices-stick.img,format=raw" > /dev/null
box_hmp "device_add usb-storage,id=dstick,drive=dstick,bus=xhci.0,removable=on" > /dev/null
box_wait 30 "the stick's /dev/sda" test -b /dev/sda || fail "the stick did not appear"
mkdir -p /mnt/stick && mount -t vfat -o ro /dev/sda /mnt/stick
cmp -s /mnt/stick/hello.txt /tmp/hello.txt || fail "the stick reads wrong"
umount /mnt/stick
box_hmp "device_del dstick" > /dev/null
box_wait 30 "the stick to go" test ! -e /dev/sda || fail "the stick did not go"
echo "devices: usb-storage: the stick plugged, read and yanked"
