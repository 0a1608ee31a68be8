#!/bin/bash
# Create or refresh build/linux: a git repository whose first commit is the
# pristine Debian linux-source-6.1 tree (tagged "base"), followed by one
# commit per entry of patches/series, applied with git am.
#
# An existing tree is left alone when it matches patches/.  When patches/
# changed and the tree holds no unexported work, the tree is rebuilt from
# "base"; when it holds unexported work, we stop rather than lose it.
#
# Usage: tree.sh [--force]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

FORCE=0
[ "${1:-}" = --force ] && FORCE=1
STAMP=$BUILD/linux.stamp	# "<series hash> <HEAD at last sync>"

# The same commit ids on every machine: the commits are made with no user
# or system git configuration (signing, am.messageId, autocrlf...), the
# base commit has fixed names and dates, and each patch's commit has the
# patch's author as its committer and the patch's Date: as its commit date.
commit_git() { GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git "$@"; }

mkdir -p "$BUILD"

create_base() {
	local ver tmp
	[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL missing: run 'make deps'"
	ver=$(base_version)
	tmp=$BUILD/linux.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	info "unpacking $BASE_TARBALL ($BASE_PKG $ver)"
	tar -xJf "$BASE_TARBALL" -C "$tmp" --strip-components=1
	info "committing the pristine tree"
	commit_git -C "$tmp" init -q -b base-$$
	# The tarball is the source of truth: add every file, even those that
	# the kernel's own .gitignore files would hide.
	commit_git -C "$tmp" add -A -f .
	GIT_AUTHOR_NAME="Debian kernel team" GIT_AUTHOR_EMAIL="debian-kernel@lists.debian.org" \
	GIT_COMMITTER_NAME="Debian kernel team" GIT_COMMITTER_EMAIL="debian-kernel@lists.debian.org" \
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		commit_git -C "$tmp" commit -q --no-verify -m "Debian $BASE_PKG $ver

Pristine source from $BASE_TARBALL,
package $BASE_PKG version $ver.
sha256 $(sha256sum "$BASE_TARBALL" | cut -d' ' -f1)"
	git -C "$tmp" tag base
	git -C "$tmp" checkout -q -b master
	git -C "$tmp" branch -q -D base-$$
	rm -rf "$KSRC"
	mv "$tmp" "$KSRC"
}

# Print the hunk git cannot find, then put the tree back on the last good
# commit so that build/ stays usable.
report_failure() {
	local p=$1
	echo "ERROR: patch does not apply: patches/$p" >&2
	git -C "$KSRC" apply --check -v "$PATCHES/$p" 2>&1 |
		sed -n '/^error:/,$p' | sed 's/^/    /' >&2 || true
	git -C "$KSRC" am --abort >/dev/null 2>&1 || true
	echo "build/linux left at: $(git -C "$KSRC" log -1 --format='%h %s')" >&2
	echo "failed $(head_of)" > "$STAMP"
	echo "Fix the patch (or rebase it in build/linux and run 'make export')." >&2
}

# Debian's top-level .gitignore ignores every top-level entry ("/*"), which
# hides new files such as mm/mseal.c from git status and git add -A.  Drop
# that rule in the work tree only: the committed file stays pristine.
unhide_new_files() {
	[ -f "$KSRC/.gitignore" ] || return 0
	git -C "$KSRC" update-index --skip-worktree .gitignore
	sed -i -e '/^\/\*$/d' -e '/^!\/debian\/$/d' "$KSRC/.gitignore"
}

# git am, committed by the patch's author at the patch's date.
apply_patch() {
	local info
	info=$(git mailinfo /dev/null /dev/null < "$1") || return
	GIT_COMMITTER_NAME=$(sed -n 's/^Author: //p' <<<"$info") \
	GIT_COMMITTER_EMAIL=$(sed -n 's/^Email: //p' <<<"$info") \
	GIT_COMMITTER_DATE=$(sed -n 's/^Date: //p' <<<"$info") \
		commit_git -C "$KSRC" am -q "$1"
}

apply_series() {
	local p n=0
	git -C "$KSRC" checkout -q -f master
	git -C "$KSRC" update-index --no-skip-worktree .gitignore 2>/dev/null || true
	git -C "$KSRC" checkout -q base -- .gitignore 2>/dev/null || true
	git -C "$KSRC" reset -q --hard base
	git -C "$KSRC" clean -q -fdx
	for p in $(series_patches); do
		[ -f "$PATCHES/$p" ] || die "patches/series lists '$p', which does not exist"
		if ! apply_patch "$PATCHES/$p" >/dev/null 2>&1; then
			report_failure "$p"
			exit 1
		fi
		n=$((n + 1))
	done
	unhide_new_files
	info "applied $n patch(es) on $(git -C "$KSRC" log -1 --format=%s base)"
}

head_of() { git -C "$KSRC" rev-parse HEAD; }

dirty() { [ -n "$(git -C "$KSRC" status --porcelain)" ]; }

want=$(series_hash)
if [ ! -d "$KSRC/.git" ]; then
	create_base
	apply_series
elif [ -f "$STAMP" ] && [ "$(cut -d' ' -f1 "$STAMP")" = "$want" ] && [ $FORCE = 0 ]; then
	exit 0
else
	old_head=$(cut -d' ' -f2 "$STAMP" 2>/dev/null || true)
	if [ $FORCE = 0 ] && { [ "$(head_of)" != "$old_head" ] || dirty; }; then
		die "patches/ changed, but build/linux has work that is not exported.
  'make check-exported' shows it; 'make export' saves it to patches/;
  'make tree FORCE=1' throws it away and rebuilds the tree from patches/."
	fi
	git -C "$KSRC" am --abort >/dev/null 2>&1 || true
	apply_series
fi
echo "$want $(head_of)" > "$STAMP"
