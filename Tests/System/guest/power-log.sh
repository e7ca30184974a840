#!/bin/bash
# In the guest: the one recorded run of Tests/System/power-cut.sh. The library's disk
# (/dev/vda, ext4 made on the host) sits under the kernel's dm-log-writes target, which
# copies every write, flush and FUA to the log disk (/dev/vdb) in the order they completed;
# the host replays that log into crash states afterwards (Tests/System/power_log.py).
# Every line the host judges by is printed as "[cut] NAME TEXT" and a mark NAME goes into
# the log with it: before an operation starts ("op …"), after it was acknowledged ("ack …",
# an import's "Alpha: added", the daemon's "saved: …"). The daemon's own "saving: …" lines
# are marked as they are read, so their marks may come late.
# Phases, in order (the host checks that each acknowledged at least one save):
#   import    import stick a into the empty library (first imports)
#   settings  `segmance library settings` and `library resume`, k = 0 … 7
#   reimport  stick b over a (every routine replaced, the old media deleted)
#   remove    each routine removed, then stick a imported again
#   daemon    the resume point set to Alpha's 40 s part; the daemon (`segmance run`) on the
#             simulated panel: the volume (settings), PLAY for 33 s (the 30 s resume save), an
#             A-B loop marked and cleared with LOOP (loop saves), PLAY (pause: the place)
#   making    the same daemon, making on the box through its menu (docs/controls.md): PREV and
#             PLAY (the part from its start), Split here, Add move (Dance), an A-B loop, Name
#             loop (Intro), Name part (Chorus), each a save of the routine's parts; SIGTERM
set -u
seg=$SEGMANCE_CUT_BIN work=$SEGMANCE_CUT_WORK
lib=/mnt/cut/library
. "$BOX_DIR/guest/boxlib.sh"

n=0
# say TEXT: a mark in the write log, then the line naming it (the host joins them by name).
say() {
  n=$((n + 1))
  dmsetup message lw 0 mark "L$n" || { echo "power-log: mark L$n failed" >&2; exit 1; }
  echo "[cut] L$n $*"
}

modprobe virtio_blk 2> /dev/null
modprobe ext4 2> /dev/null
modprobe dm-log-writes || { echo "power-log: no dm-log-writes module"; exit 1; }
box_wait 20 "the disks /dev/vda and /dev/vdb" test -b /dev/vdb || exit 1
# udev is not running: dmsetup makes the node itself.
dmsetup create lw --verifyudev --table "0 $(blockdev --getsz /dev/vda) log-writes /dev/vda /dev/vdb" \
  || { echo "power-log: dmsetup create failed"; exit 1; }
mkdir -p /mnt/cut
mount -t ext4 /dev/mapper/lw /mnt/cut || { echo "power-log: mount failed"; exit 1; }
say "mounted"

titles=$(cat "$work/titles")
first=${titles%% *}

import() {   # import a|b: each routine's line marked as the import prints it (its commit came first)
  say "op import $1"
  while IFS= read -r line; do say "import $1: $line"; done < <("$seg" import "$work/stick-$1" --library "$lib" 2>&1)
}

saves() {   # saves K0 COUNT: the settings and the resume point, k = K0 …
  local k countdown=(0 3 5 8 10 15 20) pause=(0 1 2 3 4 5 8 10) passes=(0 2 3 4 5 6 8 10 12 16 20)
  local idle=(0 30 60 120 300 600) ends=(stop next)
  for ((k = $1; k < $1 + $2; k++)); do
    say "op settings $k"
    "$seg" library settings --library "$lib" "volume=$((k % 101))" "countdown=${countdown[k % 7]}" \
      "loopPause=${pause[k % 8]}" "loopPasses=${passes[k % 11]}" "lightIdle=${idle[k % 6]}" \
      "countdownBeforeRepeat=$((k % 2))" "autoImport=$((k / 2 % 2))" "atPartEnd=${ends[k / 4 % 2]}" \
      > /dev/null && say "ack settings $k"
    say "op resume $k"
    "$seg" library resume --library "$lib" --routine "$first" --part 1 --frame "$k" > /dev/null \
      && say "ack resume $k"
  done
}

remove_all() {
  for t in $titles; do
    say "op remove $t"
    "$seg" library remove "$t" --library "$lib" > /dev/null 2>&1 && say "ack removed $t"
  done
}

