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

# Reproducible: the same tree gives the same image on every machine and in
# every build.  The banner's timestamp is the author date of the tree's
# HEAD (the last patch's Date:, which a rebase keeps, or the base
# commit's fixed date), its user and host are fixed, and its "#N" does not
# count builds.  The built-in initramfs takes its mtimes from the same
# timestamp (usr/gen_initramfs.sh).
ts=$(TZ=UTC git -C "$src" log -1 --format=%ad --date='format-local:%a %b %e %H:%M:%S UTC %Y') ||
	die "$src is not a git tree: no build timestamp (run 'make tree')"
export KBUILD_BUILD_TIMESTAMP=$ts KBUILD_BUILD_USER=harness KBUILD_BUILD_HOST=harness \
	KBUILD_BUILD_VERSION=1
# usr/gen_initramfs.sh reads the timestamp from the environment, so Kbuild
# does not see it change: regenerate the built-in initramfs when it does,
# or an older build directory keeps a cpio with other mtimes.
mkdir -p "$out"
if [ "$(cat "$out/.build-timestamp" 2>/dev/null)" != "$ts" ]; then
	rm -f "$out/usr/initramfs_data.cpio"
	echo "$ts" > "$out/.build-timestamp"
fi
# __FILE__ (WARN(), BUG tables) is relative to the source tree: the kernel
# maps $srctree/ away (-fmacro-prefix-map), but ccache's CCACHE_BASEDIR
# hands the compiler paths relative to the build directory, which that
# mapping misses, so map those as well.
kcppflags=-fmacro-prefix-map=$(realpath --relative-to="$out" "$src")/=
cc=${CROSS}gcc hostcc=gcc
if command -v ccache >/dev/null; then
	cc="ccache $cc" hostcc="ccache gcc"
	# Paths relative to build/: cache hits across clones in other places.
	export CCACHE_BASEDIR=$BUILD CCACHE_SLOPPINESS=time_macros,include_file_mtime
fi
log=$out/build.log
info "building $arch kernel in ${out#"$ROOT"/} (log: ${log#"$ROOT"/})"

# While make runs: how many files it compiled and for how long, from the
# second 10 on (a build with nothing to do stays silent), on one line that
# rewrites itself on a terminal, and once a minute otherwise.
progress() {
	local t n shown=0
	trap '[ $shown = 1 ] && [ -t 2 ] && echo >&2; exit 0' TERM
	for ((t = 1; ; t++)); do
		sleep 1
		[ $t -ge 10 ] || continue
		[ -t 2 ] || [ $((t % 60)) = 0 ] || continue
		n=$(grep -cE '^  (CC|AS) ' "$log" || true)
		if [ -t 2 ]; then
			printf '\r    %s: %d files compiled, %dm%02ds ' "$arch" "$n" $((t / 60)) $((t % 60)) >&2
		else
			printf '    %s: %d files compiled, %dm%02ds\n' "$arch" "$n" $((t / 60)) $((t % 60)) >&2
		fi
		shown=1
	done
}
: > "$log"
progress &
progress_pid=$!
trap 'kill "$progress_pid" 2>/dev/null || true' EXIT
status=0
# Modules only where the configuration has them (the bench kernels' test_vmalloc).
modules=
grep -q '^CONFIG_MODULES=y' "$out/.config" && modules=modules
# Without the caller's MAKEFLAGS: under `make -s` Kbuild would print no
# "CC" lines, and the log and the progress line would stay empty.
MAKEFLAGS='' make -C "$src" O="$out" ARCH="$KARCH" CROSS_COMPILE="$CROSS" \
	CC="$cc" HOSTCC="$hostcc" KCPPFLAGS="$kcppflags" -j"$(nproc)" \
	"$(basename "$IMAGE")" $modules headers_install INSTALL_HDR_PATH="$out/hdr" \
	> "$log" 2>&1 || status=$?
kill "$progress_pid"
wait "$progress_pid" || true
if [ $status != 0 ]; then
	grep -E 'error:|Error [0-9]|undefined reference' "$log" | head -30 >&2 || true
	die "$arch kernel build failed; full log: ${log#"$ROOT"/}"
fi
# Warnings are errors for our series: show any the build printed.
if grep -q 'warning:' "$log"; then
	grep 'warning:' "$log" | sort -u | head -20 >&2
	warn "the $arch build printed warnings (see ${log#"$ROOT"/})"
fi
