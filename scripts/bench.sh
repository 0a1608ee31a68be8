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
# build/bench/ARCH.md (tables, the attribution matrix first).
#
# Feature boots (issue 32): the patched series again with one of its
# features off, so that every table gets a column per feature and
# bench/RESULTS.md's attribution matrix can say what each one costs:
#   patched-off      the patched kernel with kpkeys=off      env BENCH_OFF
#   patched-svoff    ... with slab_virtual=off               env BENCH_SLAB_OFF
#   patched-pooloff  ... with secretmem.pool_blocks=0        env BENCH_POOL_OFF
#   nomseal          a kernel of its own: the patched bench   env BENCH_NOMSEAL
#                    configuration with CONFIG_MSEAL=n
#                    (configs/bench-nomseal.config; mseal has
#                    no boot switch), booted as the patched one
# Each env is "all" (every program of guest/bench/manifest, from the same
# initramfs as the base and patched boots), a comma-separated list of the
# manifest's program names (those alone, from an initramfs that differs
# only in /etc/manifest; the other rows of that column show -), or 0 (no
# such boot).  Unset: BENCH_FEATURES decides, for each boot whose feature
# the patched kernel was built with (CONFIG_KPKEYS_HARDENED_PGTABLES,
# CONFIG_SLAB_VIRTUAL, CONFIG_SECRETMEM_POOL, CONFIG_MSEAL; no boot
# otherwise): "all" (the default), "min" (each boot the programs whose
# rows its feature can change at all: every program for kpkeys and
# SLAB_VIRTUAL, secretmem_bench for the pool, which serves nothing but
# memfd_secret, and both mseal_bench lines for mseal) or 0 (base and
# patched only).  Older values still work: BENCH_OFF=pgtable
# (pgtable_bench alone), BENCH_SLAB_OFF=1 (slab_bench alone).
# BENCH_OFF_APPEND: more words for the kpkeys=off boot's command line (its
# column is then named after all of them).
#
# The seeds' own tools (issue 32 item 3), each in boots of its own: after
# each boot above, the same kernel with the same command line boots once
# more per tool, with the tool's initramfs (guest/bench/TOOL.manifest):
#   stressng  Debian's stress-ng binary and libraries (scripts/lib.sh,
#             stressng_guest), a fixed number of bogo operations per
#             stressor (guest/bench/stressng_bench.c)   env BENCH_STRESSNG
#   kbuild    Debian's gcc-12 compiles the base kernel's scripts/dtc, a
#             kernbench-like row (kbuild_guest, kbuild_bench.c)
#                                                       env BENCH_KBUILD
# Each env is 1 (the default) or 0 (no such boots).  A feature boot runs
# them when it runs every program, or any besides secretmem_bench (neither
# tool calls memfd_secret()).
#
# arm64 runs on Debian's QEMU, which has no POE: the patched kernel's
# page-table protection stays inactive there, so kpkeys=off changes
# nothing and that column measures the same code (the report says so).
# Until issue 32 that boot added slab_virtual=off on arm64; the
# slab_virtual=off column now gives SLAB_VIRTUAL's share on its own.  Env
# BENCH_QEMU=poe runs arm64 on our QEMU (qemu/, FEAT_S1POE for -cpu max,
# once 'make qemu' has built it), where the protection is on.  But QEMU
# 9.0.1 under -icount is slow: pgtable_bench on the base kernel had not
# finished its first row after 10 minutes, where Debian's 7.2 runs all of
# it in 25 s (without -icount, 9.0.1 took 22 s).
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
# The feature boots, in the order they run: KIND ENV KCONFIG FEATURE MIN
# (FEATURE: scripts/bench-report.py's name for it; MIN: what
# BENCH_FEATURES=min runs).
feature_boots=(
	"patched-off BENCH_OFF CONFIG_KPKEYS_HARDENED_PGTABLES kpkeys all"
	"patched-svoff BENCH_SLAB_OFF CONFIG_SLAB_VIRTUAL slab_virtual all"
	"patched-pooloff BENCH_POOL_OFF CONFIG_SECRETMEM_POOL secretmem_pool secretmem_bench"
	"nomseal BENCH_NOMSEAL CONFIG_MSEAL mseal mseal_bench,mseal_bench_sealed"
)
case ${BENCH_FEATURES:-all} in
all | min | 0) features_default=${BENCH_FEATURES:-all} ;;
*) die "BENCH_FEATURES must be all, min or 0, not '$BENCH_FEATURES'" ;;
esac
bench_names=$("$ROOT/scripts/manifest.sh" init "$arch" "$ROOT/guest/bench/manifest" | awk '$1 == "run" { print $2 }')
# What a feature boot runs, from its env's value: all, 0, or a
# comma-separated list of the manifest's program names (checked here,
# before anything is built).  Prints the value.
feature_programs() { # ENV VALUE
	local p
	case $2 in
	all | 0) echo "$2"; return ;;
	pgtable) [ "$1" = BENCH_OFF ] && { echo pgtable_bench; return; } ;;
	1) [ "$1" = BENCH_SLAB_OFF ] && { echo slab_bench; return; } ;;
	esac
	[ -n "$2" ] || die "$1 is empty: all, 0 or programs of guest/bench/manifest"
	for p in ${2//,/ }; do
		grep -qx -- "$p" <<<"$bench_names" ||
			die "$1: guest/bench/manifest runs no '$p' on $arch (all, 0, or some of: $(paste -sd, <<<"$bench_names"))"
	done
	echo "$2"
}
declare -A runs # KIND -> all, 0, a list of programs, or "auto" (decided by the patched .config)
for fb in "${feature_boots[@]}"; do
	read -r kind var _ _ _ <<<"$fb"
	if [ -n "${!var:-}" ]; then
		runs[$kind]=$(feature_programs "$var" "${!var}")
	else
		runs[$kind]=auto
	fi
