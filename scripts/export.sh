#!/bin/bash
# Write the commits of build/linux (base..HEAD) to patches/ as
# git format-patch files plus a quilt series file (its topics marked with
# comments) and the cover letter, 0000-cover-letter.patch, which is not in
# the series.  The same commits always
# give byte-identical files: zero commit ids, no signature, fixed abbrev.
#
# Usage: export.sh [DIR]   (default patches/; check-exported uses a temp dir)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dest=${1:-$PATCHES}
[ -d "$KSRC/.git" ] || die "no build/linux: run 'make tree' first"
if [ -n "$(git -C "$KSRC" status --porcelain)" ] && [ "$dest" = "$PATCHES" ]; then
	git -C "$KSRC" status --short | head -20 >&2
	die "build/linux has uncommitted changes: commit them first"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kgit format-patch -q --zero-commit --no-signature --abbrev=12 \
	--no-binary -o "$tmp" base..HEAD >/dev/null
{
	echo "# Hardening series for Linux 6.1 on Debian $BASE_PKG."
	echo "# Apply in this order (quilt push -a, or git am)."
	( cd "$tmp" && ls -1 -- *.patch 2>/dev/null || true )
} > "$tmp/series"
# The topics (scripts/topics) as comments, and the cover letter, made
# from the patches and the repository's figures (scripts/cover-letter.py).
python3 "$ROOT/scripts/cover-letter.py" --series "$tmp"
python3 "$ROOT/scripts/cover-letter.py" "$tmp" "$KSRC"

mkdir -p "$dest"
# Patches that are no longer in the series go away; the rest is replaced.
for f in "$dest"/*.patch; do
	[ -e "$f" ] || continue
	[ -e "$tmp/$(basename "$f")" ] || rm -f "$f"
done
for f in "$tmp"/*; do
	cmp -s "$f" "$dest/$(basename "$f")" || cp "$f" "$dest/"
done
if [ "$dest" = "$PATCHES" ]; then
	echo "$(series_hash) $(git -C "$KSRC" rev-parse HEAD)" > "$BUILD/linux.stamp"
	info "exported $(git -C "$KSRC" rev-list --count base..HEAD) patch(es) to patches/"
fi
