#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Take CPU 1 offline and back, ROUNDS times, while processes fork and
# map memory on the other CPU.  Usage: cpu_hotplug.sh ROUNDS
set -eu
rounds=${1:-5}
cpu=/sys/devices/system/cpu/cpu1/online
[ -w "$cpu" ] || { echo "cpu_hotplug: $cpu not writable"; exit 1; }
( while :; do sh -c 'x=$(seq 1000 | wc -l)' ; done ) &
load=$!
r=1
while [ $r -le "$rounds" ]; do
	echo 0 > "$cpu"
	sleep 1
	echo 1 > "$cpu"
	sleep 1
	r=$((r + 1))
done
kill $load
wait $load 2>/dev/null || true
[ "$(cat "$cpu")" = 1 ] || { echo "cpu_hotplug: CPU 1 stayed offline"; exit 1; }
echo "cpu_hotplug: CPU 1 offline and online $rounds times"
