#!/bin/bash
# The harness's own tests: each proves that a kind of failure is caught.
# The verdict, the bench report and bench/RESULTS.md are tested in Python
# (scripts/tests/test_*.py, run by unittests.py); the shell steps here:
#   - the config check names an option Kconfig dropped;
#   - a patch that does not apply is named with its hunk, and the tree is
#     left usable;
#   - export is byte-stable, and check-exported sees unexported work;
#   - make tree gives the same commit ids every time;
#   - the cover letter and the topics of patches/series are exported,
#     and a stale one is named
#     (these five on a small stand-in for build/linux);
#   - scripts/qemu.sh takes a tarball laid out like QEMU's release;
#   - README's make run example check names a stale example;
#   - the manifest's labels: =LABEL, !LABEL and a variant's own lines.
# Cases that need the kernel source in build/linux say SKIP without it.
#
# Usage: run.sh [RESULTS_FILE]
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Run on its own, it still exits non-zero when a case fails.
results=${1:-$tmp/results}

record() { # STATUS NAME DETAIL
	echo "$1 host:harness:$2 $3" >> "$results"
	printf '  %-4s  %-28s %s\n' "$1" "harness:$2" "$3"
}

echo "harness self-tests:"
python3 "$ROOT/scripts/tests/unittests.py" "$results"

# Kconfig: an option whose dependency is off must be named, not dropped.
if [ ! -d "$KSRC/.git" ]; then
	record SKIP config-dropped-option "needs the kernel source in build/linux ('make tree')"
else
	printf '# CONFIG_KUNIT is not set\nCONFIG_SLUB_KUNIT_TEST=y\n' > "$tmp/bad.config"
	out=$(CONFIG_EXTRA=$tmp/bad.config "$ROOT/scripts/configure.sh" x86_64 test patched \
		"$tmp/config" 2>&1)
	st=$?
	if [ $st != 0 ] && grep -q 'CONFIG_SLUB_KUNIT_TEST=y requested by .*bad.config' <<<"$out"; then
		record PASS config-dropped-option "names CONFIG_SLUB_KUNIT_TEST and its fragment"
	else
		record FAIL config-dropped-option "exit $st"
		sed 's/^/        /' <<<"$out"
	fi
fi

# A small git tree stands in for build/linux: base, and one commit.
fake=$tmp/build
mkdir -p "$fake/linux" "$tmp/patches"
(
	cd "$fake/linux" && git init -q && printf 'one\ntwo\nthree\n' > file &&
	git add file && git -c user.name=t -c user.email=t@t commit -qm base && git tag base &&
	sed -i 's/two/TWO/' file && git -c user.name=t -c user.email=t@t commit -qam 'file: shout'
) || record FAIL fake-tree "could not set up the fake tree"
echo 'one | The one topic | file: shout | -' > "$tmp/topics"
in_fake() { BUILD=$fake PATCHES=$tmp/patches BASE_TARBALL=/dev/null TOPICS_FILE=$tmp/topics "$@"; }

# Export: byte-stable, and unexported work is noticed.
in_fake "$ROOT/scripts/export.sh" "$tmp/e1" && in_fake "$ROOT/scripts/export.sh" "$tmp/e2"
if diff -r "$tmp/e1" "$tmp/e2" >/dev/null && [ -f "$tmp/e1/0001-file-shout.patch" ]; then
	record PASS export-stable "two exports of the same commits are identical"
else
	record FAIL export-stable "two exports differ (or are missing)"
