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

# Debian's name of an architecture of scripts/arches.
distro_debarch() {
	case $1 in
	x86_64) echo amd64 ;;
	arm64) echo arm64 ;;
	*) die "no Debian architecture for '$1'" ;;
	esac
}

# Debian packages of another architecture, from Debian's archive, unpacked
# (never installed) into the cache; prints the directory.  apt's list of
# architectures is put back as it was.
DISTRO_CACHE=${SEED_DISTRO_CACHE:-$HOME/.cache/seed-distro}
distro_unpack() { # DEBARCH PACKAGE...
	local debarch=$1 dir added=0 p
	shift
	dir=$DISTRO_CACHE/$debarch
	mkdir -p "$dir/debs"
	for p in "$@"; do
		[ -f "$dir/debs/$p.ok" ] && continue
		if [ "$debarch" != "$(dpkg --print-architecture)" ] &&
			! dpkg --print-foreign-architectures | grep -qx "$debarch"; then
			dpkg --add-architecture "$debarch"
			added=1
			apt-get update -q >/dev/null 2>&1 || true
		fi
		# An Architecture: all package has no :DEBARCH name.
		( cd "$dir/debs" && rm -f "${p}"_*.deb &&
			{ apt-get download -q "$p:$debarch" >/dev/null 2>&1 ||
			  { apt-get download -q "$p" >/dev/null 2>&1 &&
			    { [ "$(dpkg-deb -f "${p}"_*.deb Architecture)" = all ] ||
			      { rm -f "${p}"_*.deb; false; }; }; }; } ) ||
			{ [ $added = 0 ] || { dpkg --remove-architecture "$debarch"; apt-get update -q >/dev/null 2>&1; }
			  die "apt-get download $p:$debarch failed"; }
		dpkg -x "$dir/debs/${p}"_*.deb "$dir/root"
		touch "$dir/debs/$p.ok"
	done
	if [ $added = 1 ]; then
		dpkg --remove-architecture "$debarch"
		apt-get update -q >/dev/null 2>&1 || true
	fi
	echo "$dir/root"
}

# Packages PKG... for DEBARCH and, round by round, the packages they
# depend on (Depends and Pre-Depends, first alternatives, names matching
# the extended regex FILTER, never their -common and -data packages):
# downloaded once (distro_unpack's cache), then unpacked afresh into DEST,
# so that DEST holds exactly this closure whatever the cache holds.
# DEST.packages lists each package and its version.
distro_closure() { # DEBARCH DEST FILTER PKG...
	local debarch=$1 dest=$2 filter=$3 dir all new deps p
	shift 3
	dir=$DISTRO_CACHE/$debarch
	all=" " new="$*"
	while [ -n "$new" ]; do
		# shellcheck disable=SC2086 # a list of package names
		distro_unpack "$debarch" $new > /dev/null || exit 1
		all="$all${new# } "
		deps=$(for p in $new; do
			dpkg-deb -f "$dir/debs/${p}"_*.deb Pre-Depends Depends | sed 's/^[A-Za-z-]*: //'
		done | tr ',' '\n' | sed -E 's/\|.*//; s/\(.*\)//; s/:any//; s/[[:space:]]//g' |
			grep -E -- "$filter" | grep -vE -- '-(common|data)$' | sort -u)
		new=
		for p in $deps; do
			[[ $all == *" $p "* ]] || new="$new $p"
		done
	done
	rm -rf "$dest"
	mkdir -p "$dest"
	for p in $all; do
		dpkg -x "$dir/debs/${p}"_*.deb "$dest"
		dpkg-deb -f "$dir/debs/${p}"_*.deb Package Version | paste -sd' '
	done | sed 's/^Package: //; s/ Version: / /' | sort > "$dest.packages"
}

# Debian's stress-ng for a benchmark guest of ARCH (make bench's stress-ng
# boots, guest/bench/stressng_bench.c): the closure of the stress-ng
# package over library packages (distro_closure), from which
# scripts/stressng-guest.py copies the binary, its DT_NEEDED closure and
# the loader into GUESTROOT; GUESTROOT/stressng/VERSION gets stress-ng's
# version and GUESTROOT/stressng/PACKAGES every package's.
stressng_guest() { # ARCH GUESTROOT
	local debarch unpacked
	debarch=$(distro_debarch "$1")
	unpacked=$DISTRO_CACHE/$debarch/closure-stressng
	distro_closure "$debarch" "$unpacked" '^(lib|zlib)' stress-ng
	python3 "$ROOT/scripts/stressng-guest.py" "$unpacked" "$2" >/dev/null
	awk '$1 == "stress-ng" { print $2 }' "$unpacked.packages" > "$2/stressng/VERSION"
	cp "$unpacked.packages" "$2/stressng/PACKAGES"
}

