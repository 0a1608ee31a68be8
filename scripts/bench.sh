#!/bin/bash
# make bench: build the unpatched base and the patched series with the same
# non-debug configuration, boot each under QEMU -icount with the same static
# benchmark programs, and print tables of what the series costs.
#
# Usage: bench.sh [ARCH]   (env ACCEL=kvm: real time on /dev/kvm instead,
#                          plus the kernel's reference cycles where the
#                          guest has a PMU that counts them; under -icount,
#                          mseal_bench's kernel instructions where the
#                          guest has an instruction counter: arm64)
# Output: build/bench/ARCH-*.log (consoles), build/bench/ARCH.csv and
# build/bench/ARCH.md (tables).
#
# A third boot, "patched-off", runs the patched kernel again with
# kpkeys=off (page tables not protected by kernel protection keys).  Env
# BENCH_OFF: "pgtable" (the default) runs only pgtable_bench in it, "all"
# the whole manifest (the report then adds a table of every other row
# against the base), 0 no third boot.  Env BENCH_OFF_APPEND: more words for
# that boot's command line.  On arm64 with stock QEMU, which has no POE,
# kpkeys=off changes nothing (the protection is inactive anyway), so there
# it defaults to slab_virtual=off: the column is then the series with both
# features off, which splits the page-table rows' cost between kpkeys'
# inactive code and SLAB_VIRTUAL's slab lookups (vmalloc allocates and
# frees slab objects).
#
# arm64 runs on Debian's QEMU, which has no POE: the patched kernel's
# page-table protection stays inactive there.  Env BENCH_QEMU=poe runs it
# on our QEMU (qemu/, FEAT_S1POE for -cpu max, once 'make qemu' has built
# it), where the protection is on, with the "patched-off" boot by default
# (BENCH_OFF=pgtable, without slab_virtual=off).  But QEMU 9.0.1 under
# -icount is slow: pgtable_bench on the base kernel had not finished its
# first row after 10 minutes, where Debian's 7.2 runs all of it in 25 s
# (without -icount, 9.0.1 took 22 s).
#
# A fourth boot, "patched-svoff", runs the patched kernel again with
# slab_virtual=off (slabs in the linear map, as in the base kernel), running
# slab_bench alone; the report adds its column to the slab tables.  Env
# BENCH_SLAB_OFF: 1, or 0 for no such boot; by default 1 where the patched
# kernel was built with CONFIG_SLAB_VIRTUAL=y, 0 elsewhere.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64}
arch_vars "$arch"
start=$(date +%s)
# Before building anything: KVM runs guests of the host's own architecture.
case ${ACCEL:-} in
"" | tcg) accel=tcg ;;
kvm)
	accel=kvm
	[ -w /dev/kvm ] || die "ACCEL=kvm needs a writable /dev/kvm"
	[ "$(uname -m)" = "$HOST_UNAME" ] ||
		die "ACCEL=kvm runs $arch guests only on $HOST_UNAME hosts (this one is $(uname -m))"
	;;
*) die "unknown ACCEL '$ACCEL' (kvm, or unset for TCG -icount)" ;;
esac
[ -d "$KSRC/.git" ] || die "no build/linux: run 'make bench', which makes the tree first"

bdir=$BUILD/bench
base_src=$BUILD/linux-base
mkdir -p "$bdir"
qemu_note=
case ${BENCH_QEMU:-} in
poe)
	[ "$arch" = arm64 ] || die "BENCH_QEMU=poe: only arm64 has our QEMU"
	QEMU=$("$ROOT/scripts/qemu.sh" --print)
	qemu_note=" (our build: $QEMU, QEMU 9.0.1 + qemu/patches, FEAT_S1POE)"
	export QEMU_ARM64=$QEMU
	;;
"" | stock) ;;
*) die "BENCH_QEMU must be poe or stock, not '$BENCH_QEMU'" ;;
esac
case ${BENCH_OFF:-} in
"") off=pgtable ;;
0 | pgtable | all) off=$BENCH_OFF ;;
*) die "BENCH_OFF must be pgtable, all or 0, not '$BENCH_OFF'" ;;
esac
off_append=${BENCH_OFF_APPEND-}
{ [ "$arch" = x86_64 ] || [ -n "$qemu_note" ]; } ||
	off_append=${BENCH_OFF_APPEND-slab_virtual=off}
case ${BENCH_SLAB_OFF:-} in
"") slab_off=auto ;; # decided by the patched kernel's .config, once built
0 | 1) slab_off=$BENCH_SLAB_OFF ;;
*) die "BENCH_SLAB_OFF must be 1 or 0, not '$BENCH_SLAB_OFF'" ;;
esac
# Never report an older run's third or fourth console next to this run's.
rm -f "$bdir/$arch-patched-off.log" "$bdir/$arch-patched-svoff.log"

