#!/bin/bash
# Build and boot every commit of the series on its own (bisectability):
# each commit of base..HEAD in build/linux is checked out in a scratch
# worktree, built with the test configuration, and booted with the KUnit
# suites and no guest programs (later patches add the programs' sources).
#
# Usage: [BISECT_FROM=N] [BISECT_TO=M] bisect-check.sh [ARCH]
#   BISECT_FROM, BISECT_TO  check only patches N..M of the series (1-based
#            positions in base..HEAD, both included); the defaults are the
#            first and the last patch.
#   CHECK_FORCE=1  build and boot commits that bisect/RESULTS.md already
#            has a pass for (same architecture, source tree and .config).
# Every build and boot is recorded in bisect/RESULTS.md.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64}
arch_vars "$arch"
# One worktree per architecture: both arches can run at once.
wt=$BUILD/linux-bisect-$arch
out=$BUILD/bisect-$arch
[ -d "$KSRC/.git" ] || die "no build/linux: run 'make bisect-check', which makes the tree first"

commits=$(git -C "$KSRC" rev-list --reverse base..HEAD)
total=$(echo "$commits" | grep -c . || true)
[ "$total" -gt 0 ] || die "no commits in base..HEAD of build/linux"
from=${BISECT_FROM:-1}
to=${BISECT_TO:-$total}
for n in "$from" "$to"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "BISECT_FROM/BISECT_TO must be patch numbers (1..$total), not '$n'"
done
[ "$to" -le "$total" ] || die "BISECT_TO=$to: the series has $total patches"
[ "$from" -le "$to" ] || die "BISECT_FROM=$from is after BISECT_TO=$to"
if [ "$from" != 1 ] || [ "$to" != "$total" ]; then
	info "checking patches $from..$to of $total"
fi
kunit_only_setup "$arch" "$wt" "$out"
suites=$("$ROOT/scripts/manifest.sh" kunit "$arch")

fail=0
n=$((from - 1))
for c in $(echo "$commits" | sed -n "${from},${to}p"); do
	n=$((n + 1))
	what="patch $n/$total"
	subject=$(git -C "$KSRC" log -1 --format=%s "$c")
	git -C "$wt" checkout -q --detach "$c"
	check_kernel "$arch" "$out" "$wt" "$suites" bisect "$what" "$subject" "$subject" ||
		fail=1
done
exit $fail
