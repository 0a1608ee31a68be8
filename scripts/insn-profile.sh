#!/bin/bash
# make insn-profile: where does a whole bench row's difference come from,
# when it is too long to single-step (make insn-trace)?  Boot the base and
# the patched bench kernel under -icount on our QEMU (qemu/) with a TCG
# plugin (scripts/plugins/insncount.c) that counts every instruction the
# guest runs, with one bench program running (such as pgtable_bench with
# one group of its rows), and print per kernel function the instructions
# each kernel ran over the whole boot.  The boot and the program's setup
# are in both counts; a row repeats its operation thousands of times, so
# its functions stand out.
#
# Usage: insn-profile.sh ARCH PROGRAM [ARGS...]
#   e.g.  insn-profile.sh arm64 pgtable_bench --reps 3 --big-reps 1 --only vmalloc
#         insn-profile.sh arm64 slab_bench --reps 11 --big-reps 3
# Env PROFILE_CPU: the -cpu to boot (default neoverse-n1: our QEMU's max
# has FEAT_S1POE, and the question this answers is usually the cost of the
# series where the protection is not active; PROFILE_CPU=max for the
# other); TRACE_APPEND: more command-line words for the patched kernel;
# PROFILE_ICOUNT=1: boot under -icount, so that timer ticks land at the
# same instructions in every boot (off by default: our QEMU 9.0.1 runs
# pgtable_bench >25x slower under -icount than Debian's 7.2, NOTES.md;
# without it the ticks and what they run differ between the two boots, a
# little noise in the functions the timer runs).
# Needs the bench kernels (make bench ARCH=...).  arm64 only: it runs on
# our QEMU 9.0.1, whose plugin API the plugin is written for.
# Output: build/bench/ARCH-profile/{base,patched}.counts and the table on
# stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: $0 ARCH PROGRAM [ARGS...]"
arch=$1 prog=$2
shift 2
[ "$arch" = arm64 ] || die "insn-profile: arm64 only (it needs our QEMU: make qemu)"
case $prog in *[!a-z_]*) die "PROGRAM: a program of guest/bench (pgtable_bench, slab_bench, ...)" ;; esac
arch_vars "$arch"
QEMU=$("$ROOT/scripts/qemu.sh" --print)

bdir=$BUILD/bench pdir=$BUILD/bench/$arch-profile
for kind in base patched; do
	if [ ! -f "$bdir/$arch-$kind/$IMAGE" ] || [ ! -f "$bdir/$arch-$kind/modules.cpio" ]; then
		die "no $kind bench kernel in build/bench/$arch-$kind: run make bench ARCH=$arch first"
	fi
done
rm -rf "$pdir"
mkdir -p "$pdir/qemu"

# The plugin, against the plugin header of the QEMU source we built.
src=$("$ROOT/scripts/qemu.sh" --source)
tar -xJf "$src" -C "$pdir/qemu" --wildcards '*/include/qemu/qemu-plugin.h'
# shellcheck disable=SC2046 # pkg-config's words
gcc -O2 -Wall -Werror -shared -fPIC -I "$(dirname "$(find "$pdir/qemu" -name qemu-plugin.h)")" \
	$(pkg-config --cflags glib-2.0) -o "$pdir/insncount.so" \
	"$ROOT/scripts/plugins/insncount.c" $(pkg-config --libs glib-2.0)

# The bench programs, with a manifest that runs only this one.
groot=$pdir/root
build_bench_programs "$groot" "$arch" "$pdir/build.log"
[ -x "$groot/bench/$prog" ] || die "no bench program $prog (guest/bench)"
echo "run $prog 3000 /bench/$prog $*" | guest_etc "$groot"
pack_initramfs "$groot" "$pdir/initramfs.cpio"

icount=()
[ "${PROFILE_ICOUNT:-0}" = 1 ] && icount=(--icount)
for kind in base patched; do
	info "profiling $prog $* on the $kind kernel (-cpu ${PROFILE_CPU:-neoverse-n1})"
	cat "$pdir/initramfs.cpio" "$bdir/$arch-$kind/modules.cpio" > "$pdir/boot-$kind.cpio"
	extra=
	[ "$kind" = patched ] && [ -n "${TRACE_APPEND:-}" ] && extra=" $TRACE_APPEND"
	log=$(QEMU_ARM64=$QEMU QEMU_CPU=${PROFILE_CPU:-neoverse-n1} QEMU_SMP=1 \
		QEMU_EXTRA="-plugin $pdir/insncount.so,outfile=$pdir/$kind.counts" \
		"$ROOT/scripts/boot.sh" "$arch" "$bdir/$arch-$kind" "${icount[@]}" \
		--name "profile-$kind" --initrd "$pdir/boot-$kind.cpio" \
		--append "norandmaps random.trust_cpu=on$extra" --timeout 3000) ||
		die "the $kind profile boot failed; console: ${log#"$ROOT"/}"
	cp "$log" "$pdir/$kind.log"
	grep -q '^not ok' "$log" && die "$prog failed on the $kind kernel; console: ${log#"$ROOT"/}"
	[ -s "$pdir/$kind.counts" ] || die "the plugin wrote no counts for the $kind kernel"
	grep '^BENCH ' "$log" >&2 || true
done
python3 "$ROOT/scripts/insn-profile-report.py" \
	"$bdir/$arch-base/System.map" "$pdir/base.counts" \
	"$bdir/$arch-patched/System.map" "$pdir/patched.counts" | tee "$pdir/report.txt"
