#!/bin/bash
# Build the guest programs for one architecture and pack them, with the
# manifest entries for that architecture, into an initramfs.
#
# Usage: guest.sh ARCH KOUT    (KOUT: the kernel build dir, for its headers)
# Env GUEST_LABEL: the kernel's label (scripts/run-arch.sh), for its manifest
# Output: KOUT/guest/ (programs) and KOUT/initramfs.cpio
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: $0 ARCH KOUT [SRCDIR]"
arch=$1 kout=$(realpath "$2") src=$(realpath "${3:-$KSRC}")
arch_vars "$arch"
[ -d "$kout/hdr/include" ] || die "no kernel headers in $kout/hdr: build the kernel first"

root=$kout/guest/root
log=$kout/guest/build.log
mkdir -p "$root/etc" "$root/tests" "$root/bin"
upstream=$(upstream_selftests)
if ! make -C "$ROOT/guest" ARCH="$arch" KSRC="$src" \
	HDR="$kout/hdr" OUT="$root" UPSTREAM="$upstream" -j"$(nproc)" > "$log" 2>&1; then
	grep -E 'error|Error' "$log" | head -20 >&2
	die "guest programs failed to build for $arch; log: ${log#"$ROOT"/}"
fi

# The kernel's own test_vmalloc.ko, where it has modules (test kernels:
# configs/debug.config): kpkeys_pgtables loads and unloads it.
rm -rf "$root/lib/modules"
if [ -f "$kout/lib/test_vmalloc.ko" ]; then
	mkdir -p "$root/lib/modules"
	"${CROSS}strip" --strip-debug -o "$root/lib/modules/test_vmalloc.ko" \
		"$kout/lib/test_vmalloc.ko"
fi
# guest/modules/sv_churn.c, for the cache-churn step (guest/field/
# cache_churn.sh): an external module of this kernel, built in $kout.
if grep -q '^CONFIG_MODULES=y' "$kout/.config" &&
	grep -q '^CONFIG_SLAB_VIRTUAL=y' "$kout/.config"; then
	mdir=$kout/guest/sv_churn
	rm -rf "$mdir"
	mkdir -p "$mdir" "$root/lib/modules"
	cp "$ROOT/guest/modules/sv_churn.c" "$mdir/"
	echo 'obj-m := sv_churn.o' > "$mdir/Kbuild"
	make -C "$src" O="$kout" ARCH="$KARCH" CROSS_COMPILE="$CROSS" \
		M="$mdir" modules >> "$log" 2>&1 ||
		die "guest/modules/sv_churn.c failed to build for $arch; log: ${log#"$ROOT"/}"
	"${CROSS}strip" --strip-debug -o "$root/lib/modules/sv_churn.ko" \
		"$mdir/sv_churn.ko"
fi

# The field steps (guest/field) run under busybox.
[ ! -d "$root/field" ] || field_guest "$arch" "$root"

# The manifest of the kernel's label (env GUEST_LABEL, e.g. x86_64-kasan),
# which may leave out lines of its architecture (=LABEL in guest/manifest).
"$ROOT/scripts/manifest.sh" init "${GUEST_LABEL:-$arch}" | guest_etc "$root"
pack_initramfs "$root" "$kout/initramfs.cpio"