# Debian's C compiler for a benchmark guest of ARCH (make bench's kbuild
# boots, guest/bench/kbuild_bench.c): the closure of gcc-12 and libc6-dev
# over every package (distro_closure), copied into GUESTROOT as Debian
# lays it out, without documentation, static libraries, sanitizer
# runtimes or the LTO tools (the guest only compiles, -c).
# GUESTROOT/kbuild/src gets the C files it compiles: the base kernel's
# scripts/dtc; GUESTROOT/kbuild/VERSION gcc-12's version and
# GUESTROOT/kbuild/PACKAGES every package's.
kbuild_guest() { # ARCH GUESTROOT
	local debarch unpacked
	debarch=$(distro_debarch "$1")
	unpacked=$DISTRO_CACHE/$debarch/closure-kbuild
	distro_closure "$debarch" "$unpacked" '^[a-z0-9]' gcc-12 libc6-dev
	mkdir -p "$2"
	tar -C "$unpacked" --exclude=./usr/share/doc --exclude=./usr/share/man \
		--exclude=./usr/share/info --exclude=./usr/share/locale \
		--exclude=./usr/share/lintian --exclude='*.a' --exclude='lib*san.so*' \
		--exclude='libgprofng.so*' --exclude='*lto-dump*' --exclude=lto1 \
		-cf - . | tar -C "$2" -xf -
	mkdir -p "$2/kbuild/src"
	git -C "$KSRC" archive base scripts/dtc | tar -C "$2/kbuild/src" -xf -
	awk '$1 == "gcc-12" { print $2 }' "$unpacked.packages" > "$2/kbuild/VERSION"
	cp "$unpacked.packages" "$2/kbuild/PACKAGES"
}

# Debian's kernel configurations for ARCH, uncompressed; prints their directory.
distro_fetch() {
	local root debarch
	debarch=$(distro_debarch "$1")
	root=$(distro_unpack "$debarch" linux-config-6.1 busybox-static) || exit 1
	for f in "$root"/usr/src/linux-config-6.1/config.*.xz; do
		[ -f "${f%.xz}" ] || xz -dk "$f"
	done
	echo "$root/usr/src/linux-config-6.1"
}

# The devices of a field boot (make distro-check, and the test kernels with
# configs/field.config): UEFI firmware from Debian (its variables in a copy
# the guest may write), a fresh ext4 disk with 1 KiB blocks (its journal's
# buffers then come from slab) and a swap disk, and a network restricted to
# QEMU's user networking with one peer at 10.0.2.100:80 that QEMU runs per
# connection (scripts/netpeer.py): nothing listens on the host.  Sets the
# array FIELD_QEMU_ARGS.
field_devices() { # ARCH DIR DISK_MIB SWAP_MIB
	local code vars
	case $1 in
	x86_64) code=/usr/share/OVMF/OVMF_CODE_4M.fd vars=/usr/share/OVMF/OVMF_VARS_4M.fd ;;
	arm64) code=/usr/share/AAVMF/AAVMF_CODE.fd vars=/usr/share/AAVMF/AAVMF_VARS.fd ;;
	*) die "no UEFI firmware for $1" ;;
	esac
	[ -f "$code" ] || die "$code missing: run 'make deps'"
	mkdir -p "$2"
	cp "$vars" "$2/vars.fd"
	rm -f "$2/disk.img" "$2/swap.img"
	truncate -s "${3}M" "$2/disk.img"
	mkfs.ext4 -q -F -b 1024 -L field "$2/disk.img"
	truncate -s "${4}M" "$2/swap.img"
	mkswap -q "$2/swap.img" > /dev/null
	FIELD_QEMU_ARGS=(
		-drive "if=pflash,format=raw,readonly=on,file=$code"
		-drive "if=pflash,format=raw,file=$2/vars.fd"
		-drive "file=$2/disk.img,format=raw,if=none,id=disk"
		-device virtio-blk-pci,drive=disk
		-drive "file=$2/swap.img,format=raw,if=none,id=swap"
		-device virtio-blk-pci,drive=swap
		-netdev "user,id=net,restrict=on,guestfwd=tcp:10.0.2.100:80-cmd:python3 $ROOT/scripts/netpeer.py"
		-device virtio-net-pci,netdev=net,romfile=
	)
}

# Busybox and the field workload's programs (guest/field) into ROOTDIR,
# for a guest whose manifest runs them.
field_guest() { # ARCH ROOTDIR
	local bb
	bb=$(distro_unpack "$(distro_debarch "$1")" busybox-static)/bin/busybox
	mkdir -p "$2/bin"
	install -m 755 "$bb" "$2/bin/busybox"
	ln -sf busybox "$2/bin/sh"
}

# bisect-check and topic-check record every build and boot in
# bisect/RESULTS.md, keyed by what decides the kernel: the architecture,
# the source tree (git's tree id of the commit) and the .config.  A pair
# that passed once is not built again unless CHECK_FORCE is set: the rows
# let a check of 41 patches per architecture span several sessions.
CHECK_RESULTS=$ROOT/bisect/RESULTS.md

# Print the date of a passing row for ARCH, TREE and CONFIG, if any.
check_recorded() { # ARCH TREE CONFIG
	[ -z "${CHECK_FORCE:-}" ] && [ -f "$CHECK_RESULTS" ] || return 1
	awk -F' *[|] *' -v a="$1" -v t="$2" -v c="$3" '
		$3 == a && $5 == t && $6 == c && $7 == "pass" { d = $2 }
		END { if (d == "") exit 1; print d }' "$CHECK_RESULTS"
}

