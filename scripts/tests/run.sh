#!/bin/bash
# The harness's own tests: each proves that a kind of failure is caught.
#   - the verdict, on recorded consoles: a failing test, a failed subtest,
#     a missing suite, a WARN, a lockdep report, an oops, a hung guest, and
#     a clean run (with program output that merely looks like a report);
#   - the config check names an option Kconfig dropped;
#   - the bench report adds ref-cycles tables only for consoles that have
#     BENCHCYC lines (make bench ACCEL=kvm), and says why when a guest
#     could not open the counter;
#   - the bench report adds kernel-instruction tables and -insns.csv only
#     for consoles that have BENCHINS lines (make bench under -icount on
#     arm64), and leaves no stale -insns.csv behind;
#   - bench/RESULTS.md keeps the other architecture's tables when one
#     architecture is measured;
#   - a patch that does not apply is named with its hunk, and the tree is
#     left usable;
#   - export is byte-stable, and check-exported sees unexported work.
#
# Usage: run.sh [RESULTS_FILE]
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

fx=$ROOT/scripts/tests/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Run on its own, it still exits non-zero when a case fails.
results=${1:-$tmp/results}
printf 'kunit slub_test\ntest memfd_secret\ntest mremap_test\ntest protection_keys\n' > "$tmp/expect"

record() { # STATUS NAME DETAIL
	echo "$1 host:harness:$2 $3" >> "$results"
	printf '  %-4s  %-28s %s\n' "$1" "harness:$2" "$3"
}

# verdict_case NAME LOG WANT_EXIT WANT_TEXT [extra verdict args]
verdict_case() {
	local name=$1 log=$2 want=$3 text=$4 out st
	shift 4
	out=$(python3 "$ROOT/scripts/verdict.py" --arch x86_64 --expect "$tmp/expect" \
		"$@" "$fx/$log" 2>&1)
	st=$?
	if [ "$st" = "$want" ] && grep -qF -- "$text" <<<"$out"; then
		record PASS "verdict:$name" "exit $st, says '$text'"
	else
		record FAIL "verdict:$name" "exit $st (want $want), '$text' $(grep -qF -- "$text" <<<"$out" && echo found || echo missing)"
		sed 's/^/        /' <<<"$out"
	fi
}

echo "harness self-tests:"
verdict_case clean-run pass.log 0 'PASS  console kernel-reports'
verdict_case failing-test fail-test.log 1 'FAIL  test    mremap_test      14 subtests, exit status 1'
verdict_case failed-subtest nested-fail.log 1 'subtest failed: 4MB mremap'
verdict_case missing-suite missing-suite.log 1 'slub_test        never reported a result'
verdict_case kernel-warn warn.log 1 'WARNING: CPU: 0 PID: 34 at hugetlb_split'
verdict_case lockdep lockdep.log 1 'possible circular locking dependency'
verdict_case oops oops.log 1 'Unable to handle kernel NULL pointer dereference'
verdict_case hung-guest hung.log 1 'hung: killed after 600 s' --qemu-status 124 --timeout 600
verdict_case crashed-guest hung.log 1 'never finished its manifest'

# bench_case NAME WANT_TEXT|!UNWANTED_TEXT BASE_LOG PATCHED_LOG
bench_case() {
	local name=$1 text=$2 out st ok
	out=$(python3 "$ROOT/scripts/bench-report.py" --arch x86_64 --clock t \
		--base-version b --series s --qemu q "$3" "$4" 2>&1)
	st=$?
	if [ "${text#!}" != "$text" ]; then
		! grep -qF -- "${text#!}" <<<"$out" && ok=1
	else
		grep -qF -- "$text" <<<"$out" && ok=1
	fi
	if [ "$st" = 0 ] && [ "${ok:-}" = 1 ]; then
		if [ "${text#!}" != "$text" ]; then
			record PASS "bench-report:$name" "no '${text#!}' anywhere"
		else
			record PASS "bench-report:$name" "says '$text'"
		fi
	else
		record FAIL "bench-report:$name" "exit $st, '$text' not as expected"
		sed 's/^/        /' <<<"$out"
	fi
}
bench_case kvm-cycles '| mprotect | 1 | 2600 | 2610 | +0.38% | 6000 | 6060 | +60 | +60.0 | +1.00% |' \
	"$fx/bench-kvm-base.log" "$fx/bench-kvm-patched.log"
