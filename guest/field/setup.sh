#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Field workload, first step: busybox's applets, the ext4 disk (vda), the
# swap disk (vdb), the network (QEMU user networking: the guest is
# 10.0.2.15, the peer 10.0.2.100), and the memory figures memory.sh
# compares with at the end.
set -eu
/bin/busybox --install -s /bin
mkdir -p /mnt/disk
mount -t ext4 /dev/vda /mnt/disk
swapon /dev/vdb
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
# Settle: boot-time slabs freed, SLAB_VIRTUAL's retained slots given back.
sync
echo 3 > /proc/sys/vm/drop_caches
sleep 4
mkdir -p /run/field
grep -E '^(MemAvailable|Slab|SUnreclaim):' /proc/meminfo > /run/field/meminfo
cat /sys/kernel/debug/slab_virtual > /run/field/slab_virtual 2>/dev/null || true
cat /run/field/meminfo
grep -E '^(Mem|Swap)Total:' /proc/meminfo
df -k /mnt/disk | tail -1
