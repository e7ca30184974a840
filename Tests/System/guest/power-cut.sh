#!/bin/bash
# In the guest: one boot of Tests/System/power-cut.sh. The library lives on its own disk
# (/dev/vda, ext4, an image file on the host). The script mounts it (ext4 replays its
# journal, as on the board after a power cut), prints what the library holds as "[state]"
# lines for the host to judge, then, unless MODE is "check", prints "[cut] armed" and runs
# WORKLOAD until the host cuts the power:
#   import     remove each routine, import a stick (first imports), the other stick next time
#   reimport   import stick a, then stick b, … (every routine replaced each time)
#   settings   save the settings and the resume point for k = K0, K0+1, … (SEGMANCE_CUT_K0)
#   daemon     the daemon itself (`segmance run`, on the board's simulated hardware) saving
#              as the performer plays: PLAY (pause: the place), NEXT and PREV (the place),
#              PLAY held + a detent (the volume: the settings, 1.5 s later); its log says
#              "saving: …" before each write and "saved: …" once it is durable
# Before each step it prints "[cut] op …", after it what was acknowledged ("[cut] import X:
# TITLE: added", "[cut] ack settings K"): what the host may expect to survive the cut.
# MODE: first (a fresh disk: no state to show), cut, check (state only, then power off).
set -u
mode=$1 workload=${2:-}
seg=$SEGMANCE_CUT_BIN work=$SEGMANCE_CUT_WORK
lib=/mnt/cut/library
. "$BOX_DIR/guest/boxlib.sh"

# The writeback the kernel would do on its own within 30 s is held back: what reaches the
# disk is what the library made durable (fsync), and everything else is lost at the cut.
sysctl -q -w vm.dirty_expire_centisecs=360000 vm.dirty_writeback_centisecs=0
modprobe virtio_blk 2> /dev/null
modprobe ext4 2> /dev/null
mkdir -p /mnt/cut
if ! box_wait 20 "the library disk /dev/vda" test -b /dev/vda || ! mount -t ext4 /dev/vda /mnt/cut; then
  echo "[state] begin"
  echo "[state] mount failed: $(dmesg | tail -5 | tr '\n' ' ')"
  echo "[state] end"
  exit 1
fi

oneline() { tr -d '\n'; echo; }
if [ "$mode" != first ]; then
  echo "[state] begin"
  "$seg" library check --library "$lib" > /tmp/check.txt 2>&1
  status=$?
  sed 's/^/[state] check /' /tmp/check.txt
  echo "[state] check-status $status"
  echo "[state] list $("$seg" library list --json --library "$lib" 2>&1 | oneline)"
  echo "[state] settings $("$seg" library settings --json --library "$lib" 2>&1 | oneline)"
  echo "[state] resume $("$seg" library resume --json --library "$lib" 2>&1 | oneline)"
  (cd "$lib/media" && for f in *.pcm; do [ -e "$f" ] && sha256sum "$f"; done) | sed 's/^/[state] media /'
  echo "[state] end"
fi
if [ "$mode" = check ]; then
  umount /mnt/cut
  exit 0
fi

import() {   # import a|b
  echo "[cut] op import $1"
  "$seg" import "$work/stick-$1" --library "$lib" 2>&1 | sed -u "s/^/[cut] import $1: /"
}
titles=$(cat "$work/titles")

