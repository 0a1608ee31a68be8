#!/bin/bash
# Everything CI checks: host checks, then build, boot and test on x86_64
# and arm64.  The last line is "N passed, N failed, N skipped"; the exit
# status is non-zero when anything failed.
#
# Usage: test.sh [ARCH...]   (default: every architecture of scripts/arches)
# make test runs 'make deps' first.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# One line, space-separated (arches() prints one a line).
arches=${*:-$(arches)}
arches=${arches//$'\n'/ }
start=$(date +%s)
mkdir -p "$BUILD"
results=$BUILD/results.txt
: > "$results"

# One result line for the page-table protection seen on a console: the
# kpkeys_pgtable KUnit suite must have run its enforcement cases (want
# "enforced") or skipped them with the protection off ("off"), and the
# console must have the line MUST_SAY, when given.
kpkeys_result() { # LABEL WANT LOG [MUST_SAY]
	local line
	line=$(grep -ao '# kpkeys_pgtable: pass:[0-9]* fail:[0-9]* skip:[0-9]*' "$3" | tail -1)
	line=${line#\# kpkeys_pgtable: }
	if [ -n "${4:-}" ] && ! grep -aqF "$4" "$3"; then
		echo "FAIL $1:kpkeys-$2:the kernel never said \"$4\"; console: ${3#"$ROOT"/}" >> "$results"
		return
	fi
	case $2:$line in
	enforced:pass:*" fail:0 skip:0" | off:pass:[1-9]*" fail:0 skip:"[1-9]*)
		echo "PASS $1:kpkeys-$2:kpkeys_pgtable $line${4:+; \"$4\"}" >> "$results" ;;
	*)
		echo "FAIL $1:kpkeys-$2:kpkeys_pgtable ${line:-reported nothing}, want the page tables $2; console: ${3#"$ROOT"/}" >> "$results" ;;
	esac
}

# Where the page tables cannot be protected, the kernel says why in one
# line, and says nothing else about kpkeys.
kpkeys_one_line() { # LABEL LOG
	local n
	n=$(grep -ac 'kpkeys: ' "$2")
	if [ "$n" = 1 ]; then
		echo "PASS $1:kpkeys-one-line:$(grep -a -m1 -o 'kpkeys: .*' "$2" | tr -d '\r')" >> "$results"
	else
		echo "FAIL $1:kpkeys-one-line:$n kpkeys lines at boot, want one; console: ${2#"$ROOT"/}" >> "$results"
	fi
}

# SLAB_VIRTUAL's layout in two boots of the same kernel (the KUnit case
# slab_virtual_layout prints it): the region's start, its metadata and the
# first slabs of two boot caches must all move, and so must the distances
# of those slabs from the start (the boot window's random order).
sv_layout_moves() { # LABEL LOG1 LOG2
	# "start S meta M kmem_cache C +c kmem_cache_node N +n" -> "S M C c N n"
	local -a x y
	local same=
	read -ra x < <(grep -ao 'slab_virtual layout: .*' "$2" | tail -1 | tr -d '\r+' |
		awk '{ print $4, $6, $8, $9, $11, $12 }')
	read -ra y < <(grep -ao 'slab_virtual layout: .*' "$3" | tail -1 | tr -d '\r+' |
		awk '{ print $4, $6, $8, $9, $11, $12 }')
	if [ "${#x[@]}" != 6 ] || [ "${#y[@]}" != 6 ]; then
		echo "FAIL $1:slab-virtual-layout:no layout line in ${2#"$ROOT"/} or ${3#"$ROOT"/}" >> "$results"
		return
	fi
	[ "${x[0]}" != "${y[0]}" ] || same="$same start"
	[ "${x[1]}" != "${y[1]}" ] || same="$same metadata"
	[ "${x[2]}" != "${y[2]}" ] || same="$same kmem_cache"
	[ "${x[4]}" != "${y[4]}" ] || same="$same kmem_cache_node"
	[ "${x[3]}:${x[5]}" != "${y[3]}:${y[5]}" ] || same="$same distances"
	if [ -z "$same" ]; then
		echo "PASS $1:slab-virtual-layout:two boots: ${x[*]} / ${y[*]}" >> "$results"
	else
		echo "FAIL $1:slab-virtual-layout:the same$same in two boots: ${x[*]} / ${y[*]}" >> "$results"
	fi
}

