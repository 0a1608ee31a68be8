#!/bin/bash
# Generate the kernel .config for one build: tinyconfig plus our fragments,
# resolved by Kconfig in a single allnoconfig pass, then checked: every
# option a fragment asks for must be in the result with the asked value.
#
# Usage: configure.sh ARCH VARIANT KIND OUTDIR [SRCDIR]
#   VARIANT  test (debug checks, KUnit; adds configs/debug-ARCH.config
#            where it exists) or bench (no debug; adds
#            configs/bench-ARCH.config where it exists)
#   KIND     patched (adds configs/series*.config; series-test.config and
#            series-ARCH.config for test kernels only), base, or bisect (like
#            patched, but series options that Kconfig lacks are not errors)
# .config in OUTDIR is only replaced when its content changes, so an
# unchanged configuration never triggers a rebuild.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 4 ] || die "usage: $0 ARCH test|bench patched|base OUTDIR [SRCDIR]"
arch=$1 variant=$2 kind=$3 out=$4 src=${5:-$KSRC}
arch_vars "$arch"

frags=("$ROOT/configs/common.config" "$ROOT/configs/$arch.config")
case $variant in
test)
	frags+=("$ROOT/configs/debug.config")
	[ -f "$ROOT/configs/debug-$arch.config" ] &&
		frags+=("$ROOT/configs/debug-$arch.config")
	;;
bench)
	frags+=("$ROOT/configs/bench.config")
	[ -f "$ROOT/configs/bench-$arch.config" ] &&
		frags+=("$ROOT/configs/bench-$arch.config")
	;;
*) die "unknown variant '$variant'" ;;
esac
# Fragments whose every option must survive (see below).
checked=("${frags[@]}")
case $kind in
patched | bisect)
	series=("$ROOT/configs/series.config")
	# Features of the series that only some architectures have: test and
	# bench kernels alike (Kconfig defaults do not survive allnoconfig).
	[ -f "$ROOT/configs/series-features-$arch.config" ] &&
		series+=("$ROOT/configs/series-features-$arch.config")
	# Per-arch extras are for test kernels: benchmarks compare the
	# series' defaults with the base.
	if [ "$variant" = test ]; then
		series+=("$ROOT/configs/series-test.config")
		[ -f "$ROOT/configs/series-$arch.config" ] &&
			series+=("$ROOT/configs/series-$arch.config")
	fi
	frags+=("${series[@]}")
	# A commit in the middle of the series (bisect) may not have an
	# option yet: only the finished series is held to series.config.
	[ "$kind" = patched ] && checked+=("${series[@]}")
	;;
base) ;;
*) die "unknown kind '$kind'" ;;
esac
# Extra fragments from the command line (make run CONFIG_EXTRA=file).
for f in ${CONFIG_EXTRA:-}; do
	frags+=("$(realpath "$f")")
	checked+=("$(realpath "$f")")
done

mkdir -p "$out"
out=$(realpath "$out")
all=$out/allconfig.in
{
	cat "$src/kernel/configs/tiny-base.config" "$src/kernel/configs/tiny.config"
	[ -f "$src/arch/$SRCARCH/configs/tiny.config" ] &&
		cat "$src/arch/$SRCARCH/configs/tiny.config"
	cat "${frags[@]}"
} > "$all"

make -s -C "$src" O="$out" ARCH="$KARCH" CROSS_COMPILE="$CROSS" \
	KCONFIG_CONFIG=.config.new KCONFIG_ALLCONFIG="$all" allnoconfig \
	> "$out/configure.log" 2>&1 || { cat "$out/configure.log" >&2; die "Kconfig failed"; }

# Every requested value must have survived dependency resolution.
awk '
	FNR == 1 { nfile++ }
	nfile <= NF_FRAGS {
		if (match($0, /^CONFIG_[A-Za-z0-9_]+=/)) {
			sym = substr($0, 1, RLENGTH - 1); want[sym] = substr($0, RLENGTH + 1)
			from[sym] = FILENAME
		} else if (match($0, /^# CONFIG_[A-Za-z0-9_]+ is not set/)) {
			sym = $2; want[sym] = "n"; from[sym] = FILENAME
		}
		next
	}
	match($0, /^CONFIG_[A-Za-z0-9_]+=/) {
		have[substr($0, 1, RLENGTH - 1)] = substr($0, RLENGTH + 1)
	}
	END {
		bad = 0
		for (sym in want) {
			got = (sym in have) ? have[sym] : "n"
			if (got != want[sym]) {
				sub(".*/configs/", "configs/", from[sym])
				printf "ERROR: %s=%s requested by %s, but the .config has %s=%s\n",
					sym, want[sym], from[sym], sym, got > "/dev/stderr"
				bad = 1
			}
		}
		exit bad
	}' NF_FRAGS=${#checked[@]} "${checked[@]}" "$out/.config.new" ||
	die "Kconfig dropped or changed the options above (unmet dependency or typo); $out/.config.new has the result"

if ! cmp -s "$out/.config.new" "$out/.config"; then
	mv "$out/.config.new" "$out/.config"
	info "$out/.config updated"
else
	rm -f "$out/.config.new"
fi
