#!/bin/bash
# The configuration of make distro-check: Debian's own kernel
# configuration for ARCH (package linux-config-6.1, fetched by
# scripts/distro-fetch.sh), every module off but those of
# configs/distro-modules, plus configs/distro.config, resolved by
# olddefconfig and checked: every value the fragment and the module list
# ask for must be in the result.
#
# Usage: distro-config.sh ARCH FLAVOUR OUTDIR [SRCDIR]
#   FLAVOUR  none (config.ARCH_none_ARCH) or rt (config.ARCH_rt_ARCH,
#            with configs/distro-rt.config)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 3 ] || die "usage: $0 ARCH none|rt OUTDIR [SRCDIR]"
arch=$1 flavour=$2 out=$3 src=${4:-$KSRC}
arch_vars "$arch"
debarch=$(distro_debarch "$arch")
debcfg=$(distro_fetch "$arch")/config.${debarch}_${flavour}_${debarch}
[ -f "$debcfg" ] || die "Debian has no $flavour configuration for $arch ($debcfg)"

mkdir -p "$out"
out=$(realpath "$out")
frag=$out/distro.fragment
{
	cat "$ROOT/configs/distro.config"
	[ "$flavour" = none ] || cat "$ROOT/configs/distro-$flavour.config"
	awk '!/^#/ && NF { print "CONFIG_" $1 "=m" }' "$ROOT/configs/distro-modules"
} > "$frag"
# Debian's build keys are not ours: the build makes a signing key of its own.
sed -E -e 's/^(CONFIG_[A-Za-z0-9_]+)=m$/# \1 is not set/' \
	-e 's/^(CONFIG_SYSTEM_(TRUSTED|REVOCATION)_KEYS)=.*/\1=""/' \
	"$debcfg" > "$out/.config.new"
cat "$frag" >> "$out/.config.new"
make -s -C "$src" O="$out" ARCH="$KARCH" CROSS_COMPILE="$CROSS" \
	KCONFIG_CONFIG=.config.new olddefconfig > "$out/configure.log" 2>&1 ||
	{ cat "$out/configure.log" >&2; die "Kconfig failed"; }

bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF "$line" "$out/.config.new" && continue
		opt=${line%%=*}
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		grep -q "^$opt=" "$out/.config.new" || continue
		;;
	*) continue ;;
	esac
	echo "  asked: $line; got: $(grep -E "^(# )?$opt[= ]" "$out/.config.new" || echo missing)" >&2
	bad=1
done < "$frag"
[ $bad = 0 ] || die "options of configs/distro.config did not survive Kconfig"
if ! cmp -s "$out/.config.new" "$out/.config"; then
	mv "$out/.config.new" "$out/.config"
else
	rm -f "$out/.config.new"
fi