# The unpatched base, checked out next to build/linux.
if [ ! -d "$base_src" ] || [ "$(git -C "$base_src" rev-parse HEAD 2>/dev/null)" != "$(git -C "$KSRC" rev-parse base)" ]; then
	info "checking out the unpatched base in build/linux-base"
	git -C "$KSRC" worktree remove --force "$base_src" 2>/dev/null || rm -rf "$base_src"
	git -C "$KSRC" worktree prune
	git -C "$KSRC" worktree add -q --detach "$base_src" base
fi

for kind in base patched; do
	src=$KSRC
	[ $kind = base ] && src=$base_src
	"$ROOT/scripts/configure.sh" "$arch" bench "$kind" "$bdir/$arch-$kind" "$src"
	"$ROOT/scripts/build.sh" "$arch" "$bdir/$arch-$kind" "$src"
done
# Each kernel's own test_vmalloc.ko (pgtable_bench's vmalloc rows), in an
# archive of its own that its boots append to the initramfs: the kernel
# unpacks concatenated archives in turn, so every kernel runs the same
# programs and loads a module built for it.
for kind in base patched; do
	mroot=$bdir/$arch-$kind/modroot
	rm -rf "$mroot"
	mkdir -p "$mroot/lib/modules"
	ko=$bdir/$arch-$kind/lib/test_vmalloc.ko
	[ -f "$ko" ] || die "no $ko: configs/bench.config must build test_vmalloc as a module"
	"${CROSS}strip" --strip-debug -o "$mroot/lib/modules/test_vmalloc.ko" "$ko"
	pack_initramfs "$mroot" "$bdir/$arch-$kind/modules.cpio"
done
if [ "$slab_off" = auto ]; then
	slab_off=0
	grep -q '^CONFIG_SLAB_VIRTUAL=y' "$bdir/$arch-patched/.config" && slab_off=1
fi

# One set of benchmark binaries for both kernels (the patched kernel's
# headers: they define __NR_mseal, which the programs also hard-code).
groot=$bdir/$arch-guest/root
build_bench_programs "$groot" "$arch" "$bdir/$arch-guest/build.log"
# Under KVM the programs also count the kernel's reference cycles
# (--cycles, BENCHCYC lines).  Under -icount mseal_bench counts the kernel
# instructions of each call it times (--insns, BENCHINS lines): exact on
# arm64, whose guest clock steps only every 16 instructions; x86 TCG has
# no PMU, and the program says so and times only.  The counter reads are
# outside the timed intervals either way.
# shellcheck disable=SC2016 # awk programs
if [ "$accel" = kvm ]; then
	options='$1 == "run" { $0 = $0 " --cycles" } 1'
else
	options='$1 == "run" && $4 == "/bench/mseal_bench" { $0 = $0 " --insns" } 1'
fi
"$ROOT/scripts/manifest.sh" init "$arch" "$ROOT/guest/bench/manifest" | awk "$options" |
	guest_etc "$groot"
pack_initramfs "$groot" "$bdir/$arch-guest/initramfs.cpio"
# An initramfs that runs one program of the manifest alone: the same files
# as the full one, but an /etc/manifest of that program's line.  Prints its
# path.
alone_initramfs() { # SUFFIX PROGRAM KNOB
	local dir=$bdir/$arch-guest/root-$1 manifest=$bdir/$arch-guest/manifest-$1
	rm -rf "$dir"
	cp -a "$groot" "$dir"
	"$ROOT/scripts/manifest.sh" init "$arch" "$ROOT/guest/bench/manifest" |
		awk -v p="$2" '$2 == p' | awk "$options" > "$manifest"
	[ -s "$manifest" ] || die "guest/bench/manifest runs no $2 on $arch: set $3=0"
	guest_etc "$dir" < "$manifest"
	pack_initramfs "$dir" "$bdir/$arch-guest/initramfs-$1.cpio"
	echo "$bdir/$arch-guest/initramfs-$1.cpio"
}
# The patched-off boot's initramfs (BENCH_OFF=pgtable): pgtable_bench
# alone.  Its rows are large operations (a fork copies 262144 PTEs): on the
# base kernel, this initramfs instead of the full one, and running first
# instead of after the other programs, moved them by 0.003% at most
# (docs/benchmarking.md).
off_initrd=$bdir/$arch-guest/initramfs.cpio
[ "$off" = pgtable ] && off_initrd=$(alone_initramfs off pgtable_bench BENCH_OFF)
# The slab_virtual=off boot's (BENCH_SLAB_OFF=1): slab_bench alone.
[ "$slab_off" = 1 ] && slab_initrd=$(alone_initramfs slab slab_bench BENCH_SLAB_OFF)

