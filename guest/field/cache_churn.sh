#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The cache-churn loop of issue 30: load and unload /lib/modules/sv_churn.ko
# (guest/modules/sv_churn.c: a cache of its own, MIB MiB of objects
# allocated and freed at load, the cache destroyed at unload) ROUNDS
# times, as a machine that loads and unloads a module again and again.
# MemAvailable, read settled (caches dropped, then each second until two
# reads agree within 0.1%) before the first round and after the last,
# must not fall by more than 1%.  Under SLAB_VIRTUAL the region must not
# carve more than the first round needed (debugfs carved_bytes, with at
# most MIB MiB of slack for other caches), and nothing may stay pending.
# Usage: cache_churn.sh ROUNDS MIB
set -eu
rounds=${1:-40} mib=${2:-64}
mod=/lib/modules/sv_churn.ko
sv=/sys/kernel/debug/slab_virtual
[ -f "$mod" ] || { echo "cache_churn: no $mod"; exit 1; }
trap 'rmmod sv_churn 2>/dev/null || true' EXIT

avail() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }
settled() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	a=$(avail) i=0
	while [ $i -lt 30 ]; do
		sleep 1
		b=$(avail)
		d=$((a > b ? a - b : b - a))
		[ $((d * 1000)) -le "$a" ] && break
		a=$b i=$((i + 1))
	done
	echo "$b"
}
svget() { [ -r "$sv" ] && awk -v k="$1" '$1 == k { print $2 }' "$sv" || echo 0; }

# One round first: the cache's slots exist from then on.
insmod "$mod" mib="$mib"
rmmod sv_churn
before=$(settled) carved0=$(svget carved_bytes) adopted0=$(svget adopted_slots)
r=1
while [ $r -le "$rounds" ]; do
	insmod "$mod" mib="$mib"
	rmmod sv_churn
	r=$((r + 1))
done
after=$(settled) carved1=$(svget carved_bytes) adopted1=$(svget adopted_slots)
pending=$(svget pending_pages)
carved=$(((carved1 - carved0) >> 20))
echo "cache_churn: $rounds rounds of $mib MiB: MemAvailable $before -> $after kB;" \
	"carved +$carved MiB, adopted slots +$((adopted1 - adopted0))"
[ "${pending:-0}" = 0 ] || { echo "cache_churn: $pending slab pages still pending"; exit 1; }
[ "$carved" -le "$mib" ] ||
	{ echo "cache_churn: the region carved $carved MiB for a cache it had slots for"; exit 1; }
[ $(((before - after) * 100)) -le "$before" ] ||
	{ echo "cache_churn: $((before - after)) kB of MemAvailable lost (limit 1%)"; exit 1; }
echo "cache_churn: came back"
