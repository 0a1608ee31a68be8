#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Large files on the ext4 disk (1 KiB blocks: journal buffers from slab):
# written, synced, evicted from the page cache, read back and compared.
set -eu
d=/mnt/disk/files
rm -rf "$d"
mkdir -p "$d"
for i in 1 2 3 4 5 6 7 8; do
	dd if=/dev/urandom of="$d/f$i" bs=1M count=8 2>/dev/null
done
(cd "$d" && sha256sum f*) > /run/field/files.sum
sync
echo 3 > /proc/sys/vm/drop_caches
(cd "$d" && sha256sum -c /run/field/files.sum) || { echo "files: checksum mismatch"; exit 1; }
# Rewrite in place, then again from the disk.
for i in 1 3 5 7; do
	dd if="$d/f$((i + 1))" of="$d/f$i" bs=64k conv=notrunc 2>/dev/null
done
sync
echo 3 > /proc/sys/vm/drop_caches
for i in 1 3 5 7; do
	cmp "$d/f$i" "$d/f$((i + 1))" || { echo "files: f$i differs after rewrite"; exit 1; }
done
rm -rf "$d"
sync
echo "files: 64 MiB written, evicted and verified"
