#!/bin/bash
# Build one kernel out of tree, and install its UAPI headers for the guest
# programs.  Uses ccache when it is installed.
#
# Usage: build.sh ARCH OUTDIR [SRCDIR]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: $0 ARCH OUTDIR [SRCDIR]"
arch=$1 out=$(realpath "$2") src=${3:-$KSRC}
arch_vars "$arch"

cc=${CROSS}gcc hostcc=gcc
if command -v ccache >/dev/null; then
	cc="ccache $cc" hostcc="ccache gcc"
	# Builds of the base and the patched tree share object files.
	export CCACHE_BASEDIR=$BUILD CCACHE_SLOPPINESS=time_macros,include_file_mtime
fi
log=$out/build.log
info "building $arch kernel in ${out#"$ROOT"/} (log: ${log#"$ROOT"/})"
if ! make -C "$src" O="$out" ARCH="$KARCH" CROSS_COMPILE="$CROSS" \
	CC="$cc" HOSTCC="$hostcc" -j"$(nproc)" \
	"$(basename "$IMAGE")" headers_install INSTALL_HDR_PATH="$out/hdr" \
	> "$log" 2>&1; then
	grep -E 'error:|Error [0-9]|undefined reference' "$log" | head -30 >&2 || true
	die "$arch kernel build failed; full log: ${log#"$ROOT"/}"
fi
# Warnings are errors for our series: show any the build printed.
if grep -q 'warning:' "$log"; then
	grep 'warning:' "$log" | sort -u | head -20 >&2
	warn "the $arch build printed warnings (see ${log#"$ROOT"/})"
fi
