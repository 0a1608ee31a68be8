#!/bin/bash
# The one parser of guest/manifest and guest/bench/manifest (format in
# guest/manifest): the lines for one architecture, as WHAT asks.
#
# Usage: manifest.sh WHAT ARCH [MANIFEST]   (default guest/manifest)
#   ARCH may be a kernel's label, ARCH-VARIANT (arm64-scratch): it then
#   gets ARCH's lines and the lines that name the label itself.  A name
#   written =LABEL (=x86_64) is that label only, not its variants; one
#   written !LABEL (!x86_64-pti) leaves that label out of the line.
#   init      "run NAME TIMEOUT PROGRAM [ARGS]" / "skip NAME REASON", as
#             guest/init.c reads them from /etc/manifest
#   expect    "kunit SUITE" / "test NAME": what the verdict must see reported
#   kunit     the KUnit suites, one a line
#   programs  the guest path of each program run (/tests/NAME), once each
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 init|expect|kunit|programs ARCH [MANIFEST]" >&2; exit 2; }
case $1 in init | expect | kunit | programs) ;; *) echo "$0: unknown WHAT '$1'" >&2; exit 2 ;; esac
file=${3:-$(dirname "$0")/../guest/manifest}
awk -v what="$1" -v arch="$2" '
	/^[[:space:]]*(#|$)/ { next }
	$1 !~ /^(kunit|run|skip)$/ || NF < 3 {
		printf "%s:%d: not a manifest line: %s\n", FILENAME, FNR, $0 > "/dev/stderr"
		bad = 1; exit 1
	}
	{
		n = split($3, a, ","); ok = 0; base = arch; sub(/-.*/, "", base)
		for (i = 1; i <= n; i++)
			if (a[i] == arch || a[i] == base || a[i] == "=" arch) ok = 1
		for (i = 1; i <= n; i++)
			if (a[i] == "!" arch) ok = 0
		if (!ok) next
	}
	what == "expect" { print ($1 == "kunit" ? "kunit" : "test"), $2 }
	what == "kunit" && $1 == "kunit" { print $2 }
	what == "programs" && $1 == "run" && !seen[$5]++ { print $5 }
	what == "init" && $1 != "kunit" {
		line = $1 " " $2
		for (i = 4; i <= NF; i++) line = line " " $i
		print line
	}
	END { exit bad }' "$file"
