#!/bin/bash
# Exit non-zero, naming what differs, when build/linux holds work that
# patches/ does not: uncommitted edits, or commits that export differently.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$KSRC/.git" ] || { info "no build/linux: nothing to export"; exit 0; }
bad=0
if [ -n "$(git -C "$KSRC" status --porcelain)" ]; then
	echo "build/linux has uncommitted changes (commit, then 'make export'):"
	git -C "$KSRC" status --short | head -20 | sed 's/^/    /'
	bad=1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ROOT/scripts/export.sh" "$tmp/patches"
diffs=$(diff -rq "$PATCHES" "$tmp/patches" 2>&1 |
	sed -e "s|$tmp/patches|build/linux|g" -e "s|$ROOT/||g" || true)
if [ -n "$diffs" ]; then
	echo "patches/ differs from the commits in build/linux (run 'make export'):"
	echo "$diffs" | sed 's/^/    /'
	bad=1
fi
[ $bad = 0 ] && info "patches/ matches build/linux ($(git -C "$KSRC" rev-list --count base..HEAD) patch(es))"
exit $bad
