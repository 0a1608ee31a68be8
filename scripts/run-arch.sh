#!/bin/bash
# Configure, build, boot and judge the test kernel for one architecture.
#
# Usage: run-arch.sh ARCH [RESULTS_FILE]
# Prints a summary; appends one line per result to RESULTS_FILE when given.
# Env RUN_VARIANT=NAME builds a control kernel of ARCH instead: the test
# kernel with configs/control-ARCH-NAME.config on top, in build/ARCH-NAME,
# running ARCH's manifest (and the lines for ARCH-NAME); its results are
# named ARCH-NAME.  With RUN_BOOT_ONLY=1 as well, nothing is built: ARCH's
# test kernel and initramfs, as the last run left them, boot again under
# the name ARCH-NAME (scripts/test.sh: arm64 on a CPU without POE), with
# the manifest lines of ARCH-NAME and env RUN_APPEND added to its command
# line (x86_64 with pti=on).
# A step that fails (configure, build, initramfs, boot, verdict) is named,
# with the log to read, on stderr and as "FAIL ARCH:step:NAME" result.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64} results=${2:-}
arch_vars "$arch"
variant=${RUN_VARIANT:-}
label=$arch${variant:+-$variant}
out=$BUILD/$label
extra=
boot_only=${RUN_BOOT_ONLY:-0}
if [ "$boot_only" = 1 ]; then
	[ -n "$variant" ] || die "RUN_BOOT_ONLY=1 needs RUN_VARIANT=NAME"
	out=$BUILD/$arch
	if [ ! -f "$out/$IMAGE" ] || [ ! -f "$out/initramfs.cpio" ]; then
		die "RUN_BOOT_ONLY: no kernel and initramfs in ${out#"$ROOT"/}: run $arch first"
	fi
elif [ -n "$variant" ]; then
	extra=$ROOT/configs/control-$label.config
	[ -f "$extra" ] || die "RUN_VARIANT=$variant: no configs/control-$label.config"
else
	# The main kernel boots like a field machine (configs/field.config).
	extra=$ROOT/configs/field.config
	[ ! -f "$ROOT/configs/field-$arch.config" ] || extra="$extra $ROOT/configs/field-$arch.config"
fi
start=$(date +%s)

step_failed() { # STEP LOG
	echo "$label: the $1 step failed; read ${2#"$ROOT"/}" >&2
	[ -z "$results" ] || echo "FAIL $label:step:$1 failed; log: ${2#"$ROOT"/}" >> "$results"
	exit 1
}
if [ "$boot_only" != 1 ]; then
	CONFIG_EXTRA="$extra ${CONFIG_EXTRA:-}" "$ROOT/scripts/configure.sh" "$arch" test patched "$out" ||
		step_failed configure "$out/configure.log (and the messages above)"
	"$ROOT/scripts/build.sh" "$arch" "$out" || step_failed build "$out/build.log"
	GUEST_LABEL=$label "$ROOT/scripts/guest.sh" "$arch" "$out" || step_failed initramfs "$out/guest/build.log"
fi
expected=$BUILD/$label/expected
mkdir -p "$BUILD/$label"
"$ROOT/scripts/manifest.sh" expect "$label" > "$expected" ||
	step_failed initramfs "guest/manifest (the message above)"
initrd=()
if [ "$boot_only" = 1 ]; then
	# ARCH's initramfs with the label's own /etc/manifest appended: the
	# kernel unpacks both archives in order, and the later file wins.
	etc=$BUILD/$label/etc-root
	rm -rf "$etc"
	"$ROOT/scripts/manifest.sh" init "$label" | guest_etc "$etc" ||
		step_failed initramfs "guest/manifest (the message above)"
	pack_initramfs "$etc" "$BUILD/$label/etc.cpio"
	cat "$out/initramfs.cpio" "$BUILD/$label/etc.cpio" > "$BUILD/$label/initramfs.cpio"
	initrd=(--initrd "$BUILD/$label/initramfs.cpio")
fi

limit=${BOOT_TIMEOUT:-1500}
info "booting $label under QEMU (TCG, $QEMU -cpu ${QEMU_CPU:-max}), limit $limit s"
set +e
# A kernel built for it boots with UEFI, disks and a network.
field=
grep -q '^CONFIG_VIRTIO_BLK=y' "$out/.config" && field=--field
append=()
[ -z "${RUN_APPEND:-}" ] || append=(--append "$RUN_APPEND")
log=$("$ROOT/scripts/boot.sh" "$arch" "$out" --timeout "$limit" ${variant:+--name "$variant"} $field "${append[@]}" "${initrd[@]}")
qs=$?
set -e
# QEMU exits 0 when the guest stops, even after a panic (-no-reboot), and
# 124 when killed at the limit (the verdict says so); anything else is
# QEMU's own error (timeout(1): 126/127 when QEMU cannot run).
case $qs in
0 | 124) ;;
*) step_failed boot "${log:-the messages above} (QEMU exit status $qs)" ;;
esac

npatches=$(git -C "$KSRC" rev-list --count base..HEAD)
release=$(cat "$out/include/config/kernel.release" 2>/dev/null || echo '?')
echo
echo "$label: Linux $release = Debian $BASE_PKG $(base_version) + $npatches patch(es) of patches/series" \
	"[HEAD $(git -C "$KSRC" log -1 --format='%h %s' | cut -c1-60)]"
echo "  console: ${log#"$ROOT"/}  (boot took $(( $(date +%s) - start )) s with build)"
set +e
python3 "$ROOT/scripts/verdict.py" --arch "$label" --expect "$expected" \
	--qemu-status "$qs" --timeout "$limit" ${results:+--results "$results"} "$log"
vs=$?
set -e
[ $vs -le 1 ] || step_failed verdict "the traceback above and $log"
exit $vs