for k in base patched; do
	grep -v BENCHCYC "$fx/bench-kvm-$k.log" > "$tmp/bench-icount-$k.log"
	sed 's/^\( *\)BENCHCYC overhead.*/\1# no kernel ref-cycles counter: No such file or directory/; /BENCHCYC/d' \
		"$fx/bench-kvm-$k.log" > "$tmp/bench-nopmu-$k.log"
done
bench_case icount-unchanged '!ref-cycles' "$tmp/bench-icount-base.log" "$tmp/bench-icount-patched.log"
bench_case no-counter 'Kernel ref-cycles: not measured. The benchmark programs could not open the counter in the x86_64 guest (perf_event_open: No such file or directory)' \
	"$tmp/bench-nopmu-base.log" "$tmp/bench-nopmu-patched.log"

# BENCHINS (mseal_bench --insns under -icount; lines from arm64 boots).
bench_case icount-insns '| mprotect | 1 | 2375 | 2379 | +4 | +4.0 | +0.17% |' \
	"$fx/bench-icount-base.log" "$fx/bench-icount-patched.log"
bench_case icount-insns-reads '875 instructions on the base kernel, 875 on the patched one' \
	"$fx/bench-icount-base.log" "$fx/bench-icount-patched.log"
for k in base patched; do
	sed 's/^\( *\)BENCHINS overhead.*/\1# no kernel instruction counter: No such file or directory/; /BENCHINS/d' \
		"$fx/bench-icount-$k.log" > "$tmp/bench-noins-$k.log"
done
bench_case no-insns-counter '!Kernel instructions' "$tmp/bench-noins-base.log" "$tmp/bench-noins-patched.log"
# The CSV: written with BENCHINS lines, removed by a run without them.
bench_csv() { # BASE_LOG PATCHED_LOG
	python3 "$ROOT/scripts/bench-report.py" --arch arm64 --clock t --base-version b \
		--series s --qemu q --csv "$tmp/b.csv" "$1" "$2" > /dev/null 2>&1
}
bench_csv "$fx/bench-icount-base.log" "$fx/bench-icount-patched.log"
if grep -qx 'syscall,noseal,madvise,32,37122,36772,-350,-0.943' "$tmp/b-insns.csv" 2>/dev/null &&
	bench_csv "$tmp/bench-noins-base.log" "$tmp/bench-noins-patched.log" &&
	[ ! -e "$tmp/b-insns.csv" ]; then
	record PASS bench-report:insns-csv "-insns.csv has the rows, and a run without BENCHINS removes it"
else
	record FAIL bench-report:insns-csv "$(cat "$tmp/b-insns.csv" 2>&1 | head -3)"
fi

# Kconfig: an option whose dependency is off must be named, not dropped.
if [ -d "$KSRC/.git" ]; then
	printf '# CONFIG_KUNIT is not set\nCONFIG_SLUB_KUNIT_TEST=y\n' > "$tmp/bad.config"
	out=$(CONFIG_EXTRA=$tmp/bad.config "$ROOT/scripts/configure.sh" x86_64 test patched \
		"$BUILD/selftest-config" 2>&1)
	st=$?
	if [ $st != 0 ] && grep -q 'CONFIG_SLUB_KUNIT_TEST=y requested by .*bad.config' <<<"$out"; then
		record PASS config-dropped-option "names CONFIG_SLUB_KUNIT_TEST and its fragment"
	else
		record FAIL config-dropped-option "exit $st"
		sed 's/^/        /' <<<"$out"
	fi
	rm -rf "$BUILD/selftest-config"
