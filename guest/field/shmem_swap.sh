#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# More shmem than the guest has RAM, so that it goes to the swap disk, then
# read back and checked.  Usage: shmem_swap.sh MIB
set -eu
mib=${1:-600}
mkdir -p /mnt/shm
mount -t tmpfs -o size=$((mib + 64))m tmpfs /mnt/shm
dd if=/dev/urandom of=/run/field/chunk bs=1M count=1 2>/dev/null
want=$(sha256sum < /run/field/chunk)
i=0
while [ $i -lt "$mib" ]; do
	cat /run/field/chunk > /mnt/shm/c$i
	i=$((i + 1))
done
used=$(awk '/^SwapTotal:/ { t = $2 } /^SwapFree:/ { f = $2 } END { print t - f }' /proc/meminfo)
echo "shmem_swap: $mib MiB in tmpfs, $((used / 1024)) MiB swapped out"
[ "$used" -gt 65536 ] || { echo "shmem_swap: less than 64 MiB went to swap"; exit 1; }
i=0
while [ $i -lt "$mib" ]; do
	got=$(sha256sum < /mnt/shm/c$i)
	[ "$got" = "$want" ] || { echo "shmem_swap: c$i differs"; exit 1; }
	i=$((i + 1))
done
umount /mnt/shm
echo "shmem_swap: verified"
