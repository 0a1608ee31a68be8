#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# virtio-net both ways: ROUNDS times, MIB MiB from the peer
# (scripts/netpeer.py, behind QEMU's user networking) and the same data
# back to it in base64, each checked by sha256 on both sides.  Usage: network.sh ROUNDS MIB
set -eu
rounds=${1:-5} mib=${2:-32}
peer=http://10.0.2.100
trap 'rm -f /run/field/net.bin /run/field/net.b64' EXIT
r=1
while [ $r -le "$rounds" ]; do
	wget -q -O /run/field/net.bin "$peer/get/$mib/$r"
	want=$(wget -q -O - "$peer/sum/$mib/$r")
	got=$(sha256sum < /run/field/net.bin | cut -d' ' -f1)
	[ "$got" = "$want" ] || { echo "network: round $r received $got, want $want"; exit 1; }
	# busybox wget sends a POST body up to its first NUL byte: send the
	# data as base64 text.
	base64 /run/field/net.bin > /run/field/net.b64
	want=$(sha256sum < /run/field/net.b64 | cut -d' ' -f1)
	back=$(wget -q -O - --post-file=/run/field/net.b64 "$peer/put")
	[ "$back" = "$want" ] || { echo "network: round $r the peer got $back, want $want"; exit 1; }
	rm -f /run/field/net.bin /run/field/net.b64
	r=$((r + 1))
done
echo "network: $rounds x $mib MiB received and sent, checksums match"