# Append one row.  WHAT is "patch N/M" or "topic ID"; RESULT is pass or a
# failure in words.
check_record() { # ARCH WHAT TREE CONFIG RESULT SUBJECT
	local res=$5
	[ "$res" = pass ] || res="**FAIL** ($res)"
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
		"$1" "$2" "$3" "$4" "$res" "${6//|/\\|}" >> "$CHECK_RESULTS"
}

# The key of a kernel configured in OUTDIR from the commit at WORKTREE.
check_key() { # WORKTREE OUTDIR
	printf '%s %s\n' "$(git -C "$1" rev-parse --short=12 'HEAD^{tree}')" \
		"$(sha256sum "$2/.config" | cut -c1-12)"
}

# Configure, build and boot the tree checked out at WT in OUT as
# bisect-check and topic-check do, unless bisect/RESULTS.md has a pass for
# its key; record the result and print one line about LABEL.  Returns 1 on
# a failure.
check_kernel() { # ARCH OUT WT SUITES NAME WHAT SUBJECT LABEL
	local arch=$1 out=$2 wt=$3 suites=$4 name=$5 what=$6 subject=$7 label=$8
	local tree config when
	if ! "$ROOT/scripts/configure.sh" "$arch" test bisect "$out" "$wt" >/dev/null 2>&1; then
		echo "FAIL config $label (log: ${out#"$ROOT"/}/configure.log)"
		check_record "$arch" "$what" "$(git -C "$wt" rev-parse --short=12 'HEAD^{tree}')" - \
			configuration "$subject"
		return 1
	fi
	read -r tree config < <(check_key "$wt" "$out")
	if when=$(check_recorded "$arch" "$tree" "$config"); then
		echo "PASS ($when) $label"
		return 0
	fi
	if ! "$ROOT/scripts/build.sh" "$arch" "$out" "$wt" >/dev/null 2>&1; then
		echo "FAIL build  $label (log: ${out#"$ROOT"/}/build.log)"
		check_record "$arch" "$what" "$tree" "$config" build "$subject"
		return 1
	fi
	if boot_kunit_only "$arch" "$out" "$wt" "$suites" "$name"; then
		echo "PASS boot   $label: $(grep -c . "$out/expected" || true) KUnit suite(s)"
		check_record "$arch" "$what" "$tree" "$config" pass "$subject"
	else
		echo "FAIL boot   $label (console: ${BOOT_LOG#"$ROOT"/})"
		check_record "$arch" "$what" "$tree" "$config" boot "$subject"
		return 1
	fi
}

# bisect-check and topic-check: a scratch worktree $2 of build/linux (made
# at base if missing), and an initramfs with init only in
# $3/initramfs.cpio: the boot must reach it and stop cleanly.
kunit_only_setup() {
	local arch=$1 wt=$2 out=$3 root=$3/guest-root
	if [ ! -e "$wt/.git" ]; then
		rm -rf "$wt"
		git -C "$KSRC" worktree prune
		git -C "$KSRC" worktree add -q --detach "$wt" base
	fi
	mkdir -p "$root/etc"
	make -s -C "$ROOT/guest" ARCH="$arch" KSRC="$KSRC" \
		HDR="$BUILD/$arch/hdr" OUT="$root" "$root/init"
	: > "$root/etc/manifest"
	pack_initramfs "$root" "$out/initramfs.cpio"
}

# Boot the kernel built in $2 from the tree $3 with the initramfs of
# kunit_only_setup, under the name $5, and judge it: every KUnit suite of
# $4 (the manifest's) that the tree defines and builds must pass, and the
# console must be clean.  The console log's path is left in BOOT_LOG.
boot_kunit_only() {
	local arch=$1 out=$2 wt=$3 suites=$4 name=$5 s f opt qs
	# A suite's source may be there before the option that builds it (an
	# arm64 commit before the one that lets arm64 select it has the
	# source of an x86-only suite): the option of the suite's object in
	# its directory's Makefile must be on.
	for s in $suites; do
		f=$(git -C "$wt" grep -l -F ".name = \"$s\"" -- '*.c' | head -1) || true
		[ -n "$f" ] || continue
		opt=$(grep -o -E "obj-\\$\(CONFIG_[A-Z0-9_]+\)[[:space:]]*\+=.*\b$(basename "$f" .c)\.o" \
			"$wt/$(dirname "$f")/Makefile" 2>/dev/null | head -1 | sed -E 's/^obj-\$\((CONFIG_[A-Z0-9_]+)\).*/\1/') || true
		if [ -z "$opt" ] || grep -q "^$opt=y" "$out/.config"; then
			echo "kunit $s"
		fi
	done > "$out/expected"
	set +e
	BOOT_LOG=$("$ROOT/scripts/boot.sh" "$arch" "$out" --name "$name" --timeout 600)
	qs=$?
	set -e
	python3 "$ROOT/scripts/verdict.py" --arch "$arch" --expect "$out/expected" \
		--qemu-status $qs "$BOOT_LOG" >/dev/null
}
