#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Large files on the ext4 disk (1 KiB blocks: journal buffers from slab):
# written, synced, evicted from the page cache, read back and compared.
# Usage: files.sh [N]   N files of 8 MiB (default 8, at least 2)
set -eu
n=${1:-8}
d=/mnt/disk/files
trap 'rm -rf "$d"' EXIT
rm -rf "$d"
mkdir -p "$d"
i=1
while [ $i -le "$n" ]; do
	dd if=/dev/urandom of="$d/f$i" bs=1M count=8 2>/dev/null
	i=$((i + 1))
done
(cd "$d" && sha256sum f*) > /run/field/files.sum
sync
echo 3 > /proc/sys/vm/drop_caches
(cd "$d" && sha256sum -c /run/field/files.sum) || { echo "files: checksum mismatch"; exit 1; }
# Rewrite in place, then again from the disk.
i=1
while [ $((i + 1)) -le "$n" ]; do
	dd if="$d/f$((i + 1))" of="$d/f$i" bs=64k conv=notrunc 2>/dev/null
	i=$((i + 2))
done
sync
echo 3 > /proc/sys/vm/drop_caches
i=1
while [ $((i + 1)) -le "$n" ]; do
	cmp "$d/f$i" "$d/f$((i + 1))" || { echo "files: f$i differs after rewrite"; exit 1; }
	i=$((i + 2))
done
rm -rf "$d"
sync
echo "files: $((n * 8)) MiB written, evicted, rewritten and verified"
