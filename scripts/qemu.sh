#!/bin/bash
# Build our qemu-system-aarch64: QEMU 9.0.1 with qemu/patches/ applied
# (FEAT_TCR2 and FEAT_S1POE for -cpu max; issue 15).  See qemu/README.md.
#
# The result is cached outside the clone, under
#   ${SEED_QEMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/seed-qemu}/KEY/
# where KEY hashes the source tarball, the patches and this script, so a
# second run with the same inputs costs nothing.  The path of the binary
# is printed on stdout (progress goes to stderr).
#
# Usage: qemu.sh [--print | --source]
#   --print   print the cached binary's path, or fail if it is not built
#   --source  print the source tarball's path, or fail if there is none
# Environment: QEMU_SRC  the QEMU 9.0.1 source tarball (default
#                        ../shared/qemu/qemu-9.0.1.tar.xz beside the clone)
#              QEMU_KEEP_BUILD=1  keep the build tree (for patch work)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

QPATCHES=$ROOT/qemu/patches
default_src=$ROOT/../shared/qemu/qemu-9.0.1.tar.xz
[ -f "$default_src" ] || default_src=/work/shared/qemu/qemu-9.0.1.tar.xz
QEMU_SRC=${QEMU_SRC:-$default_src}
CACHE=${SEED_QEMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/seed-qemu}

# The configure line of ../shared/qemu/README.md, with user networking
# (libslirp-dev) for make distro-check.
CONFIGURE_ARGS=(--target-list=aarch64-softmmu --disable-docs --disable-tools
	--disable-guest-agent --enable-slirp --disable-gtk --disable-sdl
	--disable-vnc --disable-opengl --disable-capstone --disable-werror
	--disable-install-blobs --disable-download)

qemu_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$QPATCHES/series" | grep -v '^$'
}

if [ ! -f "$QEMU_SRC" ]; then
	[ "${1:-}" = --source ] && { echo "no QEMU 9.0.1 source ($QEMU_SRC)"; exit 1; }
	die "QEMU source $QEMU_SRC not found: set QEMU_SRC=/path/to/qemu-9.0.1.tar.xz"
fi
if [ "${1:-}" = --source ]; then
	echo "$QEMU_SRC"
	exit 0
fi

# The key: the tarball's hash, the series and its patches, this script.
key=$({
	sha256sum <"$QEMU_SRC"
	cat "$QPATCHES/series"
	qemu_patches | while read -r p; do cat "$QPATCHES/$p"; done
	cat "$0"
} | sha256sum | cut -c1-16)
dir=$CACHE/$key
bin=$dir/qemu-system-aarch64

if [ "${1:-}" = --print ]; then
	[ -x "$bin" ] || die "our QEMU is not built: run 'make qemu'"
	echo "$bin"
	exit 0
fi

if [ -x "$bin" ]; then
	info "QEMU with qemu/patches: cached, $bin"
	echo "$bin"
	exit 0
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
[ -x "$bin" ] && { echo "$bin"; exit 0; }

mkdir -p "$dir"
work=$dir.build
rm -rf "$work"
mkdir -p "$work"
log=$work/build.log
info "building QEMU 9.0.1 + $(qemu_patches | wc -l) patch(es) of qemu/patches in $work (log: $log)"
start=$(date +%s)

tar -xJf "$QEMU_SRC" -C "$work"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'qemu-*' | head -n1)
[ -n "$src" ] || die "no qemu-* directory in $QEMU_SRC"
qemu_patches | while read -r p; do
	patch -d "$src" -p1 --quiet --forward <"$QPATCHES/$p" >>"$log" 2>&1 ||
		die "qemu/patches/$p does not apply to $QEMU_SRC; see $log"
done
# The tarball has no berkeley-softfloat-3 subproject, which tests/fp
# needs; we build no tests (../shared/qemu/README.md).
sed -i "s/^  subdir('fp')$/  # subdir('fp')/" "$src/tests/meson.build"

mkdir -p "$work/build"
(cd "$work/build" && nice -n 15 "$src/configure" "${CONFIGURE_ARGS[@]}") >>"$log" 2>&1 ||
	die "QEMU configure failed; see $log"
(cd "$work/build" && nice -n 15 ninja qemu-system-aarch64) >>"$log" 2>&1 ||
	die "QEMU build failed; see $log"

"$work/build/qemu-system-aarch64" --version >/dev/null ||
	die "the built qemu-system-aarch64 does not run; see $log"
cp "$work/build/qemu-system-aarch64" "$bin.tmp"
mv "$bin.tmp" "$bin"
end=$(date +%s)
echo "built in $((end - start)) s from $QEMU_SRC" >"$dir/BUILT"
if [ "${QEMU_KEEP_BUILD:-}" = 1 ]; then
	info "build tree kept in $work"
else
	cp "$log" "$dir/build.log"
	rm -rf "$work"
fi
info "QEMU with qemu/patches built in $((end - start)) s: $bin"
echo "$bin"
