#!/bin/bash
# Build our qemu-system-aarch64: QEMU 9.0.1 with qemu/patches/ applied
# (FEAT_TCR2 and FEAT_S1POE for -cpu max; issue 15).  See qemu/README.md.
#
# The result is cached outside the clone, under
#   ${SEED_QEMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/seed-qemu}/KEY/
# where KEY hashes the source tarball, the patches and the build recipe, so a
# second run with the same inputs costs nothing.  The path of the binary
# is printed on stdout (progress goes to stderr).
#
# Usage: qemu.sh [--print | --source | --prepare DIR]
#   --print    print the cached binary's path, or fail if it is not built
#   --source   print the source tarball's path, or fail if there is none
#   --prepare  unpack the tarball into DIR (empty or new), apply
#              qemu/patches and print the source tree's path: what a
#              build starts from (make check runs it on a tarball laid
#              out like the release)
# Environment: QEMU_SRC  the QEMU 9.0.1 source tarball: QEMU's release,
#                        qemu-9.0.1.tar.xz from https://download.qemu.org/,
#                        or a repack of it without roms/ (the default,
#                        ../shared/qemu/qemu-9.0.1.tar.xz beside the clone)
#              QEMU_KEEP_BUILD=1  keep the build tree (for patch work)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

QPATCHES=$ROOT/qemu/patches
QEMU_SRC=${QEMU_SRC:-$ROOT/../shared/qemu/qemu-9.0.1.tar.xz}
# The tarballs known to work: QEMU's own release and the repack.
RELEASE_SHA256=d0f4db0fbd151c0cf16f84aeb2a500f6e95009732546f44dafab8d2049bbb805
REPACK_SHA256=89699824bd3c850418c1e0e5ab591eebf28bc39474207832fd5dd346cb9fc07c
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

# Unpack $QEMU_SRC into the new directory $1, apply qemu/patches and make
# the tree build offline; prints the source tree's path.  Both tarballs
# unpack to one qemu-9.0.1/ directory; the release's roms/ and
# subprojects/ are not used.
prepare() {
	local work=$1 src p log=$1/prepare.log
	tar -xf "$QEMU_SRC" -C "$work" || die "cannot unpack $QEMU_SRC"
	src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'qemu-*')
	[ -n "$src" ] && [ "$(echo "$src" | wc -l)" = 1 ] ||
		die "$QEMU_SRC does not unpack to one qemu-* directory"
	[ -f "$src/VERSION" ] && [ "$(cat "$src/VERSION")" = 9.0.1 ] ||
		die "$QEMU_SRC is not QEMU 9.0.1 (its VERSION: $(cat "$src/VERSION" 2>/dev/null))"
	for p in $(qemu_patches); do
		patch -d "$src" -p1 --quiet --forward <"$QPATCHES/$p" >>"$log" 2>&1 ||
			die "qemu/patches/$p does not apply to $QEMU_SRC; see $log"
	done
	# tests/fp needs the berkeley-softfloat-3 subproject, which only the
	# release has; we build no tests.
	sed -i "s/^  subdir('fp')$/  # subdir('fp')/" "$src/tests/meson.build"
	grep -q "^  # subdir('fp')$" "$src/tests/meson.build" ||
		die "tests/meson.build of $QEMU_SRC has no subdir('fp') line to skip"
	echo "$src"
}

if [ ! -f "$QEMU_SRC" ]; then
	[ "${1:-}" = --source ] && { echo "no QEMU 9.0.1 source ($QEMU_SRC)"; exit 1; }
	die "QEMU source $QEMU_SRC not found: set QEMU_SRC to qemu-9.0.1.tar.xz from https://download.qemu.org/ (qemu/README.md)"
fi
if [ "${1:-}" = --source ]; then
	echo "$QEMU_SRC"
	exit 0
fi
if [ "${1:-}" = --prepare ]; then
	[ -n "${2:-}" ] || die "usage: $0 --prepare DIR"
	mkdir -p "$2"
	[ -z "$(ls -A "$2")" ] || die "--prepare: $2 is not empty"
	prepare "$2"
	exit 0
fi

# The key: what the binary is made from, and nothing else (comments and
# messages of this script do not count): the tarball's hash, the series
# and its patches, the tree preparation and the configure line.
src_sha=$(sha256sum <"$QEMU_SRC" | cut -d' ' -f1)
key=$({
	echo "$src_sha"
	cat "$QPATCHES/series"
	qemu_patches | while read -r p; do cat "$QPATCHES/$p"; done
	declare -f prepare
	echo "${CONFIGURE_ARGS[*]}"
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
case $src_sha in
$RELEASE_SHA256) what="QEMU's 9.0.1 release tarball" ;;
$REPACK_SHA256) what="the 9.0.1 repack without roms/" ;;
*) what="an unknown tarball (sha256 $src_sha)"
	info "warning: $QEMU_SRC is neither QEMU's 9.0.1 release nor the repack qemu/README.md names" ;;
esac
info "building QEMU 9.0.1 + $(qemu_patches | wc -l) patch(es) of qemu/patches from $what in $work (log: $log)"
start=$(date +%s)

src=$(prepare "$work")

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