fi

# A patch that does not apply: a small git tree stands in for build/linux.
fake=$tmp/build
mkdir -p "$fake/linux" "$tmp/patches"
(
	cd "$fake/linux" && git init -q && printf 'one\ntwo\nthree\n' > file &&
	git add file && git -c user.name=t -c user.email=t@t commit -qm base && git tag base &&
	sed -i 's/two/TWO/' file && git -c user.name=t -c user.email=t@t commit -qam 'file: shout' &&
	git format-patch -q -1 -o "$tmp/patches" && git reset -q --hard base
) || record FAIL tree-bad-patch "could not set up the fake tree"
sed -i 's/^ three$/ three and more/' "$tmp/patches"/0001-*.patch
ls "$tmp/patches" > "$tmp/patches/series"
echo "x $(git -C "$fake/linux" rev-parse HEAD)" > "$fake/linux.stamp"
out=$(BUILD=$fake PATCHES=$tmp/patches BASE_TARBALL=/dev/null "$ROOT/scripts/tree.sh" 2>&1)
st=$?
if [ $st != 0 ] && grep -q 'patch does not apply: patches/0001-file-shout.patch' <<<"$out" &&
	grep -q 'three and more' <<<"$out" &&
	[ -z "$(git -C "$fake/linux" status --porcelain)" ] &&
	[ "$(git -C "$fake/linux" rev-parse HEAD)" = "$(git -C "$fake/linux" rev-parse base)" ]; then
	record PASS tree-bad-patch "names the patch and the hunk; tree left clean at base"
else
	record FAIL tree-bad-patch "exit $st"
	sed 's/^/        /' <<<"$out"
fi

# bench/RESULTS.md: a run on one architecture replaces that architecture's
# sections and keeps the other's.
printf '# Benchmark results\n\n' > "$tmp/preface.md"
printf '# old preface\n\n## x86_64: mseal\n\nold x86 table\n\n## arm64: mseal\n\narm64 table\n\n## arm64: memfd_secret\n\narm64 secret\n\n' \
	> "$tmp/RESULTS.md"
printf '## x86_64: mseal\n\nnew x86 table\n\n' > "$tmp/x86_64.md"
python3 "$ROOT/scripts/bench-results.py" "$tmp/RESULTS.md" "$tmp/preface.md" \
	x86_64 "$tmp/x86_64.md"
if grep -q 'new x86 table' "$tmp/RESULTS.md" && grep -q 'arm64 secret' "$tmp/RESULTS.md" &&
	! grep -q 'old' "$tmp/RESULTS.md" &&
	[ "$(grep -n '^## ' "$tmp/RESULTS.md" | cut -d' ' -f2 | tr '\n' ' ')" = "x86_64: arm64: arm64: " ]; then
	record PASS bench-results-keep "an x86_64 run keeps the arm64 sections"
else
	record FAIL bench-results-keep "$(tr '\n' '|' < "$tmp/RESULTS.md")"
fi

# Export: byte-stable, and unexported work is noticed.
if [ -d "$KSRC/.git" ]; then
	"$ROOT/scripts/export.sh" "$tmp/e1" && "$ROOT/scripts/export.sh" "$tmp/e2"
	if diff -r "$tmp/e1" "$tmp/e2" >/dev/null; then
		record PASS export-stable "two exports of the same commits are identical"
	else
		record FAIL export-stable "two exports differ"
	fi
	probe=$KSRC/harness-selftest-unexported
	touch "$probe"
	out=$("$ROOT/scripts/check-exported.sh" 2>&1)
	st=$?
	rm -f "$probe"
	if [ $st != 0 ] && grep -q 'harness-selftest-unexported' <<<"$out"; then
		record PASS check-exported "an uncommitted file in build/linux is named"
	else
		record FAIL check-exported "exit $st: $out"
	fi
fi
! grep -q '^FAIL host:harness' "$results" 2>/dev/null
