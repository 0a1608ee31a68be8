#!/bin/bash
# make insn-trace: where does a bench row's difference come from?  Single-
# step one system call of guest/bench/mseal_bench in the base and in the
# patched bench kernel (QEMU's gdb stub, gdb-multiarch) and print, for each
# function whose count differs, the instructions each kernel executed in it.
# The guests boot with a fixed kernel stack offset, so both traced calls run
# at the alignment their stack frames give them (which is how alignment-
# dependent costs such as memset() of on-stack structures show up).
#
# Usage: insn-trace.sh ARCH CALL VMAS [sealed]
#   CALL  munmap, mprotect or madvise (as in the bench tables)
#   VMAS  how many one-page VMAs the call spans (1..32)
# Needs the bench kernels (make bench ARCH=...).  Stepping runs at about
# 150 instructions a second: a call over 32 VMAs takes a few minutes.
# Output: build/bench/ARCH-trace-{base,patched}.pcs and the table on stdout.
# TRACE_APPEND: more command-line words for the patched kernel only (such
# as kpkeys=off, to trace the series with a feature switched off).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 3 ] || die "usage: $0 ARCH CALL VMAS [sealed]"
arch=$1 call=$2 vmas=$3 state=${4:-noseal}
arch_vars "$arch"
case $call in munmap | mprotect | madvise) ;; *) die "CALL: munmap, mprotect or madvise" ;; esac
case $vmas in '' | *[!0-9]*) die "VMAS: 1..32" ;; esac
[ "$vmas" -ge 1 ] && [ "$vmas" -le 32 ] || die "VMAS: 1..32"
args="--probe $call $vmas"
case $state in
noseal) ;;
sealed) args="--seal-elsewhere $args" ;;
*) die "state: noseal or sealed" ;;
esac

bdir=$BUILD/bench
for kind in base patched; do
	[ -f "$bdir/$arch-$kind/$IMAGE" ] ||
		die "no $kind bench kernel in build/bench/$arch-$kind: run make bench ARCH=$arch first"
done
command -v gdb-multiarch >/dev/null ||
	die "needs gdb-multiarch: 'make insn-trace' installs it (scripts/deps.sh gdb-multiarch)"

# The bench programs, with a manifest that runs only the probe.
groot=$bdir/$arch-trace/root
rm -rf "$bdir/$arch-trace"
build_bench_programs "$groot" "$arch" "$bdir/$arch-trace/build.log"
echo "run probe 600 /bench/mseal_bench $args" | guest_etc "$groot"
pack_initramfs "$groot" "$bdir/$arch-trace/initramfs.cpio"

for kind in base patched; do
	info "stepping $call over $vmas VMAs ($state) in the $kind kernel"
	port=$((20000 + RANDOM % 20000))
	extra=
	[ "$kind" = patched ] && [ -n "${TRACE_APPEND:-}" ] && extra=" $TRACE_APPEND"
	QEMU_SMP=1 setsid "$ROOT/scripts/boot.sh" "$arch" "$bdir/$arch-$kind" --icount \
		--name "trace-$kind" --initrd "$bdir/$arch-trace/initramfs.cpio" \
		--append "norandmaps nokaslr randomize_kstack_offset=off$extra" \
		--gdb "$port" --timeout 3000 > /dev/null &
	qemu=$!
	# boot.sh and QEMU run in a session of their own (timeout(1) moves
	# QEMU to another process group, but not out of the session): end it
	# however this script ends.
	trap 'pkill -TERM -s "$qemu" 2>/dev/null || true' EXIT
	out=$bdir/$arch-trace-$kind.pcs
	rm -f "$out"
	sleep 1
	INSN_PORT=$port INSN_OUT=$out INSN_ARCH=$arch \
		gdb-multiarch -batch -nx -x "$ROOT/scripts/insn-trace-gdb.py" \
		"$bdir/$arch-$kind/vmlinux" > "$bdir/$arch-trace/gdb-$kind.log" 2>&1 || true
	# gdb kills QEMU when it is done; if gdb failed, QEMU still waits.
	pkill -TERM -s "$qemu" 2>/dev/null || true
	wait "$qemu" || true
	[ -s "$out" ] || die "no trace from the $kind kernel; see build/bench/$arch-trace/gdb-$kind.log"
done
python3 "$ROOT/scripts/insn-trace-report.py" \
	"$bdir/$arch-base/System.map" "$bdir/$arch-trace-base.pcs" \
	"$bdir/$arch-patched/System.map" "$bdir/$arch-trace-patched.pcs"
