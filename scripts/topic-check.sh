#!/bin/bash
# Build and boot every topic of the series (scripts/topics) on the base with
# only its prerequisites: each topic's patches of patches/, after those of
# the topics it needs, are applied to the base in a scratch worktree with
# `git am` as a distribution applies them (by context, no three-way
# merge, so a hunk that needs another topic's lines fails), built with the
# test configuration (series options that the topics lack are not errors)
# and booted with the KUnit suites the tree has, as bisect-check boots each
# patch.
#
# Usage: [TOPICS="id ..."] [APPLY_ONLY=1] topic-check.sh [ARCH]
# APPLY_ONLY=1 stops after applying (make check runs it so).
# CHECK_FORCE=1 builds and boots topics that bisect/RESULTS.md already has
# a pass for (same architecture, source tree and .config); every build and
# boot is recorded there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64}
arch_vars "$arch"
# One worktree per architecture: both arches can run at once.
wt=$BUILD/linux-topic-$arch
out=$BUILD/topic-$arch
[ -d "$KSRC/.git" ] || die "no build/linux: run 'make topic-check', which makes the tree first"

files=($(series_patches))
topics=$(python3 "$ROOT/scripts/cover-letter.py" --topics "$PATCHES")
declare -A first last needs
for t in $(echo "$topics" | awk '{print $1}'); do
	read -r _ first[$t] last[$t] rest <<<"$(echo "$topics" | awk -v t="$t" '$1 == t')"
	needs[$t]=$rest
done
want=${TOPICS:-$(echo "$topics" | awk '{print $1}')}
for t in $want; do
	[ -n "${first[$t]:-}" ] || die "no topic '$t' (scripts/topics: $(echo "$topics" | awk '{print $1}' | paste -sd' '))"
done

if [ -n "${APPLY_ONLY:-}" ]; then
	mkdir -p "$out"
	if [ ! -e "$wt/.git" ]; then
		rm -rf "$wt"
		git -C "$KSRC" worktree prune
		git -C "$KSRC" worktree add -q --detach "$wt" base
	fi
else
	kunit_only_setup "$arch" "$wt" "$out"
	suites=$("$ROOT/scripts/manifest.sh" kunit "$arch")
fi

fail=0
for t in $want; do
	# The topic's prerequisites and itself, in the order of the series.
	picks=()
	for u in $(echo "$topics" | awk '{print $1}'); do
		case " ${needs[$t]} $t " in *" $u "*) ;; *) continue ;; esac
		for ((i = ${first[$u]}; i <= ${last[$u]}; i++)); do
			picks+=("$PATCHES/${files[i - 1]}")
		done
	done
	label="$t (on ${needs[$t]:-the base alone})"
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" checkout -q --detach base
	if ! git -C "$wt" -c user.name=topic-check -c user.email=topic-check@invalid \
		am --no-3way "${picks[@]}" > "$out/apply.log" 2>&1; then
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		echo "FAIL apply  $label (log: ${out#"$ROOT"/}/apply.log)"
		fail=1
		continue
	fi
	if [ -n "${APPLY_ONLY:-}" ]; then
		echo "PASS apply  $label: ${#picks[@]} patch(es)"
		continue
	fi
	check_kernel "$arch" "$out" "$wt" "$suites" "topic-$t" "topic $t" \
		"${#picks[@]} patch(es) on ${needs[$t]:-the base}" "$label" || fail=1
done
exit $fail
