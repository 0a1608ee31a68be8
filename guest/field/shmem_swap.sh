#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# More shmem than there is memory for, so that it goes to the swap disk,
# then read back and checked.  Usage: shmem_swap.sh [MIB [LIMIT_MIB]]
# Without LIMIT_MIB, MIB (default: RAM + 128 MiB) in a guest's RAM; with
# it, in a memory cgroup limited to LIMIT_MIB.
set -eu
ram=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
mib=${1:-$((ram + 128))}
limit=${2:-}
if [ -n "$limit" ]; then
	mkdir -p /sys/fs/cgroup
	grep -q ' /sys/fs/cgroup ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control
	mkdir -p /sys/fs/cgroup/field
	echo $((limit << 20)) > /sys/fs/cgroup/field/memory.max
	echo $$ > /sys/fs/cgroup/field/cgroup.procs
fi
mkdir -p /mnt/shm
mount -t tmpfs -o size=$((mib + 64))m tmpfs /mnt/shm
# Whatever happens, the memory goes back (memory.sh checks it does).
cleanup() {
	umount /mnt/shm 2>/dev/null || true
	rm -f /run/field/chunk
	if [ -n "$limit" ]; then
		echo $$ > /sys/fs/cgroup/cgroup.procs
		rmdir /sys/fs/cgroup/field
	fi
}
trap cleanup EXIT
dd if=/dev/urandom of=/run/field/chunk bs=1M count=1 2>/dev/null
want=$(sha256sum < /run/field/chunk)
i=0
while [ $i -lt "$mib" ]; do
	cat /run/field/chunk > /mnt/shm/c$i
	i=$((i + 1))
done
used=$(awk '/^SwapTotal:/ { t = $2 } /^SwapFree:/ { f = $2 } END { print t - f }' /proc/meminfo)
echo "shmem_swap: $mib MiB in tmpfs, $((used / 1024)) MiB swapped out"
want_kb=$((mib > 128 ? 65536 : mib * 256))
[ "$used" -ge "$want_kb" ] || { echo "shmem_swap: less than $((want_kb / 1024)) MiB went to swap"; exit 1; }
i=0
while [ $i -lt "$mib" ]; do
	got=$(sha256sum < /mnt/shm/c$i)
	[ "$got" = "$want" ] || { echo "shmem_swap: c$i differs"; exit 1; }
	i=$((i + 1))
done
echo "shmem_swap: verified"