fi
cp "$tmp/e1"/* "$tmp/patches/"

# The cover letter and the topic marks are exported with the patches, and
# a letter that no longer matches its sources is stale.
echo 'one | A renamed topic | file: shout | -' > "$tmp/topics2"
out=$(in_fake env TOPICS_FILE="$tmp/topics2" "$ROOT/scripts/check-exported.sh" 2>&1)
st=$?
if grep -q '^\[PATCH 00/01\] ' <(sed -n 's/^Subject: //p' "$tmp/e1/0000-cover-letter.patch") &&
	grep -qx '# Topic: The one topic' "$tmp/e1/series" &&
	grep -q '^0001-file-shout.patch$' "$tmp/e1/series" &&
	grep -q '0001: The one topic' "$tmp/e1/0000-cover-letter.patch" &&
	[ $st != 0 ] && grep -q 'series' <<<"$out" && grep -q '0000-cover-letter.patch' <<<"$out"; then
	record PASS cover-letter "exported with the topics marked; a stale letter and series are named"
else
	record FAIL cover-letter "exit $st: $out"
fi

# Each topic applies by context with only its prerequisites
# (topic-check, apply-only as make check runs it): b changes the line
# next to a's, so b needs a's text and fails where it does not name a.
tc=$tmp/tc
mkdir -p "$tc/build/linux" "$tc/patches"
(
	cd "$tc/build/linux" && git init -q && seq 1 12 > file && git add file &&
	git -c user.name=t -c user.email=t@t commit -qm base && git tag base &&
	sed -i 's/^2$/two/' file && git -c user.name=t -c user.email=t@t commit -qam 'file: a' &&
	sed -i 's/^3$/three/' file && git -c user.name=t -c user.email=t@t commit -qam 'file: b'
) || record FAIL fake-topics "could not set up the fake tree"
printf 'a | A | file: a | -\nb | B | file: b | -\n' > "$tc/topics"
printf 'a | A | file: a | -\nb | B | file: b | a\n' > "$tc/topics-a"
in_tc() { BUILD=$tc/build PATCHES=$tc/patches BASE_TARBALL=/dev/null APPLY_ONLY=1 "$@"; }
in_tc env TOPICS_FILE="$tc/topics" "$ROOT/scripts/export.sh" >/dev/null 2>&1
out=$(in_tc env TOPICS_FILE="$tc/topics" "$ROOT/scripts/topic-check.sh" x86_64 2>&1)
st=$?
out2=$(in_tc env TOPICS_FILE="$tc/topics-a" "$ROOT/scripts/topic-check.sh" x86_64 2>&1)
st2=$?
if [ $st != 0 ] && grep -q '^PASS apply  a ' <<<"$out" && grep -q '^FAIL apply  b (on the base alone)' <<<"$out" &&
	[ $st2 = 0 ] && grep -q '^PASS apply  b (on a): 2 patch(es)' <<<"$out2"; then
	record PASS topics-apply "a topic that needs another's lines fails alone, applies on it"
else
	record FAIL topics-apply "exit $st / $st2: $out / $out2"
fi

# Stable commit ids: two trees made from the same tarball and patches, a
# second apart and under different git configurations, are the same commits.
mkdir -p "$tmp/src/linux" "$tmp/home1" "$tmp/home2" && printf 'one\ntwo\nthree\n' > "$tmp/src/linux/file" &&
	tar -cJf "$tmp/base.tar.xz" -C "$tmp/src" linux &&
	printf '[user]\n\tname = Someone\n\temail = s@example.org\n' > "$tmp/home1/.gitconfig" &&
	printf '[am]\n\tmessageId = true\n[user]\n\tname = Someone Else\n\temail = e@example.org\n' > "$tmp/home2/.gitconfig"
for n in 1 2; do
	[ $n = 2 ] && sleep 1
	HOME=$tmp/home$n BUILD=$tmp/ids$n PATCHES=$tmp/e1 BASE_TARBALL=$tmp/base.tar.xz \
		"$ROOT/scripts/tree.sh" > "$tmp/ids$n.log" 2>&1
done
ids() { git -C "$tmp/ids$1/linux" log --format=%H base~0 HEAD 2>&1; }
if [ "$(git -C "$tmp/ids1/linux" rev-list --count base..HEAD 2>&1)" = 1 ] && [ "$(ids 1)" = "$(ids 2)" ]; then
	record PASS tree-stable-ids "two make tree runs give the same commit ids"
else
	record FAIL tree-stable-ids "commit ids differ: $(ids 1 | tr '\n' ' ') vs $(ids 2 | tr '\n' ' ')"
	sed 's/^/        /' "$tmp/ids1.log" "$tmp/ids2.log"
fi
if out=$(in_fake "$ROOT/scripts/check-exported.sh" 2>&1); then
	touch "$fake/linux/unexported-file"
	out=$(in_fake "$ROOT/scripts/check-exported.sh" 2>&1)
	st=$?
	rm -f "$fake/linux/unexported-file"
	if [ $st != 0 ] && grep -q 'unexported-file' <<<"$out"; then
		record PASS check-exported "an uncommitted file in the tree is named"
	else
		record FAIL check-exported "exit $st: $out"
	fi
else
	record FAIL check-exported "fails on a tree that matches its patches: $out"
fi

# A patch that does not apply is named with its hunk; the tree stays at base.
git -C "$fake/linux" reset -q --hard base
sed -i 's/^ three$/ three and more/' "$tmp/patches"/0001-*.patch
echo "x $(git -C "$fake/linux" rev-parse HEAD)" > "$fake/linux.stamp"
out=$(in_fake "$ROOT/scripts/tree.sh" 2>&1)
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
# QEMU's own 9.0.1 release tarball works as well as the repack without
# roms/: a tarball laid out like the release (roms/, the subprojects it
# ships unpacked) unpacks, takes qemu/patches and skips tests/fp; one of
# another version is refused.  Made from the repack, uncompressed.
if ! qsrc=$("$ROOT/scripts/qemu.sh" --source 2>/dev/null); then
	record SKIP qemu-release-layout "no QEMU 9.0.1 source here (qemu/README.md)"
else
	rel=$tmp/rel
	mkdir -p "$rel" && tar -xf "$qsrc" -C "$rel" &&
	qdir=$(find "$rel" -mindepth 1 -maxdepth 1 -type d -name 'qemu-*') &&
	mkdir -p "$qdir/roms/seabios" "$qdir/roms/edk2" &&
	echo 'firmware sources' > "$qdir/roms/seabios/README" &&
	for sp in berkeley-softfloat-3 berkeley-testfloat-3 dtc libvfio-user; do
		mkdir -p "$qdir/subprojects/$sp" &&
		echo "error('the $sp subproject is not used')" > "$qdir/subprojects/$sp/meson.build" || break
	done &&
	tar -cf "$tmp/qemu-9.0.1.tar" -C "$rel" "$(basename "$qdir")" &&
	echo 9.0.0 > "$qdir/VERSION" &&
	tar -cf "$tmp/qemu-9.0.0.tar" -C "$rel" "$(basename "$qdir")" &&
	rm -rf "$rel"
	out=$(QEMU_SRC=$tmp/qemu-9.0.1.tar "$ROOT/scripts/qemu.sh" --prepare "$tmp/qp" 2>&1)
	st=$?
	bad=$(QEMU_SRC=$tmp/qemu-9.0.0.tar "$ROOT/scripts/qemu.sh" --prepare "$tmp/qp0" 2>&1)
	bst=$?
	if [ $st = 0 ] && [ -d "$out/roms/seabios" ] &&
		grep -q "^  # subdir('fp')$" "$out/tests/meson.build" &&
		grep -rq 'S1POE' "$out/target/arm/" &&
		[ $bst != 0 ] && grep -q 'is not QEMU 9.0.1' <<<"$bad"; then
		record PASS qemu-release-layout "a release-laid-out tarball is prepared; 9.0.0 refused"
	else
		record FAIL qemu-release-layout "exit $st / $bst: $(tail -1 <<<"$out") / $(tail -1 <<<"$bad")"
	fi
	rm -rf "$tmp/qp" "$tmp/qp0" "$tmp"/qemu-9.0.*.tar
fi
# README's make run example: made from a run's log, it passes the check;
# another patch count, or a manifest entry it has no result for, is named.
rx=$tmp/rx
mkdir -p "$rx/patches" "$rx/guest" && cp "$ROOT/guest/manifest" "$rx/guest/" &&
	printf '0001-a.patch\n0002-b.patch\n' > "$rx/patches/series" &&
	printf 'intro\n<!-- make-run-example: begin -->\nold\n<!-- make-run-example: end -->\nrest\n' > "$rx/README.md" &&
	{
		echo '==> building x86_64 kernel in build/x86_64 (log: build/x86_64/build.log)'
		echo '==> console: build/logs/x86_64-test-20260101-000000.log'
		echo 'x86_64: Linux 6.1.0+ = Debian linux-source-6.1 + 2 patch(es) of patches/series [HEAD 0 b]'
		"$ROOT/scripts/manifest.sh" expect x86_64 "$rx/guest/manifest" | awk '{ printf "  PASS  test    %s  ok\n", $2 }'
		echo '  PASS  boot    guest  ran its manifest and stopped'
	} > "$rx/run.log"
python3 "$ROOT/scripts/readme-example.py" update "$rx/run.log" "$rx" > "$rx/out0" 2>&1
st0=$?
echo 0003-c.patch >> "$rx/patches/series"
out=$(python3 "$ROOT/scripts/readme-example.py" check "$rx" 2>&1)
st=$?
printf '0001-a.patch\n0002-b.patch\n' > "$rx/patches/series" &&
	echo 'run   no_such_test x86_64 60 /tests/none' >> "$rx/guest/manifest"
out2=$(python3 "$ROOT/scripts/readme-example.py" check "$rx" 2>&1)
st2=$?
if [ $st0 = 0 ] && grep -q '^rest$' "$rx/README.md" &&
	[ $st != 0 ] && grep -q 'a run of 2 patches, patches/series has 3' <<<"$out" &&
	[ $st2 != 0 ] && grep -q "missing \['no_such_test'\]" <<<"$out2"; then
	record PASS readme-example "an example from a log passes; a stale count or result is named"
else
	record FAIL readme-example "exit $st0 / $st / $st2: $(cat "$rx/out0") / $out / $out2"
fi
# guest/manifest's ARCHES column: which lines each kernel label gets.
mf=$tmp/manifest
cat > "$mf" <<'EOM'
kunit  suite_all   x86_64,arm64
kunit  suite_ctl   arm64-scratch
run    every       x86_64,arm64          60 /tests/every
run    main_only   =x86_64,=arm64        60 /tests/main_only
run    not_pti     x86_64,!x86_64-pti    60 /tests/not_pti
skip   arm_skip    arm64                 no reason
EOM
got=
for l in x86_64 x86_64-pti x86_64-kasan arm64 arm64-scratch; do
	got="$got $l:$("$ROOT/scripts/manifest.sh" expect "$l" "$mf" | awk '{ print $2 }' | paste -sd, -)"
done
want=" x86_64:suite_all,every,main_only,not_pti x86_64-pti:suite_all,every"
want="$want x86_64-kasan:suite_all,every,not_pti arm64:suite_all,every,main_only,arm_skip"
want="$want arm64-scratch:suite_all,suite_ctl,every,arm_skip"
if [ "$got" = "$want" ]; then
	record PASS manifest-labels "=LABEL, !LABEL and a variant's own lines select as documented"
else
	record FAIL manifest-labels "got$got, want$want"
fi
! grep -q '^FAIL host:harness' "$results" 2>/dev/null