done
off_append=${BENCH_OFF_APPEND-}
# Never report an older run's feature consoles next to this run's.
for fb in "${feature_boots[@]}"; do
	rm -f "$bdir/$arch-${fb%% *}.log"
done
tools=()
for tool in stressng kbuild; do
	var=BENCH_${tool^^}
	rm -f "$bdir/$arch-"*"-$tool.log"
	case ${!var:-1} in
	1) tools+=("$tool") ;;
	0) ;;
	*) die "$var must be 1 or 0, not '${!var}'" ;;
	esac
done

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
# What each feature boot runs, now that the patched .config says which
# features the series has here.
for fb in "${feature_boots[@]}"; do
	read -r kind _ kconfig _ min <<<"$fb"
	[ "${runs[$kind]}" = auto ] || continue
	runs[$kind]=0
	if grep -q "^$kconfig=y" "$bdir/$arch-patched/.config"; then
		case $features_default in
		all) runs[$kind]=all ;;
		min) runs[$kind]=$min ;;
		esac
	fi
done
# The MSEAL=n kernel: the patched tree and bench configuration with
# configs/bench-nomseal.config last.  Its .config must differ from the
# patched one's in mseal's two options only, or its column would measure
# more than mseal.  CONFIG_MSEAL is in struct mm_struct (mm_types.h), so
# nearly every object differs from the patched kernel's: a first build
# takes about as long as the patched kernel's, later ones come from ccache.
if [ "${runs[nomseal]}" != 0 ]; then
	CONFIG_EXTRA="${CONFIG_EXTRA:+$CONFIG_EXTRA }$ROOT/configs/bench-nomseal.config" \
		"$ROOT/scripts/configure.sh" "$arch" bench patched "$bdir/$arch-nomseal" "$KSRC"
	if ! cfgdiff=$(diff <(grep -v 'CONFIG_MSEAL[ =_]' "$bdir/$arch-patched/.config") \
		<(grep -v 'CONFIG_MSEAL[ =_]' "$bdir/$arch-nomseal/.config")); then
		printf '%s\n' "$cfgdiff" >&2
		die "the MSEAL=n kernel's .config differs from the patched one beyond CONFIG_MSEAL* (above)"
	fi
	"$ROOT/scripts/build.sh" "$arch" "$bdir/$arch-nomseal" "$KSRC"
fi
kernels=(base patched)
[ "${runs[nomseal]}" = 0 ] || kernels+=(nomseal)
# Each kernel's own test_vmalloc.ko (pgtable_bench's vmalloc rows), in an
# archive of its own that its boots append to the initramfs: the kernel
# unpacks concatenated archives in turn, so every kernel runs the same
# programs and loads a module built for it.
for kind in "${kernels[@]}"; do
	mroot=$bdir/$arch-$kind/modroot
	rm -rf "$mroot"
	mkdir -p "$mroot/lib/modules"
	ko=$bdir/$arch-$kind/lib/test_vmalloc.ko
	[ -f "$ko" ] || die "no $ko: configs/bench.config must build test_vmalloc as a module"
	"${CROSS}strip" --strip-debug -o "$mroot/lib/modules/test_vmalloc.ko" "$ko"
	pack_initramfs "$mroot" "$bdir/$arch-$kind/modules.cpio"
