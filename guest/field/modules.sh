#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load and unload the modules of configs/distro-modules (listed in order in
# /lib/modules/field.list), ROUNDS times.  zram is used between: a swap
# device in compressed RAM, filled and emptied.  Usage: modules.sh ROUNDS
set -eu
rounds=${1:-3}
list=/lib/modules/field.list
[ -s "$list" ] || { echo "modules: no $list"; exit 1; }
# A failed round unloads what it loaded.
trap 'set +e; swapoff /dev/zram0 2>/dev/null; for m in $(sed "1!G;h;\$!d" "$list"); do rmmod "$m" 2>/dev/null; done' EXIT
r=1
while [ $r -le "$rounds" ]; do
	for m in $(cat "$list"); do
		insmod "/lib/modules/$m.ko"
	done
	if [ -e /sys/block/zram0 ]; then
		echo 64M > /sys/block/zram0/disksize
		mkswap /dev/zram0 > /dev/null
		swapon /dev/zram0
		swapoff /dev/zram0
		echo 1 > /sys/block/zram0/reset
	fi
	for m in $(sed '1!G;h;$!d' "$list"); do
		rmmod "$m"
	done
	r=$((r + 1))
done
[ ! -s /proc/modules ] || { echo "modules: left loaded:"; cat /proc/modules; exit 1; }
echo "modules: $(wc -l < "$list") modules loaded and unloaded $rounds times"
