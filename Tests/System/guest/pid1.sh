#!/bin/bash
# PID 1 of the guest after switch_root. boxrun copies it into the run folder (/share).
# Runs /share/cmd.sh, leaves its exit status in /share/rc, powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
cd /
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
# What udev and systemd would have made: process substitution needs /dev/fd.
ln -sfn /proc/self/fd /dev/fd
ln -sfn /proc/self/fd/0 /dev/stdin; ln -sfn /proc/self/fd/1 /dev/stdout; ln -sfn /proc/self/fd/2 /dev/stderr
modprobe configfs && mount -t configfs configfs /sys/kernel/config
echo "[box] userspace up at $(cut -d' ' -f1 /proc/uptime) s (kernel $(uname -r))"
bash /share/cmd.sh < /dev/null
rc=$?
echo "$rc" > /share/rc
sync
echo "[box] command exited $rc at $(cut -d' ' -f1 /proc/uptime) s"
exec /bin/busybox poweroff -f
