# shellcheck shell=bash
# Common helpers for the harness scripts.  Sourced, never run.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
KSRC=$BUILD/linux
PATCHES=${PATCHES:-$ROOT/patches}
BASE_PKG=linux-source-6.1
BASE_TARBALL=${BASE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}

info() { printf '==> %s\n' "$*" >&2; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# Files listed in patches/series, in order, without comments or blanks.
series_patches() {
	[ -f "$PATCHES/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$PATCHES/series" | grep -v '^$' || true
}

# A hash of everything the series consists of: the series file and the
# patches it lists.  Used to notice that patches/ changed under build/linux.
series_hash() {
	{
		cat "$PATCHES/series" 2>/dev/null || true
		series_patches | while read -r p; do cat "$PATCHES/$p"; done
	} | sha256sum | cut -d' ' -f1
}

base_version() {
	dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null || echo unknown
}

# The architectures of scripts/arches, one a line.
ARCH_TABLE=$ROOT/scripts/arches
arches() { awk '!/^#/ && NF { print $1 }' "$ARCH_TABLE"; }

# Set the names scripts/arches gives one architecture: KARCH, SRCARCH,
# IMAGE, QEMU, MACHINE, CONSOLE, CROSS, HOST_UNAME and PKGS.  Env
# QEMU_<ARCH> (QEMU_ARM64, QEMU_X86_64) names another QEMU binary for that
# architecture: scripts/test.sh points QEMU_ARM64 at our own (qemu/).
arch_vars() {
	local line override
	line=$(awk -v a="$1" '!/^#/ && $1 == a' "$ARCH_TABLE")
	[ -n "$line" ] || die "unknown ARCH '$1' (use one of: $(arches | paste -sd' '))"
	read -r _ KARCH SRCARCH IMAGE QEMU MACHINE CONSOLE CROSS HOST_UNAME PKGS <<<"$line"
	[ "$CROSS" = - ] && CROSS=
	override=QEMU_${1^^}
	[ -z "${!override:-}" ] || QEMU=${!override}
	return 0
}

# Run git in the kernel tree with a configuration that does not depend on
# the user's ~/.gitconfig for anything that changes exported bytes.
kgit() {
	git -C "$KSRC" -c core.abbrev=12 -c diff.noprefix=false \
		-c diff.mnemonicPrefix=false -c diff.renames=true \
		-c format.signOff=false -c format.numbered=auto \
		-c format.coverLetter=false -c core.quotePath=true "$@"
}

# Pack directory $1 into the newc cpio archive $2 (owner root, sorted).
#
# The archive depends only on the files' contents and names: every mtime is
# set to one fixed time and inode numbers are renumbered.  Benchmarks need
# that: under -icount a guest run is a function of its initramfs bytes, and
# fresh mtimes alone (a rebuilt binary, rewritten /etc files) moved 15 of
# 48 fastest and 40 of 48 median figures of make bench between two runs.
pack_initramfs() {
	find "$1" -exec touch -h -d @1700000000 {} +
	( cd "$1" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --owner=0:0 --reproducible --quiet ) > "$2"
}

# Build the benchmark programs (guest/bench/manifest) into ROOTDIR/bench
# for ARCH, against the patched bench kernel's UAPI headers; the build log
# goes to LOG.
build_bench_programs() { # ROOTDIR ARCH LOG
	mkdir -p "$1"
	make -C "$ROOT/guest" bench ARCH="$2" KSRC="$KSRC" \
		HDR="$BUILD/bench/$2-patched/hdr" OUT="$1" > "$3" 2>&1 ||
		die "benchmark programs failed to build; see ${3#"$ROOT"/}"
}

# /etc of a guest root: the users tests look up, and the manifest that
# init runs, read from stdin (scripts/manifest.sh init ARCH ...).
guest_etc() { # ROOTDIR
	mkdir -p "$1/etc"
	echo 'root:x:0:0:root:/tmp:/bin/sh' > "$1/etc/passwd"
	echo 'root:x:0:' > "$1/etc/group"
	cat > "$1/etc/manifest"
}

# Upstream Linux's own mseal() selftest, from Debian's linux-source-6.12
# (unchanged, never committed here): extracted once into build/upstream/.
# Prints the selftests directory that holds mm/mseal_test.c.
UPSTREAM_PKG=linux-source-6.12
UPSTREAM_TARBALL=/usr/src/linux-source-6.12.tar.xz
upstream_selftests() {
	local dir=$BUILD/upstream/linux-source-6.12/tools/testing/selftests
	if [ ! -f "$dir/mm/mseal_test.c" ]; then
		[ -f "$UPSTREAM_TARBALL" ] || die "$UPSTREAM_TARBALL missing: run 'make deps'"
		mkdir -p "$BUILD/upstream"
		tar -xJf "$UPSTREAM_TARBALL" -C "$BUILD/upstream" \
			linux-source-6.12/tools/testing/selftests/kselftest.h \
			linux-source-6.12/tools/testing/selftests/mm/mseal_test.c \
			linux-source-6.12/tools/testing/selftests/mm/mseal_helpers.h ||
			die "cannot extract upstream's mseal_test from $UPSTREAM_TARBALL"
	fi
	echo "$dir"
}