# norandmaps: the same address-space layout in every boot, so that page
# table and maple tree shapes, and hence instruction counts, repeat.
# random.trust_cpu=on: the random pool is seeded from RDRAND/RNDR at boot
# (from QEMU's -seed under -icount), as on a distribution kernel
# (RANDOM_TRUST_CPU=y).  Otherwise arm64's crng never becomes ready in the
# guest, and every get_random_u16() of the random kernel stack offset
# (configs/bench.config) costs a whole ChaCha block: ~9000 instructions on
# every system call, in both kernels, which would dilute every percentage.
mode=(--icount) clock="instruction time (QEMU -icount shift=0: 1 ns = 1 guest instruction)"
if [ "$accel" = kvm ]; then
	mode=(--kvm) clock="wall-clock time under KVM"
fi
kinds=(base patched)
[ "$off" != 0 ] && kinds+=(patched-off)
[ "$slab_off" = 1 ] && kinds+=(patched-svoff)
for kind in "${kinds[@]}"; do
	kout=$bdir/$arch-$kind initrd=$bdir/$arch-guest/initramfs.cpio append=
	if [ "$kind" = patched-off ]; then
		kout=$bdir/$arch-patched initrd=$off_initrd
		append=" kpkeys=off${off_append:+ $off_append}"
	elif [ "$kind" = patched-svoff ]; then
		kout=$bdir/$arch-patched initrd=$slab_initrd
		append=" slab_virtual=off"
	fi
	mods=$bdir/$arch-${kind%%-*}/modules.cpio
	cat "$initrd" "$mods" > "$bdir/$arch-guest/boot-$kind.cpio"
	initrd=$bdir/$arch-guest/boot-$kind.cpio
	info "benchmarking the $kind kernel ($arch, ${mode[*]})"
	set +e
	log=$(QEMU_SMP=1 "$ROOT/scripts/boot.sh" "$arch" "$kout" "${mode[@]}" \
		--name "bench-$kind" --initrd "$initrd" \
		--append "norandmaps random.trust_cpu=on$append" \
		--timeout "${BENCH_TIMEOUT:-3000}")
	st=$?
	set -e
	cp "$log" "$bdir/$arch-$kind.log"
	[ $st = 0 ] || die "the $kind benchmark boot failed (status $st); console: ${log#"$ROOT"/}"
	if grep -q '^not ok' "$log"; then
		grep -B5 '^not ok' "$log" >&2
		die "a benchmark failed on the $kind kernel; console: ${log#"$ROOT"/}"
	fi
done
off_args=()
if [ "$off" != 0 ]; then
	off_args=(--off "$bdir/$arch-patched-off.log" --off-initramfs "$off_initrd")
	if grep -q 'Unknown kernel command line parameters.*kpkeys' "$bdir/$arch-patched-off.log"; then
		warn "the patched kernel does not know kpkeys=off: its patched-off column is the feature on"
	fi
fi
if [ "$slab_off" = 1 ]; then
	off_args+=(--slab-off "$bdir/$arch-patched-svoff.log" --slab-off-initramfs "$slab_initrd")
	# The patched kernel says "slab_virtual: off" when the switch took.
	grep -q 'slab_virtual: off' "$bdir/$arch-patched-svoff.log" ||
		warn "the patched kernel did not turn SLAB_VIRTUAL off: its slab_virtual=off column is the feature as it runs"
fi

# A patched kernel built from a tree with uncommitted work says so.
dirty=
[ -z "$(git -C "$KSRC" status --porcelain)" ] || dirty=", with uncommitted changes in build/linux"
python3 "$ROOT/scripts/bench-report.py" --arch "$arch" --clock "$clock" \
	--base-version "$BASE_PKG $(base_version)" \
	--series "$(git -C "$KSRC" rev-list --count base..HEAD) patches, HEAD $(git -C "$KSRC" log -1 --format='%h %s' | cut -c1-50)$dirty" \
	--qemu "$($QEMU --version | head -1)$qemu_note" \
	--kconfig "$bdir/$arch-patched/.config" \
	--images "$bdir/$arch-base/$IMAGE" "$bdir/$arch-patched/$IMAGE" "$bdir/$arch-guest/initramfs.cpio" \
	--csv "$bdir/$arch.csv" --md "$bdir/$arch.md" "${off_args[@]}" \
	"$bdir/$arch-base.log" "$bdir/$arch-patched.log"
# bench/RESULTS.md: the preface, this architecture's new tables and the
# other architecture's tables as they were.
python3 "$ROOT/scripts/bench-results.py" "$ROOT/bench/RESULTS.md" \
	"$ROOT/bench/preface.md" "$arch" "$bdir/$arch.md"
info "make bench $arch: $(( $(date +%s) - start )) s; tables in build/bench/$arch.md and bench/RESULTS.md"
