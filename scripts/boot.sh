#!/bin/bash
# Boot one kernel with its initramfs under QEMU (TCG), save the whole
# console under build/logs/, and stop the guest at a wall-clock limit.
# The log's path is on stderr before the boot starts, and
# build/logs/ARCH-latest.log (and ARCH-NAME-latest.log) point at it while
# it runs; the guest's results (top-level "ok"/"not ok" lines, nested "not
# ok" ones, "# running NAME") go to stderr as they arrive.
#
# Usage: boot.sh ARCH KOUT [--icount | --kvm] [--timeout SECONDS]
#                [--name TAG] [--append "ARGS"] [--initrd FILE]
#                [--gdb PORT]   (start stopped, gdb stub on 127.0.0.1:PORT)
#                [--field]      (UEFI, an ext4 and a swap disk, a network:
#                                field_devices in lib.sh)
# Prints the log path on stdout; exits with QEMU's status (124: killed at
# the time limit).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: $0 ARCH KOUT [options]"
arch=$1 kout=$(realpath "$2")
shift 2
icount=0 kvm=0 field=0 gdb=() limit=${BOOT_TIMEOUT:-1500} tag=test append= initrd=$kout/initramfs.cpio
while [ $# -gt 0 ]; do
	case $1 in
	--icount) icount=1 ;;
	--timeout) limit=$2; shift ;;
	--name) tag=$2; shift ;;
	--append) append=$2; shift ;;
	--initrd) initrd=$(realpath "$2"); shift ;;
	--kvm) kvm=1 ;;
	--gdb) gdb=(-S -gdb "tcp:127.0.0.1:$2"); shift ;;
	--field) field=1 ;;
	*) die "unknown option $1" ;;
	esac
	shift
done
arch_vars "$arch"

mem=${QEMU_MEM:-3G}
smp=${QEMU_SMP:-2}
# Env QEMU_CPU: another -cpu than max (make test boots arm64 once as a
# cortex-a57, a CPU without FEAT_S1POE).
machine=(-M "$MACHINE" -cpu "${QEMU_CPU:-max}")
accel=(-accel tcg)
# -seed: RDRAND and other guest randomness from a fixed seed, so that a
# boot under -icount repeats instruction for instruction;
# -rtc clock=vm: the RTC follows the guest clock, not the host's.
[ $icount = 1 ] && accel=(-accel tcg -icount shift=0,sleep=off -seed 1
	-rtc base=2026-01-01T00:00:00,clock=vm)
[ $kvm = 1 ] && accel=(-accel kvm) machine[3]=host

# Env QEMU_EXTRA: more QEMU options, split at blanks (make insn-profile's
# -plugin).
read -r -a extra <<< "${QEMU_EXTRA:-}"

mkdir -p "$BUILD/logs"
log=$BUILD/logs/$arch-$tag-$(date +%Y%m%d-%H%M%S).log
cmdline="console=$CONSOLE panic=-1 rdinit=/init secretmem.enable=1 $append"
{
	echo "# qemu: $QEMU ${machine[*]} ${accel[*]} -smp $smp -m $mem${extra[*]:+ ${extra[*]}}$([ $field = 0 ] || echo ' (field devices)')"
	echo "# qemu version: $("$QEMU" --version | head -1)"
	echo "# kernel: ${kout#"$ROOT"/}/$IMAGE"
	echo "# cmdline: $cmdline"
} > "$log"
ln -sf "$(basename "$log")" "$BUILD/logs/$arch-$tag-latest.log"
ln -sf "$(basename "$log")" "$BUILD/logs/$arch-latest.log"
info "console: ${log#"$ROOT"/} (tail -f ${BUILD#"$ROOT"/}/logs/$arch-latest.log to follow it)"

# -nic none: no default NIC (our QEMU, qemu/, is built without the option
# ROMs one loads); a field boot adds its own network.
devices=(-nic none)
if [ $field = 1 ]; then
	field_devices "$arch" "$kout/field-$tag" 160 256
	devices+=("${FIELD_QEMU_ARGS[@]}")
	# arm64 test kernels have no ACPI: without ACPI tables from QEMU the
	# UEFI firmware hands the kernel QEMU's device tree (with them, the
	# EFI stub makes an empty one and the kernel finds no console).
	# make distro-check boots Debian's kernels through ACPI.
	[ "$arch" != arm64 ] || machine[1]=$MACHINE,acpi=off
fi
# The guest's results, as kunit.py shows them: lines of KTAP, unbuffered.
results() {
	grep --line-buffered -E '^(\[ *[0-9.]+\] )?((not )?ok [0-9]|# running )|^ +not ok [0-9]' |
		sed -u -e 's/\r$//' -e 's/^/    /'
}
timeout -k 10 "$limit" "$QEMU" "${machine[@]}" "${accel[@]}" -smp "$smp" -m "$mem" \
	-display none -monitor none -serial stdio -no-reboot "${devices[@]}" \
	-kernel "$kout/$IMAGE" -initrd "$initrd" "${gdb[@]}" "${extra[@]}" \
	-append "$cmdline" < /dev/null 2>&1 | tee -a "$log" | results >&2
status=${PIPESTATUS[0]}
echo "$log"
exit "$status"
