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
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64}
arch_vars "$arch"
wt=$BUILD/linux-bisect
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
if [ ! -e "$wt/.git" ]; then
	rm -rf "$wt"
	git -C "$KSRC" worktree prune
	git -C "$KSRC" worktree add -q --detach "$wt" base
fi

# An initramfs with init only: the boot must reach it and stop cleanly.
root=$out/guest-root
mkdir -p "$root/etc"
make -s -C "$ROOT/guest" ARCH="$arch" KSRC="$KSRC" \
	HDR="$BUILD/$arch/hdr" OUT="$root" "$root/init"
: > "$root/etc/manifest"
pack_initramfs "$root" "$out/initramfs.cpio"
suites=$("$ROOT/scripts/manifest.sh" kunit "$arch")

fail=0
for c in $(echo "$commits" | sed -n "${from},${to}p"); do
	subject=$(git -C "$KSRC" log -1 --format=%s "$c")
	git -C "$wt" checkout -q --detach "$c"
	if ! "$ROOT/scripts/configure.sh" "$arch" test bisect "$out" "$wt" >/dev/null 2>&1 ||
		! "$ROOT/scripts/build.sh" "$arch" "$out" "$wt" >/dev/null 2>&1; then
		echo "FAIL build  $subject (log: ${out#"$ROOT"/}/build.log)"
		fail=1
		continue
	fi
	# Expect the KUnit suites of the manifest that this commit defines
	# (a series adds its own suites part-way through) and builds: the
	# option of the suite's object in its directory's Makefile must be on
	# (an arm64 commit before the one that lets arm64 select it has the
	# source of an x86-only suite).
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
	log=$("$ROOT/scripts/boot.sh" "$arch" "$out" --name bisect --timeout 600)
	qs=$?
	set -e
	if python3 "$ROOT/scripts/verdict.py" --arch "$arch" --expect "$out/expected" \
		--qemu-status $qs "$log" >/dev/null; then
		echo "PASS boot   $subject"
	else
		echo "FAIL boot   $subject (console: ${log#"$ROOT"/})"
		fail=1
	fi
done
exit $fail
