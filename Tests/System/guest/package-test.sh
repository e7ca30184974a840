#!/bin/bash
# In the guest: the .deb of deploy/build-deb.sh ($SEGMANCE_BOX_DEB) installs with dpkg (with
# apt, its dependencies resolved, when SEGMANCE_BOX_APT=1: the arm64 box, offline, from what
# its trixie root holds),
# creates user segmance in audio, gpio, i2c and input, enables the unit, ships a binary
# that needs no /opt/swift; systemd-analyze verifies the units and scores the service
# (written to /share/security.txt); udev gives the GPIO chip and the I2C bus to the
# groups; remove and purge clean up.
#   package-test.sh           all of it
#   package-test.sh install   up to the removal: the package stays installed (run-all.sh
#                             runs the daemon tests from it, as user segmance)
#   package-test.sh remove    remove and purge
set -euo pipefail
deb=${SEGMANCE_BOX_DEB:?the .deb to test}
fail() { echo "package: FAIL: $*" >&2; exit 1; }
part=${1:-all}
if [ "$part" != remove ]; then

if [ "${SEGMANCE_BOX_APT:-0}" = 1 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$(realpath "$deb")" \
    || fail "apt could not install $deb"
else
  dpkg -i "$deb"
fi
dpkg-query -W -f='${Status} ${Version}\n' segmance | grep -q '^install ok installed' || fail "not installed"

# The user and its groups.
IFS=: read -r _ _ uid _ _ home shell < <(getent passwd segmance) || fail "no user segmance"
[ "$uid" -lt 1000 ] || fail "segmance is not a system user (uid $uid)"
[ "$home" = /var/lib/segmance ] && [ "$shell" = /usr/sbin/nologin ] || fail "home $home, shell $shell"
for group in segmance audio gpio i2c input; do
  id -nG segmance | tr ' ' '\n' | grep -qx "$group" || fail "segmance is not in group $group"
done
[ "$(stat -c '%U %G %a' /var/lib/segmance)" = "segmance segmance 750" ] || fail "/var/lib/segmance: $(stat -c '%U %G %a' /var/lib/segmance)"
[ "$(stat -c '%U %a' /media/segmance)" = "root 755" ] || fail "/media/segmance: $(stat -c '%U %a' /media/segmance)"
[ "$(stat -c '%U %a' /run/segmance-stick)" = "root 755" ] || fail "/run/segmance-stick: $(stat -c '%U %a' /run/segmance-stick)"

# The files.
for f in /usr/bin/segmance /usr/lib/segmance/segmance-stick /etc/segmance/segmance.toml \
         /lib/systemd/system/segmance.service /lib/systemd/system/segmance-stick@.service \
         /lib/systemd/system/segmance-stick-save.path /lib/systemd/system/segmance-stick-save.service \
         /lib/udev/rules.d/90-segmance.rules /usr/share/segmance/board/pi-gpio.toml \
         /usr/share/segmance/board/README.md /usr/lib/tmpfiles.d/segmance.conf; do
  [ -e "$f" ] || fail "$f missing"
done
grep -q '^board = "/usr/share/segmance/board/pi-gpio.toml"' /etc/segmance/segmance.toml || fail "default config"
[ -L /etc/systemd/system/multi-user.target.wants/segmance.service ] || fail "segmance.service is not enabled"
[ -L /etc/systemd/system/multi-user.target.wants/segmance-stick-save.path ] \
  || fail "segmance-stick-save.path is not enabled"
# A Swift runtime from a Debian package (libswiftlang, /usr/libexec/swift) is a dependency like
# any other; the toolchain's is not.
if ldd /usr/bin/segmance | grep -E 'swift|not found' | grep -v ' /usr/libexec/swift/'; then
  fail "/usr/bin/segmance needs the Swift toolchain's libraries"
fi
env -i PATH=/usr/bin:/bin /usr/bin/segmance --help > /dev/null || fail "segmance --help"

# The units, as systemd reads them, and the service's exposure score.
systemd-analyze verify /lib/systemd/system/segmance.service segmance-stick@sda1.service \
  /lib/systemd/system/segmance-stick-save.path /lib/systemd/system/segmance-stick-save.service 2>&1 \
  | tee /tmp/verify.txt
[ ! -s /tmp/verify.txt ] || fail "systemd-analyze verify has something to say"
systemd-analyze security --offline=true --no-pager /lib/systemd/system/segmance.service > /share/security.txt 2>&1 || true
score=$(sed -n 's/.*Overall exposure level for segmance.service: \([0-9.]*\).*/\1/p' /share/security.txt)
[ -n "$score" ] || { cat /share/security.txt; fail "no exposure score"; }
echo "package: systemd-analyze security: $(grep 'Overall exposure' /share/security.txt | sed 's/\x1b\[[0-9;]*m//g')"
awk -v s="$score" 'BEGIN { exit !(s < 3.0) }' || fail "exposure $score is not below 3.0"

# udev gives the devices to the groups (the rule's GROUP and MODE on gpiochip and i2c-0).
# udevadm test says it as "Setting permissions …, gid=G, mode=0660" (systemd 252, bookworm) or
# under "Device node group:" and "Device node permission:" (257, trixie).
for dev in "/sys/bus/gpio/devices/$SEGMANCE_BOX_GPIO_CHIP" /sys/class/i2c-dev/i2c-0; do
  out=$(udevadm test --action=add "$dev" 2>&1)
  gid=$(getent group "$([ "${dev#*gpio}" != "$dev" ] && echo gpio || echo i2c)" | cut -d: -f3)
  grep -qE "Setting permissions /dev/[a-z0-9-]+, uid=0, gid=$gid, mode=0660" <<< "$out" \
    || { grep -A1 '^Device node group:' <<< "$out" | grep -q "(gid=$gid)" \
         && grep -A1 '^Device node permission:' <<< "$out" | grep -q '0660'; } \
    || { echo "$out" | tail -20; fail "udev does not give $dev to its group"; }
done
# gpiod 2's gpioinfo (trixie) takes the chip with -c (its arguments are line names); 1.6's as an argument.
chip=("$SEGMANCE_BOX_GPIO_CHIP")
if gpioinfo --help 2>&1 | grep -q -- '--chip'; then chip=(-c "$SEGMANCE_BOX_GPIO_CHIP"); fi
# bookworm's udevadm test (systemd 252) also set the nodes' group; trixie's (257) leaves them
# root's: there the rules are applied for real, by a udevd started for it when none runs.
if ! setpriv --reuid=segmance --regid=segmance --init-groups gpioinfo "${chip[@]}" > /dev/null 2>&1; then
  echo "package: udevadm test left /dev/$SEGMANCE_BOX_GPIO_CHIP root's: the rules applied by udevd"
  started=0
  pgrep -x systemd-udevd > /dev/null || { /lib/systemd/systemd-udevd --daemon && started=1; }
  udevadm trigger --action=add --settle "/sys/bus/gpio/devices/$SEGMANCE_BOX_GPIO_CHIP" /sys/class/i2c-dev/i2c-0
  [ "$started" = 0 ] || udevadm control --exit
fi
setpriv --reuid=segmance --regid=segmance --init-groups gpioinfo "${chip[@]}" > /dev/null \
  || fail "user segmance cannot open /dev/$SEGMANCE_BOX_GPIO_CHIP"
setpriv --reuid=segmance --regid=segmance --init-groups i2cdetect -y -r 0 0x27 0x27 > /dev/null \
  || fail "user segmance cannot open /dev/i2c-0"

echo "package: installed and checked"
fi
[ "$part" != install ] || exit 0

# Remove keeps the config; purge drops it and the library.
dpkg -r segmance > /dev/null
[ ! -e /usr/bin/segmance ] && [ -e /etc/segmance/segmance.toml ] || fail "remove"
dpkg -P segmance > /dev/null
[ ! -e /etc/segmance/segmance.toml ] && [ ! -e /var/lib/segmance ] || fail "purge"
[ ! -e /etc/systemd/system/multi-user.target.wants/segmance.service ] || fail "still enabled after purge"
echo "package: OK"
