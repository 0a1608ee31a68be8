#!/bin/bash
# The field check: the series in Debian's own kernel configuration
# (scripts/distro-config.sh), booted through UEFI under QEMU with an ext4
# disk, a swap disk and a network, running guest/field/manifest: real I/O,
# modules, CPU hotplug, UEFI variables, the project's selftests, and a
# check that the memory the workload used came back.  The run fails on any
# failed step and on any oops, BUG, WARNING or lockdep report
# (scripts/verdict.py).  Each run is recorded in distro/RESULTS.md.
#
# Usage: distro-check.sh ARCH [FLAVOUR]
#   FLAVOUR: none (default) or rt, Debian's PREEMPT_RT configuration
# Env: DISTRO_QEMU=debian|poe   arm64: Debian's QEMU (no POE) or ours
#                               (qemu/, POE enforced); default: both
#      DISTRO_MEM (768M), DISTRO_TIMEOUT (seconds of wall clock, 3600)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || die "usage: $0 ARCH [none|rt]"
arch=$1 flavour=${2:-none}
arch_vars "$arch"
name=distro-$arch
[ "$flavour" = none ] || name=distro-$arch-$flavour
out=$BUILD/$name
field=$out/field
start=$(date +%s)

"$ROOT/scripts/distro-config.sh" "$arch" "$flavour" "$out"
"$ROOT/scripts/build.sh" "$arch" "$out"

# The guest: guest/init.c, busybox, the project's test programs, the field
# workload and the modules of configs/distro-modules.
info "packing the field initramfs"
root=$field/root
rm -rf "$root"
mkdir -p "$root/bin" "$root/lib/modules" "$field"
log=$field/guest-build.log
if ! make -C "$ROOT/guest" ARCH="$arch" KSRC="$KSRC" HDR="$out/hdr" OUT="$root" \
	UPSTREAM="$(upstream_selftests)" -j"$(nproc)" all field > "$log" 2>&1; then
	grep -E 'error|Error' "$log" | head -20 >&2
	die "guest programs failed to build; log: ${log#"$ROOT"/}"
fi
field_guest "$arch" "$root"
awk '!/^#/ && NF { print $2 }' "$ROOT/configs/distro-modules" > "$root/lib/modules/field.list"
while read -r m; do
	ko=$(find "$out" -name "$m.ko" -print -quit)
	[ -n "$ko" ] || die "module $m.ko was not built (configs/distro-modules)"
	"${CROSS}strip" --strip-debug -o "$root/lib/modules/$m.ko" "$ko"
done < "$root/lib/modules/field.list"
"$ROOT/scripts/manifest.sh" init "$arch" "$ROOT/guest/field/manifest" | guest_etc "$root"
pack_initramfs "$root" "$field/initramfs.cpio"
"$ROOT/scripts/manifest.sh" expect "$arch" "$ROOT/guest/field/manifest" > "$field/expect"

case $arch in
x86_64) machine=(-M q35 -cpu max) ;;
arm64) machine=(-M virt -cpu max) ;;
esac

# Debian's rt configurations turn the UEFI runtime services off by default
# (EFI_DISABLE_RUNTIME=y); efi=runtime turns them on, so that the efivars
# step calls them there too, with the page tables protected.
cmdline="console=$CONSOLE panic=-1 rdinit=/init secretmem.enable=1"
[ "$flavour" = rt ] && cmdline="$cmdline efi=runtime"

boot() { # LABEL QEMU
	local label=$1 qemu=$2 blog status=0 t0 verdict=0
	field_devices "$arch" "$field" 384 512
	mkdir -p "$BUILD/logs"
	blog=$BUILD/logs/$label-$(date +%Y%m%d-%H%M%S).log
	ln -sf "$(basename "$blog")" "$BUILD/logs/$label-latest.log"
	info "booting $label on $("$qemu" --version | head -1) (console: ${blog#"$ROOT"/})"
	t0=$(date +%s)
	timeout -k 10 "${DISTRO_TIMEOUT:-3600}" "$qemu" "${machine[@]}" -accel tcg \
		-smp 2 -m "${DISTRO_MEM:-768M}" \
		"${FIELD_QEMU_ARGS[@]}" \
		-kernel "$out/$IMAGE" -initrd "$field/initramfs.cpio" \
		-append "$cmdline" \
		-display none -monitor none -serial stdio -no-reboot < /dev/null > "$blog" 2>&1 ||
		status=$?
	python3 "$ROOT/scripts/verdict.py" --arch "$label" --expect "$field/expect" \
		--qemu-status "$status" --timeout "${DISTRO_TIMEOUT:-3600}" \
		--results "$field/results.txt" "$blog" || verdict=$?
	record "$label" "$qemu" "$verdict" $(($(date +%s) - t0))
	return $verdict
}

# One line per boot in distro/RESULTS.md.
record() { # LABEL QEMU VERDICT SECONDS
	local tree dirty= res=pass
	tree=$(git -C "$ROOT" rev-parse --short=12 HEAD:patches)
	# The kernel is built from build/linux: the row names patches/ only
	# if that is what build/linux holds, and patches/ is committed.
	if [ -n "$(git -C "$ROOT" status --porcelain -- patches)" ]; then
		dirty=" (uncommitted changes)"
	elif ! "$ROOT/scripts/check-exported.sh" > /dev/null 2>&1; then
		dirty=" (build/linux differs)"
	fi
	[ "$3" = 0 ] || res="**FAIL**"
	printf '| %s | %s%s | %s | %s | %s | %s | %d s |\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
		"$tree" "$dirty" "$1" "config.$(distro_debarch "$arch")_${flavour}_$(distro_debarch "$arch")" \
		"$("$2" --version | head -1 | sed 's/QEMU emulator version //')" "$res" "$4" \
		>> "$ROOT/distro/RESULTS.md"
}

rc=0
: > "$field/results.txt"
if [ "$arch" = arm64 ]; then
	which=${DISTRO_QEMU:-debian poe}
	for q in $which; do
		case $q in
		debian) boot "$name-nopoe" "$QEMU" || rc=1 ;;
		poe)
			poeq=$("$ROOT/scripts/qemu.sh" --print 2>/dev/null) ||
				poeq=$("$ROOT/scripts/qemu.sh") || die "our QEMU (make qemu) failed to build"
			boot "$name-poe" "$poeq" || rc=1
			;;
		*) die "DISTRO_QEMU: debian or poe, not '$q'" ;;
		esac
	done
else
	boot "$name" "$QEMU" || rc=1
fi
info "$name: $(grep -c '^PASS' "$field/results.txt") passed, $(grep -c '^FAIL' "$field/results.txt") failed in $(($(date +%s) - start)) s"
exit $rc