if "$ROOT/scripts/host-checks.sh" "$results"; then
	# arm64 boots on our QEMU (qemu/: FEAT_S1POE for -cpu max), built or
	# taken from its cache, so that its page tables are really protected.
	# Without the QEMU 9.0.1 source on this machine it boots on Debian's
	# QEMU, which has no POE, and the enforcement is reported skipped.
	poe_qemu=
	case " $arches " in
	*" arm64 "*)
		if ! src=$("$ROOT/scripts/qemu.sh" --source 2>&1); then
			echo "SKIP arm64:kpkeys-enforced:$src; arm64 ran on Debian's QEMU, without POE" >> "$results"
		elif ! poe_qemu=$("$ROOT/scripts/qemu.sh"); then
			poe_qemu=
			echo "FAIL arm64:qemu:building our QEMU from $src failed (the messages above)" >> "$results"
		else
			# The model against upstream Linux 6.12's POE tests and our
			# matrices (qemu/README.md); cached by the binaries' hashes.
			"$ROOT/scripts/poe-check.sh" > "$BUILD/poe-check.txt" 2>&1
			sed -n 's/^\(PASS\|FAIL\|SKIP\)  *\(.*\)$/\1 arm64:poe-check:\2/p' \
				"$BUILD/poe-check.txt" >> "$results"
			grep -q '^poe-check: [0-9]* passed, 0 failed' "$BUILD/poe-check.txt" ||
				echo "FAIL arm64:poe-check:did not pass; read build/poe-check.txt" >> "$results"
		fi
		;;
	esac
	for arch in $arches; do
		qemu_env=()
		[ "$arch" = arm64 ] && [ -n "$poe_qemu" ] && qemu_env=(QEMU_ARM64="$poe_qemu")
		env "${qemu_env[@]}" "$ROOT/scripts/run-arch.sh" "$arch" "$results" ||
			grep -q "^FAIL $arch:" "$results" ||
			echo "FAIL $arch:run-arch stopped without a result; see its messages above" >> "$results"
		# x86_64's kernel again with page table isolation on: PKS must stay
		# off (kpkeys_test_cpus checks every CPU) and the kernel says why in
		# one line.
		if [ "$arch" = x86_64 ] && [ -e "$BUILD/logs/x86_64-test-latest.log" ]; then
			RUN_BOOT_ONLY=1 RUN_VARIANT=pti RUN_APPEND=pti=on \
				"$ROOT/scripts/run-arch.sh" x86_64 "$results" ||
				grep -q "^FAIL x86_64-pti:" "$results" ||
				echo "FAIL x86_64-pti:run-arch stopped without a result; see its messages above" >> "$results"
			log=$(readlink -f "$BUILD/logs/x86_64-pti-latest.log")
			kpkeys_result x86_64-pti off "$log" \
				"kpkeys: page tables are not protected: page table isolation is on"
			kpkeys_one_line x86_64-pti "$log"
			sv_layout_moves x86_64 "$(readlink -f "$BUILD/logs/x86_64-test-latest.log")" "$log"
		fi
		[ "$arch" = arm64 ] || continue
		log=$BUILD/logs/arm64-test-latest.log
		[ -z "$poe_qemu" ] || kpkeys_result arm64 enforced "$(readlink -f "$log")" \
			"kpkeys: page tables protected"
		# The same kernel on a CPU without FEAT_S1POE (Debian's QEMU, a
		# Cortex-A57): the protection stays off and the kernel works.
		if [ -e "$log" ]; then
			QEMU_CPU=cortex-a57 RUN_BOOT_ONLY=1 RUN_VARIANT=nopoe \
				"$ROOT/scripts/run-arch.sh" arm64 "$results" ||
				grep -q "^FAIL arm64-nopoe:" "$results" ||
				echo "FAIL arm64-nopoe:run-arch stopped without a result; see its messages above" >> "$results"
			log=$(readlink -f "$BUILD/logs/arm64-nopoe-latest.log")
			kpkeys_result arm64-nopoe off "$log" "POE unsupported"
			kpkeys_one_line arm64-nopoe "$log"
			sv_layout_moves arm64 "$(readlink -f "$BUILD/logs/arm64-test-latest.log")" "$log"
		fi
	done
	# Control kernels (configs/control-*.config): x86_64 with SLAB_VIRTUAL
	# off and KASAN on, where the cross-cache test must see the attack;
	# arm64 with the kpkeys level keeping on a scratch register (Debian's
	# QEMU).
	for arch in $arches; do
		for f in "$ROOT"/configs/control-"$arch"-*.config; do
			[ -f "$f" ] || continue
			v=${f##*/control-"$arch"-}
			v=${v%.config}
			RUN_VARIANT=$v "$ROOT/scripts/run-arch.sh" "$arch" "$results" ||
				grep -q "^FAIL $arch-$v:" "$results" ||
				echo "FAIL $arch-$v:run-arch stopped without a result; see its messages above" >> "$results"
		done
	done
fi

pass=$(grep -c '^PASS ' "$results")
fail=$(grep -c '^FAIL ' "$results")
skip=$(grep -c '^SKIP ' "$results")
echo
echo "make test: $(( $(date +%s) - start )) s; results in ${results#"$ROOT"/}"
if [ "$fail" -gt 0 ]; then
	echo "failed:"
	grep '^FAIL ' "$results" | sed 's/^FAIL /    /'
fi
if [ "$skip" -gt 0 ]; then
	echo "skipped:"
	grep '^SKIP ' "$results" | sed 's/^SKIP /    /'
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
