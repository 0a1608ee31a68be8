#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Last step: the memory the workload used came back.  After dropping the
# caches and waiting for SLAB_VIRTUAL to give back retained slots,
# MemAvailable must be within LIMIT_MIB of what setup.sh saw, and no slab
# page may still be waiting for a TLB flush.
set -eu
limit_mib=${1:-48}
sync
echo 3 > /proc/sys/vm/drop_caches
sleep 4
echo 3 > /proc/sys/vm/drop_caches
before=$(awk '/^MemAvailable:/ { print $2 }' /run/field/meminfo)
after=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
echo "memory: MemAvailable $before kB after setup, $after kB now"
grep -E '^(Slab|SUnreclaim):' /proc/meminfo
if [ -s /run/field/slab_virtual ]; then
	echo "memory: slab_virtual after setup / now:"
	cat /sys/kernel/debug/slab_virtual > /run/field/slab_virtual.end
	paste /run/field/slab_virtual /run/field/slab_virtual.end | sed 's/^/    /'
	pending=$(awk '$1 == "pending_pages" { print $2 }' /run/field/slab_virtual.end)
	[ "${pending:-0}" = 0 ] || { echo "memory: $pending slab pages still pending"; exit 1; }
fi
[ $((before - after)) -le $((limit_mib * 1024)) ] ||
	{ echo "memory: $(((before - after) / 1024)) MiB did not come back (limit $limit_mib)"; exit 1; }
echo "memory: came back (within $limit_mib MiB)"