done

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
# Each tool's initramfs: init, its program, what Debian's packages give it
# (TOOL_guest in scripts/lib.sh), and a manifest of its program alone.
for tool in ${tools[@]+"${tools[@]}"}; do
	troot=$bdir/$arch-guest/root-$tool
	rm -rf "$troot"
	mkdir -p "$troot"
	make -C "$ROOT/guest" "$tool" ARCH="$arch" KSRC="$KSRC" \
		HDR="$BUILD/bench/$arch-patched/hdr" OUT="$troot" >> "$bdir/$arch-guest/build.log" 2>&1 ||
		die "${tool}_bench failed to build; see ${bdir#"$ROOT"/}/$arch-guest/build.log"
	info "Debian's packages for the $tool boots ($arch)"
	"${tool}_guest" "$arch" "$troot"
	"$ROOT/scripts/manifest.sh" init "$arch" "$ROOT/guest/bench/$tool.manifest" |
		guest_etc "$troot"
	pack_initramfs "$troot" "$bdir/$arch-guest/initramfs-$tool.cpio"
done
# An initramfs that runs some programs of the manifest alone: the same
# files as the full one, but an /etc/manifest of those programs' lines, in
# the manifest's order.  Prints its path.
subset_initramfs() { # KIND PROGRAM[,PROGRAM...]
	local dir=$bdir/$arch-guest/root-$1 manifest=$bdir/$arch-guest/manifest-$1
	rm -rf "$dir"
	cp -a "$groot" "$dir"
	"$ROOT/scripts/manifest.sh" init "$arch" "$ROOT/guest/bench/manifest" |
		awk -v p=",$2," 'index(p, "," $2 ",")' | awk "$options" > "$manifest"
	[ -s "$manifest" ] || die "guest/bench/manifest runs none of $2 on $arch"
	guest_etc "$dir" < "$manifest"
	pack_initramfs "$dir" "$bdir/$arch-guest/initramfs-$1.cpio"
	echo "$bdir/$arch-guest/initramfs-$1.cpio"
}
# Each boot: its kernel, initramfs (before the module archive is
# appended) and the words it adds to the command line.  A feature boot
# that runs every program boots the very initramfs of the base and
# patched boots; one that runs some alone, one that differs only in
# /etc/manifest.  pgtable_bench's rows are large operations: on the base
# kernel, its initramfs alone instead of the full one, and running first
# instead of after the other programs, moved them by 0.003% at most; for
# slab_bench alone, by at most 0.63% (docs/benchmarking.md).
declare -A kout_of initrd_of append_of
kinds=(base patched)
for kind in base patched; do
	kout_of[$kind]=$bdir/$arch-$kind initrd_of[$kind]=$bdir/$arch-guest/initramfs.cpio append_of[$kind]=
done
for fb in "${feature_boots[@]}"; do
	read -r kind _ _ _ _ <<<"$fb"
	[ "${runs[$kind]}" != 0 ] || continue
	kinds+=("$kind")
	kout_of[$kind]=$bdir/$arch-patched initrd_of[$kind]=$bdir/$arch-guest/initramfs.cpio
	[ "${runs[$kind]}" = all ] || initrd_of[$kind]=$(subset_initramfs "$kind" "${runs[$kind]}")
	case $kind in
	patched-off) append_of[$kind]=" kpkeys=off${off_append:+ $off_append}" ;;
	patched-svoff) append_of[$kind]=" slab_virtual=off" ;;
	patched-pooloff) append_of[$kind]=" secretmem.pool_blocks=0" ;;
	nomseal) kout_of[$kind]=$bdir/$arch-nomseal append_of[$kind]= ;;
	esac
done

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
# Whether the KIND boot is followed by the tools' boots (see the top).
tools_run() {
	[ ${#tools[@]} -gt 0 ] || return 1
	case ${runs[$1]:-all} in
	all) return 0 ;;
	secretmem_bench) return 1 ;;
	esac
	return 0
}
# One boot of KIND's kernel with INITRAMFS (before the module archive)
# under NAME; its console goes to LOG.
bench_boot() { # KIND INITRAMFS NAME LOG
	local kind=$1 initrd=$bdir/$arch-guest/boot-$1.cpio log boot_start st
	cat "$2" "$bdir/$arch-${kind%%-*}/modules.cpio" > "$initrd"
	boot_start=$SECONDS
	set +e
	log=$(QEMU_SMP=1 "$ROOT/scripts/boot.sh" "$arch" "${kout_of[$kind]}" "${mode[@]}" \
		--name "$3" --initrd "$initrd" \
		--append "norandmaps random.trust_cpu=on${append_of[$kind]}" \
		--timeout "${BENCH_TIMEOUT:-3000}")
	st=$?
	set -e
	cp "$log" "$4"
	[ $st = 0 ] || die "the $3 boot failed (status $st); console: ${log#"$ROOT"/}"
	if grep -q '^not ok' "$log"; then
		grep -B5 '^not ok' "$log" >&2
		die "a benchmark failed in the $3 boot; console: ${log#"$ROOT"/}"
	fi
	info "the $3 boot took $((SECONDS - boot_start)) s"
}
for kind in "${kinds[@]}"; do
	info "benchmarking the $kind kernel ($arch, ${mode[*]}; programs: ${runs[$kind]:-all}${append_of[$kind]:+; added to the command line:${append_of[$kind]}})"
	bench_boot "$kind" "${initrd_of[$kind]}" "bench-$kind" "$bdir/$arch-$kind.log"
	if tools_run "$kind"; then
		for tool in "${tools[@]}"; do
			bench_boot "$kind" "$bdir/$arch-guest/initramfs-$tool.cpio" \
				"bench-$kind-$tool" "$bdir/$arch-$kind-$tool.log"
		done
	fi
