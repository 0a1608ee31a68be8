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
