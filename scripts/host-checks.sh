#!/bin/bash
# Checks that need no VM: the series applies with git am, so does each of
# its topics on the base with only its prerequisites, patches/ matches
# build/linux, checkpatch --strict is clean on every patch, and the
# harness's own tests pass.
#
# Usage: host-checks.sh RESULTS_FILE
# Every result goes to RESULTS_FILE.  The exit status is non-zero only when
# the series does not apply, since nothing can be built then.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

results=${1:?usage: $0 RESULTS_FILE}
record() { echo "$1 host:$2 $3" >> "$results"; printf '  %-4s  %-28s %s\n' "$1" "$2" "$3"; }

echo "host checks:"
if out=$("$ROOT/scripts/tree.sh" 2>&1); then
	record PASS series-applies "$(series_patches | wc -l) patch(es) applied with git am on $BASE_PKG $(base_version)"
else
	record FAIL series-applies "$(echo "$out" | grep -m1 ERROR)"
	echo "$out" | sed 's/^/        /'
	exit 1
fi
if out=$("$ROOT/scripts/check-exported.sh" 2>&1); then
	record PASS patches-exported "build/linux and patches/ agree"
else
	record FAIL patches-exported "build/linux has work missing from patches/"
	echo "$out" | sed 's/^/        /'
fi

# Each topic applies with git am (by context) on the base with only its
# prerequisites (make topic-check then builds and boots each).
if out=$(APPLY_ONLY=1 "$ROOT/scripts/topic-check.sh" 2>&1); then
	record PASS topics-apply "$(echo "$out" | grep -c '^PASS apply') topic(s) apply on the base with only their prerequisites"
else
	record FAIL topics-apply "$(echo "$out" | grep -m1 FAIL)"
	echo "$out" | sed 's/^/        /'
fi

# README.md's table of patches (count, numbers, subjects) is patches/'s.
if out=$(python3 "$ROOT/scripts/readme-check.py" "$ROOT" 2>&1); then
	record PASS readme-patches "README.md lists the $(series_patches | wc -l) patches of patches/series"
else
	record FAIL readme-patches "$(echo "$out" | head -1)"
	echo "$out" | sed 's/^/        /'
fi

# README.md's example of `make run` is a run of today's series
# (scripts/readme-example.py update LOG refreshes it).
if out=$(python3 "$ROOT/scripts/readme-example.py" check "$ROOT" 2>&1); then
	record PASS readme-example "README.md's make run example is a run of the $(series_patches | wc -l) patches and the manifest's x86_64 entries"
else
	record FAIL readme-example "$(echo "$out" | head -1)"
	echo "$out" | sed 's/^/        /'
fi

# NOTES.md is one page: the current state, open problems, pitfalls.
notes_bytes=$(wc -c < "$ROOT/NOTES.md")
if [ "$notes_bytes" -le 10000 ]; then
	record PASS notes-size "NOTES.md is $notes_bytes bytes (at most 10000)"
else
	record FAIL notes-size "NOTES.md is $notes_bytes bytes, more than one page (10000): move history to commit messages"
fi

# checkpatch: FILE_PATH_CHANGES only asks whether MAINTAINERS needs an
# update for new files, and UNKNOWN_COMMIT_ID that an upstream commit a
# message credits is in build/linux, which holds Debian's source without
# upstream's history (the id's format is still checked); everything else
# is an error for us.
n=0
for p in $(series_patches); do
	n=$((n + 1))
	out=$(cd "$KSRC" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --no-summary --quiet \
		--ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID --show-types "$PATCHES/$p" 2>&1)
	if [ -z "$out" ]; then
		record PASS "checkpatch:${p%%-*}" "$p"
	else
		record FAIL "checkpatch:${p%%-*}" "$p: $(echo "$out" | grep -cE '^(ERROR|WARNING|CHECK)') finding(s)"
		echo "$out" | head -40 | sed 's/^/        /'
	fi
done
[ $n = 0 ] && record PASS checkpatch "series is empty: nothing to check"

"$ROOT/scripts/tests/run.sh" "$results" || true
