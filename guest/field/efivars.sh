#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# UEFI runtime services: list and read the firmware's variables through
# efivarfs (GetNextVariableName and GetVariable).
set -eu
[ -d /sys/firmware/efi ] || { echo "efivars: not booted through UEFI"; exit 1; }
mount -t efivarfs efivarfs /sys/firmware/efi/efivars
n=0
for v in /sys/firmware/efi/efivars/*; do
	[ -f "$v" ] || continue
	cat "$v" > /dev/null
	n=$((n + 1))
done
umount /sys/firmware/efi/efivars
[ $n -gt 0 ] || { echo "efivars: no variable"; exit 1; }
echo "efivars: $n variables read"
