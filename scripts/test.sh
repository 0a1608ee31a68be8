#!/bin/bash
# Everything CI checks: host checks, then build, boot and test on x86_64
# and arm64.  The last line is "N passed, N failed, N skipped"; the exit
# status is non-zero when anything failed.
#
# Usage: test.sh [ARCH...]   (default: every architecture of scripts/arches)
# make test runs 'make deps' first.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

arches=${*:-$(arches)}
start=$(date +%s)
mkdir -p "$BUILD"
results=$BUILD/results.txt
: > "$results"

if "$ROOT/scripts/host-checks.sh" "$results"; then
	for arch in $arches; do
		"$ROOT/scripts/run-arch.sh" "$arch" "$results" ||
			grep -q "^FAIL $arch:" "$results" ||
			echo "FAIL $arch:run-arch stopped without a result; see its messages above" >> "$results"
	done
	# Control kernels (configs/control-*.config): x86_64 with SLAB_VIRTUAL
	# off and KASAN on, where the cross-cache test must see the attack.
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