daemon() {   # the daemon's saves; its log lines marked by a reader of their own (names D1, D2, …)
  # Waits without starting a process (read on a FIFO nobody writes): an 80 ms tap must not
  # become a long press (0.6 s) while a loaded host starts a `sleep`.
  mkdir -p /run/cut && mkfifo /run/cut/never && exec 7<> /run/cut/never || exit 1
  wait_s() { read -r -t "$1" -u 7 || true; }
  pull() { echo "$2" > "/sys/bus/gpio/devices/$SEGMANCE_BOX_GPIO_CHIP/sim_gpio$1/pull"; }
  tap() { pull "$1" pull-down; wait_s 0.08; pull "$1" pull-up; }
  detent() {   # one EC11 detent clockwise: A leads B
    pull 5 pull-down; wait_s 0.01; pull 6 pull-down; wait_s 0.01; pull 5 pull-up; wait_s 0.01; pull 6 pull-up
  }
  heard() {   # heard REGEX: the daemon logged a control line matching it within 10 s
    box_wait 10 "the daemon's \"$1\"" grep -q "^control: $1" /run/cut/daemon.out || exit 1
  }
  lines() { grep -c "$1" /run/cut/daemon.out; }
  # once REGEX CMD…: CMD, then the daemon's next line matching REGEX (one more than before).
  once() {
    local re=$1 before
    shift
    before=$(lines "$re")
    "$@"
    box_wait 10 "the daemon's next \"$re\"" more "$re" "$before" || exit 1
  }
  more() { [ "$(lines "$1")" -gt "$2" ]; }   # more REGEX N: more than N lines match
  ccw() {   # one detent counter-clockwise: B leads A
    pull 6 pull-down; wait_s 0.01; pull 5 pull-down; wait_s 0.01; pull 6 pull-up; wait_s 0.01; pull 5 pull-up
  }
  push() { once "^control: press select" tap 4; }
  # entry BACK: the menu opened and its cursor on the entry BACK rows above its last; each
  # slow detent must count one (logged "turn -1"), the fast ones only push the cursor to the end.
  entry() {
    local i
    push
    for ((i = 0; i < 40; i++)); do detent; wait_s 0.01; done   # 33 rows: at least to the last
    for ((i = 0; i < $1; i++)); do wait_s 0.1; once "^control: turn -1 " ccw; done
  }
  # saved_parts EDIT N: the daemon's "saved: parts" line after N of them (the edit's save).
  saved_parts() { box_wait 10 "the daemon's \"saved: parts\" after $1" more "^saved: parts" "$2" || exit 1; }
  making() {   # each edit pushed through the menu while the part plays, each save awaited
    local n
    once "^control: press prev" tap 1        # PREV: the part from its start (paused)
    once "^control: press play" tap 0; sleep 2   # PLAY: it plays (no count-in)
    # BACK counts from the last entry, New class (Save to stick, Stop fade, Tap tempo, Class set before it).
    n=$(lines "^saved: parts"); entry 13; push; saved_parts split "$n"             # Split here
    n=$(lines "^saved: parts"); entry 7; push; push; saved_parts "a move" "$n"     # Add move, Dance
    once "^control: press loop" tap 3; sleep 1; once "^control: press loop" tap 3; sleep 1   # an A-B loop
    n=$(lines "^saved: parts"); entry 8; push; push; saved_parts "a named loop" "$n"   # Name loop, Intro
    n=$(lines "^saved: parts"); entry 11; push                                      # Name part: Intro…
    wait_s 0.1; once "^control: turn +1 " detent; wait_s 0.1; once "^control: turn +1 " detent
    push; saved_parts "a rename" "$n"                                                # …Chorus
    ! grep -q "^control: turn -[2-9]" /run/cut/daemon.out || { echo "power-log: a slow detent counted twice"; exit 1; }
  }
  . "$BOX_DIR/guest/hardware.sh"
  box_gpio_sim && box_i2c_stub && box_sound || exit 1
  mkdir -p /run/cut/media
  # Alpha's 40 s part, where the daemon starts.
  say "op resume $first 3 0"
  "$seg" library resume --library "$lib" --routine "$first" --part 3 --frame 0 > /dev/null \
    && say "ack resume $first 3 0"
  cat > /run/cut/segmance.toml <<CONFIG
board = "$(cd "$BOX_DIR/../.." && pwd)/board/sim-vm.toml"
library = "$lib"
media_root = "/run/cut/media"
stick_status = "/run/cut/stick-status"
auto_import = false
realtime_priority = 70
CONFIG
  say "op daemon"
  # The daemon's log through a reader that marks each save line; the pipe ends with the daemon.
  ( "$seg" run --config /run/cut/segmance.toml 2>&1 & echo $! > /run/cut/daemon.pid; wait $!
    echo "daemon exited $?" ) | { d=0; while IFS= read -r line; do
    line=${line#<[0-7]>}   # the priority prefix, stripped as journald does
    case $line in
      saving:*|saved:*|"not saved"*)
        d=$((d + 1))
        dmsetup message lw 0 mark "D$d"
        echo "[cut] D$d $line" ;;
      *) echo "daemon: $line" ;;
    esac
    echo "$line" >> /run/cut/daemon.out
  done; } &
  local reader=$!
  box_wait 60 "the daemon's ready line" grep -q "^ready: " /run/cut/daemon.out 2> /dev/null || exit 1
  pull 0 pull-down; wait_s 0.1; detent; wait_s 0.05; pull 0 pull-up   # PLAY held + a detent: the volume
  heard "turn .* holding play"
  sleep 2
  tap 0; heard "press play at part 3"       # PLAY: the resume point is saved after 30 s of play
  sleep 33
  tap 3; heard "press loop"; sleep 1.5      # LOOP: A
  tap 3; sleep 1.5                          # LOOP: B (the loop saved)
  tap 3; sleep 1                            # LOOP: cleared (saved)
  tap 0; sleep 2                            # PLAY: paused (the place saved)
  say "phase making"
  making
  kill -TERM "$(cat /run/cut/daemon.pid)"
  wait "$reader"
  grep -q "^daemon exited 0$" /run/cut/daemon.out || { echo "power-log: the daemon failed"; exit 1; }
}

# 8 series of saves: the last (k = 7) sets no count-in, so the daemon's PLAY starts at once.
series=8
say "phase import";   import a
say "phase settings"; saves 0 "$series"
say "phase reimport"; import b
say "phase remove";   remove_all; import a
say "phase daemon";   daemon
# ---- ADD A SAVE KIND HERE --------------------------------------------------------------
# A phase of its own (say "phase NAME", then the steps that make the saves: with the
# daemon, taps as above; its "saving: …"/"saved: …" lines are marked for you), and on the
# host a SaveKind in power_log.py's SAVE_KINDS (Tests/System/README.md, "Adding a save kind").
# -----------------------------------------------------------------------------------------
say "phase end"
sync
umount /mnt/cut || { echo "power-log: umount failed"; exit 1; }
# Removing the target writes what is left of the log and its entry count.
dmsetup remove lw || { echo "power-log: dmsetup remove failed"; exit 1; }
echo "[log] done"