[ "$workload" = daemon ] || echo "[cut] armed"
case $workload in
  import)
    stick=${SEGMANCE_CUT_FIRST:-a}
    while true; do
      for t in $titles; do
        echo "[cut] op remove $t"
        "$seg" library remove "$t" --library "$lib" > /dev/null 2>&1 && echo "[cut] ack removed $t"
      done
      import "$stick"
      if [ "$stick" = a ]; then stick=b; else stick=a; fi
    done ;;
  reimport)
    stick=${SEGMANCE_CUT_FIRST:-a}
    while true; do
      import "$stick"
      if [ "$stick" = a ]; then stick=b; else stick=a; fi
    done ;;
  settings)
    first=${titles%% *}
    "$seg" library show "$first" --library "$lib" > /dev/null 2>&1 || import a
    countdown=(0 3 5 8 10 15 20) pause=(0 1 2 3 4 5 8 10) passes=(0 2 3 4 5 6 8 10 12 16 20) idle=(0 30 60 120 300 600)
    ends=(stop next)
    k=$SEGMANCE_CUT_K0
    while true; do
      echo "[cut] op settings $k"
      "$seg" library settings --library "$lib" "volume=$((k % 101))" "countdown=${countdown[k % 7]}" \
        "loopPause=${pause[k % 8]}" "loopPasses=${passes[k % 11]}" "lightIdle=${idle[k % 6]}" \
        "countdownBeforeRepeat=$((k % 2))" "autoImport=$((k / 2 % 2))" "atPartEnd=${ends[k / 4 % 2]}" \
        > /dev/null && echo "[cut] ack settings $k"
      echo "[cut] op resume $k"
      "$seg" library resume --library "$lib" --routine "$first" --part 1 --frame "$k" > /dev/null \
        && echo "[cut] ack resume $k"
      k=$((k + 1))
    done ;;
  daemon)
    # Presses as fingers make them, on the daemon's own lines (board/sim-vm.toml: PLAY 0,
    # PREV 1, NEXT 2, the encoder 5 and 6); its saves are judged by its log lines.
    step() { echo "[cut] step $*"; }
    pull() { echo "$2" > "/sys/bus/gpio/devices/$SEGMANCE_BOX_GPIO_CHIP/sim_gpio$1/pull"; }
    tap() { pull "$1" pull-down; sleep 0.08; pull "$1" pull-up; }
    detent() {   # one EC11 detent: A leads B clockwise
      local a=5 b=6
      [ "$1" = cw ] || { a=6; b=5; }
      pull $a pull-down; sleep 0.01; pull $b pull-down; sleep 0.01
      pull $a pull-up; sleep 0.01; pull $b pull-up
    }
    alive() { kill -0 "$daemon" 2> /dev/null || { echo "[cut] the daemon exited"; wait "$daemon"; exit 1; }; }
    . "$BOX_DIR/guest/hardware.sh"
    box_gpio_sim && box_i2c_stub && box_sound || exit 1
    first=${titles%% *}
    "$seg" library show "$first" --library "$lib" > /dev/null 2>&1 || import a
    mkdir -p /run/cut/media
    cat > /run/cut/segmance.toml <<CONFIG
board = "$(cd "$BOX_DIR/../.." && pwd)/board/sim-vm.toml"
library = "$lib"
media_root = "/run/cut/media"
stick_status = "/run/cut/stick-status"
auto_import = false
realtime_priority = 70
CONFIG
    # Its log on the console as it writes it (tee: the lines are also read here for "ready"),
    # without the priority prefixes, as journald shows it.
    "$seg" run --config /run/cut/segmance.toml 2>&1 | sed -u 's/^<[0-7]>//' | tee /run/cut/daemon.log &
    sleep 0.1
    daemon=$(pgrep -x segmance | head -1)
    box_wait 60 "the daemon's ready line" grep -q "^ready: " /run/cut/daemon.log || exit 1
    echo "[cut] armed"
    turn=cw
    while true; do
      alive; step play; tap 0; sleep 0.4
      alive; step next; tap 2; sleep 0.4
      alive; step volume; pull 0 pull-down; sleep 0.1; detent $turn; sleep 0.05; pull 0 pull-up; sleep 0.4
      alive; step prev; tap 1; sleep 1.2
      if [ $turn = cw ]; then turn=ccw; else turn=cw; fi
    done ;;
  *) echo "power-cut: no workload $workload" >&2; exit 2 ;;
esac
