#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Many small files (inodes, dentries, journal): created in 30 directories,
# evicted, checked, removed.  Usage: small_files.sh COUNT
set -eu
n=${1:-3000}
d=/mnt/disk/small
trap 'rm -rf "$d"' EXIT
rm -rf "$d"
i=0
while [ $i -lt "$n" ]; do
	sub=$d/$((i % 30))
	[ -d "$sub" ] || mkdir -p "$sub"
	# Sizes 1 to 3000 bytes: inline data, one block, three blocks.
	head -c $((i % 3000 + 1)) /dev/urandom > "$sub/$i"
	i=$((i + 1))
done
sum1=$(find "$d" -type f | sort | xargs cat | sha256sum)
sync
echo 3 > /proc/sys/vm/drop_caches
count=$(find "$d" -type f | wc -l)
[ "$count" = "$n" ] || { echo "small_files: $count files, want $n"; exit 1; }
sum2=$(find "$d" -type f | sort | xargs cat | sha256sum)
[ "$sum1" = "$sum2" ] || { echo "small_files: contents changed"; exit 1; }
rm -rf "$d"
sync
echo "small_files: $n created, evicted, verified and removed"