done
# Whether the KIND boot ran PROGRAM.
ran() { [ "${runs[$1]}" = all ] || [[ ,${runs[$1]}, == *,$2,* ]]; }
# Each feature boot's console must show that its switch took; the report
# says so too, next to the column.
report_args=()
for fb in "${feature_boots[@]}"; do
	read -r kind _ _ feature _ <<<"$fb"
	[ "${runs[$kind]}" != 0 ] || continue
	log=$bdir/$arch-$kind.log
	report_args+=(--without "$feature" "$log" --without-initramfs "$feature" "${initrd_of[$kind]}")
	if tools_run "$kind"; then
		for tool in "${tools[@]}"; do
			report_args+=(--tool "$tool" "$feature" "$bdir/$arch-$kind-$tool.log")
		done
	fi
	case $kind in
	patched-off)
		if grep -q 'Unknown kernel command line parameters.*kpkeys' "$log"; then
			warn "the patched kernel does not know kpkeys=off: its kpkeys=off column is the feature on"
		fi
		;;
	patched-svoff)
		# The patched kernel says "slab_virtual: off" when the switch took.
		grep -q 'slab_virtual: off' "$log" ||
			warn "the patched kernel did not turn SLAB_VIRTUAL off: its slab_virtual=off column is the feature as it runs"
		;;
	patched-pooloff)
		# secretmem_bench prints the parameter as it found it.  A
		# parameter the kernel does not have is ignored silently (a
		# dotted word is taken for a module's).
		if ran "$kind" secretmem_bench && ! grep -q 'pool_blocks: N at start' "$log"; then
			warn "secretmem.pool_blocks=0 did not turn the pool off: its column is the pool as it runs"
		fi
		;;
	nomseal)
		report_args+=(--without-kernel mseal "$bdir/$arch-nomseal/$IMAGE")
		if ran "$kind" mseal_bench && ! grep -q 'mseal() not available' "$log"; then
			warn "the MSEAL=n kernel has mseal(): its CONFIG_MSEAL=n column is the feature on"
		fi
		;;
	esac
done

for tool in ${tools[@]+"${tools[@]}"}; do
	report_args+=(--tool "$tool" base "$bdir/$arch-base-$tool.log"
		--tool "$tool" patched "$bdir/$arch-patched-$tool.log"
		--tool-initramfs "$tool" "$bdir/$arch-guest/initramfs-$tool.cpio"
		--tool-version "$tool" "$(cat "$bdir/$arch-guest/root-$tool/$tool/VERSION")")
done
# A patched kernel built from a tree with uncommitted work says so.
dirty=
[ -z "$(git -C "$KSRC" status --porcelain)" ] || dirty=", with uncommitted changes in build/linux"
python3 "$ROOT/scripts/bench-report.py" --arch "$arch" --clock "$clock" \
	--base-version "$BASE_PKG $(base_version)" \
	--series "$(git -C "$KSRC" rev-list --count base..HEAD) patches, HEAD $(git -C "$KSRC" log -1 --format='%h %s' | cut -c1-50)$dirty" \
	--qemu "$($QEMU --version | head -1)$qemu_note" \
	--kconfig "$bdir/$arch-patched/.config" \
	--images "$bdir/$arch-base/$IMAGE" "$bdir/$arch-patched/$IMAGE" "$bdir/$arch-guest/initramfs.cpio" \
	--csv "$bdir/$arch.csv" --md "$bdir/$arch.md" "${report_args[@]}" \
	"$bdir/$arch-base.log" "$bdir/$arch-patched.log"
# bench/RESULTS.md: the preface, the attribution matrices, this
# architecture's new tables and the other architecture's as they were.
python3 "$ROOT/scripts/bench-results.py" "$ROOT/bench/RESULTS.md" \
	"$ROOT/bench/preface.md" "$arch" "$bdir/$arch.md"
info "make bench $arch: $(( $(date +%s) - start )) s; tables in build/bench/$arch.md and bench/RESULTS.md"
